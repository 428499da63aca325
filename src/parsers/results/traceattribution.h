#pragma once
/// \file Where a Kineto trace's GPU time was launched from: each GPU event (kernel, memcpy, memset)
/// → the runtime call that launched it → the innermost CPU op around that call → its stack of ops,
/// nn.Module frames, python_function frames and record_function ranges (nesting by time on the
/// thread). Aggregated while the trace streams past and joined once it ends; facts only, the model
/// and the views decide how to show them. docs/attribution.md defines every figure.

#include <QString>
#include <QStringList>
#include <QtGlobal>

#include <optional>
#include <vector>

namespace goblin {

/// Why a GPU event's time could not be given to a CPU op (JSON keys of unattributed_by_reason).
enum class UnattributedReason {
    NoRuntimeEvent,                 ///< "no_runtime_event": no runtime call carries its correlation
    GraphReplayWithoutCorrelation,  ///< "graph_replay_without_correlation": replayed by a graph, no launch to follow
};
inline constexpr int kUnattributedReasonCount = 2;

/// One row of the Operator view and of `ops[]`: a CPU op name (with its input shapes where
/// record_shapes was on), summed over its calls.
struct OpStats {
    QString name;
    std::optional<QString> inputShapes;  ///< as the trace writes "Input Dims"; nullopt: not recorded
    qint64 calls = 0;
    qint64 hostSelfNs = 0;     ///< wall time on its thread minus the CPU ops nested directly inside
    qint64 hostTotalNs = 0;    ///< wall time of the calls (a recursive call inside its own name counted once)
    qint64 deviceSelfNs = 0;   ///< summed durations of the GPU events it launched itself
    qint64 deviceTotalNs = 0;  ///< the same over it and every op nested inside it, each GPU event once
    qint64 kernels = 0;        ///< GPU events it launched itself
    /// The part of host self time during which no GPU event of the trace ran (every device idle):
    /// the host work the GPU waited behind (host gap, data wait). Last: rows are brace-initialised.
    qint64 hostSelfGpuIdleNs = 0;
    /// The row is a runtime call that ran outside every CPU op (`hipGraphLaunch`, `cudaGraphLaunch`
    /// replaying a graph, a `cudaLaunchKernel` from plain python): its GPU events are its own,
    /// its host times are not recorded (0).
    bool runtimeCall = false;
    /// The dtypes of its inputs as the trace writes "Input type" (compact JSON text), one entry
    /// per distinct list among its calls (usually one); empty when not recorded.
    QStringList inputTypes;
    /// "Concrete Inputs" (the scalar arguments: a convolution's stride, padding, dilation and
    /// groups, attention's is_causal) as compact JSON text, one entry per distinct list among its
    /// calls; kept only for the ops whose cost depends on them (docs/roofline.md), else empty.
    QStringList concreteInputs;
};

/// What kind of frame a stack holds (the flame graph colours them apart).
/// RuntimeCall: a launching runtime call outside every op, with the GPU events it launched under it.
enum class FrameKind { Root, Module, Annotation, PythonFunction, Op, GpuEvent, RuntimeCall };

/// A node of a launch tree: the stacks (module → op → sub-op …) as a prefix tree, weighted by the
/// GPU time of the events launched under it and by host time. nodes[0] is the root.
struct LaunchNode {
    QString name;
    FrameKind kind = FrameKind::Root;
    int parent = -1;
    std::vector<int> children;
    qint64 gpuNs = 0;   ///< GPU time of the events launched from this frame and below
    qint64 hostNs = 0;  ///< host wall time of this frame's ranges (summed over calls)
};
struct LaunchTree {
    std::vector<LaunchNode> nodes;
};

/// A node of the module / annotation tree (nn.Module frames, record_function ranges).
struct ModuleNode {
    QString name;
    FrameKind kind = FrameKind::Module;
    qint64 hostNs = 0;
    qint64 deviceNs = 0;  ///< GPU time launched inside it, each event once
    qint64 calls = 0;
    std::vector<ModuleNode> children;
};

/// Which ops launched which kernels (select an op → its kernels; a kernel → its ops).
struct KernelOpLink {
    QString kernelName;
    QString opName;  ///< the launching (innermost) op
    qint64 events = 0;
    qint64 deviceNs = 0;
};

/// A kernel and one op row (name and input shapes) that launched it: the kernel's FLOPs come from
/// the shapes of the ops that launched it (docs/roofline.md).
struct KernelOpRowLink {
    QString kernelName;
    QString opName;
    std::optional<QString> inputShapes;  ///< the op row's; nullopt: not recorded
    qint64 events = 0;                   ///< launches of the kernel by ops of this row
    qint64 deviceNs = 0;
};

/// The attribution of one step (ProfilerStep#N range on the CPU lane) or of the whole trace.
struct AttributionScope {
    QString label;      ///< "ProfilerStep#6", or "whole trace"
    qint64 gpuTimeNs = 0;
    qint64 attributedNs = 0;
    qint64 unattributedNs[kUnattributedReasonCount] = {};
    /// Of attributedNs: launched by runtime calls outside every op (their rows: OpStats::runtimeCall).
    qint64 outsideOpsNs = 0;
    std::vector<OpStats> ops;
    LaunchTree launches;
    ModuleNode modules;  ///< root: name empty, kind Root
    std::vector<KernelOpLink> kernelOps;
    /// The kernel ↔ op links by op row (name and shapes); filled for the whole trace only.
    std::vector<KernelOpRowLink> kernelOpRows;
};

struct TraceAttribution {
    bool available = false;  ///< the trace has CPU ops and runtime calls to attribute with
    /// How op and launch were linked: "External id" where the trace links them that way, else
    /// time containment of the runtime call on its thread (docs/attribution.md).
    QString linkMethod;
    bool shapesRecorded = false;  ///< some op carried "Input Dims"
    /// The trace has GPU events on its timeline, so OpStats::hostSelfGpuIdleNs is measured (without
    /// any, GPU idle is unknown, not the whole host time).
    bool gpuIdleMeasured = false;
    /// CPU ranges that began inside another and ended after it: placed beside it, not inside.
    qint64 rangesPlacedBeside = 0;
    AttributionScope wholeTrace;
    std::vector<AttributionScope> steps;  ///< in step order; empty when the trace marks none
};

} // namespace goblin
