#pragma once
/// \file Where each op (and input shapes) stands against the GPU's roof (docs/roofline.md):
/// its FLOPs and bytes over all calls, the rates achieved over its own device time, its
/// arithmetic intensity, the roof at that intensity, the efficiency and the time at the roof.
/// A pure function of one per-op-and-shapes aggregate (OpStats) and the roof, evaluated once per
/// row (report, Operators view, Roofline view), never per event.

#include "gpuroofs.h"
#include "opflops.h"

#include "results/traceattribution.h"

#include <optional>

namespace goblin {

struct OpRoofline {
    OpCost cost;                          ///< one call
    std::optional<double> flops;          ///< all calls
    std::optional<double> bytes;          ///< all calls
    std::optional<double> achievedTflops; ///< flops / device self time
    std::optional<double> achievedTbps;   ///< bytes / device self time
    std::optional<double> intensity;      ///< flops / byte
    std::optional<double> roofTflops;     ///< min(peak of its dtype, intensity × bandwidth); unset for 0 FLOPs
    std::optional<double> efficiencyPct;  ///< time at the roof / device self time, in %
    std::optional<double> timeAtRoofS;    ///< max(flops / peak, bytes / bandwidth)
    QString costReason;                   ///< flops and bytes unknown: why
    QString rateReason;                   ///< achieved rates unknown: why
    QString roofReason;                   ///< roof, efficiency, time at roof unknown: why
};

OpRoofline opRoofline(const OpStats &op, const GpuRoof &roof);

/// The short text of the formula's source for a report's `source` ("GEMM (docs/roofline.md)").
QString opRooflineSource(const OpRoofline &r);

} // namespace goblin
