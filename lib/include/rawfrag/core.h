/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * librawfrag core definitions: export macro, options structs, errors, logging.
 *
 * Conventions (as libbpf/libperf):
 *  - objects are opaque, named rawfrag_<object>, methods rawfrag_<object>__<verb>();
 *  - int-returning calls return 0 (or a count) on success and -errno on failure;
 *    pointer-returning calls return NULL and set errno;
 *  - options structs start with `size_t sz` and are declared with RAWFRAG_OPTS() so
 *    fields can be appended without breaking callers; a caller's bytes past the
 *    last field this library knows (<struct>__last_field) must be zero, else the
 *    call fails with -EINVAL (a newer caller asked for something not done here);
 *  - new functions go into a new version node of lib/librawfrag.map;
 *  - the library never prints on its own: messages go to the print callback that
 *    the caller puts in the options (no global state).
 */
#ifndef __RAWFRAG_CORE_H
#define __RAWFRAG_CORE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef RAWFRAG_API
#define RAWFRAG_API __attribute__((visibility("default")))
#endif

#define RAWFRAG_MAJOR_VERSION 0
#define RAWFRAG_MINOR_VERSION 6

/* Declare and zero an options struct, set its size and the given fields. */
#define RAWFRAG_OPTS(TYPE, NAME, ...)                                         \
	struct TYPE NAME = ({                                                 \
		memset(&NAME, 0, sizeof(struct TYPE));                        \
		(struct TYPE){ .sz = sizeof(struct TYPE), __VA_ARGS__ };      \
	})

/* Read an option field only if the caller's struct is large enough to hold it. */
#define RAWFRAG_OPTS_HAS(opts, field)                                         \
	((opts) && (opts)->sz >= offsetof(__typeof__(*(opts)), field) +       \
				 sizeof((opts)->field))
#define RAWFRAG_OPTS_GET(opts, field, fallback)                               \
	(RAWFRAG_OPTS_HAS(opts, field) ? (opts)->field : (fallback))

enum rawfrag_print_level {
	RAWFRAG_WARN,
	RAWFRAG_INFO,
	RAWFRAG_DEBUG,
};

/* Every message passed here already starts with "rawfrag: ". */
typedef int (*rawfrag_print_fn_t)(enum rawfrag_print_level level, void *ctx,
				  const char *fmt, va_list ap);

/*
 * The one error a failing call leaves behind: which input, where, what record,
 * why. Tools print it as
 *   "<path>: offset 0x<offset>: <record type name>: <reason>"
 * (rawfrag_err__format()). offset is the file offset of the record (for records
 * inside a PERF_RECORD_COMPRESSED payload: of the COMPRESSED record) or -1 when it
 * does not apply; rec_type is the record type or 0 when it does not apply.
 */
struct rawfrag_err {
	int err; /* -errno */
	int64_t offset;
	uint32_t rec_type;
	char reason[256];
};

RAWFRAG_API const char *rawfrag_record_type__name(uint32_t type);
/*
 * perf's name of a record type (perf_event__name(): "ATTR", "FEATURE", "SAMPLE",
 * "UNKNOWN", "INVALID"), as perf report --stats prints it.
 */
RAWFRAG_API const char *rawfrag_record_type__perf_name(uint32_t type);

/*
 * Write "path: offset 0x..: TYPE: reason" into buf (always NUL-terminated).
 * Returns buf.
 */
RAWFRAG_API char *rawfrag_err__format(const struct rawfrag_err *e,
				      const char *path, char *buf, size_t len);

RAWFRAG_API const char *rawfrag_version(void);

#ifdef __cplusplus
}
#endif

#endif /* __RAWFRAG_CORE_H */
