#pragma once
/// \file Telemetry placed on the steps. amd-smi (watch) and nvidia-smi rows
/// carry wall-clock timestamps; a Kineto trace carries `baseTimeNanoseconds`, the Unix time of its
/// ts 0 (older Kineto writes Unix µs as ts). Where both exist, each sample falls in the step whose
/// window holds its time, and the step gets the mean utilisation and the peak memory of its
/// samples. rocprofv3 kernel traces are on the boot clock: their roctx steps are placeable only
/// when the kernel trace is aligned to such a torch trace (clockalignment.h). dcgmi dmon and
/// rocm-smi write no time at all. Definitions: docs/telemetry.md.

#include "results/smitelemetry.h"
#include "steps.h"

namespace goblin {

struct RunAnalysis;

/// Where `run.smi`'s samples fall on `steps` (the run's step series), or why they cannot be
/// placed. nvidia-smi's local time has no zone: the quarter-hour offset from UTC-12 to UTC+14
/// that puts the most of the samples' span over the steps' span is taken (0 first on a tie).
TelemetryPlacement placeTelemetryOnSteps(const RunAnalysis &run, const StepSeries &steps);

/// Gives each placed step its telemetry: the HBM peak of its samples, and their mean utilisation
/// where the step has no GPU events of its own (the busy union of the trace is the better measure
/// when it exists); names the source in `steps.source`.
void applyTelemetryToSteps(const TelemetryPlacement &placement, const SmiTelemetry &smi, StepSeries &steps);

/// Both, once at load: fills run.smi.placement, updates run.steps and adds one diagnostic saying
/// where the samples went or why they could not be placed.
void placeTelemetry(RunAnalysis &run);

} // namespace goblin
