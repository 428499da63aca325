#pragma once
/// \file Host ranges as a reader finds them, laid out as the Timeline's host lanes
/// (results/hostlanes.h): every reader of a host side (the Kineto consumer, the rocprofv3 API
/// traces, the rpd database …) adds its ranges, runtime calls and GPU correlations here in any
/// order, and build() nests them into depths per thread and sorts the correlations, one rule for
/// every format.
///
/// Adding costs one 24-byte record and a name lookup in the pool; nothing is allocated per range.

#include "diagnostic.h"
#include "kernels/namepool.h"
#include "results/hostlanes.h"

#include <QtGlobal>

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace goblin::kernels {

class HostLanesBuilder
{
public:
    /// The thread of ranges that are left out: past the 65,535th thread.
    static constexpr std::uint16_t kNoThread = 0xffff;

    /// A new thread numbered (pid, tid) (the order of the lanes and their labels); kNoThread past
    /// the 65,535th. For readers whose thread keys are not the numbers (the Kineto consumer).
    std::uint16_t addThread(qint64 pid, qint64 tid)
    {
        if (m_threadIds.size() >= kNoThread)
            return kNoThread;
        m_threadIds.emplace_back(pid, tid);
        return std::uint16_t(m_threadIds.size() - 1);
    }
    /// The thread (pid, tid), added when new: for readers whose threads are numbers. The last one
    /// found is tried first (a reader's rows mostly come thread by thread).
    std::uint16_t threadOf(qint64 pid, qint64 tid)
    {
        if (m_lastThread < m_threadIds.size() && m_threadIds[m_lastThread] == std::pair(pid, tid))
            return m_lastThread;
        return findThread(pid, tid);
    }
    std::size_t threadCount() const { return m_threadIds.size(); }

    /// One host range [startNs, endNs) of `thread` (kNoThread: counted and left out).
    void add(HostSliceKind kind, std::string_view name, std::uint16_t thread, qint64 startNs, qint64 endNs)
    {
        if (thread == kNoThread) {
            ++m_threadOverflow;
            return;
        }
        m_slices.push_back({startNs, endNs, m_names.intern(name), thread, kind, 0});
    }
    /// A runtime call that launched the GPU events of `correlation`.
    void addRuntime(std::string_view name, std::uint16_t thread, qint64 startNs, qint64 endNs, qint64 correlation)
    {
        if (thread != kNoThread)
            m_runtime.push_back({std::uint32_t(m_slices.size()), correlation});
        add(HostSliceKind::Runtime, name, thread, startNs, endNs);
    }
    /// A GPU event's correlation, by its place as the file's GpuDeviceTimeline holds it (the device
    /// number and the stream id as written).
    void addGpu(qint64 startNs, qint64 correlation, qint32 device, qint32 stream)
    {
        m_gpu.push_back({startNs, correlation, device, stream});
    }

    /// Ranges and GPU correlations added so far.
    std::size_t rangeCount() const { return m_slices.size(); }
    std::size_t gpuCount() const { return m_gpu.size(); }
    bool empty() const { return m_slices.empty() && m_gpu.empty(); }
    /// Ranges left out for their thread (past the 65,535th).
    qint64 threadOverflow() const { return m_threadOverflow; }
    /// The pid of each thread, by index.
    qint64 pidOf(std::uint16_t thread) const { return m_threadIds[thread].first; }

    /// Gives back what the vectors hold beyond their size (a range of a document is done).
    void shrink();
    /// Appends what `later` read (a later byte range of the same document, which interned its own
    /// names and threads), emptying it; `threadOfLater` maps its threads onto this one's
    /// (kNoThread: left out).
    void absorb(HostLanesBuilder &later, const std::vector<std::uint16_t> &threadOfLater);

    /// The lanes: threads by pid, then tid; per thread, each range at the depth of the ranges still
    /// open when it starts (longest first on a tie, so a parent comes before its child); lane by
    /// lane, each by start; the correlations sorted. `keepThread` (by thread index; empty: every
    /// thread) leaves the other threads' ranges out. The builder stays as it was but for the scratch
    /// depths, so it can build several files' lanes in turn.
    HostLanes build(const std::vector<bool> &keepThread = {});
    /// Empties the builder.
    void clear();

private:
    struct RawRuntime {
        std::uint32_t slice;  ///< index into m_slices
        qint64 correlation;
    };
    std::uint16_t findThread(qint64 pid, qint64 tid);

    NamePool m_names;
    std::vector<std::pair<qint64, qint64>> m_threadIds;  ///< (pid, tid) by thread index
    std::uint16_t m_lastThread = 0;
    std::vector<HostSlice> m_slices;    ///< in the order added; depth is scratch for build()
    std::vector<RawRuntime> m_runtime;  ///< by slice index
    std::vector<GpuCorrelation> m_gpu;  ///< in the order added
    qint64 m_threadOverflow = 0;
};

/// GPU correlations by device, stream and start (HostLanes::gpuByPlace).
std::vector<GpuCorrelation> sortedByPlace(const std::vector<GpuCorrelation> &events);

/// What a marker range (roctx, NVTX, rpd UserMarker) is on a host lane before the step pattern is
/// applied (markStepRanges()): DataLoading when it names a DataLoader, else Annotation.
HostSliceKind markerKind(std::string_view name);

/// GPU events of `lanes` whose correlation id names one of its runtime calls.
qint64 joinedGpuEvents(const HostLanes &lanes);

/// The warnings about what build() left out (ranges nested too deep, threads past the 65,535th),
/// about `file`.
void hostLanesDiagnostics(const HostLanes &lanes, qint64 threadOverflow, const QString &file, Diagnostics &out);

/// What the host lanes of a non-Kineto `file` hold, read from `from` (its API traces, or "its own
/// tables"): threads, runtime calls, marker ranges and the GPU events joined to their calls (an
/// Info), after hostLanesDiagnostics()' warnings.
void hostLanesSummary(const HostLanes &lanes, qint64 threadOverflow, const QString &file, const QString &from,
                      Diagnostics &out);

} // namespace goblin::kernels
