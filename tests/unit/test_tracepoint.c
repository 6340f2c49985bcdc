// SPDX-License-Identifier: GPL-2.0
/*
 * The tracepoint decoder on tracing data and payloads built here, in both byte
 * orders: field table (ints of every size and sign, char[], __data_loc and
 * __rel_loc strings, fixed and dynamic arrays, pointers), print-fmt text, typed
 * JSON, the producer checks (tp_short, tp_common_type, tp_dynamic_outside),
 * saved cmdlines, and corrupt tracing data and payloads (no crash, clear error).
 * Every expected value is one the builder below chose.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include <rawfrag/decoder.h>
#include "internal/check_sink.h"
#include "internal/decoders.h"
#include "internal/probes.h"
#include "internal/tracepoint.h"
#include "fixture.h"

#define EV_ID 1234
#define BAD_ID 1300

static const char fmt_all[] =
	"name: tp_all\n"
	"ID: 1234\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:int sval;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:u64 big;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:char name[16];\toffset:24;\tsize:16;\tsigned:0;\n"
	"\tfield:__data_loc char[] str;\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:s8 neg;\toffset:44;\tsize:1;\tsigned:1;\n"
	"\tfield:void * ptr;\toffset:48;\tsize:8;\tsigned:0;\n"
	"\tfield:u16 arr[3];\toffset:56;\tsize:6;\tsigned:0;\n"
	"\tfield:__data_loc u32[] darr;\toffset:64;\tsize:4;\tsigned:0;\n"
	"\tfield:__rel_loc char[] rstr;\toffset:68;\tsize:4;\tsigned:0;\n"
	"\tfield:s64 s64v;\toffset:72;\tsize:8;\tsigned:1;\n"
	"\n"
	"print fmt: \"sval=%d big=%llu name=%s str=%s s64v=%lld\", REC->sval, REC->big, "
	"REC->name, __get_str(str), REC->s64v\n";

static const char fmt_hex[] =
	"name: tp_hex\n"
	"ID: 1235\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:u8 buf[8];\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u16 len;\toffset:16;\tsize:2;\tsigned:0;\n"
	"\n"
	"print fmt: \"buf=%s\", __print_hex(REC->buf, REC->len)\n";

/* libtraceevent refuses this one (no ID line) */
static const char fmt_bad[] = "name: broken\nformat:\n\tfield:int x;\toffset:zz\n";

#define FIXED 80
#define STR_OFF 80 /* "/usr/bin/sh\0": 12 bytes */
#define DARR_OFF 92 /* 2 x u32 */
#define RSTR_OFF 100 /* "rel\0" */
#define TRUE_LEN 104
#define RAW_SIZE 108 /* raw_size % 8 == 4 */

/* ---- tracing data and payloads, in either byte order (fixture.h) ---- */

static void build_blob(struct fx_buf *b, bool be, bool with_bad)
{
	static const char cmdlines[] = "4242 mytask\n17 kworker/0:1\n";
	static const char printk[] = "0xffffffff81000000 : \"hello\\n\"\n";
	static const char *const fmts[] = { fmt_bad, fmt_all, fmt_hex };

	fx_tracing_data(b, be, "rawfrag_test", with_bad ? fmts : fmts + 1, with_bad ? 3 : 2,
			printk, cmdlines);
}

