#include "report.h"

#include "budgetformula.h"
#include "budgetjson.h"
#include "exportfile.h"
#include "attributionjson.h"
#include "rooflinejson.h"
#include "collectivesjson.h"
#include "memoryjson.h"
#include "runtraitsjson.h"
#include "versiontext.h"
#include "redaction.h"
#include "thresholds.h"
#include "ranksjson.h"
#include "timelinejson.h"
#include "perstepjson.h"
#include "advice.h"
#include "commandline.h"

#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <cmath>
#include <cstdio>

namespace goblin {

namespace {

/// Collects numbers for strict JSON: a non-finite value becomes null and is named once.
class StrictNumbers
{
public:
    QJsonValue operator()(double value, const QString &path)
    {
        if (std::isfinite(value))
            return value;
        m_nonFinite << path;
        return QJsonValue(QJsonValue::Null);
    }
    const QStringList &nonFinite() const { return m_nonFinite; }

private:
    QStringList m_nonFinite;
};

QJsonArray columnsJson(const std::vector<ColumnChoice> &columns)
{
    QJsonArray out;
    for (const ColumnChoice &c : columns) {
        QJsonObject o{{QStringLiteral("role"), c.role},
                      {QStringLiteral("column"), c.column.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(c.column)},
                      {QStringLiteral("reason"), c.reason}};
        if (!c.unit.isEmpty())
            o.insert(QStringLiteral("unit"), c.unit);
        out.append(o);
    }
    return out;
}

QJsonObject inputJson(const InputFileInfo &f, const QString &role)
{
    return QJsonObject{{QStringLiteral("role"), role},
                       {QStringLiteral("path"), f.relativePath},
                       {QStringLiteral("size_bytes"), double(f.sizeBytes)},
                       {QStringLiteral("format"), f.format},
                       {QStringLiteral("dialect"), f.dialect},
                       {QStringLiteral("compressed"), f.compressed},
                       {QStringLiteral("columns"), columnsJson(f.workbenchColumns)},
                       {QStringLiteral("reference_columns"), columnsJson(f.referenceColumns)},
                       {QStringLiteral("rows_read"), double(f.rowsRead)},
                       {QStringLiteral("rows_skipped"), double(f.rowsSkipped)}};
}

QJsonObject classJson(quint64 calls, qint64 ns)
{
    return QJsonObject{{QStringLiteral("calls"), double(calls)}, {QStringLiteral("time_ns"), double(ns)}};
}

/// The reference passes any truthy metadata value through as the PyTorch version (objects and any
/// text too); what does not read as a version may hold environment values, which never reach an
/// export. Version-shaped text, numbers and "unknown" pass as the reference has them.
QJsonValue exportableVersion(const QJsonValue &version)
{
    if (version.isObject() || version.isArray())
        return QStringLiteral("(a JSON %1 in the trace's metadata: not copied, it may hold environment values)")
            .arg(version.isObject() ? QStringLiteral("object") : QStringLiteral("list"));
    if (version.isString() && version.toString() != QLatin1String("unknown") && !looksLikeVersion(version.toString()))
        return QStringLiteral("(text in the trace's metadata that does not read as a version: not copied)");
    return version;
}

/// Row keys of the report's `budget.buckets`: the seven buckets, then `unattributed`.
QString budgetRowKey(int row)
{
    return row == kUnattributedRow ? QStringLiteral("unattributed") : WasteBudget::bucketKey(row);
}

/// `budget`: every bucket with its seconds, share, state and source; the step it partitions.
QJsonObject budgetJson(const Derived &derived)
{
    const WasteBudget &b = derived.metrics.wasteBudget;
    const double step = b.terms.stepS;
    QJsonObject buckets;
    for (int row = 0; row <= kUnattributedRow; ++row) {
        const double seconds = budgetRowSeconds(b, row);
        buckets.insert(budgetRowKey(row),
                       QJsonObject{{QStringLiteral("seconds_per_step"), finiteJson(seconds)},
                                   {QStringLiteral("share_of_step"),
                                    step > 0.0 ? finiteJson(seconds / step) : QJsonValue(QJsonValue::Null)},
                                   {QStringLiteral("state"), valueStateName(b.state(row))},
                                   {QStringLiteral("source"), derived.caveated[std::size_t(row)]
                                                                  ? derived.caveat
                                                                  : bucketSource(row, b, derived.profile)},
                                   {QStringLiteral("formula"), bucketFormula(row, b, derived.profile)}});
    }
    return QJsonObject{{QStringLiteral("buckets"), buckets},
                       {QStringLiteral("step_time_s"), step > 0.0 ? finiteJson(step) : QJsonValue(QJsonValue::Null)},
                       {QStringLiteral("measured"), derived.budgetMeasured},
                       {QStringLiteral("source"), derived.budgetSource},
                       {QStringLiteral("verdict"), runVerdict(derived)},
                       {QStringLiteral("definitions"), QStringLiteral("budget_definitions; docs/budget.md")}};
}

QJsonObject definitionsJson(const Derived &derived)
{
    QJsonObject out;
    for (int row = 0; row <= kUnattributedRow; ++row)
        out.insert(budgetRowKey(row), bucketDefinition(row, derived.profile, derived.budgetMeasured));
    out.insert(QStringLiteral("docs"), QStringLiteral("docs/budget.md"));
    out.insert(QStringLiteral("profile"), profileName(derived.profile));
    out.insert(QStringLiteral("measured"), derived.budgetMeasured);
    return out;
}

QJsonObject quantitiesJson(const Quantities &q)
{
    QJsonObject out;
    for (int k = 0; k < int(QuantityKey::Count); ++k) {
        const Quantity &x = q[QuantityKey(k)];
        out.insert(Quantities::jsonKey(QuantityKey(k)),
                   QJsonObject{{QStringLiteral("value"), x.value ? finiteJson(*x.value) : QJsonValue(QJsonValue::Null)},
                               {QStringLiteral("state"), valueStateName(x.state)},
                               {QStringLiteral("source"), x.source},
                               {QStringLiteral("scope"), x.scope}});
    }
    return out;
}

/// redactSecrets() of each distinct text once: a report repeats its keys and many values
/// thousands of times.
class RedactionMemo
{
public:
    QString operator()(const QString &text)
    {
        if (const auto it = m_seen.constFind(text); it != m_seen.constEnd())
            return it.value();
        const QString redacted = redactSecrets(text);
        m_seen.insert(text, redacted);
        return redacted;
    }

private:
    QHash<QString, QString> m_seen;
};

/// Every text of the report (and every key: some are names from the run) through redactSecrets():
/// diagnostics, warnings, paths, column and kernel names can all hold what a script wrote.
QJsonValue redactedJson(const QJsonValue &value, RedactionMemo &redact)
{
    if (value.isString()) {
        const QString text = value.toString();
        const QString redacted = redact(text);
        return redacted == text ? value : QJsonValue(redacted);
    }
    if (value.isArray()) {
        QJsonArray array = value.toArray();
        for (qsizetype i = 0; i < array.size(); ++i)
            if (const QJsonValue element = array.at(i); element.isString() || element.isArray() || element.isObject())
                array.replace(i, redactedJson(element, redact));
        return array;
    }
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        QJsonObject out;
        for (auto it = object.begin(); it != object.end(); ++it)
            out.insert(redact(it.key()), redactedJson(it.value(), redact));
        return out;
    }
    return value;
}

/// Workbench profile: every key that names a step time holds the budget's step (the step plan's,
/// or with several ranks the mean of theirs); what the reference reads is named as such.
void addOneStepTime(QJsonObject &aggregates, const RunAnalysis &run, const Derived &derived, StrictNumbers &num)
{
    const Quantity &step = derived.quantities[QuantityKey::StepTimeS];
    if (step.value) {
        aggregates.insert(QStringLiteral("step_time_seconds"), num(*step.value, QStringLiteral("aggregates.step_time_seconds")));
        aggregates.insert(QStringLiteral("step_time_source"), step.source);
    }
    aggregates.insert(QStringLiteral("reference_step_time_seconds"),
                      num(run.reference.stepTimeS, QStringLiteral("aggregates.reference_step_time_seconds")));
}

/// `step_plan`: the run's steps as decided at load (runfacts.h), with the cut --steps N makes.
QJsonObject stepPlanJson(const RunAnalysis &run, const Derived &derived)
{
    const StepPlanFacts &plan = run.facts.stepPlan;
    const bool cut = derived.plan.kind == StepPlan::Kind::Cut;
    QJsonArray files;
    for (const StepPlanFile &f : plan.files)
        files.append(QJsonObject{{QStringLiteral("file"), f.file},
                                 {QStringLiteral("kind"), stepPlanKindKey(f.kind)},
                                 {QStringLiteral("windows"), f.windows}});
    return QJsonObject{
        {QStringLiteral("kind"), stepPlanKindKey(plan.kind)},
        {QStringLiteral("source"), cut ? derived.plan.source : plan.source},
        {QStringLiteral("state"), valueStateName(cut ? ValueState::Estimated : plan.state)},
        {QStringLiteral("step_time_s"), plan.stepTimeS > 0.0 ? finiteJson(plan.stepTimeS) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("windows"), cut ? derived.plan.cutSteps : plan.steps},
        {QStringLiteral("listed_per_step"), cut || plan.hasWindows()},
        {QStringLiteral("cut_steps"), cut ? derived.plan.cutSteps : 0},
        {QStringLiteral("files"), files},
    };
}

} // namespace

