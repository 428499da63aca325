#include "chrometraceexport.h"

#include "exportfile.h"
#include "redaction.h"

#include <QDir>
#include <QFileInfo>
#include <QIODevice>
#include <QRegularExpression>
#include <algorithm>
#include <cstdio>
#include <limits>
#include <vector>

namespace goblin {

namespace {

/// One device of the run with the windows it is cut into (its own steps or N equal ones).
struct DeviceWindows {
    const GpuTimeline *timeline = nullptr;
    const DeviceTimelineAnalysis *analysis = nullptr;
    const FileTimelineSummary *file = nullptr;
    int source = 0;  ///< 0 kernel trace, 1 torch trace
    std::vector<TimeInterval> windows;
};

std::vector<DeviceWindows> devicesOf(const RunAnalysis &run, std::optional<int> equalSteps)
{
    std::vector<DeviceWindows> out;
    const auto add = [&](const TimelineAnalysis &analysis, const GpuTimeline &timeline, int source) {
        for (const DeviceTimelineAnalysis &d : analysis.devices) {
            if (d.fileIndex >= timeline.files.size() || d.fileIndex >= analysis.files.size())
                continue;
            DeviceWindows w{&timeline, &d, &analysis.files[d.fileIndex], source, d.stepWindows};
            // As the Timeline view does with the step field: only devices without marks are re-cut.
            if (equalSteps && *equalSteps >= 1 && d.stepsKind == TimelineStepsKind::WholeSpan)
                w.windows = equalWindows(w.file->kernelFirstNs, w.file->kernelLastNs, *equalSteps);
            out.push_back(std::move(w));
        }
    };
    add(run.kernelTimeline, run.kernels.timeline, 0);
    add(run.torchTimeline, run.torch.timeline, 1);
    return out;
}

/// The Timeline view's strip rule: the event overlaps [start, end); a zero-length event on the
/// window's start counts.
bool overlaps(qint64 startNs, qint64 endNs, const TimeInterval &w)
{
    if (startNs >= w.endNs)
        return false;
    if (endNs > w.startNs)
        return true;
    return endNs == startNs && startNs == w.startNs;
}

void appendJsonString(QByteArray &out, const QString &text)
{
    out += '"';
    const QByteArray utf8 = text.toUtf8();
    for (const char c : utf8) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(static_cast<unsigned char>(c)));
                out += buf;
            } else {
                out += c;
            }
        }
    }
    out += '"';
}

/// Nanoseconds as microseconds with the nanoseconds kept ("1234.567").
QByteArray micros(qint64 ns)
{
    const bool negative = ns < 0;
    const quint64 a = negative ? quint64(-(ns + 1)) + 1 : quint64(ns);
    QByteArray s = QByteArray::number(a / 1000);
    const quint64 frac = a % 1000;
    if (frac) {
        QByteArray f = QByteArray::number(frac).rightJustified(3, '0');
        while (f.endsWith('0'))
            f.chop(1);
        s += '.' + f;
    }
    return negative ? '-' + s : s;
}

struct Slice {
    qint64 startNs = 0, endNs = 0;
    int pid = 0;
    qint64 tid = 0;
    int source = 0;
    const char *cat = "";
    QString name;
};

struct Track {
    int pid = 0;
    qint64 tid = 0;
    QString name;
};

struct Process {
    int pid = 0;
    QString name;
    int sortIndex = 0;
};

QString sourceName(int source) { return source == 0 ? QStringLiteral("kernel trace") : QStringLiteral("torch trace"); }

const char *categoryOf(GpuEventKind kind)
{
    switch (kind) {
    case GpuEventKind::Memcpy: return "gpu_memcpy";
    case GpuEventKind::Memset: return "gpu_memset";
    case GpuEventKind::Kernel: break;
    }
    return "kernel";
}

} // namespace

int chromeTraceStepCount(const RunAnalysis &run, std::optional<int> equalSteps)
{
    int n = 0;
    for (const DeviceWindows &d : devicesOf(run, equalSteps))
        n = std::max(n, int(d.windows.size()));
    return n;
}

