#include "testsupport.h"

#include "results/hostlanes.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <cmath>

#include <zlib.h>

namespace goblin::test {

QString timelineFileDigest(const GpuTimelineFile &f, bool withHostLanes)
{
    QString out;
    out += QStringLiteral("%1 %2 rank %3\n").arg(f.source, f.file).arg(f.rank ? *f.rank : -1);
    for (const GpuDeviceTimeline &d : f.devices) {
        out += QStringLiteral("device %1 pid %2 rank %3 file %4 streams").arg(d.device).arg(d.pid).arg(d.rank ? *d.rank : -1).arg(d.file);
        for (qint64 s : d.streams)
            out += QStringLiteral(" %1").arg(s);
        out += QLatin1Char('\n');
        for (const GpuEvent &e : d.events)
            out += QStringLiteral("%1 %2 %3 %4 %5\n")
                       .arg(e.startNs)
                       .arg(e.endNs)
                       .arg(int(e.kind))
                       .arg(d.streams.at(e.stream))
                       .arg(QString::fromStdString(f.names.at(e.nameId)));
    }
    for (const StepWindow &s : f.steps)
        out += QStringLiteral("step %1 %2 %3 %4\n").arg(s.name).arg(s.startNs).arg(s.endNs).arg(s.gpuLane);
    for (const TimeInterval &i : f.hostBusy)
        out += QStringLiteral("host %1 %2\n").arg(i.startNs).arg(i.endNs);
    if (const HostLanes *hl = withHostLanes ? f.hostLanes.get() : nullptr) {
        // The host lanes, lane by lane, with names as text (ids depend on the reading's order).
        for (const HostThread &t : hl->threads)
            out += QStringLiteral("thread %1 %2 depths %3\n").arg(t.pid).arg(t.tid).arg(t.depths);
        for (const HostLane &lane : hl->lanes)
            for (std::uint32_t i = lane.begin; i < lane.end; ++i) {
                const HostSlice &s = hl->slices.at(i);
                out += QStringLiteral("slice %1/%2 %3 %4 %5 %6\n")
                           .arg(s.thread)
                           .arg(s.depth)
                           .arg(s.startNs)
                           .arg(s.endNs)
                           .arg(int(s.kind))
                           .arg(QString::fromStdString(hl->names.at(s.nameId)));
            }
        for (const RuntimeCorrelation &c : hl->runtimeByCorrelation)
            out += QStringLiteral("launch %1 at %2\n").arg(c.correlation).arg(hl->slices.at(c.slice).startNs);
        for (const GpuCorrelation &g : hl->gpuByPlace)
            out += QStringLiteral("gpu %1 %2 %3 %4\n").arg(g.device).arg(g.stream).arg(g.startNs).arg(g.correlation);
        out += QStringLiteral("too deep %1\n").arg(hl->tooDeep);
    }
    return out;
}


QString dataPath(const QString &relative)
{
    return QDir(QStringLiteral(GOBLIN_TEST_DATA)).filePath(relative);
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

QByteArray readGunzipped(const QString &path)
{
    QByteArray out;
    gzFile f = gzopen(QFile::encodeName(path).constData(), "rb");
    if (!f)
        return out;
    char buffer[65536];
    int n;
    while ((n = gzread(f, buffer, sizeof buffer)) > 0)
        out.append(buffer, n);
    gzclose(f);
    return out;
}

static QString show(const QJsonValue &v)
{
    if (v.isObject())
        return QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact)).left(200);
    if (v.isArray())
        return QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact)).left(200);
    if (v.isDouble())
        return QString::number(v.toDouble(), 'g', 17);
    if (v.isString())
        return QLatin1Char('"') + v.toString().left(200) + QLatin1Char('"');
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    return v.isNull() ? QStringLiteral("null") : QStringLiteral("<undefined>");
}

bool jsonNearlyEqual(const QJsonValue &expected, const QJsonValue &actual, double tol, QString *difference,
                     const QString &path)
{
    auto fail = [&](const QString &why) {
        if (difference)
            *difference = QStringLiteral("%1: %2 (expected %3, actual %4)").arg(path, why, show(expected), show(actual));
        return false;
    };
    if (expected.isDouble() && actual.isDouble()) {
        const double e = expected.toDouble(), a = actual.toDouble();
        const double scale = std::max(std::fabs(e), std::fabs(a));
        if (std::fabs(e - a) <= std::max(tol * scale, 1e-15))
            return true;
        return fail(QStringLiteral("numbers differ"));
    }
    if (expected.type() != actual.type())
        return fail(QStringLiteral("types differ"));
    if (expected.isObject()) {
        const QJsonObject eo = expected.toObject(), ao = actual.toObject();
        for (auto it = eo.begin(); it != eo.end(); ++it) {
            if (!ao.contains(it.key()))
                return fail(QStringLiteral("key '%1' missing").arg(it.key()));
            if (!jsonNearlyEqual(it.value(), ao.value(it.key()), tol, difference, path + QLatin1Char('.') + it.key()))
                return false;
        }
        for (auto it = ao.begin(); it != ao.end(); ++it)
            if (!eo.contains(it.key()))
                return fail(QStringLiteral("unexpected key '%1'").arg(it.key()));
        return true;
    }
    if (expected.isArray()) {
        const QJsonArray ea = expected.toArray(), aa = actual.toArray();
        if (ea.size() != aa.size())
            return fail(QStringLiteral("array sizes differ (%1 vs %2)").arg(ea.size()).arg(aa.size()));
        for (qsizetype i = 0; i < ea.size(); ++i)
            if (!jsonNearlyEqual(ea[i], aa[i], tol, difference, path + QStringLiteral("[%1]").arg(i)))
                return false;
        return true;
    }
    if (expected != actual)
        return fail(QStringLiteral("values differ"));
    return true;
}

