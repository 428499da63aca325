// Engine cost of a threshold change (Google Benchmark): deriveResults (everything the window
// recomputes: the run's, every step's and every rank's budget, the quantities) and the seed's
// computeWasteBudget with thresholds that change every iteration, on a really loaded run folder,
// and, for information, a full reclassification of the kernel names (what editing a pattern costs).
//
//   goblin-bench-thresholds [RUN_DIR] [--benchmark_* options]
//
// RUN_DIR defaults to $GOBLIN_BENCH_RUN_DIR, else resources/example-run of the source tree.
// The targets: the seed's formulas under 1 µs; the whole recompute within a frame's ~8 ms budget
// (STYLE.md), in practice microseconds per step and device.

#include "derived.h"
#include "heuristics.h"
#include "kernelclassifier.h"
#include "runanalysis.h"

#include <benchmark/benchmark.h>

#include <QCoreApplication>
#include <QDir>
#include <QString>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace
{

std::shared_ptr<const goblin::RunAnalysis> g_run;

const goblin::ProfileAnalysis &analysisFor(const benchmark::State &state)
{
    return g_run->profile(state.range(0) == 0 ? goblin::HeuristicsProfile::Workbench
                                              : goblin::HeuristicsProfile::Reference);
}

/// Thresholds that differ from one iteration to the next the way a dragged threshold line
/// does: each knob walks across its range, so no branch of the budget is always taken and the
/// compiler cannot hoist the computation out of the loop.
class ThresholdWalk
{
public:
    const goblin::Thresholds &next()
    {
        m_i = (m_i + 1) % kSteps;
        const double f = double(m_i) / double(kSteps - 1);
        m_t.gpuUtilBelowPct = 100.0 * f;
        m_t.hostBusyAbove = 1.0 - f;
        m_t.hbmTargetPct = 40.0 + 60.0 * f;
        m_t.precision = kPrecisions[m_i % kPrecisions.size()];
        return m_t;
    }

private:
    static constexpr int kSteps = 1001;
    static constexpr std::array<goblin::Precision, 3> kPrecisions = {goblin::Precision::None, goblin::Precision::Fp16,
                                                                     goblin::Precision::Bf16};
    goblin::Thresholds m_t;
    int m_i = 0;
};

void BM_DeriveResults(benchmark::State &state)
{
    const goblin::HeuristicsProfile profile = analysisFor(state).profile;
    ThresholdWalk walk;
    goblin::Derived previous = goblin::deriveResults(*g_run, profile, walk.next());
    for (auto _ : state) {
        goblin::Derived d = goblin::deriveResults(*g_run, profile, walk.next(), &previous);
        benchmark::DoNotOptimize(d);
        previous = std::move(d);
    }
    const goblin::StepSeries *steps = previous.steps();
    std::size_t slices = 0;
    for (const goblin::StepInputs &s : steps ? steps->steps : std::vector<goblin::StepInputs>{})
        slices += s.slices.size();
    state.counters["measured_slices"] = double(slices);
    state.SetLabel(goblin::profileName(profile).toStdString());
}
BENCHMARK(BM_DeriveResults)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_ComputeWasteBudget(benchmark::State &state)
{
    const goblin::BudgetInputs &inputs = analysisFor(state).budgetInputs;
    ThresholdWalk walk;
    for (auto _ : state) {
        goblin::WasteBudget b = goblin::computeWasteBudget(inputs, walk.next());
        benchmark::DoNotOptimize(b);
    }
    state.SetLabel(goblin::profileName(analysisFor(state).profile).toStdString());
}
BENCHMARK(BM_ComputeWasteBudget)->Arg(0)->Arg(1);

/// For information: recompiling the pattern table and classifying every distinct kernel name
/// again (what a pattern edit costs; never needed for a threshold change).
void BM_ClassifyKernels(benchmark::State &state)
{
    const goblin::KernelPatternTable table = goblin::KernelPatternTable::forProfile(analysisFor(state).profile);
    for (auto _ : state) {
        goblin::KernelClasses classes = goblin::classifyKernels(g_run->kernels.names, table);
        benchmark::DoNotOptimize(classes);
    }
    state.counters["names"] = double(g_run->kernels.names.size());
    state.counters["per_name"] =
        benchmark::Counter(double(g_run->kernels.names.size()),
                           benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
    state.SetLabel(goblin::profileName(analysisFor(state).profile).toStdString());
}
BENCHMARK(BM_ClassifyKernels)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

} // namespace

int main(int argc, char **argv)
{
    benchmark::Initialize(&argc, argv); // removes the --benchmark_* options it understood
    QCoreApplication app(argc, argv);

    QString runDir = qEnvironmentVariable("GOBLIN_BENCH_RUN_DIR");
    if (argc > 2) {
        std::fprintf(stderr, "usage: %s [RUN_DIR] [--benchmark_* options]\n", argv[0]);
        return 2;
    }
    if (argc == 2)
        runDir = QString::fromLocal8Bit(argv[1]);
    if (runDir.isEmpty())
        runDir = QStringLiteral(GOBLIN_SOURCE_DIR "/resources/example-run");

    const goblin::LoadResult loaded = goblin::loadRun(runDir);
    if (loaded.outcome != goblin::LoadOutcome::Finished || !loaded.run) {
        std::fprintf(stderr, "goblin-bench-thresholds: cannot load %s: %s\n", qPrintable(runDir),
                     qPrintable(loaded.error));
        return 1;
    }
    g_run = loaded.run;
    benchmark::AddCustomContext("run_dir", QDir(runDir).absolutePath().toStdString());
    benchmark::AddCustomContext("kernel_names", std::to_string(g_run->kernels.names.size()));
    benchmark::AddCustomContext("kernel_rows", std::to_string(g_run->kernels.workbench.rowsUsed));

    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
