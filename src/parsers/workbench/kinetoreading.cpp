// The workbench's TorchReading: dialect, metadata (and the loose top-level keys of the same
// names), step time from ProfilerStep windows, host busy from the union of CPU operators.
#include "workbench/kinetoconsumer.h"

#include "kineto/tracediscovery.h"
#include "pynumber.h"
#include "syntax/objectmembers.h"
#include "torchtraceparser.h"
#include "versiontext.h"

#include <QFileInfo>
#include <QJsonValue>

#include <algorithm>
#include <cmath>

namespace goblin::workbench {

using kineto::Capture;
using kineto::DocumentRoot;
using kineto::KinetoDocument;
using syntax::classify;
using syntax::ObjectMembers;
using syntax::PyValue;
using syntax::stringValue;

namespace {

struct MetadataNumber {
    std::optional<double> value;
    QString where;
};

} // namespace

void KinetoConsumer::finish(const KinetoDocument &document, TorchTrace &out)
{
    finishReading(document, out);

    // The GPU timeline: rank from distributedInfo, else from the file name.
    std::optional<int> rank;
    if (const Capture *info = document.lastCapture("distributedInfo"); info && !info->overflow)
        rank = kineto::rankFromDistributedInfo(info->text);
    if (!rank)
        rank = kineto::rankFromFileName(QFileInfo(document.name).fileName());
    if (m_gpu.unplacedEvents() > 0)
        out.diagnostics.push_back(
            {Severity::Warning, document.name, m_gpu.firstUnplacedLine(),
             QStringLiteral("%1 GPU event(s) without a usable args.device and args.stream (the first at line %2) are "
                            "left out of the GPU timeline")
                 .arg(m_gpu.unplacedEvents())
                 .arg(m_gpu.firstUnplacedLine())});
    out.timeline.files.push_back(m_gpu.finish(QStringLiteral("torch_profile"), document.name, rank));
}

void KinetoConsumer::finishReading(const KinetoDocument &document, TorchTrace &out)
{
    auto diag = [&](Severity severity, qint64 line, const QString &message) {
        out.diagnostics.push_back({severity, document.name, line, message});
    };
    auto lastCapture = [&](std::string_view key) { return document.lastCapture(key); };
    TorchReading &w = out.workbench;
    InputFileInfo &info = out.file;
    info.rowsRead = document.events;
    info.rowsSkipped = document.nonObjectEvents + document.unreadableEvents + m_badTimeEvents;
    out.nonObjectEvents = document.nonObjectEvents;
    out.scalarEvents = document.scalarEvents;
    const bool hasBaseTime = document.rootKeys.contains(QStringLiteral("baseTimeNanoseconds"));
    if (document.root == DocumentRoot::Unknown || document.root == DocumentRoot::Scalar)
        info.dialect = QStringLiteral("not a trace");
    else if (document.root == DocumentRoot::Array)
        info.dialect = QStringLiteral("legacy top-level array (torch 1.x without Kineto)");
    else if (m_sawOperatorCategory)
        info.dialect = QStringLiteral("Kineto 2021 (Operator categories)");
    else if (hasBaseTime)
        info.dialect = QStringLiteral("Kineto 2024+ (baseTimeNanoseconds, relative µs)");
    else
        info.dialect = QStringLiteral("Kineto (absolute µs timestamps)");
    if (document.nonObjectEvents > 0)
        diag(Severity::Warning, 0,
             QStringLiteral("%1 entries of traceEvents are not objects; skipped").arg(document.nonObjectEvents));

    // Metadata: the "metadata" object (read by the reference) and top-level keys of the same name,
    // which prof.add_metadata_json() writes and the reference never looks at.
    ObjectMembers metadata;
    bool haveMetadata = false;
    qint64 metadataLine = 0;
    if (const Capture *meta = lastCapture("metadata")) {
        metadataLine = meta->line;
        if (!meta->overflow) {
            haveMetadata = metadata.parse(meta->text);
            if (!haveMetadata)
                diag(Severity::Warning, meta->line, QStringLiteral("top-level \"metadata\" is not an object; ignored"));
        }
    }
    auto numberFrom = [&](const std::optional<PyValue> &v, const QString &where, qint64 line,
                          double low, double high) -> std::optional<double> {
        if (!v || v->kind == PyValue::Null)
            return std::nullopt;
        double value = 0.0;
        if (v->kind == PyValue::Int || v->kind == PyValue::Float) {
            value = v->number;
            if (!std::isfinite(value)) {
                diag(Severity::Warning, line, QStringLiteral("%1 is %2, not a finite number; ignored")
                                                  .arg(where, QString::fromUtf8(v->raw.data(), qsizetype(v->raw.size()))));
                return std::nullopt;
            }
        } else if (v->kind == PyValue::Str) {
            const std::string text = stringValue(*v);
            const StrictNumber n = strictNumber(text);
            if (n.status != StrictNumber::Status::Ok) {
                // The text is not quoted: metadata can hold anything a script wrote, secrets included.
                diag(Severity::Warning, line, QStringLiteral("%1 is a string of %2 character(s), %3; ignored")
                                                  .arg(where)
                                                  .arg(QString::fromStdString(text).size())
                                                  .arg(n.status == StrictNumber::Status::NonFinite
                                                           ? QStringLiteral("not a finite number")
                                                           : QStringLiteral("not a number")));
                return std::nullopt;
            }
            value = n.value;
        } else {
            const QString type = v->kind == PyValue::Object ? QStringLiteral("an object")
                                 : v->kind == PyValue::Array ? QStringLiteral("a list")
                                 : v->kind == PyValue::Bool  ? QStringLiteral("a boolean")
                                                             : QStringLiteral("not a number");
            diag(Severity::Warning, line, QStringLiteral("%1 is %2, not a number; ignored").arg(where, type));
            return std::nullopt;
        }
        if (value < low || value > high) {
            diag(Severity::Warning, line, QStringLiteral("%1 = %2 is outside [%3, %4]; ignored")
                                              .arg(where)
                                              .arg(value)
                                              .arg(low)
                                              .arg(high));
            return std::nullopt;
        }
        return value;
    };
    auto metadataNumber = [&](const char *key, double low, double high) -> MetadataNumber {
        MetadataNumber result;
        if (haveMetadata) {
            result.value = numberFrom(metadata.get(key), QStringLiteral("metadata.%1").arg(QLatin1String(key)),
                                      metadataLine, low, high);
            result.where = QStringLiteral("metadata %1").arg(QLatin1String(key));
        }
        if (const Capture *loose = lastCapture(key)) {
            const std::optional<double> top =
                numberFrom(classify(loose->text), QStringLiteral("top-level %1").arg(QLatin1String(key)), loose->line,
                           low, high);
            if (!result.value) {
                result.value = top;
                result.where = QStringLiteral("top-level %1 (prof.add_metadata_json)").arg(QLatin1String(key));
            } else if (top && *top != *result.value) {
                diag(Severity::Info, loose->line,
                     QStringLiteral("top-level %1 = %2 differs from metadata.%1 = %3; the metadata object wins")
                         .arg(QLatin1String(key))
                         .arg(*top)
                         .arg(*result.value));
            }
        }
        return result;
    };
    const double inf = std::numeric_limits<double>::infinity();
    w.tokensPerSec = metadataNumber("tokens_per_sec", 0.0, inf).value;
    w.mfuPct = metadataNumber("mfu_pct", 0.0, 100.0).value;
    const MetadataNumber stepMeta = metadataNumber("step_time_seconds", 1e-9, inf);
    const MetadataNumber busyMeta = metadataNumber("host_busy_fraction", 0.0, 1.0);

    // PyTorch version: wherever a real trace or a user script put it.
    auto versionFrom = [&](const std::optional<PyValue> &v) -> QJsonValue {
        if (!v)
            return QJsonValue(QJsonValue::Undefined);
        if (v->kind == PyValue::Str) {
            // A version looks like one ("2.4.1+rocm6.1", "2.6.0a0+git1c2d3e4"): anything else a
            // script wrote there is not copied into the report.
            const QString text = QString::fromStdString(stringValue(*v)).trimmed();
            if (text.isEmpty())
                return QJsonValue(QJsonValue::Undefined);
            if (!looksLikeVersion(text)) {
                diag(Severity::Info, metadataLine,
                     QStringLiteral("a PyTorch version field holds %1 character(s) that do not read as a version; not "
                                    "reported")
                         .arg(text.size()));
                return QJsonValue(QJsonValue::Undefined);
            }
            return QJsonValue(text);
        }
        if ((v->kind == PyValue::Int || v->kind == PyValue::Float) && std::isfinite(v->number) && v->number > 0) {
            const QString text = QString::fromUtf8(v->raw.data(), qsizetype(v->raw.size()));
            diag(Severity::Info, metadataLine, QStringLiteral("the PyTorch version is the number %1, read as text").arg(text));
            return QJsonValue(text);
        }
        return QJsonValue(QJsonValue::Undefined);
    };
    QJsonValue version(QJsonValue::Undefined);
    if (haveMetadata)
        version = versionFrom(metadata.get("pytorch_version"));
    if (version.isUndefined() && haveMetadata)
        version = versionFrom(metadata.get("torch_version"));
    for (const char *key : {"pytorch_version", "torch_version"})
        if (version.isUndefined())
            if (const Capture *loose = lastCapture(key))
                version = versionFrom(classify(loose->text));
    if (version.isUndefined() && haveMetadata) {
        // TraceLens-style traces: metadata.system.torch_env_info.torch_version.
        if (auto system = metadata.get("system"); system && system->kind == PyValue::Object) {
            ObjectMembers systemMembers;
            if (systemMembers.parse(system->raw)) {
                if (auto env = systemMembers.get("torch_env_info"); env && env->kind == PyValue::Object) {
                    ObjectMembers envMembers;
                    if (envMembers.parse(env->raw))
                        version = versionFrom(envMembers.get("torch_version"));
                }
            }
        }
    }
    w.pytorchVersion = version;

    // Step time: the training script's own number when it wrote one (it covers every step, the
    // trace only the profiler's active window), else the CPU lane's ProfilerStep windows, else the
    // span of the trace (one "step" = the whole capture).
    std::sort(m_steps.begin(), m_steps.end(), [](const Interval &a, const Interval &b) { return a.begin < b.begin; });
    if (m_steps.size() >= 2) {
        // The profiler closes the step that is open when it stops, so a trace often ends with a
        // ProfilerStep of a few µs that is not a training step at all.
        const Interval last = m_steps.back();
        const qint64 lastNs = last.end - last.begin;
        const double othersMeanNs = double(m_stepDurationSumNs - lastNs) / double(m_steps.size() - 1);
        if (double(lastNs) < 0.2 * othersMeanNs) {
            m_steps.pop_back();
            m_stepDurationSumNs -= lastNs;
            diag(Severity::Info, 0,
                 QStringLiteral("the last ProfilerStep lasts %1 µs against %2 µs for the others: the profiler stopped "
                                "during it, so it is left out of the step time")
                     .arg(double(lastNs) / 1e3, 0, 'f', 3)
                     .arg(othersMeanNs / 1e3, 0, 'f', 3));
        }
    }
    w.profilerSteps = int(m_steps.size());
    std::optional<double> stepsMean;
    Intervals optimizerCut;  // windows between Optimizer.step ends, when they are the steps
    if (!m_steps.empty())
        stepsMean = double(m_stepDurationSumNs) / double(m_steps.size()) / 1e9;
    const bool haveSpan = m_spanEndNs > m_spanBeginNs;
    if (m_steps.empty() && m_gpuLaneSteps == 0 && m_optimizerStepWindows.size() >= 2) {
        // Without a profiler schedule there are no ProfilerStep events, but torch records one
        // Optimizer.step#… annotation per optimizer step, at the end of each training step: the
        // windows between consecutive ends are steps (the time before the first end is where the
        // profiler started, mid-step). GPU-lane step annotations, when the trace has them, come
        // first (the model's step plan, docs/steps.md).
        std::sort(m_optimizerStepWindows.begin(), m_optimizerStepWindows.end(),
                  [](const Interval &x, const Interval &y) { return x.end < y.end; });
        // One optimizer step may be written twice, as an annotation and as the operator inside it
        // (both named Optimizer.step#…): overlapping windows are one step, ending at the later end.
        Intervals oneEach;
        for (const Interval &w : m_optimizerStepWindows) {
            if (!oneEach.empty() && w.begin < oneEach.back().end)
                oneEach.back().end = std::max(oneEach.back().end, w.end);
            else
                oneEach.push_back(w);
        }
        m_optimizerStepWindows = std::move(oneEach);
        for (std::size_t k = 1; k < m_optimizerStepWindows.size(); ++k) {
            const Interval cut{m_optimizerStepWindows[k - 1].end, m_optimizerStepWindows[k].end};
            if (cut.end <= cut.begin)
                continue;
            optimizerCut.push_back(cut);
            m_gpu.addStep(m_optimizerStepName, cut.begin, cut.end, false);
        }
        if (!optimizerCut.empty()) {
            m_gpu.markStepProcess(m_optimizerStepPid);
            diag(Severity::Info, 0,
                 QStringLiteral("no ProfilerStep events on the CPU lane: the %1 %2 annotations cut the trace into %3 "
                                "step(s), the windows between their ends")
                     .arg(m_optimizerStepWindows.size())
                     .arg(QString::fromStdString(m_optimizerStepName))
                     .arg(optimizerCut.size()));
        }
    }
    if (stepMeta.value) {
        w.stepTimeSeconds = stepMeta.value;
        w.stepTimeSource = QStringLiteral("%1 (written by the training script)").arg(stepMeta.where);
        if (stepsMean && std::fabs(*stepsMean - *stepMeta.value) > 0.05 * *stepMeta.value)
            diag(Severity::Info, 0,
                 QStringLiteral("the trace's %1 ProfilerStep events average %2 s, the metadata's step_time_seconds "
                                "is %3 s: the step time is the steps' (the report's aggregates.step_time_seconds)")
                     .arg(m_steps.size())
                     .arg(*stepsMean, 0, 'g', 6)
                     .arg(*stepMeta.value, 0, 'g', 6));
    } else if (stepsMean) {
        w.stepTimeSeconds = stepsMean;
        w.stepTimeSource = QStringLiteral("mean of %1 ProfilerStep event(s) on the CPU lane").arg(m_steps.size());
    } else if (!optimizerCut.empty()) {
        const qint64 cutNs = optimizerCut.back().end - optimizerCut.front().begin;
        w.stepTimeSeconds = double(cutNs) / 1e9 / double(optimizerCut.size());
        w.stepTimeSource = QStringLiteral("mean of %1 window(s) between consecutive %2 ends on the CPU lane (no "
                                          "ProfilerStep events)")
                               .arg(optimizerCut.size())
                               .arg(QString::fromStdString(m_optimizerStepName));
    }
    if (!w.stepTimeSeconds && haveSpan) {
        // Not a step time of its own: the model's step plan takes GPU-lane step annotations or the
        // kernel span before the span of every event (docs/steps.md).
        w.stepTimeSeconds = double(m_spanEndNs - m_spanBeginNs) / 1e9;
        w.stepTimeSource = QStringLiteral("trace span (no ProfilerStep events on the CPU lane)");
        diag(Severity::Info, 0,
             QStringLiteral("no ProfilerStep events on the CPU lane and no metadata step_time_seconds: the step "
                            "plan decides the steps (GPU-lane step annotations, else the kernel span as one step)"));
    }

    // Host busy: the time the CPU spends inside operators, as the union of their intervals (nested
    // ops count once), minus the time they spend waiting for the GPU, within the ProfilerStep windows.
    Intervals windows = m_steps.empty() ? optimizerCut : m_steps;
    mergeIntervals(windows);
    QString windowText;
    if (windows.empty() && haveSpan) {
        windows.push_back({m_spanBeginNs, m_spanEndNs});
        windowText = QStringLiteral("the trace span");
    } else if (m_steps.empty()) {
        windowText = QStringLiteral("%1 window(s) between Optimizer.step ends").arg(optimizerCut.size());
    } else {
        windowText = QStringLiteral("%1 ProfilerStep window(s)").arg(m_steps.size());
    }
    std::optional<double> computedBusy;
    const qint64 cpuOps = m_cpuOps;
    if (!windows.empty() && cpuOps > 0) {
        mergeIntervals(m_busy);
        mergeIntervals(m_wait);
        const Intervals busyInWindows = intersectIntervals(m_busy, windows);
        const Intervals waiting = intersectIntervals(busyInWindows, m_wait);
        const qint64 windowNs = measure(windows);
        if (windowNs > 0)
            computedBusy = double(measure(busyInWindows) - measure(waiting)) / double(windowNs);
        if (busyInWindows.empty())
            diag(Severity::Warning, 0,
                 QStringLiteral("none of the %1 CPU operators runs inside %2, so host busy reads 0")
                     .arg(cpuOps)
                     .arg(windowText));
        // Every kernel launch runs inside some operator when torch recorded CPU ops fully; launches
        // outside any operator mean the ops are sparse and the union understates the host's work.
        Intervals ops = m_busy;
        ops.insert(ops.end(), m_wait.begin(), m_wait.end());
        mergeIntervals(ops);
        qint64 covered = 0;
        qint64 launches = 0;
        m_rangeRuntimeStarts.push_back(std::move(m_runtimeStarts));
        for (const std::vector<qint64> &starts : m_rangeRuntimeStarts) {
            launches += qint64(starts.size());
            for (const qint64 start : starts) {
                auto it = std::upper_bound(ops.begin(), ops.end(), start,
                                           [](qint64 t, const Interval &i) { return t < i.begin; });
                if (it != ops.begin() && start < std::prev(it)->end)
                    ++covered;
            }
        }
        if (launches >= 10 && covered * 2 < launches)
            diag(Severity::Warning, 0,
                 QStringLiteral("only %1 of %2 runtime calls (kernel launches, copies) run inside a CPU operator: the "
                                "trace holds few CPU operators, so the host busy time read from them is too low")
                     .arg(covered)
                     .arg(launches));
    }
    if (busyMeta.value) {
        w.hostBusyFraction = busyMeta.value;
        w.hostBusySource = QStringLiteral("%1 (written by the training script)").arg(busyMeta.where);
        if (computedBusy && std::fabs(*computedBusy - *busyMeta.value) > 0.05)
            diag(Severity::Info, 0,
                 QStringLiteral("the trace's CPU operators give host busy %1, the metadata says %2; the metadata wins")
                     .arg(*computedBusy, 0, 'f', 3)
                     .arg(*busyMeta.value, 0, 'f', 3));
    } else if (computedBusy) {
        w.hostBusyFraction = computedBusy;
        w.hostBusySource = QStringLiteral("union of %1 CPU operator intervals (nested ops once, waits for the GPU "
                                          "excluded) / %2")
                               .arg(cpuOps)
                               .arg(windowText);
    } else if (document.events > 0) {
        diag(Severity::Warning, 0,
             QStringLiteral("no CPU operator events (cat cpu_op or Operator) and no metadata host_busy_fraction: "
                            "host busy is unknown"));
    }
}

} // namespace goblin::workbench
