#include "advice.h"

#include "collectives.h"
#include "programcaveat.h"

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

/// "aten::mm [[64, 512], [512, 512]] 3.2 ms, aten::addmm 1.1 ms" — the largest few, shapes elided.
QString culpritList(const std::vector<Culprit> &list, int limit)
{
    QStringList parts;
    for (std::size_t i = 0; i < list.size() && int(i) < limit; ++i) {
        const Culprit &c = list[i];
        QString shapes;
        if (c.inputShapes && !c.inputShapes->isEmpty() && *c.inputShapes != QLatin1String("[]"))
            shapes = QLatin1Char(' ') +
                     (c.inputShapes->size() > 48 ? c.inputShapes->left(47) + QChar(0x2026) : *c.inputShapes);
        parts << QStringLiteral("%1%2 %3 ms").arg(c.name, shapes, ms(c.secondsPerStep));
    }
    return parts.join(QStringLiteral(", "));
}

QJsonArray culpritJson(const std::vector<Culprit> &list)
{
    QJsonArray out;
    for (const Culprit &c : list) {
        QJsonObject o{{QStringLiteral("name"), c.name},
                      {QStringLiteral("seconds_per_step"), c.secondsPerStep},
                      {QStringLiteral("gpu_events"), double(c.events)}};
        o.insert(QStringLiteral("input_shapes"), c.inputShapes ? QJsonValue(*c.inputShapes) : QJsonValue());
        out.append(o);
    }
    return out;
}

/// The sentence and the evidence naming the ops and modules behind one kernel class: "Launched by
/// aten::mm … ; in modules Linear …". Empty when the trace attributes none of that class.
QString whereText(const RunCulprits &culprits, CulpritClass which, const QString &what)
{
    const ClassCulprits &c = culprits.of(which);
    if (!culprits.available || c.ops.empty())
        return {};
    QString text = QStringLiteral(" %1 launched by %2 (GPU time per step)").arg(what, culpritList(c.ops, 3));
    if (!c.modules.empty())
        text += QStringLiteral(", inside %1").arg(culpritList(c.modules, 2));
    return text + QLatin1Char('.');
}

void addWhere(QJsonObject &evidence, const RunCulprits &culprits, CulpritClass which, const QString &prefix)
{
    if (!culprits.available)
        return;
    const ClassCulprits &c = culprits.of(which);
    evidence.insert(prefix + QStringLiteral("_ops"), culpritJson(c.ops));
    evidence.insert(prefix + QStringLiteral("_modules"), culpritJson(c.modules));
    evidence.insert(prefix + QStringLiteral("_attributed_seconds_per_step"), c.deviceSPerStep);
    evidence.insert(QStringLiteral("ops_scope"), culprits.scope);
}

} // namespace

