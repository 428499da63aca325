#include "kernelsfromtimeline.h"

#include "devicefacts.h"

#include <algorithm>
#include <limits>
#include <string_view>
#include <unordered_map>

namespace goblin {

TimelineKernelList kernelsFromTimeline(const GpuTimeline &timeline)
{
    TimelineKernelList out;
    KernelReading &r = out.reading;
    std::unordered_map<std::string_view, std::uint32_t> ids;
    ids.reserve(1024);
    // Names are stored in `out.names`; keys view the files' own strings, which outlive this call.
    qint64 spanSum = 0;
    int filesWithSpan = 0;
    qint64 singleFirst = 0, singleLast = 0;
    for (const GpuTimelineFile &file : timeline.files) {
        std::vector<std::int64_t> localToGlobal(file.names.size(), -1);
        qint64 first = std::numeric_limits<qint64>::max(), last = std::numeric_limits<qint64>::min();
        for (const GpuDeviceTimeline &dev : file.devices) {
            bool deviceUsed = false;
            for (const GpuEvent &e : dev.events) {
                if (e.kind != GpuEventKind::Kernel)
                    continue;
                if (e.nameId >= file.names.size() || file.names[e.nameId].empty()) {
                    ++r.rowsSkippedNoName;
                    continue;
                }
                const qint64 d = e.endNs - e.startNs;
                if (d <= 0) {
                    ++r.rowsSkippedNonPositive;
                    continue;
                }
                std::int64_t &global = localToGlobal[e.nameId];
                if (global < 0) {
                    const std::string &name = file.names[e.nameId];
                    auto it = ids.find(std::string_view(name));
                    if (it == ids.end()) {
                        it = ids.emplace(std::string_view(name), std::uint32_t(out.names.size())).first;
                        out.names.push_back(name);
                        r.perName.emplace_back();
                    }
                    global = it->second;
                }
                KernelNameStats &s = r.perName[std::size_t(global)];
                if (s.calls == 0)
                    s.firstRow = r.rowsUsed;
                s.calls += 1;
                s.totalNs += d;
                s.minNs = std::min(s.minNs, d);
                s.maxNs = std::max(s.maxNs, d);
                r.totalNs += d;
                ++r.rowsUsed;
                first = std::min(first, e.startNs);
                last = std::max(last, e.endNs);
                deviceUsed = true;
            }
            if (deviceUsed) {
                ++r.agentCount;
                const QString device = deviceNameInFile(file, dev.device);
                r.agents << (file.rank ? QStringLiteral("rank %1 %2").arg(*file.rank).arg(device)
                                       : timeline.files.size() > 1 ? QStringLiteral("%1 %2").arg(file.file, device)
                                                                   : device);
            }
        }
        if (last > first) {
            spanSum += last - first;
            ++filesWithSpan;
            singleFirst = first;
            singleLast = last;
        }
    }
    if (filesWithSpan == 1) {
        r.firstStartNs = singleFirst;
        r.lastEndNs = singleLast;
        r.hasTimestamps = true;
    } else if (filesWithSpan > 1) {
        r.firstStartNs = 0;
        r.lastEndNs = spanSum / filesWithSpan;
        r.hasTimestamps = true;
    }
    return out;
}

} // namespace goblin