static void build_payload(uint8_t *raw, bool be)
{
	struct fx_buf b = { .be = be };
	static const uint16_t arr[3] = { 1, 65535, 3 };

	fx_put_num(&b, EV_ID, 2);
	fx_put_num(&b, 0x01, 1); /* irqs off */
	fx_put_num(&b, 0x12, 1);
	fx_put_num(&b, 4242, 4);
	fx_put_num(&b, (uint32_t)-5, 4);
	fx_put_num(&b, 0, 4); /* hole */
	fx_put_num(&b, UINT64_MAX, 8);
	fx_put(&b, "hello\0\0\0\0\0\0\0\0\0\0\0", 16);
	fx_put_num(&b, (12u << 16) | STR_OFF, 4);
	fx_put_num(&b, (uint8_t)-3, 1);
	fx_put_num(&b, 0, 3); /* hole */
	fx_put_num(&b, 0xffff888012345678ULL, 8);
	for (int i = 0; i < 3; i++)
		fx_put_num(&b, arr[i], 2);
	fx_put_num(&b, 0, 2); /* hole */
	fx_put_num(&b, (8u << 16) | DARR_OFF, 4);
	/* relative to the end of the locator (68 + 4) */
	fx_put_num(&b, (4u << 16) | (RSTR_OFF - 72), 4);
	fx_put_num(&b, (uint64_t)INT64_MIN, 8);
	assert_int_equal(b.len, FIXED);
	fx_put(&b, "/usr/bin/sh", 12);
	fx_put_num(&b, 7, 4);
	fx_put_num(&b, UINT32_MAX, 4);
	fx_put(&b, "rel", 4);
	assert_int_equal(b.len, TRUE_LEN);
	fx_put_num(&b, 0, RAW_SIZE - TRUE_LEN);
	memcpy(raw, b.p, RAW_SIZE);
}

/* ---- fixture: the decoder bound to EV_ID ---- */

struct fx {
	struct fx_buf blob;
	struct rawfrag_env env;
	struct rawfrag_decoder_ctx ctx;
	void *priv;
	uint8_t raw[RAW_SIZE];
	struct rawfrag_raw r;
	struct rawfrag_sample s;
	struct rawfrag_out *out;
};

static const struct rawfrag_decoder *dec = &rawfrag_decoder_tracepoint;

static void fx_init(struct fx *f, bool be, bool with_bad)
{
	memset(f, 0, sizeof(*f));
	build_blob(&f->blob, be, with_bad);
	assert_int_equal(fx_tp__bind(&f->env, &f->ctx, &f->blob, EV_ID, &f->priv), 100);
	build_payload(f->raw, be);
	f->r.data = f->raw;
	f->r.size = RAW_SIZE;
	f->r.big_endian = be;
	f->r.swap = be != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	f->s.cpu = 1;
	f->s.time = 123456789;
	f->out = rawfrag_out__new(-1);
	assert_non_null(f->out);
}

static void fx_fini(struct fx *f)
{
	fx_tp__unbind(&f->ctx, f->priv);
	rawfrag_out__delete(f->out);
}

static const char *mem(struct rawfrag_out *o)
{
	static char s[4096];
	size_t len;
	const char *p = rawfrag_out__mem(o, &len);

	assert_true(len < sizeof(s));
	memcpy(s, p, len);
	s[len] = '\0';
	return s;
}

static const char *json_of(struct fx *f)
{
	struct rawfrag_emit *em = rawfrag_emit__new(f->out, RAWFRAG_EMIT_JSON);

	assert_non_null(em);
	rawfrag_out__reset(f->out);
	rawfrag_emit__begin_object(em, NULL);
	assert_int_equal(dec->fields(f->priv, &f->r, &f->s, em), 0);
	rawfrag_emit__end_object(em);
	rawfrag_emit__delete(em);
	return mem(f->out);
}

static const char *text_of(struct fx *f, int want_ret)
{
	rawfrag_out__reset(f->out);
	assert_int_equal(dec->text(f->priv, &f->r, &f->s, f->out, false), want_ret);
	return mem(f->out);
}

/* ---- check sink that records findings ---- */

struct found {
	int n;
	const char *kind[8];
};

static void collect(struct rawfrag_check_sink *sink, enum rawfrag_severity sev,
		    const char *kind, int64_t raw_off, const char *fmt, va_list ap)
{
	struct found *fd = sink->ctx;

	assert_int_equal(sev, RAWFRAG_SEV_ERROR);
	if (fd->n < 8)
		fd->kind[fd->n++] = kind;
}

static int length_of(struct fx *f, uint32_t *len, struct found *fd)
{
	struct rawfrag_check_sink sink;

	rawfrag_check_sink__init(&sink, false, NULL);
	sink.report = collect;
	sink.ctx = fd;
	memset(fd, 0, sizeof(*fd));
	return dec->length(f->priv, &f->r, &f->s, len, &sink);
}

/* ---- tests ---- */

static const char want_text[] =
	"sval=-5 big=18446744073709551615 name=hello str=/usr/bin/sh "
	"s64v=-9223372036854775808";
