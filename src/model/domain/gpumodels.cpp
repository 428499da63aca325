// The shipped table of GPU models (resources/gpus.json) and the one name of a device.
#include "gpunames.h"
#include "devicefacts.h"

#include "results/gputimeline.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace goblin {

const char *gpuTableJson();  // gpustable.cpp, generated from resources/gpus.json

namespace {

struct TableEntry {
    QStringList match, exclude;
    QString model;
    std::vector<int> sizesGb;
    std::optional<double> memoryGb;
    bool sharedMemory = false;
    QString source;
};

std::vector<TableEntry> loadTable()
{
    std::vector<TableEntry> out;
    const QJsonArray gpus =
        QJsonDocument::fromJson(QByteArray(gpuTableJson())).object().value(QLatin1String("gpus")).toArray();
    for (const QJsonValue &v : gpus) {
        const QJsonObject o = v.toObject();
        TableEntry e;
        for (const QJsonValue &m : o.value(QLatin1String("match")).toArray())
            e.match << m.toString();
        for (const QJsonValue &m : o.value(QLatin1String("exclude")).toArray())
            e.exclude << m.toString();
        for (const QJsonValue &m : o.value(QLatin1String("sizes_gb")).toArray())
            e.sizesGb.push_back(m.toInt());
        e.model = o.value(QLatin1String("model")).toString();
        if (o.value(QLatin1String("memory_gb")).isDouble())
            e.memoryGb = o.value(QLatin1String("memory_gb")).toDouble();
        e.sharedMemory = o.value(QLatin1String("shared_memory")).toBool();
        e.source = o.value(QLatin1String("source")).toString();
        if (!e.match.isEmpty())
            out.push_back(std::move(e));
    }
    return out;
}

const std::vector<TableEntry> &table()
{
    static const std::vector<TableEntry> entries = loadTable();  // read once, thread-safe
    return entries;
}

} // namespace

QString squeezedGpuName(const QString &name)
{
    QString s;
    s.reserve(name.size());
    for (const QChar c : name)
        if (c.isLetterOrNumber())
            s += c.toLower();
    return s;
}

bool gpuNameMatches(const QString &squeezedName, const QStringList &match, const QStringList &exclude)
{
    const auto in = [&](const QString &token) { return squeezedName.contains(token); };
    return std::all_of(match.begin(), match.end(), in) && std::none_of(exclude.begin(), exclude.end(), in);
}

std::optional<GpuModelEntry> gpuModelFromName(const QString &name)
{
    const QString s = squeezedGpuName(name);
    if (s.isEmpty())
        return std::nullopt;
    for (const TableEntry &e : table()) {
        if (!gpuNameMatches(s, e.match, e.exclude))
            continue;
        GpuModelEntry out{e.model, e.memoryGb, e.sharedMemory, e.source};
        // A model sold in several sizes: the size the name states wins over the usual one.
        for (const int gb : e.sizesGb)
            if (s.contains(QStringLiteral("%1gb").arg(gb))) {
                out.memoryGb = double(gb);
                break;
            }
        if (out.sharedMemory)
            out.memoryGb.reset();
        return out;
    }
    return std::nullopt;
}

QString deviceDisplayName(int gpu, qint64 traceDevice, bool shortForm)
{
    if (gpu < 0)
        return shortForm ? QStringLiteral("d%1").arg(traceDevice) : QStringLiteral("trace device %1").arg(traceDevice);
    if (traceDevice < 0)  // a device only telemetry knows
        return QStringLiteral("GPU %1").arg(gpu);
    return shortForm ? QStringLiteral("GPU %1 (d%2)").arg(gpu).arg(traceDevice)
                     : QStringLiteral("GPU %1 (trace device %2)").arg(gpu).arg(traceDevice);
}

int gpuIndexInFile(const GpuTimelineFile &file, qint64 device)
{
    // The n-th device of the file in id order is GPU n: the trace numbers devices its own way
    // (ROCm Kineto traces from 2 or 1), amd-smi and the Telemetry tab from 0.
    std::vector<qint64> ids;
    ids.reserve(file.devices.size());
    for (const GpuDeviceTimeline &d : file.devices)
        ids.push_back(d.device);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    const auto it = std::lower_bound(ids.begin(), ids.end(), device);
    return it != ids.end() && *it == device ? int(it - ids.begin()) : -1;
}

QString deviceNameInFile(const GpuTimelineFile &file, qint64 device, bool shortForm)
{
    return deviceDisplayName(gpuIndexInFile(file, device), device, shortForm);
}

QString telemetryGpuName(const DeviceFacts &facts, int gpu, bool shortForm)
{
    // Telemetry counts the GPUs from 0 as each file's devices are counted (GPU 0, 1, …). With one
    // file that describes trace devices, GPU g is that file's device g; with several (a kernel
    // trace beside a torch trace, ranks) each numbers it its own way: the place alone.
    const QString *onlyFile = nullptr;
    qint64 traceDevice = -1;
    for (const DeviceFact &d : facts.devices) {
        if (d.traceDevice < 0)
            continue;
        if (onlyFile && *onlyFile != d.file)
            return deviceDisplayName(gpu, -1, shortForm);
        onlyFile = &d.file;
        if (d.gpu == gpu)
            traceDevice = d.traceDevice;
    }
    return deviceDisplayName(gpu, traceDevice, shortForm);
}

} // namespace goblin
