#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>

namespace goblin::test {

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

} // namespace goblin::test
