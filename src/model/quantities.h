#pragma once
/// \file The headline quantities of a run (utilisation, host busy, step time, HBM peak and
/// capacity, tokens/s, MFU), each with where it came from: one value per quantity, which the
/// gauge, the threshold hints, the PNG, the compare view, the advice and the report all show.

#include "heuristics.h"

#include <QString>
#include <array>
#include <optional>

namespace goblin {

struct Derived;
struct RunAnalysis;

/// A number and its provenance: `value` is nullopt exactly when `state` is Unknown (shown as "—").
struct Quantity {
    std::optional<double> value;
    ValueState state = ValueState::Unknown;
    QString source;  ///< a short phrase: "busy union of the GPU events / step window"
    QString scope;   ///< what it covers: "mean of 6 steps, 1 device", "mean of 4 ranks", "telemetry, 2 GPUs"
};

enum class QuantityKey { GpuUtilPct, HostBusyFraction, StepTimeS, HbmPeakGb, HbmCapacityGb, TokensPerSec, MfuPct, Count };

struct Quantities {
    std::array<Quantity, std::size_t(QuantityKey::Count)> items;

    const Quantity &operator[](QuantityKey key) const { return items[std::size_t(key)]; }
    Quantity &operator[](QuantityKey key) { return items[std::size_t(key)]; }
    static QString jsonKey(QuantityKey key);  ///< "gpu_util_pct", "host_busy_fraction", …
    static QString label(QuantityKey key);    ///< "GPU utilisation", "Host busy", …
};

/// The run's quantities under `derived` (its budget, step plan and profile).
Quantities runQuantities(const RunAnalysis &run, const Derived &derived);

} // namespace goblin
