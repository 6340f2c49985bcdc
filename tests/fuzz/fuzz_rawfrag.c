// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness over reader + sample parser + checker + every decoder: the
 * input is a whole perf.data (file or pipe mode, either byte order). Built with
 * -fsanitize=fuzzer by `make fuzz`, or with replay.c's main() to replay a corpus
 * under ASan/UBSan in the test suite.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rawfrag/rawfrag.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int quiet(enum rawfrag_print_level level, void *ctx, const char *fmt, va_list ap)
{
	return 0;
}

static void decode_all(struct rawfrag_session *sess, struct rawfrag_checker *chk,
		       struct rawfrag_file *f, struct rawfrag_out *out,
		       struct rawfrag_emit *em_json, struct rawfrag_emit *em_text)
{
	struct rawfrag_record rec;
	struct rawfrag_sample smp;
	struct rawfrag_err err;
	struct rawfrag_raw raw;
	int n = 0;

	while (rawfrag_file__next(f, &rec) > 0 && n++ < 100000) {
		struct rawfrag_evsel *ev;
		uint32_t len;

		if (rec.type == RAWFRAG_RECORD_HEADER_ATTR ||
		    rec.type == RAWFRAG_RECORD_HEADER_TRACING_DATA ||
		    rec.type == RAWFRAG_RECORD_HEADER_FEATURE)
			rawfrag_session__refresh(sess, &err);
		if (rec.type != PERF_RECORD_SAMPLE)
			continue;
		ev = rawfrag_file__evsel_of(f, &rec);
		if (!ev)
			continue;
		if (rawfrag_sample__parse(&smp, rawfrag_evsel__attr(ev), &rec,
					  rawfrag_file__needs_swap(f), &err))
			continue;
		rawfrag_checker__record(chk, &rec, &smp);
		if (!rawfrag_session__raw(sess, &rec, &smp, &raw))
			continue;
		rawfrag_session__sample_violations(sess, ev, &rec, &smp, true, NULL, NULL);
		rawfrag_session__sample_length(sess, ev, &rec, &smp, &len);
		rawfrag_session__sample_text(sess, ev, &rec, &smp, out, false);
		rawfrag_session__sample_text(sess, ev, &rec, &smp, out, true);
		rawfrag_emit__reset(em_json);
		rawfrag_emit__begin_object(em_json, NULL);
		rawfrag_session__sample_fields(sess, ev, &rec, &smp, em_json);
		rawfrag_emit__end_object(em_json);
		rawfrag_emit__reset(em_text);
		rawfrag_session__sample_fields(sess, ev, &rec, &smp, em_text);
		rawfrag_out__reset(out);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	RAWFRAG_OPTS(rawfrag_file_opts, fopts, .print = quiet, .use_fd = true, .force = false);
	RAWFRAG_OPTS(rawfrag_session_opts, sopts, .print = quiet);
	RAWFRAG_OPTS(rawfrag_check_opts, copts, .max_examples = 20);
	struct rawfrag_session *sess = NULL;
	struct rawfrag_checker *chk = NULL;
	struct rawfrag_emit *em_json = NULL, *em_text = NULL;
	struct rawfrag_out *out = NULL;
	struct rawfrag_file *f = NULL;
	struct rawfrag_err err;
	int fd;

	fd = memfd_create("fuzz.data", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size)
		goto out;
	lseek(fd, 0, SEEK_SET);
	fopts.fd = fd;
	f = rawfrag_file__open("fuzz.data", &fopts, &err);
	if (!f)
		goto out;
	sess = rawfrag_session__new(f, &sopts, &err);
	if (!sess)
		goto out;
	chk = rawfrag_checker__new(sess, &copts, &err);
	out = rawfrag_out__new(-1);
	em_json = rawfrag_emit__new(out, RAWFRAG_EMIT_JSON);
	em_text = rawfrag_emit__new(out, RAWFRAG_EMIT_TEXT);
	if (!chk || !out || !em_json || !em_text)
		goto out;
	decode_all(sess, chk, f, out, em_json, em_text);
out:
	rawfrag_emit__delete(em_text);
	rawfrag_emit__delete(em_json);
	rawfrag_out__delete(out);
	rawfrag_checker__delete(chk);
	rawfrag_session__delete(sess);
	rawfrag_file__close(f);
	close(fd);
	return 0;
}
