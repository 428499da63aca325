#include "traceranks.h"

#include <QCoreApplication>

namespace goblin {

namespace {

QString label(const TraceRankChoice &c)
{
    return c.rank ? QCoreApplication::translate("goblin::TraceRanks", "rank %1 · %2").arg(*c.rank).arg(c.file) : c.file;
}

std::ptrdiff_t timelineFileOf(const RunAnalysis &run, const QString &file)
{
    const std::vector<GpuTimelineFile> &files = run.torch.timeline.files;
    for (std::size_t i = 0; i < files.size(); ++i)
        if (files[i].file == file)
            return std::ptrdiff_t(i);
    return -1;
}

} // namespace

std::vector<TraceRankChoice> traceRankChoices(const RunAnalysis &run)
{
    std::vector<TraceRankChoice> out;
    if (run.torch.file.relativePath.isEmpty())
        return out;
    TraceRankChoice primary;
    primary.file = run.torch.file.relativePath;
    primary.timelineFile = timelineFileOf(run, primary.file);
    // The primary's timeline file is files[0] when it has one (torchtrace.h): the other ranks'
    // files come after it.
    if (primary.timelineFile < 0 && run.torch.timeline.files.size() > run.torch.otherRanks.size())
        primary.timelineFile = 0;
    if (primary.timelineFile >= 0)
        primary.rank = run.torch.timeline.files[std::size_t(primary.timelineFile)].rank;
    primary.label = label(primary);
    out.push_back(std::move(primary));
    for (const RankTraceReading &r : run.torch.otherRanks) {
        TraceRankChoice c{r.file, r.rank, timelineFileOf(run, r.file), {}};
        c.label = label(c);
        out.push_back(std::move(c));
    }
    return out;
}

const TraceAttribution *traceAttributionOfRank(const RunAnalysis &run, int index)
{
    if (index < 0 || std::size_t(index) > run.torch.otherRanks.size())
        return nullptr;
    return index == 0 ? &run.torch.attribution : &run.torch.otherRanks[std::size_t(index - 1)].attribution;
}

std::shared_ptr<const TraceAttribution> attributionOfRank(const std::shared_ptr<const RunAnalysis> &run, int index)
{
    const TraceAttribution *a = run ? traceAttributionOfRank(*run, index) : nullptr;
    if (!a)
        return {};
    // Aliasing constructor: the attribution lives inside the run, so the run stays alive with it.
    return std::shared_ptr<const TraceAttribution>(run, a);
}

const TraceMemory *traceMemoryOfRank(const RunAnalysis &run, int index)
{
    if (index < 0 || std::size_t(index) > run.torch.otherRanks.size())
        return nullptr;
    return index == 0 ? &run.torch.memory : &run.torch.otherRanks[std::size_t(index - 1)].memory;
}

} // namespace goblin
