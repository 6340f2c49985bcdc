# Tally the TAP output of one test program (shell script or cmocka binary).
#   awk -v name=NAME -v rc=EXIT_STATUS -f tests/tap.awk OUTPUT
# Prints one line per finding, then the tally:
#   FAIL <name>: <what>     a failed check, or a harness-level failure
#   SKIP <name>: <what>     a skipped check with its reason
#   TALLY <passed> <failed> <skipped> <plan> <name>
# Rules, so that nothing can be counted that did not run and pass:
#  - a result is "ok N" / "not ok N" at the start of a line, N counting up from 1;
#    a result line with another number (stray output, a detail line of a failure that
#    escaped its "#" prefix) is a failure, not a pass;
#  - lines starting "ok" without a number ("ok udp ...") are not results;
#  - the plan "1..N" must appear exactly once and N results must follow it;
#    a missing plan, or fewer or more results than planned, is a failure;
#  - a program that exits non-zero fails even when every check passed.
function fail(what) { nfail++; print "FAIL " name ": " what }
BEGIN { plan = -1; next_n = 1; npass = nfail = nskip = 0 }
/^1\.\.[0-9]+([ \t]|$)/ {
	if (plan >= 0) { fail("a second plan line: " $0); next }
	plan = substr($1, 4) + 0
	next
}
/^Bail out!/ { fail("bailed out: " $0); next }
/^(not )?ok [0-9]+([ \t]|$)/ {
	neg = ($1 == "not")
	n = neg ? $3 + 0 : $2 + 0
	if (n != next_n) { fail("result out of sequence (expected " next_n "): " $0); next }
	next_n++
	desc = $0
	sub(/^(not )?ok [0-9]+[ \t]*(-[ \t]*)?/, "", desc)
	if (neg) { fail(desc); next }
	if (match(desc, /#[ \t]*[Ss][Kk][Ii][Pp]/)) {
		reason = substr(desc, RSTART + RLENGTH)
		sub(/^[ \t:]*/, "", reason)
		desc = substr(desc, 1, RSTART - 1)
		sub(/[ \t]+$/, "", desc)
		nskip++
		print "SKIP " name ": " desc " (" reason ")"
		next
	}
	npass++
}
END {
	ran = next_n - 1
	if (plan < 0)
		fail("no plan (1..N): a test must say how many checks it runs")
	else if (ran != plan)
		fail("planned " plan " checks, " ran " ran")
	if (rc != 0 && nfail == 0)
		fail("exited with status " rc)
	print "TALLY " npass " " nfail " " nskip " " (plan < 0 ? "-" : plan) " " name
}
