#!/usr/bin/env python3
"""Summarizes a cupti_timeline.cpp recording of bench_setup_timeline.

For each phase (setup, solve), averaged over the rounds after the first
(--skip): the wall time between the markers, the time the GPU was busy (the
union of kernels, copies and memsets), the operations, the runtime calls and
their host time, and what the host was doing while the GPU stood idle (a
runtime call, or its own code between calls). --kernels N lists the N kernels
that took the most time.

    timeline.py TIMELINE.csv [--skip 2] [--kernels 15]
"""
import argparse
import collections
import shutil
import subprocess


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            kind, start, end, name = line.rstrip('\n').split(',', 3)
            rows.append((kind, int(start), int(end), name))
    return rows


def union(intervals):
    merged = []
    for s, e in sorted(intervals):
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return merged


def strip_templates(text):
    out, depth = [], 0
    for c in text:
        depth += c == '<'
        if depth == 0:
            out.append(c)
        depth -= c == '>'
    return ''.join(out)


def kernel_names(mangled):
    """Each mangled kernel name's function, without namespaces' anonymity,
    template arguments or parameters (c++filt demangles where it is found)."""
    names = {m: m for m in mangled}
    if shutil.which('c++filt'):
        plain = subprocess.run(['c++filt'], input='\n'.join(mangled), capture_output=True,
                               text=True).stdout.split('\n')
        for m, p in zip(mangled, plain):
            p = strip_templates(p.replace('(anonymous namespace)::', '')).split('(')[0]
            names[m] = p.replace('binamg::', '').removeprefix('void ')
    return names


def windows(rows, first, last):
    marks = sorted((r[1], r[3]) for r in rows if r[0] == 'K' and 'timeline_mark_' in r[3])
    return [(a, b) for (a, na), (b, nb) in zip(marks, marks[1:])
            if first in na and last in nb]


def summarize(rows, spans, phase, top, names):
    n = len(spans)
    total = collections.Counter()
    api_time, api_count = collections.Counter(), collections.Counter()
    idle_during = collections.Counter()
    kernel_time, kernel_count = collections.Counter(), collections.Counter()
    for a, b in spans:
        device = [r for r in rows if r[0] in 'KCS' and a < r[1] < b and 'timeline_mark_' not in r[3]]
        calls = [r for r in rows if r[0] == 'R' and a <= r[1] < b]
        busy = union([(r[1], r[2]) for r in device])
        total['wall'] += b - a
        total['busy'] += sum(e - s for s, e in busy)
        for kind in 'KCS':
            total[kind] += sum(1 for r in device if r[0] == kind)
        for r in device:
            if r[0] == 'K':
                kernel_time[names[r[3]]] += r[2] - r[1]
                kernel_count[names[r[3]]] += 1
        for r in calls:
            name = r[3].split('_v')[0]
            api_time[name] += r[2] - r[1]
            api_count[name] += 1
        gaps, t = [], a
        for s, e in busy:
            if s > t:
                gaps.append((t, s))
            t = max(t, e)
        if b > t:
            gaps.append((t, b))
        for gs, ge in gaps:
            covered = 0
            for r in calls:
                overlap = min(ge, r[2]) - max(gs, r[1])
                if overlap > 0:
                    idle_during[r[3].split('_v')[0]] += overlap
                    covered += overlap
            idle_during['(host code between calls)'] += (ge - gs) - covered
    us = lambda ns: ns / n / 1e3
    print(f'{phase}: {n} rounds, wall {us(total["wall"]):.0f} µs, GPU busy {us(total["busy"]):.0f} µs; '
          f'{total["K"] / n:.0f} kernels, {total["C"] / n:.0f} copies, {total["S"] / n:.0f} memsets')
    print('  runtime calls (host µs): ' + '; '.join(
        f'{name} {api_count[name] / n:.0f}× {us(t):.0f}' for name, t in api_time.most_common(10)))
    print('  GPU idle during (µs): ' + '; '.join(
        f'{name} {us(t):.0f}' for name, t in idle_during.most_common(8)))
    for name, t in kernel_time.most_common(top):
        print(f'    {us(t):8.1f} µs {kernel_count[name] / n:5.0f}× {name}')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('timeline')
    parser.add_argument('--skip', type=int, default=2, help='rounds left out at the start')
    parser.add_argument('--kernels', type=int, default=0, help='kernels to list by time')
    args = parser.parse_args()
    rows = load(args.timeline)
    names = kernel_names(sorted({r[3] for r in rows if r[0] == 'K'}))
    for phase, first, last in (('setup', 'mark_setup', 'mark_solve'),
                               ('solve', 'mark_solve', 'mark_end')):
        spans = windows(rows, first, last)[args.skip:]
        if not spans:
            raise SystemExit(f'timeline.py: no {phase} after the first {args.skip} rounds in '
                             f'{args.timeline} (was it recorded from bench_setup_timeline?)')
        summarize(rows, spans, phase, args.kernels, names)


if __name__ == '__main__':
    main()
