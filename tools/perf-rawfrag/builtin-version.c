// SPDX-License-Identifier: GPL-2.0
/*
 * perf rawfrag version [--build-options]: the version, and with --build-options
 * which optional parts are in, in perf version --build-options' layout.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>
#include <zstd.h>

#include <rawfrag/decoder.h>

#include "builtin.h"

#define RAWFRAG_TOOL_VERSION "0.1"

#if __has_include("tools/perf-rawfrag/record/bpf/skbdump.skel.h")
#define HAVE_SKB_DUMPS 1
#else
#define HAVE_SKB_DUMPS 0
#endif

static void feature(const char *name, bool on, const char *what)
{
	printf("%22s: [ %-3s ]  # %s\n", name, on ? "on" : "OFF", what);
}

static void build_options(void)
{
	const struct rawfrag_decoder *const *d = rawfrag_decoders();
	char buf[64];

	/* libtraceevent, libbpf and libzstd are required by the build (pkg-config) */
	feature("libtraceevent", true, "tracepoint formats (HEADER_TRACING_DATA)");
	snprintf(buf, sizeof(buf), "libbpf %s: BPF programs, BTF", libbpf_version_string());
	feature("libbpf", true, buf);
	snprintf(buf, sizeof(buf), "libzstd %s: PERF_RECORD_COMPRESSED", ZSTD_versionString());
	feature("libzstd", true, buf);
	feature("skb-dumps", HAVE_SKB_DUMPS, "record --skb (BPF skb/xdp dump programs)");
	printf("decoders:\n");
	for (; *d; d++) {
		const char *desc = rawfrag_decoder__description(*d) ?: "";

		/* a placeholder decoder says so in its description */
		feature(rawfrag_decoder__name(*d), !strstr(desc, "not yet"), desc);
	}
}

int cmd_version(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "build-options", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool build = false;
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'b': build = true; break;
		case 'h':
			printf("\n usage: perf rawfrag version [--build-options]\n\n");
			return RF_EXIT_OK;
		default:
			fprintf(stderr, "perf rawfrag version: unknown option '%s'\n", argv[optind - 1]);
			return RF_EXIT_USAGE;
		}
	}
	printf("perf-rawfrag version %s (librawfrag %s)\n", RAWFRAG_TOOL_VERSION, rawfrag_version());
	if (build)
		build_options();
	return RF_EXIT_OK;
}
