// SPDX-License-Identifier: GPL-2.0
/*
 * --filter for --skb: a small subset of tcpdump's syntax compiled into the
 * read-only values of skbdump.bpf.c, checked in the kernel by the dump program
 * itself (so it works the same on every hook: socket, tc and xdp; a cBPF
 * filter from libpcap would only run on sockets).
 *
 * Grammar: primitive [and primitive ...], at most one of each kind:
 *   ip | ip6 | arp                       EtherType (after one VLAN tag)
 *   tcp | udp | icmp | icmp6 | sctp      IP protocol (after IPv6 extension headers)
 *   [src|dst] port N                     TCP/UDP/SCTP port
 *   [src|dst] host ADDR                  IPv4 or IPv6 address
 * "&&" may stand for "and". Anything else is refused with a message.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skb-filter.h"

static int kw_dir(const char *w)
{
	if (!strcmp(w, "src"))
		return 1;
	if (!strcmp(w, "dst"))
		return 2;
	return 0;
}

static int set_ethertype(struct skb_filter *f, uint16_t et, char *msg, size_t len)
{
	if (f->ethertype && f->ethertype != et) {
		snprintf(msg, len, "only one of ip, ip6, arp can be given");
		return -EINVAL;
	}
	f->ethertype = et;
	return 0;
}

static int primitive(struct skb_filter *f, char **w, int n, int *used, char *msg, size_t len)
{
	static const struct {
		const char *name;
		uint16_t ethertype;
		uint8_t proto;
	} simple[] = {
		{ "ip", 0x0800, 0 },   { "ip6", 0x86dd, 0 },  { "arp", 0x0806, 0 },
		{ "tcp", 0, 6 },       { "udp", 0, 17 },      { "icmp", 0x0800, 1 },
		{ "icmp6", 0x86dd, 58 }, { "sctp", 0, 132 },
	};
	int dir = kw_dir(w[0]), i = dir ? 1 : 0;

	if (!dir) {
		for (size_t k = 0; k < sizeof(simple) / sizeof(simple[0]); k++) {
			if (strcmp(w[0], simple[k].name))
				continue;
			if (simple[k].proto) {
				if (f->ipproto) {
					snprintf(msg, len, "only one protocol can be given");
					return -EINVAL;
				}
				f->ipproto = simple[k].proto;
			}
			*used = 1;
			return simple[k].ethertype ? set_ethertype(f, simple[k].ethertype, msg, len) : 0;
		}
	}
	if (i + 1 >= n) {
		snprintf(msg, len, "'%s' needs an argument", w[i]);
		return -EINVAL;
	}
	if (!strcmp(w[i], "port")) {
		char *end;
		unsigned long p = strtoul(w[i + 1], &end, 10);

		if (*end || !p || p > 65535 || f->port) {
			snprintf(msg, len, "bad or repeated port '%s'", w[i + 1]);
			return -EINVAL;
		}
		f->port = p;
		f->port_dir = dir;
	} else if (!strcmp(w[i], "host")) {
		if (f->host_family) {
			snprintf(msg, len, "only one host can be given");
			return -EINVAL;
		}
		if (inet_pton(AF_INET, w[i + 1], f->host) == 1)
			f->host_family = 4;
		else if (inet_pton(AF_INET6, w[i + 1], f->host) == 1)
			f->host_family = 6;
		else {
			snprintf(msg, len, "bad address '%s'", w[i + 1]);
			return -EINVAL;
		}
		f->host_dir = dir;
	} else {
		snprintf(msg, len, "unsupported primitive '%s'", w[i]);
		return -EINVAL;
	}
	*used = i + 2;
	return 0;
}

int skb_filter__compile(struct skb_filter *f, const char *expr, char *msg, size_t len)
{
	char *copy = strdup(expr ? expr : ""), *w[64], *save = NULL, *tok;
	int n = 0, err = 0;

	memset(f, 0, sizeof(*f));
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		if (n == 64) {
			snprintf(msg, len, "expression too long");
			err = -EINVAL;
			goto out;
		}
		w[n++] = tok;
	}
	for (int i = 0; i < n;) {
		int used = 0;

		err = primitive(f, w + i, n - i, &used, msg, len);
		if (err)
			goto out;
		i += used;
		if (i == n)
			break;
		if (strcmp(w[i], "and") && strcmp(w[i], "&&")) {
			snprintf(msg, len, "unsupported '%s' (only 'and' joins primitives)", w[i]);
			err = -EINVAL;
			goto out;
		}
		if (++i == n) {
			snprintf(msg, len, "expression ends with 'and'");
			err = -EINVAL;
			goto out;
		}
	}
	/* icmp with ip6 (or icmp6 with ip) can never match: say so */
	if ((f->ipproto == 1 && f->ethertype == 0x86dd) ||
	    (f->ipproto == 58 && f->ethertype == 0x0800)) {
		snprintf(msg, len, "contradictory protocols");
		err = -EINVAL;
		goto out;
	}
	if (f->host_family && f->ethertype == 0x0806) {
		snprintf(msg, len, "host is not supported with arp");
		err = -EINVAL;
		goto out;
	}
	f->on = n > 0;
out:
	free(copy);
	return err;
}
