#include "viewscope.h"

#include "devicefacts.h"
#include "ranks.h"
#include "traceranks.h"

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

/// The devices of a timeline in the one naming (devicefacts.h), short form, each once.
QStringList deviceNames(const GpuTimeline &t)
{
    QStringList out;
    for (const GpuTimelineFile &f : t.files)
        for (const GpuDeviceTimeline &d : f.devices) {
            const QString name = t.files.size() > 1 && f.rank ? tr("rank %1 %2").arg(*f.rank).arg(deviceNameInFile(f, d.device, true))
                                                               : deviceNameInFile(f, d.device, true);
            if (!out.contains(name))
                out << name;
        }
    return out;
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
    const GpuTimeline &timeline = run.kernelsFromTorchTimeline ? run.torch.timeline : run.kernels.timeline;
    const QStringList names = deviceNames(timeline);
    // The devices by the one naming the Timeline and Telemetry use too, while the line stays short.
    const QString named = names.isEmpty() || names.size() > 4 ? QString() : tr(" (%1)").arg(fileList(names));
    return tr("Kernels of %1: %2 × %3%4; totals are summed over every device and step")
        .arg(fileList(files), devices(std::max(1, w.gpuAgents)), steps, named);
}

/// The picked chrome trace in a few words: "rank 2 (sampled_rank-2.json.gz), 1 of 4 chrome
/// traces (pick another above)"; the file alone with one trace.
QString pickedTraceWords(const RunAnalysis &run, int rankIndex)
{
    const std::vector<TraceRankChoice> choices = traceRankChoices(run);
    if (choices.empty())
        return {};
    const TraceRankChoice &c = choices[std::size_t(std::clamp<int>(rankIndex, 0, int(choices.size()) - 1))];
    if (choices.size() == 1)
        return c.file;
    return tr("%1, 1 of %2 chrome traces (the rank picker shows another)")
        .arg(c.rank ? tr("rank %1 (%2)").arg(*c.rank).arg(c.file) : c.file)
        .arg(choices.size());
}

QString attributionScope(const RunAnalysis &run, int rankIndex)
{
    const TraceAttribution *picked = traceAttributionOfRank(run, rankIndex);
    if (!picked)
        picked = &run.torch.attribution;
    const TraceAttribution &a = *picked;
    if (run.torch.timeline.files.empty() && !a.available)
        return tr("No torch trace: nothing to attribute to operators");
    const std::vector<TraceRankChoice> choices = traceRankChoices(run);
    const TraceRankChoice *choice =
        rankIndex >= 0 && std::size_t(rankIndex) < choices.size() ? &choices[std::size_t(rankIndex)] : nullptr;
    const QString file = choice ? pickedTraceWords(run, rankIndex)
                         : run.torch.file.relativePath.isEmpty() && !run.torch.timeline.files.empty()
                             ? run.torch.timeline.files.front().file
                             : run.torch.file.relativePath;
    const int devs = devicesWithEvents(run.torchTimeline,
                                       std::size_t(choice && choice->timelineFile >= 0 ? choice->timelineFile : 0));
    const QString steps = a.steps.empty() ? tr("the whole trace (no ProfilerStep)")
                                          : tr("%1 or the whole trace (pick above)")
                                                .arg(count(qsizetype(a.steps.size()), "ProfilerStep", "ProfilerSteps"));
    QString line = tr("GPU time of %1 by launching op: 1 process, %2, %3").arg(file, devices(devs), steps);
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

/// The Overview draws a trace's memory curves (no telemetry, a trace with [memory] totals) of
/// one rank: with several chrome traces, it says which.
bool overviewShowsOneRank(const RunAnalysis &run)
{
    if (!run.smi.samples.empty() || run.torch.otherRanks.empty())
        return false;
    for (int i = 0; i <= int(run.torch.otherRanks.size()); ++i)
        if (const TraceMemory *m = traceMemoryOfRank(run, i))
            for (const DeviceMemory &d : m->devices)
                if (!d.curve.empty())
                    return true;
    return false;
}

/// The Overview: the budget, and whose trace memory the plot draws when several ranks have one.
QString overviewScope(const RunAnalysis &run, int rankIndex)
{
    QString line = budgetScope(run);
    if (overviewShowsOneRank(run))
        line += tr("; the trace's memory curves: %1").arg(pickedTraceWords(run, rankIndex));
    return line;
}

} // namespace

QString viewScopeText(const RunAnalysis *run, ViewScope view)
{
    return viewScopeText(run, view, 0);
}

bool viewShowsOneRank(const RunAnalysis *run, ViewScope view)
{
    if (!run || traceRankChoices(*run).size() < 2)
        return false;
    switch (view) {
    case ViewScope::Overview:
        return overviewShowsOneRank(*run);
    case ViewScope::Operators:
    case ViewScope::FlameGraph:
    case ViewScope::Modules:
        return true;
    default:
        return false;
    }
}

QString viewScopeText(const RunAnalysis *run, ViewScope view, int rankIndex)
{
    if (!run)
        return {};
    switch (view) {
    case ViewScope::Overview:
        return overviewScope(*run, rankIndex);
    case ViewScope::Advice:
    case ViewScope::Sweep:
        return budgetScope(*run);
    case ViewScope::Kernels:
        return kernelsScope(*run);
    case ViewScope::Operators:
    case ViewScope::FlameGraph:
    case ViewScope::Modules:
        return attributionScope(*run, rankIndex);
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
