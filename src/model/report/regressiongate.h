#pragma once
/// \file The regression gate of `compare --fail-if`: rules such as `data_wait>+10%`, judged on two
/// runs' reports against the run-to-run noise their steps show, after a comparability verdict.
/// Everything is read from the reports (`budget`, `quantities`, `per_step`, `facts`, `ops`), so
/// the gate says nothing the reports do not.

#include <QJsonObject>
#include <QString>
#include <optional>
#include <vector>

namespace goblin {

/// One `--fail-if` rule: METRIC>+X% (the metric grew by more than X % of the baseline's value)
/// or METRIC<-X% (it fell by more than X %). METRIC: a budget bucket (useful_gpu, data_wait,
/// host_gap, collective_comm or comm_excess, memory_headroom, precision_path, kernel_shape,
/// unattributed), step_time or gpu_util.
struct FailIfRule {
    QString text;         ///< as given
    QString metric;       ///< canonical name (collective_comm → comm_excess)
    bool increase = true; ///< '>' : a rise beyond the limit fails; '<' : a fall
    double limitPct = 0.0;
};

/// Parses one rule; nullopt with `problem` set (naming the rule and what is wrong) when it is not one.
std::optional<FailIfRule> parseFailIfRule(const QString &text, QString *problem);

/// Metric names a rule may use, for the help text and messages.
QStringList failIfMetricNames();

/// The gate's verdict for `other` against `baseline` (both whole `report` objects):
/// {"verdict": "regression" | "pass" | "not_comparable",
///  "comparable": {"verdict": bool, "reasons": [...], "gpu_models": {...}, "op_overlap": x, "steps": {...}},
///  "checks": [{"rule", "metric", "baseline", "other", "delta", "delta_pct", "noise", "noise_pct",
///              "noise_state", "noise_source", "verdict": "regression" | "within_noise" | "ok" | "unknown",
///              "reason"}]}.
/// The noise of a metric is twice the standard error of the difference of the two runs' step
/// means (sample variance of the per-step values / steps, both runs); a change beyond the rule's
/// limit but within that noise is "within_noise", not a regression. With fewer than two steps in
/// a run the noise is unknown and the limit alone judges (the check says so).
QJsonObject judgeRegression(const QJsonObject &baseline, const QJsonObject &other,
                            const std::vector<FailIfRule> &rules);

/// One line per check and the verdict, for stderr.
QString regressionSummary(const QJsonObject &gate, const QString &baselineName, const QString &otherName);

} // namespace goblin
