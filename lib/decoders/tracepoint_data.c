// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Tracing-data blob -> tep_handle, the way perf 6.1's trace_report() builds it
 * (Documentation/perf.data-raw-format.txt, Tracepoints), but from memory and with
 * every length checked against the blob: the blob comes from the file.
 *
 * Differences from perf, on purpose: libtraceevent plugins are not loaded (Debian's
 * perf looks only in $TRACEEVENT_PLUGIN_DIR and ~/.local, normally empty, so its
 * output is plugin-free too), and a format libtraceevent refuses is skipped with a
 * warning instead of dropping the whole tracing data.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "internal/probes.h"
#include "internal/stream.h"
#include "internal/tracepoint.h"

#define MAX_CRASHERS 32

struct cursor {
	const uint8_t *p;
	uint64_t size;
	uint64_t off;
	bool swap;
	const char *what; /* item being read, for the error message */
	/* libtraceevent calls made so far (header page, formats, printk) */
	int item;
	/* probe child: where to say which call comes next; -1 in the real parse */
	int probe_fd;
	/* calls that crashed libtraceevent in a probe child: not made again */
	int nr_skip;
	int skip[MAX_CRASHERS];
};

/*
 * Before each libtraceevent call on text from the file: false if a probe child
 * crashed on it. In a probe child, announce the call first.
 */
static bool tep_call_ok(struct cursor *c)
{
	int item = c->item++;

	for (int i = 0; i < c->nr_skip; i++)
		if (c->skip[i] == item)
			return false;
	if (c->probe_fd >= 0 && write(c->probe_fd, &item, sizeof(item)) != sizeof(item))
		_exit(1);
	return true;
}

static bool cur_bytes(struct cursor *c, uint64_t n, const uint8_t **out)
{
	if (n > c->size - c->off)
		return false;
	*out = c->p + c->off;
	c->off += n;
	return true;
}

static bool cur_u32(struct cursor *c, uint32_t *v)
{
	const uint8_t *p;

	if (!cur_bytes(c, 4, &p))
		return false;
	*v = rawfrag__get32(p, c->swap);
	return true;
}

static bool cur_u64(struct cursor *c, uint64_t *v)
{
	const uint8_t *p;

	if (!cur_bytes(c, 8, &p))
		return false;
	*v = rawfrag__get64(p, c->swap);
	return true;
}

/* A NUL-terminated string inside the blob (not copied). */
static bool cur_str(struct cursor *c, const char **s)
{
	const uint8_t *nul = memchr(c->p + c->off, 0, c->size - c->off);

	if (!nul)
		return false;
	*s = (const char *)c->p + c->off;
	c->off = nul - c->p + 1;
	return true;
}

/* libtraceevent wants writable, NUL-terminated text: copy it. */
static char *dup_text(const uint8_t *p, uint64_t n)
{
	char *s = malloc(n + 1);

	if (!s)
		return NULL;
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

/* The name declared by one "field:<decl>;" of a format: its last identifier. */
static bool decl_name(const char *decl, size_t n, const char **name, size_t *len)
{
	const char *e = decl + n;

	/* drop an array suffix: "char comm[16]" */
	for (const char *b = decl; b < e; b++)
		if (*b == '[') {
			e = b;
			break;
		}
	while (e > decl && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*name = e;
	while (*name > decl && (isalnum((unsigned char)(*name)[-1]) || (*name)[-1] == '_'))
		(*name)--;
	*len = (size_t)(e - *name);
	return *len > 0;
}

static bool has_field(const char *text, size_t n, const char *name, size_t len)
{
	const char *p = text, *end = text + n;

	while (p < end && (p = memmem(p, (size_t)(end - p), "field:", 6))) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *nm;
		size_t nl;

		if (!semi)
			return false;
		p += 6;
		if (decl_name(p, (size_t)(semi - p), &nm, &nl) && nl == len && !memcmp(nm, name, len))
			return true;
		p = semi;
	}
	return false;
}

/*
 * libtraceevent 1.7.1 dereferences NULL when a print fmt expression names a
 * field the format does not declare (fuzz find): refuse such formats up front.
 * Kernel formats only ever name their own fields.
 */
static bool print_fmt_fields_known(const char *text, size_t n)
{
	const char *fmt = memmem(text, n, "print fmt:", 10), *end = text + n;

	while (fmt && (fmt = memmem(fmt, (size_t)(end - fmt), "REC->", 5))) {
		const char *id = fmt + 5, *e = id;

		while (e < end && (isalnum((unsigned char)*e) || *e == '_'))
			e++;
		if (e == id || !has_field(text, n, id, (size_t)(e - id)))
			return false;
		fmt = e;
	}
	return true;
}

static bool opt_is_off(const char *v)
{
	return v && (!strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "off"));
}

