// SPDX-License-Identifier: GPL-2.0
/*
 * The compiled tracepoint printer (tracepoint_print.c), one printf conversion
 * at a time, against libtraceevent's own tep_print_event(): every conversion
 * and flag this kernel's print fmts use (read from tracefs when it is there)
 * and a fixed list of the usual ones, each on a field of every size and sign,
 * alone and between literal text, over boundary values (0, 1, -1, the limits
 * of every width) and random ones, in both byte orders. A format the compiler
 * refuses is printed by libtraceevent itself, so that is also a pass; the test
 * insists that the conversions with flags and widths do compile (they are the
 * ones that go through put_num()).
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "internal/tracepoint.h"
#include "fixture.h"

/* libtraceevent 1.7.1 leaks a few bytes parsing some formats */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

#define MAX_SPECS 256

static const char *const fixed_specs[] = {
	"%d",	 "%i",	   "%u",     "%x",     "%X",	 "%o",	   "%c",     "%s",     "%p",
	"%hhd",	 "%hhu",   "%hhx",   "%hd",    "%hu",	 "%hx",	   "%ld",    "%lu",    "%lx",
	"%lX",	 "%lld",   "%llu",   "%llx",   "%Lu",	 "%zu",	   "%zd",    "%zx",    "%#x",
	"%#X",	 "%#o",	   "%#lx",   "%#llx",  "%#hx",	 "%02x",   "%04x",   "%08x",   "%0x",
	"%08lx", "%016lx", "%016llx", "%#08x", "%#010x", "%#016lx", "%03d", "%04u",   "%06ld",
	"%010lu", "%010llu", "%-1d",  "%-2d",   "%-8d",	 "%3d",	   "%3u",    "%5d",    "%-5u",
	"%+d",	 "% d",	   "%.3d",   "%8.3x",  "%-8s",	 "%5s",	   "%3s",    "%.2s",   "%.*s",
	"%*d",	 "%-08lx", "%#.4hhx",
};

struct spec_set {
	char v[MAX_SPECS][16];
	int n;
};

static void add_spec(struct spec_set *ss, const char *s, size_t len)
{
	if (len >= sizeof(ss->v[0]) || ss->n >= MAX_SPECS)
		return;
	for (int i = 0; i < ss->n; i++)
		if (strlen(ss->v[i]) == len && !memcmp(ss->v[i], s, len))
			return;
	memcpy(ss->v[ss->n], s, len);
	ss->v[ss->n++][len] = 0;
}

/* the conversions of one print fmt line: % flags width .precision length conv */
static void scan_fmt(struct spec_set *ss, const char *p)
{
	while ((p = strchr(p, '%'))) {
		const char *s = p++;

		if (*p == '%') {
			p++;
			continue;
		}
		p += strspn(p, "-#0 +");
		p += *p == '*' ? 1 : strspn(p, "0123456789");
		if (*p == '.') {
			p++;
			p += *p == '*' ? 1 : strspn(p, "0123456789");
		}
		p += strspn(p, "hlLzZ");
		if (*p && strchr("diuxXocsp", *p))
			add_spec(ss, s, (size_t)(p + 1 - s));
	}
}

static int kernel_specs(struct spec_set *ss)
{
	const char *root = "/sys/kernel/tracing/events";
	DIR *sd = opendir(root);
	struct dirent *se;
	int files = 0;

	if (!sd)
		return 0;
	while ((se = readdir(sd))) {
		char path[1024];
		DIR *ed;
		struct dirent *ee;

		if (se->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", root, se->d_name);
		ed = opendir(path);
		if (!ed)
			continue;
		while ((ee = readdir(ed))) {
			size_t len;
			char *fmt, *pf;

			if (ee->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s/%s/format", root, se->d_name, ee->d_name);
			fmt = fx_slurp(path, &len);
			if (!fmt)
				continue;
			pf = strstr(fmt, "print fmt: \"");
			if (pf) {
				char *e = strstr(pf + 12, "\", ");

				if (e)
					*e = 0;
				scan_fmt(ss, pf + 12);
				files++;
			}
			free(fmt);
		}
		closedir(ed);
	}
	closedir(sd);
	return files;
}

/* the field types a conversion is tried on */
static const struct {
	const char *type;
	int size, sign;
} ftypes[] = {
	{ "u8", 1, 0 },	 { "s8", 1, 1 },  { "u16", 2, 0 }, { "s16", 2, 1 },
	{ "u32", 4, 0 }, { "int", 4, 1 }, { "u64", 8, 0 }, { "s64", 8, 1 },
};

static const uint64_t bvals[] = {
	0,
	1,
	~0ULL, /* -1 */
	0x7f,
	0x80,
	0xff,
	0x7fff,
	0x8000,
	0xffff,
	0x7fffffff,
	0x80000000,
	0xffffffff,
	0x100000000ULL,
	0x7fffffffffffffffULL,
	0x8000000000000000ULL,
	0xfffffffffffffffeULL,
	0x12345678,
	0xdeadbeefcafef00dULL,
	10,
	99999,
	1000000,
};

/*
 * The event: fixed v (the conversion's number), s[16] (its string), n (a
 * precision for "%.*s"), d (a __data_loc string); payload offsets fixed.
 */
static int event_fmt(char *buf, size_t len, const char *spec, int t, bool lits, bool dyn)
{
	char conv = spec[strlen(spec) - 1];
	bool star = strchr(spec, '*') != NULL;
	const char *arg = conv == 's' ? (dyn ? "__get_str(d)" : "REC->s") : "REC->v";

	return snprintf(buf, len,
			"name: conv\nID: 7\nformat:\n"
			"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
			"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
			"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
			"\tfield:%s v;\toffset:8;\tsize:%d;\tsigned:%d;\n"
			"\tfield:char s[16];\toffset:16;\tsize:16;\tsigned:0;\n"
			"\tfield:int n;\toffset:32;\tsize:4;\tsigned:1;\n"
			"\tfield:__data_loc char[] d;\toffset:36;\tsize:4;\tsigned:0;\n\n"
			"print fmt: \"%s%s%s\", %s%s\n",
			ftypes[t].type, ftypes[t].size, ftypes[t].sign, lits ? "v=" : "", spec,
			lits ? " end" : "", star ? "REC->n, " : "", arg);
}

static void put_order(uint8_t *p, uint64_t v, int n, bool be)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (be ? 8 * (n - 1 - i) : 8 * i));
}

