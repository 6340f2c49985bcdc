# perf-rawfrag top-level Makefile.
#   make            build lib/, tools/perf-rawfrag, plugins/, tests/ into $(O)
#   make deps       install/build what is missing (scripts/setup.sh)
#   make run        the main job: record tracepoints + loopback, then report
#   make test       the test suite (normal and ASan+UBSan builds)
#   make fuzz       build and run the libFuzzer harness (FUZZ_SECONDS=600)
#   make bench      benchmarks against perf (BENCH_PAGE=1: then refresh the tables of
#                   Documentation/perf-rawfrag-bench.txt; make bench-page: only that)
#   make mutate     mutation score of the test suite (tests/mutants.txt; not in CI)
#   make doc        man pages from Documentation/*.txt
#   make install    bin, library (.so/.a), headers, rawfrag.pc, man pages, plugins
#                   (prefix=/usr/local, DESTDIR=; see scripts/install.mk); make uninstall
# Options: V=1 verbose, O=dir out-of-tree build dir, SANITIZE=1 ASan+UBSan,
# SANITIZE=thread TSan (the command, for report -j's tests).

O ?= build/out
# one spelling of the build directory (tests pass it absolute): the dependency
# files name their objects by it, and a second spelling would never match them
override O := $(patsubst $(CURDIR)/%,%,$(abspath $(O)))
DEPS ?= build/deps
V ?= 0
SANITIZE ?= 0

ifeq ($(V),1)
Q :=
msg := @true
else
Q := @
msg = @printf '  %-8s %s\n' $(1) $(2);
endif

CC ?= gcc
CLANG ?= clang
BPFTOOL ?= bpftool
PKG_CONFIG_PATH := $(abspath $(DEPS))/libperf/lib64/pkgconfig
export PKG_CONFIG_PATH

PKGS := libtraceevent libbpf libzstd libelf libdw zlib libunwind-generic libprotobuf-c sqlite3 libcurl
# the command only (--skb --filter): not a dependency of librawfrag
PCAP_LIBS := $(shell pkg-config --libs libpcap 2>/dev/null || echo -lpcap)
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -liberty
LIBPERF_DIR := $(abspath $(DEPS))/libperf
LIBPERF_CFLAGS := -I$(LIBPERF_DIR)/include
LIBPERF_LIBS := $(LIBPERF_DIR)/lib64/libperf.a $(LIBPERF_DIR)/lib64/libapi.a

WARN := -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	-Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes -Werror=implicit-function-declaration
OPT := -O2 -g
ifeq ($(SANITIZE),1)
OPT := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDSAN := -fsanitize=address,undefined
endif
ifeq ($(SANITIZE),thread)
OPT := -O1 -g -fsanitize=thread -fno-omit-frame-pointer
LDSAN := -fsanitize=thread
endif
CFLAGS_COMMON := -std=gnu11 $(OPT) $(WARN) -D_GNU_SOURCE -MMD -MP \
	-Ilib/include -I$(O) $(PKG_CFLAGS)
LIB_CFLAGS := $(CFLAGS_COMMON) -fPIC -fvisibility=hidden -Ilib
LDFLAGS_COMMON := $(LDSAN)

LIB_SRCS := $(sort $(wildcard lib/*.c) $(wildcard lib/*/*.c))
LIB_OBJS := $(patsubst %.c,$(O)/%.o,$(LIB_SRCS))
# the pprof sink's messages: lib/output/profile.proto compiled by protoc-c into
# $(O)/gen at build time (generated files are never committed)
PROTOC_C ?= protoc-c
PROTO_H := $(O)/gen/profile.pb-c.h
PROTO_OBJ := $(O)/gen/profile.pb-c.o
LIB_OBJS += $(PROTO_OBJ)
LIB_A := $(O)/lib/librawfrag.a
# librawfrag.so.MAJOR.MINOR.0 is the real file, .so.MAJOR (the SONAME) and .so link to it
LIB_VERSION := $(shell sed -n 's/^\#define RAWFRAG_M[AI][JN]OR_VERSION \([0-9]*\)$$/\1/p' \
	lib/include/rawfrag/core.h | paste -sd.).0
