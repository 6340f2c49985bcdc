#!/usr/bin/env python3
"""make mutate: apply each mutant of tests/mutants.txt to a copy of the tree, build it,
run the tests its "tests:" line names, and count the mutant killed when they fail.
Prints one line per mutant and the mutation score; exits 1 when a mutant survives or
no longer applies. Not part of `make test` (it builds the tree once per mutant).

  scripts/mutate.py [ID...]     only these mutants
  RAWFRAG_TEST_LOCK=FILE        run each mutant's tests under flock FILE
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


def main():
    muts = parse(os.path.join(TOP, 'tests', 'mutants.txt'))
    if len(sys.argv) > 1:
        muts = [m for m in muts if m['id'] in sys.argv[1:]]
    if not muts:
        sys.exit('mutate: no mutant selected')
    env = dict(os.environ, NO_ASAN='1')
    env.setdefault('CC', 'ccache gcc' if shutil.which('ccache') else 'gcc')
    killed, bad = 0, []
    with tempfile.TemporaryDirectory(prefix='rawfrag-mutate.') as tmp:
        tree = os.path.join(tmp, 'tree')
        copy_tree(tree)
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
                b = subprocess.run(['make', '-s', 'all', 'build/out/tests/fuzz-replay'], cwd=tree,
                                   env=env, capture_output=True, text=True)
                if b.returncode:
                    verdict = 'STILLBORN (does not build: %s)' % b.stderr.strip().splitlines()[-1:]
                    bad.append(m['id'])
                else:
                    cmd = ['bash', 'tests/run.sh'] + m['tests'].split()
                    # tests that share the kernel with other runs (BPF, tracefs) queue on a lock
                    if os.environ.get('RAWFRAG_TEST_LOCK'):
                        cmd = ['flock', os.environ['RAWFRAG_TEST_LOCK']] + cmd
                    r = subprocess.run(cmd, cwd=tree,
                                       env=env, capture_output=True, text=True)
                    last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ''
                    if r.returncode:
                        killed += 1
                        verdict = 'killed (%s)' % last
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
