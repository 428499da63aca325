#pragma once
/// \file A part of the run's facts (runfacts.h): the program that ran: PyTorch training or
/// inference, graph capture or replay, micro-benchmark, non-PyTorch program, a range-profiler
/// capture, with its reason. Value types only; decided once at load by analysis/runfacts.h. The
/// advice and the headline speak in its terms (a DataLoader only where data-loading ops were seen,
/// training precision and torch.compile only for PyTorch training).

#include "heuristics.h"

#include <QString>
#include <QtGlobal>

namespace goblin {

enum class ProgramKind : quint8 {
    PyTorchTraining,   ///< backward ops or optimizer steps on the CPU lane
    PyTorchInference,  ///< CPU operators, none of training, no graph capture or replay
    GraphCapture,      ///< HIP/CUDA stream capture or graph instantiate, no replay: kernels do not run then
    GraphReplay,       ///< graph launches (vLLM / SGLang decode, torch.compile reduce-overhead)
    MicroBenchmark,    ///< a handful of kernels repeated, no PyTorch (CUDA/HIP samples, vectorAdd)
    NonPyTorch,        ///< another program's kernels (llama.cpp / ggml, nvFuser, a HIP/CUDA program)
    RangeProfile,      ///< CUPTI range-profiler ranges only: counters per range, no kernel timeline
    Unknown,           ///< nothing tells (no CPU operators and no kernel names, or PyTorch without phases)
};
/// The report's `run_kind`: "training", "inference", "graph_capture", "graph_replay",
/// "micro_benchmark", "non_pytorch", "range_profile", "unknown".
QString programKindName(ProgramKind kind);
/// In a sentence: "PyTorch training", "a graph capture", "llama.cpp (ggml)"…
QString programKindWords(ProgramKind kind);

struct ProgramFacts {
    ProgramKind kind = ProgramKind::Unknown;
    /// Counted from CPU operators and graph calls (Measured), read from kernel names (Estimated),
    /// or nothing (Unknown).
    ValueState state = ValueState::Unknown;
    QString reason;    ///< "312 backward ops, 6 optimizer steps"; "kernel names of ggml (mul_mat_q…)"…
    QString program;   ///< the program the names show: "llama.cpp (ggml)", "nvFuser"; empty when PyTorch or unknown
    bool pytorch = false;        ///< PyTorch ran it (CPU operators, or at::native / Triton kernels)
    bool dataLoadingSeen = false;  ///< a DataLoader range or op in some trace (the only data-wait evidence)
    qint64 dataLoaderOps = 0;  ///< DataLoader ops of the torch traces, and a kernel trace's DataLoader marker ranges
    bool capturesGraphs = false;
    bool replaysGraphs = false;
    qint64 profilerRanges = 0;   ///< cuda_profiler_range events
    int distinctKernels = 0;     ///< kernel names of the run (kernel trace, else torch timeline)

    bool training() const { return kind == ProgramKind::PyTorchTraining; }
    /// A PyTorch program serving or evaluating (inference, or replaying graphs without training).
    bool pytorchInference() const
    {
        return pytorch && (kind == ProgramKind::PyTorchInference || kind == ProgramKind::GraphReplay ||
                           kind == ProgramKind::GraphCapture);
    }
};

} // namespace goblin
