#pragma once
/// \file A headline quantity (utilisation, host busy, step time, HBM, tokens/s, MFU) and where it
/// came from. Value types only; derived/quantities.h fills them under one set of thresholds.

#include "heuristics.h"

#include <QString>
#include <array>
#include <optional>

namespace goblin {

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

} // namespace goblin
