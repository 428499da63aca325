#include "regressiongate.h"

#include <QHash>
#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>
#include <cmath>

namespace goblin {

namespace {

/// Budget buckets as `budget.buckets` names them, and `per_step[].waste_budget` where it differs.
struct BucketName {
    const char *metric;
    const char *perStepKey;
};
constexpr BucketName kBuckets[] = {
    {"useful_gpu", "useful_gpu"},       {"data_wait", "data_wait"},         {"host_gap", "host_gap"},
    {"comm_excess", "comm_excess"},     {"memory_headroom", "memory_headroom"}, {"precision_path", "precision_path"},
    {"kernel_shape", "kernel_shape"},   {"unattributed", "unattributed_s"},
};

/// Two runs must share this share of their op time (by name, both ways) to be compared.
constexpr double kMinOpOverlap = 0.5;

QString canonicalMetric(const QString &name)
{
    if (name == QLatin1String("collective_comm"))
        return QStringLiteral("comm_excess");
    if (name == QLatin1String("unattributed_s"))
        return QStringLiteral("unattributed");
    return name;
}

const BucketName *bucketOf(const QString &metric)
{
    for (const BucketName &b : kBuckets)
        if (metric == QLatin1String(b.metric))
            return &b;
    return nullptr;
}

/// The report's value of `metric` and whether it is known.
std::optional<double> reportValue(const QJsonObject &report, const QString &metric)
{
    QJsonValue v;
    if (const BucketName *b = bucketOf(metric)) {
        const QJsonObject bucket = report[QLatin1String("budget")][QLatin1String("buckets")][QLatin1String(b->metric)]
                                       .toObject();
        if (bucket[QLatin1String("state")].toString() == QLatin1String("unknown"))
            return std::nullopt;
        v = bucket[QLatin1String("seconds_per_step")];
    } else {
        const QString key = metric == QLatin1String("step_time") ? QStringLiteral("step_time_s")
                                                                 : QStringLiteral("gpu_util_pct");
        const QJsonObject q = report[QLatin1String("quantities")][key].toObject();
        if (q[QLatin1String("state")].toString() == QLatin1String("unknown"))
            return std::nullopt;
        v = q[QLatin1String("value")];
    }
    if (!v.isDouble() || !std::isfinite(v.toDouble()))
        return std::nullopt;
    return v.toDouble();
}

/// The metric in each listed step (partial steps left out: they are cut by the trace's ends).
std::vector<double> perStepValues(const QJsonObject &report, const QString &metric)
{
    std::vector<double> values;
    const BucketName *b = bucketOf(metric);
    for (const QJsonValue &step : report[QLatin1String("per_step")].toArray()) {
        if (step[QLatin1String("partial")].toBool())
            continue;
        const QJsonValue v = b ? step[QLatin1String("waste_budget")][QLatin1String(b->perStepKey)]
                             : metric == QLatin1String("step_time") ? step[QLatin1String("duration_s")]
                                                                    : step[QLatin1String("gpu_util_pct")];
        if (v.isDouble() && std::isfinite(v.toDouble()))
            values.push_back(v.toDouble());
    }
    return values;
}

/// Sample variance / n: the squared standard error of the mean; nullopt below two values.
std::optional<double> squaredStandardError(const std::vector<double> &values)
{
    const std::size_t n = values.size();
    if (n < 2)
        return std::nullopt;
    double mean = 0.0;
    for (double v : values)
        mean += v;
    mean /= double(n);
    double sum = 0.0;
    for (double v : values)
        sum += (v - mean) * (v - mean);
    return sum / double(n - 1) / double(n);
}

/// Device time by op name (ops[]), else the top kernels' shares: what each run spent its GPU on.
QHash<QString, double> timeByName(const QJsonObject &report)
{
    QHash<QString, double> out;
    for (const QJsonValue &op : report[QLatin1String("ops")].toArray())
        out[op[QLatin1String("name")].toString()] += op[QLatin1String("device_self_s")].toDouble();
    double total = 0.0;
    for (double v : out)
        total += v;
    if (total > 0.0)
        return out;
    out.clear();
    for (const QJsonValue &k : report[QLatin1String("metrics")][QLatin1String("top_kernels")].toArray())
        out[k[QLatin1String("name")].toString()] += k[QLatin1String("pct_time")].toDouble();
    return out;
}

/// Share of `a`'s time spent under names `b` also has.
double sharedShare(const QHash<QString, double> &a, const QHash<QString, double> &b)
{
    double total = 0.0, shared = 0.0;
    for (auto it = a.cbegin(); it != a.cend(); ++it) {
        total += it.value();
        if (b.contains(it.key()))
            shared += it.value();
    }
    return total > 0.0 ? shared / total : 0.0;
}

QStringList gpuModels(const QJsonObject &report)
{
    QSet<QString> models;
    for (const QJsonValue &d : report[QLatin1String("facts")][QLatin1String("devices")].toArray())
        if (d[QLatin1String("model")].isString())
            models.insert(d[QLatin1String("model")].toString());
    QStringList out(models.begin(), models.end());
    out.sort();
    return out;
}

QJsonObject comparability(const QJsonObject &baseline, const QJsonObject &other)
{
    QJsonArray reasons;
    const QStringList modelsA = gpuModels(baseline), modelsB = gpuModels(other);
    if (!modelsA.isEmpty() && !modelsB.isEmpty() && modelsA != modelsB)
        reasons.append(QStringLiteral("different GPU models: %1 vs %2")
                           .arg(modelsA.join(QStringLiteral(", ")), modelsB.join(QStringLiteral(", "))));
    const QHash<QString, double> timeA = timeByName(baseline), timeB = timeByName(other);
    const double overlap = std::min(sharedShare(timeA, timeB), sharedShare(timeB, timeA));
    if (overlap < kMinOpOverlap)
        reasons.append(QStringLiteral("the runs share %1 % of their op time by name (at least %2 % needed): "
                                      "different programs or models")
                           .arg(overlap * 100.0, 0, 'f', 1)
                           .arg(kMinOpOverlap * 100.0, 0, 'f', 0));
    const qsizetype stepsA = baseline[QLatin1String("per_step")].toArray().size();
    const qsizetype stepsB = other[QLatin1String("per_step")].toArray().size();
    const QString planA = baseline[QLatin1String("step_plan")][QLatin1String("kind")].toString();
    const QString planB = other[QLatin1String("step_plan")][QLatin1String("kind")].toString();
    if (planA != planB)
        reasons.append(QStringLiteral("steps cut differently (%1 vs %2): their step times measure different windows")
                           .arg(planA.isEmpty() ? QStringLiteral("none") : planA,
                                planB.isEmpty() ? QStringLiteral("none") : planB));
    if (stepsA == 0 || stepsB == 0)
        reasons.append(QStringLiteral("a run lists no step (%1 vs %2)").arg(stepsA).arg(stepsB));
    QJsonObject out;
    out[QLatin1String("verdict")] = reasons.isEmpty();
    out[QLatin1String("reasons")] = reasons;
    out[QLatin1String("gpu_models")] = QJsonObject{{QStringLiteral("baseline"), QJsonArray::fromStringList(modelsA)},
                                                   {QStringLiteral("other"), QJsonArray::fromStringList(modelsB)}};
    out[QLatin1String("op_overlap")] = overlap;
    out[QLatin1String("steps")] = QJsonObject{{QStringLiteral("baseline"), double(stepsA)},
                                              {QStringLiteral("other"), double(stepsB)},
                                              {QStringLiteral("baseline_plan"), planA},
                                              {QStringLiteral("other_plan"), planB}};
    return out;
}

QJsonValue number(const std::optional<double> &v)
{
    return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null);
}

QJsonObject judgeRule(const QJsonObject &baseline, const QJsonObject &other, const FailIfRule &rule)
{
    QJsonObject check;
    check[QLatin1String("rule")] = rule.text;
    check[QLatin1String("metric")] = rule.metric;
    const std::optional<double> a = reportValue(baseline, rule.metric), b = reportValue(other, rule.metric);
    check[QLatin1String("baseline")] = number(a);
    check[QLatin1String("other")] = number(b);
    if (!a || !b) {
        check[QLatin1String("verdict")] = QStringLiteral("unknown");
        check[QLatin1String("reason")] = QStringLiteral("%1 is unknown in %2: nothing to judge")
                                             .arg(rule.metric, !a ? QStringLiteral("the baseline") : QStringLiteral("the other run"));
        return check;
    }
    const double delta = *b - *a;
    check[QLatin1String("delta")] = delta;
    std::optional<double> deltaPct;
    if (*a != 0.0)
        deltaPct = delta / std::fabs(*a) * 100.0;
    check[QLatin1String("delta_pct")] = number(deltaPct);

    const auto seA = squaredStandardError(perStepValues(baseline, rule.metric));
    const auto seB = squaredStandardError(perStepValues(other, rule.metric));
    std::optional<double> noise;
    if (seA && seB) {
        noise = 2.0 * std::sqrt(*seA + *seB);
        check[QLatin1String("noise_state")] = QStringLiteral("measured");
        check[QLatin1String("noise_source")] =
            QStringLiteral("twice the standard error of the difference of the step means (per_step, both runs)");
    } else {
        check[QLatin1String("noise_state")] = QStringLiteral("unknown");
        check[QLatin1String("noise_source")] =
            QStringLiteral("fewer than two steps in a run: the run-to-run noise cannot be measured, the limit alone judges");
    }
    check[QLatin1String("noise")] = number(noise);
    check[QLatin1String("noise_pct")] = number(noise && *a != 0.0 ? std::optional<double>(*noise / std::fabs(*a) * 100.0)
                                                                 : std::nullopt);

    const double signedDelta = rule.increase ? delta : -delta;
    // Beyond the limit: a relative change past X %, or, from a baseline of 0, any change the right way.
    const bool beyond = deltaPct ? (rule.increase ? *deltaPct > rule.limitPct : *deltaPct < -rule.limitPct)
                                 : signedDelta > 0.0;
    const QString direction = rule.increase ? QStringLiteral("rose") : QStringLiteral("fell");
    const QString change = deltaPct ? QStringLiteral("%1 %2 %").arg(direction).arg(std::fabs(*deltaPct), 0, 'f', 1)
                                    : QStringLiteral("%1 from 0").arg(direction);
    if (!beyond) {
        check[QLatin1String("verdict")] = QStringLiteral("ok");
        check[QLatin1String("reason")] = QStringLiteral("within the limit of %1 %").arg(rule.limitPct);
    } else if (noise && std::fabs(delta) <= *noise) {
        check[QLatin1String("verdict")] = QStringLiteral("within_noise");
        check[QLatin1String("reason")] =
            QStringLiteral("%1, beyond the limit of %2 %, but the change %3 is within the steps' noise ±%4")
                .arg(change)
                .arg(rule.limitPct)
                .arg(delta, 0, 'g', 4)
                .arg(*noise, 0, 'g', 4);
    } else {
        check[QLatin1String("verdict")] = QStringLiteral("regression");
        check[QLatin1String("reason")] =
            noise ? QStringLiteral("%1, beyond the limit of %2 % and the steps' noise ±%3").arg(change).arg(rule.limitPct).arg(*noise, 0, 'g', 4)
                  : QStringLiteral("%1, beyond the limit of %2 % (noise unknown)").arg(change).arg(rule.limitPct);
    }
    return check;
}

} // namespace

