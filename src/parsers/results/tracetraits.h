#pragma once
/// \file What one trace file says about the job and the way it ran, beside its GPU timeline:
/// who wrote it (distributed rank, world size, process group, device model) and facts that decide
/// whether its budget can carry a verdict (graph capture and replay, training or inference
/// phases). Facts only, counted while the events stream past; the model decides what they mean.

#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>
#include <vector>

namespace goblin {

/// The job a trace belongs to: from the top-level `distributedInfo` and `deviceProperties`.
struct TraceIdentity {
    std::optional<int> rank;        ///< distributedInfo.rank
    std::optional<int> worldSize;   ///< distributedInfo.world_size
    QString backend;                ///< distributedInfo.backend ("nccl", "gloo"); empty when absent
    /// The default process group's description: its name and size and its ranks as written
    /// (pg_config[0]); empty when absent. Two ranks of one job have the same one.
    QString processGroup;
    QStringList deviceNames;                ///< deviceProperties[].name in the order written
    std::vector<qint64> deviceMemoryBytes;  ///< deviceProperties[].totalGlobalMem (0 when absent)
    std::vector<int> deviceComputeUnits;    ///< deviceProperties[].numSms (SMs / CUs; 0 when absent)
    /// "HIP" or "CUDA": the API of the trace's runtime calls (hip… / cuda…, cu…), else the
    /// backend its version keys name (roctracer_version, rocprofiler-sdk_version / cupti_version);
    /// empty when the trace shows neither.
    QString runtimeApi;
    /// The top-level `baseTimeNanoseconds` (Kineto 2024+): the Unix time in ns, rounded to the
    /// second, that the trace's relative timestamps count from. Two ranks' traces whose values
    /// differ are on clocks this far apart; nullopt when absent (absolute timestamps).
    std::optional<qint64> baseTimeNs;
};

/// HIP/CUDA graph capture and replay, as the runtime and GPU events show them.
struct TraceGraphs {
    qint64 launches = 0;         ///< runtime events hipGraphLaunch / cudaGraphLaunch / cuGraphLaunch
    qint64 launchesWithGpuEvents = 0;  ///< … whose correlation id has at least one GPU event
    qint64 captures = 0;         ///< stream-capture begin or graph instantiate calls (…BeginCapture, …GraphInstantiate)
    qint64 gpuEventsInGraphs = 0;  ///< GPU events sharing a graph launch's correlation, or with a nonzero "graph id"
    /// GPU events per launch that has any, in launch order (kernels a replay ran): a replay whose
    /// kernels were only partly recorded shows far fewer than the others.
    std::vector<std::uint32_t> gpuEventsPerLaunch;
    QString launchName;          ///< the first graph launch call's name as written ("hipGraphLaunch"); empty without one
};

/// Phases of the work the CPU lane shows: training has backward and optimizer ops, inference neither.
struct TracePhases {
    qint64 backwardOps = 0;    ///< autograd::engine::evaluate_function: …, *Backward* ops
    qint64 optimizerOps = 0;   ///< Optimizer.step#… / Optimizer.zero_grad#… ranges, optimizer ops
    qint64 dataLoaderOps = 0;  ///< enumerate(DataLoader)#… and other DataLoader ranges
    qint64 forwardModules = 0; ///< nn.Module frames (python_function "nn.Module: …")
    qint64 optimizerSteps = 0; ///< Optimizer.step#… ranges alone (one per optimizer.step() call)
    qint64 cpuOps = 0;         ///< every CPU operator (cat cpu_op; Kineto 2021: Operator): the lane the phases are read from
    qint64 profilerRanges = 0; ///< cuda_profiler_range events (CUPTI range profiler: counters per range, no kernel timeline)
};

struct TraceTraits {
    TraceIdentity identity;
    TraceGraphs graphs;
    TracePhases phases;
};

} // namespace goblin