LIB_SONAME := librawfrag.so.$(firstword $(subst ., ,$(LIB_VERSION)))
LIB_SO_REAL := $(O)/lib/librawfrag.so.$(LIB_VERSION)
LIB_SO := $(O)/lib/librawfrag.so
LIB_MAP := lib/librawfrag.map

# the command: shared files at the top, one room per subcommand family (record/,
# check/), each room's BPF programs in its bpf/; scripts/check-layers.sh says who
# may include whom. Room files name top-level headers plainly ("util.h") and other
# rooms' headers by room ("record/ring.h"): -I$(TOOL_DIR) resolves both.
TOOL_DIR := tools/perf-rawfrag
TOOL_ROOMS := record check report
TOOL_SRCS := $(sort $(wildcard $(TOOL_DIR)/*.c $(TOOL_ROOMS:%=$(TOOL_DIR)/%/*.c)))
TOOL_OBJS := $(patsubst %.c,$(O)/%.o,$(TOOL_SRCS))
TOOL := $(O)/perf-rawfrag

BPF_SRCS := $(sort $(wildcard $(TOOL_ROOMS:%=$(TOOL_DIR)/%/bpf/*.bpf.c)))
BPF_HDRS := $(wildcard $(TOOL_ROOMS:%=$(TOOL_DIR)/%/bpf/*.bpf.h))
BPF_OBJS := $(patsubst %.bpf.c,$(O)/%.bpf.o,$(BPF_SRCS))
BPF_SKELS := $(patsubst %.bpf.c,$(O)/%.skel.h,$(BPF_SRCS))
# BPF programs the tests attach themselves (e.g. an XDP program to coexist with)
TEST_BPF_SRCS := $(sort $(wildcard tests/bpf/*.bpf.c))
TEST_BPF_OBJS := $(patsubst %.bpf.c,$(O)/%.bpf.o,$(TEST_BPF_SRCS)) \
	$(patsubst %.bpf.c,$(O)/%.nobtf.o,$(TEST_BPF_SRCS))

DLFILTER := $(O)/plugins/rawfrag-dlfilter.so
PLUGIN_SRCS := $(sort $(wildcard plugins/dlfilter/*.c)) plugins/common/rfplugin.c

UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(patsubst tests/unit/%.c,$(O)/tests/%,$(UNIT_SRCS))
TEST_HELPER_SRCS := $(sort $(wildcard tests/gen/*.c))
TEST_HELPER_BINS := $(patsubst tests/gen/%.c,$(O)/tests/%,$(TEST_HELPER_SRCS))

TOOL_LIBS := $(LIB_A) $(LIBPERF_LIBS) $(PKG_LIBS) $(PCAP_LIBS) -lpthread -ldl
FUZZ_REPLAY := $(O)/tests/fuzz-replay

all: $(LIB_A) $(LIB_SO) $(TOOL) $(DLFILTER) $(UNIT_BINS) $(TEST_HELPER_BINS) $(TEST_BPF_OBJS)

.PHONY: all deps run test test-quick fuzz bench bench-page doc check-abi check-layers clean install \
	uninstall mutate

# A fresh checkout has no libperf (build/deps) and maybe no -dev packages: say so in
# one line instead of failing at link time. Goals that run the set-up first pass.
ifneq ($(filter-out deps run test mutate clean uninstall bench-page,$(or $(MAKECMDGOALS),all)),)
ifeq ($(wildcard $(LIBPERF_DIR)/lib64/libperf.a),)
$(error $(LIBPERF_DIR)/lib64/libperf.a missing: run 'make deps' first (installs packages, builds libperf))
endif
ifneq ($(shell pkg-config --exists $(PKGS) && echo ok),ok)
$(error pkg-config: $(PKGS) not all found: run 'make deps' first)
endif
endif

deps:
	$(Q)DEPS=$(DEPS) bash scripts/setup.sh

$(O)/%.o: %.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(if $(filter lib/%,$<),$(LIB_CFLAGS),$(CFLAGS_COMMON) $(LIBPERF_CFLAGS) \
		$(if $(filter $(TOOL_DIR)/%,$<),-I$(TOOL_DIR))) -c $< -o $@

# the flamegraph sink's page (lib/output/flamegraph.html) as a C string, and where
# it finds d3-flame-graph and d3: make deps installs them into $(DEPS)/js, make
# install copies them to $(datarootdir)/perf-rawfrag/js
FLAME_PAGE_H := $(O)/lib/output/flamegraph-page.h
$(FLAME_PAGE_H): lib/output/flamegraph.html
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)(echo 'static const char rf_flamegraph_page[] ='; \
	 sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $<; echo ';') >$@
$(O)/lib/output/sink_flamegraph.o: $(FLAME_PAGE_H)
$(O)/lib/output/sink_flamegraph.o: LIB_CFLAGS += -DRF_JS_BUILD_DIR='"$(abspath $(DEPS))/js"' \
	-DRF_JS_INSTALL_DIR='"$(datarootdir)/perf-rawfrag/js"'

$(PROTO_H): lib/output/profile.proto
	$(call msg,PROTOC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(PROTOC_C) --c_out=$(@D) --proto_path=$(<D) $<
$(PROTO_H:.h=.c): $(PROTO_H)
$(PROTO_OBJ): $(PROTO_H:.h=.c)
	$(call msg,CC,$@)
	$(Q)$(CC) $(LIB_CFLAGS) -c $< -o $@
$(O)/lib/output/pprof.o: $(PROTO_H)

$(LIB_A): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)mkdir -p $(@D)
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIB_SO_REAL): $(LIB_OBJS) $(LIB_MAP)
	$(call msg,LD,$@)
	$(Q)$(CC) -shared $(LDFLAGS_COMMON) -Wl,--version-script=$(LIB_MAP) \
		-Wl,-soname,$(LIB_SONAME) -o $@ $(LIB_OBJS) $(PKG_LIBS)

$(LIB_SO): $(LIB_SO_REAL)
	$(Q)ln -sf $(notdir $<) $(@D)/$(LIB_SONAME)
	$(Q)ln -sf $(LIB_SONAME) $@

# The exported symbols, the version script and the RAWFRAG_API declarations in the
# public headers must name the same functions.
check-abi: $(LIB_SO)
	$(Q)scripts/check-abi.sh $(LIB_SO_REAL) $(LIB_MAP) lib/include/rawfrag

# Who includes whom (scripts/check-layers.sh): the reader's layers
# (lib/include/internal/file.h), the command's rooms and the layers within them,
# plugins on the public headers only; no include cycle.
check-layers:
	$(Q)scripts/check-layers.sh .

# BPF objects and skeletons (tools/perf-rawfrag/<room>/bpf/*.bpf.c), each skeleton
# beside its object: $(O)/tools/perf-rawfrag/<room>/bpf/<name>.skel.h
$(O)/%.bpf.o: %.bpf.c $(BPF_HDRS)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -g -O2 -MMD -MP -target bpf -D__TARGET_ARCH_x86 -I/usr/include/$(shell gcc -dumpmachine) \
		-Ilib/include -c $< -o $@
# the same without BTF (no -g): programs that cannot be traced with fentry/fexit
$(O)/tests/bpf/%.nobtf.o: tests/bpf/%.bpf.c
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -O2 -MMD -MP -target bpf -D__TARGET_ARCH_x86 -I/usr/include/$(shell gcc -dumpmachine) \
		-c $< -o $@
$(O)/%.skel.h: $(O)/%.bpf.o
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

$(TOOL_OBJS): $(BPF_SKELS)

$(TOOL): $(TOOL_OBJS) $(LIB_A)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS_COMMON) -Wl,--export-dynamic-symbol=sigprocmask -o $@ $(TOOL_OBJS) \
		$(TOOL_LIBS)

# one object per source (each with the list of headers it includes)
DL_OBJS := $(patsubst %.c,$(O)/plugins/obj/%.o,$(PLUGIN_SRCS))
$(O)/plugins/obj/%.o: %.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS_COMMON) -fPIC -c $< -o $@
$(DLFILTER): $(DL_OBJS) $(LIB_OBJS)
	$(call msg,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -shared $(LDFLAGS_COMMON) -o $@ $(DL_OBJS) $(LIB_OBJS) $(PKG_LIBS)

# what several unit tests build their input from (tests/unit/fixture.h); -I$(TOOL_DIR)
# for those that compile a tool source in (test_record_events.c: record/events.c)
UNIT_FIXTURE := $(O)/tests/unit/fixture.o
$(O)/tests/%: tests/unit/%.c $(UNIT_FIXTURE) $(LIB_A)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS_COMMON) -Ilib -I$(TOOL_DIR) $(LDFLAGS_COMMON) -o $@ $< $(UNIT_FIXTURE) $(LIB_A) \
		$(PKG_LIBS) -lcmocka

$(O)/tests/%: tests/gen/%.c $(LIB_A)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS_COMMON) $(LIBPERF_CFLAGS) -Ilib $(LDFLAGS_COMMON) -o $@ $< $(LIB_A) $(LIBPERF_LIBS) $(PKG_LIBS)

# the translator against libpcap's interpreter: with the tool's objects, and the
# oracle apart (libpcap's struct bpf_insn and the kernel's share the name)
CBPF_TEST_OBJS := $(O)/$(TOOL_DIR)/record/cbpf-xlate.o $(O)/$(TOOL_DIR)/record/skb-filter.o \
	$(O)/tests/unit/pcap_oracle.o
$(O)/tests/test_cbpf_xlate: tests/unit/test_cbpf_xlate.c $(CBPF_TEST_OBJS) $(LIB_A)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS_COMMON) -I. -Ilib $(LDFLAGS_COMMON) -o $@ $< $(CBPF_TEST_OBJS) $(LIB_A) \
		$(PKG_LIBS) $(PCAP_LIBS) -lcmocka

# the fuzz harness with a replay main(), for the test suite (no libFuzzer needed);
# one object per source, so that each has its own list of the headers it includes
FUZZ_OBJ := $(O)/tests/fuzz
$(FUZZ_OBJ)/%.o: tests/fuzz/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS_COMMON) -Ilib -c $< -o $@
$(FUZZ_REPLAY): $(FUZZ_OBJ)/fuzz_rawfrag.o $(FUZZ_OBJ)/replay.o $(LIB_A)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS_COMMON) -o $@ $(FUZZ_OBJ)/fuzz_rawfrag.o $(FUZZ_OBJ)/replay.o $(LIB_A) $(PKG_LIBS)

# the same over the command's output modes (tests/fuzz/fuzz_tool.c): the tool's
# objects without its main()
FUZZ_TOOL_REPLAY := $(O)/tests/fuzz-tool-replay
$(FUZZ_TOOL_REPLAY): $(FUZZ_OBJ)/fuzz_tool.o $(FUZZ_OBJ)/replay.o $(filter-out %/perf-rawfrag.o,$(TOOL_OBJS)) $(LIB_A)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS_COMMON) -o $@ $(FUZZ_OBJ)/fuzz_tool.o $(FUZZ_OBJ)/replay.o \
		$(filter-out %/perf-rawfrag.o,$(TOOL_OBJS)) $(TOOL_LIBS)

run: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)bash scripts/run-main.sh $(O)

test: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(MAKE) --no-print-directory all O=build/asan SANITIZE=1
	$(Q)$(MAKE) --no-print-directory O=build/asan SANITIZE=1 build/asan/tests/fuzz-replay \
		build/asan/tests/fuzz-tool-replay
	$(Q)$(MAKE) --no-print-directory O=build/tsan SANITIZE=thread build/tsan/perf-rawfrag
	$(Q)$(MAKE) --no-print-directory check-abi check-layers
	$(Q)bash tests/run.sh

fuzz:
	$(Q)$(MAKE) --no-print-directory -f tests/fuzz/Makefile.fuzz PKGS="$(PKGS)"

# Mutation testing (not in CI): every mutant of tests/mutants.txt must be killed.
mutate: all
	$(Q)python3 scripts/mutate.py

# bench.sh writes each part's tables to $(BENCH_TABLES) as well; bench-page.sh
# splices them into the page between its marker lines
BENCH_TABLES = $(or $(BENCH_DIR),build/bench)/bench.txt
BENCH_DOC = Documentation/perf-rawfrag-bench.txt
bench: all
	$(Q)bash scripts/bench.sh $(O)
ifeq ($(BENCH_PAGE),1)
	$(Q)bash scripts/bench-page.sh $(BENCH_TABLES) $(BENCH_DOC)
endif

bench-page:
	$(Q)bash scripts/bench-page.sh $(BENCH_TABLES) $(BENCH_DOC)

doc:
	$(Q)$(MAKE) --no-print-directory -C Documentation

include scripts/install.mk

# ---- the Python module (plugins/python): $(O)/python/rawfrag<suffix>.so + stubs ----
# Debian's interpreter (perf script embeds it), not a python3 found first on PATH.
PYTHON ?= $(firstword $(wildcard /usr/bin/python3) python3)
PY_CFLAGS := $(shell $(PYTHON)-config --includes 2>/dev/null)
PY_SUFFIX := $(shell $(PYTHON)-config --extension-suffix 2>/dev/null)
PY_SRCS := $(sort $(wildcard plugins/python/*.c)) plugins/common/rfplugin.c
PY_OBJS := $(patsubst %.c,$(O)/python/obj/%.o,$(PY_SRCS))
PY_MOD := $(O)/python/rawfrag$(PY_SUFFIX)
PY_STUB := $(O)/python/rawfrag.pyi

ifeq ($(PY_SUFFIX),)
$(warning python3-config not found (make deps installs python3-dev): the rawfrag Python module is not built)
else
all: $(PY_MOD) $(PY_STUB)
endif

$(O)/python/obj/%.o: %.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS_COMMON) -fPIC -fvisibility=hidden -fno-strict-aliasing $(PY_CFLAGS) \
		-Iplugins/python -c $< -o $@

$(PY_MOD): $(PY_OBJS) $(LIB_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) -shared $(LDFLAGS_COMMON) -o $@ $(PY_OBJS) $(LIB_OBJS) $(PKG_LIBS)

$(PY_STUB): plugins/python/rawfrag.pyi
	$(Q)mkdir -p $(@D) && cp $< $@

# make install-python (scripts/install.mk) puts the module and its stubs beside the hook
ifneq ($(PY_SUFFIX),)
PYTHON_INSTALL_FILES += $(PY_MOD) $(PY_STUB)
install-python: $(PY_MOD) $(PY_STUB)
endif

-include $(PY_OBJS:.o=.d)
# ---- end of the Python module ----

clean:
	$(Q)rm -rf build/out build/asan build/fuzz build/doc

# Every object and every test program (unit tests, generators, the fuzz replays,
# BPF objects) depends on each source and header it includes, e.g. tests/gen/ring-wrap.c
# on tools/perf-rawfrag/record/ring.c, skbdump.bpf.c on rawfrag/skbdump.h: gcc and clang -MMD
# write those lists beside each output.
-include $(LIB_OBJS:.o=.d) $(TOOL_OBJS:.o=.d) $(UNIT_FIXTURE:.o=.d) $(O)/tests/unit/pcap_oracle.d \
	$(addsuffix .d,$(UNIT_BINS) $(TEST_HELPER_BINS)) $(wildcard $(FUZZ_OBJ)/*.d) $(DL_OBJS:.o=.d) \
	$(BPF_OBJS:.o=.d) $(TEST_BPF_OBJS:.o=.d)
