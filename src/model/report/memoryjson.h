#pragma once
/// \file The report's `memory` key: what the primary torch trace's `[memory]` events and
/// deviceProperties say per GPU device (tracememory.h, docs/memory.md).

#include "run.h"
#include "results/tracememory.h"

#include <QJsonObject>

namespace goblin {

/// `memory`: `events`, `cpu_events`, `out_of_memory_events`, `unusable_events`, `ops_complete`,
/// and `devices[]`, one per GPU device with `[memory]` events (Device Type ≠ 0): `device` (the
/// events' Device Id), `device_type`, `name` and `capacity_gb` (deviceProperties' name and
/// totalGlobalMem of that id; null when not there), `compute_units`, `peak_allocated_gb`,
/// `peak_reserved_gb` (the maxima of Total Allocated / Total Reserved; null when no event carries
/// them), `source`, `events`, `allocations`, `allocations_outside_ops`, `allocations_op_unknown`,
/// `steps[]` {label, peak_allocated_gb, peak_reserved_gb} and `top_ops[]` {name, allocations,
/// allocated_gb, freed_gb}. `_gb` is 2^30 bytes, the unit of every HBM figure of the report.
QJsonObject memoryJson(const TraceMemory &memory);

/// Adds `memory` (for the run's primary torch trace) to `report`.
inline void addMemoryToReport(QJsonObject &report, const RunAnalysis &run)
{
    report.insert(QStringLiteral("memory"), memoryJson(run.torch.memory));
}

} // namespace goblin