static const char want_json[] =
	"{\"common\":{\"common_type\":1234,\"common_flags\":1,\"common_preempt_count\":18,"
	"\"common_pid\":4242},\"sval\":-5,\"big\":18446744073709551615,\"name\":\"hello\","
	"\"str\":\"/usr/bin/sh\",\"neg\":-3,\"ptr\":\"0xffff888012345678\","
	"\"arr\":[1,65535,3],\"darr\":[7,4294967295],\"rstr\":\"rel\","
	"\"s64v\":-9223372036854775808}";

static void decode_both_orders(bool be)
{
	struct fx f;
	struct rawfrag_tp_data *td;
	uint32_t len = 0;
	struct found fd;

	fx_init(&f, be, false);
	td = f.ctx.file_priv; /* struct tp_file starts with its tp_data */
	assert_int_equal(td->big_endian, be);
	assert_int_equal(td->long_size, 8);
	assert_int_equal(td->page_size, 4096);
	assert_int_equal(td->nr_formats, 2);
	assert_string_equal(td->version, "0.6");
	assert_string_equal(text_of(&f, 0), want_text);
	assert_string_equal(json_of(&f), want_json);
	assert_int_equal(length_of(&f, &len, &fd), 0);
	assert_int_equal(len, TRUE_LEN);
	assert_int_equal(fd.n, 0);
	fx_fini(&f);
}

static void test_decode_le(void **state)
{
	decode_both_orders(false);
}

static void test_decode_be(void **state)
{
	decode_both_orders(true);
}

static void test_saved_cmdlines(void **state)
{
	struct fx f;

	fx_init(&f, true, false);
	assert_string_equal(dec->pid_comm(f.ctx.file_priv, 4242), "mytask");
	assert_string_equal(dec->pid_comm(f.ctx.file_priv, 17), "kworker/0:1");
	assert_null(dec->pid_comm(f.ctx.file_priv, 18));
	fx_fini(&f);
}

static void test_verbose_text(void **state)
{
	struct fx f;
	const char *t;

	fx_init(&f, false, false);
	rawfrag_out__reset(f.out);
	assert_int_equal(dec->text(f.priv, &f.r, &f.s, f.out, true), 0);
	t = mem(f.out);
	assert_true(!strncmp(t, want_text, strlen(want_text)));
	assert_non_null(strstr(t, "common={common_type=1234 "));
	assert_non_null(strstr(t, "darr=[7 4294967295] rstr=rel"));
	fx_fini(&f);
}

static void test_short(void **state)
{
	struct fx f;
	struct found fd;
	uint32_t len;

	fx_init(&f, false, false);
	f.r.size = FIXED - 4;
	assert_int_equal(length_of(&f, &len, &fd), -EINVAL);
	assert_int_equal(fd.n, 1);
	assert_string_equal(fd.kind[0], "tp_short");
	assert_non_null(strstr(text_of(&f, -EINVAL), "raw size 76 < fixed fields 80"));
	/* fields that do not fit come out as null, the rest as usual */
	assert_non_null(strstr(json_of(&f), "\"sval\":-5,"));
	assert_non_null(strstr(json_of(&f), "\"s64v\":null"));
	f.r.size = 4;
	assert_int_equal(length_of(&f, &len, &fd), -EINVAL);
	assert_string_equal(fd.kind[0], "tp_short");
	json_of(&f);
	fx_fini(&f);
}

static void test_common_type(void **state)
{
	struct fx f;
	struct found fd;
	uint32_t len;

	fx_init(&f, false, false);
	f.raw[0] ^= 1;
	assert_int_equal(length_of(&f, &len, &fd), -EINVAL);
	assert_int_equal(fd.n, 1);
	assert_string_equal(fd.kind[0], "tp_common_type");
	assert_int_equal(len, TRUE_LEN);
	assert_non_null(strstr(text_of(&f, -EINVAL), "common_type 1235 != event id 1234"));
	fx_fini(&f);
}

