#include "clockalignment.h"

#include "devicefacts.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <string_view>
#include <unordered_map>

namespace goblin {

namespace {

constexpr std::size_t kAnchorSearch = 64;     ///< the anchor is the rarest name among the first kernels
constexpr std::size_t kScoreSamples = 256;    ///< torch kernels each candidate offset is scored on
constexpr std::size_t kRefineSamples = 100000;  ///< kernels the residual and drift are measured on
constexpr qint64 kStartToleranceNs = 5000;    ///< two traces' stamps of one kernel differ by µs at most
constexpr double kMinMatchedShare = 0.8;      ///< of the sampled kernels, for an offset to be believed
constexpr std::uint32_t kNoName = ~std::uint32_t(0);

/// The kernels of one device in start order, as indices into its event list (no copy of events).
struct KernelSequence {
    const GpuEventList *events = nullptr;
    std::vector<std::uint32_t> order;  ///< kernel events only, sorted by start
    qint64 start(std::size_t k) const { return events->startNs(order[k]); }
    GpuEvent at(std::size_t k) const { return (*events)[order[k]]; }
    std::size_t size() const { return order.size(); }
};

KernelSequence kernelsOf(const GpuDeviceTimeline &device)
{
    KernelSequence seq;
    seq.events = &device.events;
    seq.order.reserve(device.events.size());
    std::uint32_t i = 0;
    for (const GpuEvent &e : device.events) {
        if (e.kind == GpuEventKind::Kernel)
            seq.order.push_back(i);
        ++i;
    }
    const GpuEventList &ev = device.events;
    const auto byStart = [&ev](std::uint32_t a, std::uint32_t b) { return ev.startNs(a) < ev.startNs(b); };
    if (!std::is_sorted(seq.order.begin(), seq.order.end(), byStart))
        std::stable_sort(seq.order.begin(), seq.order.end(), byStart);
    return seq;
}

qint64 durationOf(const GpuEvent &e) { return e.endNs - e.startNs; }

bool durationsAgree(qint64 a, qint64 b)
{
    return std::llabs(a - b) <= std::max<qint64>(2000, std::max(a, b) / 10);
}

/// The kernel-trace kernel named `nameId` whose start is nearest `wantedNs`, within the tolerance;
/// -1 when none.
std::ptrdiff_t findNear(const KernelSequence &seq, const std::vector<std::uint32_t> &nameIds, std::uint32_t nameId,
                        qint64 wantedNs)
{
    std::size_t lo = 0, hi = seq.size();
    const qint64 from = wantedNs - kStartToleranceNs;
    while (lo < hi) {
        const std::size_t mid = (lo + hi) / 2;
        if (seq.start(mid) < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    std::ptrdiff_t best = -1;
    qint64 bestDistance = kStartToleranceNs + 1;
    for (std::size_t k = lo; k < seq.size() && seq.start(k) <= wantedNs + kStartToleranceNs; ++k) {
        if (nameIds[k] != nameId)
            continue;
        const qint64 distance = std::llabs(seq.start(k) - wantedNs);
        if (distance < bestDistance) {
            bestDistance = distance;
            best = std::ptrdiff_t(k);
        }
    }
    return best;
}

struct Side {
    KernelSequence seq;
    std::vector<std::uint32_t> nameIds;  ///< per kernel of seq: its name in the kernel file's table
};

/// Evenly spread indices into [0, n), at most `count`.
std::vector<std::size_t> spread(std::size_t n, std::size_t count)
{
    std::vector<std::size_t> out;
    if (n == 0)
        return out;
    const std::size_t m = std::min(n, count);
    out.reserve(m);
    for (std::size_t i = 0; i < m; ++i)
        out.push_back(m == 1 ? 0 : i * (n - 1) / (m - 1));
    return out;
}

struct Scored {
    qint64 offsetNs = 0;
    std::size_t matched = 0;
};

} // namespace

ClockAlignment alignClocks(const GpuTimeline &kernelTrace, const GpuTimeline &torchTrace)
{
    ClockAlignment out;
    if (torchTrace.files.empty() || kernelTrace.files.empty())
        return out;
    const GpuTimelineFile &torchFile = torchTrace.files.front();
    const GpuDeviceTimeline *torchDevice = nullptr;
    std::size_t torchKernelCount = 0;
    for (const GpuDeviceTimeline &d : torchFile.devices) {
        std::size_t n = 0;
        for (const GpuEvent &e : d.events)
            n += e.kind == GpuEventKind::Kernel;
        if (n > torchKernelCount) {
            torchKernelCount = n;
            torchDevice = &d;
        }
    }
    bool kernelTraceHasKernels = false;
    for (const GpuTimelineFile &f : kernelTrace.files)
        for (const GpuDeviceTimeline &d : f.devices)
            kernelTraceHasKernels = kernelTraceHasKernels || !d.events.empty();
    if (!torchDevice || !kernelTraceHasKernels)
        return out;
    out.attempted = true;
    out.torchDevice = torchDevice->device;
    const KernelSequence torchSeq = kernelsOf(*torchDevice);
    out.torchKernels = torchSeq.size();
    if (torchSeq.size() < 8) {
        out.reason = QStringLiteral("too few kernels in the torch trace (%1) to match against the kernel trace")
                         .arg(torchSeq.size());
        return out;
    }

    struct Best {
        std::size_t file = 0, device = 0;
        Scored score, runnerUp;
        std::size_t samples = 0;
    };
    std::optional<Best> best;
    const std::vector<std::size_t> scoreSamples = spread(torchSeq.size(), kScoreSamples);

    for (std::size_t fi = 0; fi < kernelTrace.files.size(); ++fi) {
        const GpuTimelineFile &file = kernelTrace.files[fi];
        // The torch trace's names in this file's name table.
        std::unordered_map<std::string_view, std::uint32_t> idOf;
        idOf.reserve(file.names.size());
        for (std::size_t i = 0; i < file.names.size(); ++i)
            idOf.emplace(file.names[i], std::uint32_t(i));
        std::vector<std::uint32_t> torchToFile(torchFile.names.size(), kNoName);
        for (std::size_t i = 0; i < torchFile.names.size(); ++i) {
            const auto it = idOf.find(torchFile.names[i]);
            if (it != idOf.end())
                torchToFile[i] = it->second;
        }
        const auto torchNameIn = [&](std::size_t k) {
            const std::uint32_t id = torchSeq.at(k).nameId;
            return id < torchToFile.size() ? torchToFile[id] : kNoName;
        };

        for (std::size_t di = 0; di < file.devices.size(); ++di) {
            Side side{kernelsOf(file.devices[di]), {}};
            if (side.seq.size() == 0)
                continue;
            side.nameIds.reserve(side.seq.size());
            std::unordered_map<std::uint32_t, std::uint32_t> frequency;
            for (std::size_t k = 0; k < side.seq.size(); ++k) {
                const std::uint32_t id = side.seq.at(k).nameId;
                side.nameIds.push_back(id);
                ++frequency[id];
            }
            // Anchor: the rarest name among the first torch kernels that the kernel trace has.
            std::optional<std::size_t> anchor;
            std::uint32_t anchorFrequency = ~std::uint32_t(0);
            for (std::size_t k = 0; k < std::min(kAnchorSearch, torchSeq.size()); ++k) {
                const std::uint32_t id = torchNameIn(k);
                const auto it = id == kNoName ? frequency.end() : frequency.find(id);
                if (it != frequency.end() && it->second < anchorFrequency) {
                    anchorFrequency = it->second;
                    anchor = k;
                }
            }
            if (!anchor)
                continue;
            const GpuEvent anchorEvent = torchSeq.at(*anchor);
            const std::uint32_t anchorName = torchNameIn(*anchor);
            Scored top, second;
            for (std::size_t k = 0; k < side.seq.size(); ++k) {
                if (side.nameIds[k] != anchorName)
                    continue;
                const GpuEvent candidate = side.seq.at(k);
                if (!durationsAgree(durationOf(candidate), durationOf(anchorEvent)))
                    continue;
                Scored s{candidate.startNs - anchorEvent.startNs, 0};
                std::size_t tried = 0;
                for (std::size_t t : scoreSamples) {
                    // A wrong offset shows within a few dozen kernels: stop scoring it there, so a
                    // common anchor name (thousands of candidates) stays cheap.
                    if (++tried == 33 && s.matched < 16)
                        break;
                    const std::uint32_t id = torchNameIn(t);
                    if (id == kNoName)
                        continue;
                    const GpuEvent te = torchSeq.at(t);
                    const std::ptrdiff_t found = findNear(side.seq, side.nameIds, id, te.startNs + s.offsetNs);
                    if (found >= 0 && durationsAgree(durationOf(side.seq.at(std::size_t(found))), durationOf(te)))
                        ++s.matched;
                }
                if (s.matched > top.matched) {
                    second = top;
                    top = s;
                } else if (s.matched > second.matched) {
                    second = s;
                }
            }
            if (!best || top.matched > best->score.matched)
                best = Best{fi, di, top, second, scoreSamples.size()};
        }
    }

    if (!best || best->score.matched == 0) {
        out.reason = QStringLiteral("no run of the torch trace's kernels (names and durations) was found in the kernel "
                                    "trace: the files look like different runs; their clocks are not aligned");
        return out;
    }
    const double share = double(best->score.matched) / double(best->samples);
    if (share < kMinMatchedShare) {
        out.reason = QStringLiteral("only %1 of %2 sampled torch-trace kernels match the kernel trace at the best offset "
                                    "(%3 %% needed): the files look like different runs; their clocks are not aligned")
                         .arg(best->score.matched)
                         .arg(best->samples)
                         .arg(kMinMatchedShare * 100.0, 0, 'f', 0);
        return out;
    }
    if (best->runnerUp.matched * 10 > best->score.matched * 9) {
        out.reason = QStringLiteral("two offsets match the torch trace's kernels almost equally well (%1 and %2 of %3 "
                                    "sampled kernels): the alignment is ambiguous and not used")
                         .arg(best->score.matched)
                         .arg(best->runnerUp.matched)
                         .arg(best->samples);
        return out;
    }

    // Refine on many kernels: the offset is the median start difference; residual and drift.
    const GpuTimelineFile &file = kernelTrace.files[best->file];
    const GpuDeviceTimeline &device = file.devices[best->device];
    Side side{kernelsOf(device), {}};
    side.nameIds.reserve(side.seq.size());
    for (std::size_t k = 0; k < side.seq.size(); ++k)
        side.nameIds.push_back(side.seq.at(k).nameId);
    std::unordered_map<std::string_view, std::uint32_t> idOf;
    for (std::size_t i = 0; i < file.names.size(); ++i)
        idOf.emplace(file.names[i], std::uint32_t(i));
    std::vector<qint64> differences;
    std::vector<double> torchTimesS;
    const qint64 torchOriginNs = torchSeq.start(0);
    for (std::size_t t : spread(torchSeq.size(), kRefineSamples)) {
        const GpuEvent te = torchSeq.at(t);
        if (te.nameId >= torchFile.names.size())
            continue;
        const auto it = idOf.find(torchFile.names[te.nameId]);
        if (it == idOf.end())
            continue;
        const std::ptrdiff_t found = findNear(side.seq, side.nameIds, it->second, te.startNs + best->score.offsetNs);
        if (found < 0 || !durationsAgree(durationOf(side.seq.at(std::size_t(found))), durationOf(te)))
            continue;
        differences.push_back(side.seq.start(std::size_t(found)) - te.startNs);
        torchTimesS.push_back(double(te.startNs - torchOriginNs) / 1e9);
    }
    std::vector<qint64> sorted = differences;
    std::nth_element(sorted.begin(), sorted.begin() + std::ptrdiff_t(sorted.size() / 2), sorted.end());
    out.offsetNs = sorted[sorted.size() / 2];
    double sumSquares = 0.0, maxAbs = 0.0;
    for (qint64 d : differences) {
        const double r = double(d - out.offsetNs);
        sumSquares += r * r;
        maxAbs = std::max(maxAbs, std::abs(r));
    }
    out.residualMaxNs = maxAbs;
    out.residualRmsNs = std::sqrt(sumSquares / double(differences.size()));
    // Least-squares slope of the difference over the torch trace's time.
    const double n = double(differences.size());
    const double meanT = std::accumulate(torchTimesS.begin(), torchTimesS.end(), 0.0) / n;
    double meanD = 0.0;
    for (qint64 d : differences)
        meanD += double(d - out.offsetNs) / n;
    double sxx = 0.0, sxy = 0.0;
    for (std::size_t i = 0; i < differences.size(); ++i) {
        sxx += (torchTimesS[i] - meanT) * (torchTimesS[i] - meanT);
        sxy += (torchTimesS[i] - meanT) * (double(differences[i] - out.offsetNs) - meanD);
    }
    out.driftNsPerS = sxx > 0.0 ? sxy / sxx : 0.0;
    out.matchedKernels = differences.size();
    out.kernelTraceFile = file.file;
    out.kernelTraceDevice = device.device;
    out.aligned = true;
    out.reason = QStringLiteral("%1 (%2) and %3 (%4) put on one clock by matching %5 of %6 kernels "
                                "(names and durations): the kernel trace runs %7 s ahead of the torch trace; residual "
                                "max %8 µs, rms %9 µs, drift %10 µs per s")
                     .arg(file.file, deviceNameInFile(file, device.device), torchFile.file,
                          deviceNameInFile(torchFile, torchDevice->device))
                     .arg(out.matchedKernels)
                     .arg(std::min<std::size_t>(torchSeq.size(), kRefineSamples))
                     .arg(double(out.offsetNs) / 1e9, 0, 'f', 9)
                     .arg(out.residualMaxNs / 1e3, 0, 'f', 3)
                     .arg(out.residualRmsNs / 1e3, 0, 'f', 3)
                     .arg(out.driftNsPerS / 1e3, 0, 'f', 3);
    return out;
}

bool giveAlignedSteps(GpuTimeline &kernelTrace, const GpuTimeline &torchTrace, const ClockAlignment &alignment)
{
    if (!alignment.aligned || torchTrace.files.empty())
        return false;
    std::vector<StepWindow> moved;
    for (const StepWindow &w : torchTrace.files.front().steps) {
        if (w.gpuLane || w.endNs <= w.startNs)
            continue;
        StepWindow m = w;
        m.startNs += alignment.offsetNs;
        m.endNs += alignment.offsetNs;
        m.aligned = true;
        moved.push_back(m);
    }
    if (moved.empty())
        return false;
    const qint64 firstNs = moved.front().startNs, lastNs = moved.back().endNs;
    bool given = false;
    for (GpuTimelineFile &file : kernelTrace.files) {
        if (!file.steps.empty())
            continue;
        // rocprofv3 stamps every file of a node on its boot clock, so the other files of the
        // kernel trace (one per process or agent) share the matched one's; a file none of whose
        // kernels falls in the moved steps is on another clock (another node) and keeps its own.
        bool inSteps = file.file == alignment.kernelTraceFile;
        for (std::size_t d = 0; d < file.devices.size() && !inSteps; ++d) {
            const GpuEventList &events = file.devices[d].events;
            for (std::size_t i = 0; i < events.size() && !inSteps; ++i)
                inSteps = events.startNs(i) >= firstNs && events.startNs(i) < lastNs;
        }
        if (!inSteps)
            continue;
        file.steps = moved;
        given = true;
    }
    return given;
}

} // namespace goblin
