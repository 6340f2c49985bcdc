#!/usr/bin/env python3
"""make mutate: apply each mutant of tests/mutants.txt to a copy of the tree, build it,
run the tests its "tests:" line names, and count the mutant killed when they fail.
First the same tests run on the copy as it is (the baseline): a mutant whose tests
already fail there proves nothing and is reported UNJUDGED, not killed.
Prints one line per mutant (a killed one with the first check that failed) and the
mutation score; exits 1 when a mutant survives, is unjudged or no longer applies.
Not part of `make test` (it builds the tree once per mutant).

  scripts/mutate.py [--whole] [ID...]   only these mutants; --whole (or
                                MUTATE_WHOLE=1, e.g. make mutate MUTATE_WHOLE=1):
                                each against the whole suite, not its "tests:"
  RAWFRAG_TEST_LOCK=FILE        run each mutant's tests under flock FILE
The copy is built as make test builds what the suite runs (all, and the fuzz
replay programs t90 needs), without the ASan build: tests/run.sh then runs the
normal one.
"""
import os, shutil, subprocess, sys, tempfile, time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse(path):
    muts, cur = [], {}
    for line in open(path):
        line = line.rstrip('\n')
        if line.startswith('#'):
            continue
        if not line.strip():
            if cur:
                muts.append(cur)
            cur = {}
            continue
        key, _, val = line.partition(': ')
        cur[key] = val.replace('\\n', '\n').replace('\\t', '\t')
    if cur:
        muts.append(cur)
    for m in muts:
        missing = {'id', 'what', 'file', 'old', 'new', 'tests'} - m.keys()
        if missing:
            sys.exit('mutate: %s: mutant %s lacks %s' % (path, m.get('id', '?'), ', '.join(sorted(missing))))
    return muts


def copy_tree(dst):
    """The tracked and untracked (not ignored) files as they are now, plus the deps."""
    files = subprocess.run(['git', 'ls-files', '-co', '--exclude-standard', '-z'], cwd=TOP,
                           check=True, capture_output=True).stdout.decode().split('\0')
    for f in filter(None, files):
        src = os.path.join(TOP, f)
        if not os.path.isfile(src):
            continue
        os.makedirs(os.path.dirname(os.path.join(dst, f)), exist_ok=True)
        shutil.copy2(src, os.path.join(dst, f))
    os.makedirs(os.path.join(dst, 'build'), exist_ok=True)
    os.symlink(os.path.join(TOP, 'build', 'deps'), os.path.join(dst, 'build', 'deps'))


def build(tree, env):
    b = subprocess.run(['make', '-s', '-j2', 'all', 'build/out/tests/fuzz-replay',
                        'build/out/tests/fuzz-tool-replay'], cwd=tree,
                       env=env, capture_output=True, text=True)
    return b.returncode, b.stderr.strip().splitlines()[-1:]


def run_tests(tree, env, patterns):
    """tests/run.sh PATTERN...: (exit status, last line, the FAILED: lines)"""
    cmd = ['bash', 'tests/run.sh'] + patterns
    # shell tests share the kernel with other runs (BPF, tracefs): they queue on a
    # lock; unit tests (test_*) do not need it
    shell = not patterns or any(not p.startswith('test_') for p in patterns)
    if os.environ.get('RAWFRAG_TEST_LOCK') and shell:
        cmd = ['flock', os.environ['RAWFRAG_TEST_LOCK']] + cmd
    r = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    lines = r.stdout.strip().splitlines()
    return (r.returncode, lines[-1] if lines else '', [l for l in lines if l.startswith('FAILED: ')],
            [l for l in lines if l.startswith('SKIPPED: ')])


def failing_tests(failed):
    """the test names of tests/run.sh's FAILED: lines ("FAILED: shell t20-check.sh: ...")"""
    names = set()
    for l in failed:
        parts = l[len('FAILED: '):].split(': ')
        names.add(parts[0])
    return names


def main():
    muts = parse(os.path.join(TOP, 'tests', 'mutants.txt'))
    args = sys.argv[1:]
    whole = os.environ.get('MUTATE_WHOLE', '0') not in ('', '0') or '--whole' in args
    args = [a for a in args if a != '--whole']
    if args:
        muts = [m for m in muts if m['id'] in args]
    # the whole suite: no pattern selects every test
    tests_of = (lambda m: []) if whole else (lambda m: m['tests'].split())
    if not muts:
        sys.exit('mutate: no mutant selected')
    env = dict(os.environ, NO_ASAN='1')
    env.setdefault('CC', 'ccache gcc' if shutil.which('ccache') else 'gcc')
    killed, bad = 0, []
    with tempfile.TemporaryDirectory(prefix='rawfrag-mutate.') as tmp:
        tree = os.path.join(tmp, 'tree')
        copy_tree(tree)
        broken = set()
        if os.environ.get('MUTATE_BASELINE', '1') != '0':
            rc, err = build(tree, env)
            if rc:
                sys.exit('mutate: the unmutated tree does not build: %s' % err)
            pats = sorted({p for m in muts for p in tests_of(m)})
            rc, last, failed, skipped = run_tests(tree, env, pats)
            broken = failing_tests(failed) if rc else set()
            print('%-16s %s%s' % ('baseline', last, ': ' + ', '.join(sorted(broken)) if broken else ''),
                  flush=True)
            for l in failed + skipped:
                print('%-16s %s' % ('', l))
        for m in muts:
            path = os.path.join(tree, m['file'])
            orig = open(path).read()
            n = orig.count(m['old'])
            if n != 1:
                print('%-16s DOES NOT APPLY (%d matches of old: in %s)' % (m['id'], n, m['file']))
                bad.append(m['id'])
                continue
            open(path, 'w').write(orig.replace(m['old'], m['new']))
            t0 = time.time()
            try:
                pats = tests_of(m)
                # against the whole suite a test failing unmutated does not judge the
                # mutant: only a test that newly fails kills it
                unfit = [] if whole else sorted(n for n in broken if any(p in n for p in pats))
                rc, err = (0, '') if unfit else build(tree, env)
                if unfit:
                    verdict = 'UNJUDGED (fails unmutated: %s)' % ', '.join(unfit)
                    bad.append(m['id'])
                elif rc:
                    verdict = 'STILLBORN (does not build: %s)' % err
                    bad.append(m['id'])
                else:
                    # one failure is enough to kill it; against the whole suite
                    # only where no test fails unmutated (that one would stop it)
                    fast = not whole or not broken
                    rc, last, failed, _ = run_tests(
                        tree, dict(env, RAWFRAG_TEST_FAILFAST='1') if fast else env, pats)
                    if whole:
                        failed = [l for l in failed if failing_tests([l]) - broken]
                        rc = rc if failed else 0
                    if rc:
                        killed += 1
                        first = failed[0][len('FAILED: '):] if failed else '?'
                        verdict = 'killed (%s; first: %s)' % (last, first[:90])
                    else:
                        verdict = 'SURVIVED (%s)' % last
                        bad.append(m['id'])
            finally:
                open(path, 'w').write(orig)
            print('%-16s %-60s %s [%.0f s]' % (m['id'], verdict, m['what'], time.time() - t0),
                  flush=True)
        # leave the copy built as HEAD is, so a failed restore cannot leak into a later run
    print('mutation score: %d of %d killed' % (killed, len(muts)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
