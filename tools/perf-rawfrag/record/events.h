/* SPDX-License-Identifier: GPL-2.0 */
/* -e parsing of perf rawfrag record (events.c): perf's event syntax to attrs. */
#ifndef __PERF_RAWFRAG_RECORD_EVENTS_H
#define __PERF_RAWFRAG_RECORD_EVENTS_H

#include <stddef.h>
#include <linux/perf_event.h>

struct rf_event {
	struct perf_event_attr attr;
	char *name; /* as perf names it: "sched:sched_switch", "ibs_op//" */
	char *tp; /* "sys:name" for tracepoints, else NULL */
	char *filter; /* --filter for this tracepoint, or NULL */
};

/*
 * Append the events of spec to *evs (realloc'd, *nr updated). tracefs is the
 * tracefs mount (may be NULL when no tracepoint is asked for: then it is looked
 * up on demand). On error writes one message into msg.
 */
int events__parse(const char *spec, struct rf_event **evs, int *nr, char *msg, size_t msglen);
void events__free(struct rf_event *evs, int nr);

#endif
