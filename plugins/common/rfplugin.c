// SPDX-License-Identifier: GPL-2.0
/* Shared by the perf script plugins: see rfplugin.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rawfrag/tool.h>

#include "rfplugin.h"

/* perf script's options that take a separate value (so the value is not read as -i) */
static bool takes_value(const char *a)
{
	static const char *const opts[] = {
		"-s", "--script", "-g", "--gen-script", "-k", "--vmlinux", "--kallsyms",
		"--symfs", "-F", "--fields", "-C", "--cpu", "-c", "--comms", "--pid", "--tid",
		"--time", "--dlfilter", "--dlarg", "-S", "--symbols", "--max-stack",
		"--guestmount", "--guestvmlinux", "--guestkallsyms", "--guestmodules",
		"--switch-on", "--switch-off", "--max-blocks", "--stop-bt", NULL,
	};

	for (int i = 0; opts[i]; i++)
		if (!strcmp(a, opts[i]))
			return true;
	return false;
}

/* -i/--input of our own command line (perf script's), NULL when absent */
static const char *cmdline_input(char *buf, ssize_t n)
{
	const char *in = NULL;

	for (char *a = buf; a < buf + n; a += strlen(a) + 1) {
		char *next = a + strlen(a) + 1;

		if (!strcmp(a, "--"))
			break;
		if ((!strcmp(a, "-i") || !strcmp(a, "--input")) && next < buf + n)
			in = next;
		else if (!strncmp(a, "--input=", 8))
			in = a + 8;
		else if (!strncmp(a, "-i", 2) && a[2])
			in = a + 2;
		else if (takes_value(a) && next < buf + n)
			a = next; /* skip the value */
	}
	return in;
}

enum rfp_input rfp_perf_input(char *path, size_t len)
{
	size_t cap = 1 << 16;
	char *buf = malloc(cap);
	const char *in = NULL;
	struct stat st;
	ssize_t n = -1;
	int fd = buf ? open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC) : -1;

	if (fd >= 0) {
		n = read(fd, buf, cap - 1);
		close(fd);
	}
	if (n > 0) {
		buf[n] = 0;
		in = cmdline_input(buf, n);
	}
	if (in && *in) {
		bool pipe = !strcmp(in, "-");

		snprintf(path, len, "%s", in);
		free(buf);
		return pipe ? RFP_INPUT_PIPE : RFP_INPUT_FILE;
	}
	free(buf);
	snprintf(path, len, "perf.data");
	if (!fstat(STDIN_FILENO, &st) && S_ISFIFO(st.st_mode))
		return RFP_INPUT_PIPE;
	return RFP_INPUT_FILE;
}

static int skip_sample(struct rawfrag_tool *tool, struct rawfrag_session *s,
		       const struct rawfrag_event *ev)
{
	return 0;
}

static int skip_bad_sample(struct rawfrag_tool *tool, struct rawfrag_session *s,
			   const struct rawfrag_event *ev, const struct rawfrag_err *err)
{
	return 0;
}

/*
 * Pipe format: attrs and tracing data are records of the stream, and may come
 * after samples: the session applies them all in one pass.
 */
static int preload(struct rfp *p, struct rawfrag_err *err)
{
	struct rawfrag_tool t = { .sz = sizeof(t), .sample = skip_sample,
				  .sample_error = skip_bad_sample, .no_parse = true };
	int ret = rawfrag_session__process(p->sess, &t, err);

	return ret < 0 ? ret : 0;
}

static int new_checker(struct rfp *p, bool strict)
{
	RAWFRAG_OPTS(rawfrag_check_opts, copts, .strict = strict, .max_examples = -1);
	struct rawfrag_err err;

	rawfrag_checker__delete(p->chk);
	p->chk = rawfrag_checker__new(p->sess, &copts, &err);
	return p->chk ? 0 : -ENOMEM;
}

int rfp_open(struct rfp *p, const char *path, bool strict, rawfrag_print_fn_t print,
	     void *print_ctx, struct rawfrag_err *err)
{
	RAWFRAG_OPTS(rawfrag_file_opts, fopts, .print = print, .print_ctx = print_ctx);
	RAWFRAG_OPTS(rawfrag_session_opts, sopts, .print = print, .print_ctx = print_ctx);
	int ret;

	memset(err, 0, sizeof(*err));
	err->offset = -1;
	p->file = rawfrag_file__open(path, &fopts, err);
	if (!p->file)
		return err->err ? err->err : -EINVAL;
	p->swap = rawfrag_file__needs_swap(p->file);
	p->sess = rawfrag_session__new(p->file, &sopts, err);
	if (!p->sess)
		return err->err ? err->err : -EINVAL;
	if (rawfrag_file__mode(p->file) == RAWFRAG_MODE_PIPE) {
		ret = preload(p, err);
		if (ret < 0)
			return ret;
	}
	ret = new_checker(p, strict);
	if (ret) {
		err->err = ret;
		snprintf(err->reason, sizeof(err->reason), "out of memory");
	}
	return ret;
}