static void test_dynamic_outside(void **state)
{
	struct fx f;
	struct found fd;
	uint32_t len;

	fx_init(&f, true, false);
	/* str: offset 100, length 12 -> ends at 112 > 108 */
	memcpy(f.raw + 40, "\x00\x0c\x00\x64", 4);
	/* rstr: relative offset 40 from 72 -> 112 */
	memcpy(f.raw + 68, "\x00\x04\x00\x28", 4);
	assert_int_equal(length_of(&f, &len, &fd), -EINVAL);
	assert_int_equal(fd.n, 2);
	assert_string_equal(fd.kind[0], "tp_dynamic_outside");
	assert_string_equal(fd.kind[1], "tp_dynamic_outside");
	assert_non_null(strstr(text_of(&f, -EINVAL), "dynamic field str outside"));
	assert_non_null(strstr(json_of(&f), "\"str\":null"));
	assert_non_null(strstr(json_of(&f), "\"rstr\":null"));
	fx_fini(&f);
}

/* __print_hex(REC->buf, REC->len): a len past buf is refused, not read */
static void test_print_length_checked(void **state)
{
	struct fx f;
	void *hp = NULL;
	uint8_t raw[20] = { 0xd3, 0x04, 0, 0, 1, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 4, 0 };
	const char *t;

	fx_init(&f, false, false);
	assert_int_equal(rawfrag_tp__bind(&f.ctx, 1235, &hp), 100);
	f.r.data = raw;
	f.r.size = sizeof(raw);
	rawfrag_out__reset(f.out);
	assert_int_equal(dec->text(hp, &f.r, &f.s, f.out, false), 0);
	t = mem(f.out);
	assert_non_null(strstr(t, "de ad be ef"));
	assert_null(strstr(t, "01"));
	raw[16] = 200; /* 200 bytes from an 8-byte array */
	rawfrag_out__reset(f.out);
	assert_int_equal(dec->text(hp, &f.r, &f.s, f.out, false), -EINVAL);
	assert_non_null(strstr(mem(f.out), "length of 200 elements past its 8-byte array"));
	dec->release(hp);
	f.r.data = f.raw;
	fx_fini(&f);
}

static void test_bad_format_skipped(void **state)
{
	struct fx f;
	struct rawfrag_tp_data *td;
	void *p = NULL;

	fx_init(&f, false, true);
	td = f.ctx.file_priv;
	assert_int_equal(td->nr_formats, 2);
	assert_int_equal(td->nr_bad_formats, 1);
	assert_int_equal(rawfrag_tp__bind(&f.ctx, BAD_ID, &p), 0);
	assert_int_equal(rawfrag_tp__bind(&f.ctx, 0x10000, &p), 0);
	assert_string_equal(text_of(&f, 0), want_text);
	fx_fini(&f);
}

static void test_truncated_blob(void **state)
{
	static const char *const dopts[] = { "probe_formats=0", NULL };
	struct rawfrag_decoder_ctx ctx = { .dopts = dopts };
	struct rawfrag_tp_data td;
	struct rawfrag_err err;
	struct fx_buf b;

	build_blob(&b, false, false);
	assert_int_equal(rawfrag_tp_data__parse(&td, b.p, b.len, NULL, &err), 0);
	rawfrag_tp_data__fini(&td);
	/* every cut fails with a reason; none reads past the cut (ASan build) */
	for (size_t n = 0; n < b.len; n++) {
		uint8_t *copy = malloc(n ? n : 1);

		memcpy(copy, b.p, n);
		memset(&err, 0, sizeof(err));
		/* the crash probe (a fork per parse) is tested below, once */
		assert_int_equal(rawfrag_tp_data__parse(&td, copy, n, &ctx, &err), -EINVAL);
		assert_non_null(strstr(err.reason, "bad or truncated"));
		assert_true(err.offset >= 0 && (size_t)err.offset <= n);
		rawfrag_tp_data__fini(&td);
		free(copy);
	}
}

static void test_no_tracing_data(void **state)
{
	struct rawfrag_env env = { 0 };
	struct rawfrag_decoder_ctx ctx = { .env = &env };
	void *p = NULL;

	assert_int_equal(dec->file_init(&ctx, &ctx.file_priv), 0);
	assert_null(ctx.file_priv);
	assert_int_equal(rawfrag_tp__bind(&ctx, EV_ID, &p), 0);
	dec->file_fini(ctx.file_priv);
}

