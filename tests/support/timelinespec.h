#pragma once
// Test-only: builds a GpuTimeline from a compact text, so data-driven rows stay readable.
//
//   file=NAME[:RANK]        starts a file (source "torch_profile"); RANK may be omitted
//   dev=D                   switches to device D of the current file (created on first use)
//   K:name:start:end[:s]    kernel on stream s (default 0), times in ns
//   C:start:end / S:start:end   memcpy / memset
//   H:start:end             host-busy interval of the file
//   P:start:end / G:start:end   ProfilerStep on the CPU lane / step annotation on the GPU lane

#include "results/gputimeline.h"

#include <QStringList>
#include <algorithm>

namespace goblin::test {

inline GpuTimeline timelineFromSpec(const QString &spec, const QString &source = QStringLiteral("torch_profile"))
{
    GpuTimeline tl;
    GpuTimelineFile *file = nullptr;
    GpuDeviceTimeline *dev = nullptr;
    auto ensureFile = [&] {
        if (!file) {
            tl.files.emplace_back();
            file = &tl.files.back();
            file->source = source;
            file->file = QStringLiteral("trace.json");
        }
    };
    auto ensureDevice = [&](qint64 d) {
        ensureFile();
        for (GpuDeviceTimeline &x : file->devices)
            if (x.device == d) {
                dev = &x;
                return;
            }
        file->devices.emplace_back();
        dev = &file->devices.back();
        dev->device = d;
        dev->source = file->source;
        dev->file = file->file;
        dev->rank = file->rank;
    };
    auto nameId = [&](const QString &n) {
        const std::string s = n.toStdString();
        auto it = std::find(file->names.begin(), file->names.end(), s);
        if (it != file->names.end())
            return std::uint32_t(it - file->names.begin());
        file->names.push_back(s);
        return std::uint32_t(file->names.size() - 1);
    };
    auto streamIndex = [&](qint64 s) {
        auto it = std::find(dev->streams.begin(), dev->streams.end(), s);
        if (it != dev->streams.end())
            return std::uint16_t(it - dev->streams.begin());
        dev->streams.push_back(s);
        return std::uint16_t(dev->streams.size() - 1);
    };
    for (const QString &tok : spec.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (tok.startsWith(QLatin1String("file="))) {
            const QStringList p = tok.mid(5).split(QLatin1Char(':'));
            tl.files.emplace_back();
            file = &tl.files.back();
            dev = nullptr;
            file->source = source;
            file->file = p[0];
            if (p.size() > 1)
                file->rank = p[1].toInt();
            continue;
        }
        if (tok.startsWith(QLatin1String("dev="))) {
            ensureDevice(tok.mid(4).toLongLong());
            continue;
        }
        const QStringList p = tok.split(QLatin1Char(':'));
        const QString k = p[0];
        ensureFile();
        if (k == QLatin1String("H")) {
            file->hostBusy.push_back({p[1].toLongLong(), p[2].toLongLong()});
        } else if (k == QLatin1String("P") || k == QLatin1String("G")) {
            file->steps.push_back({QStringLiteral("ProfilerStep#%1").arg(file->steps.size()), p[1].toLongLong(),
                                   p[2].toLongLong(), k == QLatin1String("G")});
        } else {
            if (!dev)
                ensureDevice(0);
            GpuEvent e;
            if (k == QLatin1String("K")) {
                e.nameId = nameId(p[1]);
                e.startNs = p[2].toLongLong();
                e.endNs = p[3].toLongLong();
                e.stream = streamIndex(p.size() > 4 ? p[4].toLongLong() : 0);
            } else {
                e.kind = k == QLatin1String("C") ? GpuEventKind::Memcpy : GpuEventKind::Memset;
                e.nameId = nameId(k == QLatin1String("C") ? QStringLiteral("Memcpy HtoD") : QStringLiteral("Memset"));
                e.startNs = p[1].toLongLong();
                e.endNs = p[2].toLongLong();
                e.stream = streamIndex(0);
            }
            dev->events.push_back(e);
        }
    }
    return tl;
}

} // namespace goblin::test