void rfp_close(struct rfp *p)
{
	rawfrag_checker__delete(p->chk);
	rawfrag_session__delete(p->sess);
	rawfrag_file__close(p->file);
	p->chk = NULL;
	p->sess = NULL;
	p->file = NULL;
}

int rfp_trim_violations(struct rfp *p, bool strict, int max)
{
	if (rawfrag_checker__nr_violations(p->chk) <= max)
		return 0;
	return new_checker(p, strict);
}

struct rawfrag_evsel *rfp_find_evsel(struct rfp *p, uint64_t id,
				     const struct perf_event_attr *attr)
{
	int n = rawfrag_file__nr_evsels(p->file);

	for (int i = 0; id && i < n; i++) {
		struct rawfrag_evsel *e = rawfrag_file__evsel(p->file, i);
		const uint64_t *ids = rawfrag_evsel__ids(e);

		for (int j = 0; j < rawfrag_evsel__nr_ids(e); j++)
			if (ids[j] == id)
				return e;
	}
	for (int i = 0; attr && i < n; i++) {
		struct rawfrag_evsel *e = rawfrag_file__evsel(p->file, i);
		const struct perf_event_attr *a = rawfrag_evsel__attr(e);

		if (a->type == attr->type && a->config == attr->config &&
		    a->sample_type == attr->sample_type)
			return e;
	}
	return n == 1 ? rawfrag_file__evsel(p->file, 0) : NULL;
}

struct rawfrag_evsel *rfp_evsel_by_name(struct rfp *p, const char *name)
{
	int n = rawfrag_file__nr_evsels(p->file);

	for (int i = 0; i < n; i++) {
		struct rawfrag_evsel *e = rawfrag_file__evsel(p->file, i);
		const char *en = rawfrag_evsel__name(e);

		if (en && !strcmp(en, name))
			return e;
	}
	return NULL;
}

int rfp_process(struct rfp *p, struct rawfrag_evsel *evsel, const struct rawfrag_sample *in,
		uint16_t misc, struct rfp_result *r)
{
	const struct perf_event_attr *attr = rawfrag_evsel__attr(evsel);
	struct rawfrag_sample s = *in;
	int size, before;

	memset(r, 0, sizeof(*r));
	r->evsel = evsel;
	r->dec = rawfrag_session__decoder(p->sess, evsel);
	/* the checker finds the evsel again by id, as it would in the file */
	if (rawfrag_evsel__nr_ids(evsel) && !s.id)
		s.id = s.identifier = rawfrag_evsel__ids(evsel)[0];
	if (s.raw_size > sizeof(p->buf) - 8)
		return -E2BIG;
	size = rawfrag_sample__synthesize(attr, &s, misc, p->swap, p->buf, sizeof(p->buf) - 8);
	if (size < 0)
		return size;
	if (size > 0xffff)
		return -E2BIG;
	r->rec.type = PERF_RECORD_SAMPLE;
	r->rec.misc = misc;
	r->rec.size = (uint16_t)size;
	r->rec.data = p->buf;
	r->rec.offset = 0;
	if (rawfrag_sample__parse(&r->smp, attr, &r->rec, p->swap, NULL))
		return -EINVAL;
	before = rawfrag_checker__nr_violations(p->chk);
	r->errors = rawfrag_checker__record(p->chk, &r->rec, &r->smp);
	if (r->errors < 0)
		return r->errors;
	r->first_violation = before;
	r->nr_violations = rawfrag_checker__nr_violations(p->chk) - before;
	return 0;
}

void rfp_fields(struct rfp *p, const struct rfp_result *r, struct rawfrag_emit *em)
{
	rawfrag_emit__reset(em);
	rawfrag_session__sample_fields(p->sess, r->evsel, &r->rec, &r->smp, em);
}

int rfp_text(struct rfp *p, const struct rfp_result *r, struct rawfrag_out *o)
{
	return rawfrag_session__sample_text(p->sess, r->evsel, &r->rec, &r->smp, o, false);
}