ChromeTraceExport buildChromeTrace(const RunAnalysis &run, const ChromeTraceOptions &options)
{
    ChromeTraceExport result;
    std::vector<DeviceWindows> devices = devicesOf(run, options.equalSteps);
    if (devices.empty()) {
        result.error = QStringLiteral("%1 has no GPU timeline (no kernel trace rows, no GPU events in a torch trace): "
                                      "nothing to export")
                           .arg(run.runName);
        return result;
    }
    const int stepCount = chromeTraceStepCount(run, options.equalSteps);
    if (options.step && (*options.step < 0 || *options.step >= stepCount)) {
        result.error = QStringLiteral("%1 has no step %2: its timelines have steps 0 to %3")
                           .arg(run.runName)
                           .arg(*options.step)
                           .arg(stepCount - 1);
        return result;
    }
    // Devices in a stable, readable order: source, rank, device (as the Timeline view sorts them).
    std::stable_sort(devices.begin(), devices.end(), [](const DeviceWindows &a, const DeviceWindows &b) {
        const int ra = a.analysis->rank.value_or(std::numeric_limits<int>::max());
        const int rb = b.analysis->rank.value_or(std::numeric_limits<int>::max());
        if (a.source != b.source)
            return a.source < b.source;
        if (ra != rb)
            return ra < rb;
        if (a.analysis->fileIndex != b.analysis->fileIndex)
            return a.analysis->fileIndex < b.analysis->fileIndex;
        return a.analysis->device < b.analysis->device;
    });

    std::vector<Slice> slices;
    std::vector<Track> tracks;
    std::vector<Process> processes;
    int nextPid = 1;
    // Host lanes once per trace file: the window of the file's first device.
    std::vector<std::pair<const GpuTimelineFile *, int>> hostDone;
    // Every name as exported, redacted once per distinct name of a file (names are interned).
    std::vector<std::pair<const GpuTimelineFile *, std::vector<std::optional<QString>>>> exportedNames;
    const auto exportedName = [&](const GpuTimelineFile &file, std::uint32_t nameId) -> QString {
        if (nameId >= file.names.size())
            return {};
        auto it = std::find_if(exportedNames.begin(), exportedNames.end(),
                               [&](const auto &entry) { return entry.first == &file; });
        if (it == exportedNames.end())
            it = exportedNames.insert(exportedNames.end(), {&file, std::vector<std::optional<QString>>(file.names.size())});
        std::optional<QString> &name = it->second[nameId];
        if (!name)
            name = redactSecrets(QString::fromStdString(file.names[nameId]));
        return *name;
    };

    for (const DeviceWindows &dw : devices) {
        const DeviceTimelineAnalysis &d = *dw.analysis;
        const GpuTimelineFile &file = dw.timeline->files[d.fileIndex];
        if (d.deviceIndex >= file.devices.size())
            continue;
        const GpuDeviceTimeline &dev = file.devices[d.deviceIndex];
        std::optional<TimeInterval> window;
        if (options.step) {
            if (*options.step >= int(dw.windows.size()))
                continue;  // this device has fewer steps
            window = dw.windows[std::size_t(*options.step)];
        }
        const QString rank = d.rank ? QStringLiteral("r%1 · ").arg(*d.rank) : QString();
        const int pid = nextPid++;
        processes.push_back({pid, QStringLiteral("%1d%2 · %3 (%4)").arg(rank).arg(d.device).arg(sourceName(dw.source), d.file),
                             pid});
        ++result.deviceCount;
        std::vector<bool> streamUsed(dev.streams.size(), false);
        for (const GpuEvent e : dev.events) {
            if (window && !overlaps(e.startNs, e.endNs, *window))
                continue;
            const qint64 stream = e.stream < dev.streams.size() ? dev.streams[e.stream] : qint64(e.stream);
            if (e.stream < streamUsed.size())
                streamUsed[e.stream] = true;
            slices.push_back({e.startNs, e.endNs, pid, stream, dw.source, categoryOf(e.kind), exportedName(file, e.nameId)});
            ++result.gpuEventCount;
        }
        for (std::size_t s = 0; s < dev.streams.size(); ++s)
            if (streamUsed[s])
                tracks.push_back({pid, dev.streams[s], QStringLiteral("stream %1").arg(dev.streams[s])});

        const bool hostSeen = std::any_of(hostDone.begin(), hostDone.end(),
                                          [&](const auto &h) { return h.first == &file; });
        if (hostSeen)
            continue;
        hostDone.push_back({&file, dw.source});
        if (file.steps.empty() && file.hostBusy.empty() && file.dataLoading.empty())
            continue;
        const int hostPid = nextPid++;
        processes.push_back({hostPid, QStringLiteral("%1host · %2 (%3)").arg(rank, sourceName(dw.source), file.file), hostPid});
        bool anyHost = false;
        const auto clipped = [&](const TimeInterval &iv, qint64 tid, const char *cat, const QString &name) {
            TimeInterval x = iv;
            if (window) {
                if (!overlaps(iv.startNs, iv.endNs, *window))
                    return;
                x.startNs = std::max(x.startNs, window->startNs);
                x.endNs = std::min(x.endNs, window->endNs);
            }
            slices.push_back({x.startNs, x.endNs, hostPid, tid, dw.source, cat, name});
            anyHost = true;
        };
        // The step marks: for a step, the one whose window it is (else the file's marks that overlap).
        for (const StepWindow &sw : file.steps) {
            if (window && !overlaps(sw.startNs, sw.endNs, *window))
                continue;
            // A step mark is not clipped: it is one event of the trace.
            slices.push_back({sw.startNs, sw.endNs, hostPid, 0, dw.source, "step", redactSecrets(sw.name)});
            anyHost = true;
        }
        for (const TimeInterval &iv : file.hostBusy)
            clipped(iv, 1, "host_busy", QStringLiteral("CPU ops running"));
        for (const TimeInterval &iv : file.dataLoading)
            clipped(iv, 2, "data_loading", QStringLiteral("data loading"));
        if (anyHost) {
            tracks.push_back({hostPid, 0, QStringLiteral("steps")});
            tracks.push_back({hostPid, 1, QStringLiteral("CPU ops (union)")});
            tracks.push_back({hostPid, 2, QStringLiteral("data loading")});
        }
    }
    if (slices.empty()) {
        result.error = options.step ? QStringLiteral("%1: step %2 holds no event").arg(run.runName).arg(*options.step)
                                    : QStringLiteral("%1: the timelines hold no event").arg(run.runName);
        return result;
    }

    // Each source on its own clock starts at 0: the first exported event of the source.
    qint64 origin[2] = {std::numeric_limits<qint64>::max(), std::numeric_limits<qint64>::max()};
    for (const Slice &s : slices)
        origin[s.source] = std::min(origin[s.source], s.startNs);
    std::stable_sort(slices.begin(), slices.end(), [](const Slice &a, const Slice &b) {
        return a.pid != b.pid ? a.pid < b.pid : a.startNs < b.startNs;
    });

    QByteArray &out = result.json;
    out.reserve(qsizetype(slices.size()) * 140 + 4096);
    out += "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"exported_by\":\"goblin-workbench " GOBLIN_VERSION "\",\"run\":";
    appendJsonString(out, redactSecrets(run.runName));
    out += ",\"window\":";
    appendJsonString(out, options.step ? QStringLiteral("step %1").arg(*options.step) : QStringLiteral("whole run"));
    out += ",\"clock\":\"ts in microseconds from the first exported event of each source (kernel trace, torch trace)\"},"
           "\n\"traceEvents\":[\n";
    bool first = true;
    const auto comma = [&] {
        if (!first)
            out += ",\n";
        first = false;
    };
    for (const Process &p : processes) {
        comma();
        out += "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + QByteArray::number(p.pid) + ",\"tid\":0,\"args\":{\"name\":";
        appendJsonString(out, redactSecrets(p.name));  // holds the file's path
        out += "}},\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" + QByteArray::number(p.pid) +
               ",\"tid\":0,\"args\":{\"sort_index\":" + QByteArray::number(p.sortIndex) + "}}";
    }
    for (const Track &t : tracks) {
        comma();
        out += "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" + QByteArray::number(t.pid) +
               ",\"tid\":" + QByteArray::number(t.tid) + ",\"args\":{\"name\":";
        appendJsonString(out, t.name);
        out += "}}";
    }
    for (const Slice &s : slices) {
        comma();
        out += "{\"ph\":\"X\",\"cat\":\"";
        out += s.cat;
        out += "\",\"name\":";
        appendJsonString(out, s.name);
        out += ",\"pid\":" + QByteArray::number(s.pid) + ",\"tid\":" + QByteArray::number(s.tid) +
               ",\"ts\":" + micros(s.startNs - origin[s.source]) + ",\"dur\":" + micros(s.endNs - s.startNs) + "}";
        ++result.sliceCount;
    }
    out += "\n]}\n";
    return result;
}

