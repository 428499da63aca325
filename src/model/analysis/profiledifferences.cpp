// Where the two profiles read a folder differently, in plain words: the one place of these notes.
#include "profiledifferences.h"

#include "formatting.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <cmath>

namespace goblin {

namespace {

const QString kKernelFile = QStringLiteral("trace.csv");
const QString kTorchFile = QStringLiteral("torch_profile.json");
const QString kSmiFile = QStringLiteral("amd_smi.csv");

QString pct(double fraction) { return QString::number(fraction * 100.0, 'f', 1) + QStringLiteral(" %"); }

/// Plain-words notes wherever the two profiles read this folder differently.
} // namespace

void explainDifferences(RunAnalysis &run)
{
    const ProfileAnalysis &r = run.reference;
    const ProfileAnalysis &w = run.workbench;
    Diagnostics &diags = run.diagnostics;
    const QString traceFile = run.kernelsFromTorchTimeline && !run.torch.timeline.files.empty()
                                  ? run.torch.timeline.files.front().file
                              : run.kernels.files.empty() ? kKernelFile
                                                          : run.kernels.files.front().relativePath;
    const QString torchFile = run.torch.file.relativePath.isEmpty() ? kTorchFile : run.torch.file.relativePath;

    if (!run.kernels.referenceFileFound && run.kernels.workbench.rowsUsed > 0 && !run.kernelsFromTorchTimeline)
        diags.push_back({Severity::Info, traceFile, 0,
                         QStringLiteral("kernel trace read from %1 file(s) rocprofv3 wrote (%2); the reference looks "
                                        "only for trace.csv and reads no kernels here")
                             .arg(run.kernels.files.size())
                             .arg(traceFile)});
    if (!run.torch.referenceFileFound && !run.torch.file.relativePath.isEmpty())
        diags.push_back({Severity::Info, torchFile, 0,
                         QStringLiteral("torch trace read from %1; the reference looks only for torch_profile.json")
                             .arg(torchFile)});

    // The reference does not catch UnicodeDecodeError (nor OverflowError): on such input it
    // stops with a traceback and the agent gets no RunMetrics at all.
    const std::pair<QString, QString> failures[] = {
        {traceFile, run.kernels.reference.readFailed ? run.kernels.reference.readFailure : QString()},
        {torchFile, run.torch.reference.readFailed ? run.torch.reference.readFailure : QString()},
        {run.smi.file.relativePath.isEmpty() ? kSmiFile : run.smi.file.relativePath,
         run.smi.reference.readFailed ? run.smi.reference.readFailure : QString()}};
    for (const auto &[file, failure] : failures)
        if (failure.contains(QLatin1String("UnicodeDecodeError")) || failure.contains(QLatin1String("crash")))
            diags.push_back({Severity::Error, file, 0,
                             QStringLiteral("the reference would crash on this file (%1), so the gpu-goblin agent gets "
                                            "no metrics for this run; the reference profile shows the file as unread")
                                 .arg(failure)});

    if (r.stepTimeS != w.stepTimeS)
        diags.push_back({Severity::Info, torchFile, 0,
                         QStringLiteral("step time %1 from %2; the reference reads %3 from %4")
                             .arg(describeSeconds(w.stepTimeS), w.stepTimeSource, describeSeconds(r.stepTimeS),
                                  r.stepTimeSource)});
    if (r.hostBusyFraction != w.hostBusyFraction)
        diags.push_back({Severity::Info, torchFile, 0,
                         QStringLiteral("host busy %1 from %2; the reference reads %3 from %4")
                             .arg(pct(w.hostBusyFraction), w.hostBusySource, pct(r.hostBusyFraction), r.hostBusySource)});
    if (r.gpuUtilPct != w.gpuUtilPct)
        diags.push_back({Severity::Info, QString(), 0,
                         QStringLiteral("GPU utilisation %1 % from %2; the reference reads %3 % from %4")
                             .arg(w.gpuUtilPct, 0, 'f', 2)
                             .arg(w.gpuUtilSource)
                             .arg(r.gpuUtilPct, 0, 'f', 2)
                             .arg(r.gpuUtilSource)});
    if (w.perStepPerGpuDivisor != 1.0 && w.classTotals.collectiveNs > 0)
        diags.push_back({Severity::Info, traceFile, 0,
                         QStringLiteral("collective time is per step per GPU: %1 of collectives over %2 GPU agent(s) "
                                        "and %3 steps covered by the trace (span %4 / step %5) gives %6; the "
                                        "reference counts the trace-wide sum, %7, against a single step")
                             .arg(describeSeconds(double(w.classTotals.collectiveNs) / 1e9))
                             .arg(w.gpuAgents)
                             .arg(w.traceStepsCovered, 0, 'f', 2)
                             .arg(describeSeconds(w.traceSpanS), describeSeconds(w.stepTimeS),
                                  describeSeconds(w.budgetInputs.commExcessS),
                                  describeSeconds(double(r.classTotals.collectiveNs) / 1e9))});

    // Names the two pattern tables classify differently, weighted by kernel time.
    struct Diff {
        KernelFlag flag;
        const char *what;
    };
    const Diff flagsToCompare[] = {{FlagCollective, "collectives"},
                                   {FlagGemm, "GEMMs"},
                                   {FlagGenericGemm, "generic GEMMs"},
                                   {FlagFp16, "fp16 kernels"},
                                   {FlagBf16, "bf16 kernels"}};
    const KernelReading &kr = run.kernels.workbench;
    auto shortName = [&](std::size_t id) {
        QString name = QString::fromStdString(run.kernels.names[id]);
        if (name.size() > 80)
            name = name.left(77) + QStringLiteral("...");
        return name;
    };
    // The reference books any name with the token "broadcast" as a collective; the workbench only
    // the communication libraries and named communication kernels (docs/collectives.md).
    static const QRegularExpression broadcastToken(QStringLiteral("(?<![A-Za-z0-9])broadcast(?![A-Za-z0-9])"),
                                                   QRegularExpression::CaseInsensitiveOption);
    for (const Diff &d : flagsToCompare) {
        qint64 onlyWorkbenchNs = 0, onlyReferenceNs = 0, broadcastNs = 0;
        int onlyWorkbench = 0, onlyReference = 0, broadcastNames = 0;
        std::size_t example = 0, broadcastExample = 0;
        for (std::size_t id = 0; id < kr.perName.size(); ++id) {
            if (kr.perName[id].calls == 0)
                continue;
            const bool inW = w.classes.flags[id] & d.flag;
            const bool inR = r.classes.flags[id] & d.flag;
            if (inW && !inR) {
                if (onlyWorkbench++ == 0)
                    example = id;
                onlyWorkbenchNs += kr.perName[id].totalNs;
            } else if (inR && !inW) {
                if (d.flag == FlagCollective &&
                    broadcastToken.match(QString::fromStdString(run.kernels.names[id])).hasMatch()) {
                    if (broadcastNames++ == 0)
                        broadcastExample = id;
                    broadcastNs += kr.perName[id].totalNs;
                    continue;
                }
                ++onlyReference;
                onlyReferenceNs += kr.perName[id].totalNs;
            }
        }
        auto share = [&](qint64 ns) { return pct(kr.totalNs ? double(ns) / double(kr.totalNs) : 0.0); };
        if (onlyWorkbench > 0)
            diags.push_back({Severity::Info, traceFile, 0,
                             QStringLiteral("%1 kernel name(s) (%2 of kernel time) count as %3 in the workbench but "
                                            "not in the reference, e.g. '%4'")
                                 .arg(onlyWorkbench)
                                 .arg(share(onlyWorkbenchNs))
                                 .arg(QLatin1String(d.what), shortName(example))});
        if (onlyReference > 0)
            diags.push_back({Severity::Info, traceFile, 0,
                             QStringLiteral("%1 kernel name(s) (%2 of kernel time) count as %3 in the reference but "
                                            "not in the workbench")
                                 .arg(onlyReference)
                                 .arg(share(onlyReferenceNs))
                                 .arg(QLatin1String(d.what))});
        if (broadcastNames > 0)
            diags.push_back({Severity::Info, traceFile, 0,
                             QStringLiteral("the reference counts %1 kernel name(s) containing 'broadcast' (%2 of "
                                            "kernel time) as collective communication, e.g. '%3'; the workbench does "
                                            "not: outside NCCL/RCCL and the named communication kernels such a name "
                                            "is a compute kernel over broadcast tensor shapes (PyTorch's "
                                            "elementwise kernels), not communication (docs/collectives.md)")
                                 .arg(broadcastNames)
                                 .arg(share(broadcastNs))
                                 .arg(shortName(broadcastExample))});
    }
    if (r.attentionKernelLoaded != w.attentionKernelLoaded)
        diags.push_back({Severity::Info, traceFile, 0,
                         QStringLiteral("attention kernel read as '%1'; the reference says '%2'")
                             .arg(w.attentionKernelLoaded, r.attentionKernelLoaded)});
    if (r.hbmPeakGb != w.hbmPeakGb || r.hbmAvgGb != w.hbmAvgGb)
        diags.push_back({Severity::Info, run.smi.file.relativePath.isEmpty() ? kSmiFile : run.smi.file.relativePath, 0,
                         QStringLiteral("HBM peak %1 GB, average %2 GB; the reference reads peak %3 GB, average %4 GB")
                             .arg(w.hbmPeakGb, 0, 'f', 2)
                             .arg(w.hbmAvgGb, 0, 'f', 2)
                             .arg(r.hbmPeakGb, 0, 'f', 2)
                             .arg(r.hbmAvgGb, 0, 'f', 2)});
}

} // namespace goblin
