#include "budgetjson.h"

#include <cmath>

namespace goblin {

QJsonValue finiteJson(double value)
{
    return std::isfinite(value) ? QJsonValue(value) : QJsonValue(QJsonValue::Null);
}

QJsonObject wasteBudgetJson(const WasteBudget &b)
{
    QJsonObject o;
    for (int i = 0; i < WasteBudget::BucketCount; ++i)
        o.insert(WasteBudget::bucketKey(i), finiteJson(b.bucket(i)));
    o.insert(QStringLiteral("unattributed_s"), finiteJson(b.unattributed));
    return o;
}

} // namespace goblin
