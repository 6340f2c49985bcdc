/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Options structs are versioned by their size (opts->sz), as libbpf's: a caller
 * built against an older header passes a smaller struct (the missing fields read
 * as defaults, RAWFRAG_OPTS_GET), one built against a newer header a larger one.
 * The bytes this library does not know must then be zero, or the caller asked for
 * something this library cannot do: -EINVAL rather than silently ignoring it.
 */
#ifndef __RAWFRAG_INTERNAL_OPTS_H
#define __RAWFRAG_INTERNAL_OPTS_H

#include <stddef.h>
#include <rawfrag/core.h>

#define rf_offsetofend(TYPE, FIELD) (offsetof(TYPE, FIELD) + sizeof(((TYPE *)0)->FIELD))

/*
 * 0 when opts is NULL or valid; else -EINVAL, errno EINVAL and err (may be NULL)
 * saying why ("<type>: sz N too small", "<type>: unknown non-zero byte at N").
 */
int rf_opts_check(const void *opts, size_t known_sz, const char *type, struct rawfrag_err *err);

#define RF_OPTS_CHECK(opts, TYPE, err)                                                   \
	rf_opts_check(opts, rf_offsetofend(struct TYPE, TYPE##__last_field), #TYPE, err)

/* fill err (may be NULL) with e and reason, no offset or record; sets errno */
void rf_err_set(struct rawfrag_err *err, int e, const char *reason);
/* a copy of a NULL-terminated string list (NULL: an empty one); NULL without memory */
char **rf_strv__dup(const char *const *v);
void rf_strv__free(char **v);

#endif /* __RAWFRAG_INTERNAL_OPTS_H */
