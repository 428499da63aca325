#include "timelinebuilder.h"

#include "namepool.h"

#include <limits>

namespace goblin::kernels
{

TimelineBuilder::TimelineBuilder(const QString &source, const QString &file)
{
    m_file.source = source;
    m_file.file = file;
}

qint64 TimelineBuilder::eventCount() const
{
    qint64 n = 0;
    for (const GpuDeviceTimeline &d : m_file.devices)
        n += qint64(d.events.size());
    return n;
}

void TimelineBuilder::expectRows(qint64 totalRows)
{
    const qint64 sofar = eventCount();
    if (sofar <= 0 || totalRows <= sofar)
        return;
    for (GpuDeviceTimeline &d : m_file.devices) {
        const double share = double(d.events.size()) / double(sofar);
        const size_t want = size_t(share * double(totalRows) * 1.1) + 1024;
        if (want > d.events.capacity())
            d.events.reserve(want);
    }
}

GpuTimelineFile TimelineBuilder::take()
{
    m_last = -1;
    m_localOf.clear();
    return std::move(m_file);
}

GpuDeviceTimeline &TimelineBuilder::newDevice(qint64 pid, qint64 device)
{
    for (size_t i = 0; i < m_file.devices.size(); ++i)
        if (m_file.devices[i].pid == pid && m_file.devices[i].device == device) {
            m_last = int(i);
            return m_file.devices[i];
        }
    GpuDeviceTimeline d;
    d.source = m_file.source;
    d.file = m_file.file;
    d.rank = m_file.rank;
    d.device = device;
    d.pid = pid;
    m_file.devices.push_back(std::move(d));
    m_last = int(m_file.devices.size()) - 1;
    return m_file.devices.back();
}

std::uint32_t TimelineBuilder::newName(std::uint32_t globalId, std::string_view name)
{
    if (globalId >= m_localOf.size())
        m_localOf.resize(size_t(globalId) + 1, kNone);
    // The run-wide name of the same id is cut at kMaxNameBytes (NamePool); the timeline's is too.
    if (name.size() > kMaxNameBytes)
        m_file.names.push_back(cutName(name));
    else
        m_file.names.emplace_back(name);
    m_localOf[globalId] = std::uint32_t(m_file.names.size() - 1);
    return m_localOf[globalId];
}

std::uint16_t TimelineBuilder::streamIndex(GpuDeviceTimeline &d, qint64 stream)
{
    // Few streams per device: a linear scan from the most recent one is cheapest.
    const size_t n = d.streams.size();
    for (size_t i = n; i-- > 0;)
        if (d.streams[i] == stream)
            return std::uint16_t(i);
    if (n > std::numeric_limits<std::uint16_t>::max()) {
        m_streamOverflow = true;
        return std::numeric_limits<std::uint16_t>::max();
    }
    d.streams.push_back(stream);
    return std::uint16_t(n);
}

qint64 agentNumber(std::string_view label)
{
    size_t end = label.size();
    while (end > 0 && (label[end - 1] < '0' || label[end - 1] > '9'))
        --end;
    size_t begin = end;
    while (begin > 0 && label[begin - 1] >= '0' && label[begin - 1] <= '9')
        --begin;
    if (begin == end || end - begin > 15)
        return -1;
    qint64 v = 0;
    for (size_t i = begin; i < end; ++i)
        v = v * 10 + (label[i] - '0');
    return v;
}

} // namespace goblin::kernels
