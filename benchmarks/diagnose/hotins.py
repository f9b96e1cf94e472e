#!/usr/bin/env python3
"""hotins.py TAG: for a slowcatch capture (TAG.data, TAG.map, TAG-ADDR.bin), the hottest instructions in the dumped
nmethods with their disassembly, and the samples on card-mark stores (ParallelGC post-barrier: shr $9 then a byte
store) and the instruction after each (perf's skid)."""
import collections, glob, re, subprocess, sys
tag = sys.argv[1]
ips = collections.Counter()
for line in subprocess.run(['perf', 'script', '-i', f'{tag}.data', '-F', 'ip'], capture_output=True, text=True).stdout.split():
    ips[int(line, 16)] += 1
total = sum(ips.values())
ins = {}  # addr -> (text, next addr)
for b in glob.glob(f'{tag}-0x*.bin'):
    base = int(re.search(r'-(0x[0-9a-f]+)\.bin', b).group(1), 16)
    dis = subprocess.run(['objdump', '-D', '-b', 'binary', '-m', 'i386:x86-64', f'--adjust-vma={base}', b],
                         capture_output=True, text=True).stdout
    rows = [(int(m.group(1), 16), m.group(2).strip()) for m in re.finditer(r'^\s*([0-9a-f]+):\t(?:[0-9a-f]{2} )+[ ]*\t?(.*)$', dis, re.M)]
    for i, (a, t) in enumerate(rows):
        ins[a] = (t, rows[i + 1][0] if i + 1 < len(rows) else None, rows[max(0, i - 6):i + 2])
card = 0
cards = []
for a, (t, nxt, ctx) in ins.items():
    if re.match(r'mov\s+%r12b,\(%r\w+,%r\w+,1\)', t) and any('shr    $0x9' in c[1] for c in ctx[-5:]):
        n = ips[a] + (ips[nxt] if nxt else 0)
        card += n
        cards.append((n, a))
print(f'{total} samples; on card marks (+ next instruction): {card} ({100 * card / total:.1f} %) over {len(cards)} marks')
for n, a in sorted(cards, reverse=True)[:5]:
    print(f'   {n} at {a:x}')
print('hottest instructions in the dumped methods:')
for a, n in ips.most_common(400):
    if a in ins and n > total * 0.01:
        print(f'-- {n} ({100 * n / total:.1f} %) at {a:x}')
        for ca, ct in ins[a][2]:
            print(f'     {"=>" if ca == a else "  "} {ca:x}: {ct}')
