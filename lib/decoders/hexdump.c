// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The fallback decoder: any evsel (score 1), payload shown as hex bytes.
 *
 * It cannot know a producer's true length, so the pad is unknown, except in
 * the kernel's no-data form (raw_size 4, one zero word), whose length is 0.
 * Text is perf script's BPF-output dump (Documentation/perf.data-raw-format.txt, BPF
 * output): on one line (" %02x" per byte) by default; verbose gives perf's layout, 8
 * bytes a line with offset and ASCII. raw_size bytes are shown (pad included), as perf
 * does.
 */
#include <errno.h>

#include "internal/decoders.h"

static int hexdump_probe(struct rawfrag_decoder_ctx *ctx, const struct rawfrag_evsel *evsel,
			 void **priv)
{
	return 1;
}

static int hexdump_length(void *priv, const struct rawfrag_raw *raw,
			  const struct rawfrag_sample *s, uint32_t *len,
			  struct rawfrag_check_sink *sink)
{
	if (raw->size == 4 && rawfrag__get32(raw->data, false) == 0) {
		*len = 0;
		return 0;
	}
	return -ENODATA;
}

static const char hx[] = "0123456789abcdef";

static void hex_line(struct rawfrag_out *out, const uint8_t *p, uint32_t n)
{
	char tmp[3 * 8];

	for (uint32_t i = 0; i < n; i++) {
		tmp[3 * i] = ' ';
		tmp[3 * i + 1] = hx[p[i] >> 4];
		tmp[3 * i + 2] = hx[p[i] & 0xf];
	}
	rawfrag_out__write(out, tmp, 3 * n);
}

static int hexdump_text(void *priv, const struct rawfrag_raw *raw,
			const struct rawfrag_sample *s, struct rawfrag_out *out, bool verbose)
{
	const uint8_t *p = raw->data;
	uint32_t n = raw->size;

	if (!verbose) {
		for (uint32_t off = 0; off < n; off += 8)
			hex_line(out, p + off, n - off < 8 ? n - off : 8);
		return 0;
	}
	for (uint32_t off = 0; off < n; off += 8) {
		uint32_t k = n - off < 8 ? n - off : 8;
		char asc[8];

		rawfrag_out__printf(out, "%s%17s %04x:", off ? "\n" : "",
				    off ? "" : "BPF output:", off);
		hex_line(out, p + off, k);
		for (uint32_t i = k; i < 8; i++)
			rawfrag_out__write(out, "   ", 3);
		rawfrag_out__write(out, "  ", 2);
		for (uint32_t i = 0; i < k; i++)
			asc[i] = p[off + i] >= 0x20 && p[off + i] < 0x7f ? (char)p[off + i] : '.';
		rawfrag_out__write(out, asc, k);
	}
	return 0;
}

static int hexdump_fields(void *priv, const struct rawfrag_raw *raw,
			  const struct rawfrag_sample *s, struct rawfrag_emit *em)
{
	rawfrag_emit__bytes(em, "hex", raw->data, raw->size);
	return 0;
}

const struct rawfrag_decoder rawfrag_decoder_hexdump = {
	.name = "hexdump",
	.description = "any raw payload as hex bytes (fallback)",
	.probe = hexdump_probe,
	.length = hexdump_length,
	.text = hexdump_text,
	.fields = hexdump_fields,
};
