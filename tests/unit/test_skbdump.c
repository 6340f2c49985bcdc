// SPDX-License-Identifier: GPL-2.0
/*
 * <rawfrag/skbdump.h>'s reader: the meta split field by field in both byte
 * orders, every length bound, hook names both ways, the event-name encoding of
 * interface names (round trip, truncation, hostile names).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rawfrag/skbdump.h>

static void put16(uint8_t *p, uint16_t v, bool be)
{
	p[be ? 1 : 0] = v & 0xff;
	p[be ? 0 : 1] = v >> 8;
}

static void put32(uint8_t *p, uint32_t v, bool be)
{
	for (int i = 0; i < 4; i++)
		p[be ? 3 - i : i] = v >> (8 * i);
}

/* a dump written byte by byte at the offsets the header documents (not offsetof) */
static size_t make(uint8_t *b, bool be, uint16_t meta_len, uint32_t caplen)
{
	memset(b, 0, 256);
	put32(b, RAWFRAG_SKB_MAGIC, be);
	put16(b + 4, 1, be);
	put16(b + 6, meta_len, be);
	b[8] = RAWFRAG_SKB_HOOK_TC_EGRESS;
	b[9] = RAWFRAG_SKB_DIR_OUT;
	b[10] = 4;
	b[11] = RAWFRAG_SKB_F_VLAN;
	put32(b + 12, 7, be);
	put32(b + 16, 1500, be);
	put32(b + 20, caplen, be);
	put32(b + 24, 256, be);
	put16(b + 28, 0x0800, be);
	put16(b + 30, 0x2064, be);
	put32(b + 32, 0xdeadbeef, be);
	put32(b + 36, 0x12345678, be);
	for (uint32_t i = 0; i < caplen && meta_len + i < 256; i++)
		b[meta_len + i] = i;
	return meta_len + caplen;
}

static void test_split(void **state)
{
	uint8_t b[256];
	struct rawfrag_skb_dump d;
	const char *why = NULL;

	for (int be = 0; be < 2; be++) {
		size_t n = make(b, be, 40, 60);

		assert_int_equal(rawfrag_skb_dump__split(&d, b, n + 4, &why), 0);
		assert_int_equal(d.meta.magic, RAWFRAG_SKB_MAGIC);
		assert_int_equal(d.meta.version, 1);
		assert_int_equal(d.meta.meta_len, 40);
		assert_int_equal(d.meta.hook, RAWFRAG_SKB_HOOK_TC_EGRESS);
		assert_int_equal(d.meta.dir, RAWFRAG_SKB_DIR_OUT);
		assert_int_equal(d.meta.pkt_type, 4);
		assert_int_equal(d.meta.flags, RAWFRAG_SKB_F_VLAN);
		assert_int_equal(d.meta.ifindex, 7);
		assert_int_equal(d.meta.orig_len, 1500);
		assert_int_equal(d.meta.caplen, 60);
		assert_int_equal(d.meta.snaplen, 256);
		assert_int_equal(d.meta.protocol, 0x0800);
		assert_int_equal(d.meta.vlan_tci, 0x2064);
		assert_int_equal(d.meta.mark, 0xdeadbeef);
		assert_int_equal(d.meta.hash, 0x12345678);
		assert_ptr_equal(d.data, b + 40);
		assert_int_equal(d.data[59], 59);
		/* the byte order follows the magic, whatever the host's */
		assert_int_equal(d.swapped, (be != 0) == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__));
		/* a longer meta of a later version: the packet starts after it */
		n = make(b, be, 48, 16);
		assert_int_equal(rawfrag_skb_dump__split(&d, b, n, NULL), 0);
		assert_ptr_equal(d.data, b + 48);
	}
}

static void test_split_bad(void **state)
{
	uint8_t b[256];
	struct rawfrag_skb_dump d;
	const char *why = NULL;

	make(b, false, 40, 60);
	assert_int_equal(rawfrag_skb_dump__split(&d, b, 39, &why), -ENOMSG);
	assert_non_null(strstr(why, "shorter"));
	assert_int_equal(rawfrag_skb_dump__split(&d, NULL, 100, NULL), -ENOMSG);
	/* caplen one past the payload, exactly at its end */
	assert_int_equal(rawfrag_skb_dump__split(&d, b, 99, &why), -EINVAL);
	assert_non_null(strstr(why, "caplen"));
	assert_int_equal(rawfrag_skb_dump__split(&d, b, 100, NULL), 0);
	make(b, false, 39, 0);
	assert_int_equal(rawfrag_skb_dump__split(&d, b, 100, &why), -EINVAL);
	assert_non_null(strstr(why, "meta_len"));
	make(b, false, 200, 0);
	assert_int_equal(rawfrag_skb_dump__split(&d, b, 100, &why), -EINVAL);
	/* caplen near UINT32_MAX must not wrap the bound */
	make(b, false, 40, 0);
	put32(b + 20, 0xffffffff, false);
	assert_int_equal(rawfrag_skb_dump__split(&d, b, 100, &why), -EINVAL);
	b[0] ^= 1;
	assert_int_equal(rawfrag_skb_dump__split(&d, b, 100, &why), -ENOMSG);
	assert_non_null(strstr(why, "magic"));
}