QStringList failIfMetricNames()
{
    QStringList names;
    for (const BucketName &b : kBuckets)
        names << QLatin1String(b.metric);
    names << QStringLiteral("collective_comm") << QStringLiteral("step_time") << QStringLiteral("gpu_util");
    return names;
}

std::optional<FailIfRule> parseFailIfRule(const QString &text, QString *problem)
{
    static const QRegularExpression shape(
        QStringLiteral("^\\s*([A-Za-z_]+)\\s*([<>])\\s*([+-]?)\\s*([0-9]+(?:\\.[0-9]+)?)\\s*%\\s*$"));
    const QRegularExpressionMatch m = shape.match(text);
    if (!m.hasMatch()) {
        *problem = QStringLiteral("--fail-if '%1' is not METRIC>+X% or METRIC<-X% (e.g. data_wait>+10%)").arg(text);
        return std::nullopt;
    }
    FailIfRule rule;
    rule.text = text.trimmed();
    rule.metric = canonicalMetric(m.captured(1).toLower());
    if (!failIfMetricNames().contains(rule.metric)) {
        *problem = QStringLiteral("--fail-if '%1': unknown metric '%2' (one of %3)")
                       .arg(text, m.captured(1), failIfMetricNames().join(QStringLiteral(", ")));
        return std::nullopt;
    }
    rule.increase = m.captured(2) == QLatin1String(">");
    const QString sign = m.captured(3);
    if ((rule.increase && sign == QLatin1String("-")) || (!rule.increase && sign == QLatin1String("+"))) {
        *problem = QStringLiteral("--fail-if '%1': '>' takes a rise (+X%), '<' a fall (-X%)").arg(text);
        return std::nullopt;
    }
    rule.limitPct = m.captured(4).toDouble();
    return rule;
}

