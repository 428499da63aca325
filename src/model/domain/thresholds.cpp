#include "thresholds.h"

#include <QCoreApplication>

namespace goblin {

namespace {

// HBM capacity 1..1024 GB, everywhere: 1 GB is below the smallest GPU partition worth profiling
// (an A100 MIG 1g.5gb slice has 5 GB), 1024 GB is 3.5× the largest HBM per package shipping in
// 2026 (288 GB: MI355X, B300). A positive lower bound also keeps peak / capacity defined. The
// window used this range before; the command line used to take 1e-9..1e9 GB.
const std::array<ThresholdDescriptor, kNumericThresholdFieldCount> kDescriptors{{
    {ThresholdField::GpuUtilBelow, &Thresholds::gpuUtilBelowPct, QT_TRANSLATE_NOOP("goblin::Thresholds", "GPU util below"),
     "%", 0.0, 100.0, 1, "thresholds/gpuUtilBelowPct", "gpu-util-below", "PCT", "gpu_util_below_pct",
     QT_TRANSLATE_NOOP("goblin::Thresholds", "Data wait counts only when mean GPU utilisation is below this")},
    {ThresholdField::HostBusyAbove, &Thresholds::hostBusyAbove, QT_TRANSLATE_NOOP("goblin::Thresholds", "Host busy above"),
     "", 0.0, 1.0, 2, "thresholds/hostBusyAbove", "host-busy-above", "FRACTION", "host_busy_above",
     QT_TRANSLATE_NOOP("goblin::Thresholds",
                       "Data wait counts only when the host is busier than this fraction of the step")},
    {ThresholdField::HbmTarget, &Thresholds::hbmTargetPct, QT_TRANSLATE_NOOP("goblin::Thresholds", "HBM target"), "%",
     0.0, 100.0, 1, "thresholds/hbmTargetPct", "hbm-target", "PCT", "hbm_target_pct",
     QT_TRANSLATE_NOOP("goblin::Thresholds", "HBM peak below this share of capacity counts as memory headroom")},
    {ThresholdField::HbmCapacity, &Thresholds::hbmCapacityGb, QT_TRANSLATE_NOOP("goblin::Thresholds", "HBM capacity"),
     "GB", 1.0, 1024.0, 1, "thresholds/hbmCapacityGb", "hbm-capacity-gb", "GB", "hbm_capacity_gb",
     QT_TRANSLATE_NOOP("goblin::Thresholds", "Memory per GPU (MI300X: 192 GB)")},
    {ThresholdField::PrecisionWeight, &Thresholds::precisionWeight,
     QT_TRANSLATE_NOOP("goblin::Thresholds", "Precision weight"), "", 0.0, 1.0, 3, "thresholds/precisionWeight",
     "precision-weight", "WEIGHT", "precision_weight",
     QT_TRANSLATE_NOOP("goblin::Thresholds", "Share of fp16 kernel time recoverable by moving to bf16")},
    {ThresholdField::HeadroomWeight, &Thresholds::headroomWeight,
     QT_TRANSLATE_NOOP("goblin::Thresholds", "Headroom weight"), "", 0.0, 1.0, 3, "thresholds/headroomWeight",
     "headroom-weight", "WEIGHT", "headroom_weight",
     QT_TRANSLATE_NOOP("goblin::Thresholds", "Step-time share per unit of HBM slack")},
}};

} // namespace

QString ThresholdDescriptor::labelText() const
{
    return QCoreApplication::translate("goblin::Thresholds", label);
}

QString ThresholdDescriptor::toolTipText() const
{
    return QCoreApplication::translate("goblin::Thresholds", toolTip);
}

const std::array<ThresholdDescriptor, kNumericThresholdFieldCount> &thresholdDescriptors()
{
    return kDescriptors;
}

const ThresholdDescriptor *thresholdDescriptor(ThresholdField field)
{
    const int i = int(field);
    return i >= 0 && i < kNumericThresholdFieldCount ? &kDescriptors[std::size_t(i)] : nullptr;
}

} // namespace goblin
