#include "workbench/intervals.h"

#include <algorithm>

namespace goblin::workbench {

void mergeIntervals(Intervals &v)
{
    std::sort(v.begin(), v.end(), [](const Interval &a, const Interval &b) { return a.begin < b.begin; });
    size_t out = 0;
    for (const Interval &i : v) {
        if (i.end <= i.begin)
            continue;
        if (out > 0 && i.begin <= v[out - 1].end) {
            v[out - 1].end = std::max(v[out - 1].end, i.end);
        } else {
            v[out++] = i;
        }
    }
    v.resize(out);
}

Intervals intersectIntervals(const Intervals &a, const Intervals &b)
{
    Intervals out;
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const qint64 lo = std::max(a[i].begin, b[j].begin);
        const qint64 hi = std::min(a[i].end, b[j].end);
        if (lo < hi)
            out.push_back({lo, hi});
        if (a[i].end < b[j].end)
            ++i;
        else
            ++j;
    }
    return out;
}

qint64 measure(const Intervals &v)
{
    qint64 total = 0;
    for (const Interval &i : v)
        total += i.end - i.begin;
    return total;
}

} // namespace goblin::workbench
