#pragma once
/// \file Interval algebra for the workbench's host-busy union: integer ns, so unions are exact.

#include <QtGlobal>

#include <vector>

namespace goblin::workbench {

struct Interval {
    qint64 begin;
    qint64 end;
};
using Intervals = std::vector<Interval>;

/// Appends an interval, folding it into the last one when it starts inside it. Operators arrive
/// mostly in start order with their children nested inside, so this keeps the vector (and its
/// growth, which costs copies and page faults) several times smaller; mergeIntervals() still
/// sorts and merges whatever order the trace used.
inline void addInterval(Intervals &v, qint64 begin, qint64 end)
{
    if (!v.empty()) {
        Interval &last = v.back();
        if (begin >= last.begin && begin <= last.end) {
            if (end > last.end)
                last.end = end;
            return;
        }
    }
    v.push_back({begin, end});
}

/// Sorts and merges, dropping empty intervals: the result is sorted and disjoint.
void mergeIntervals(Intervals &v);
/// Both inputs merged (sorted, disjoint).
Intervals intersectIntervals(const Intervals &a, const Intervals &b);
/// Total length.
qint64 measure(const Intervals &v);

} // namespace goblin::workbench