namespace {

bool hasType(const QJsonValue &v, const QString &type)
{
    if (type == QLatin1String("object"))
        return v.isObject();
    if (type == QLatin1String("array"))
        return v.isArray();
    if (type == QLatin1String("string"))
        return v.isString();
    if (type == QLatin1String("number"))
        return v.isDouble();
    if (type == QLatin1String("integer"))
        return v.isDouble() && std::floor(v.toDouble()) == v.toDouble();
    if (type == QLatin1String("boolean"))
        return v.isBool();
    if (type == QLatin1String("null"))
        return v.isNull();
    return false;
}

void validate(const QJsonValue &v, const QJsonObject &s, const QJsonObject &root, const QString &path, QStringList &errors)
{
    static const QStringList known = {"$schema", "$id", "title", "description", "type", "enum", "const", "properties",
                                      "required", "additionalProperties", "items", "$ref", "minimum", "maximum",
                                      "maxItems", "minLength", "$defs"};
    for (auto it = s.begin(); it != s.end(); ++it)
        if (!known.contains(it.key()))
            errors << QStringLiteral("%1: schema keyword '%2' is not supported by the test validator").arg(path, it.key());
    if (s.contains(QLatin1String("$ref"))) {
        const QString ref = s.value(QLatin1String("$ref")).toString();
        const QString prefix = QStringLiteral("#/$defs/");
        if (!ref.startsWith(prefix) || !root.value(QLatin1String("$defs")).toObject().contains(ref.mid(prefix.size()))) {
            errors << QStringLiteral("%1: unresolvable $ref %2").arg(path, ref);
            return;
        }
        validate(v, root.value(QLatin1String("$defs")).toObject().value(ref.mid(prefix.size())).toObject(), root, path, errors);
    }
    if (s.contains(QLatin1String("type"))) {
        const QJsonValue t = s.value(QLatin1String("type"));
        QStringList types;
        if (t.isArray())
            for (const QJsonValue &x : t.toArray())
                types << x.toString();
        else
            types << t.toString();
        bool any = false;
        for (const QString &type : types)
            any = any || hasType(v, type);
        if (!any) {
            errors << QStringLiteral("%1: expected type %2").arg(path, types.join(QLatin1Char('|')));
            return;
        }
    }
    if (s.contains(QLatin1String("enum")) && !s.value(QLatin1String("enum")).toArray().contains(v))
        errors << QStringLiteral("%1: value not in enum").arg(path);
    if (s.contains(QLatin1String("const")) && s.value(QLatin1String("const")) != v)
        errors << QStringLiteral("%1: value differs from const").arg(path);
    if (v.isDouble()) {
        if (s.contains(QLatin1String("minimum")) && v.toDouble() < s.value(QLatin1String("minimum")).toDouble())
            errors << QStringLiteral("%1: below minimum").arg(path);
        if (s.contains(QLatin1String("maximum")) && v.toDouble() > s.value(QLatin1String("maximum")).toDouble())
            errors << QStringLiteral("%1: above maximum").arg(path);
    }
    if (v.isString() && s.contains(QLatin1String("minLength")) &&
        v.toString().size() < s.value(QLatin1String("minLength")).toInt())
        errors << QStringLiteral("%1: string too short").arg(path);
    if (v.isObject()) {
        const QJsonObject o = v.toObject();
        const QJsonObject props = s.value(QLatin1String("properties")).toObject();
        for (const QJsonValue &r : s.value(QLatin1String("required")).toArray())
            if (!o.contains(r.toString()))
                errors << QStringLiteral("%1: missing required '%2'").arg(path, r.toString());
        for (auto it = o.begin(); it != o.end(); ++it) {
            if (props.contains(it.key()))
                validate(it.value(), props.value(it.key()).toObject(), root, path + QLatin1Char('.') + it.key(), errors);
            else if (s.value(QLatin1String("additionalProperties")) == QJsonValue(false))
                errors << QStringLiteral("%1: unexpected property '%2'").arg(path, it.key());
        }
    }
    if (v.isArray()) {
        const QJsonArray a = v.toArray();
        if (s.contains(QLatin1String("maxItems")) && a.size() > s.value(QLatin1String("maxItems")).toInt())
            errors << QStringLiteral("%1: too many items").arg(path);
        if (s.contains(QLatin1String("items")))
            for (qsizetype i = 0; i < a.size(); ++i)
                validate(a[i], s.value(QLatin1String("items")).toObject(), root, path + QStringLiteral("[%1]").arg(i), errors);
    }
}

} // namespace

QStringList validateJsonSchema(const QJsonValue &instance, const QJsonObject &schema)
{
    QStringList errors;
    validate(instance, schema, schema, QStringLiteral("$"), errors);
    return errors;
}

AppRun runApp(const QStringList &arguments)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));  // the command-line commands must not need one
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(GOBLIN_APP_BINARY), arguments);
    if (!p.waitForFinished(120000))
        return {};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

} // namespace goblin::test
