#include "formatting.h"

#include <cmath>

namespace goblin {

namespace {
const QString kMissing = QStringLiteral("—");

QString threeSignificant(double value)
{
    const double magnitude = std::fabs(value);
    const int decimals = magnitude >= 100.0 ? 0 : magnitude >= 10.0 ? 1 : 2;
    return QString::number(value, 'f', decimals);
}
} // namespace

QString formatDurationNs(double ns)
{
    if (std::isnan(ns))
        return kMissing;
    const double magnitude = std::fabs(ns);
    if (magnitude < 1e3)
        return QStringLiteral("%1 ns").arg(QString::number(ns, 'f', 0));
    if (magnitude < 1e6)
        return QStringLiteral("%1 µs").arg(threeSignificant(ns / 1e3));
    if (magnitude < 1e9)
        return QStringLiteral("%1 ms").arg(threeSignificant(ns / 1e6));
    return QStringLiteral("%1 s").arg(QString::number(ns / 1e9, 'f', 3));
}

QString formatSeconds(double seconds)
{
    if (std::isnan(seconds))
        return kMissing;
    if (seconds == 0.0)
        return QStringLiteral("0 s");
    const double magnitude = std::fabs(seconds);
    if (magnitude >= 1.0)
        return QStringLiteral("%1 s").arg(QString::number(seconds, 'f', 3));
    if (magnitude >= 1e-3)
        return QStringLiteral("%1 ms").arg(threeSignificant(seconds * 1e3));
    if (magnitude >= 1e-6)
        return QStringLiteral("%1 µs").arg(threeSignificant(seconds * 1e6));
    return QStringLiteral("%1 ns").arg(threeSignificant(seconds * 1e9));
}

QString formatPercent(double pct, int decimals)
{
    if (std::isnan(pct))
        return kMissing;
    return QStringLiteral("%1 %").arg(QString::number(pct, 'f', decimals));
}

QString formatGb(double gb)
{
    if (std::isnan(gb))
        return kMissing;
    return QStringLiteral("%1 GB").arg(QString::number(gb, 'f', 1));
}

QString formatNumber(double value, int decimals)
{
    if (std::isnan(value))
        return kMissing;
    return QString::number(value, 'f', decimals);
}

QString describeSeconds(double s)
{
    if (std::fabs(s) >= 1.0)
        return QString::number(s, 'g', 4) + QStringLiteral(" s");
    return QString::number(s * 1e3, 'g', 4) + QStringLiteral(" ms");
}

} // namespace goblin
