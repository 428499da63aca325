#include "sweepjson.h"

#include "commandline.h"
#include "csvexport.h"

#include <QJsonArray>
#include <cmath>

namespace goblin {

namespace {

QJsonValue number(double v)
{
    return std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null);
}

} // namespace

QJsonObject sweepJson(SweepThreshold which, const std::vector<SweepPoint> &curve, const QStringList &command)
{
    QJsonArray pointArray;
    for (const SweepPoint &p : sampledPoints(curve)) {
        QJsonObject budget;
        for (int b = 0; b < WasteBudget::BucketCount; ++b)
            budget.insert(WasteBudget::bucketKey(b), number(p.budget.bucket(b)));
        if (p.profile == HeuristicsProfile::Workbench)  // as the report has it
            budget.insert(QStringLiteral("unattributed_s"), number(p.budget.unattributed));
        pointArray.append(QJsonObject{{QStringLiteral("value"), p.value}, {QStringLiteral("waste_budget"), budget}});
    }
    QJsonArray switches;
    for (const SwitchPoint &s : switchPoints(curve))
        switches.append(QJsonObject{{QStringLiteral("bucket"), s.bucket},
                                    {QStringLiteral("value"), s.value},
                                    {QStringLiteral("switches"), s.on ? QStringLiteral("on") : QStringLiteral("off")}});
    QJsonObject out{{QStringLiteral("threshold"), sweepThresholdName(which)},
                    {QStringLiteral("points"), pointArray},
                    {QStringLiteral("switch_points"), switches}};
    if (!command.isEmpty())
        out.insert(QStringLiteral("command"), commandJson(command));
    return out;
}

QByteArray sweepCsv(const std::vector<SweepPoint> &curve)
{
    const std::vector<SweepPoint> points = sampledPoints(curve);
    QStringList header{QStringLiteral("value")};
    for (int b = 0; b < WasteBudget::BucketCount; ++b)
        header << WasteBudget::bucketKey(b);
    QByteArray out = csvLine(header).toUtf8() + '\n';
    for (const SweepPoint &p : points) {
        QStringList row{exactNumberText(p.value)};
        for (int b = 0; b < WasteBudget::BucketCount; ++b)
            row << (std::isfinite(p.budget.bucket(b)) ? exactNumberText(p.budget.bucket(b)) : QString());
        out += csvLine(row).toUtf8() + '\n';
    }
    return out;
}

} // namespace goblin
