#include "attributiontext.h"

#include "formatting.h"
#include "traceranks.h"

#include <QCoreApplication>
#include <QStringList>

namespace goblin
{

namespace
{
QString tr(const char *text)
{
    return QCoreApplication::translate("goblin::AttributionText", text);
}
} // namespace

int attributionScopeCount(const TraceAttribution &attribution)
{
    return 1 + int(attribution.steps.size());
}

const AttributionScope *attributionScope(const TraceAttribution &attribution, int index)
{
    if (index == 0)
        return &attribution.wholeTrace;
    if (index < 0 || index > int(attribution.steps.size()))
        return nullptr;
    return &attribution.steps[std::size_t(index - 1)];
}

QString attributionScopeLabel(const TraceAttribution &attribution, int index)
{
    if (index == 0)
        return tr("All steps (whole trace)");
    const AttributionScope *scope = attributionScope(attribution, index);
    if (!scope)
        return {};
    return scope->label.isEmpty() ? tr("Step %1").arg(index) : scope->label;
}

std::shared_ptr<const TraceAttribution> attributionOf(const std::shared_ptr<const RunAnalysis> &run)
{
    if (!run)
        return {};
    // Aliasing constructor: the attribution lives inside the run, so the run stays alive with it.
    return std::shared_ptr<const TraceAttribution>(run, &run->torch.attribution);
}

QString attributionEmptyNote(const RunAnalysis *run)
{
    return attributionEmptyNote(run, 0);
}

QString attributionEmptyNote(const RunAnalysis *run, int rankIndex)
{
    if (!run)
        return tr("No run is open.");
    if (run->torch.file.relativePath.isEmpty())
        return tr("This run has no torch.profiler trace, so there is nothing to attribute GPU time to.");
    const TraceAttribution *picked = traceAttributionOfRank(*run, rankIndex);
    if (!picked)
        return tr("This run has no trace of the rank picked.");
    const TraceAttribution &a = *picked;
    // A CPU-only trace has ops but nothing to attribute: say that, not that ops are missing.
    if (a.wholeTrace.gpuTimeNs <= 0 && !a.wholeTrace.ops.empty())
        return tr("This trace has CPU ops but no GPU events (kernels, copies) launched from them.");
    if (!a.available)
        return tr("This trace has no CPU ops and runtime calls to attribute GPU time to.");
    if (a.wholeTrace.gpuTimeNs <= 0)
        return tr("This trace has no GPU events (kernels, copies) to attribute.");
    return {};
}

QString formatMs(qint64 ns)
{
    return QString::number(double(ns) / 1e6, 'f', 3);
}

QString frameKindName(FrameKind kind)
{
    switch (kind) {
    case FrameKind::Root:
        return tr("root");
    case FrameKind::Module:
        return tr("module");
    case FrameKind::Annotation:
        return tr("annotation");
    case FrameKind::PythonFunction:
        return tr("Python function");
    case FrameKind::Op:
        return tr("op");
    case FrameKind::GpuEvent:
        return tr("GPU event");
    case FrameKind::RuntimeCall:
        return tr("runtime call outside any op");
    }
    return {};
}

QString unattributedReasonKey(UnattributedReason reason)
{
    switch (reason) {
    case UnattributedReason::NoRuntimeEvent:
        return QStringLiteral("no_runtime_event");
    case UnattributedReason::GraphReplayWithoutCorrelation:
        return QStringLiteral("graph_replay_without_correlation");
    }
    return {};
}

QString unattributedReasonText(UnattributedReason reason)
{
    switch (reason) {
    case UnattributedReason::NoRuntimeEvent:
        return tr("no runtime call carries its correlation id");
    case UnattributedReason::GraphReplayWithoutCorrelation:
        return tr("replayed by a graph with no launch to follow");
    }
    return {};
}

QString attributionSummary(const TraceAttribution &attribution, const AttributionScope &scope)
{
    if (scope.gpuTimeNs <= 0)
        return {};
    const double gpuNs = double(scope.gpuTimeNs);
    QString line = tr("GPU time %1, of which %2 (%3) attributed to ops")
                       .arg(formatDurationNs(gpuNs), formatDurationNs(double(scope.attributedNs)),
                            formatPercent(100.0 * double(scope.attributedNs) / gpuNs));
    if (scope.outsideOpsNs > 0)
        line += tr(" (%1 of it to runtime calls outside any op: graph replays, bare launches)")
                    .arg(formatDurationNs(double(scope.outsideOpsNs)));
    QStringList reasons;
    qint64 unattributedNs = 0;
    for (int r = 0; r < kUnattributedReasonCount; ++r) {
        const qint64 ns = scope.unattributedNs[r];
        unattributedNs += ns;
        if (ns > 0)
            reasons << tr("%1 %2").arg(formatDurationNs(double(ns)), unattributedReasonText(UnattributedReason(r)));
    }
    if (unattributedNs > 0)
        line += tr("; unattributed %1 (%2): %3")
                    .arg(formatDurationNs(double(unattributedNs)),
                         formatPercent(100.0 * double(unattributedNs) / gpuNs), reasons.join(QStringLiteral(", ")));
    else
        line += tr("; nothing unattributed");
    if (!attribution.linkMethod.isEmpty())
        line += tr(". Op and launch linked by %1.").arg(attribution.linkMethod);
    else
        line += QLatin1Char('.');
    return line;
}

} // namespace goblin
