#!/usr/bin/env python3
"""Independent count for the clock alignment test: the offset between a rocprofv3 kernel trace
(trace.csv, ns since boot) and a Kineto trace of the same run (torch_profile.json, µs), found by
brute force: the torch trace's kernels (sorted by start) must appear as a consecutive run of one
agent's kernels with the same names and durations (to the ns Kineto writes). Prints the offset
kernel_trace_ns - torch_ns, and how many positions matched (exactly one is expected).

usage: clock_offset.py RUN_DIR [--shift-ns N]   (--shift-ns: the trace.csv stamps were moved by N)
"""
import csv, json, sys
from fractions import Fraction


def main():
    run = sys.argv[1]
    shift = int(sys.argv[sys.argv.index('--shift-ns') + 1]) if '--shift-ns' in sys.argv else 0
    with open(f'{run}/torch_profile.json') as f:
        trace = json.load(f)
    torch = sorted((int(Fraction(str(e['ts'])) * 1000), int(Fraction(str(e['dur'])) * 1000), e['name'])
                   for e in trace['traceEvents'] if e.get('cat') == 'kernel' and e.get('ph') == 'X')
    agents = {}
    with open(f'{run}/trace.csv', newline='') as f:
        for row in csv.DictReader(f):
            start, end = int(row['Start_Timestamp']) + shift, int(row['End_Timestamp']) + shift
            agents.setdefault(row['Agent_Id'], []).append((start, end - start, row['Kernel_Name']))
    found = []
    for agent, rows in agents.items():
        rows.sort()
        for i in range(len(rows) - len(torch) + 1):
            if all(rows[i + k][2] == torch[k][2] and rows[i + k][1] == torch[k][1] for k in range(len(torch))):
                found.append((agent, rows[i][0] - torch[0][0]))
    for agent, offset in found:
        print(f'agent {agent}: offset_ns {offset}')
    print(f'matches {len(found)} kernels {len(torch)}')


if __name__ == '__main__':
    main()
