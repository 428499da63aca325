// Matrix kernels against the GPU's roof, from the shapes of the ops that launched them (docs/roofline.md).
#include "kernelroofline.h"

#include <algorithm>
#include <map>

namespace goblin {

namespace {

bool isMatrixFormula(const QString &formula)
{
    return formula == QLatin1String("GEMM") || formula == QLatin1String("batched GEMM") ||
           formula.startsWith(QLatin1String("convolution")) ||
           formula.startsWith(QLatin1String("transposed convolution")) ||
           formula.startsWith(QLatin1String("attention"));
}

QString rowText(const QString &name, const std::optional<QString> &shapes)
{
    return shapes ? name + QLatin1Char(' ') + *shapes : name;
}

void setUnknown(KernelRoofline &k, const QString &why)
{
    k.flops.reset();
    k.bytes.reset();
    k.achievedTflops.reset();
    k.roofTflops.reset();
    k.efficiencyPct.reset();
    k.timeAtRoofS.reset();
    k.costReason = k.rateReason = k.roofReason = why;
}

KernelRoofline rooflineOf(const std::vector<const KernelOpRowLink *> &links,
                          const std::map<std::pair<QString, QString>, const OpStats *> &rows, const GpuRoof &roof)
{
    KernelRoofline k;
    double flops = 0, bytes = 0;
    std::optional<RoofDtype> dtype;
    bool dtypeKnown = true;
    QStringList sources;
    for (const KernelOpRowLink *link : links) {
        k.launches += link->events;
        k.deviceNs += link->deviceNs;
    }
    for (const KernelOpRowLink *link : links) {
        const QString launcher = rowText(link->opName, link->inputShapes);
        const auto it = rows.find({link->opName, link->inputShapes.value_or(QString())});
        if (it == rows.end() || it->second->runtimeCall) {
            setUnknown(k, QStringLiteral("launched outside every op (%1): no shapes to cost it by").arg(link->opName));
            return k;
        }
        const OpStats &op = *it->second;
        const OpCost cost = opCost(op.name, op.inputShapes, op.inputTypes, op.concreteInputs);
        if (!cost.modelled) {
            setUnknown(k, QStringLiteral("shape unknown: launched by %1, %2").arg(launcher, cost.reason));
            return k;
        }
        if (!isMatrixFormula(cost.formula)) {
            setUnknown(k, QStringLiteral("launched by %1 (%2): only matrix kernels (GEMM, convolution, attention) "
                                         "get FLOPs here; the op's figures are in Operators")
                              .arg(launcher, cost.formula));
            return k;
        }
        // The op's FLOPs belong to this kernel only when each of its calls launched this one
        // kernel and nothing else (a split-K GEMM's reduction, a backward's two kernels: no split).
        if (op.kernels != op.calls || link->events != op.calls) {
            setUnknown(k, QStringLiteral("%1 launched %2 GPU events (%3 of this kernel) in %4 calls: its FLOPs "
                                         "cannot be split among them")
                              .arg(launcher)
                              .arg(op.kernels)
                              .arg(link->events)
                              .arg(op.calls));
            return k;
        }
        flops += cost.flops * double(link->events);
        bytes += cost.bytes * double(link->events);
        if (link == links.front()) {
            dtype = cost.dtype;
            k.dtypeName = cost.dtypeName;
        } else if (cost.dtype != dtype || cost.dtypeName != k.dtypeName) {
            dtypeKnown = false;
        }
        sources << QStringLiteral("%1: %2").arg(launcher, cost.formula);
    }
    k.flops = flops;
    k.bytes = bytes;
    k.source = sources.join(QLatin1String("; "));
    if (k.deviceNs <= 0) {
        k.rateReason = k.roofReason = QStringLiteral("its launches have no device time");
        return k;
    }
    const double seconds = double(k.deviceNs) / 1e9;
    k.achievedTflops = flops / seconds / 1e12;
    if (!roof.known) {
        k.roofReason = roof.reason;
        return k;
    }
    if (!dtypeKnown) {
        k.roofReason = QStringLiteral("its launching ops ran in different dtypes");
        return k;
    }
    const std::optional<double> peak = dtype ? roof.peakTflops[size_t(*dtype)].value : std::nullopt;
    const std::optional<double> bandwidth = roof.hbmTbps.value;
    if (!peak || !bandwidth) {
        k.roofReason = dtype ? QStringLiteral("the %1 has no %2 peak in the GPU table").arg(roof.model, roofDtypeKey(*dtype))
                             : QStringLiteral("its dtype (%1) has no peak on any roof").arg(k.dtypeName);
        return k;
    }
    k.timeAtRoofS = std::max(flops / (*peak * 1e12), bytes / (*bandwidth * 1e12));
    if (bytes > 0)
        k.roofTflops = std::min(*peak, flops / bytes * *bandwidth);
    else
        k.roofTflops = *peak;
    k.efficiencyPct = 100.0 * *k.timeAtRoofS / seconds;
    return k;
}

} // namespace

KernelRooflineTable kernelRooflines(const TraceAttribution &attribution, const GpuRoof &roof)
{
    KernelRooflineTable table;
    if (!attribution.available)
        return table;
    std::map<std::pair<QString, QString>, const OpStats *> rows;
    for (const OpStats &op : attribution.wholeTrace.ops)
        if (!op.runtimeCall)
            rows.emplace(std::make_pair(op.name, op.inputShapes.value_or(QString())), &op);
    std::map<QString, std::vector<const KernelOpRowLink *>> byKernel;
    for (const KernelOpRowLink &link : attribution.wholeTrace.kernelOpRows)
        byKernel[link.kernelName].push_back(&link);
    for (const auto &[name, links] : byKernel)
        table.insert(name, rooflineOf(links, rows, roof));
    return table;
}

KernelRoofline kernelRooflineUnlinked(const TraceAttribution &attribution)
{
    KernelRoofline k;
    const QString why = !attribution.available
                            ? QStringLiteral("shape unknown: the run has no trace of the ops that launched its kernels")
                        : !attribution.shapesRecorded
                            ? QStringLiteral("shape unknown: the trace has no op shapes (record_shapes was off)")
                            : QStringLiteral("shape unknown: no op in the trace launched this kernel");
    k.costReason = k.rateReason = k.roofReason = why;
    return k;
}

} // namespace goblin
