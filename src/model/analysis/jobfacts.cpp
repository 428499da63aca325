// The job part of the run's facts (domain/jobfacts.h). The loader grouped the files (rankgroups.h)
// and recorded the separate runs and how; here the job is completed from the timeline whose kernels
// are the run's: what its ranks are, which files hold them, how many ranks have kernels.

#include "decidefacts.h"

#include "timelineinputs.h"

#include <set>

namespace goblin {

namespace {

/// The ranks as analyzeRanks() counts them: each chrome trace, or each process (file × pid), with a
/// named kernel of positive duration.
int ranksWithKernels(const GpuTimeline &timeline, bool chromeTraces)
{
    std::set<std::pair<std::size_t, qint64>> ranks;
    for (std::size_t fi = 0; fi < timeline.files.size(); ++fi) {
        const GpuTimelineFile &file = timeline.files[fi];
        for (const GpuDeviceTimeline &dev : file.devices)
            for (const GpuEvent &e : dev.events)
                if (e.kind == GpuEventKind::Kernel && e.endNs > e.startNs && e.nameId < file.names.size() &&
                    !file.names[e.nameId].empty()) {
                    ranks.insert({fi, chromeTraces ? -1 : dev.pid});
                    break;
                }
    }
    return int(ranks.size());
}

} // namespace

JobFacts decideJob(const RunAnalysis &run)
{
    JobFacts job = run.facts.job;  // the loader's grouping: separate runs and how they were told apart
    const TimelineAnalysis *analysis = kernelSourceTimeline(run);
    if (!analysis) {
        job.members = JobMembers::None;
        job.ranks = 0;
        job.state = ValueState::Unknown;
        if (job.source.isEmpty())
            job.source = QStringLiteral("no GPU timeline: no ranks to tell apart");
        return job;
    }
    const bool chromeTraces = analysis == &run.torchTimeline;
    const GpuTimeline &timeline = chromeTraces ? run.torch.timeline : run.kernels.timeline;
    job.members = chromeTraces ? JobMembers::ChromeTraces : JobMembers::Processes;
    job.files.clear();
    for (const GpuTimelineFile &f : timeline.files)
        job.files << f.file;
    job.ranks = ranksWithKernels(timeline, chromeTraces);
    const QString noun = chromeTraces ? QStringLiteral("chrome trace") : QStringLiteral("process");
    if (job.ranks <= 1) {
        job.state = ValueState::Measured;
        const QString one = QStringLiteral("one %1 with kernels").arg(noun);
        job.source = job.source.isEmpty() ? one : QStringLiteral("%1; %2").arg(one, job.source);
        return job;
    }
    // Chrome traces state their ranks; processes of one file are one capture. Kernel-trace files
    // of several processes state no job: grouped by what they ran and when.
    const bool grouped = !chromeTraces && timeline.files.size() >= 2;
    job.state = grouped ? ValueState::Estimated : ValueState::Measured;
    const QString ranksText = chromeTraces ? QStringLiteral("%1 chrome traces as ranks of one job").arg(job.ranks)
                                           : QStringLiteral("%1 processes as ranks of one job").arg(job.ranks);
    if (job.source.isEmpty())
        job.source = chromeTraces ? ranksText + QStringLiteral(" (the ranks they state)")
                                  : ranksText + QStringLiteral(" (processes of one capture)");
    else
        job.source = QStringLiteral("%1: %2").arg(ranksText, job.source);
    return job;
}

} // namespace goblin
