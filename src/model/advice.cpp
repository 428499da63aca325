#include "advice.h"

#include <QJsonValue>
#include <algorithm>
#include <cmath>

namespace goblin {

namespace {

QString ms(double seconds)
{
    return QString::number(seconds * 1000.0, 'f', seconds * 1000.0 >= 10.0 ? 0 : 2);
}

QString pct(double fraction)
{
    return QString::number(fraction * 100.0, 'f', 1);
}

/// GEMM kernels the classifier calls generic/fallback, largest first, with their share of GEMM time.
QJsonArray untunedGemmKernels(const RunAnalysis &run, const ProfileAnalysis &a, HeuristicsProfile profile,
                              int limit)
{
    const KernelReading &kr = profile == HeuristicsProfile::Reference ? run.kernels.reference : run.kernels.workbench;
    std::vector<std::size_t> ids;
    for (std::size_t id = 0; id < kr.perName.size() && id < a.classes.flags.size(); ++id)
        if ((a.classes.flags[id] & FlagGenericGemm) && kr.perName[id].calls > 0)
            ids.push_back(id);
    std::stable_sort(ids.begin(), ids.end(),
                     [&](std::size_t x, std::size_t y) { return kr.perName[x].totalNs > kr.perName[y].totalNs; });
    const double gemmNs = double(a.classTotals.gemmNs);
    QJsonArray out;
    for (std::size_t i = 0; i < ids.size() && int(i) < limit; ++i) {
        const std::string &name = run.kernels.names[ids[i]];
        out.append(QJsonObject{
            {QStringLiteral("name"), QString::fromUtf8(name.data(), qsizetype(name.size()))},
            {QStringLiteral("calls"), double(kr.perName[ids[i]].calls)},
            {QStringLiteral("share_of_gemm_time"), gemmNs > 0 ? double(kr.perName[ids[i]].totalNs) / gemmNs : 0.0}});
    }
    return out;
}

} // namespace

std::vector<Advice> adviseRun(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &thresholds,
                              const WasteBudget &budget)
{
    const ProfileAnalysis &a = run.profile(profile);
    const BudgetInputs &in = a.budgetInputs;
    // The operands the budget itself used (terms): with several ranks they are the ranks' means,
    // so the evidence and share_of_step agree with the mean budget the advice reads.
    const double step = budget.terms.stepS;
    std::vector<Advice> out;
    if (!(step > 0.0) || !std::isfinite(step))
        return out;
    const auto add = [&](const QString &rule, int bucketIndex, const QString &text, QJsonObject evidence) {
        const double seconds = budget.bucket(bucketIndex);
        if (!(seconds > 0.0) || !std::isfinite(seconds))
            return;
        evidence.insert(QStringLiteral("step_time_seconds"), step);
        evidence.insert(QStringLiteral("bucket_seconds_per_step"), seconds);
        out.push_back({rule, WasteBudget::bucketKey(bucketIndex), seconds, seconds / step, text, evidence});
    };
    const double util = budget.terms.gpuUtilPct;
    const double busy = budget.terms.hostBusy;

    // Bucket order: useful_gpu(0) data_wait(1) host_gap(2) comm_excess(3) memory_headroom(4)
    // precision_path(5) kernel_shape(6).
    add(QStringLiteral("data_wait.input_pipeline"), 1,
        QStringLiteral("Data wait %1 ms/step at GPU utilisation %2 % with the host %3 % busy: the GPU waits for "
                       "input. Use more DataLoader workers (num_workers), pinned memory (pin_memory=True) and "
                       "prefetching; move decoding and augmentation off the training process.")
            .arg(ms(budget.dataWait), QString::number(util, 'f', 1), pct(busy)),
        QJsonObject{{QStringLiteral("gpu_util_pct"), util},
                    {QStringLiteral("gpu_util_below_pct"), thresholds.gpuUtilBelowPct},
                    {QStringLiteral("host_busy_fraction"), busy},
                    {QStringLiteral("host_busy_above"), thresholds.hostBusyAbove}});

    add(QStringLiteral("host_gap.launch_overhead"), 2,
        QStringLiteral("Host gap %1 ms/step: the GPU is idle (utilisation %2 %) while the host is not feeding data "
                       "(%3 % busy), typically kernel launch overhead and synchronisation. Capture the step with "
                       "CUDA/HIP graphs or torch.compile (mode=\"reduce-overhead\"), remove .item()/.cpu() syncs.")
            .arg(ms(budget.hostGap), QString::number(util, 'f', 1), pct(busy)),
        QJsonObject{{QStringLiteral("gpu_util_pct"), util},
                    {QStringLiteral("host_busy_fraction"), busy},
                    {QStringLiteral("kernel_calls"), double(a.classTotals.totalCalls)},
                    {QStringLiteral("steps_covered"), a.traceStepsCovered}});

    const double collectiveShare =
        a.classTotals.totalNs > 0 ? double(a.classTotals.collectiveNs) / double(a.classTotals.totalNs) : 0.0;
    add(QStringLiteral("comm_excess.overlap"), 3,
        QStringLiteral("Communication %1 ms/step (%2 % of kernel time in collectives, %3 GPU agents). Overlap it with "
                       "compute (DDP/FSDP overlap, backward prefetch) and tune the bucket sizes (bucket_cap_mb) so "
                       "all-reduces start earlier.")
            .arg(ms(budget.commExcess), pct(collectiveShare))
            .arg(a.gpuAgents),
        QJsonObject{{QStringLiteral("collective_seconds_per_step"), in.commExcessS},
                    {QStringLiteral("collective_share_of_kernel_time"), collectiveShare},
                    {QStringLiteral("collective_calls"), double(a.classTotals.collectiveCalls)},
                    {QStringLiteral("gpu_agents"), a.gpuAgents}});

    const double hbmPeak = in.hbmPeakGb.value_or(0.0);
    add(QStringLiteral("memory_headroom.batch_size"), 4,
        QStringLiteral("Memory headroom %1 ms/step: HBM peaks at %2 GB of %3 GB (%4 %), below the %5 % target. A "
                       "larger batch (or micro-batch) would use the idle memory and amortise per-step overhead.")
            .arg(ms(budget.memoryHeadroom), QString::number(hbmPeak, 'f', 1),
                 QString::number(thresholds.hbmCapacityGb, 'g', 6),
                 pct(thresholds.hbmCapacityGb > 0 ? hbmPeak / thresholds.hbmCapacityGb : 0.0),
                 QString::number(thresholds.hbmTargetPct, 'g', 6)),
        QJsonObject{{QStringLiteral("hbm_peak_gb"), hbmPeak},
                    {QStringLiteral("hbm_capacity_gb"), thresholds.hbmCapacityGb},
                    {QStringLiteral("hbm_target_pct"), thresholds.hbmTargetPct}});

    const double fp16S = double(in.fp16Ns) / 1e9, bf16S = double(in.bf16Ns) / 1e9;
    add(QStringLiteral("precision_path.bf16"), 5,
        QStringLiteral("Precision path %1 ms/step: %2 s of fp16 kernels against %3 s of bf16 (workload precision "
                       "%4). Train in bf16 (no loss scaling) and try fp8 GEMMs (Transformer Engine / hipBLASLt fp8) "
                       "where accuracy allows.")
            .arg(ms(budget.precisionPath), QString::number(fp16S, 'g', 4), QString::number(bf16S, 'g', 4),
                 precisionName(thresholds.precision)),
        QJsonObject{{QStringLiteral("fp16_kernel_seconds"), fp16S},
                    {QStringLiteral("bf16_kernel_seconds"), bf16S},
                    {QStringLiteral("precision"), precisionName(thresholds.precision)},
                    {QStringLiteral("precision_weight"), thresholds.precisionWeight}});

    const QJsonArray untuned = untunedGemmKernels(run, a, profile, 5);
    const double genericShare = in.gemmNs > 0 ? double(in.genericGemmNs) / double(in.gemmNs) : 0.0;
    QStringList names;
    for (const QJsonValue &k : untuned)
        names << QStringLiteral("%1 (%2 % of GEMM time)")
                     .arg(k[QStringLiteral("name")].toString(), pct(k[QStringLiteral("share_of_gemm_time")].toDouble()));
    add(QStringLiteral("kernel_shape.gemm_tuning"), 6,
        QStringLiteral("Untuned GEMM shapes %1 ms/step: %2 % of GEMM time runs in generic/fallback kernels: %3. Tune "
                       "these shapes with hipBLASLt (HIPBLASLT_TUNING / PYTORCH_TUNABLEOP_ENABLED=1) or pad them to "
                       "tuned sizes.")
            .arg(ms(budget.kernelShape), pct(genericShare), names.join(QStringLiteral("; "))),
        QJsonObject{{QStringLiteral("generic_gemm_share_of_gemm_time"), genericShare},
                    {QStringLiteral("generic_gemm_seconds"), double(in.genericGemmNs) / 1e9},
                    {QStringLiteral("gemm_seconds"), double(in.gemmNs) / 1e9},
                    {QStringLiteral("gpu_util_pct"), util},
                    {QStringLiteral("untuned_kernels"), untuned}});

    std::stable_sort(out.begin(), out.end(),
                     [](const Advice &x, const Advice &y) { return x.secondsPerStep > y.secondsPerStep; });
    return out;
}

QJsonArray adviceJson(const std::vector<Advice> &advice)
{
    QJsonArray out;
    for (const Advice &a : advice)
        out.append(QJsonObject{{QStringLiteral("rule"), a.rule},
                               {QStringLiteral("bucket"), a.bucket},
                               {QStringLiteral("seconds_per_step"), a.secondsPerStep},
                               {QStringLiteral("share_of_step"), a.shareOfStep},
                               {QStringLiteral("text"), a.text},
                               {QStringLiteral("evidence"), a.evidence}});
    return out;
}

} // namespace goblin