bool isInsideRunFolder(const QString &path, const QString &runDir)
{
    const QFileInfo run(runDir);
    const QString dir = run.exists() && !run.isDir() ? QFileInfo(run.absolutePath()).canonicalFilePath()
                                                     : QDir(runDir).canonicalPath();
    const QString fileDir = QFileInfo(QFileInfo(path).absolutePath()).canonicalFilePath();
    return !dir.isEmpty() && !fileDir.isEmpty() && (fileDir == dir || fileDir.startsWith(dir + QLatin1Char('/')));
}

bool writeChromeTrace(const RunAnalysis &run, const ChromeTraceOptions &options, const QString &path, QString *error,
                      ChromeTraceExport *written)
{
    if (isInsideRunFolder(path, run.runDir)) {
        if (error)
            *error = QStringLiteral("%1 is inside the run folder %2; the workbench never writes into a run folder")
                         .arg(path, run.runDir);
        return false;
    }
    ChromeTraceExport trace = buildChromeTrace(run, options);
    if (!trace.ok()) {
        if (error)
            *error = trace.error;
        return false;
    }
    const bool ok = writeExportFile(path, [&](QIODevice &device) { return device.write(trace.json) == trace.json.size(); },
                                    error);
    if (ok && written)
        *written = std::move(trace);
    return ok;
}

QString chromeTraceFileName(const RunAnalysis &run, std::optional<int> step)
{
    QString base = run.runName.isEmpty() ? QStringLiteral("run") : run.runName;
    base.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]+")), QStringLiteral("_"));
    return step ? QStringLiteral("%1-step%2.trace.json").arg(base).arg(*step) : base + QStringLiteral(".trace.json");
}

} // namespace goblin
