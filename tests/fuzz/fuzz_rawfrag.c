// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness over the session's stream (reader, describing records,
 * thread table, ordering queue), sample parser, checker and every decoder: the
 * input is a whole perf.data (file or pipe mode, either byte order). Built with
 * -fsanitize=fuzzer by `make fuzz`, or with replay.c's main() to replay a corpus
 * under ASan/UBSan in the test suite.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rawfrag/rawfrag.h>
#include "internal/machine.h"

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
	/* symbols and call chains: the machine reads no file of this host */
	struct rawfrag_machine *m;
	struct rawfrag_callchain *cc;
	bool swap;
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
	if (z->m && ev->evsel) {
		struct rawfrag_frame fr;

		rawfrag_machine__resolve(z->m, (int32_t)ev->sample->pid, (int32_t)ev->sample->tid,
					 ev->sample->ip,
					 ev->sample->misc & PERF_RECORD_MISC_CPUMODE_MASK, &fr);
		rawfrag_callchain__resolve(z->cc, z->m, ev->sample,
					   rawfrag_evsel__attr(ev->evsel), 0);
	}
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
	struct fuzz *z = ctx;

	if (z->m && ev->rec->type != PERF_RECORD_SAMPLE &&
	    ev->rec->type < RAWFRAG_RECORD_HEADER_ATTR)
		rawfrag_machine__process_record(z->m, ev->rec, z->swap);
	return count(ctx);
}

/* the in-process inline reader (DWARF and symbols) at addresses of the text */
static void inline_chains(const char *path, const struct rf_elf *e)
{
	struct rf_dwinl *w = rf_dwinl__open(path);
	uint64_t base = e && e->text_vaddr ? e->text_vaddr : 0x1000;

	for (uint64_t a = base; w && a < base + 0x4000; a += 0x33) {
		char **names = NULL;
		int n = rf_dwinl__lookup(w, a, &names);

		for (int i = 0; i < n; i++)
			free(names[i]);
		free(names);
	}
	rf_dwinl__free(w);
}

/* An ELF file (input starting with its magic) through the symbolizer. */
static void symbolize_elf(int fd)
{
	struct rf_dso d = { .kind = RF_DSO_USER };
	struct rf_elf *e = NULL;
	char path[64], link[256];
	uint8_t bid[20];
	bool symtab;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rf_elf__build_id(path, bid);
	rf_elf__debuglink(path, link, sizeof(link));
	if (rf_elf__open(path, &e))
		e = NULL;
	if (rf_elf__load_syms(&d, path, e, false, 0, &symtab, NULL) == 0) {
		rf_dso__finish_syms(&d, false);
		rf_elf__plt_syms(&d, path, NULL);
		rf_dso__sort_syms(&d);
		for (uint64_t a = 0; a < 0x10000; a += 0x101)
			rf_dso__find(&d, a);
	}
	if (e && e->nr_load) {
		uint8_t buf[64];

		rf_elf__pread(e, buf, sizeof(buf), e->load[0].off);
	}
	inline_chains(path, e);
	rf_elf__close(e);
	free(d.syms);
	free(d.strs);
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
	RAWFRAG_OPTS(rawfrag_machine_opts, mopts, .print = quiet, .symfs = "/nonexistent",
		     .kallsyms = "/dev/null", .buildid_dir = "/nonexistent");
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
	if (size >= 4 && !memcmp(data, "\177ELF", 4)) {
		symbolize_elf(fd);
		goto out;
	}
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
	z.m = rawfrag_machine__new(f, &mopts);
	z.cc = rawfrag_callchain__new();
	z.swap = rawfrag_file__needs_swap(f);
	if (!z.chk || !z.out || !z.em_json || !z.em_text)
		goto out;
	process(sess, &z, size);
out:
	rawfrag_callchain__delete(z.cc);
	rawfrag_machine__delete(z.m);
	rawfrag_emit__delete(z.em_text);
	rawfrag_emit__delete(z.em_json);
	rawfrag_out__delete(z.out);
	rawfrag_checker__delete(z.chk);
	rawfrag_session__delete(sess);
	rawfrag_file__close(f);
	close(fd);
	return 0;
}
