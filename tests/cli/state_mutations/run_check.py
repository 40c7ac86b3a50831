# apply --check (text and -j) of every document in DIRS with two binaries, in namespace NS.
import subprocess, sys, os, glob
old, new, ns = sys.argv[1], sys.argv[2], sys.argv[3]
dirs = sys.argv[4:]
envs = {}
for tag in ('old', 'new'):
    e = dict(os.environ); e['FASTLINK_RUN_DIR'] = os.path.join(os.environ.get('TMPDIR', '/tmp'), 'state-mutations-run-' + tag + '-' + ns); envs[tag] = e
def run(binary, tag, args):
    p = subprocess.run([binary, '-n', ns] + args, capture_output=True, env=envs[tag])
    return p.returncode, p.stdout, p.stderr
n = diffs = 0
statuses = {}
for d in dirs:
    for f in sorted(glob.glob(d + '/*.yaml')):
        for args in (['apply', '--check', f], ['-j', 'apply', '--check', f]):
            a = run(old, 'old', args); b = run(new, 'new', args)
            n += 1
            statuses[a[0]] = statuses.get(a[0], 0) + 1
            if a != b:
                diffs += 1
                if diffs <= 10: print('DIFF', args, a, b)
print('ns', ns, 'runs', n, 'differences', diffs, 'exit statuses', statuses)
