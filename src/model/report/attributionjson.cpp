// The attribution's report keys. Seconds, as the rest of the report; the figures are integer ns
// in the model, so a sum of rows equals its total to the ns before the division.
#include "attributionjson.h"

#include <QJsonArray>

namespace goblin {

namespace {

double seconds(qint64 ns) { return double(ns) / 1e9; }

QString kindKey(FrameKind kind)
{
    switch (kind) {
    case FrameKind::Module: return QStringLiteral("module");
    case FrameKind::Annotation: return QStringLiteral("annotation");
    case FrameKind::PythonFunction: return QStringLiteral("python_function");
    case FrameKind::Op: return QStringLiteral("op");
    case FrameKind::GpuEvent: return QStringLiteral("gpu_event");
    case FrameKind::RuntimeCall: return QStringLiteral("runtime_call");
    case FrameKind::Root: break;
    }
    return QStringLiteral("root");
}

QJsonObject moduleJson(const ModuleNode &node)
{
    QJsonArray children;
    for (const ModuleNode &c : node.children)
        children.append(moduleJson(c));
    return QJsonObject{{QStringLiteral("name"), node.name},
                       {QStringLiteral("kind"), kindKey(node.kind)},
                       {QStringLiteral("calls"), node.calls},
                       {QStringLiteral("host_s"), seconds(node.hostNs)},
                       {QStringLiteral("device_s"), seconds(node.deviceNs)},
                       {QStringLiteral("children"), children}};
}

} // namespace

void addAttributionToReport(QJsonObject &report, const TraceAttribution &attribution)
{
    const AttributionScope &whole = attribution.wholeTrace;
    QJsonArray ops;
    for (const OpStats &op : whole.ops) {
        QJsonObject row{{QStringLiteral("name"), op.name},
                               {QStringLiteral("input_shapes"), op.inputShapes ? QJsonValue(*op.inputShapes) : QJsonValue()},
                               {QStringLiteral("calls"), op.calls},
                               {QStringLiteral("host_self_s"), seconds(op.hostSelfNs)},
                               {QStringLiteral("host_total_s"), seconds(op.hostTotalNs)},
                               {QStringLiteral("host_self_gpu_idle_s"),
                                attribution.gpuIdleMeasured ? QJsonValue(seconds(op.hostSelfGpuIdleNs)) : QJsonValue()},
                               {QStringLiteral("device_self_s"), seconds(op.deviceSelfNs)},
                               {QStringLiteral("device_total_s"), seconds(op.deviceTotalNs)},
                               {QStringLiteral("kernels"), op.kernels}};
        // A launching runtime call outside every op (a graph replay): said, its host times 0.
        if (op.runtimeCall)
            row.insert(QStringLiteral("kind"), QStringLiteral("runtime_call"));
        ops.append(row);
    }
    report.insert(QStringLiteral("ops"), ops);
    if (attribution.linkMethod.isEmpty()) {
        // No primary trace, or one with neither GPU events nor CPU ops: nothing was attributed,
        // which is not the same as zero.
        report.insert(QStringLiteral("attribution"), QJsonValue());
        report.insert(QStringLiteral("modules"), QJsonValue());
        return;
    }
    qint64 unattributedNs = 0;
    for (const qint64 ns : whole.unattributedNs)
        unattributedNs += ns;
    const QJsonObject byReason{
        {QStringLiteral("no_runtime_event"), seconds(whole.unattributedNs[int(UnattributedReason::NoRuntimeEvent)])},
        {QStringLiteral("graph_replay_without_correlation"),
         seconds(whole.unattributedNs[int(UnattributedReason::GraphReplayWithoutCorrelation)])}};
    report.insert(QStringLiteral("attribution"),
                  QJsonObject{{QStringLiteral("gpu_time_s"), seconds(whole.gpuTimeNs)},
                              {QStringLiteral("attributed_s"), seconds(whole.attributedNs)},
                              {QStringLiteral("outside_ops_s"), seconds(whole.outsideOpsNs)},
                              {QStringLiteral("ranges_placed_beside"), attribution.rangesPlacedBeside},
                              {QStringLiteral("unattributed_s"), seconds(unattributedNs)},
                              {QStringLiteral("unattributed_by_reason"), byReason},
                              {QStringLiteral("link_method"), attribution.linkMethod},
                              {QStringLiteral("shapes_recorded"), attribution.shapesRecorded},
                              {QStringLiteral("steps"), qint64(attribution.steps.size())}});
    report.insert(QStringLiteral("modules"), moduleJson(whole.modules));
}

} // namespace goblin