QJsonObject buildReport(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &thresholds)
{
    return buildReport(run, deriveResults(run, profile, thresholds));
}

QJsonObject buildReport(const RunAnalysis &run, const Derived &derived)
{
    const HeuristicsProfile profile = derived.profile;
    const Thresholds &thresholds = derived.thresholds;
    const RunMetrics &m = derived.metrics;
    const ProfileAnalysis &a = run.profile(profile);
    StrictNumbers num;

    QJsonArray top;
    for (const TopKernel &k : a.topKernels)
        top.append(QJsonObject{{QStringLiteral("name"), k.name},
                               {QStringLiteral("pct_time"), num(k.pctTime, QStringLiteral("metrics.top_kernels.pct_time"))}});
    QJsonObject budget;
    for (int i = 0; i < WasteBudget::BucketCount; ++i)
        budget.insert(WasteBudget::bucketKey(i),
                      num(m.wasteBudget.bucket(i), QStringLiteral("metrics.waste_budget.") + WasteBudget::bucketKey(i)));
    // Workbench only (the reference's RunMetrics has no such key): the rest of the step when
    // nothing measured GPU utilisation, which useful_gpu then does not claim. 0 when measured.
    if (profile == HeuristicsProfile::Workbench)
        budget.insert(QStringLiteral("unattributed_s"),
                      num(m.wasteBudget.unattributed, QStringLiteral("metrics.waste_budget.unattributed_s")));

    // The seed schema's numbers: the reference's as it reads them; in the workbench profile the
    // quantities' values, null where nothing measured them (never a silent 0).
    const Quantities &q = derived.quantities;
    const auto quantity = [&](QuantityKey key, double referenceValue, const QString &path) -> QJsonValue {
        if (profile == HeuristicsProfile::Reference)
            return num(referenceValue, path);
        return q[key].value ? num(*q[key].value, path) : QJsonValue(QJsonValue::Null);
    };
    QJsonObject metrics{
        {QStringLiteral("steps"), m.steps},
        {QStringLiteral("tokens_per_sec"), quantity(QuantityKey::TokensPerSec, a.tokensPerSec, QStringLiteral("metrics.tokens_per_sec"))},
        {QStringLiteral("mfu_pct"), quantity(QuantityKey::MfuPct, a.mfuPct, QStringLiteral("metrics.mfu_pct"))},
        {QStringLiteral("hbm_peak_gb"), quantity(QuantityKey::HbmPeakGb, a.hbmPeakGb, QStringLiteral("metrics.hbm_peak_gb"))},
        {QStringLiteral("hbm_avg_gb"),
         profile == HeuristicsProfile::Workbench && !q[QuantityKey::HbmPeakGb].value
             ? QJsonValue(QJsonValue::Null)
             : num(a.hbmAvgGb, QStringLiteral("metrics.hbm_avg_gb"))},
        {QStringLiteral("gpu_util_pct"), quantity(QuantityKey::GpuUtilPct, a.gpuUtilPct, QStringLiteral("metrics.gpu_util_pct"))},
        {QStringLiteral("top_kernels"), top},
        {QStringLiteral("attention_kernel_loaded"), a.attentionKernelLoaded},
        {QStringLiteral("waste_budget"), budget},
        {QStringLiteral("warnings"), QJsonArray::fromStringList(a.warnings)},
        {QStringLiteral("rocm_version"), a.rocmVersion},
        {QStringLiteral("pytorch_version"), exportableVersion(a.pytorchVersion)},
        {QStringLiteral("runner_kind"), QStringLiteral("live")},
    };

    QJsonObject thresholdsJson{
        {QStringLiteral("precision"), precisionName(thresholds.precision)},
        {QStringLiteral("steps"), m.steps},
        {QStringLiteral("steps_source"), thresholds.steps ? QStringLiteral("given")
                                         : profile == HeuristicsProfile::Reference
                                             ? QStringLiteral("reference default (10)")
                                             : run.torch.workbench.profilerSteps > 0  // the default's source
                                                 ? QStringLiteral("ProfilerStep events found")
                                                                : QStringLiteral("default (10, no ProfilerStep events)")},
    };
    for (const ThresholdDescriptor &d : thresholdDescriptors())
        thresholdsJson.insert(d.jsonKeyText(),
                              num(thresholds.*(d.member), QStringLiteral("thresholds.") + d.jsonKeyText()));

    QJsonArray inputs;
    for (const InputFileInfo &f : run.kernels.files)
        inputs.append(inputJson(f, QStringLiteral("kernel_trace")));
    if (!run.torch.file.relativePath.isEmpty())
        inputs.append(inputJson(run.torch.file, QStringLiteral("torch_trace")));
    if (!run.smi.file.relativePath.isEmpty())
        inputs.append(inputJson(run.smi.file, QStringLiteral("telemetry")));

    const KernelReading &kr = profile == HeuristicsProfile::Reference ? run.kernels.reference : run.kernels.workbench;
    const ClassTotals &ct = a.classTotals;
    qint64 distinct = 0;
    for (const KernelNameStats &s : kr.perName)
        distinct += s.calls > 0 ? 1 : 0;
    QJsonObject aggregates{
        {QStringLiteral("kernel_count"), double(kr.rowsUsed)},
        {QStringLiteral("distinct_kernel_names"), double(distinct)},
        {QStringLiteral("kernel_time_ns"), double(kr.totalNs)},
        {QStringLiteral("kernel_rows_skipped"),
         double(kr.rowsSkippedNoName + kr.rowsSkippedNonPositive + kr.rowsSkippedUnreadable)},
        {QStringLiteral("classes"),
         QJsonObject{{QStringLiteral("gemm"), classJson(ct.gemmCalls, ct.gemmNs)},
                     {QStringLiteral("generic_gemm"), classJson(ct.genericGemmCalls, ct.genericGemmNs)},
                     {QStringLiteral("collective"), classJson(ct.collectiveCalls, ct.collectiveNs)},
                     {QStringLiteral("fp16"), classJson(ct.fp16Calls, ct.fp16Ns)},
                     {QStringLiteral("bf16"), classJson(ct.bf16Calls, ct.bf16Ns)},
                     {QStringLiteral("all"), classJson(ct.totalCalls, ct.totalNs)}}},
        {QStringLiteral("gpu_agents"), a.gpuAgents},
        {QStringLiteral("steps_found"), a.stepsFound},
        {QStringLiteral("step_time_seconds"), num(a.stepTimeS, QStringLiteral("aggregates.step_time_seconds"))},
        {QStringLiteral("step_time_source"), a.stepTimeSource},
        // The step the budget's buckets share: step_time_seconds, or with several ranks the mean of
        // theirs (the budget is then their mean); advice's share_of_step divides by it.
        {QStringLiteral("budget_step_time_seconds"),
         num(m.wasteBudget.terms.stepS, QStringLiteral("aggregates.budget_step_time_seconds"))},
        {QStringLiteral("host_busy_fraction"), num(a.hostBusyFraction, QStringLiteral("aggregates.host_busy_fraction"))},
        {QStringLiteral("host_busy_source"), a.hostBusySource},
        {QStringLiteral("gpu_util_pct"), num(a.gpuUtilPct, QStringLiteral("aggregates.gpu_util_pct"))},
        {QStringLiteral("gpu_util_source"), a.gpuUtilSource},
        {QStringLiteral("trace_span_seconds"), num(a.traceSpanS, QStringLiteral("aggregates.trace_span_seconds"))},
        {QStringLiteral("trace_steps_covered"), num(a.traceStepsCovered, QStringLiteral("aggregates.trace_steps_covered"))},
        {QStringLiteral("per_step_per_gpu_divisor"),
         num(a.perStepPerGpuDivisor, QStringLiteral("aggregates.per_step_per_gpu_divisor"))},
        {QStringLiteral("comm_excess_seconds"), num(a.budgetInputs.commExcessS, QStringLiteral("aggregates.comm_excess_seconds"))},
        {QStringLiteral("telemetry_samples"), double(run.smi.samples.size())},
        {QStringLiteral("telemetry_gpus"), run.smi.gpuCount},
        {QStringLiteral("telemetry_samples_outside_job"), run.smi.samplesOutsideJob},
        {QStringLiteral("torch_events"), double(run.torch.eventCount)},
    };

    if (profile == HeuristicsProfile::Workbench)
        addOneStepTime(aggregates, run, derived, num);

    QJsonArray diagnostics;
    for (const Diagnostic &d : run.diagnostics)
        diagnostics.append(QJsonObject{{QStringLiteral("severity"), severityName(d.severity)},
                                       {QStringLiteral("file"), d.file},
                                       {QStringLiteral("line"), double(d.line)},
                                       {QStringLiteral("message"), d.message}});
    for (const QString &path : num.nonFinite())
        diagnostics.append(QJsonObject{{QStringLiteral("severity"), QStringLiteral("warning")},
                                       {QStringLiteral("file"), QString()},
                                       {QStringLiteral("line"), 0},
                                       {QStringLiteral("message"),
                                        QStringLiteral("%1 is not a finite number; written as null").arg(path)}});

    QJsonObject report{
        {QStringLiteral("generator"),
         QJsonObject{{QStringLiteral("name"), QString::fromLatin1(kGeneratorName)},
                     {QStringLiteral("version"), QStringLiteral(GOBLIN_VERSION)}}},
        {QStringLiteral("run"), QJsonObject{{QStringLiteral("name"), run.runName}, {QStringLiteral("path"), run.runDir}}},
        {QStringLiteral("profile"), profileName(profile)},
        {QStringLiteral("thresholds"), thresholdsJson},
        {QStringLiteral("metrics"), metrics},
        {QStringLiteral("inputs"), inputs},
        {QStringLiteral("aggregates"), aggregates},
        {QStringLiteral("diagnostics"), diagnostics},
        {QStringLiteral("advice"), adviceJson(derived.advice)},
        {QStringLiteral("command"), commandJson(reproducingCommand(QStringLiteral("report"), {run.runDir}, profile, thresholds))},
        {QStringLiteral("budget"), budgetJson(derived)},
        {QStringLiteral("budget_definitions"), definitionsJson(derived)},
        {QStringLiteral("quantities"), quantitiesJson(q)},
    };
    addTimelineToReport(report, run, derived);
    addRanksToReport(report, run, derived);
    addPerStepToReport(report, run, derived);
    if (profile == HeuristicsProfile::Workbench)
        report.insert(QStringLiteral("step_plan"), stepPlanJson(run, derived));
    addRunTraitsToReport(report, run);
    addAttributionToReport(report, run);
    addRooflineToReport(report, run);
    addCollectivesToReport(report, run);
    addMemoryToReport(report, run);
    addSeparateRunsToReport(report, run);
    RedactionMemo redact;
    return redactedJson(report, redact).toObject();
}

bool writeReportJson(const QJsonObject &report, const QString &path, QString *error)
{
    const QByteArray bytes = QJsonDocument(report).toJson(QJsonDocument::Indented);
    if (path == QLatin1String("-")) {
        QFile out;
        if (!out.open(stdout, QIODevice::WriteOnly) || out.write(bytes) != bytes.size()) {
            if (error)
                *error = QStringLiteral("cannot write to standard output");
            return false;
        }
        out.flush();
        return true;
    }
    return writeExportFile(
        path, [&](QIODevice &file) { return file.write(bytes) == bytes.size(); }, error);
}

} // namespace goblin
