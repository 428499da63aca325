// One op-and-shapes row against the GPU's roof (docs/roofline.md).
#include "oproofline.h"

#include <algorithm>

namespace goblin {

OpRoofline opRoofline(const OpStats &op, const GpuRoof &roof)
{
    OpRoofline r;
    r.cost = op.runtimeCall ? OpCost{} : opCost(op.name, op.inputShapes, op.inputTypes, op.concreteInputs);
    if (op.runtimeCall)
        r.cost.reason = QStringLiteral("a runtime call (graph replay), not an op with shapes");
    if (!r.cost.modelled) {
        r.costReason = r.rateReason = r.roofReason = r.cost.reason;
        return r;
    }
    const double calls = double(op.calls > 0 ? op.calls : 1);
    r.flops = r.cost.flops * calls;
    r.bytes = r.cost.bytes * calls;
    if (*r.bytes > 0)
        r.intensity = *r.flops / *r.bytes;

    // Device self time: the GPU events the op launched itself. An op whose GPU time was launched
    // by the ops inside it (aten::linear around aten::addmm) has its point on those.
    if (op.deviceSelfNs <= 0) {
        r.rateReason = op.deviceTotalNs > 0 ? QStringLiteral("its GPU time was launched by the ops inside it")
                                            : QStringLiteral("it launched no GPU work");
        r.roofReason = r.rateReason;
    } else {
        const double seconds = double(op.deviceSelfNs) / 1e9;
        r.achievedTflops = *r.flops / seconds / 1e12;
        r.achievedTbps = *r.bytes / seconds / 1e12;
    }

    if (!roof.known) {
        if (r.roofReason.isEmpty())
            r.roofReason = roof.reason;
        return r;
    }
    const std::optional<double> bandwidthTbps = roof.hbmTbps.value;
    std::optional<double> peakTflops;
    if (r.cost.dtype)
        peakTflops = roof.peakTflops[size_t(*r.cost.dtype)].value;
    if (!bandwidthTbps || (*r.flops > 0 && !peakTflops)) {
        if (r.roofReason.isEmpty())
            r.roofReason = r.cost.dtype ? QStringLiteral("the %1 has no %2 peak in the GPU table")
                                              .arg(roof.model, roofDtypeKey(*r.cost.dtype))
                                        : QStringLiteral("its dtype (%1) has no peak on any roof").arg(r.cost.dtypeName);
        return r;
    }
    const double computeS = *r.flops > 0 ? *r.flops / (*peakTflops * 1e12) : 0.0;
    const double memoryS = *r.bytes / (*bandwidthTbps * 1e12);
    r.timeAtRoofS = std::max(computeS, memoryS);
    if (*r.flops > 0 && r.intensity)
        r.roofTflops = std::min(*peakTflops, *r.intensity * *bandwidthTbps);
    if (op.deviceSelfNs > 0 && *r.timeAtRoofS > 0)
        r.efficiencyPct = 100.0 * *r.timeAtRoofS / (double(op.deviceSelfNs) / 1e9);
    if (!r.roofTflops && r.roofReason.isEmpty())
        r.roofReason = QStringLiteral("no FLOPs: its roof is the memory bandwidth alone");
    return r;
}

QString opRooflineSource(const OpRoofline &r)
{
    return r.cost.modelled ? QStringLiteral("%1 (docs/roofline.md)").arg(r.cost.formula) : QString();
}

} // namespace goblin