static int parse_formats(struct rawfrag_tp_data *td, struct cursor *c, const char *sys,
			 const struct rawfrag_decoder_ctx *ctx)
{
	uint32_t count;
	uint64_t size;
	const uint8_t *text;

	c->what = "format count";
	if (!cur_u32(c, &count))
		return -EINVAL;
	for (uint32_t i = 0; i < count; i++) {
		struct tep_event *ev = NULL;
		enum tep_errno terr;
		char *buf;

		c->what = "format size";
		if (!cur_u64(c, &size))
			return -EINVAL;
		c->what = "format text";
		if (!cur_bytes(c, size, &text))
			return -EINVAL;
		buf = dup_text(text, size);
		if (!buf)
			return -ENOMEM;
		if (!tep_call_ok(c)) {
			free(buf);
			td->nr_bad_formats++;
			if (ctx)
				rawfrag_decoder_ctx__log(ctx, RAWFRAG_WARN,
							 "tracing data: a format of system %s at blob offset 0x%llx crashes libtraceevent's parser; its events are not decoded",
							 sys, (unsigned long long)(text - c->p));
			continue;
		}
		if (!print_fmt_fields_known(buf, size)) {
			free(buf);
			td->nr_bad_formats++;
			if (ctx)
				rawfrag_decoder_ctx__log(ctx, RAWFRAG_WARN,
							 "tracing data: a format of system %s at blob offset 0x%llx prints a field it does not declare; its events are not decoded",
							 sys, (unsigned long long)(text - c->p));
			continue;
		}
		terr = tep_parse_format(td->tep, &ev, buf, size, sys);
		free(buf);
		if (terr) {
			td->nr_bad_formats++;
			if (ctx)
				rawfrag_decoder_ctx__log(ctx, RAWFRAG_WARN,
							 "tracing data: a format of system %s at blob offset 0x%llx does not parse; its events are not decoded",
							 sys, (unsigned long long)(text - c->p));
			continue;
		}
		/* libtraceevent keeps a half-parsed event, printed as perf does */
		if (ev && (ev->flags & TEP_EVENT_FL_FAILED)) {
			td->nr_bad_formats++;
			if (ctx)
				rawfrag_decoder_ctx__log(ctx, RAWFRAG_WARN,
							 "tracing data: the format of %s:%s does not parse fully; its samples print as [FAILED TO PARSE], as in perf",
							 sys, ev->name ?: "?");
			continue;
		}
		td->nr_formats++;
	}
	return 0;
}

