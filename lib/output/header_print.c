// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * report --header / --header-only: the file's header as perf report and perf
 * script print it (perf_header__fprintf_info() in perf's util/header.c): the
 * file header's numbers, then one block per feature in feature order, then the
 * features missing. Features that perf prints only with -I say so as perf does.
 * A pipe has no file header: its features are printed as their HEADER_FEATURE
 * records arrive, as perf does.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <linux/perf_event.h>

#include <rawfrag/emit.h>
#include <rawfrag/file.h>

#include "internal/header_print.h"

static const char *const feat_names[RAWFRAG_FEAT_LAST] = {
	"RESERVED", "TRACING_DATA", "BUILD_ID", "HOSTNAME", "OSRELEASE", "VERSION", "ARCH",
	"NRCPUS", "CPUDESC", "CPUID", "TOTAL_MEM", "CMDLINE", "EVENT_DESC", "CPU_TOPOLOGY",
	"NUMA_TOPOLOGY", "BRANCH_STACK", "PMU_MAPPINGS", "GROUP_DESC", "AUXTRACE", "STAT",
	"CACHE", "SAMPLE_TIME", "MEM_TOPOLOGY", "CLOCKID", "DIR_FORMAT", "BPF_PROG_INFO",
	"BPF_BTF", "COMPRESSED", "CPU_PMU_CAPS", "CLOCK_DATA", "HYBRID_TOPOLOGY", "PMU_CAPS",
};

struct bit_name {
	uint64_t bit;
	const char *name;
};

#define SB(n) { PERF_SAMPLE_##n, #n }
static const struct bit_name sample_bits[] = {
	SB(IP), SB(TID), SB(TIME), SB(ADDR), SB(READ), SB(CALLCHAIN), SB(ID), SB(CPU),
	SB(PERIOD), SB(STREAM_ID), SB(RAW), SB(BRANCH_STACK), SB(REGS_USER), SB(STACK_USER),
	SB(IDENTIFIER), SB(REGS_INTR), SB(DATA_SRC), SB(WEIGHT), SB(PHYS_ADDR), SB(AUX),
	SB(CGROUP), SB(DATA_PAGE_SIZE), SB(CODE_PAGE_SIZE), SB(WEIGHT_STRUCT), { 0, NULL },
};
#define BB(n) { PERF_SAMPLE_BRANCH_##n, #n }
static const struct bit_name branch_bits[] = {
	BB(USER), BB(KERNEL), BB(HV), BB(ANY), BB(ANY_CALL), BB(ANY_RETURN), BB(IND_CALL),
	BB(ABORT_TX), BB(IN_TX), BB(NO_TX), BB(COND), BB(CALL_STACK), BB(IND_JUMP), BB(CALL),
	BB(NO_FLAGS), BB(NO_CYCLES), BB(TYPE_SAVE), BB(HW_INDEX), BB(PRIV_SAVE), { 0, NULL },
};
#define RB(n) { PERF_FORMAT_##n, #n }
static const struct bit_name read_bits[] = {
	RB(TOTAL_TIME_ENABLED), RB(TOTAL_TIME_RUNNING), RB(ID), RB(GROUP), { 1ULL << 4, "LOST" },
	{ 0, NULL },
};

static void put_bits(struct rawfrag_out *o, const char *name, uint64_t v,
		     const struct bit_name *bits)
{
	bool first = true;

	if (!v)
		return;
	rawfrag_out__printf(o, ", %s = ", name);
	for (int i = 0; bits[i].name; i++) {
		if (v & bits[i].bit) {
			rawfrag_out__printf(o, "%s%s", first ? "" : "|", bits[i].name);
			first = false;
		}
	}
}

#define U(n, f)                                                                        \
	do {                                                                           \
		if (a->f)                                                              \
			rawfrag_out__printf(o, ", %s = %" PRIu64, n, (uint64_t)a->f); \
	} while (0)
#define X(n, f)                                                                        \
	do {                                                                           \
		if (a->f)                                                              \
			rawfrag_out__printf(o, ", %s = %#" PRIx64, n, (uint64_t)a->f); \
	} while (0)

/* perf_event_attr__fprintf(): the non-zero members in perf's order */
static void put_attr_flags(struct rawfrag_out *o, const struct perf_event_attr *a)
{
	U("disabled", disabled); U("inherit", inherit); U("pinned", pinned);
	U("exclusive", exclusive); U("exclude_user", exclude_user);
	U("exclude_kernel", exclude_kernel); U("exclude_hv", exclude_hv);
	U("exclude_idle", exclude_idle); U("mmap", mmap); U("comm", comm); U("freq", freq);
	U("inherit_stat", inherit_stat); U("enable_on_exec", enable_on_exec); U("task", task);
	U("watermark", watermark); U("precise_ip", precise_ip); U("mmap_data", mmap_data);
	U("sample_id_all", sample_id_all); U("exclude_host", exclude_host);
	U("exclude_guest", exclude_guest);
	U("exclude_callchain_kernel", exclude_callchain_kernel);
	U("exclude_callchain_user", exclude_callchain_user); U("mmap2", mmap2);
	U("comm_exec", comm_exec); U("use_clockid", use_clockid);
	U("context_switch", context_switch); U("write_backward", write_backward);
	U("namespaces", namespaces); U("ksymbol", ksymbol); U("bpf_event", bpf_event);
	U("aux_output", aux_output); U("cgroup", cgroup); U("text_poke", text_poke);
	U("build_id", build_id); U("inherit_thread", inherit_thread);
	U("remove_on_exec", remove_on_exec); U("sigtrap", sigtrap);
}

static void put_attr(struct rawfrag_out *o, const struct perf_event_attr *a)
{
	U("type", type);
	U("size", size);
	X("config", config);
	U("{ sample_period, sample_freq }", sample_period);
	put_bits(o, "sample_type", a->sample_type, sample_bits);
	put_bits(o, "read_format", a->read_format, read_bits);
	put_attr_flags(o, a);
	U("{ wakeup_events, wakeup_watermark }", wakeup_events);
	U("bp_type", bp_type);
	X("{ bp_addr, config1 }", bp_addr);
	X("{ bp_len, config2 }", bp_len);
	put_bits(o, "branch_sample_type", a->branch_sample_type, branch_bits);
	X("sample_regs_user", sample_regs_user);
	U("sample_stack_user", sample_stack_user);
	if (a->clockid)
		rawfrag_out__printf(o, ", clockid = %" PRId64, (int64_t)a->clockid);
	X("sample_regs_intr", sample_regs_intr);
	U("aux_watermark", aux_watermark);
	U("sample_max_stack", sample_max_stack);
	U("aux_sample_size", aux_sample_size);
	U("sig_data", sig_data);
}

static void put_events(struct rawfrag_out *o, struct rawfrag_file *f)
{
	for (int i = 0; i < rawfrag_file__nr_evsels(f); i++) {
		struct rawfrag_evsel *e = rawfrag_file__evsel(f, i);
		const char *name = rawfrag_evsel__name(e);
		int n = rawfrag_evsel__nr_ids(e);
		const uint64_t *ids = rawfrag_evsel__ids(e);

		rawfrag_out__printf(o, "# event : name = %s, ", name ? name : "");
		if (n > 0) {
			rawfrag_out__puts(o, ", id = {");
			for (int j = 0; j < n; j++)
				rawfrag_out__printf(o, "%s %" PRIu64, j ? "," : "", ids[j]);
			rawfrag_out__puts(o, " }");
		}
		put_attr(o, rawfrag_evsel__attr(e));
		rawfrag_out__putc(o, '\n');
	}
}

/* cmdline: perf escapes each single quote as \' */
static void put_cmdline(struct rawfrag_out *o, const struct rawfrag_env *env)
{
	rawfrag_out__puts(o, "# cmdline : ");
	for (int i = 0; i < env->nr_cmdline; i++) {
		for (const char *p = env->cmdline[i]; p && *p; p++) {
			if (*p == '\'')
				rawfrag_out__puts(o, "\\'");
			else
				rawfrag_out__putc(o, *p);
		}
		rawfrag_out__putc(o, ' ');
	}
	rawfrag_out__putc(o, '\n');
}

static void put_pmu_mappings(struct rawfrag_out *o, const struct rawfrag_env *env)
{
	if (!env->nr_pmu_mappings) {
		rawfrag_out__puts(o, "# pmu mappings: not available\n");
		return;
	}
	for (int i = 0; i < env->nr_pmu_mappings; i++)
		rawfrag_out__printf(o, "%s%s = %" PRIu32, i ? ", " : "# pmu mappings: ",
				    env->pmu_mappings[i].name ? env->pmu_mappings[i].name : "",
				    env->pmu_mappings[i].type);
	rawfrag_out__putc(o, '\n');
}

/* CPU_PMU_CAPS (cpu_only, pmu "") or PMU_CAPS (one line per named PMU) */
static void put_caps(struct rawfrag_out *o, const struct rawfrag_env *env, bool cpu_only)
{
	const char *last = NULL;
	int n = 0;

	for (int i = 0; i < env->nr_pmu_caps; i++) {
		const struct rawfrag_pmu_cap *c = &env->pmu_caps[i];
		bool cpu = !c->pmu || !c->pmu[0];

		if (cpu != cpu_only)
			continue;
		if (!last || strcmp(last, c->pmu ? c->pmu : "")) {
			if (last)
				rawfrag_out__putc(o, '\n');
			last = c->pmu ? c->pmu : "";
			rawfrag_out__printf(o, "# %s pmu capabilities: ", cpu ? "cpu" : last);
		} else {
			rawfrag_out__puts(o, ", ");
		}
		rawfrag_out__printf(o, "%s=%s", c->name ? c->name : "", c->value ? c->value : "");
		n++;
	}
	if (n)
		rawfrag_out__putc(o, '\n');
	else if (cpu_only)
		rawfrag_out__puts(o, "# cpu pmu capabilities: not available\n");
}

static const char *clockid_name(uint32_t id)
{
	switch (id) {
	case 1: return "monotonic";
	case 4: return "monotonic_raw";
	case 0: return "realtime";
	case 7: return "boottime";
	case 11: return "tai";
	default: return "(not found)";
	}
}

static void put_clock_data(struct rawfrag_out *o, const struct rawfrag_env *env)
{
	uint64_t tod = env->clock_tod_ns, cid = env->clock_clockid_ns;
	time_t sec = (time_t)(tod / 1000000000ULL);
	struct tm tm;
	char date[64];

	if (!env->has_clock_data) {
		rawfrag_out__puts(o, "# reference time disabled\n");
		return;
	}
	if (localtime_r(&sec, &tm))
		strftime(date, sizeof(date), "%F %T", &tm);
	else
		snprintf(date, sizeof(date), "<error>");
	rawfrag_out__printf(o, "# clockid: %s (%u)\n", clockid_name(env->clockid), env->clockid);
	rawfrag_out__printf(o, "# reference time: %s.%06u = %ld.%06u (TOD) = %ld.%09ld (%s)\n", date,
			    (unsigned int)(tod % 1000000000ULL / 1000), (long)sec,
			    (unsigned int)(tod % 1000000000ULL / 1000),
			    (long)(cid / 1000000000ULL), (long)(cid % 1000000000ULL),
			    clockid_name(env->clockid));
}

static void put_sample_time(struct rawfrag_out *o, const struct rawfrag_env *env)
{
	uint64_t a = env->first_sample_time, b = env->last_sample_time;

	rawfrag_out__printf(o, "# time of first sample : %" PRIu64 ".%06" PRIu64 "\n",
			    a / 1000000000, a % 1000000000 / 1000);
	rawfrag_out__printf(o, "# time of last sample : %" PRIu64 ".%06" PRIu64 "\n",
			    b / 1000000000, b % 1000000000 / 1000);
	rawfrag_out__printf(o, "# sample duration : %10.3f ms\n", (double)(b - a) / 1e6);
}

/* perf prints only groups of two or more; members are named by position */
static void put_groups(struct rawfrag_out *o, struct rawfrag_file *f)
{
	const struct rawfrag_env *env = rawfrag_file__env(f);
	int nr_evsels = rawfrag_file__nr_evsels(f);

	for (int g = 0; g < env->nr_groups; g++) {
		const struct rawfrag_group_desc *gd = &env->groups[g];
		const char *name = gd->name ? gd->name : "";

		/* a group names existing events: a hostile count prints nothing */
		if (gd->nr_members < 2 || gd->nr_members > (uint32_t)nr_evsels)
			continue;
		if (!strcmp(name, "{anon_group}"))
			name = "";
		rawfrag_out__printf(o, "# group: %s{", name);
		for (uint32_t m = 0; m < gd->nr_members; m++) {
			struct rawfrag_evsel *e =
				rawfrag_file__evsel(f, (int)(gd->leader_idx + m));
			const char *en = e ? rawfrag_evsel__name(e) : NULL;

			rawfrag_out__printf(o, "%s%s", m ? "," : "", en ? en : "?");
		}
		rawfrag_out__puts(o, "}\n");
	}
}

/* the features that are one string of the env: "# <label> : <value>" */
static bool put_env_string(struct rawfrag_out *o, const struct rawfrag_env *env, int feat)
{
	const char *label, *v;

	switch (feat) {
	case RAWFRAG_FEAT_HOSTNAME: label = "hostname"; v = env->hostname; break;
	case RAWFRAG_FEAT_OSRELEASE: label = "os release"; v = env->osrelease; break;
	case RAWFRAG_FEAT_VERSION: label = "perf version"; v = env->version; break;
	case RAWFRAG_FEAT_ARCH: label = "arch"; v = env->arch; break;
	case RAWFRAG_FEAT_CPUDESC: label = "cpudesc"; v = env->cpudesc; break;
	case RAWFRAG_FEAT_CPUID: label = "cpuid"; v = env->cpuid; break;
	default: return false;
	}
	rawfrag_out__printf(o, "# %s : %s\n", label, v ? v : "");
	return true;
}

/* the features whose presence is the whole message */
static bool put_presence(struct rawfrag_out *o, int feat)
{
	switch (feat) {
	case RAWFRAG_FEAT_CPU_TOPOLOGY:
	case RAWFRAG_FEAT_NUMA_TOPOLOGY:
	case RAWFRAG_FEAT_CACHE:
	case RAWFRAG_FEAT_MEM_TOPOLOGY:
	case RAWFRAG_FEAT_HYBRID_TOPOLOGY:
		rawfrag_out__printf(o, "# %s info available, use -I to display\n", feat_names[feat]);
		return true;
	case RAWFRAG_FEAT_BRANCH_STACK:
		rawfrag_out__puts(o, "# contains samples with branch stack\n");
		return true;
	case RAWFRAG_FEAT_AUXTRACE:
		rawfrag_out__puts(o, "# contains AUX area data (e.g. instruction trace)\n");
		return true;
	case RAWFRAG_FEAT_STAT:
		rawfrag_out__puts(o, "# contains stat data\n");
		return true;
	default:
		return false;
	}
}

void rh_feature(struct rawfrag_out *o, struct rawfrag_file *f, int feat)
{
	const struct rawfrag_env *env = rawfrag_file__env(f);
	uint64_t size;
	const uint8_t *p;

	if (put_env_string(o, env, feat) || put_presence(o, feat))
		return;
	switch (feat) {
	case RAWFRAG_FEAT_NRCPUS:
		rawfrag_out__printf(o, "# nrcpus online : %u\n# nrcpus avail : %u\n",
				    env->nr_cpus_online, env->nr_cpus_avail);
		break;
	case RAWFRAG_FEAT_TOTAL_MEM:
		rawfrag_out__printf(o, "# total memory : %" PRIu64 " kB\n", env->total_mem);
		break;
	case RAWFRAG_FEAT_CMDLINE:
		put_cmdline(o, env);
		break;
	case RAWFRAG_FEAT_EVENT_DESC:
		put_events(o, f);
		break;
	case RAWFRAG_FEAT_PMU_MAPPINGS:
		put_pmu_mappings(o, env);
		break;
	case RAWFRAG_FEAT_GROUP_DESC:
		put_groups(o, f);
		break;
	case RAWFRAG_FEAT_SAMPLE_TIME:
		put_sample_time(o, env);
		break;
	case RAWFRAG_FEAT_CLOCKID:
		/* perf's arithmetic, kept: the resolution in ns times 1000 */
		rawfrag_out__printf(o, "# clockid frequency: %" PRIu64 " MHz\n",
				    env->clockid_res_ns * 1000);
		break;
	case RAWFRAG_FEAT_DIR_FORMAT:
		p = rawfrag_file__feature(f, feat, &size);
		if (p && size >= 8)
			rawfrag_out__printf(o, "# directory data version : %" PRIu64 "\n",
					    rawfrag__get64(p, rawfrag_file__needs_swap(f)));
		break;
	case RAWFRAG_FEAT_COMPRESSED:
		rawfrag_out__printf(o, "# compressed : %s, level = %d, ratio = %d\n",
				    env->comp_type == 1 ? "Zstd" : "Unknown", (int)env->comp_level,
				    (int)env->comp_ratio);
		break;
	case RAWFRAG_FEAT_CPU_PMU_CAPS:
		put_caps(o, env, true);
		break;
	case RAWFRAG_FEAT_PMU_CAPS:
		put_caps(o, env, false);
		break;
	case RAWFRAG_FEAT_CLOCK_DATA:
		put_clock_data(o, env);
		break;
	default:
		/* TRACING_DATA, BUILD_ID: nothing; BPF_PROG_INFO, BPF_BTF: not printed */
		break;
	}
}

/* "# captured on" is the input's modification time, as perf's fstat() of it */
void rh_top(struct rawfrag_out *o, struct rawfrag_file *f, const char *path)
{
	bool pipe = rawfrag_file__mode(f) == RAWFRAG_MODE_PIPE;
	uint64_t off = pipe ? 0 : rawfrag_file__data_offset(f);
	uint64_t size = pipe ? 0 : rawfrag_file__data_size(f);
	struct stat st;
	char when[64] = "?\n";

	if (!(strcmp(path, "-") ? stat(path, &st) : fstat(0, &st))) {
		time_t t = st.st_mtime;

		ctime_r(&t, when);
	}
	rawfrag_out__puts(o, "# ========\n");
	rawfrag_out__printf(o, "# captured on    : %s", when);
	rawfrag_out__printf(o, "# header version : 1\n# data offset    : %" PRIu64
			       "\n# data size      : %" PRIu64 "\n# feat offset    : %" PRIu64 "\n",
			    off, size, pipe ? 0 : off + size);
	if (pipe) {
		rawfrag_out__puts(o, "# ========\n#\n");
		return;
	}
	for (int feat = 1; feat < RAWFRAG_FEAT_LAST; feat++)
		if (rawfrag_file__has_feature(f, feat))
			rh_feature(o, f, feat);
	rawfrag_out__puts(o, "# missing features: ");
	for (int feat = 1; feat < RAWFRAG_FEAT_LAST; feat++)
		if (!rawfrag_file__has_feature(f, feat))
			rawfrag_out__printf(o, "%s ", feat_names[feat]);
	rawfrag_out__puts(o, "\n# ========\n#\n");
}
