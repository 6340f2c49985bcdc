// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Version, record type names and error formatting. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rawfrag/file.h>

#include "internal/opts.h"

#define STR_(x) #x
#define STR(x) STR_(x)

RAWFRAG_API const char *rawfrag_version(void)
{
	return STR(RAWFRAG_MAJOR_VERSION) "." STR(RAWFRAG_MINOR_VERSION);
}

static const char *const kernel_types[] = {
	[1] = "MMAP",
	[2] = "LOST",
	[3] = "COMM",
	[4] = "EXIT",
	[5] = "THROTTLE",
	[6] = "UNTHROTTLE",
	[7] = "FORK",
	[8] = "READ",
	[9] = "SAMPLE",
	[10] = "MMAP2",
	[11] = "AUX",
	[12] = "ITRACE_START",
	[13] = "LOST_SAMPLES",
	[14] = "SWITCH",
	[15] = "SWITCH_CPU_WIDE",
	[16] = "NAMESPACES",
	[17] = "KSYMBOL",
	[18] = "BPF_EVENT",
	[19] = "CGROUP",
	[20] = "TEXT_POKE",
	[21] = "AUX_OUTPUT_HW_ID",
};

/* perf's user types, 64.. (tools/lib/perf/include/perf/event.h) */
static const char *const user_types[] = {
	"HEADER_ATTR",	    "HEADER_EVENT_TYPE", "HEADER_TRACING_DATA",
	"HEADER_BUILD_ID",  "FINISHED_ROUND",	 "ID_INDEX",
	"AUXTRACE_INFO",    "AUXTRACE",		 "AUXTRACE_ERROR",
	"THREAD_MAP",	    "CPU_MAP",		 "STAT_CONFIG",
	"STAT",		    "STAT_ROUND",	 "EVENT_UPDATE",
	"TIME_CONV",	    "HEADER_FEATURE",	 "COMPRESSED",
	"FINISHED_INIT",
};