/* Random bytes over a good payload: every call returns, the checks hold. */
static void test_corrupt_payloads(void **state)
{
	struct fx f;
	uint8_t good[RAW_SIZE];
	unsigned int seed = 1;

	fx_init(&f, false, false);
	memcpy(good, f.raw, RAW_SIZE);
	for (int it = 0; it < 20000; it++) {
		uint8_t *heap;
		struct found fd;
		uint32_t len = 0;
		int ret;

		memcpy(f.raw, good, RAW_SIZE);
		for (int k = 0; k < 1 + it % 6; k++)
			f.raw[rand_r(&seed) % RAW_SIZE] = (uint8_t)rand_r(&seed);
		/* copy to an exact-size heap block so ASan sees any over-read */
		f.r.size = (uint32_t)(rand_r(&seed) % (RAW_SIZE + 1));
		heap = malloc(f.r.size ? f.r.size : 1);
		memcpy(heap, f.raw, f.r.size);
		f.r.data = heap;
		ret = length_of(&f, &len, &fd);
		assert_true(ret == 0 || ret == -EINVAL);
		assert_true(ret == 0 ? fd.n == 0 && len <= f.r.size : fd.n > 0);
		rawfrag_out__reset(f.out);
		ret = dec->text(f.priv, &f.r, &f.s, f.out, it % 2);
		assert_true(ret == 0 || ret == -EINVAL);
		json_of(&f);
		free(heap);
	}
	f.r.data = f.raw;
	fx_fini(&f);
}

/* ---- the compiled print fmt against libtraceevent, on this kernel's formats ---- */

/* libtraceevent 1.7.1 leaks a few bytes parsing some of this kernel's formats */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

/* a payload of ev with random fixed fields and valid dynamic ones */
static void put_order(uint8_t *p, uint64_t v, int n, bool be)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (be ? 8 * (n - 1 - i) : 8 * i));
}

static uint32_t random_payload(struct tep_event *ev, uint8_t *raw, size_t cap, unsigned int *seed,
			       bool be)
{
	struct tep_format_field *f;
	uint32_t end = 0;

	for (f = ev->format.common_fields; f; f = f->next)
		if ((uint32_t)(f->offset + f->size) > end)
			end = f->offset + f->size;
	for (f = ev->format.fields; f; f = f->next)
		if ((uint32_t)(f->offset + f->size) > end)
			end = f->offset + f->size;
	assert_true(end < cap / 2);
	for (uint32_t i = 0; i < end; i++)
		raw[i] = (uint8_t)rand_r(seed);
	/* small values too, so that symbolic and flag tables match sometimes */
	if (rand_r(seed) % 2)
		for (f = ev->format.fields; f; f = f->next)
			if (!(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)))
				memset(raw + f->offset + 1, 0, f->size - 1);
	put_order(raw, (uint64_t)ev->id, 2, be);
	for (f = ev->format.fields; f; f = f->next) {
		uint32_t len = 1 + rand_r(seed) % 24, off = end;

		if (!(f->flags & TEP_FIELD_IS_DYNAMIC) || f->size != 4)
			continue;
		for (uint32_t i = 0; i < len; i++)
			raw[end + i] = (f->flags & TEP_FIELD_IS_STRING) ? 'a' + rand_r(seed) % 26 :
									(uint8_t)rand_r(seed);
		raw[end + len - 1] = '\0';
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off -= f->offset + f->size;
		put_order(raw + f->offset, (len << 16) | off, 4, be);
		end += len;
	}
	return end;
}

