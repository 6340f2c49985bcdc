/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The head of a sample's output line, formatted by the library for text and
 * JSON, as perf script prints it (builtin-script.c, 6.1):
 *
 *   text: "%16s " comm, "%5d " tid (or "%5d/%-5d " pid/tid), "[%03d] " cpu,
 *         "%5lu.%06lu: " time, then the event column the caller rendered once
 *         ("%*s: " of the name, padded to the longest);
 *   JSON: the members after the caller's '{"event":..,"producer":..':
 *         ,"time_ns":N,"cpu":N,"pid":N,"tid":N,"comm":"..." (null when the
 *         sample lacks the field), then ,"raw":{...},"fields":{ for the
 *         decoder's fields.
 *
 * Numbers are written with the library's one formatter straight into the
 * out's buffer.
 *
 * Ownership: a rawfrag_line keeps a small cache (the digits of the last
 * time's upper part) and writes into the out given to rawfrag_line__new(),
 * which it does not own.
 */
#ifndef __RAWFRAG_LINE_H
#define __RAWFRAG_LINE_H

#include <rawfrag/decoder.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rawfrag_line_field {
	RAWFRAG_LINE_COMM = 1,
	RAWFRAG_LINE_PID = 2,
	RAWFRAG_LINE_TID = 4,
	RAWFRAG_LINE_CPU = 8,
	RAWFRAG_LINE_TIME = 16,
	RAWFRAG_LINE_EVENT = 32,
};

struct rawfrag_line;

/* fields: the text columns (enum rawfrag_line_field bits); JSON has them all */
RAWFRAG_API struct rawfrag_line *rawfrag_line__new(struct rawfrag_out *o, unsigned int fields);
RAWFRAG_API void rawfrag_line__delete(struct rawfrag_line *l);

/*
 * The text columns of smp. comm (comm_len bytes, NULL when the COMM column is
 * off) and event (the rendered event column, NULL when off) are copied.
 */
RAWFRAG_API void rawfrag_line__text_head(struct rawfrag_line *l, const struct rawfrag_sample *smp,
					 const char *comm, size_t comm_len, const char *event,
					 size_t event_len);

/*
 * prefix (the caller's '{"event":..,"producer":..', rendered once per evsel),
 * then ,"time_ns":..,"cpu":..,"pid":..,"tid":..,"comm":.. of smp; comm is
 * used when the sample has TID (else the three are null).
 */
RAWFRAG_API void rawfrag_line__json_head(struct rawfrag_line *l, const char *prefix,
					 size_t prefix_len, const struct rawfrag_sample *smp,
					 const char *comm, size_t comm_len);

/*
 * ,"raw":{"size":..,"len":..,"pad":..,"pad_zero":..},"fields":{ for raw (len
 * < 0: the producer's length is not known: null), or, raw NULL, the whole
 * rest of a sample without RAW: ,"raw":null,"fields":{}} and the newline.
 */
RAWFRAG_API void rawfrag_line__json_raw(struct rawfrag_line *l, const struct rawfrag_raw *raw,
					int64_t len);

#ifdef __cplusplus
}
#endif

#endif /* __RAWFRAG_LINE_H */
