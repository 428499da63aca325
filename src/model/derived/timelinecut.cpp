#include "timelinecut.h"

#include "timelineanalysis.h"

namespace goblin {

namespace {

std::vector<TimelineDeviceCut> cutDevices(const GpuTimeline &timeline, const TimelineAnalysis &analysis, int steps)
{
    std::vector<TimelineDeviceCut> out(analysis.devices.size());
    for (std::size_t i = 0; i < analysis.devices.size(); ++i) {
        const DeviceTimelineAnalysis &d = analysis.devices[i];
        if (d.stepsKind != TimelineStepsKind::WholeSpan || d.fileIndex >= analysis.files.size())
            continue;
        const FileTimelineSummary &file = analysis.files[d.fileIndex];
        std::vector<TimeInterval> windows = equalWindows(file.kernelFirstNs, file.kernelLastNs, steps);
        std::vector<TimelineStepValues> values = recutSteps(timeline, d, windows);
        if (values.empty())
            continue;
        out[i].windows = std::move(windows);
        out[i].steps = std::move(values);
    }
    return out;
}

} // namespace

const TimelineDeviceCut *TimelineCut::device(bool torch, std::size_t index) const
{
    const std::vector<TimelineDeviceCut> &side = torch ? torchTrace : kernelTrace;
    return index < side.size() && !side[index].steps.empty() ? &side[index] : nullptr;
}

std::shared_ptr<const TimelineCut> cutTimelines(const RunAnalysis &run, int steps)
{
    if (steps < 1)
        return nullptr;
    auto cut = std::make_shared<TimelineCut>();
    cut->steps = steps;
    cut->kernelTrace = cutDevices(run.kernels.timeline, run.kernelTimeline, steps);
    cut->torchTrace = cutDevices(run.torch.timeline, run.torchTimeline, steps);
    return cut;
}

} // namespace goblin