/* "UNKNOWN(n)" for n < 260 as constant strings (no static buffer to format into) */
#define U_(n) "UNKNOWN(" #n ")"
#define U_ROW(t) U_(t##0), U_(t##1), U_(t##2), U_(t##3), U_(t##4), U_(t##5), \
		 U_(t##6), U_(t##7), U_(t##8), U_(t##9)
static const char *const unknown_types[] = {
	U_(0), U_(1), U_(2), U_(3), U_(4), U_(5), U_(6), U_(7), U_(8), U_(9),
	U_ROW(1), U_ROW(2), U_ROW(3), U_ROW(4), U_ROW(5), U_ROW(6), U_ROW(7),
	U_ROW(8), U_ROW(9), U_ROW(10), U_ROW(11), U_ROW(12), U_ROW(13), U_ROW(14),
	U_ROW(15), U_ROW(16), U_ROW(17), U_ROW(18), U_ROW(19), U_ROW(20), U_ROW(21),
	U_ROW(22), U_ROW(23), U_ROW(24), U_ROW(25),
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

RAWFRAG_API const char *rawfrag_record_type__name(uint32_t type)
{
	if (type < ARRAY_LEN(kernel_types) && kernel_types[type])
		return kernel_types[type];
	if (type >= 64 && type - 64 < ARRAY_LEN(user_types))
		return user_types[type - 64];
	if (type < ARRAY_LEN(unknown_types))
		return unknown_types[type];
	return "UNKNOWN";
}

/*
 * perf_event__name(), as perf report --stats and perf report -D print the
 * types: the user records that describe the file drop their "HEADER_", 0 is
 * the total's row, a type perf has no name for is "UNKNOWN" and one past
 * what perf knows "INVALID".
 */
RAWFRAG_API const char *rawfrag_record_type__perf_name(uint32_t type)
{
	static const char *const header_types[] = {
		[RAWFRAG_RECORD_HEADER_ATTR - 64] = "ATTR",
		[RAWFRAG_RECORD_HEADER_EVENT_TYPE - 64] = "EVENT_TYPE",
		[RAWFRAG_RECORD_HEADER_TRACING_DATA - 64] = "TRACING_DATA",
		[RAWFRAG_RECORD_HEADER_BUILD_ID - 64] = "BUILD_ID",
		[RAWFRAG_RECORD_HEADER_FEATURE - 64] = "FEATURE",
	};

	if (type == 0)
		return "TOTAL";
	if (type >= RAWFRAG_RECORD_USER_MAX)
		return "INVALID";
	if (type >= 64 && type - 64 < ARRAY_LEN(header_types) && header_types[type - 64])
		return header_types[type - 64];
	if (type < ARRAY_LEN(kernel_types) && kernel_types[type])
		return kernel_types[type];
	if (type >= 64 && type - 64 < ARRAY_LEN(user_types))
		return user_types[type - 64];
	return "UNKNOWN";
}

RAWFRAG_API char *rawfrag_err__format(const struct rawfrag_err *e, const char *path, char *buf,
				      size_t len)
{
	size_t n = 0;
	int r;

	if (!buf || !len)
		return buf;
	buf[0] = '\0';
	if (!e)
		return buf;

#define APPEND(...)                                                   \
	do {                                                          \
		if (n < len) {                                        \
			r = snprintf(buf + n, len - n, __VA_ARGS__);  \
			if (r > 0)                                    \
				n += (size_t)r;                       \
		}                                                     \
	} while (0)

	if (path)
		APPEND("%s: ", path);
	if (e->offset >= 0)
		APPEND("offset 0x%" PRIx64 ": ", (uint64_t)e->offset);
	if (e->rec_type) {
		const char *name = rawfrag_record_type__name(e->rec_type);

		if (!strcmp(name, "UNKNOWN"))
			APPEND("UNKNOWN(%u): ", e->rec_type);
		else
			APPEND("%s: ", name);
	}
	if (e->reason[0])
		APPEND("%s", e->reason);
	else
		APPEND("%s", strerror(e->err < 0 ? -e->err : e->err));
#undef APPEND
	return buf;
}

int rf_opts_check(const void *opts, size_t known_sz, const char *type, struct rawfrag_err *err)
{
	const unsigned char *p = opts;
	size_t sz, i;

	if (!opts)
		return 0;
	sz = *(const size_t *)opts;
	if (sz < sizeof(size_t)) {
		i = sz;
		goto bad;
	}
	for (i = known_sz; i < sz; i++)
		if (p[i])
			goto bad;
	return 0;
bad:
	if (err) {
		memset(err, 0, sizeof(*err));
		err->err = -EINVAL;
		err->offset = -1;
		if (sz < sizeof(size_t))
			snprintf(err->reason, sizeof(err->reason), "struct %s: sz %zu too small",
				 type, sz);
		else
			snprintf(err->reason, sizeof(err->reason),
				 "struct %s: unknown non-zero byte at %zu (sz %zu, this library knows %zu)",
				 type, i, sz, known_sz);
	}
	errno = EINVAL;
	return -EINVAL;
}

void rf_err_set(struct rawfrag_err *err, int e, const char *reason)
{
	if (err) {
		memset(err, 0, sizeof(*err));
		err->err = e;
		err->offset = -1;
		snprintf(err->reason, sizeof(err->reason), "%s", reason);
	}
	errno = -e;
}

char **rf_strv__dup(const char *const *v)
{
	size_t n = 0;
	char **c;

	while (v && v[n])
		n++;
	c = calloc(n + 1, sizeof(*c));
	for (size_t i = 0; c && i < n; i++) {
		if (!(c[i] = strdup(v[i]))) {
			while (i--)
				free(c[i]);
			free(c);
			return NULL;
		}
	}
	return c;
}

void rf_strv__free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}
