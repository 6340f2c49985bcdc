# make install / make uninstall, included by the top Makefile.
#
# Directories follow the GNU names so distributions can override each one:
#   make install prefix=/usr DESTDIR=/tmp/root
# What goes where:
#   $(bindir)/perf-rawfrag                  perf runs perf-<cmd> from PATH: `perf rawfrag`
#   $(libdir)/librawfrag.so.X.Y.Z, .so.X (the SONAME), .so; librawfrag.a
#   $(includedir)/rawfrag/*.h               the public headers
#   $(pkgconfigdir)/rawfrag.pc
#   $(mandir)/man1/perf-rawfrag*.1          `perf rawfrag --help` is `perf help rawfrag`,
#                                           which runs `man perf-rawfrag`
#   $(perfexecdir)/dlfilters/rawfrag-dlfilter.so
#                                           where perf script --dlfilter looks for a bare
#                                           name (perf --exec-path; /usr/lib/perf-core on
#                                           Debian, so prefix=/usr puts it there)
#   $(pythondir)/rawfrag.py                 the perf script -s hook (install-python), and
#   $(pythondir)/rawfrag.cpython-*.so, .pyi  the rawfrag module it imports, its stubs

prefix ?= /usr/local
exec_prefix ?= $(prefix)
bindir ?= $(exec_prefix)/bin
libdir ?= $(exec_prefix)/lib
includedir ?= $(prefix)/include
datarootdir ?= $(prefix)/share
mandir ?= $(datarootdir)/man
pkgconfigdir ?= $(libdir)/pkgconfig
perfexecdir ?= $(exec_prefix)/lib/perf-core
# the interpreter perf embeds is Debian's python3: /usr/lib/python3/dist-packages for
# prefix=/usr, /usr/local/lib/python3.X/dist-packages otherwise (both on its sys.path)
PYTHON ?= /usr/bin/python3
PYTHON_VERSION = $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])')
pythondir ?= $(if $(filter /usr,$(prefix)),$(prefix)/lib/python3/dist-packages,$(prefix)/lib/python$(PYTHON_VERSION)/dist-packages)

INSTALL ?= install
PUBLIC_HEADERS := $(sort $(wildcard lib/include/rawfrag/*.h))
MAN_PAGES = $(patsubst Documentation/%.txt,build/doc/%.1,$(sort $(wildcard Documentation/perf-rawfrag*.txt)))
PC_FILE := $(O)/lib/rawfrag.pc
# What install-python installs; the Python helper's C extension module adds its
# objects here (e.g. PYTHON_INSTALL_FILES += $(O)/python/<module>.so).
PYTHON_INSTALL_FILES ?= $(O)/plugins/python/rawfrag.py
D := $(DESTDIR)

$(PC_FILE): lib/rawfrag.pc.in lib/include/rawfrag/core.h scripts/install.mk
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)sed -e 's|@prefix@|$(prefix)|; s|@libdir@|$(libdir)|; s|@includedir@|$(includedir)|' \
		-e 's|@version@|$(LIB_VERSION)|' $< >$@

# the hook imports the rawfrag module, installed beside it (PYTHON_INSTALL_FILES)
$(O)/plugins/python/rawfrag.py: plugins/python/rawfrag.py scripts/install.mk
	$(Q)mkdir -p $(@D)
	$(Q)cp $< $@

.PHONY: install-js install-bin install-lib install-headers install-pc install-man install-plugins \
	install-python uninstall-python

install: install-bin install-lib install-headers install-pc install-man install-plugins \
	install-python install-js

# the flame graph page's d3-flame-graph and d3 (make deps put them in $(DEPS)/js), where
# the library looks for them once installed: $(datarootdir)/perf-rawfrag/js/node_modules/...
FLAME_JS := d3-flame-graph/dist/d3-flamegraph.css d3-flame-graph/dist/d3-flamegraph.min.js \
	d3/dist/d3.min.js d3-flame-graph/LICENSE d3/LICENSE
install-js:
	$(Q)for f in $(FLAME_JS); do \
		[ -f $(DEPS)/js/node_modules/$$f ] || { echo "install-js: $(DEPS)/js/node_modules/$$f missing (run make deps)" >&2; exit 1; }; \
		$(INSTALL) -D -m 644 $(DEPS)/js/node_modules/$$f $(D)$(datarootdir)/perf-rawfrag/js/node_modules/$$f || exit 1; \
	done

install-bin: $(TOOL)
	$(INSTALL) -D -m 755 $(TOOL) $(D)$(bindir)/perf-rawfrag

install-lib: $(LIB_SO) $(LIB_A)
	$(INSTALL) -d $(D)$(libdir)
	$(INSTALL) -m 755 $(LIB_SO_REAL) $(D)$(libdir)/
	ln -sf $(notdir $(LIB_SO_REAL)) $(D)$(libdir)/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(D)$(libdir)/librawfrag.so
	$(INSTALL) -m 644 $(LIB_A) $(D)$(libdir)/

install-headers:
	$(INSTALL) -d $(D)$(includedir)/rawfrag
	$(INSTALL) -m 644 $(PUBLIC_HEADERS) $(D)$(includedir)/rawfrag/

install-pc: $(PC_FILE)
	$(INSTALL) -D -m 644 $(PC_FILE) $(D)$(pkgconfigdir)/rawfrag.pc

install-man: $(TOOL)
	$(Q)$(MAKE) --no-print-directory -C Documentation DOC_O=$(abspath build/doc) \
		TOOL=$(abspath $(TOOL))
	$(INSTALL) -d $(D)$(mandir)/man1
	$(INSTALL) -m 644 $(MAN_PAGES) $(D)$(mandir)/man1/

install-plugins: $(DLFILTER)
	$(INSTALL) -D -m 755 $(DLFILTER) $(D)$(perfexecdir)/dlfilters/$(notdir $(DLFILTER))

install-python: $(PYTHON_INSTALL_FILES)
	$(INSTALL) -d $(D)$(pythondir)
	$(INSTALL) -m 644 $(PYTHON_INSTALL_FILES) $(D)$(pythondir)/

uninstall-python:
	rm -f $(addprefix $(D)$(pythondir)/,$(notdir $(PYTHON_INSTALL_FILES)))

uninstall: uninstall-python
	rm -rf $(D)$(datarootdir)/perf-rawfrag/js
	rmdir $(D)$(datarootdir)/perf-rawfrag 2>/dev/null || true
	rm -f $(D)$(bindir)/perf-rawfrag
	rm -f $(D)$(libdir)/librawfrag.so $(D)$(libdir)/librawfrag.so.[0-9]* $(D)$(libdir)/librawfrag.a
	rm -f $(addprefix $(D)$(includedir)/rawfrag/,$(notdir $(PUBLIC_HEADERS)))
	rmdir $(D)$(includedir)/rawfrag 2>/dev/null || true
	rm -f $(D)$(pkgconfigdir)/rawfrag.pc
	rm -f $(addprefix $(D)$(mandir)/man1/,$(notdir $(MAN_PAGES)))
	rm -f $(D)$(perfexecdir)/dlfilters/$(notdir $(DLFILTER))
