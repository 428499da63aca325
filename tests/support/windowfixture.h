#pragma once
// Hand-built runs for the window tests (issue 3): models and widgets are tested on inputs whose
// numbers are known, independent of the parsers. Header-only, included by tst_* files.

#include "runanalysis.h"

#include <cmath>
#include <memory>

namespace goblin::test {

struct FakeKernel {
    const char *name;
    std::uint8_t flags;
    quint64 calls;
    qint64 totalNs;
    qint64 minNs;
    qint64 maxNs;
};

/// A run with five kernels (one used only by the workbench reading), two GPUs of telemetry
/// (20 samples each, one N/A utilisation), two diagnostics and one warning per profile.
/// Budget inputs: step 0.5 s, util 25 %, host busy 0.6, HBM peak 100 GB, so data wait counts
/// at the default thresholds and memory headroom is positive.
inline std::shared_ptr<RunAnalysis> makeFakeRun(const QString &name = QStringLiteral("fake-run"))
{
    static const FakeKernel kernels[] = {
        {"Cijk_gemm_fp16_tuned", FlagGemm | FlagFp16, 400, 4'000'000'000, 9'000'000, 11'000'000},
        {"hipblaslt_generic_gemm_bf16", FlagGemm | FlagGenericGemm | FlagBf16, 100, 1'000'000'000, 9'500'000,
         10'500'000},
        {"rccl_allreduce_kernel", FlagCollective, 50, 500'000'000, 9'000'000, 11'000'000},
        {"elementwise_add", 0, 1000, 100'000'000, 90'000, 110'000},
        {"workbench_only_kernel", 0, 10, 10'000'000, 1'000'000, 1'000'000},
    };
    constexpr std::size_t kernelCount = sizeof(kernels) / sizeof(kernels[0]);

    auto run = std::make_shared<RunAnalysis>();
    run->runDir = QStringLiteral("/nonexistent/") + name;
    run->runDirAsGiven = run->runDir;
    run->runName = name;
    for (std::size_t i = 0; i < kernelCount; ++i)
        run->kernels.names.emplace_back(kernels[i].name);

    const auto fill = [&](KernelReading &reading, bool withWorkbenchOnly) {
        reading.perName.assign(kernelCount, KernelNameStats{});
        for (std::size_t i = 0; i < kernelCount; ++i) {
            if (i == kernelCount - 1 && !withWorkbenchOnly)
                continue;
            KernelNameStats &s = reading.perName[i];
            s.calls = kernels[i].calls;
            s.totalNs = kernels[i].totalNs;
            s.minNs = kernels[i].minNs;
            s.maxNs = kernels[i].maxNs;
            s.firstRow = qint64(i);
            reading.totalNs += s.totalNs;
            reading.rowsUsed += qint64(s.calls);
        }
    };
    fill(run->kernels.workbench, true);
    fill(run->kernels.reference, false);

    const auto profile = [&](ProfileAnalysis &a, HeuristicsProfile p, double commS) {
        a.profile = p;
        a.classes.flags.resize(kernelCount);
        a.classes.attention.assign(kernelCount, AttentionKind::None);
        for (std::size_t i = 0; i < kernelCount; ++i)
            a.classes.flags[i] = kernels[i].flags;
        BudgetInputs &in = a.budgetInputs;
        in.stepTimeS = 0.5;
        in.gpuUtilPct = 25.0;
        in.hostBusyFraction = 0.6;
        in.hbmPeakGb = 100.0;
        in.commExcessS = commS;
        in.gemmNs = 5'000'000'000;
        in.genericGemmNs = 1'000'000'000;
        in.fp16Ns = 4'000'000'000;
        in.bf16Ns = 1'000'000'000;
        a.stepTimeS = in.stepTimeS;
        a.gpuUtilPct = in.gpuUtilPct;
        a.hbmPeakGb = 100.0;
        a.hostBusyFraction = in.hostBusyFraction;
        a.defaultSteps = 10;
        a.topKernels = {{QString::fromLatin1(kernels[0].name), 71.4, 0}, {QString::fromLatin1(kernels[1].name), 17.9, 1}};
        a.warnings = {QStringLiteral("%1 profile warning").arg(profileName(p))};
    };
    profile(run->workbench, HeuristicsProfile::Workbench, 0.02);
    profile(run->reference, HeuristicsProfile::Reference, 0.5);
    // The step plan a load decides for every run (analysis/stepplanfacts.cpp): the 0.5 s step as
    // a training script's metadata states it (no windows), so the step time is known, not Unknown.
    StepPlanFacts &plan = run->facts.stepPlan;
    plan.kind = StepPlanKind::Metadata;
    plan.stepTimeS = run->workbench.stepTimeS;
    plan.state = ValueState::Measured;
    plan.source = run->workbench.stepTimeSource;  // the source the budget's step time names
    // The program a load decides (analysis/programfacts.cpp): PyTorch training whose trace shows
    // DataLoader ops, so its data wait is data wait (no "estimated" caveat) and the advice may
    // speak of the DataLoader, as the dashboard tests of this run expect.
    ProgramFacts &program = run->facts.program;
    program.kind = ProgramKind::PyTorchTraining;
    program.state = ValueState::Measured;
    program.reason = QStringLiteral("40 backward ops, 10 optimizer steps");
    program.pytorch = true;
    program.dataLoadingSeen = true;
    program.dataLoaderOps = 10;

    for (int gpu = 0; gpu < 2; ++gpu)
        for (int i = 0; i < 20; ++i) {
            TelemetrySample s;
            s.timeS = 0.2 * i;
            s.gpu = gpu;
            s.utilPct = (gpu == 1 && i == 3) ? NAN : 10.0 + 4.0 * i + gpu;
            s.hbmUsedGb = 60.0 + 2.0 * i + 5.0 * gpu;
            run->smi.samples.push_back(s);
        }
    run->smi.gpuCount = 2;

    run->diagnostics.push_back({Severity::Warning, QStringLiteral("trace.csv"), 17, QStringLiteral("duration is not a number")});
    run->diagnostics.push_back({Severity::Info, QStringLiteral("amd_smi.csv"), 0, QStringLiteral("no timestamp column")});
    return run;
}

} // namespace goblin::test
