#pragma once
// A hand-built Kineto attribution for the analysis views' tests (issue 24): one small training
// step of a two-layer MLP, with numbers that add up (attributed + unattributed = GPU time; an
// op's device total covers its children). The views are tested on it independently of the
// Kineto parser. Header-only, included by tst_* files.

#include "run.h"
#include "results/traceattribution.h"

#include <functional>
#include <memory>

namespace goblin::test
{

constexpr qint64 kMs = 1'000'000;
constexpr qint64 kUs = 1'000;

inline QString gemmKernelA()
{
    return QStringLiteral("Cijk_Ailk_Bljk_SB_MT64x64x16_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_"
                          "ASAE01_ASCE01_ASEM1_BL1_BS1_DTL0_DTVA0_DVO0_ETSP_EPS1_FL0_GRVW4_GSU1_GSUASB_GLS0_ISA942");
}
inline QString gemmKernelB()
{
    return QStringLiteral("Cijk_Ailk_Bljk_SB_MT128x64x16_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_"
                          "ASAE01_ASCE01_ASEM1_BL1_BS1_DTL0_DTVA0_DVO0_ETSP_EPS1_FL0_GRVW4_GSU1_GSUASB_GLS0_ISA942");
}
inline QString reluKernel()
{
    return QStringLiteral("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
                          "namespace)::launch_clamp_scalar(at::TensorIteratorBase&)>");
}

/// Scales every time of a scope by `factor` (calls and events too, rounded), for the steps.
inline AttributionScope scaledScope(const AttributionScope &s, double factor, const QString &label)
{
    const auto k = [factor](qint64 v) { return qint64(double(v) * factor + 0.5); };
    AttributionScope out = s;
    out.label = label;
    out.gpuTimeNs = k(s.gpuTimeNs);
    out.attributedNs = k(s.attributedNs);
    for (int r = 0; r < kUnattributedReasonCount; ++r)
        out.unattributedNs[r] = k(s.unattributedNs[r]);
    for (OpStats &o : out.ops) {
        o.calls = k(o.calls);
        o.hostSelfNs = k(o.hostSelfNs);
        o.hostTotalNs = k(o.hostTotalNs);
        o.deviceSelfNs = k(o.deviceSelfNs);
        o.deviceTotalNs = k(o.deviceTotalNs);
        o.kernels = k(o.kernels);
    }
    for (LaunchNode &n : out.launches.nodes) {
        n.gpuNs = k(n.gpuNs);
        n.hostNs = k(n.hostNs);
    }
    const std::function<void(ModuleNode &)> scaleModule = [&](ModuleNode &m) {
        m.hostNs = k(m.hostNs);
        m.deviceNs = k(m.deviceNs);
        m.calls = k(m.calls);
        for (ModuleNode &c : m.children)
            scaleModule(c);
    };
    scaleModule(out.modules);
    for (KernelOpLink &l : out.kernelOps) {
        l.events = k(l.events);
        l.deviceNs = k(l.deviceNs);
    }
    return out;
}

/// Whole trace: 10 ms of GPU time, 9.5 ms attributed, 0.3 ms with no runtime event and 0.2 ms
/// launched outside every op. Two steps of half the trace each; the second ran no ReLU.
inline TraceAttribution makeAttribution()
{
    TraceAttribution a;
    a.available = true;
    a.linkMethod = QStringLiteral("time containment of the runtime call on its thread");
    a.shapesRecorded = true;

    AttributionScope &w = a.wholeTrace;
    w.label = QStringLiteral("whole trace");
    w.gpuTimeNs = 10 * kMs;
    w.attributedNs = 9'500 * kUs;
    w.unattributedNs[int(UnattributedReason::NoRuntimeEvent)] = 300 * kUs;
    w.unattributedNs[int(UnattributedReason::GraphReplayWithoutCorrelation)] = 200 * kUs;

    const auto op = [](const char *name, std::optional<QString> shapes, qint64 calls, qint64 hostSelf, qint64 hostTotal,
                       qint64 devSelf, qint64 devTotal, qint64 kernels) {
        return OpStats{
            QString::fromLatin1(name), std::move(shapes), calls, hostSelf, hostTotal, devSelf, devTotal, kernels, 0,
            false, {}, {}};
    };
    w.ops = {
        op("aten::linear", QStringLiteral("[[32, 1024], [4096, 1024], [4096]]"), 4, 120 * kUs, 2'400 * kUs, 0, 6 * kMs,
           0),
        op("aten::addmm", QStringLiteral("[[4096], [32, 1024], [1024, 4096]]"), 4, 1'800 * kUs, 2'000 * kUs, 6 * kMs,
           6 * kMs, 4),
        op("aten::addmm", QStringLiteral("[[1024], [32, 4096], [4096, 1024]]"), 4, 1'600 * kUs, 1'700 * kUs, 2 * kMs,
           2 * kMs, 4),
        op("aten::relu", QStringLiteral("[[32, 4096]]"), 4, 700 * kUs, 800 * kUs, 500 * kUs, 500 * kUs, 4),
        op("aten::mm", QStringLiteral("[[32, 1024], [1024, 1024]]"), 2, 250 * kUs, 300 * kUs, 1 * kMs, 1 * kMs, 2),
        op("aten::empty", std::nullopt, 12, 90 * kUs, 90 * kUs, 0, 0, 0),
    };
    w.kernelOps = {
        {gemmKernelA(), QStringLiteral("aten::addmm"), 4, 6 * kMs},
        {gemmKernelB(), QStringLiteral("aten::addmm"), 4, 2 * kMs},
        {reluKernel(), QStringLiteral("aten::relu"), 4, 500 * kUs},
        {gemmKernelA(), QStringLiteral("aten::mm"), 2, 1 * kMs},
    };

    // root → Model_0 → {Linear_0 → linear → addmm → GEMM A, ReLU_0 → relu → relu kernel,
    //                   Linear_1 → linear → addmm → GEMM B}; root → Optimizer.step → mm → GEMM A.
    std::vector<LaunchNode> &n = w.launches.nodes;
    const auto add = [&n](const QString &name, FrameKind kind, int parent, qint64 gpuNs, qint64 hostNs) {
        n.push_back(LaunchNode{name, kind, parent, {}, gpuNs, hostNs});
        const int id = int(n.size()) - 1;
        if (parent >= 0)
            n[std::size_t(parent)].children.push_back(id);
        return id;
    };
    const int root = add(QString(), FrameKind::Root, -1, 9'500 * kUs, 8 * kMs);
    const int model = add(QStringLiteral("nn.Module: Model_0"), FrameKind::Module, root, 8'500 * kUs, 6 * kMs);
    const int lin0 = add(QStringLiteral("nn.Module: Linear_0"), FrameKind::Module, model, 6 * kMs, 2 * kMs);
    const int linear0 = add(QStringLiteral("aten::linear"), FrameKind::Op, lin0, 6 * kMs, 1'900 * kUs);
    const int addmm0 = add(QStringLiteral("aten::addmm"), FrameKind::Op, linear0, 6 * kMs, 1'800 * kUs);
    add(gemmKernelA(), FrameKind::GpuEvent, addmm0, 6 * kMs, 0);
    const int reluMod = add(QStringLiteral("nn.Module: ReLU_0"), FrameKind::Module, model, 500 * kUs, 1 * kMs);
    const int relu = add(QStringLiteral("aten::relu"), FrameKind::Op, reluMod, 500 * kUs, 800 * kUs);
    add(reluKernel(), FrameKind::GpuEvent, relu, 500 * kUs, 0);
    const int lin1 = add(QStringLiteral("nn.Module: Linear_1"), FrameKind::Module, model, 2 * kMs, 3 * kMs);
    const int linear1 = add(QStringLiteral("aten::linear"), FrameKind::Op, lin1, 2 * kMs, 1'700 * kUs);
    const int addmm1 = add(QStringLiteral("aten::addmm"), FrameKind::Op, linear1, 2 * kMs, 1'600 * kUs);
    add(gemmKernelB(), FrameKind::GpuEvent, addmm1, 2 * kMs, 0);
    const int optim = add(QStringLiteral("Optimizer.step#SGD.step"), FrameKind::Annotation, root, 1 * kMs, 2 * kMs);
    const int py =
        add(QStringLiteral("torch/optim/sgd.py(75): step"), FrameKind::PythonFunction, optim, 1 * kMs, 1'500 * kUs);
    const int mm = add(QStringLiteral("aten::mm"), FrameKind::Op, py, 1 * kMs, 300 * kUs);
    add(gemmKernelA(), FrameKind::GpuEvent, mm, 1 * kMs, 0);

    const auto module = [](const char *name, FrameKind kind, qint64 hostNs, qint64 deviceNs, qint64 calls,
                           std::vector<ModuleNode> children = {}) {
        return ModuleNode{QString::fromLatin1(name), kind, hostNs, deviceNs, calls, std::move(children)};
    };
    w.modules = module("", FrameKind::Root, 0, 0, 0,
                       {module("nn.Module: Model_0", FrameKind::Module, 6 * kMs, 8'500 * kUs, 2,
                               {module("nn.Module: Linear_0", FrameKind::Module, 2 * kMs, 6 * kMs, 2),
                                module("nn.Module: ReLU_0", FrameKind::Module, 1 * kMs, 500 * kUs, 2),
                                module("nn.Module: Linear_1", FrameKind::Module, 3 * kMs, 2 * kMs, 2)}),
                        module("Optimizer.step#SGD.step", FrameKind::Annotation, 2 * kMs, 1 * kMs, 2)});

    a.steps.push_back(scaledScope(w, 0.5, QStringLiteral("ProfilerStep#1")));
    AttributionScope step2 = scaledScope(w, 0.5, QStringLiteral("ProfilerStep#2"));
    std::erase_if(step2.ops, [](const OpStats &o) { return o.name == QLatin1String("aten::relu"); });
    std::erase_if(step2.kernelOps, [](const KernelOpLink &l) { return l.opName == QLatin1String("aten::relu"); });
    a.steps.push_back(std::move(step2));
    return a;
}

/// A run that read a torch trace and attributed it (nothing else in it).
inline std::shared_ptr<RunAnalysis> makeAttributedRun()
{
    auto run = std::make_shared<RunAnalysis>();
    run->runDir = QStringLiteral("/nonexistent/attributed");
    run->runName = QStringLiteral("attributed");
    run->torch.file.relativePath = QStringLiteral("torch_profile.json");
    run->torch.attribution = makeAttribution();
    return run;
}

} // namespace goblin::test
