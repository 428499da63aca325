// The roofs of the GPU table (resources/gpus.json): read once, matched as the memory entries are.
#include "gpuroofs.h"

#include "gpunames.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace goblin {

const char *gpuTableJson();  // gpustable.cpp, generated from resources/gpus.json

namespace {

struct RoofVariant {
    QStringList match, exclude;
    RoofTableRow row;
};
struct RoofEntry {
    QStringList match, exclude;
    QString model;
    std::vector<RoofVariant> variants;
};

QStringList strings(const QJsonValue &v)
{
    QStringList out;
    for (const QJsonValue &s : v.toArray())
        out << s.toString();
    return out;
}

/// {"value": x, "source": "key"}: the value with its source's text; a problem when either is missing.
RoofValue readValue(const QJsonValue &v, const QJsonObject &sources, const QString &what, QStringList &problems)
{
    RoofValue out;
    const QJsonObject o = v.toObject();
    if (o.value(QLatin1String("value")).isDouble() && o.value(QLatin1String("value")).toDouble() > 0)
        out.value = o.value(QLatin1String("value")).toDouble();
    else
        problems << QStringLiteral("%1 has no positive value").arg(what);
    const QString key = o.value(QLatin1String("source")).toString();
    out.source = sources.value(key).toString();
    if (out.source.isEmpty())
        problems << QStringLiteral("%1 has no source (source key '%2' is not in roof_sources)").arg(what, key);
    return out;
}

std::vector<RoofEntry> loadRoofs(const QByteArray &json)
{
    std::vector<RoofEntry> out;
    const QJsonObject doc = QJsonDocument::fromJson(json).object();
    const QJsonObject sources = doc.value(QLatin1String("roof_sources")).toObject();
    for (const QJsonValue &v : doc.value(QLatin1String("gpus")).toArray()) {
        const QJsonObject o = v.toObject();
        RoofEntry e;
        e.match = strings(o.value(QLatin1String("match")));
        e.exclude = strings(o.value(QLatin1String("exclude")));
        e.model = o.value(QLatin1String("model")).toString();
        for (const QJsonValue &rv : o.value(QLatin1String("roofs")).toArray()) {
            const QJsonObject r = rv.toObject();
            RoofVariant variant;
            variant.match = strings(r.value(QLatin1String("match")));
            variant.exclude = strings(r.value(QLatin1String("exclude")));
            RoofTableRow &row = variant.row;
            row.entryModel = e.model;
            row.variantModel = r.value(QLatin1String("model")).toString();
            row.roof.known = true;
            row.roof.model = row.variantModel;
            row.roof.note = r.value(QLatin1String("note")).toString();
            const QJsonObject peaks = r.value(QLatin1String("peak_tflops")).toObject();
            const QJsonObject achievable = r.value(QLatin1String("achievable_tflops")).toObject();
            for (int d = 0; d < kRoofDtypeCount; ++d) {
                const QString key = roofDtypeKey(RoofDtype(d));
                if (peaks.contains(key))
                    row.roof.peakTflops[size_t(d)] =
                        readValue(peaks.value(key), sources, QStringLiteral("peak_tflops.%1").arg(key), row.problems);
                if (achievable.contains(key))
                    row.roof.achievableTflops[size_t(d)] = readValue(
                        achievable.value(key), sources, QStringLiteral("achievable_tflops.%1").arg(key), row.problems);
            }
            for (const QString &key : peaks.keys() + achievable.keys()) {
                bool knownKey = false;
                for (int d = 0; d < kRoofDtypeCount; ++d)
                    knownKey = knownKey || key == roofDtypeKey(RoofDtype(d));
                if (!knownKey)
                    row.problems << QStringLiteral("'%1' is no datatype of the roof").arg(key);
            }
            if (peaks.isEmpty())
                row.problems << QStringLiteral("no peak_tflops");
            if (r.contains(QLatin1String("hbm_tbps")))
                row.roof.hbmTbps = readValue(r.value(QLatin1String("hbm_tbps")), sources, QStringLiteral("hbm_tbps"),
                                             row.problems);
            else
                row.problems << QStringLiteral("no hbm_tbps");
            e.variants.push_back(std::move(variant));
        }
        if (!e.match.isEmpty())
            out.push_back(std::move(e));
    }
    return out;
}

const std::vector<RoofEntry> &roofs()
{
    static const std::vector<RoofEntry> entries = loadRoofs(QByteArray(gpuTableJson()));  // read once, thread-safe
    return entries;
}

} // namespace

QString roofDtypeKey(RoofDtype dtype)
{
    switch (dtype) {
    case RoofDtype::Fp64: return QStringLiteral("fp64");
    case RoofDtype::Fp32: return QStringLiteral("fp32");
    case RoofDtype::Tf32: return QStringLiteral("tf32");
    case RoofDtype::Bf16: return QStringLiteral("bf16");
    case RoofDtype::Fp16: return QStringLiteral("fp16");
    case RoofDtype::Fp8: return QStringLiteral("fp8");
    case RoofDtype::Int8: return QStringLiteral("int8");
    case RoofDtype::Count: break;
    }
    return {};
}

GpuRoof gpuRoofFromName(const QString &deviceName)
{
    GpuRoof unknown;
    unknown.deviceName = deviceName;
    const QString s = squeezedGpuName(deviceName);
    if (s.isEmpty()) {
        unknown.reason = QStringLiteral("no GPU name in the run's files");
        return unknown;
    }
    for (const RoofEntry &e : roofs()) {
        if (!gpuNameMatches(s, e.match, e.exclude))
            continue;  // the first entry that matches wins, as for the memory
        for (const RoofVariant &v : e.variants)
            if (gpuNameMatches(s, v.match, v.exclude)) {
                GpuRoof out = v.row.roof;
                out.deviceName = deviceName;
                return out;
            }
        unknown.reason = e.variants.empty()
                             ? QStringLiteral("the GPU table has no roof for %1 ('%2')").arg(e.model, deviceName)
                             : QStringLiteral("the name '%1' does not say which %2 it is (the roofs differ)")
                                   .arg(deviceName, e.model);
        return unknown;
    }
    unknown.reason = QStringLiteral("the GPU table does not know '%1'").arg(deviceName);
    return unknown;
}

GpuRoof decideGpuRoof(const DeviceFacts &devices)
{
    std::optional<GpuRoof> chosen;
    for (const DeviceFact &d : devices.devices) {
        if (d.model.isEmpty())
            continue;
        GpuRoof roof = gpuRoofFromName(d.model);
        if (!chosen) {
            chosen = std::move(roof);
            continue;
        }
        if (roof.known != chosen->known || roof.model != chosen->model) {
            GpuRoof mixed;
            mixed.deviceName = chosen->deviceName;
            mixed.reason = QStringLiteral("the run's devices name different GPUs ('%1', '%2')")
                               .arg(chosen->deviceName, d.model);
            return mixed;
        }
    }
    if (chosen)
        return *chosen;
    GpuRoof none;
    none.reason = QStringLiteral("no GPU name in the run's files");
    return none;
}

std::vector<RoofTableRow> gpuRoofTable(const QByteArray &tableJson)
{
    std::vector<RoofTableRow> out;
    const std::vector<RoofEntry> parsed = tableJson.isEmpty() ? std::vector<RoofEntry>() : loadRoofs(tableJson);
    for (const RoofEntry &e : tableJson.isEmpty() ? roofs() : parsed)
        for (const RoofVariant &v : e.variants)
            out.push_back(v.row);
    return out;
}

} // namespace goblin
