# Mutations of a state document: every line deleted, duplicated, its key renamed, and every
# `key: value` pair's value replaced by a set of alternates (valid and invalid).
import re, sys, os
base, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
lines = open(base).read().split('\n')
alts = ['', 'x', '0', '1', '2', '-1', '7', '10', '100', '254', '4094', '4095', '65536', '99999999999999999999',
        'true', 'false', '[]', '{}', '"02:00:00:00:00:09"', '10.9.0.3', '"2001:db8::9"', '10.0.0.0/8', 'd0', 'br0',
        'p1', 've1', 'absent', 'up', 'down', 'bridge', 'vepa', 'private', 'active-backup', '802.3ad', 'trunk',
        'access', 'overridden', 'replaced', 'linux-bridge', 'veth', 'dummy', 'vlan', 'kernel', 'bgp', 'ipv6', 'ethernet']
docs = [lines[:]]
for i, l in enumerate(lines):
    docs.append(lines[:i] + lines[i + 1:])
    docs.append(lines[:i + 1] + [l] + lines[i + 1:])
    for m in re.finditer(r'([A-Za-z][\w-]*): ?', l):
        docs.append(lines[:i] + [l[:m.start()] + 'unknown-key' + l[m.end(1):]] + lines[i + 1:])
    for m in re.finditer(r'([A-Za-z][\w-]*): ([^,{}\[\]]+?)(?=\s*(,|}|$))', l):
        for a in alts:
            docs.append(lines[:i] + [l[:m.start(2)] + a + l[m.end(2):]] + lines[i + 1:])
seen = set()
n = 0
for d in docs:
    t = '\n'.join(d)
    if t in seen: continue
    seen.add(t)
    open(os.path.join(out, '%05d.yaml' % n), 'w').write(t)
    n += 1
print(n)
