#pragma once
/// \file FLOPs and bytes of one call of a CPU op, from the input shapes and dtypes the trace
/// recorded (Kineto record_shapes: "Input Dims", "Input type"). docs/roofline.md gives every
/// formula with its reference; scripts/roofline_count.py recomputes them from a raw trace.
/// Evaluated once per op-and-shapes row (OpStats), never per event.

#include "gpuroofs.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace goblin {

/// The cost model of one call. `modelled` false: no formula applies or the shapes do not fit
/// (`reason` says which); the numbers are then 0.
struct OpCost {
    bool modelled = false;
    double flops = 0;  ///< per call
    double bytes = 0;  ///< per call: every input tensor read once, every output written once
    std::optional<RoofDtype> dtype;  ///< the datatype its math runs in (the roof's peak); nullopt: none of the roof's
    QString dtypeName;               ///< as the trace writes it ("c10::BFloat16")
    QString formula;                 ///< the model's name in docs/roofline.md ("GEMM", "elementwise", …)
    QString reason;
};

/// `inputShapes`: "Input Dims" as compact JSON text (nullopt: not recorded); `inputTypes`: the
/// distinct "Input type" lists the op's calls carried (several: each is costed, and they must
/// agree); `concreteInputs`: the distinct "Concrete Inputs" lists, the same way (a convolution's
/// stride, padding, dilation, groups; attention's is_causal; empty when not recorded).
OpCost opCost(const QString &name, const std::optional<QString> &inputShapes, const QStringList &inputTypes,
              const QStringList &concreteInputs = {});

/// Bytes per element of a dtype as Kineto writes it ("float" 4, "c10::BFloat16" 2, "long int" 8);
/// 0 for what is no tensor dtype ("Scalar", "GenericList", "").
int dtypeBytes(const QString &dtype);

} // namespace goblin
