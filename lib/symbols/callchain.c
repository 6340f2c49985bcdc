// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Call chains as perf's thread__resolve_callchain() builds them (callee
 * first): the kernel's PERF_SAMPLE_CALLCHAIN, its PERF_CONTEXT_* markers
 * switching the address space (an unknown marker discards the chain, as
 * perf does), then the DWARF-unwound user part when the sample carries
 * REGS_USER and STACK_USER.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "internal/machine.h"

#define MAX_STACK_DEFAULT 127 /* perf's PERF_MAX_STACK_DEPTH */

struct rawfrag_callchain *rawfrag_callchain__new(void)
{
	return calloc(1, sizeof(struct rawfrag_callchain));
}

void rawfrag_callchain__delete(struct rawfrag_callchain *cc)
{
	if (!cc)
		return;
	free(cc->frames);
	free(cc);
}

int rf_callchain__push(struct rawfrag_callchain *cc, const struct rawfrag_frame *fr)
{
	if (cc->nr == cc->cap) {
		uint32_t cap = cc->cap ? 2 * cc->cap : 64;
		struct rawfrag_frame *v = realloc(cc->frames, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		cc->frames = v;
		cc->cap = cap;
	}
	cc->frames[cc->nr++] = *fr;
	return 0;
}

static int kernel_chain(struct rawfrag_callchain *cc, struct rawfrag_machine *m,
			const struct rawfrag_sample *s, uint32_t max_stack)
{
	uint8_t cpumode = PERF_RECORD_MISC_USER;
	uint32_t n = 0;

	for (uint64_t i = 0; i < s->callchain_nr && n < max_stack; i++) {
		uint64_t ip = rawfrag_sample__callchain_ip(s, i);
		struct rawfrag_frame fr;
		int ctx = rf_callchain__context(ip, &cpumode);

		if (ctx < 0) {
			cc->nr = 0;
			cc->truncated = true;
			return 0;
		}
		if (ctx)
			continue;
		n++;
		rawfrag_machine__resolve(m, (int32_t)s->pid, (int32_t)s->tid, ip, cpumode, &fr);
		if (rf_callchain__push(cc, &fr))
			return -ENOMEM;
	}
	return 0;
}

int rf_callchain__resolve_parts(struct rawfrag_callchain *cc, struct rawfrag_machine *m,
				const struct rawfrag_sample *s, const struct perf_event_attr *attr,
				uint32_t kmax, uint32_t umax, uint32_t *nk)
{
	int ret = 0;

	cc->nr = 0;
	cc->truncated = false;
	if ((s->sample_type & PERF_SAMPLE_CALLCHAIN) && s->callchain)
		ret = kernel_chain(cc, m, s, kmax);
	*nk = cc->nr;
	if (!ret && rf_sample__unwound(s))
		ret = rf_unwind__sample(m, cc, s, attr, umax);
	return ret < 0 ? ret : (int)cc->nr;
}

int rawfrag_callchain__resolve(struct rawfrag_callchain *cc, struct rawfrag_machine *m,
			       const struct rawfrag_sample *s, const struct perf_event_attr *attr,
			       uint32_t max_stack)
{
	uint32_t nk;

	if (!max_stack)
		max_stack = MAX_STACK_DEFAULT;
	return rf_callchain__resolve_parts(cc, m, s, attr, max_stack, max_stack, &nk);
}
