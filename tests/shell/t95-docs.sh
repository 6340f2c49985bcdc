#!/usr/bin/env bash
# make doc: every command and option documented, every page builds into a man page.
source "$(dirname "$0")/lib.sh"
# one check for make doc, one per page
t_plan $((1 + $(ls "$TOP"/Documentation/perf-rawfrag*.txt | wc -l)))
if ! command -v asciidoc >/dev/null || ! command -v xmlto >/dev/null; then
	t_skip_rest "man pages build: asciidoc/xmlto not installed"
fi
make -s -C "$TOP/Documentation" DOC_O="$T/doc" TOOL="$O/perf-rawfrag" >doc.out 2>doc.err
rc=$?
t_eq "make doc succeeds (check-docs: no undocumented command or option)" 0 "$rc"
[ $rc -eq 0 ] || sed 's/^/#   /' doc.err | head -n 20
for txt in "$TOP"/Documentation/perf-rawfrag*.txt; do
	page=$T/doc/$(basename "${txt%.txt}").1
	if [ -s "$page" ]; then t_ok "man page $(basename "$page") built"; else t_fail "man page $(basename "$page") built" "missing $page"; fi
done
