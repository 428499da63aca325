#pragma once
/// \file One reading's sums over kernel dispatches (per name: calls, total, min, max, first use;
/// the span; the agents), fed row by row by every kernel source: CSV traces and rocpd databases.

#include "kerneltraceparser.h"

#include <QStringList>
#include <algorithm>
#include <climits>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace goblin::kernels
{

constexpr int kMaxAgents = 256;

/// The names a reading used, in order of first use: the order Python's kernel list and its dict
/// follow, which both readings keep for their top kernels (equal totals stay in that order).
std::vector<std::size_t> namesInFirstUseOrder(const KernelReading &reading);

/// Distinct GPU agents as (host index, label); at most kMaxAgents.
struct AgentSet {
    struct Agent {
        int host;
        std::string label;
    };
    std::vector<Agent> agents;
    int last = -1;
    bool overflow = false;

    void add(int host, std::string_view label)
    {
        if (last >= 0 && agents[size_t(last)].host == host && agents[size_t(last)].label == label)
            return;
        addSlow(host, label);
    }

private:
    void addSlow(int host, std::string_view label);
};

struct Accumulator {
    KernelReading *reading = nullptr;
    qint64 minStart = LLONG_MAX;
    qint64 maxEnd = LLONG_MIN;
    bool anySpan = false;
    AgentSet agents;

    void use(std::uint32_t id, qint64 durationNs)
    {
        std::vector<KernelNameStats> &perName = reading->perName;
        if (id >= perName.size())
            perName.resize(size_t(id) + 1);
        KernelNameStats &s = perName[id];
        if (s.calls == 0)
            s.firstRow = reading->rowsUsed;
        ++s.calls;
        // Saturate rather than wrap: the reference reading keeps what Python's unbounded ints sum.
        if (__builtin_add_overflow(s.totalNs, durationNs, &s.totalNs))
            s.totalNs = std::numeric_limits<qint64>::max();
        s.minNs = std::min(s.minNs, durationNs);
        s.maxNs = std::max(s.maxNs, durationNs);
        ++reading->rowsUsed;
        if (__builtin_add_overflow(reading->totalNs, durationNs, &reading->totalNs))
            reading->totalNs = std::numeric_limits<qint64>::max();
    }

    void span(qint64 startNs, qint64 endNs)
    {
        anySpan = true;
        minStart = std::min(minStart, startNs);
        maxEnd = std::max(maxEnd, endNs);
    }

    /// Forgets every row used so far (the reference reading failed: nothing is used).
    void clearStats();

    /// Writes span and agents into the reading; `hosts` names the host indices of the agents
    /// (labels get a "host/" prefix when the agents span several hosts).
    void finish(size_t nameCount, const QStringList &hosts);
};

} // namespace goblin::kernels
