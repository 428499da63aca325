#include "viewscope.h"

#include "ranks.h"

#include <QCoreApplication>
#include <algorithm>
#include <set>

namespace goblin {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("ViewScope", text);
}

/// "1 device", "2 devices" (no translation is loaded, so Qt's %n would print "device(s)").
QString count(qsizetype n, const char *one, const char *many)
{
    return QStringLiteral("%1 %2").arg(n).arg(tr(n == 1 ? one : many));
}

/// "a", "a and b", "a, b, c and 2 more".
QString fileList(const QStringList &files)
{
    if (files.isEmpty())
        return tr("no file");
    if (files.size() == 1)
        return files.front();
    const int shown = std::min<int>(3, int(files.size()));
    QStringList head = files.mid(0, shown);
    if (files.size() > shown)
        return tr("%1 and %2 more").arg(head.join(QStringLiteral(", "))).arg(files.size() - shown);
    const QString last = head.takeLast();
    return tr("%1 and %2").arg(head.join(QStringLiteral(", ")), last);
}

QString devices(int n) { return count(n, "device", "devices"); }

/// The devices of a timeline that ran something, per file.
int devicesWithEvents(const TimelineAnalysis &t, std::optional<std::size_t> fileIndex = std::nullopt)
{
    int n = 0;
    for (const DeviceTimelineAnalysis &d : t.devices)
        if ((d.kernels > 0 || d.memcpy > 0 || d.memset > 0) && (!fileIndex || d.fileIndex == *fileIndex))
            ++n;
    return n;
}

QStringList filesOf(const GpuTimeline &t)
{
    QStringList out;
    for (const GpuTimelineFile &f : t.files)
        out << f.file;
    return out;
}

/// The job in a few words: "1 process", "4 ranks (chrome traces)"; separate runs named by count.
QString jobWords(const RunAnalysis &run)
{
    const JobFacts &job = run.facts.job;
    QString words;
    switch (job.members) {
    case JobMembers::ChromeTraces:
        words = job.ranks > 1 ? tr("%1 ranks (one chrome trace each)").arg(job.ranks) : tr("1 chrome trace");
        break;
    case JobMembers::Processes:
        words = job.ranks > 1 ? tr("%1 ranks (processes)").arg(job.ranks) : tr("1 process");
        break;
    case JobMembers::None:
        words = tr("no GPU timeline");
        break;
    }
    if (!job.separate.empty())
        words += tr("; %1 of the folder %2 (listed under Runs)")
                     .arg(count(qsizetype(job.separate.size()), "file", "files"),
                          job.separate.size() == 1 ? tr("is a separate run") : tr("are separate runs"));
    return words;
}

QString kernelsScope(const RunAnalysis &run)
{
    const ProfileAnalysis &w = run.workbench;
    QStringList files;
    if (run.kernelsFromTorchTimeline)
        files = filesOf(run.torch.timeline);
    else
        for (const InputFileInfo &f : run.kernels.files)
            files << f.relativePath;
    const QString steps = w.traceStepsCovered > 0.0 ? tr("%1 steps").arg(w.traceStepsCovered, 0, 'f', 2) : tr("the whole trace");
    return tr("Kernels of %1: %2 × %3; totals are summed over every device and step")
        .arg(fileList(files), devices(std::max(1, w.gpuAgents)), steps);
}

QString attributionScope(const RunAnalysis &run)
{
    const TraceAttribution &a = run.torch.attribution;
    if (run.torch.timeline.files.empty() && !a.available)
        return tr("No torch trace: nothing to attribute to operators");
    const QString file = run.torch.file.relativePath.isEmpty() && !run.torch.timeline.files.empty()
                             ? run.torch.timeline.files.front().file
                             : run.torch.file.relativePath;
    const int devs = devicesWithEvents(run.torchTimeline, std::size_t(0));
    const QString steps = a.steps.empty() ? tr("the whole trace (no ProfilerStep)")
                                          : tr("%1 or the whole trace (pick above)")
                                                .arg(count(qsizetype(a.steps.size()), "ProfilerStep", "ProfilerSteps"));
    QString line = tr("GPU time of %1 by launching op: 1 process, %2, %3").arg(file, devices(devs), steps);
    const int traces = int(run.torch.timeline.files.size());
    if (traces > 1)
        line += tr("; this trace only, of %1 chrome traces (the others are not attributed)").arg(traces);
    if (!run.kernelsFromTorchTimeline && !run.kernels.files.empty())
        line += tr("; the Kernels view counts %1 instead").arg(fileList([&] {
            QStringList f;
            for (const InputFileInfo &i : run.kernels.files)
                f << i.relativePath;
            return f;
        }()));
    return line;
}

QString timelineScope(const RunAnalysis &run)
{
    QStringList parts;
    const auto side = [&](const GpuTimeline &t, const TimelineAnalysis &a) {
        if (a.devices.empty())
            return;
        parts << tr("%1 (%2)").arg(fileList(filesOf(t)), devices(int(a.devices.size())));
    };
    side(run.kernels.timeline, run.kernelTimeline);
    side(run.torch.timeline, run.torchTimeline);
    if (parts.isEmpty())
        return tr("No GPU timeline: no kernel trace or torch trace with GPU events");
    return tr("Every device of %1, each with its own step windows").arg(parts.join(QStringLiteral(" and ")));
}

QString ranksScope(const RunAnalysis &run)
{
    const JobFacts &job = run.facts.job;
    if (job.members == JobMembers::None)
        return tr("No GPU timeline: no ranks");
    return tr("The job: %1, from %2. How: %3").arg(jobWords(run), fileList(job.files), job.source);
}

QString telemetryScope(const RunAnalysis &run)
{
    const SmiTelemetry &smi = run.smi;
    if (smi.samples.empty())
        return tr("No telemetry read");
    return tr("Telemetry of %1: %2, %3")
        .arg(smi.file.relativePath, count(smi.gpuCount, "GPU", "GPUs"),
             count(qsizetype(smi.samples.size()), "sample", "samples"));
}

QString budgetScope(const RunAnalysis &run)
{
    const bool mean = run.workbench.ranks && run.workbench.ranks->budgetIsMean;
    return tr("The run's budget per step: %1%2")
        .arg(jobWords(run), mean ? tr("; the mean of the ranks' budgets") : QString());
}

} // namespace

QString viewScopeText(const RunAnalysis *run, ViewScope view)
{
    if (!run)
        return {};
    switch (view) {
    case ViewScope::Overview:
    case ViewScope::Advice:
    case ViewScope::Sweep:
        return budgetScope(*run);
    case ViewScope::Kernels:
        return kernelsScope(*run);
    case ViewScope::Operators:
    case ViewScope::FlameGraph:
    case ViewScope::Modules:
        return attributionScope(*run);
    case ViewScope::Timeline:
        return timelineScope(*run);
    case ViewScope::Ranks:
        return ranksScope(*run);
    case ViewScope::Telemetry:
        return telemetryScope(*run);
    case ViewScope::Diagnostics: {
        QStringList files;
        for (const InputFileInfo &f : run->kernels.files)
            files << f.relativePath;
        for (const GpuTimelineFile &f : run->torch.timeline.files)
            if (!files.contains(f.file))
                files << f.file;
        if (!run->smi.file.relativePath.isEmpty())
            files << run->smi.file.relativePath;
        return tr("What the readers said of %1").arg(fileList(files));
    }
    }
    return {};
}

} // namespace goblin
