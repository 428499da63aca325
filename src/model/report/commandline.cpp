#include "commandline.h"

#include "report.h"

#include <QLocale>

namespace goblin {

QString exactNumberText(double value)
{
    return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

QStringList thresholdArguments(HeuristicsProfile profile, const Thresholds &thresholds)
{
    QStringList out{QStringLiteral("--profile"), profileName(profile), QStringLiteral("--precision"),
                    precisionName(thresholds.precision)};
    if (thresholds.steps)
        out << QStringLiteral("--steps") << QString::number(*thresholds.steps);
    out << QStringLiteral("--gpu-util-below") << exactNumberText(thresholds.gpuUtilBelowPct)
        << QStringLiteral("--host-busy-above") << exactNumberText(thresholds.hostBusyAbove)
        << QStringLiteral("--hbm-target") << exactNumberText(thresholds.hbmTargetPct)
        << QStringLiteral("--hbm-capacity-gb") << exactNumberText(thresholds.hbmCapacityGb);
    return out;
}

QStringList reproducingCommand(const QString &command, const QStringList &positional, HeuristicsProfile profile,
                               const Thresholds &thresholds, const QStringList &extra)
{
    return QStringList{QString::fromLatin1(kGeneratorName), command} + positional +
           thresholdArguments(profile, thresholds) + extra;
}

QJsonArray commandJson(const QStringList &argv)
{
    return QJsonArray::fromStringList(argv);
}

} // namespace goblin
