#!/usr/bin/env python3
"""Independent count of the kernel dispatches in a rocprofv3 Perfetto trace (.pftrace, plain or gzip).

Stdlib only, written from the protobuf wire format and Perfetto's trace_packet.proto /
track_event.proto, not from the workbench's reader: TracePacket.timestamp (8),
trusted_packet_sequence_id (10), interned_data (12: event_categories 1, event_names 2),
track_event (11: category_iids 3, categories 22, type 9 (1 = slice begin, 2 = slice end),
name_iid 10, name 23, track_uuid 11), timestamp_clock_id (58), trace_packet_defaults (59) and
clock_snapshot (6), whose incremental clocks (rocprofv3's default clock 64) count deltas. A kernel is a slice whose category is "kernel_dispatch",
as rocprofv3's writer tags them; its duration is its end's timestamp minus its begin's.

Prints dispatches, summed duration (ns), span (first begin to last end, ns) and the per-name
counts and times; the expectations of tests/parsers/kernels/tst_pftrace.cpp come from here.
"""
import collections
import gzip
import sys


def varint(b, i):
    result = shift = 0
    while True:
        c = b[i]
        i += 1
        result |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return result, i


def fields(b):
    i, n = 0, len(b)
    while i < n:
        key, i = varint(b, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = varint(b, i)
        elif wire == 1:
            value, i = b[i:i + 8], i + 8
        elif wire == 5:
            value, i = b[i:i + 4], i + 4
        elif wire == 2:
            length, i = varint(b, i)
            value, i = b[i:i + length], i + length
        else:
            raise ValueError("wire type %d at byte %d" % (wire, i))
        yield number, wire, value


BOOTTIME = 6  # builtin clock ids: rocprofv3 stamps on the boot clock


def field(b, number):
    for f, _, v in fields(b):
        if f == number:
            return v
    return None


def main(path):
    data = open(path, 'rb').read()
    if data[:2] == b'\x1f\x8b':
        data = gzip.decompress(data)
    interned = {}  # (sequence, kind, iid) -> string
    default_clock = {}  # sequence -> clock id of its packets without one
    incremental_clock = {}  # (sequence, clock id) -> [its current value, offset onto BOOTTIME]
    open_slices = collections.defaultdict(list)  # track uuid -> [(begin ns, name, is kernel)]
    time_by_name, calls_by_name = collections.Counter(), collections.Counter()
    first_begin = last_end = None
    for number, _, packet in fields(data):
        if number != 1:
            continue
        timestamp = event = None
        sequence = field(packet, 10)  # the writer may put it after the interned data
        clock = field(packet, 58)
        if clock is None:
            clock = default_clock.get(sequence)
        for f, _, v in fields(packet):
            if f == 8:
                timestamp = v
            elif f == 59:  # TracePacketDefaults.timestamp_clock_id
                default_clock[sequence] = field(v, 58)
            elif f == 6:  # ClockSnapshot: a sequence-scoped incremental clock starts from here
                values = {}
                for n, _, c in fields(v):
                    if n == 1 and field(c, 1) is not None:  # ClockSnapshot.clocks
                        values[field(c, 1)] = (field(c, 2) or 0, field(c, 3))
                for clock_id, (value, incremental) in values.items():
                    if incremental and BOOTTIME in values:
                        incremental_clock[(sequence, clock_id)] = [value, values[BOOTTIME][0] - value]
            elif f == 12:
                for kind, _, entry in fields(v):
                    if kind in (1, 2):
                        interned[(sequence, kind, field(entry, 1))] = (field(entry, 2) or b'').decode()
            elif f == 11:
                event = v
        if timestamp is not None and (sequence, clock) in incremental_clock:
            state = incremental_clock[(sequence, clock)]
            state[0] += timestamp  # a delta on the incremental clock, then onto BOOTTIME
            timestamp = state[0] + state[1]
        if event is None:
            continue
        kind = name = track = None
        categories = []
        for f, _, v in fields(event):
            if f == 9:
                kind = v
            elif f == 23:
                name = v.decode()
            elif f == 10:
                name = interned.get((sequence, 2, v))
            elif f == 11:
                track = v
            elif f == 3:
                categories.append(interned.get((sequence, 1, v)))
            elif f == 22:
                categories.append(v.decode())
        if kind == 1:
            open_slices[track].append((timestamp, name, 'kernel_dispatch' in categories))
        elif kind == 2 and open_slices[track]:
            begin, begin_name, is_kernel = open_slices[track].pop()
            if not is_kernel:
                continue
            time_by_name[begin_name] += timestamp - begin
            calls_by_name[begin_name] += 1
            first_begin = begin if first_begin is None else min(first_begin, begin)
            last_end = timestamp if last_end is None else max(last_end, timestamp)
    print('dispatches', sum(calls_by_name.values()))
    print('kernel_ns', sum(time_by_name.values()))
    print('span_ns', (last_end - first_begin) if first_begin is not None else 0)
    for name in sorted(time_by_name):
        print(calls_by_name[name], time_by_name[name], name, sep='\t')


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: pftrace_count.py FILE.pftrace[.gz]')
    main(sys.argv[1])