QJsonObject judgeRegression(const QJsonObject &baseline, const QJsonObject &other, const std::vector<FailIfRule> &rules)
{
    QJsonObject gate;
    const QJsonObject comparable = comparability(baseline, other);
    gate[QLatin1String("comparable")] = comparable;
    QJsonArray checks;
    bool regression = false;
    if (comparable[QLatin1String("verdict")].toBool()) {
        for (const FailIfRule &rule : rules) {
            const QJsonObject check = judgeRule(baseline, other, rule);
            regression = regression || check[QLatin1String("verdict")].toString() == QLatin1String("regression");
            checks.append(check);
        }
    }
    gate[QLatin1String("checks")] = checks;
    gate[QLatin1String("verdict")] = !comparable[QLatin1String("verdict")].toBool() ? QStringLiteral("not_comparable")
                                     : regression                                   ? QStringLiteral("regression")
                                                                                    : QStringLiteral("pass");
    return gate;
}

QString regressionSummary(const QJsonObject &gate, const QString &baselineName, const QString &otherName)
{
    QStringList lines;
    const QString verdict = gate[QLatin1String("verdict")].toString();
    if (verdict == QLatin1String("not_comparable")) {
        QStringList reasons;
        for (const QJsonValue &r : gate[QLatin1String("comparable")][QLatin1String("reasons")].toArray())
            reasons << r.toString();
        lines << QStringLiteral("%1 vs %2: not comparable, not judged: %3")
                     .arg(otherName, baselineName, reasons.join(QStringLiteral("; ")));
        return lines.join(QLatin1Char('\n'));
    }
    for (const QJsonValue &c : gate[QLatin1String("checks")].toArray())
        lines << QStringLiteral("%1 vs %2: %3: %4 (%5)")
                     .arg(otherName, baselineName, c[QLatin1String("rule")].toString(),
                          c[QLatin1String("verdict")].toString(), c[QLatin1String("reason")].toString());
    lines << QStringLiteral("%1 vs %2: %3").arg(otherName, baselineName, verdict);
    return lines.join(QLatin1Char('\n'));
}

} // namespace goblin
