#include "timelinecrosscheck.h"

#include "kernelclassifier.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>

namespace goblin {

namespace {

struct FileSpan {
    qint64 first = std::numeric_limits<qint64>::max();
    qint64 last = std::numeric_limits<qint64>::min();
    bool valid() const { return last >= first; }
};

FileSpan kernelSpan(const TimelineAnalysis &analysis, std::size_t fileIndex)
{
    FileSpan s;
    if (fileIndex < analysis.files.size() && analysis.files[fileIndex].kernels > 0) {
        s.first = analysis.files[fileIndex].kernelFirstNs;
        s.last = analysis.files[fileIndex].kernelLastNs;
    }
    return s;
}

TimelineWindowCounts countIn(const CrossCheckSide &side, qint64 windowNs, const KernelPatternTable &table)
{
    TimelineWindowCounts c;
    c.windowNs = windowNs;
    for (std::size_t fi = 0; fi < side.timeline.files.size(); ++fi) {
        const GpuTimelineFile &file = side.timeline.files[fi];
        const FileSpan span = kernelSpan(side.analysis, fi);
        if (!span.valid())
            continue;
        const KernelClasses classes = classifyKernels(file.names, table);
        // Inclusive at the end: with a zero window (one kernel) the kernels at t0 still count.
        const qint64 end = span.first + windowNs;
        for (const GpuDeviceTimeline &dev : file.devices) {
            bool counted = false;
            for (const GpuEvent &e : dev.events) {
                if (e.kind != GpuEventKind::Kernel || e.startNs > end)
                    continue;
                if (!counted) {
                    counted = true;
                    ++c.devices;
                }
                const qint64 d = std::max<qint64>(0, e.endNs - e.startNs);
                const std::uint8_t f = e.nameId < classes.flags.size() ? classes.flags[e.nameId] : 0;
                TimelineClassCount &k = (f & FlagCollective) ? c.collective : (f & FlagGemm) ? c.gemm : c.other;
                k.calls += 1;
                k.ns += d;
                c.all.calls += 1;
                c.all.ns += d;
            }
        }
    }
    return c;
}

QString describeNs(qint64 ns)
{
    const double s = double(ns) / 1e9;
    if (std::fabs(s) >= 1.0)
        return QString::number(s, 'g', 4) + QStringLiteral(" s");
    if (std::fabs(s) >= 1e-3)
        return QString::number(s * 1e3, 'g', 4) + QStringLiteral(" ms");
    return QString::number(s * 1e6, 'g', 4) + QStringLiteral(" µs");
}

QString relative(double a, double b)
{
    if (b == 0.0)
        return a == 0.0 ? QStringLiteral("0 %") : QStringLiteral("new");
    return QString::number((a - b) / b * 100.0, 'f', 1) + QStringLiteral(" %");
}

} // namespace

TimelineCrossCheck crossCheckTimelines(const CrossCheckSide &kernelTrace, const CrossCheckSide &torchTrace,
                                       double tolerance)
{
    TimelineCrossCheck out;
    qint64 window = std::numeric_limits<qint64>::max();
    int filesA = 0, filesB = 0;
    for (const CrossCheckSide *side : {&kernelTrace, &torchTrace})
        for (std::size_t fi = 0; fi < side->timeline.files.size(); ++fi) {
            const FileSpan s = kernelSpan(side->analysis, fi);
            if (!s.valid())
                continue;
            window = std::min(window, s.last - s.first);
            (side == &kernelTrace ? filesA : filesB) += 1;
        }
    if (filesA == 0 || filesB == 0)
        return out;
    out.compared = true;
    const KernelPatternTable table = KernelPatternTable::forProfile(HeuristicsProfile::Workbench);
    // The two counts are independent passes over a million events each: one on another thread.
    std::thread other([&] { out.torchTrace = countIn(torchTrace, window, table); });
    out.kernelTrace = countIn(kernelTrace, window, table);
    other.join();

    struct Row {
        const char *what;
        TimelineClassCount a, b;
    };
    const Row rows[] = {{"all kernels", out.kernelTrace.all, out.torchTrace.all},
                        {"collective kernels", out.kernelTrace.collective, out.torchTrace.collective},
                        {"GEMM kernels", out.kernelTrace.gemm, out.torchTrace.gemm},
                        {"other kernels", out.kernelTrace.other, out.torchTrace.other}};
    auto differs = [tolerance](double a, double b, double floor) {
        const double diff = std::fabs(a - b);
        return diff > floor && diff > tolerance * std::max(std::fabs(a), std::fabs(b));
    };
    // Compared per device: one rank's torch trace sees its own GPU, a node's trace.csv every GPU.
    const double devicesA = std::max(1, out.kernelTrace.devices), devicesB = std::max(1, out.torchTrace.devices);
    const QString perDevice = devicesA == devicesB ? QString()
                                                   : QStringLiteral(" (per device: %1 device(s) in %2, %3 in %4)")
                                                         .arg(out.kernelTrace.devices)
                                                         .arg(kernelTrace.name)
                                                         .arg(out.torchTrace.devices)
                                                         .arg(torchTrace.name);
    int disagreements = 0;
    for (const Row &r : rows) {
        const bool calls = differs(double(r.a.calls) / devicesA, double(r.b.calls) / devicesB, 1.0);
        const bool time = differs(double(r.a.ns) / devicesA, double(r.b.ns) / devicesB, 1000.0);
        if (!calls && !time)
            continue;
        ++disagreements;
        out.diagnostics.push_back(
            {Severity::Warning, torchTrace.name, 0,
             QStringLiteral("%1 disagree between %2 and the torch trace's GPU events in the %3 both cover (each "
                            "aligned on its first kernel): %4 calls / %5 in %2, %6 calls / %7 in %8 (calls %9, time "
                            "%10 relative to %2)")
                 .arg(QLatin1String(r.what), kernelTrace.name, describeNs(window))
                 .arg(r.a.calls)
                 .arg(describeNs(r.a.ns))
                 .arg(r.b.calls)
                 .arg(describeNs(r.b.ns), torchTrace.name,
                      relative(double(r.b.calls) / devicesB, double(r.a.calls) / devicesA),
                      relative(double(r.b.ns) / devicesB, double(r.a.ns) / devicesA)) +
                 perDevice});
    }
    out.diagnostics.insert(
        out.diagnostics.begin(),
        {Severity::Info, torchTrace.name, 0,
         QStringLiteral("cross-check of %1 (%2 file(s)) and the torch trace's GPU events (%3 file(s)) over the first "
                        "%4 after each file's first kernel (the clocks differ, so each is aligned on its own first "
                        "kernel): %5 vs %6 kernels, %7 vs %8 of kernel time; %9")
             .arg(kernelTrace.name)
             .arg(filesA)
             .arg(filesB)
             .arg(describeNs(window))
             .arg(out.kernelTrace.all.calls)
             .arg(out.torchTrace.all.calls)
             .arg(describeNs(out.kernelTrace.all.ns), describeNs(out.torchTrace.all.ns),
                  disagreements == 0 ? QStringLiteral("they agree within %1 %").arg(tolerance * 100.0)
                                     : QStringLiteral("%1 class(es) disagree (see below)").arg(disagreements))});
    return out;
}

} // namespace goblin
