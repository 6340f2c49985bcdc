// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf_event_attr as stored in perf.data: any size from VER0 (64) up, swapped
 * like perf's perf_event__attr_swap() for files from the other byte order.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "internal/attr.h"

/* true when attr.size covers the start of field f (perf's bswap_safe(f, 0)) */
#define ATTR_HAS(attr, f) ((attr)->size > offsetof(struct perf_event_attr, f))

#define SWAP_FIELD(attr, f, bits)                                          \
	do {                                                               \
		if (ATTR_HAS(attr, f))                                     \
			(attr)->f = __builtin_bswap##bits((attr)->f);      \
	} while (0)

static uint8_t bitrev8(uint8_t b)
{
	b = (uint8_t)((b & 0xf0) >> 4 | (b & 0x0f) << 4);
	b = (uint8_t)((b & 0xcc) >> 2 | (b & 0x33) << 2);
	b = (uint8_t)((b & 0xaa) >> 1 | (b & 0x55) << 1);
	return b;
}

/*
 * Swap a host-order attr read from a foreign file. As perf does: type and size
 * always, the other numeric fields only when inside attr.size; the flags word is
 * not byte-swapped but each of its bytes is bit-reversed, because a big-endian
 * compiler allocates bitfields from the most significant bit. clockid, sig_data
 * and the reserved fields are left alone (perf 6.1 does not swap them).
 */
void rf_attr__swap(struct perf_event_attr *attr)
{
	uint8_t *flags;
	size_t i;

	attr->type = __builtin_bswap32(attr->type);
	attr->size = __builtin_bswap32(attr->size);

	SWAP_FIELD(attr, config, 64);
	SWAP_FIELD(attr, sample_period, 64);
	SWAP_FIELD(attr, sample_type, 64);
	SWAP_FIELD(attr, read_format, 64);
	SWAP_FIELD(attr, wakeup_events, 32);
	SWAP_FIELD(attr, bp_type, 32);
	SWAP_FIELD(attr, bp_addr, 64);
	SWAP_FIELD(attr, bp_len, 64);
	SWAP_FIELD(attr, branch_sample_type, 64);
	SWAP_FIELD(attr, sample_regs_user, 64);
	SWAP_FIELD(attr, sample_stack_user, 32);
	SWAP_FIELD(attr, aux_watermark, 32);
	SWAP_FIELD(attr, sample_max_stack, 16);
	SWAP_FIELD(attr, aux_sample_size, 32);

	/* the flags word follows read_format */
	if (attr->size > offsetof(struct perf_event_attr, read_format) + sizeof(attr->read_format)) {
		flags = (uint8_t *)&attr->read_format + sizeof(attr->read_format);
		for (i = 0; i < sizeof(uint64_t); i++)
			flags[i] = bitrev8(flags[i]);
	}
}

/*
 * Read an attr from buf (len bytes available, file order). attr.size 0 means
 * VER0; sizes above what we know are read up to our size and the rest ignored
 * (perf 6.1 refuses them; we can still read the fields we know). file_size gets
 * the number of bytes the attr takes in the file. Returns 0 or -EINVAL with why.
 */
int rf_attr__read(struct perf_event_attr *attr, uint32_t *file_size, const void *buf,
		  uint64_t len, bool swap, const char **why)
{
	uint32_t sz;

	memset(attr, 0, sizeof(*attr));
	if (len < RF_ATTR_VER0) {
		*why = "attr shorter than 64 bytes";
		return -EINVAL;
	}
	sz = rawfrag__get32((const uint8_t *)buf + offsetof(struct perf_event_attr, size), swap);
	if (sz == 0)
		sz = RF_ATTR_VER0;
	if (sz < RF_ATTR_VER0) {
		*why = "attr size smaller than 64 (PERF_ATTR_SIZE_VER0)";
		return -EINVAL;
	}
	if (sz > len) {
		*why = "attr size beyond its section";
		return -EINVAL;
	}
	memcpy(attr, buf, sz < sizeof(*attr) ? sz : sizeof(*attr));
	if (swap)
		rf_attr__swap(attr);
	*file_size = sz;
	return 0;
}