/* the last fills s[16] with no NUL, as the kernel may */
static const char *const strs[] = { "", "a", "abc", "x y", "fifteen-chars!!", "sixteen-chars!!!" };

struct tally {
	int specs, compiled, compiled_flagged, values;
};

/* one spec on one field type: the compiled printer against tep on every value */
static void one(struct tally *ty, const char *spec, int t, bool be, bool lits, bool dyn,
		unsigned int *seed)
{
	struct tep_handle *tep = tep_alloc();
	struct rawfrag_out *o = rawfrag_out__new(-1);
	struct tep_event *ev = NULL;
	struct rawfrag_tp_prog *prog;
	struct trace_seq seq;
	char fmt[2048];
	int n = event_fmt(fmt, sizeof(fmt), spec, t, lits, dyn);

	assert_non_null(tep);
	assert_non_null(o);
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, be ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	if (tep_parse_format(tep, &ev, fmt, (unsigned long)n, "rftest") || !ev) {
		/* libtraceevent cannot parse it either: nothing to compare */
		tep_free(tep);
		rawfrag_out__delete(o);
		return;
	}
	prog = rawfrag_tp_prog__compile(ev, be, 8);
	if (prog) {
		ty->compiled++;
		if (strpbrk(spec + 1, "-#0123456789 +.") || spec[strlen(spec) - 1] == 'o')
			ty->compiled_flagged++;
	}
	trace_seq_init(&seq);
	for (size_t i = 0; prog && i < sizeof(bvals) / sizeof(bvals[0]) + 24; i++) {
		uint64_t v = i < sizeof(bvals) / sizeof(bvals[0]) ? bvals[i] :
			     (uint64_t)rand_r(seed) << 40 ^ (uint64_t)rand_r(seed) << 20 ^
				     (uint64_t)rand_r(seed);
		const char *str = strs[i % (sizeof(strs) / sizeof(strs[0]))];
		uint8_t raw[128] = { 0 };
		uint32_t size = 64, slen = (uint32_t)strlen(str) + 1;
		struct tep_record rec = { .size = (int)size, .data = raw };
		const char *mine;
		size_t mlen;

		put_order(raw, 7, 2, be);
		put_order(raw + 8, v, ftypes[t].size, be);
		memcpy(raw + 16, str, slen > 16 ? 16 : slen);
		put_order(raw + 32, (uint64_t)(i % 20), 4, be);
		put_order(raw + 36, (uint64_t)slen << 16 | 40, 4, be);
		memcpy(raw + 40, str, slen);
		rec.size = (int)size;
		trace_seq_reset(&seq);
		tep_print_event(tep, &seq, &rec, "%s", TEP_PRINT_INFO);
		rawfrag_out__reset(o);
		rawfrag_tp_prog__print(prog, raw, size, o);
		mine = rawfrag_out__mem(o, &mlen);
		if (mlen != seq.len || memcmp(mine, seq.buffer, mlen))
			fail_msg("\"%s\" on %s = %#llx (%s-endian%s%s)\n  tep:  '%.*s'\n  ours: '%.*s'",
				 spec, ftypes[t].type, (unsigned long long)v, be ? "big" : "little",
				 lits ? ", between literals" : "", dyn ? ", __get_str" : "",
				 (int)seq.len, seq.buffer, (int)mlen, mine);
		ty->values++;
	}
	trace_seq_destroy(&seq);
	rawfrag_tp_prog__free(prog);
	rawfrag_out__delete(o);
	tep_free(tep);
}

static void test_every_conversion(void **state)
{
	static struct spec_set ss;
	struct tally ty = { 0 };
	unsigned int seed = 29;
	int files, from_kernel;

	ss.n = 0;
	files = kernel_specs(&ss);
	from_kernel = ss.n;
	for (size_t i = 0; i < sizeof(fixed_specs) / sizeof(fixed_specs[0]); i++)
		add_spec(&ss, fixed_specs[i], strlen(fixed_specs[i]));
	for (int i = 0; i < ss.n; i++) {
		bool str = ss.v[i][strlen(ss.v[i]) - 1] == 's';

		ty.specs++;
		for (int t = 0; t < (int)(sizeof(ftypes) / sizeof(ftypes[0])); t++)
			for (int k = 0; k < 4; k++)
				one(&ty, ss.v[i], t, k & 1, k & 2, str && t % 2, &seed);
	}
	print_message("# %d conversions (%d from %d tracefs formats), %d compiled "
		      "programs (%d with flags, widths or %%o), %d values printed alike\n",
		      ty.specs, from_kernel, files, ty.compiled, ty.compiled_flagged, ty.values);
	/* most conversions compile, and those with flags and widths among them */
	assert_true(ty.compiled > ty.specs * 8 * 4 / 2);
	assert_true(ty.compiled_flagged > 25 * 8 * 4);
	assert_true(ty.values > ty.compiled * 40);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_conversion),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
