# Twin namespaces (host B each): apply a document with the old binary in one and the new in the
# other; compare apply's output, show state (YAML, JSON), nmstatectl show, the journal's undo
# document, then rollback and show state again. MAC addresses the kernel picks are normalised.
import subprocess, sys, os, glob, re, shutil
old, new = sys.argv[1], sys.argv[2]
files = sys.argv[3:]
mac = re.compile(rb'[0-9a-f]{2}(:[0-9a-f]{2}){5}|netns-[0-9]+')
def sh(cmd): subprocess.run(cmd, shell=True, check=True, capture_output=True)
def run(binary, ns, tag, args):
    e = dict(os.environ); e['FASTLINK_RUN_DIR'] = os.path.join(os.environ.get('TMPDIR', '/tmp'), 'state-mutations-twin-' + tag)
    p = subprocess.run([binary, '-n', ns] + args, capture_output=True, env=e)
    return p.returncode, mac.sub(b'MAC', p.stdout), mac.sub(b'MAC', p.stderr)
def undo(tag):
    found = glob.glob(os.path.join(os.environ.get('TMPDIR', '/tmp'), 'state-mutations-twin-' + tag) + '/netns-*/undo.yaml')
    return mac.sub(b'MAC', open(found[0], 'rb').read()) if found else b''
n = diffs = applied = 0
for f in files:
    for tag in ('old', 'new'):
        shutil.rmtree(os.path.join(os.environ.get('TMPDIR', '/tmp'), 'state-mutations-twin-' + tag), ignore_errors=True)
        sh('ip netns del t' + tag + ' 2>/dev/null || true; bash setup_b.sh t' + tag)
    steps = [['apply', f], ['show', 'state'], ['-j', 'show', 'state'], ['nmstatectl', 'show'], 'undo', ['apply', '--check', f],
             ['rollback'], ['show', 'state'], ['apply', '--check', f]]
    for s in steps:
        a = undo('old') if s == 'undo' else run(old, 'told', 'old', s)
        b = undo('new') if s == 'undo' else run(new, 'tnew', 'new', s)
        n += 1
        if s == ['apply', f] and a[0] == 0: applied += 1
        if a != b:
            diffs += 1
            if diffs <= 10: print('DIFF', f, s, a, b)
print('twins: documents', len(files), 'applied', applied, 'comparisons', n, 'differences', diffs)
