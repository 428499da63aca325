// What kind of program ran, decided once at load: from the torch traces' CPU lane and graph calls
// (runtraits.cpp counted them), else from the kernel names of the run.
#include "decidefacts.h"

#include <QLocale>

#include <set>
#include <string_view>

namespace goblin {

namespace {

QString count(qint64 n)
{
    static const QLocale english(QLocale::English, QLocale::UnitedStates);
    return english.toString(n);
}

bool contains(std::string_view name, std::string_view part) { return name.find(part) != std::string_view::npos; }

/// What the kernel names of the run say of the program that launched them.
struct KernelNameSigns {
    std::set<std::string_view> distinct;  ///< kernel names (copies and memsets left out)
    QString pytorchExample, ggmlExample, nvfuserExample;
};

bool isCopyOrSet(std::string_view n)
{
    return n.substr(0, 6) == "Memcpy" || n.substr(0, 6) == "Memset" || contains(n, "MEMORY_COPY") ||
           contains(n, "__amd_rocclr_copyBuffer") || contains(n, "__amd_rocclr_fillBuffer") ||
           contains(n, "CopyHostToDevice") || contains(n, "CopyDeviceToHost");
}

void readNames(const std::vector<std::string> &names, KernelNameSigns &signs)
{
    for (const std::string &name : names) {
        const std::string_view n(name);
        if (n.empty() || isCopyOrSet(n))
            continue;
        signs.distinct.insert(n);
        const auto example = [&](QString &slot) {
            if (slot.isEmpty())
                slot = QString::fromUtf8(n.data(), qsizetype(std::min<size_t>(n.size(), 60)));
        };
        // ATen's own kernels (at::native::…, at::cuda::…) and Inductor's Triton kernels.
        if (contains(n, "at::native::") || contains(n, "at::cuda::") || n.substr(0, 7) == "triton_" ||
            contains(n, "c10::"))
            example(signs.pytorchExample);
        // llama.cpp's ggml-cuda / ggml-hip kernels (ggml/src/ggml-cuda/*.cu).
        else if (contains(n, "ggml") || contains(n, "mul_mat_q") || contains(n, "mul_mat_vec_q") ||
                 contains(n, "quantize_q8_1") || contains(n, "flash_attn_ext") || contains(n, "rms_norm_f32") ||
                 contains(n, "k_bin_bcast") || contains(n, "dequantize_block") || contains(n, "k_get_rows"))
            example(signs.ggmlExample);
        // nvFuser's generated kernels (nvfuser_pointwise_…, CudaCodeGen::kernel1).
        else if (contains(n, "nvfuser_") || contains(n, "CudaCodeGen::"))
            example(signs.nvfuserExample);
    }
}

constexpr int kMicroBenchmarkKernels = 4;  // at most this many distinct kernels: a sample or a benchmark

} // namespace

ProgramFacts decideProgram(const RunAnalysis &run)
{
    const RunTraitsAnalysis &t = run.traits;
    ProgramFacts out;
    out.dataLoaderOps = t.dataLoaderOps;
    out.dataLoadingSeen = t.hasDataLoader;
    // A kernel trace's marker ranges that name a DataLoader (roctx, NVTX): its data loading,
    // counted as ranges (merged where they overlap).
    for (const GpuTimelineFile &f : run.kernels.timeline.files)
        if (!f.dataLoading.empty()) {
            out.dataLoadingSeen = true;
            out.dataLoaderOps += qint64(f.dataLoading.size());
        }
    out.capturesGraphs = t.capturesGraphs;
    out.replaysGraphs = t.replaysGraphs;
    out.profilerRanges = t.profilerRanges;

    KernelNameSigns signs;
    readNames(run.kernels.names, signs);
    for (const GpuTimelineFile &f : run.torch.timeline.files)
        readNames(f.names, signs);
    for (const GpuTimelineFile &f : run.kernels.timeline.files)
        readNames(f.names, signs);
    out.distinctKernels = int(signs.distinct.size());

    const auto decide = [&](ProgramKind kind, ValueState state, const QString &reason) {
        out.kind = kind;
        out.state = state;
        out.reason = reason;
    };
    // The CPU lane first: what PyTorch ran is counted, not guessed.
    if (t.hasTorchTrace && t.cpuOps > 0) {
        out.pytorch = true;
        if (t.runKind.kind == RunKind::Kind::Training)
            decide(ProgramKind::PyTorchTraining, ValueState::Measured, t.runKind.reason);
        else if (t.capturesGraphs && !t.replaysGraphs)
            decide(ProgramKind::GraphCapture, ValueState::Measured,
                   QStringLiteral("%1 stream-capture or graph-instantiate calls and no graph launch: kernels launched "
                                  "while a stream is captured do not run then, so the GPU idles around them")
                       .arg(count(t.graphs.captures)));
        else if (t.replaysGraphs)
            decide(ProgramKind::GraphReplay, ValueState::Measured,
                   QStringLiteral("%1 graph launches (%2) and no backward op or optimizer step")
                       .arg(count(t.graphs.launches), t.graphs.launchName.isEmpty() ? QStringLiteral("graph launch")
                                                                                    : t.graphs.launchName));
        else if (t.runKind.kind == RunKind::Kind::Inference)
            decide(ProgramKind::PyTorchInference, ValueState::Measured, t.runKind.reason);
        else
            decide(ProgramKind::Unknown, ValueState::Unknown, t.runKind.reason);
        return out;
    }
    // No CPU operator: the trace is of another kind, or the kernels tell the program.
    if (out.profilerRanges > 0 && signs.distinct.empty()) {
        decide(ProgramKind::RangeProfile, ValueState::Measured,
               QStringLiteral("%1 cuda_profiler_range events and no kernel: a CUPTI range-profiler capture (counters "
                              "per range), which times no kernel and no idle")
                   .arg(count(out.profilerRanges)));
        return out;
    }
    if (!signs.pytorchExample.isEmpty()) {
        out.pytorch = true;
        // Graph replay tells itself by its runtime calls even without CPU operators.
        if (t.replaysGraphs)
            decide(ProgramKind::GraphReplay, ValueState::Measured,
                   QStringLiteral("%1 graph launches; no CPU operators to tell training from inference")
                       .arg(count(t.graphs.launches)));
        else
            decide(ProgramKind::Unknown, ValueState::Estimated,
                   QStringLiteral("PyTorch kernels (%1) but no CPU operators: training or inference cannot be told")
                       .arg(signs.pytorchExample));
        return out;
    }
    if (!signs.ggmlExample.isEmpty()) {
        out.program = QStringLiteral("llama.cpp (ggml)");
        decide(ProgramKind::NonPyTorch, ValueState::Estimated,
               QStringLiteral("kernel names of llama.cpp's ggml backend (%1), none of PyTorch's").arg(signs.ggmlExample));
        return out;
    }
    if (!signs.nvfuserExample.isEmpty()) {
        out.program = QStringLiteral("nvFuser");
        decide(ProgramKind::NonPyTorch, ValueState::Estimated,
               QStringLiteral("nvFuser's generated kernels (%1), none of PyTorch's").arg(signs.nvfuserExample));
        return out;
    }
    if (signs.distinct.empty()) {
        decide(ProgramKind::Unknown, ValueState::Unknown,
               t.hasTorchTrace ? t.runKind.reason : QStringLiteral("no CPU operators and no kernel names in the run"));
        return out;
    }
    QStringList some;
    for (const std::string_view n : signs.distinct) {
        if (some.size() == 3)
            break;
        some << QString::fromUtf8(n.data(), qsizetype(std::min<size_t>(n.size(), 40)));
    }
    if (out.distinctKernels <= kMicroBenchmarkKernels) {
        out.program = QStringLiteral("a HIP/CUDA program of %1 kernel(s)").arg(out.distinctKernels);
        decide(ProgramKind::MicroBenchmark, ValueState::Estimated,
               QStringLiteral("%1 distinct kernel(s) (%2), none of PyTorch's and no CPU operators: a sample or "
                              "micro-benchmark")
                   .arg(out.distinctKernels)
                   .arg(some.join(QStringLiteral(", "))));
        return out;
    }
    out.program = QStringLiteral("a HIP/CUDA program");
    decide(ProgramKind::NonPyTorch, ValueState::Estimated,
           QStringLiteral("%1 distinct kernels (%2…), none of PyTorch's (no at::native, no Triton) and no CPU operators")
               .arg(out.distinctKernels)
               .arg(some.join(QStringLiteral(", "))));
    return out;
}

} // namespace goblin