std::vector<Advice> adviseRun(const RunAnalysis &run, const Derived &derived)
{
    const HeuristicsProfile profile = derived.profile;
    const Thresholds &thresholds = derived.thresholds;
    const WasteBudget &budget = derived.metrics.wasteBudget;
    const ProfileAnalysis &a = run.profile(profile);
    const BudgetInputs &in = a.budgetInputs;
    const BudgetTerms &terms = budget.terms;
    const Quantities &q = derived.quantities;
    // The operands the budget itself used (terms): with several ranks or steps they are means, so
    // the evidence and share_of_step agree with the budget the advice reads.
    const double step = terms.stepS;
    std::vector<Advice> out;
    if (!(step > 0.0) || !std::isfinite(step))
        return out;
    const auto add = [&](const QString &rule, int bucketIndex, const QString &text, QJsonObject evidence) {
        const double seconds = budgetRowSeconds(budget, bucketIndex);
        // No advice argues from a number nothing measured.
        if (!(seconds > 0.0) || !std::isfinite(seconds) || budget.state(bucketIndex) == ValueState::Unknown)
            return;
        evidence.insert(QStringLiteral("step_time_seconds"), step);
        evidence.insert(QStringLiteral("bucket_seconds_per_step"), seconds);
        evidence.insert(QStringLiteral("bucket_state"), valueStateName(budget.state(bucketIndex)));
        evidence.insert(QStringLiteral("run_kind"), programKindName(run.facts.program.kind));
        const QString key = bucketIndex == kUnattributedRow ? QStringLiteral("unattributed") : WasteBudget::bucketKey(bucketIndex);
        out.push_back({rule, key, seconds, seconds / step, text, evidence});
    };
    // Utilisation and host busy as the quantities state them: omitted when unknown.
    const Quantity &utilQ = q[QuantityKey::GpuUtilPct];
    const Quantity &hostQ = q[QuantityKey::HostBusyFraction];
    const double util = utilQ.value.value_or(0.0);
    const double busy = hostQ.value.value_or(0.0);
    const QString utilText = utilQ.value ? QStringLiteral("%1 %").arg(util, 0, 'f', 1) : QStringLiteral("unknown");
    const QString hostText = hostQ.value ? QStringLiteral("%1 %").arg(pct(busy)) : QStringLiteral("unknown");
    const auto withQuantities = [&](QJsonObject evidence) {
        if (utilQ.value)
            evidence.insert(QStringLiteral("gpu_util_pct"), util);
        if (hostQ.value)
            evidence.insert(QStringLiteral("host_busy_fraction"), busy);
        return evidence;
    };

    // The advice fits the program (the run's facts): PyTorch training or inference, a graph capture,
    // another program's kernels; a DataLoader or none; graphs replayed or not. PyTorch's words
    // (DataLoader, torch.compile, training precision) are said only to the program they fit.
    const RunTraitsAnalysis &traits = run.traits;
    const ProgramFacts &program = run.facts.program;
    const bool training = program.training();
    const bool inference = program.pytorchInference();
    const bool pytorch = program.pytorch;
    const bool capture = program.kind == ProgramKind::GraphCapture;
    const bool micro = program.kind == ProgramKind::MicroBenchmark;
    const QString programName = program.program.isEmpty() ? QStringLiteral("the program") : program.program;
    const QString graphWord = traits.vendor == QLatin1String("CUDA") ? QStringLiteral("CUDA")
                              : traits.vendor == QLatin1String("HIP") ? QStringLiteral("HIP")
                                                                      : QStringLiteral("HIP/CUDA");

    // Bucket order: useful_gpu(0) data_wait(1) host_gap(2) comm_excess(3) memory_headroom(4)
    // precision_path(5) kernel_shape(6), then unattributed.
    const bool loaderSeen = program.dataLoadingSeen || terms.idleDataS > 0.0;
    const bool hostBusyIdle = dataWaitIsHostBusyIdle(run, budget);
    // The ops the host ran while the GPU waited: self time in all GPU-idle time, every thread. The
    // trace cannot tell which idle second the thresholds book as data wait and which as host gap,
    // so both advices name the same list and say so.
    const RunCulprits &culprits = run.culprits;
    const QString gapWhere =
        culprits.available && !culprits.hostIdle.ops.empty()
            ? QStringLiteral(" While the GPU was idle (data wait and host gap together) the host ran %1 (self time "
                             "per step).")
                  .arg(culpritList(culprits.hostIdle.ops, 4))
            : QString();
    const auto addIdleOps = [&](QJsonObject evidence) {
        if (culprits.available) {
            evidence.insert(QStringLiteral("host_ops_in_gpu_idle"), culpritJson(culprits.hostIdle.ops));
            evidence.insert(QStringLiteral("host_self_in_gpu_idle_seconds_per_step"), culprits.hostIdle.deviceSPerStep);
            evidence.insert(QStringLiteral("ops_scope"), culprits.scope);
        }
        return evidence;
    };
    // Only what was seen is named: a data-loading range, input copies, host-busy idle the gate booked.
    const QString dataFix =
        capture ? QStringLiteral("This trace is a graph capture: kernels launched while a stream is captured do not "
                                 "run, so the GPU idles while the graph is recorded; profile the replays (the steady "
                                 "state) to measure the program.")
        : micro ? QStringLiteral("In a micro-benchmark the idle around the kernels is the harness's own work "
                                 "(allocation, setup copies, timing); time the kernels themselves rather than reading "
                                 "it as a data pipeline.")
        : loaderSeen && pytorch
            ? (inference ? QStringLiteral("Prepare inputs (tokenisation, image decoding) in DataLoader workers "
                                          "(num_workers) off the serving loop, with pin_memory=True and prefetching.")
                         : QStringLiteral("Use more DataLoader workers (num_workers), pinned memory (pin_memory=True) and "
                                          "prefetching; move decoding and augmentation off the training process."))
        : !pytorch ? QStringLiteral("Overlap the host's work with the GPU in %1: launch asynchronously, copy on a "
                                    "separate stream, and move host-side preparation out of the launch loop.")
                         .arg(programName)
        : inference ? (terms.h2dCopyS > 0.0
                           ? QStringLiteral("Batch requests and prepare inputs off the serving loop, and copy inputs "
                                            "with pinned memory and non_blocking=True.")
                           : QStringLiteral("Batch requests and prepare inputs (tokenisation, image decoding) off the "
                                            "serving loop."))
        : terms.h2dCopyS > 0.0
            ? QStringLiteral("Copy inputs from pinned memory with non_blocking=True and prefetch the next batch to the "
                             "GPU on a side stream, so the copy overlaps compute.")
            : QStringLiteral("Find the host work the GPU waits for and move it off the step's "
                             "critical path.");
    QStringList dataParts;
    if (terms.measured) {
        if (terms.idleDataS > 0.0)
            dataParts << QStringLiteral("the GPU sat idle %1 ms per step inside data loading (enumerate(DataLoader)…)")
                             .arg(ms(terms.idleDataS));
        if (terms.h2dCopyS > 0.0)
            dataParts << QStringLiteral("%1 ms per step copying inputs in with nothing else to run").arg(ms(terms.h2dCopyS));
        if (terms.dataWaitGateMet && terms.idleHostS > 0.0)
            dataParts << (loaderSeen
                              ? QStringLiteral("%1 ms idle during other host work (utilisation below %2 % with the host "
                                               "above %3 busy: the thresholds count it as data wait)")
                              : QStringLiteral("%1 ms of GPU idle while the host ran other work: no data-loading op was "
                                               "seen, so this is host-busy idle that the thresholds (utilisation below "
                                               "%2 %, host above %3 busy) book as data wait, an estimate"))
                                  .arg(ms(terms.idleHostS))
                                  .arg(thresholds.gpuUtilBelowPct, 0, 'g', 4)
                                  .arg(thresholds.hostBusyAbove, 0, 'g', 3);
    }
    const QString dataWhy =
        !dataParts.isEmpty() ? dataParts.join(QStringLiteral(", "))
        : hostBusyIdle ? QStringLiteral("GPU utilisation %1 with the host %2 busy and no data-loading op seen: host-busy "
                                        "idle the thresholds book as data wait, an estimate")
                             .arg(utilText, hostText)
                       : QStringLiteral("GPU utilisation %1 with the host %2 busy").arg(utilText, hostText);
    add(capture ? QStringLiteral("data_wait.graph_capture")
        : hostBusyIdle && terms.idleDataS <= 0.0 && terms.h2dCopyS <= 0.0 ? QStringLiteral("data_wait.host_busy_idle")
                                                                           : QStringLiteral("data_wait.input_pipeline"),
        1,
        QStringLiteral("Data wait %1 ms/step: %2.%4 %3").arg(ms(budget.dataWait), dataWhy, dataFix, gapWhere),
        addIdleOps(withQuantities(QJsonObject{{QStringLiteral("idle_in_data_loading_seconds"), terms.idleDataS},
                                              {QStringLiteral("input_copy_seconds"), terms.h2dCopyS},
                                              {QStringLiteral("gpu_util_below_pct"), thresholds.gpuUtilBelowPct},
                                              {QStringLiteral("host_busy_above"), thresholds.hostBusyAbove},
                                              {QStringLiteral("data_loading_seen"), loaderSeen},
                                              {QStringLiteral("host_busy_idle_estimated"), hostBusyIdle}})));

    const QString gapWhy =
        terms.measured
            ? QStringLiteral("the GPU is idle %1 ms per step while the host runs nothing traced (launch gaps, "
                             "synchronisation)%2")
                  .arg(ms(terms.idleNothingS),
                       !terms.dataWaitGateMet && terms.idleHostS > 0.0
                           ? QStringLiteral(" and %1 ms while other host work runs (Python, optimizer, logging)")
                                 .arg(ms(terms.idleHostS))
                           : QString())
            : QStringLiteral("the GPU is idle (utilisation %1) while the host is not feeding data (%2 busy)")
                  .arg(utilText, hostText);
    // A run that already replays graphs is not told to capture graphs: its gaps lie between replays.
    const QString gapFix =
        capture ? QStringLiteral("This trace is a graph capture: the gaps are the capture itself (kernels are recorded, "
                                 "not run); profile the replays to measure launch gaps.")
        : traits.replaysGraphs
            ? QStringLiteral("The run already replays %1 graphs, so the gaps lie between replays: capture more of the "
                             "%2 in one graph, give each replay more work (larger batch), and remove host syncs "
                             "between replays.")
                  .arg(graphWord, training ? QStringLiteral("step") : QStringLiteral("forward pass"))
        : micro ? QStringLiteral("In a micro-benchmark the gaps between launches are the harness's (synchronisation, "
                                 "timing calls); time the kernels with events rather than reading the gaps as waste.")
        : !pytorch && program.kind != ProgramKind::Unknown
            ? QStringLiteral("Fewer, larger launches in %1: fuse small kernels, launch asynchronously without "
                             "synchronising between them, and capture repeated launch sequences in %2 graphs.")
                  .arg(programName, graphWord)
        : inference ? QStringLiteral("Capture the forward pass (an LLM server's decode step) with %1 graphs (vLLM: "
                                     "graph capture for the batch sizes served) and remove .item()/.cpu() syncs from "
                                     "the serving loop.")
                          .arg(graphWord)
        : training ? QStringLiteral("Capture the step with %1 graphs or torch.compile (mode=\"reduce-overhead\"), "
                                    "remove .item()/.cpu() syncs, and move other host work off the critical path.")
                         .arg(graphWord)
                   : QStringLiteral("Capture the repeated launches with %1 graphs, remove host synchronisation between "
                                    "launches, and move other host work off the critical path.")
                         .arg(graphWord);
    const QJsonObject gapEvidence =
        addIdleOps(withQuantities(QJsonObject{{QStringLiteral("idle_nothing_on_host_seconds"), terms.idleNothingS},
                                              {QStringLiteral("idle_during_host_work_seconds"), terms.idleHostS},
                                              {QStringLiteral("kernel_calls"), double(a.classTotals.totalCalls)}}));
    add(QStringLiteral("host_gap.launch_overhead"), 2,
        QStringLiteral("Host gap %1 ms/step: %2.%4 %3").arg(ms(budget.hostGap), gapWhy, gapFix, gapWhere),
        gapEvidence);

    const double collectiveShare =
        a.classTotals.totalNs > 0 ? double(a.classTotals.collectiveNs) / double(a.classTotals.totalNs) : 0.0;
    QJsonObject commEvidence{
        {QStringLiteral("exposed_comm_seconds_per_step"), terms.measured ? terms.exposedCommS : budget.commExcess},
        {QStringLiteral("collective_seconds_per_step"), in.commExcessS},
        {QStringLiteral("collective_share_of_kernel_time"), collectiveShare},
        {QStringLiteral("collective_calls"), double(a.classTotals.collectiveCalls)},
        {QStringLiteral("gpu_agents"), a.gpuAgents}};
    addWhere(commEvidence, culprits, CulpritClass::Collective, QStringLiteral("collective"));
    // The collective that took longest, its size and its bus bandwidth against the link's.
    const std::optional<CollectiveHeadline> biggest =
        profile == HeuristicsProfile::Workbench && budget.commExcess > 0 ? biggestCollective(run) : std::nullopt;
    if (biggest) {
        commEvidence.insert(QStringLiteral("biggest_collective"), biggest->row.collective);
        commEvidence.insert(QStringLiteral("biggest_collective_bytes"),
                            biggest->row.bytes ? QJsonValue(*biggest->row.bytes) : QJsonValue());
        commEvidence.insert(QStringLiteral("biggest_collective_busbw_gbps"),
                            biggest->row.busbwGbps ? QJsonValue(*biggest->row.busbwGbps) : QJsonValue());
        commEvidence.insert(QStringLiteral("link_gbps_per_direction"),
                            biggest->link.perDirectionGbps ? QJsonValue(*biggest->link.perDirectionGbps) : QJsonValue());
    }
    add(QStringLiteral("comm_excess.overlap"), 3,
        QStringLiteral("Communication %1 ms/step %2 (%3 % of kernel time in collectives, %4 GPU agents).%6 %5%7")
            .arg(ms(budget.commExcess),
                 terms.measured ? QStringLiteral("exposed: no compute kernel ran beside the collectives")
                                : QStringLiteral("in collective kernels"),
                 pct(collectiveShare))
            .arg(a.gpuAgents)
            .arg(inference ? QStringLiteral("For tensor-parallel serving, use the custom all-reduce kernels (vLLM custom "
                                            "all-reduce / quick reduce on MI300X) and fuse the all-reduce with the next "
                                            "operation where the framework allows.")
                 : training ? QStringLiteral("Overlap it with compute (DDP/FSDP overlap, backward prefetch) and tune the "
                                             "bucket sizes (bucket_cap_mb) so all-reduces start earlier.")
                            : QStringLiteral("Overlap it with compute (start collectives as soon as their inputs are "
                                             "ready, on a separate stream) and check the interconnect bandwidth."))
            .arg(whereText(culprits, CulpritClass::Collective, QStringLiteral("Collectives")))
            .arg(biggest ? QStringLiteral(" ") + biggest->text : QString()),
        commEvidence);

    const double hbmPeak = in.hbmPeakGb.value_or(0.0);
    add(QStringLiteral("memory_headroom.batch_size"), 4,
        QStringLiteral("Memory headroom %1 ms/step: HBM peaks at %2 GB of %3 GB (%4 %), below the %5 % target. %6")
            .arg(ms(budget.memoryHeadroom), QString::number(hbmPeak, 'f', 1),
                 QString::number(thresholds.hbmCapacityGb, 'g', 6),
                 pct(thresholds.hbmCapacityGb > 0 ? hbmPeak / thresholds.hbmCapacityGb : 0.0),
                 QString::number(thresholds.hbmTargetPct, 'g', 6),
                 inference ? QStringLiteral("Serve more sequences at once (a larger KV cache: gpu_memory_utilization, "
                                            "max_num_seqs) to fill the idle memory and amortise per-step overhead.")
                 : training ? QStringLiteral("A larger batch (or micro-batch) would use the idle memory and amortise "
                                             "per-step overhead.")
                            : QStringLiteral("More work per launch (a larger batch or problem size) would use the idle "
                                             "memory and amortise per-launch overhead.")),
        QJsonObject{{QStringLiteral("hbm_peak_gb"), hbmPeak},
                    {QStringLiteral("hbm_capacity_gb"), thresholds.hbmCapacityGb},
                    {QStringLiteral("hbm_target_pct"), thresholds.hbmTargetPct}});

    const double fp16S = double(in.fp16Ns) / 1e9, bf16S = double(in.bf16Ns) / 1e9;
    QJsonObject precisionEvidence{{QStringLiteral("fp16_kernel_seconds"), fp16S},
                                  {QStringLiteral("bf16_kernel_seconds"), bf16S},
                                  {QStringLiteral("precision"), precisionName(thresholds.precision)},
                                  {QStringLiteral("precision_weight"), thresholds.precisionWeight}};
    addWhere(precisionEvidence, culprits, CulpritClass::Fp16Gemm, QStringLiteral("fp16_gemm"));
    addWhere(precisionEvidence, culprits, CulpritClass::Fp32Gemm, QStringLiteral("fp32_gemm"));
    add(QStringLiteral("precision_path.bf16"), 5,
        QStringLiteral("Precision path %1 ms/step: %2 s of fp16 kernels against %3 s of bf16 (workload precision "
                       "%4).%6%7 %5")
            .arg(ms(budget.precisionPath), QString::number(fp16S, 'g', 4), QString::number(bf16S, 'g', 4),
                 precisionName(thresholds.precision),
                 training ? QStringLiteral("Train in bf16 (no loss scaling) and try fp8 GEMMs (Transformer Engine / "
                                           "hipBLASLt fp8) where accuracy allows.")
                 : inference ? QStringLiteral("Serve in bf16, and try fp8 weights and an fp8 KV cache (hipBLASLt fp8 "
                                              "GEMMs) where accuracy allows.")
                             : QStringLiteral("Run these GEMMs in bf16 (or the program's own lower-precision types) "
                                              "where accuracy allows."))
            .arg(whereText(culprits, CulpritClass::Fp16Gemm, QStringLiteral("fp16 GEMMs")),
                 whereText(culprits, CulpritClass::Fp32Gemm, QStringLiteral("fp32 GEMMs"))),
        precisionEvidence);

    const QJsonArray untuned = untunedGemmKernels(run, a, profile, 5);
    const double genericShare = in.gemmNs > 0 ? double(in.genericGemmNs) / double(in.gemmNs) : 0.0;
    QStringList names;
    for (const QJsonValue &k : untuned)
        names << QStringLiteral("%1 (%2 % of GEMM time)")
                     .arg(k[QStringLiteral("name")].toString(), pct(k[QStringLiteral("share_of_gemm_time")].toDouble()));
    QJsonObject shapeEvidence =
        withQuantities(QJsonObject{{QStringLiteral("generic_gemm_share_of_gemm_time"), genericShare},
                                   {QStringLiteral("generic_gemm_seconds"), double(in.genericGemmNs) / 1e9},
                                   {QStringLiteral("gemm_seconds"), double(in.gemmNs) / 1e9},
                                   {QStringLiteral("untuned_kernels"), untuned}});
    addWhere(shapeEvidence, culprits, CulpritClass::GenericGemm, QStringLiteral("generic_gemm"));
    add(QStringLiteral("kernel_shape.gemm_tuning"), 6,
        QStringLiteral("Untuned GEMM shapes %1 ms/step: %2 % of GEMM time runs in generic/fallback kernels: %3.%4 Tune "
                       "these shapes with hipBLASLt (HIPBLASLT_TUNING / PYTORCH_TUNABLEOP_ENABLED=1) or pad them to "
                       "tuned sizes.")
            .arg(ms(budget.kernelShape), pct(genericShare), names.join(QStringLiteral("; ")),
                 whereText(culprits, CulpritClass::GenericGemm, QStringLiteral("They are"))),
        shapeEvidence);

    // What the budget cannot attribute is said too, with what would let it.
    const bool idleUnsplit = terms.measured ? !terms.hostKnown : terms.gates[1] == BucketGate::HostNotTraced;
    const QString unattributedText =
        program.kind == ProgramKind::RangeProfile
            ? QStringLiteral("Unattributed %1 ms/step: this is a CUPTI range-profiler capture (%2 cuda_profiler_range "
                             "events and no kernel): it records counters per range, not a kernel timeline, so no part of "
                             "the step can be attributed. Capture a kernel trace (torch.profiler with CUDA activities, "
                             "or nsys) for a budget.")
                  .arg(ms(budget.unattributed))
                  .arg(program.profilerRanges)
        : terms.gates[0] == BucketGate::UtilNotMeasured
            ? QStringLiteral("Unattributed %1 ms/step: nothing measured the GPU (no telemetry, no GPU events in the "
                             "traces). Profile with GPU activities (%2) or collect amd-smi telemetry.")
                  .arg(ms(budget.unattributed),
                       pytorch ? QStringLiteral("torch.profiler with ProfilerActivity.CUDA, or rocprofv3 --kernel-trace")
                               : QStringLiteral("rocprofv3 --kernel-trace, or nsys"))
        : idleUnsplit
            ? QStringLiteral("Unattributed %1 ms/step: the GPU is idle, but the trace shows nothing of the host, so "
                             "data wait cannot be told from launch gaps. Profile the CPU side too (%2).")
                  .arg(ms(budget.unattributed),
                       pytorch ? QStringLiteral("torch.profiler with ProfilerActivity.CPU, or rocprofv3 --hip-trace "
                                                "--marker-trace")
                               : QStringLiteral("rocprofv3 --hip-trace --marker-trace, or nsys with CUDA API tracing"))
            : QStringLiteral("Unattributed %1 ms/step: the GPU only copies or sets memory (device-to-host or "
                             "device-to-device copies, memsets) with no kernel running. Look for .cpu()/.item() "
                             "transfers, layout copies (.contiguous()) and zeroing that could be fused or avoided.")
                  .arg(ms(budget.unattributed));
    add(QStringLiteral("unattributed.coverage"), kUnattributedRow, unattributedText,
        QJsonObject{{QStringLiteral("copy_only_seconds"), terms.otherCopyS},
                    {QStringLiteral("host_traced"), !idleUnsplit},
                    {QStringLiteral("utilisation_measured"), terms.gates[0] != BucketGate::UtilNotMeasured}});

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
