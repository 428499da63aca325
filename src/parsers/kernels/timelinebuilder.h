#pragma once
/// \file Builds one GpuTimelineFile from kernel dispatch rows (CSV trace or rocpd database):
/// one GpuDeviceTimeline per (process, agent), events with exact integer ns, names interned
/// per file (mapped from the run-wide name ids, so a row costs no second hash).

#include "results/gputimeline.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace goblin::kernels
{

class TimelineBuilder
{
public:
    TimelineBuilder(const QString &source, const QString &file);

    /// One kernel dispatch. `globalNameId` is the run-wide id of `name`; end >= start.
    void addKernel(std::uint32_t globalNameId, std::string_view name, qint64 pid, qint64 device, qint64 stream,
                   qint64 startNs, qint64 endNs)
    {
        GpuDeviceTimeline &d = deviceFor(pid, device);
        GpuEvent e;
        e.startNs = startNs;
        e.endNs = endNs;
        e.nameId = localName(globalNameId, name);
        e.stream = streamIndex(d, stream);
        e.kind = GpuEventKind::Kernel;
        d.events.push_back(e);
    }

    qint64 eventCount() const;
    /// Called once after some rows: reserves room for `totalRows` rows in all, shared among the
    /// devices as the rows so far are (+10 %), so that a large trace's vectors do not grow by
    /// doubling (which briefly holds old and new buffers, up to 3x the events).
    void expectRows(qint64 totalRows);
    /// Streams beyond what GpuEvent::stream holds (65 535 per device) were folded into the last.
    bool streamOverflow() const { return m_streamOverflow; }

    GpuTimelineFile take();

private:
    GpuDeviceTimeline &deviceFor(qint64 pid, qint64 device)
    {
        if (m_last >= 0 && m_file.devices[size_t(m_last)].pid == pid && m_file.devices[size_t(m_last)].device == device)
            return m_file.devices[size_t(m_last)];
        return newDevice(pid, device);
    }
    GpuDeviceTimeline &newDevice(qint64 pid, qint64 device);
    std::uint32_t localName(std::uint32_t globalId, std::string_view name)
    {
        if (globalId < m_localOf.size() && m_localOf[globalId] != kNone)
            return m_localOf[globalId];
        return newName(globalId, name);
    }
    std::uint32_t newName(std::uint32_t globalId, std::string_view name);
    std::uint16_t streamIndex(GpuDeviceTimeline &d, qint64 stream);

    static constexpr std::uint32_t kNone = 0xffffffffu;
    GpuTimelineFile m_file;
    std::vector<std::uint32_t> m_localOf; ///< run-wide name id -> index in m_file.names
    int m_last = -1;
    bool m_streamOverflow = false;
};

/// The agent number in a kernel trace's agent label: "Agent 2" -> 2, "GPU 0" -> 0, "4" -> 4;
/// the last run of digits, -1 when there is none.
qint64 agentNumber(std::string_view label);

} // namespace goblin::kernels