static void compiled_print_matches_tep(bool be)
{
	const char *root = "/sys/kernel/tracing/events";
	struct tep_handle *tep = tep_alloc();
	int nr_events = 0, nr_compiled = 0;
	unsigned int seed = 7;
	struct trace_seq seq;
	struct rawfrag_out *o = rawfrag_out__new(-1);
	DIR *sd = opendir(root);
	struct dirent *se;

	if (!sd) {
		tep_free(tep);
		rawfrag_out__delete(o);
		skip();
	}
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, be ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	trace_seq_init(&seq);
	while ((se = readdir(sd))) {
		char path[1024];
		DIR *ed;
		struct dirent *ee;

		if (se->d_name[0] == '.' || !strcmp(se->d_name, "ftrace"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", root, se->d_name);
		ed = opendir(path);
		if (!ed)
			continue;
		while ((ee = readdir(ed))) {
			struct rawfrag_tp_prog *prog;
			struct tep_event *ev = NULL;
			size_t len;
			char *fmt;

			if (ee->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s/%s/format", root, se->d_name, ee->d_name);
			fmt = fx_slurp(path, &len);
			if (!fmt)
				continue;
			if (tep_parse_format(tep, &ev, fmt, len, se->d_name) || !ev) {
				free(fmt);
				continue;
			}
			free(fmt);
			nr_events++;
			prog = rawfrag_tp_prog__compile(ev, be, 8);
			if (!prog)
				continue;
			nr_compiled++;
			for (int i = 0; i < 40; i++) {
				uint8_t raw[8192] = { 0 };
				uint32_t size = random_payload(ev, raw, sizeof(raw), &seed, be);
				struct tep_record rec = { .size = (int)size, .data = raw };
				const char *mine;
				size_t mlen;

				size = ((size + 4 + 7) & ~7u) - 4;
				rec.size = (int)size;
				trace_seq_reset(&seq);
				tep_print_event(tep, &seq, &rec, "%s", TEP_PRINT_INFO);
				rawfrag_out__reset(o);
				rawfrag_tp_prog__print(prog, raw, size, o);
				mine = rawfrag_out__mem(o, &mlen);
				if (mlen != seq.len || memcmp(mine, seq.buffer, mlen))
					fail_msg("%s:%s\n  tep:  %.*s\n  ours: %.*s", ev->system, ev->name,
						 (int)seq.len, seq.buffer, (int)mlen, mine);
			}
			rawfrag_tp_prog__free(prog);
		}
		closedir(ed);
	}
	closedir(sd);
	trace_seq_destroy(&seq);
	rawfrag_out__delete(o);
	tep_free(tep);
	print_message("# compiled %d of %d print formats of this kernel, 40 %s payloads each\n",
		      nr_compiled, nr_events, be ? "big-endian" : "little-endian");
	assert_true(nr_events == 0 || nr_compiled > nr_events / 2);
}

/* ---- the compiled printer and libtraceevent disagree: said under -v, by name ---- */

struct logs {
	int n;
	enum rawfrag_print_level lvl;
	char last[512];
};

static int capture(enum rawfrag_print_level lvl, void *ctx, const char *fmt, va_list ap)
{
	struct logs *l = ctx;

	l->n++;
	l->lvl = lvl;
	vsnprintf(l->last, sizeof(l->last), fmt, ap);
	return 0;
}

/* what libtraceevent prints for tp_all once a handler owns it */
static int other_print(struct trace_seq *s, struct tep_record *rec, struct tep_event *ev,
		       void *ctx)
{
	(void)rec;
	(void)ctx;
	trace_seq_printf(s, "other %s", ev->name);
	return 0; /* non-zero: libtraceevent would append the print fmt's text */
}

/*
 * A handler registered after bind changes libtraceevent's text but not the
 * compiled printer's: the next checked sample finds the difference, prints
 * libtraceevent's text, names the event in an INFO message (what -v shows)
 * and leaves the compiled printer; nothing is logged before or after.
 */
static void test_engine_switch_logged(void **state)
{
	struct logs l = { 0 };
	struct rawfrag_tp_data *td;
	struct fx f;

	fx_init(&f, false, false);
	f.ctx.print = capture;
	f.ctx.print_ctx = &l;
	td = f.ctx.file_priv; /* struct tp_file starts with its tp_data */
	for (int i = 0; i < 3; i++)
		assert_string_equal(text_of(&f, 0), want_text);
	assert_int_equal(l.n, 0);
	assert_int_equal(tep_register_event_handler(td->tep, EV_ID, "rawfrag_test", "tp_all",
						    other_print, NULL),
			 TEP_REGISTER_SUCCESS_OVERWRITE); /* the event exists: its handler is set */
	assert_string_equal(text_of(&f, 0), "other tp_all");
	assert_int_equal(l.n, 1);
	assert_int_equal(l.lvl, RAWFRAG_INFO);
	assert_non_null(strstr(l.last, "rawfrag_test:tp_all: compiled printer differs from "
				       "libtraceevent on sample 4 of the event"));
	for (int i = 0; i < 40; i++)
		assert_string_equal(text_of(&f, 0), "other tp_all");
	assert_int_equal(l.n, 1);
	fx_fini(&f);
}

static void test_compiled_print_matches_tep(void **state)
{
	compiled_print_matches_tep(false);
}

static void test_compiled_print_matches_tep_be(void **state)
{
	compiled_print_matches_tep(true);
}

/*
 * report -j's shared probes: of four workers meeting one blob at once, one
 * probes and all get its answer; a second blob is probed again, by a worker
 * whose fellows left; a blob met before is answered without a probe.
 */
struct probe_run {
	struct rf_probes *p;
	const char *blob;
	int skip[8], nr, ret;
};

static int probe_calls;
static pthread_mutex_t probe_mu = PTHREAD_MUTEX_INITIALIZER;

static void fake_probe(const void *blob, uint64_t size, int *skip, int max, int *nr)
{
	pthread_mutex_lock(&probe_mu);
	probe_calls++;
	pthread_mutex_unlock(&probe_mu);
	*nr = 2 < max ? 2 : max;
	skip[0] = (int)size;
	skip[1] = ((const char *)blob)[0];
}

static void *probe_worker(void *arg)
{
	struct probe_run *r = arg;

	r->ret = rf_probes__get(r->p, r->blob, strlen(r->blob), r->skip, 8, &r->nr, fake_probe);
	return NULL;
}

static void test_probes_shared(void **state)
{
	struct rf_probes *p = rf_probes__new(5);
	struct probe_run r[4];
	pthread_t th[4];
	int skip[8], nr = 0;

	assert_non_null(p);
	rf_probes__leave(p, 4); /* never meets the blob: not waited for */
	for (int i = 0; i < 4; i++) {
		r[i] = (struct probe_run){ .p = p, .blob = "xblob", .ret = -1 };
		assert_int_equal(pthread_create(&th[i], NULL, probe_worker, &r[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(r[i].ret, 0);
		assert_int_equal(r[i].nr, 2);
		assert_int_equal(r[i].skip[0], 5);
		assert_int_equal(r[i].skip[1], 'x');
	}
	assert_int_equal(probe_calls, 1);
	/* another blob: probed again, by a worker alone once the others left */
	for (int i = 1; i < 4; i++)
		rf_probes__leave(p, i);
	assert_int_equal(rf_probes__get(p, "yb", 2, skip, 8, &nr, fake_probe), 0);
	assert_int_equal(probe_calls, 2);
	assert_int_equal(skip[0], 2);
	assert_int_equal(skip[1], 'y');
	/* the first blob again: its answer, no probe */
	assert_int_equal(rf_probes__get(p, "xblob", 5, skip, 8, &nr, fake_probe), 0);
	assert_int_equal(probe_calls, 2);
	assert_int_equal(skip[1], 'x');
	rf_probes__delete(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_le),
		cmocka_unit_test(test_decode_be),
		cmocka_unit_test(test_saved_cmdlines),
		cmocka_unit_test(test_verbose_text),
		cmocka_unit_test(test_short),
		cmocka_unit_test(test_common_type),
		cmocka_unit_test(test_dynamic_outside),
		cmocka_unit_test(test_print_length_checked),
		cmocka_unit_test(test_bad_format_skipped),
		cmocka_unit_test(test_truncated_blob),
		cmocka_unit_test(test_no_tracing_data),
		cmocka_unit_test(test_corrupt_payloads),
		cmocka_unit_test(test_engine_switch_logged),
		cmocka_unit_test(test_compiled_print_matches_tep),
		cmocka_unit_test(test_compiled_print_matches_tep_be),
		cmocka_unit_test(test_probes_shared),
	};

	return cmocka_run_group_tests_name("tracepoint", tests, NULL, NULL);
}