static void test_hooks(void **state)
{
	static const char *const names[] = { "socket", "tc-ingress", "tc-egress",
					     "xdp", "xdp-entry", "xdp-exit" };

	for (int i = 0; i < 6; i++) {
		assert_int_equal(rawfrag_skb_hook__parse(names[i]), i + 1);
		assert_string_equal(rawfrag_skb_hook__name(i + 1), names[i]);
	}
	assert_string_equal(rawfrag_skb_hook__name(0), "none");
	assert_string_equal(rawfrag_skb_hook__name(7), "unknown");
	assert_string_equal(rawfrag_skb_hook__name(0xffffffffu), "unknown");
	assert_int_equal(rawfrag_skb_hook__parse("none"), -EINVAL);
	assert_int_equal(rawfrag_skb_hook__parse("XDP"), -EINVAL);
	assert_int_equal(rawfrag_skb_hook__parse(""), -EINVAL);
	assert_int_equal(rawfrag_skb_hook__parse(NULL), -EINVAL);
	assert_string_equal(rawfrag_skb_xdp_action__name(0), "XDP_ABORTED");
	assert_string_equal(rawfrag_skb_xdp_action__name(2), "XDP_PASS");
	assert_string_equal(rawfrag_skb_xdp_action__name(4), "XDP_REDIRECT");
	assert_string_equal(rawfrag_skb_xdp_action__name(5), "XDP_?");
	assert_string_equal(rawfrag_skb_xdp_action__name(0xffffffffu), "XDP_?");
}

static void test_event_names(void **state)
{
	const char *names[] = { "lo", "veth0", "eth1" };
	uint32_t idx[] = { 1, 12, 4000000000u };
	char buf[64], small[12], n[16];

	assert_int_equal(rawfrag_skb_event__format(buf, sizeof(buf), names, idx, 3),
			 (int)strlen("skbdump:1=lo,12=veth0,4000000000=eth1"));
	assert_string_equal(buf, "skbdump:1=lo,12=veth0,4000000000=eth1");
	for (int i = 0; i < 3; i++) {
		assert_int_equal(rawfrag_skb_event__ifname(buf, idx[i], n, sizeof(n)), 0);
		assert_string_equal(n, names[i]);
	}
	assert_int_equal(rawfrag_skb_event__ifname(buf, 2, n, sizeof(n)), -ENOENT);
	assert_string_equal(n, "if2");
	/* 1 must not match the 12 entry, nor 12 the 1 entry */
	assert_int_equal(rawfrag_skb_event__ifname("skbdump:12=a", 1, n, sizeof(n)), -ENOENT);
	assert_int_equal(rawfrag_skb_event__ifname("skbdump:1=a", 12, n, sizeof(n)), -ENOENT);
	/* truncated output: the needed length, a terminated prefix */
	assert_int_equal(rawfrag_skb_event__format(small, sizeof(small), names, idx, 3),
			 (int)strlen("skbdump:1=lo,12=veth0,4000000000=eth1"));
	assert_int_equal(strlen(small), sizeof(small) - 1);
	names[1] = "a=b";
	assert_int_equal(rawfrag_skb_event__format(buf, sizeof(buf), names, idx, 3), -EINVAL);
	/* hostile names: not ours, garbage, an index overflowing 32 bits, empty name */
	assert_int_equal(rawfrag_skb_event__ifname("sched:sched_switch", 1, n, sizeof(n)), -EINVAL);
	assert_int_equal(rawfrag_skb_event__ifname(NULL, 1, n, sizeof(n)), -EINVAL);
	assert_int_equal(rawfrag_skb_event__ifname("skbdump:,,=,x=1,", 1, n, sizeof(n)), -ENOENT);
	assert_int_equal(rawfrag_skb_event__ifname("skbdump:4294967297=x", 1, n, sizeof(n)), -ENOENT);
	assert_int_equal(rawfrag_skb_event__ifname("skbdump:3=", 3, n, sizeof(n)), 0);
	assert_string_equal(n, "");
	assert_int_equal(rawfrag_skb_event__ifname("skbdump:3=averyveryverylongname", 3, n, sizeof(n)), 0);
	assert_int_equal(strlen(n), sizeof(n) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_split_bad),
		cmocka_unit_test(test_hooks),
		cmocka_unit_test(test_event_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
