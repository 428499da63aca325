#pragma once
/// \file What the trace's own memory records (`[memory]` events, deviceProperties) give the
/// budget where telemetry gives nothing: a peak (the allocator's reserve) and an HBM capacity
/// (totalGlobalMem). docs/memory.md defines them.

#include "results/torchtrace.h"

#include <QString>

#include <optional>

namespace goblin {

/// The unit of every `_gb` HBM figure of the report (telemetry's MB / 1024): 2^30 bytes.
inline constexpr double kBytesPerHbmGb = 1024.0 * 1024.0 * 1024.0;

struct TraceMemoryFigures {
    /// The GPU device whose `[memory]` events reached the highest Total Reserved (the one that
    /// came closest to running out), or -1.
    int deviceId = -1;
    int deviceType = -1;
    QString deviceName;
    QString deviceLabel;  ///< that device in the one naming (devicefacts.h), with its model when named
    std::optional<double> peakReservedGb;
    std::optional<double> peakAllocatedGb;
    /// That device's totalGlobalMem; without memory events, the smallest totalGlobalMem of
    /// deviceProperties (every GPU of a job holds the same model in practice).
    std::optional<double> capacityGb;
    QString capacitySource;  ///< "deviceProperties' totalGlobalMem of device 0 (NVIDIA H100 80GB HBM3)"
    /// Without a peak: why, in the form the trace's [memory] events took ("no [memory] events",
    /// "8,220 GPU [memory] events carry Bytes only (Kineto 2021)…"). Empty with a peak.
    QString noPeakReason;

    /// The words the budget shows with the peak: its source and that it is a lower bound.
    QString peakSource() const;
};

TraceMemoryFigures traceMemoryFigures(const TorchTrace &torch);

/// The HBM capacity the workbench's budget uses: `thresholdGb` when it was typed (differs from
/// the default), else the trace's capacity when it has one (within the knob's range), else the
/// default.
double hbmCapacityDefaultGb(const TraceMemoryFigures &figures, double thresholdGb);

} // namespace goblin
