// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness over the session's stream (reader, describing records,
 * thread table, ordering queue), sample parser, checker and every decoder: the
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

/* what the handlers share; the tool comes first so they find the rest */
struct fuzz {
	struct rawfrag_tool tool;
	struct rawfrag_checker *chk;
	struct rawfrag_out *out;
	struct rawfrag_emit *em_json, *em_text;
	unsigned long n;
};

/* the cap on records keeps one input's run time bounded */
static int count(struct fuzz *z)
{
	return ++z->n > 100000 ? 1 : 0;
}

static void decode(struct fuzz *z, struct rawfrag_session *sess, const struct rawfrag_event *ev)
{
	const struct rawfrag_evsel *evsel = ev->evsel;
	const struct rawfrag_record *rec = ev->rec;
	const struct rawfrag_sample *smp = ev->sample;
	uint32_t len;

	rawfrag_session__sample_violations(sess, evsel, rec, smp, true, NULL, NULL);
	rawfrag_session__sample_length(sess, evsel, rec, smp, &len);
	rawfrag_session__sample_text(sess, evsel, rec, smp, z->out, false);
	rawfrag_session__sample_text(sess, evsel, rec, smp, z->out, true);
	rawfrag_emit__reset(z->em_json);
	rawfrag_emit__begin_object(z->em_json, NULL);
	rawfrag_session__sample_fields(sess, evsel, rec, smp, z->em_json);
	rawfrag_emit__end_object(z->em_json);
	rawfrag_emit__reset(z->em_text);
	rawfrag_session__sample_fields(sess, evsel, rec, smp, z->em_text);
	rawfrag_out__reset(z->out);
}

static int on_sample(struct rawfrag_tool *tool, struct rawfrag_session *sess,
		     const struct rawfrag_event *ev)
{
	struct fuzz *z = (struct fuzz *)tool;
	int len;

	rawfrag_checker__record(z->chk, ev->rec, ev->sample);
	rawfrag_session__thread_comm(sess, (int32_t)ev->sample->pid, (int32_t)ev->sample->tid,
				     &len);
	decode(z, sess, ev);
	return count(z);
}

/* unknown id or unparsable: the checker diagnoses it */
static int on_bad_sample(struct rawfrag_tool *tool, struct rawfrag_session *sess,
			 const struct rawfrag_event *ev, const struct rawfrag_err *err)
{
	struct fuzz *z = (struct fuzz *)tool;

	rawfrag_checker__record(z->chk, ev->rec, NULL);
	return count(z);
}

static int on_record(void *ctx, struct rawfrag_session *sess, const struct rawfrag_event *ev)
{
	return count(ctx);
}

/*
 * Half the inputs (by size) go through the ordering queue with a small bound,
 * so the early flush runs too; the others in file order.
 */
static void process(struct rawfrag_session *sess, struct fuzz *z, size_t size)
{
	struct rawfrag_err err;

	z->tool = (struct rawfrag_tool){
		.sz = sizeof(z->tool),
		.sample = on_sample,
		.sample_error = on_bad_sample,
		.ordered = size & 1,
		.ordered_max_bytes = 256 << 10,
	};
	rawfrag_session__set_observer(sess, on_record, z);
	rawfrag_session__process(sess, &z->tool, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	RAWFRAG_OPTS(rawfrag_file_opts, fopts, .print = quiet, .use_fd = true, .force = false);
	RAWFRAG_OPTS(rawfrag_session_opts, sopts, .print = quiet);
	RAWFRAG_OPTS(rawfrag_check_opts, copts, .max_examples = 20);
	struct rawfrag_session *sess = NULL;
	struct fuzz z = { 0 };
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
	z.chk = rawfrag_checker__new(sess, &copts, &err);
	z.out = rawfrag_out__new(-1);
	z.em_json = rawfrag_emit__new(z.out, RAWFRAG_EMIT_JSON);
	z.em_text = rawfrag_emit__new(z.out, RAWFRAG_EMIT_TEXT);
	if (!z.chk || !z.out || !z.em_json || !z.em_text)
		goto out;
	process(sess, &z, size);
out:
	rawfrag_emit__delete(z.em_text);
	rawfrag_emit__delete(z.em_json);
	rawfrag_out__delete(z.out);
	rawfrag_checker__delete(z.chk);
	rawfrag_session__delete(sess);
	rawfrag_file__close(f);
	close(fd);
	return 0;
}
