#pragma once
/// \file Matrix kernels (GEMM, convolution, attention) against the GPU's roof (docs/roofline.md):
/// a kernel's FLOPs and bytes are those of the op calls that launched it, when each call of each
/// such op row launched this kernel and nothing else (one GPU event per call). Kernel names do not
/// carry the problem size (rocBLAS / hipBLASLt / Tensile `Cijk_…_MT128x128x32_…`, cuBLAS, nvjet
/// and CUTLASS names give the tile), so the launching op's recorded shapes are the only source.
/// Computed once per run from the attribution's kernel ↔ op-row links, never per event.

#include "gpuroofs.h"
#include "opflops.h"

#include "results/traceattribution.h"

#include <QHash>
#include <QString>

#include <optional>

namespace goblin {

struct KernelRoofline {
    std::optional<double> flops;           ///< over the launches by ops
    std::optional<double> bytes;
    std::optional<double> achievedTflops;  ///< flops / the launches' device time
    std::optional<double> roofTflops;      ///< min(peak of its dtype, intensity × bandwidth)
    std::optional<double> efficiencyPct;   ///< time at the roof / device time, in %
    std::optional<double> timeAtRoofS;
    qint64 launches = 0;   ///< launches attributed to ops (the primary trace)
    qint64 deviceNs = 0;   ///< their device time
    QString dtypeName;     ///< the math dtype, as the trace writes it
    QString source;        ///< the launching op rows and the formula ("aten::addmm [[…]]: GEMM")
    QString costReason;    ///< flops unknown: why
    QString rateReason;    ///< achieved rate unknown: why
    QString roofReason;    ///< roof and efficiency unknown: why
};

/// Every kernel name the attribution links to an op, with its roofline (known or the reason).
using KernelRooflineTable = QHash<QString, KernelRoofline>;
KernelRooflineTable kernelRooflines(const TraceAttribution &attribution, const GpuRoof &roof);

/// A kernel the trace never linked to an op (another kernel source, no attribution): why unknown.
KernelRoofline kernelRooflineUnlinked(const TraceAttribution &attribution);

} // namespace goblin
