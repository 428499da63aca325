#pragma once
/// \file One piece of advice (advice.h makes them; Derived holds the run's).

#include <QJsonObject>
#include <QString>

namespace goblin {

struct Advice {
    QString rule;              ///< "data_wait.input_pipeline", …
    QString bucket;            ///< WasteBudget::bucketKey
    double secondsPerStep = 0; ///< equal to the bucket's value
    double shareOfStep = 0;    ///< secondsPerStep / step time
    QString text;
    QJsonObject evidence;      ///< the numbers used; never empty
};

} // namespace goblin