static int comm_cmp(const void *a, const void *b)
{
	const struct rawfrag_tp_comm *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* "pid comm" lines, read as perf's parse_saved_cmdline() reads them. */
static int parse_cmdlines(struct rawfrag_tp_data *td, const uint8_t *p, uint64_t n)
{
	char *text = dup_text(p, n), *line, *next = NULL;
	size_t cap = 0;
	int err = 0;

	if (!text)
		return -ENOMEM;
	for (line = strtok_r(text, "\n", &next); line; line = strtok_r(NULL, "\n", &next)) {
		struct rawfrag_tp_comm *cm;
		char comm[17];
		int pid;

		if (sscanf(line, "%d %16s", &pid, comm) != 2)
			continue;
		tep_register_comm(td->tep, comm, pid);
		if (td->nr_comms == cap) {
			size_t ncap = cap ? 2 * cap : 64;

			cm = realloc(td->comms, ncap * sizeof(*cm));
			if (!cm) {
				err = -ENOMEM;
				break;
			}
			td->comms = cm;
			cap = ncap;
		}
		cm = &td->comms[td->nr_comms++];
		cm->pid = (uint32_t)pid;
		snprintf(cm->comm, sizeof(cm->comm), "%s", comm);
	}
	free(text);
	/* stable order is not needed: duplicates are rare and any one is a valid answer */
	if (td->nr_comms)
		qsort(td->comms, td->nr_comms, sizeof(*td->comms), comm_cmp);
	return err;
}

/* "addr : "fmt"" lines, registered as perf's parse_ftrace_printk() does. */
static int parse_printk(struct rawfrag_tp_data *td, const uint8_t *p, uint64_t n)
{
	char *text = dup_text(p, n), *line, *next = NULL;

	if (!text)
		return -ENOMEM;
	for (line = strtok_r(text, "\n", &next); line; line = strtok_r(NULL, "\n", &next)) {
		char *fmt = NULL, *addr_str = strtok_r(line, ":", &fmt);
		unsigned long long addr;

		if (!addr_str || !fmt || !*fmt)
			break;
		addr = strtoull(addr_str, NULL, 16);
		/*
		 * The format still starts with the space after ':'. libtraceevent 1.7.1
		 * looks 3 bytes back from the end of a quoted format without checking
		 * its length: hand it only well-formed "..." strings.
		 */
		if (fmt[0] == ' ')
			fmt++;
		if (strlen(fmt) < 4 || fmt[0] != '"' || fmt[strlen(fmt) - 1] != '"')
			continue;
		tep_register_print_string(td->tep, fmt, addr);
	}
	free(text);
	return 0;
}

static int parse_header(struct rawfrag_tp_data *td, struct cursor *c)
{
	static const uint8_t magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	const uint8_t *p;
	const char *version;
	uint32_t page_size;
	uint64_t size;
	char *buf;

	c->what = "magic";
	if (!cur_bytes(c, sizeof(magic), &p) || memcmp(p, magic, sizeof(magic)))
		return -EINVAL;
	c->what = "version";
	if (!cur_str(c, &version))
		return -EINVAL;
	snprintf(td->version, sizeof(td->version), "%s", version);
	c->what = "byte order and long size";
	if (!cur_bytes(c, 2, &p))
		return -EINVAL;
	td->big_endian = p[0] != 0;
	td->swap = td->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	c->swap = td->swap;
	td->long_size = p[1];
	tep_set_flag(td->tep, TEP_NSEC_OUTPUT);
	tep_set_file_bigendian(td->tep, td->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(td->tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ?
						 TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	c->what = "page size";
	if (!cur_u32(c, &page_size) || !page_size)
		return -EINVAL;
	td->page_size = page_size;
	tep_set_long_size(td->tep, td->long_size);
	tep_set_page_size(td->tep, page_size);

	c->what = "header_page";
	if (!cur_bytes(c, 12, &p) || memcmp(p, "header_page", 12) || !cur_u64(c, &size) ||
	    !cur_bytes(c, size, &p))
		return -EINVAL;
	buf = dup_text(p, size);
	if (!buf)
		return -ENOMEM;
	/* the commit field is a kernel long: perf takes the long size from it */
	if (tep_call_ok(c) && !tep_parse_header_page(td->tep, buf, size, tep_get_long_size(td->tep))) {
		td->long_size = tep_get_header_page_size(td->tep);
		tep_set_long_size(td->tep, td->long_size);
	}
	free(buf);

	c->what = "header_event";
	if (!cur_bytes(c, 13, &p) || memcmp(p, "header_event", 13) || !cur_u64(c, &size) ||
	    !cur_bytes(c, size, &p))
		return -EINVAL;
	return 0;
}

static int parse_blob(struct rawfrag_tp_data *td, struct cursor *c,
		      const struct rawfrag_decoder_ctx *ctx)
{
	uint32_t nr_sys, size32;
	uint64_t size;
	const uint8_t *p;
	int err;

	err = parse_header(td, c);
	if (err)
		return err;
	err = parse_formats(td, c, "ftrace", ctx);
	if (err)
		return err;
	c->what = "system count";
	if (!cur_u32(c, &nr_sys))
		return -EINVAL;
	for (uint32_t i = 0; i < nr_sys; i++) {
		const char *sys;

		c->what = "system name";
		if (!cur_str(c, &sys))
			return -EINVAL;
		err = parse_formats(td, c, sys, ctx);
		if (err)
			return err;
	}
	/* kallsyms: perf skips it (and writes size 0) */
	c->what = "kallsyms";
	if (!cur_u32(c, &size32) || !cur_bytes(c, size32, &p))
		return -EINVAL;
	c->what = "printk formats";
	if (!cur_u32(c, &size32) || !cur_bytes(c, size32, &p))
		return -EINVAL;
	err = tep_call_ok(c) ? parse_printk(td, p, size32) : 0;
	if (err)
		return err;
	if (atof(td->version) < 0.6)
		return 0;
	c->what = "saved cmdlines";
	if (!cur_u64(c, &size) || !cur_bytes(c, size, &p))
		return -EINVAL;
	return parse_cmdlines(td, p, size);
}

/*
 * libtraceevent's parser trusts format text and crashes on some malformed ones
 * (NULL dereferences found by fuzzing, more than can be pre-checked). So the
 * blob is first parsed in a child process that announces each libtraceevent
 * call on a pipe; a call the child did not survive is skipped in the real parse
 * (and the probe repeated past it). Returns the number of calls to skip, with
 * c->skip filled in; 0 when fork is not possible (then nothing is skipped).
 */
static int probe_crashers(const void *blob, uint64_t size, struct cursor *c)
{
	while (c->nr_skip < MAX_CRASHERS) {
		int fds[2], item = -1, last = -1, status = 0;
		bool done = false;
		pid_t pid;

		if (pipe2(fds, O_CLOEXEC))
			return 0;
		pid = fork();
		if (pid < 0) {
			close(fds[0]);
			close(fds[1]);
			return 0;
		}
		if (!pid) {
			struct rawfrag_tp_data td = { .tep = tep_alloc() };
			struct cursor cc = { .p = blob, .size = size, .probe_fd = fds[1] };
			int devnull = open("/dev/null", O_WRONLY);

			/* the sanitizers' and libtraceevent's complaints are not ours */
			if (devnull >= 0)
				dup2(devnull, 2);
			close(fds[0]);
			cc.nr_skip = c->nr_skip;
			memcpy(cc.skip, c->skip, sizeof(cc.skip));
			if (td.tep)
				parse_blob(&td, &cc, NULL);
			item = -1;
			_exit(write(fds[1], &item, sizeof(item)) == sizeof(item) ? 0 : 1);
		}
		close(fds[1]);
		while (read(fds[0], &item, sizeof(item)) == sizeof(item)) {
			if (item < 0)
				done = true;
			else
				last = item;
		}
		close(fds[0]);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (done || last < 0)
			return c->nr_skip;
		c->skip[c->nr_skip++] = last;
	}
	return c->nr_skip;
}

/* probe_crashers() for rf_probes__get(): the calls to skip */
static void probe_skips(const void *blob, uint64_t size, int *skip, int max, int *nr)
{
	struct cursor c = { .p = blob, .size = size, .probe_fd = -1 };

	probe_crashers(blob, size, &c);
	*nr = c.nr_skip < max ? c.nr_skip : max;
	memcpy(skip, c.skip, (size_t)*nr * sizeof(*skip));
}

int rawfrag_tp_data__parse(struct rawfrag_tp_data *td, const void *blob, uint64_t size,
			   const struct rawfrag_decoder_ctx *ctx, struct rawfrag_err *err)
{
	struct cursor c = { .p = blob, .size = blob ? size : 0, .what = "magic", .probe_fd = -1 };
	int ret;

	memset(td, 0, sizeof(*td));
	td->tep = tep_alloc();
	if (!td->tep) {
		ret = -ENOMEM;
		goto out;
	}
	if (c.size && !opt_is_off(rawfrag_decoder_ctx__opt(ctx, "probe_formats"))) {
		/* report -j: one fork for all workers, while they wait (probes.c) */
		struct rf_probes *P = ctx ? rf_session__probes(ctx->session) : NULL;

		if (!P || rf_probes__get(P, blob, c.size, c.skip, MAX_CRASHERS, &c.nr_skip,
					 probe_skips))
			probe_crashers(blob, c.size, &c);
	}
	ret = parse_blob(td, &c, ctx);
out:
	if (ret && err) {
		err->err = ret;
		err->offset = (int64_t)c.off;
		err->rec_type = RAWFRAG_RECORD_HEADER_TRACING_DATA;
		if (ret == -ENOMEM)
			snprintf(err->reason, sizeof(err->reason), "out of memory");
		else
			snprintf(err->reason, sizeof(err->reason),
				 "tracing data: bad or truncated %s at blob offset 0x%llx (blob size %llu)",
				 c.what, (unsigned long long)c.off, (unsigned long long)c.size);
	}
	return ret;
}

void rawfrag_tp_data__fini(struct rawfrag_tp_data *td)
{
	if (!td)
		return;
	if (td->tep)
		tep_free(td->tep);
	free(td->comms);
	memset(td, 0, sizeof(*td));
}

int rawfrag_tp_data__load_kallsyms(struct rawfrag_tp_data *td, const char *path)
{
	size_t len = 0, cap = 1 << 20;
	char *buf = malloc(cap);
	int fd = -1, ret = 0;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	for (;;) {
		ssize_t n;

		if (cap - len < 65536) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				ret = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			ret = -errno;
			goto out;
		}
		if (!n)
			break;
		len += n;
	}
	buf[len] = '\0';
	if (tep_parse_kallsyms(td->tep, buf))
		ret = -EINVAL;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

const char *rawfrag_tp_data__comm(const struct rawfrag_tp_data *td, uint32_t pid)
{
	struct rawfrag_tp_comm key = { .pid = pid }, *cm;

	if (!td || !td->nr_comms)
		return NULL;
	cm = bsearch(&key, td->comms, td->nr_comms, sizeof(key), comm_cmp);
	return cm ? cm->comm : NULL;
}
