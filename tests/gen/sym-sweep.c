// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * sym-sweep OUT BYTES ELF...: a perf.data with one user sample at every
 * address of the first BYTES bytes of each ELF's executable PT_LOADs, each
 * ELF mapped by an MMAP2 as the loader maps it. perf script and report then
 * symbolize the same addresses, every one of them: where symbols overlap
 * (_init stretched over the .plt stubs) the answer depends on how perf looks
 * them up, and a sampled recording meets those addresses only by chance.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <rawfrag/writer.h>

#define PID 4711

static void die(const char *what, const char *why)
{
	fprintf(stderr, "sym-sweep: %s: %s\n", what, why);
	exit(1);
}

static uint64_t nr_samples, t_ns = 1000000;

static void sweep(struct rawfrag_writer *w, const char *path, uint64_t base, uint64_t bytes)
{
	struct rawfrag_sample id = { .pid = PID, .tid = PID };
	GElf_Ehdr eh;
	size_t nph;
	Elf *e;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		die(path, "cannot open");
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || !gelf_getehdr(e, &eh) || elf_getphdrnum(e, &nph))
		die(path, "not an ELF file");
	if (eh.e_type != ET_DYN)
		base = 0;
	for (size_t i = 0; i < nph; i++) {
		uint64_t start, len, n;
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		start = base + (ph.p_vaddr & ~0xfffULL);
		len = ((ph.p_vaddr & 0xfff) + ph.p_memsz + 0xfff) & ~0xfffULL;
		id.time = t_ns++;
		if (rawfrag_writer__write_mmap2(w, PERF_RECORD_MISC_USER, PID, PID, start, len,
						ph.p_offset & ~0xfffULL, PROT_READ | PROT_EXEC,
						MAP_PRIVATE, path, &id))
			die(path, rawfrag_writer__error(w)->reason);
		n = ph.p_filesz < bytes ? ph.p_filesz : bytes;
		for (uint64_t a = 0; a < n; a++) {
			struct rawfrag_sample s = { .ip = base + ph.p_vaddr + a, .pid = PID,
						    .tid = PID, .time = t_ns++, .period = 1 };

			if (rawfrag_writer__write_sample(w, 0, &s, PERF_RECORD_MISC_USER))
				die(path, rawfrag_writer__error(w)->reason);
			nr_samples++;
		}
	}
	elf_end(e);
	close(fd);
}

int main(int argc, char **argv)
{
	RAWFRAG_OPTS(rawfrag_writer_opts, wo);
	struct rawfrag_sample id = { .pid = PID, .tid = PID };
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_PERIOD,
		.sample_id_all = 1,
		.disabled = 1,
	};
	uint64_t ids[1] = { 1 };
	struct rawfrag_writer *w;
	struct rawfrag_err err;
	uint64_t bytes;

	if (argc < 4) {
		fprintf(stderr, "usage: sym-sweep OUT BYTES ELF...\n");
		return 2;
	}
	bytes = strtoull(argv[2], NULL, 0);
	elf_version(EV_CURRENT);
	w = rawfrag_writer__new(argv[1], &wo, &err);
	if (!w)
		die(argv[1], err.reason);
	if (rawfrag_writer__add_evsel(w, &a, "cpu-clock", ids, 1) < 0 ||
	    rawfrag_writer__set_host_features(w) ||
	    rawfrag_writer__set_cmdline(w, argc, (const char *const *)argv) ||
	    rawfrag_writer__start(w) ||
	    rawfrag_writer__write_comm(w, PID, PID, "sweep", true, &id))
		die(argv[1], rawfrag_writer__error(w)->reason);
	for (int i = 3; i < argc; i++)
		sweep(w, argv[i], 0x7f0000000000ULL + (uint64_t)(i - 3) * 0x10000000ULL, bytes);
	if (rawfrag_writer__finish(w))
		die(argv[1], rawfrag_writer__error(w)->reason);
	rawfrag_writer__delete(w);
	fprintf(stderr, "sym-sweep: %llu samples\n", (unsigned long long)nr_samples);
	return 0;
}
