#include "tracelanesview.h"

#include "devicefacts.h"
#include "kernelclassifier.h"
#include "plotstyle.h"
#include "runanalysis.h"
#include "timelinepanel.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace goblin {

namespace {

constexpr double kZoomStep = 1.25;    // one W/S press, one wheel notch
constexpr double kPanFraction = 0.1;  // one A/D press: a tenth of the view
constexpr int kMaxMatches = 200'000;  // search results kept for next/previous

QString duration(double ns)
{
    const double a = std::abs(ns);
    if (a >= 1e9)
        return QString::number(ns / 1e9, 'g', 4) + QStringLiteral(" s");
    if (a >= 1e6)
        return QString::number(ns / 1e6, 'g', 4) + QStringLiteral(" ms");
    if (a >= 1e3)
        return QString::number(ns / 1e3, 'g', 4) + QStringLiteral(" µs");
    return QString::number(ns, 'g', 4) + QStringLiteral(" ns");
}

QString gpuKindName(GpuEventKind k)
{
    return k == GpuEventKind::Kernel   ? TraceLanesView::tr("GPU kernel")
           : k == GpuEventKind::Memcpy ? TraceLanesView::tr("memcpy")
                                       : TraceLanesView::tr("memset");
}

QString kindName(HostSliceKind k)
{
    switch (k) {
    case HostSliceKind::Step: return TraceLanesView::tr("step");
    case HostSliceKind::DataLoading: return TraceLanesView::tr("data loading");
    case HostSliceKind::Annotation: return TraceLanesView::tr("record_function range");
    case HostSliceKind::Module: return TraceLanesView::tr("module");
    case HostSliceKind::CpuOp: return TraceLanesView::tr("CPU operator");
    case HostSliceKind::Runtime: return TraceLanesView::tr("runtime call");
    default: return {};
    }
}

/// Host slices by kind: the step grey, data loading amber (what a data-bound run shows above
/// its GPU gaps), ranges teal and violet, operators blue in four shades (neighbours stay apart),
/// runtime calls green.
QColor hostColor(HostSliceKind k, std::uint32_t nameId, bool dark)
{
    QColor c;
    switch (k) {
    case HostSliceKind::Step: c = QColor(0x70, 0x7c, 0x8c); break;
    case HostSliceKind::DataLoading: c = QColor(0xc8, 0x7a, 0x10); break;
    case HostSliceKind::Annotation: c = QColor(0x2f, 0x85, 0x84); break;
    case HostSliceKind::Module: c = QColor(0x7b, 0x5c, 0xa6); break;
    case HostSliceKind::Runtime: c = QColor(0x4a, 0x86, 0x3a); break;
    default: {
        static const QColor shades[4] = {QColor(0x3d, 0x6f, 0xb0), QColor(0x4f, 0x82, 0xc2), QColor(0x2f, 0x5d, 0x99),
                                         QColor(0x5b, 0x8d, 0xc9)};
        c = shades[(nameId * 2654435761u) >> 30];
    }
    }
    return dark ? c.lighter(115) : c;
}

/// The line between two adjacent slices of one colour.
QColor separatorColor(bool dark) { return dark ? QColor(0, 0, 0, 90) : QColor(255, 255, 255, 110); }

QColor textOn(const QColor &fill)
{
    return fill.lightnessF() > 0.6 ? QColor(Qt::black) : QColor(Qt::white);
}

/// Smallest of 1, 2, 5 × 10^k ns that is at least `ns`.
double niceStepNs(double ns)
{
    double decade = 1.0;
    while (decade * 10 <= ns)
        decade *= 10;
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * decade >= ns)
            return m * decade;
    return 10 * decade;
}

bool containsCi(const std::string &haystack, const QByteArray &needleLower)
{
    if (needleLower.isEmpty() || haystack.size() < std::size_t(needleLower.size()))
        return false;
    return QByteArray::fromRawData(haystack.data(), qsizetype(haystack.size())).toLower().contains(needleLower);
}

} // namespace

TraceLanesView::TraceLanesView(QWidget *parent)
    : QWidget(parent)
    , m_scroll(new QScrollBar(Qt::Vertical, this))
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setMinimumSize(320, 120);
    setAttribute(Qt::WA_OpaquePaintEvent);
    const int line = fontMetrics().height();
    m_rowPx = line + 4;
    m_rulerPx = line + 8;
    m_labelWidthPx = fontMetrics().horizontalAdvance(QStringLiteral("GPU 00 (d00) · stream 00")) + 12;
    connect(m_scroll, &QScrollBar::valueChanged, this, [this](int v) {
        m_scrollY = v;
        update();
    });
}

TraceLanesView::~TraceLanesView() = default;

int TraceLanesView::trackWidthPx() const
{
    return std::max(1, width() - m_labelWidthPx - (m_scroll->isVisible() ? m_scroll->width() : 0));
}

const GpuTimelineFile *TraceLanesView::file(int index) const
{
    return index >= 0 && index < int(m_files.size()) ? m_files[std::size_t(index)].file : nullptr;
}

const HostLanes *TraceLanesView::hostLanes(int index) const
{
    const GpuTimelineFile *f = file(index);
    return f ? f->hostLanes.get() : nullptr;
}

void TraceLanesView::setRun(const RunAnalysis *run)
{
    if (run != m_run)
        m_rankAlignment = RankAlignment::Automatic;  // a new run decides afresh
    m_run = run;
    m_timeline = nullptr;
    m_files.clear();
    m_devices.clear();
    m_rows.clear();
    m_steps.clear();
    m_rangeIndex.clear();
    m_selected = {};
    m_flows.clear();
    m_flowArrows.clear();
    m_launchOp = {};
    m_flowGpuEvents = 0;
    m_flowGpuNs = 0;
    m_matches.clear();
    m_currentMatch = -1;
    m_range.reset();
    if (run) {
        // The chrome traces carry the host; a run without one shows its kernel trace's GPUs (on
        // another clock: never both on one axis).
        const auto shows = [](const GpuTimeline &t) {
            return std::any_of(t.files.begin(), t.files.end(),
                               [](const GpuTimelineFile &f) { return !f.devices.empty() || (f.hostLanes && !f.hostLanes->empty()); });
        };
        m_timeline = shows(run->torch.timeline) ? &run->torch.timeline : shows(run->kernels.timeline) ? &run->kernels.timeline : nullptr;
    }
    if (m_timeline) {
        const KernelPatternTable table = KernelPatternTable::forProfile(HeuristicsProfile::Workbench);
        for (std::size_t fi = 0; fi < m_timeline->files.size(); ++fi) {
            const GpuTimelineFile &f = m_timeline->files[fi];
            qint64 first = std::numeric_limits<qint64>::max(), last = std::numeric_limits<qint64>::min();
            FileRef ref;
            ref.file = &f;
            if (f.hostLanes) {
                ref.expanded.assign(f.hostLanes->threads.size(), false);
                for (const HostLane &lane : f.hostLanes->lanes)
                    if (lane.end > lane.begin) {
                        first = std::min(first, f.hostLanes->slices[lane.begin].startNs);
                        last = std::max(last, f.hostLanes->slices[lane.end - 1].endNs);
                    }
            }
            m_files.push_back(std::move(ref));
            std::vector<std::uint8_t> nameClass;
            if (!f.devices.empty()) {
                const KernelClasses classes = classifyKernels(f.names, table);
                nameClass.resize(f.names.size(), 0);
                for (std::size_t n = 0; n < nameClass.size() && n < classes.flags.size(); ++n)
                    nameClass[n] = (classes.flags[n] & FlagCollective) ? 1 : (classes.flags[n] & FlagCopyKernel) ? 2 : 0;
            }
            for (std::size_t di = 0; di < f.devices.size(); ++di) {
                const GpuDeviceTimeline &dev = f.devices[di];
                DeviceLanes lanes;
                lanes.file = int(fi);
                lanes.device = int(di);
                lanes.nameClass = nameClass;
                const std::size_t streams = std::max<std::size_t>(1, dev.streams.size());
                // Bucket the events by stream in document order, then sort a stream only when it
                // is out of order (Kineto and rocprof write a stream in order).
                std::vector<std::size_t> count(streams + 1, 0);
                for (const GpuEvent &e : dev.events)
                    ++count[std::min<std::size_t>(e.stream, streams - 1) + 1];
                lanes.streams.resize(streams);
                for (std::size_t s = 0; s < streams; ++s)
                    lanes.streams[s].order.reserve(count[s + 1]);
                std::size_t i = 0;
                for (const GpuEvent &e : dev.events)
                    lanes.streams[std::min<std::size_t>(e.stream, streams - 1)].order.push_back(quint32(i++));
                for (StreamIndex &s : lanes.streams) {
                    const auto byStart = [&](quint32 a, quint32 b) { return dev.events.startNs(a) < dev.events.startNs(b); };
                    if (!std::is_sorted(s.order.begin(), s.order.end(), byStart))
                        std::stable_sort(s.order.begin(), s.order.end(), byStart);
                    s.maxEnd.resize(s.order.size());
                    qint64 running = std::numeric_limits<qint64>::min();
                    for (std::size_t k = 0; k < s.order.size(); ++k) {
                        const GpuEvent e = dev.events[s.order[k]];
                        running = std::max(running, e.endNs);
                        s.maxEnd[k] = running;
                    }
                    if (!s.order.empty()) {
                        first = std::min(first, dev.events.startNs(s.order.front()));
                        last = std::max(last, s.maxEnd.back());
                    }
                }
                lanes.streamOrder.resize(streams);
                std::iota(lanes.streamOrder.begin(), lanes.streamOrder.end(), 0);
                std::stable_sort(lanes.streamOrder.begin(), lanes.streamOrder.end(), [&](int a, int b) {
                    return dev.streams.empty() ? a < b : dev.streams[std::size_t(a)] < dev.streams[std::size_t(b)];
                });
                m_devices.push_back(std::move(lanes));
            }
            for (const StepWindow &s : f.steps) {
                first = std::min(first, s.startNs);
                last = std::max(last, s.endNs);
                if (fi == 0 && !s.gpuLane)
                    m_steps.push_back({s.startNs, s.endNs});
            }
            FileRef &placed = m_files[fi];
            placed.firstNs = first;
            placed.lastNs = last;
            const auto step = std::find_if(f.steps.begin(), f.steps.end(), [](const StepWindow &s) { return !s.gpuLane; });
            placed.anchorNs = step != f.steps.end() ? step->startNs : first;
        }
    }
    m_alignedRanks = alignRanks();
    qint64 first = std::numeric_limits<qint64>::max(), last = std::numeric_limits<qint64>::min();
    for (const FileRef &ref : m_files)
        if (ref.firstNs <= ref.lastNs) {
            first = std::min(first, ref.firstNs + ref.offsetNs);
            last = std::max(last, ref.lastNs + ref.offsetNs);
        }
    if (first > last) {
        first = 0;
        last = 1'000'000;
    }
    m_originNs = m_runStartNs = first;
    m_runEndNs = std::max(last, first + 1);
    rebuildRows();
    showWholeRun();
}

bool TraceLanesView::alignRanks()
{
    // As recorded: relative timestamps (Kineto 2024+) count from each file's baseTimeNanoseconds,
    // so files whose bases differ are put on the first one's clock by the difference.
    const std::optional<qint64> base0 = m_files.empty() ? std::nullopt : m_files.front().file->traits.identity.baseTimeNs;
    for (FileRef &ref : m_files) {
        const std::optional<qint64> base = ref.file->traits.identity.baseTimeNs;
        ref.offsetNs = base && base0 ? *base - *base0 : 0;
    }
    if (m_files.size() < 2 || m_rankAlignment == RankAlignment::AsRecorded)
        return false;
    const FileRef &reference = m_files.front();
    if (m_rankAlignment == RankAlignment::Automatic) {
        // Ranks of one job share a clock when their spans overlap; apart, each file kept its own
        // epoch and the lanes would sit side by side, seconds from each other.
        const bool apart = std::any_of(m_files.begin() + 1, m_files.end(), [&](const FileRef &f) {
            return f.firstNs <= f.lastNs && reference.firstNs <= reference.lastNs
                   && (f.lastNs + f.offsetNs < reference.firstNs || f.firstNs + f.offsetNs > reference.lastNs);
        });
        if (!apart)
            return false;
    }
    for (FileRef &ref : m_files)
        if (ref.firstNs <= ref.lastNs && reference.firstNs <= reference.lastNs)
            ref.offsetNs = reference.anchorNs - ref.anchorNs;
    return true;
}

void TraceLanesView::setRankAlignment(RankAlignment alignment)
{
    if (alignment == m_rankAlignment)
        return;
    m_rankAlignment = alignment;
    setRun(m_run);
}

bool TraceLanesView::showsTorchTrace() const { return m_run && m_timeline == &m_run->torch.timeline; }

QString TraceLanesView::scopeText() const
{
    if (!m_timeline)
        return m_run ? tr("No GPU timeline and no host events in this run") : tr("Open a run to see its timeline");
    QStringList files, ranks, devices;
    std::vector<qint64> deviceNumbers;
    int threads = 0;
    for (const FileRef &f : m_files) {
        files << f.file->file.section(QLatin1Char('/'), -1);
        if (f.file->rank)
            ranks << QString::number(*f.file->rank);
        for (const GpuDeviceTimeline &d : f.file->devices)
            deviceNumbers.push_back(d.device);
        if (f.file->hostLanes)
            threads += int(f.file->hostLanes->threads.size());
    }
    std::sort(deviceNumbers.begin(), deviceNumbers.end());
    deviceNumbers.erase(std::unique(deviceNumbers.begin(), deviceNumbers.end()), deviceNumbers.end());
    for (const qint64 d : deviceNumbers)
        devices << QStringLiteral("d%1").arg(d);
    QStringList parts;
    parts << (files.size() <= 3 ? files.join(QStringLiteral(", ")) : tr("%1 files").arg(files.size()));
    if (!ranks.isEmpty())
        parts << (ranks.size() == 1 ? tr("rank %1").arg(ranks.front()) : tr("ranks %1").arg(ranks.join(QLatin1Char(','))));
    parts << (devices.size() == 1 ? tr("1 GPU (%1)").arg(devices.front())
                                  : tr("%1 GPUs (%2)").arg(devices.size()).arg(devices.join(QStringLiteral(", "))));
    parts << (m_steps.empty() ? tr("no step marks") : m_steps.size() == 1 ? tr("1 step") : tr("%1 steps").arg(m_steps.size()));
    parts << (threads == 0   ? tr("no host events in the trace")
              : threads == 1 ? tr("1 host thread")
                             : tr("%1 host threads").arg(threads));
    parts << tr("%1 shown").arg(duration(double(m_runEndNs - m_runStartNs)));
    if (m_alignedRanks)
        parts << (m_rankAlignment == RankAlignment::Automatic ? tr("aligned at first step (clocks apart)")
                                                              : tr("aligned at first step"));
    return parts.join(QStringLiteral(" · "));
}

int TraceLanesView::visibleDepths(int fileIndex, int thread) const
{
    const HostLanes *hl = hostLanes(fileIndex);
    if (!hl || thread < 0 || thread >= int(hl->threads.size()))
        return 0;
    const int depths = hl->threads[std::size_t(thread)].depths;
    if (m_allDepths || m_files[std::size_t(fileIndex)].expanded[std::size_t(thread)])
        return depths;
    return std::min(depths, kCollapsedDepths);
}

void TraceLanesView::rebuildRows()
{
    m_rows.clear();
    for (int fi = 0; fi < int(m_files.size()); ++fi) {
        if (m_files.size() > 1) {
            Row header;
            header.kind = Row::FileHeader;
            header.file = fi;
            m_rows.push_back(header);
        }
        if (const HostLanes *hl = hostLanes(fi))
            for (int li = 0; li < int(hl->lanes.size()); ++li) {
                const HostLane &lane = hl->lanes[std::size_t(li)];
                const int shown = visibleDepths(fi, lane.thread);
                if (lane.depth >= shown)
                    continue;
                Row row;
                row.kind = Row::Host;
                row.file = fi;
                row.thread = lane.thread;
                row.depth = lane.depth;
                row.lane = li;
                row.lastShownDepth = lane.depth == shown - 1 && hl->threads[lane.thread].depths > shown;
                m_rows.push_back(row);
            }
        // A file's GPUs by device number (a trace may list d1 before d0).
        std::vector<int> deviceOrder;
        for (int dl = 0; dl < int(m_devices.size()); ++dl)
            if (m_devices[std::size_t(dl)].file == fi)
                deviceOrder.push_back(dl);
        const GpuTimelineFile &f = *m_files[std::size_t(fi)].file;
        std::stable_sort(deviceOrder.begin(), deviceOrder.end(), [&](int a, int b) {
            return f.devices[std::size_t(m_devices[std::size_t(a)].device)].device < f.devices[std::size_t(m_devices[std::size_t(b)].device)].device;
        });
        for (int dl : deviceOrder) {
            for (int s : m_devices[std::size_t(dl)].streamOrder) {
                Row row;
                row.kind = Row::Gpu;
                row.file = fi;
                row.deviceLanes = dl;
                row.stream = s;
                m_rows.push_back(row);
            }
        }
    }
    updateScrollBar();
    update();
}

void TraceLanesView::updateScrollBar()
{
    const int content = m_rulerPx + int(m_rows.size()) * m_rowPx;
    const int extra = std::max(0, content - height());
    m_scroll->setVisible(extra > 0);
    m_scroll->setGeometry(width() - m_scroll->sizeHint().width(), 0, m_scroll->sizeHint().width(), height());
    m_scroll->setRange(0, extra);
    m_scroll->setPageStep(std::max(1, height() - m_rulerPx));
    m_scroll->setSingleStep(m_rowPx);
    m_scrollY = m_scroll->value();
}

QString TraceLanesView::rowLabel(int rowIndex) const
{
    if (rowIndex < 0 || rowIndex >= rowCount())
        return {};
    const Row &row = m_rows[std::size_t(rowIndex)];
    const GpuTimelineFile &f = *m_files[std::size_t(row.file)].file;
    switch (row.kind) {
    case Row::FileHeader:
        return f.rank ? tr("rank %1 · %2").arg(*f.rank).arg(f.file.section(QLatin1Char('/'), -1)) : f.file.section(QLatin1Char('/'), -1);
    case Row::Host: {
        const HostLanes &hl = *f.hostLanes;
        const HostThread &t = hl.threads[std::size_t(row.thread)];
        if (row.depth == 0) {
            const bool canExpand = t.depths > kCollapsedDepths;
            const QString mark = !canExpand ? QString() : visibleDepths(row.file, row.thread) < t.depths ? QStringLiteral("▸ ") : QStringLiteral("▾ ");
            bool onePid = true;
            for (const HostThread &o : hl.threads)
                onePid = onePid && o.pid == t.pid;
            return mark + (onePid ? tr("thread %1").arg(t.tid) : tr("pid %1 · thread %2").arg(t.pid).arg(t.tid));
        }
        if (row.lastShownDepth)
            return tr("   + %1 deeper (click)").arg(t.depths - row.depth - 1);
        return {};
    }
    case Row::Gpu: {
        const DeviceLanes &dl = m_devices[std::size_t(row.deviceLanes)];
        const GpuDeviceTimeline &dev = f.devices[std::size_t(dl.device)];
        const QString stream = dev.streams.empty() ? QStringLiteral("0") : QString::number(dev.streams[std::size_t(row.stream)]);
        if (row.stream == dl.streamOrder.front())
            return tr("%1 · stream %2").arg(deviceDisplayName(gpuIndexInFile(f, dev.device), dev.device, true), stream);
        return tr("stream %1").arg(stream);
    }
    }
    return {};
}

int TraceLanesView::hostRow(int fileIndex, int thread, int depth) const
{
    for (int r = 0; r < rowCount(); ++r) {
        const Row &row = m_rows[std::size_t(r)];
        if (row.kind == Row::Host && row.file == fileIndex && row.thread == thread && row.depth == depth)
            return r;
    }
    return -1;
}

int TraceLanesView::gpuRow(int fileIndex, int device, int stream) const
{
    for (int r = 0; r < rowCount(); ++r) {
        const Row &row = m_rows[std::size_t(r)];
        if (row.kind == Row::Gpu && row.file == fileIndex && m_devices[std::size_t(row.deviceLanes)].device == device
            && row.stream == stream)
            return r;
    }
    return -1;
}

void TraceLanesView::setThreadExpanded(int fileIndex, int thread, bool expanded)
{
    if (!hostLanes(fileIndex) || thread < 0 || thread >= int(m_files[std::size_t(fileIndex)].expanded.size()))
        return;
    m_files[std::size_t(fileIndex)].expanded[std::size_t(thread)] = expanded;
    rebuildRows();
}

const TraceLanesView::DeviceLanes *TraceLanesView::deviceLanes(int fileIndex, int device) const
{
    for (const DeviceLanes &d : m_devices)
        if (d.file == fileIndex && d.device == device)
            return &d;
    return nullptr;
}

// ------------------------------------------------------------------------------------------------
// The view: which time each pixel shows.

void TraceLanesView::setViewRange(double startNs, double endNs)
{
    if (!(endNs > startNs))
        return;
    m_viewStartNs = startNs;
    m_nsPerPx = (endNs - startNs) / trackWidthPx();
    clampView();
}

void TraceLanesView::showWholeRun()
{
    const double span = double(m_runEndNs - m_runStartNs);
    setViewRange(double(m_runStartNs) - span * 0.01, double(m_runEndNs) + span * 0.01);
}

void TraceLanesView::clampView()
{
    const double span = std::max(1.0, double(m_runEndNs - m_runStartNs));
    const double w = trackWidthPx();
    m_nsPerPx = std::clamp(m_nsPerPx, 0.01, span * 1.5 / w);
    const double visible = m_nsPerPx * w;
    m_viewStartNs = std::clamp(m_viewStartNs, double(m_runStartNs) - span * 0.25 - visible * 0.5,
                               double(m_runEndNs) + span * 0.25 - visible * 0.5);
    const bool all = visible < double(kAllDepthsNs);
    if (all != m_allDepths) {
        m_allDepths = all;
        rebuildRows();
    }
    update();
    emit viewRangeChanged();
}

void TraceLanesView::zoomAt(double factor, double x)
{
    const double at = toNs(m_labelWidthPx + x);
    m_nsPerPx /= factor;
    m_viewStartNs = at - x * m_nsPerPx;
    clampView();
}

void TraceLanesView::panByPixels(double dx)
{
    m_viewStartNs -= dx * m_nsPerPx;
    clampView();
}

int TraceLanesView::rowAtY(double y) const
{
    if (y < m_rulerPx)
        return -1;
    const int r = int(std::floor((y - m_rulerPx + m_scrollY) / m_rowPx));
    return r >= 0 && r < rowCount() ? r : -1;
}

// ------------------------------------------------------------------------------------------------
// Slices.

QString TraceLanesView::sliceName(const SliceRef &s) const
{
    const GpuTimelineFile *f = file(s.file);
    if (!f)
        return {};
    if (s.gpu()) {
        const GpuEvent e = f->devices[std::size_t(s.device)].events[s.index];
        return e.nameId < f->names.size() ? QString::fromStdString(f->names[e.nameId]) : QString();
    }
    const HostLanes &hl = *f->hostLanes;
    return QString::fromStdString(hl.names[hl.slices[s.index].nameId]);
}

qint64 TraceLanesView::sliceStartNs(const SliceRef &s) const
{
    const GpuTimelineFile *f = file(s.file);
    if (!f)
        return 0;
    return m_files[std::size_t(s.file)].offsetNs
           + (s.gpu() ? f->devices[std::size_t(s.device)].events.startNs(s.index) : f->hostLanes->slices[s.index].startNs);
}

qint64 TraceLanesView::sliceEndNs(const SliceRef &s) const
{
    const GpuTimelineFile *f = file(s.file);
    if (!f)
        return 0;
    return m_files[std::size_t(s.file)].offsetNs
           + (s.gpu() ? f->devices[std::size_t(s.device)].events[s.index].endNs : f->hostLanes->slices[s.index].endNs);
}

int TraceLanesView::sliceRow(const SliceRef &s) const
{
    const GpuTimelineFile *f = file(s.file);
    if (!f)
        return -1;
    if (s.gpu())
        return gpuRow(s.file, s.device, f->devices[std::size_t(s.device)].events[s.index].stream);
    const HostSlice &h = f->hostLanes->slices[s.index];
    return hostRow(s.file, h.thread, std::min(int(h.depth), visibleDepths(s.file, h.thread) - 1));
}

QPointF TraceLanesView::slicePoint(const SliceRef &s) const
{
    const int row = sliceRow(s);
    if (row < 0)
        return {-1, -1};
    const double a = std::max(toX(double(sliceStartNs(s))), double(m_labelWidthPx));
    const double b = std::min(toX(double(sliceEndNs(s))), double(m_labelWidthPx + trackWidthPx()));
    return {(a + b) / 2.0, rowTop(row) + m_rowPx / 2.0};
}

TraceLanesView::SliceRef TraceLanesView::sliceAt(const QPointF &pos) const
{
    const int r = rowAtY(pos.y());
    if (r < 0 || pos.x() < m_labelWidthPx)
        return {};
    const Row &row = m_rows[std::size_t(r)];
    const double t = toNs(pos.x()) - double(m_files[std::size_t(row.file)].offsetNs), slack = 2.0 * m_nsPerPx;
    if (row.kind == Row::Host) {
        const HostLanes &hl = *hostLanes(row.file);
        const HostLane &lane = hl.lanes[std::size_t(row.lane)];
        const HostSlice *first = hl.slices.data() + lane.begin, *last = hl.slices.data() + lane.end;
        const HostSlice *it = std::partition_point(first, last, [&](const HostSlice &s) { return double(s.endNs) <= t - slack; });
        if (it != last && double(it->startNs) <= t + slack)
            return {row.file, -1, quint32(it - hl.slices.data())};
        return {};
    }
    if (row.kind == Row::Gpu) {
        const DeviceLanes &dl = m_devices[std::size_t(row.deviceLanes)];
        const StreamIndex &si = dl.streams[std::size_t(row.stream)];
        const GpuEventList &events = m_files[std::size_t(row.file)].file->devices[std::size_t(dl.device)].events;
        auto k = std::size_t(std::partition_point(si.maxEnd.begin(), si.maxEnd.end(), [&](qint64 e) { return double(e) <= t - slack; })
                             - si.maxEnd.begin());
        SliceRef nearest;
        for (int tries = 0; k < si.order.size() && tries < 64; ++k, ++tries) {
            const GpuEvent e = events[si.order[k]];
            if (double(e.startNs) > t + slack)
                break;
            if (double(e.endNs) <= t - slack)
                continue;
            const SliceRef ref{row.file, dl.device, si.order[k]};
            if (double(e.startNs) <= t && double(e.endNs) >= t)
                return ref;
            if (!nearest.valid())
                nearest = ref;
        }
        return nearest;
    }
    return {};
}

std::vector<TraceLanesView::SliceRef> TraceLanesView::hostSlicesAt(int fileIndex, int thread, qint64 ns) const
{
    std::vector<SliceRef> out;
    const HostLanes *hl = hostLanes(fileIndex);
    if (!hl)
        return out;
    for (const HostLane &lane : hl->lanes) {
        if (lane.thread != thread)
            continue;
        const HostSlice *first = hl->slices.data() + lane.begin, *last = hl->slices.data() + lane.end;
        const HostSlice *it = std::partition_point(first, last, [&](const HostSlice &s) { return s.endNs <= ns; });
        if (it != last && it->startNs <= ns)
            out.push_back({fileIndex, -1, quint32(it - hl->slices.data())});
    }
    return out;
}

int TraceLanesView::gpuEventCount(int fileIndex, int device, qint64 startNs, qint64 endNs) const
{
    const DeviceLanes *dl = deviceLanes(fileIndex, device);
    if (!dl)
        return 0;
    const GpuEventList &events = m_files[std::size_t(fileIndex)].file->devices[std::size_t(device)].events;
    int n = 0;
    for (const StreamIndex &si : dl->streams) {
        auto k = std::size_t(std::partition_point(si.maxEnd.begin(), si.maxEnd.end(), [&](qint64 e) { return e <= startNs; })
                             - si.maxEnd.begin());
        for (; k < si.order.size() && events.startNs(si.order[k]) < endNs; ++k)
            if (events[si.order[k]].endNs > startNs)
                ++n;
    }
    return n;
}

TraceLanesView::SliceRef TraceLanesView::launchingOp(const SliceRef &call) const
{
    if (!call.valid() || call.gpu())
        return {};
    const HostSlice &c = hostLanes(call.file)->slices[call.index];
    SliceRef best;
    for (const SliceRef &s : hostSlicesAt(call.file, c.thread, c.startNs)) {
        const HostSlice &h = hostLanes(call.file)->slices[s.index];
        if (h.depth < c.depth && h.kind == HostSliceKind::CpuOp)
            best = s;  // outermost first: the last one is the deepest
    }
    return best;
}

void TraceLanesView::select(const SliceRef &s)
{
    if (s == m_selected)
        return;
    m_selected = s;
    computeFlows();
    update();
    emit selectionChanged();
}

void TraceLanesView::computeFlows()
{
    m_flows.clear();
    m_flowArrows.clear();
    m_launchOp = {};
    m_flowGpuEvents = 0;
    m_flowGpuNs = 0;
    const GpuTimelineFile *f = file(m_selected.file);
    if (!f || !f->hostLanes)
        return;
    const HostLanes &hl = *f->hostLanes;
    if (m_selected.gpu()) {
        // The kernel's correlation, by its place; then the runtime calls of that correlation.
        const GpuDeviceTimeline &dev = f->devices[std::size_t(m_selected.device)];
        const GpuEvent e = dev.events[m_selected.index];
        const qint32 device = qint32(dev.device), stream = qint32(e.stream < dev.streams.size() ? dev.streams[e.stream] : 0);
        const auto key = [](const GpuCorrelation &g) { return std::tuple(g.device, g.stream, g.startNs); };
        const auto range = std::equal_range(hl.gpuByPlace.begin(), hl.gpuByPlace.end(), GpuCorrelation{e.startNs, 0, device, stream},
                                            [&](const GpuCorrelation &a, const GpuCorrelation &b) { return key(a) < key(b); });
        for (auto g = range.first; g != range.second; ++g) {
            const auto calls = std::equal_range(hl.runtimeByCorrelation.begin(), hl.runtimeByCorrelation.end(),
                                                RuntimeCorrelation{g->correlation, 0},
                                                [](const RuntimeCorrelation &a, const RuntimeCorrelation &b) { return a.correlation < b.correlation; });
            for (auto c = calls.first; c != calls.second; ++c) {
                const SliceRef call{m_selected.file, -1, c->slice};
                m_flows.push_back(call);
                m_flowArrows.push_back({call, m_selected});
            }
        }
        if (!m_flows.empty())
            m_launchOp = launchingOp(m_flows.front());
        return;
    }
    const HostSlice &selected = hl.slices[m_selected.index];
    std::vector<quint32> calls;
    if (selected.kind == HostSliceKind::Runtime) {
        calls.push_back(m_selected.index);
    } else {
        // A range launches what the runtime calls inside it (same thread, deeper) launch.
        for (const HostLane &lane : hl.lanes) {
            if (lane.thread != selected.thread || lane.depth <= selected.depth)
                continue;
            const HostSlice *const base = hl.slices.data();
            const HostSlice *it = std::partition_point(base + lane.begin, base + lane.end,
                                                       [&](const HostSlice &s) { return s.startNs < selected.startNs; });
            for (; it != base + lane.end && it->startNs < selected.endNs; ++it)
                if (it->kind == HostSliceKind::Runtime && it->endNs <= selected.endNs)
                    calls.push_back(quint32(it - base));
        }
        std::sort(calls.begin(), calls.end());
    }
    addKernelsOf(m_selected.file, calls);
}

void TraceLanesView::addKernelsOf(int fileIndex, const std::vector<quint32> &calls)
{
    if (calls.empty())
        return;
    const GpuTimelineFile &f = *file(fileIndex);
    const HostLanes &hl = *f.hostLanes;
    // Their correlations (a graph launch has many kernels of one id), with the call of each.
    std::vector<RuntimeCorrelation> ids;
    for (const RuntimeCorrelation &c : hl.runtimeByCorrelation)
        if (std::binary_search(calls.begin(), calls.end(), c.slice))
            ids.push_back(c);
    if (ids.empty())
        return;
    const auto byId = [](const RuntimeCorrelation &a, const RuntimeCorrelation &b) { return a.correlation < b.correlation; };
    for (const GpuCorrelation &g : hl.gpuByPlace) {
        const auto call = std::lower_bound(ids.begin(), ids.end(), RuntimeCorrelation{g.correlation, 0}, byId);
        if (call == ids.end() || call->correlation != g.correlation)
            continue;
        for (std::size_t di = 0; di < f.devices.size(); ++di) {
            const GpuDeviceTimeline &dev = f.devices[di];
            if (dev.device != g.device)
                continue;
            const auto s = std::find(dev.streams.begin(), dev.streams.end(), qint64(g.stream));
            const DeviceLanes *dl = deviceLanes(fileIndex, int(di));
            if (s == dev.streams.end() || !dl)
                continue;
            const StreamIndex &si = dl->streams[std::size_t(s - dev.streams.begin())];
            auto k = std::partition_point(si.order.begin(), si.order.end(), [&](quint32 i) { return dev.events.startNs(i) < g.startNs; });
            if (k == si.order.end() || dev.events.startNs(*k) != g.startNs)
                continue;
            const SliceRef kernel{fileIndex, int(di), *k};
            const GpuEvent e = dev.events[*k];
            ++m_flowGpuEvents;
            m_flowGpuNs += e.endNs - e.startNs;
            m_flows.push_back(kernel);
            if (int(m_flowArrows.size()) < kMaxFlowArrows)
                m_flowArrows.push_back({SliceRef{fileIndex, -1, call->slice}, kernel});
        }
    }
}

QString TraceLanesView::selectionSummary() const
{
    if (!m_selected.valid())
        return {};
    const qint64 a = sliceStartNs(m_selected), b = sliceEndNs(m_selected);
    const GpuTimelineFile &f = *file(m_selected.file);
    QString what, where;
    if (m_selected.gpu()) {
        const GpuDeviceTimeline &dev = f.devices[std::size_t(m_selected.device)];
        const GpuEvent e = dev.events[m_selected.index];
        what = gpuKindName(e.kind);
        where = tr("GPU %1, stream %2").arg(dev.device).arg(e.stream < dev.streams.size() ? dev.streams[e.stream] : 0);
    } else {
        const HostLanes &hl = *f.hostLanes;
        const HostSlice &h = hl.slices[m_selected.index];
        const HostThread &t = hl.threads[h.thread];
        what = kindName(h.kind);
        where = tr("thread %1 (pid %2), depth %3").arg(t.tid).arg(t.pid).arg(h.depth);
    }
    // A templated kernel's name runs to hundreds of characters: cut in the middle, so that what
    // launched it still shows (the line's tooltip has it whole).
    QString name = sliceName(m_selected);
    if (name.size() > kSummaryNameChars)
        name = name.left(kSummaryNameChars / 2 - 1) + QStringLiteral("…") + name.right(kSummaryNameChars / 2);
    QString line = tr("%1 — %2, %3 at %4, %5").arg(name, what, duration(double(b - a)), duration(double(a - m_originNs)), where);
    if (m_selected.gpu()) {
        if (m_flows.empty())
            line += f.hostLanes ? tr(" · no launching call in this trace (no correlation)") : QString();
        else if (m_launchOp.valid())
            line += tr(" · launched by %1 in %2").arg(sliceName(m_flows.front()), sliceName(m_launchOp));
        else
            line += tr(" · launched by %1").arg(sliceName(m_flows.front()));
    } else if (m_flowGpuEvents > 0) {
        line += m_flowGpuEvents == 1 ? tr(" · launched 1 GPU event, %1 of GPU time").arg(duration(double(m_flowGpuNs)))
                                     : tr(" · launched %1 GPU events, %2 of GPU time").arg(m_flowGpuEvents).arg(duration(double(m_flowGpuNs)));
        if (m_flowGpuEvents > int(m_flowArrows.size()))
            line += tr(" (arrows to the first %1)").arg(m_flowArrows.size());
    } else {
        line += tr(" · launched nothing on the GPU");
    }
    return line;
}

// ------------------------------------------------------------------------------------------------
// Search and range.

int TraceLanesView::setSearchText(const QString &text)
{
    m_searchText = text.trimmed();
    m_matches.clear();
    m_currentMatch = -1;
    const QByteArray needle = m_searchText.toUtf8().toLower();
    for (int fi = 0; fi < int(m_files.size()); ++fi) {
        FileRef &ref = m_files[std::size_t(fi)];
        const GpuTimelineFile &f = *ref.file;
        ref.hostMatch.clear();
        ref.gpuMatch.clear();
        if (needle.isEmpty())
            continue;
        bool anyHost = false, anyGpu = false;
        if (f.hostLanes) {
            ref.hostMatch.resize(f.hostLanes->names.size());
            for (std::size_t n = 0; n < ref.hostMatch.size(); ++n)
                anyHost |= (ref.hostMatch[n] = containsCi(f.hostLanes->names[n], needle));
        }
        ref.gpuMatch.resize(f.names.size());
        for (std::size_t n = 0; n < ref.gpuMatch.size(); ++n)
            anyGpu |= (ref.gpuMatch[n] = containsCi(f.names[n], needle));
        if (anyHost)
            for (std::size_t i = 0; i < f.hostLanes->slices.size() && m_matches.size() < std::size_t(kMaxMatches); ++i)
                if (ref.hostMatch[f.hostLanes->slices[i].nameId])
                    m_matches.push_back({fi, -1, quint32(i)});
        if (anyGpu)
            for (std::size_t di = 0; di < f.devices.size(); ++di) {
                std::size_t i = 0;
                for (const GpuEvent &e : f.devices[di].events) {
                    if (m_matches.size() >= std::size_t(kMaxMatches))
                        break;
                    if (e.nameId < ref.gpuMatch.size() && ref.gpuMatch[e.nameId])
                        m_matches.push_back({fi, int(di), quint32(i)});
                    ++i;
                }
            }
    }
    std::stable_sort(m_matches.begin(), m_matches.end(),
                     [this](const SliceRef &a, const SliceRef &b) { return sliceStartNs(a) < sliceStartNs(b); });
    update();
    emit searchChanged();
    return searchMatchCount();
}

TraceLanesView::SliceRef TraceLanesView::match(int i) const
{
    return i >= 0 && i < searchMatchCount() ? m_matches[std::size_t(i)] : SliceRef{};
}

void TraceLanesView::goToMatch(int i)
{
    if (m_matches.empty())
        return;
    m_currentMatch = (i % searchMatchCount() + searchMatchCount()) % searchMatchCount();
    const SliceRef s = m_matches[std::size_t(m_currentMatch)];
    // A match on a hidden depth: show its thread's depths.
    if (!s.gpu()) {
        const HostSlice &h = hostLanes(s.file)->slices[s.index];
        if (h.depth >= visibleDepths(s.file, h.thread))
            setThreadExpanded(s.file, h.thread, true);
    }
    const double a = double(sliceStartNs(s)), b = double(sliceEndNs(s));
    const double visible = viewEndNs() - viewStartNs();
    if (b - a > visible * 0.8)
        setViewRange(a - (b - a) * 0.1, b + (b - a) * 0.1);
    else
        setViewRange((a + b) / 2 - visible / 2, (a + b) / 2 + visible / 2);
    const int row = sliceRow(s);
    if (row >= 0) {
        const int top = m_rulerPx + row * m_rowPx;
        if (top - m_scrollY < m_rulerPx || top + m_rowPx - m_scrollY > height())
            m_scroll->setValue(top - m_rulerPx - (height() - m_rulerPx) / 2);
    }
    select(s);
    emit searchChanged();
}

void TraceLanesView::nextMatch() { goToMatch(m_currentMatch + 1); }
void TraceLanesView::previousMatch() { goToMatch(m_currentMatch < 0 ? -1 : m_currentMatch - 1); }

void TraceLanesView::setSelectedRange(qint64 startNs, qint64 endNs)
{
    if (endNs < startNs)
        std::swap(startNs, endNs);
    m_range = TimeInterval{startNs, endNs};
    update();
    emit rangeChanged();
}

void TraceLanesView::clearSelectedRange()
{
    if (!m_range)
        return;
    m_range.reset();
    update();
    emit rangeChanged();
}

std::vector<std::pair<int, int>> TraceLanesView::shownDevices() const
{
    std::vector<std::pair<int, int>> out;
    for (const DeviceLanes &d : m_devices)
        out.push_back({d.file, d.device});
    return out;
}

TimelineRangeValues TraceLanesView::rangeValues(int fileIndex, int device, qint64 startNs, qint64 endNs) const
{
    const GpuTimelineFile *f = file(fileIndex);
    if (!f || device < 0 || device >= int(f->devices.size()))
        return {};
    // Built on the first selection, not at load: most sessions never select a range.
    std::unique_ptr<TimelineRangeIndex> &index = m_rangeIndex[{fileIndex, device}];
    if (!index)
        index = std::make_unique<TimelineRangeIndex>(*f, f->devices[std::size_t(device)]);
    return index->measure(startNs, endNs);
}

QString TraceLanesView::rangeSummary() const
{
    if (!m_range)
        return {};
    QStringList lines;
    lines << tr("Range %1 – %2 (%3)")
                 .arg(duration(double(m_range->startNs - m_originNs)), duration(double(m_range->endNs - m_originNs)),
                      duration(double(m_range->endNs - m_range->startNs)));
    for (const auto &[fi, di] : shownDevices()) {
        const qint64 offsetNs = m_files[std::size_t(fi)].offsetNs;
        const TimelineRangeValues v = rangeValues(fi, di, m_range->startNs - offsetNs, m_range->endNs - offsetNs);
        const GpuTimelineFile &f = *file(fi);
        const qint64 device = f.devices[std::size_t(di)].device;
        const QString who = (f.rank ? tr("r%1 · ").arg(*f.rank) : QString()) + deviceDisplayName(gpuIndexInFile(f, device), device, true);
        lines << tr("%1: GPU busy %2 · idle %3 (host busy %4, of it data wait %5; nothing running %6) · host active %7")
                     .arg(who, duration(double(v.busyNs)), duration(double(v.idleNs)), duration(double(v.idleHostBusyNs)),
                          duration(double(v.idleDataLoadingNs)), duration(double(v.idleNothingNs)),
                          duration(double(v.hostActiveNs)));
        if (lines.size() > 8) {
            lines << tr("…");
            break;
        }
    }
    return lines.join(QLatin1Char('\n'));
}

// ------------------------------------------------------------------------------------------------
// Drawing.

void TraceLanesView::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Base));
    const int trackRight = m_labelWidthPx + trackWidthPx();
    const int firstRow = std::max(0, (m_scrollY) / m_rowPx), lastRow = std::min(rowCount() - 1, (m_scrollY + height()) / m_rowPx);

    // Step boundaries behind everything: faint bands, every other step.
    p.setClipRect(QRect(m_labelWidthPx, m_rulerPx, trackWidthPx(), height() - m_rulerPx));
    QColor band = pal.color(QPalette::AlternateBase);
    for (std::size_t s = 1; s < m_steps.size(); s += 2) {
        const double a = toX(double(m_steps[s].startNs)), b = toX(double(m_steps[s].endNs));
        if (b >= m_labelWidthPx && a <= trackRight)
            p.fillRect(QRectF(a, m_rulerPx, b - a, height() - m_rulerPx), band);
    }
    for (int r = firstRow; r <= lastRow; ++r) {
        const Row &row = m_rows[std::size_t(r)];
        const int top = rowTop(r);
        if (row.kind == Row::FileHeader)
            p.fillRect(QRect(m_labelWidthPx, top, trackWidthPx(), m_rowPx), pal.color(QPalette::Window));
        else if (row.kind == Row::Host)
            drawHostRow(p, row, top);
        else
            drawGpuRow(p, row, top);
    }
    // The selected range over every row.
    if (m_range) {
        const double a = toX(double(m_range->startNs)), b = toX(double(m_range->endNs));
        QColor fill = pal.color(QPalette::Highlight);
        fill.setAlpha(50);
        p.fillRect(QRectF(a, m_rulerPx, std::max(1.0, b - a), height() - m_rulerPx), fill);
        p.setPen(QPen(pal.color(QPalette::Highlight), 1));
        p.drawLine(QPointF(a, m_rulerPx), QPointF(a, height()));
        p.drawLine(QPointF(b, m_rulerPx), QPointF(b, height()));
    }
    drawFlows(p);

    // Labels, then the ruler on top.
    p.setClipRect(QRect(0, m_rulerPx, m_labelWidthPx, height() - m_rulerPx));
    p.fillRect(QRect(0, m_rulerPx, m_labelWidthPx, height() - m_rulerPx), pal.color(QPalette::Window));
    p.setPen(pal.color(QPalette::WindowText));
    for (int r = firstRow; r <= lastRow; ++r) {
        const QRect cell(4, rowTop(r), m_labelWidthPx - 8, m_rowPx);
        QFont f = font();
        f.setBold(m_rows[std::size_t(r)].kind == Row::FileHeader);
        p.setFont(f);
        p.drawText(cell, Qt::AlignVCenter | Qt::AlignLeft, fontMetrics().elidedText(rowLabel(r), Qt::ElideMiddle, cell.width()));
        if (m_rows[std::size_t(r)].kind != Row::Host || m_rows[std::size_t(r)].depth == 0) {
            p.save();
            p.setClipping(false);
            p.setPen(pal.color(QPalette::Mid));
            p.drawLine(0, rowTop(r), trackRight, rowTop(r));
            p.restore();
        }
    }
    p.setClipping(false);
    drawRuler(p);
}

void TraceLanesView::drawRuler(QPainter &p)
{
    const QPalette pal = palette();
    p.fillRect(QRect(0, 0, width(), m_rulerPx), pal.color(QPalette::Window));
    p.setPen(pal.color(QPalette::Mid));
    p.drawLine(0, m_rulerPx - 1, width(), m_rulerPx - 1);
    p.setPen(pal.color(QPalette::WindowText));
    p.setFont(font());
    const double stepNs = niceStepNs(90.0 * m_nsPerPx);
    const double firstTick = std::ceil((m_viewStartNs - double(m_originNs)) / stepNs) * stepNs;
    p.setClipRect(QRect(m_labelWidthPx, 0, trackWidthPx(), m_rulerPx));
    for (double t = firstTick; toX(t + double(m_originNs)) < m_labelWidthPx + trackWidthPx(); t += stepNs) {
        const double x = toX(t + double(m_originNs));
        p.drawLine(QPointF(x, m_rulerPx - 6), QPointF(x, m_rulerPx - 1));
        p.drawText(QPointF(x + 3, m_rulerPx - 6), duration(t));
    }
    p.setClipping(false);
    p.drawText(QRect(4, 0, m_labelWidthPx - 8, m_rulerPx), Qt::AlignVCenter | Qt::AlignLeft,
               tr("%1 in view").arg(duration(viewEndNs() - viewStartNs())));
}

void TraceLanesView::drawHostRow(QPainter &p, const Row &row, int top)
{
    const FileRef &ref = m_files[std::size_t(row.file)];
    const HostLanes &hl = *ref.file->hostLanes;
    const HostLane &lane = hl.lanes[std::size_t(row.lane)];
    const bool dark = isDarkPalette(palette());
    const double left = m_labelWidthPx, right = m_labelWidthPx + trackWidthPx();
    // The file's own clock inside; offsetNs places it on the view's (aligned ranks).
    const double offsetNs = double(ref.offsetNs);
    const double t0 = toNs(left) - offsetNs, t1 = toNs(right) - offsetNs;
    const HostSlice *const base = hl.slices.data();
    const HostSlice *it = std::partition_point(base + lane.begin, base + lane.end, [&](const HostSlice &s) { return double(s.endNs) <= t0; });
    const HostSlice *const last = base + lane.end;
    const QRectF cell(left, top + 1, right - left, m_rowPx - 2);
    const QFontMetrics fm = fontMetrics();
    const bool searching = !ref.hostMatch.empty();
    const QColor matchColor(0xff, 0xd4, 0x00);
    while (it != last && double(it->startNs) < t1) {
        const double x0 = toX(double(it->startNs) + offsetNs), x1 = toX(double(it->endNs) + offsetNs);
        QColor fill = hostColor(it->kind, it->nameId, dark);
        const bool matched = searching && ref.hostMatch[it->nameId];
        if (x1 - x0 >= 1.0) {
            const QRectF r(std::max(x0, left - 1), cell.top(), std::min(x1, right + 1) - std::max(x0, left - 1), cell.height());
            p.fillRect(r, matched ? matchColor : fill);
            if (r.width() > 3)
                p.fillRect(QRectF(r.right() - 1, r.top(), 1, r.height()), separatorColor(dark));
            if (r.width() >= 28) {
                p.setPen(textOn(matched ? matchColor : fill));
                p.drawText(r.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft,
                           fm.elidedText(QString::fromStdString(hl.names[it->nameId]), Qt::ElideRight, int(r.width()) - 6));
            }
            ++it;
            continue;
        }
        // Narrower than a pixel: one mark for this pixel, then the first slice past it.
        const double px = std::floor(x0);
        p.fillRect(QRectF(px, cell.top(), 1, cell.height()), matched ? matchColor : fill);
        const double next = toNs(px + 1) - offsetNs;
        it = std::partition_point(it + 1, last, [&](const HostSlice &s) { return double(s.endNs) <= next; });
    }
    const int rowIndex = int(&row - m_rows.data());
    if (m_selected.valid() && !m_selected.gpu() && m_selected.file == row.file && sliceRow(m_selected) == rowIndex) {
        const double x0 = toX(double(sliceStartNs(m_selected))), x1 = toX(double(sliceEndNs(m_selected)));
        p.setPen(QPen(palette().color(QPalette::WindowText), 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRectF(x0, cell.top(), std::max(2.0, x1 - x0), cell.height()));
    }
    // A selected kernel's launching operator: dashed, so the eye finds the op above the call.
    if (m_launchOp.valid() && m_launchOp.file == row.file && sliceRow(m_launchOp) == rowIndex) {
        const double x0 = toX(double(sliceStartNs(m_launchOp))), x1 = toX(double(sliceEndNs(m_launchOp)));
        p.setPen(QPen(palette().color(QPalette::WindowText), 2, Qt::DashLine));
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRectF(x0, cell.top(), std::max(2.0, x1 - x0), cell.height()));
    }
}

void TraceLanesView::drawGpuRow(QPainter &p, const Row &row, int top)
{
    const FileRef &ref = m_files[std::size_t(row.file)];
    const DeviceLanes &dl = m_devices[std::size_t(row.deviceLanes)];
    const GpuEventList &events = ref.file->devices[std::size_t(dl.device)].events;
    const StreamIndex &si = dl.streams[std::size_t(row.stream)];
    const double left = m_labelWidthPx, right = m_labelWidthPx + trackWidthPx();
    // The file's own clock inside; offsetNs places it on the view's (aligned ranks).
    const double offsetNs = double(ref.offsetNs);
    const double t0 = toNs(left) - offsetNs, t1 = toNs(right) - offsetNs;
    const QPalette pal = palette();
    const QColor colours[3] = {TimelinePanel::partColor(TimelinePanel::Compute, pal),
                               TimelinePanel::partColor(TimelinePanel::ExposedComm, pal),
                               TimelinePanel::partColor(TimelinePanel::OtherBusy, pal)};
    const QColor matchColor(0xff, 0xd4, 0x00);
    const bool searching = !ref.gpuMatch.empty();
    const QRectF cell(left, top + 1, right - left, m_rowPx - 2);
    const QFontMetrics fm = fontMetrics();
    std::size_t k = std::size_t(std::partition_point(si.maxEnd.begin(), si.maxEnd.end(), [&](qint64 e) { return double(e) <= t0; })
                                - si.maxEnd.begin());
    while (k < si.order.size()) {
        const GpuEvent e = events[si.order[k]];
        if (double(e.startNs) >= t1)
            break;
        const int cls = e.kind != GpuEventKind::Kernel ? 2 : e.nameId < dl.nameClass.size() ? dl.nameClass[e.nameId] : 0;
        const bool matched = searching && e.nameId < ref.gpuMatch.size() && ref.gpuMatch[e.nameId];
        const QColor fill = matched ? matchColor : colours[cls];
        const double x0 = toX(double(e.startNs) + offsetNs), x1 = toX(double(e.endNs) + offsetNs);
        if (x1 - x0 >= 1.0) {
            const QRectF r(std::max(x0, left - 1), cell.top(), std::min(x1, right + 1) - std::max(x0, left - 1), cell.height());
            p.fillRect(r, fill);
            if (r.width() > 3)
                p.fillRect(QRectF(r.right() - 1, r.top(), 1, r.height()), separatorColor(isDarkPalette(pal)));
            if (r.width() >= 28 && e.nameId < ref.file->names.size()) {
                p.setPen(textOn(fill));
                p.drawText(r.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft,
                           fm.elidedText(QString::fromStdString(ref.file->names[e.nameId]), Qt::ElideRight, int(r.width()) - 6));
            }
            ++k;
            continue;
        }
        const double px = std::floor(x0);
        p.fillRect(QRectF(px, cell.top(), 1, cell.height()), fill);
        const double next = toNs(px + 1) - offsetNs;
        k = std::size_t(std::partition_point(si.maxEnd.begin() + qsizetype(k) + 1, si.maxEnd.end(),
                                             [&](qint64 end) { return double(end) <= next; })
                        - si.maxEnd.begin());
    }
    if (m_selected.gpu() && m_selected.file == row.file && m_selected.device == dl.device && sliceRow(m_selected) == int(&row - m_rows.data())) {
        const double x0 = toX(double(sliceStartNs(m_selected))), x1 = toX(double(sliceEndNs(m_selected)));
        p.setPen(QPen(pal.color(QPalette::WindowText), 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRectF(x0, cell.top(), std::max(2.0, x1 - x0), cell.height()));
    }
}

void TraceLanesView::drawFlows(QPainter &p)
{
    if (!m_selected.valid() || m_flowArrows.empty())
        return;
    p.save();
    p.setClipRect(QRect(m_labelWidthPx, m_rulerPx, trackWidthPx(), height() - m_rulerPx));
    p.setRenderHint(QPainter::Antialiasing);
    const QColor ink = palette().color(QPalette::WindowText);
    p.setPen(QPen(ink, 1.5));
    const auto anchor = [&](const SliceRef &s, bool atBottom) {
        const int row = sliceRow(s);
        return QPointF(toX(double(sliceStartNs(s))), row < 0 ? -1.0 : rowTop(row) + (atBottom ? m_rowPx - 2 : 2));
    };
    // Flows run from the runtime call (above) down to the GPU event.
    for (const auto &[from, to] : m_flowArrows) {
        const QPointF a = anchor(from, true), b = anchor(to, false);
        if (a.y() < 0 || b.y() < 0)
            continue;
        QPainterPath path(a);
        const double dy = (b.y() - a.y()) / 2;
        path.cubicTo(a + QPointF(0, dy), b - QPointF(0, dy), b);
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        const double dir = b.y() >= a.y() ? 1.0 : -1.0;
        QPolygonF head;
        head << b << b + QPointF(-4, -7 * dir) << b + QPointF(4, -7 * dir);
        p.setBrush(ink);
        p.drawPolygon(head);
    }
    p.restore();
}

void TraceLanesView::resizeEvent(QResizeEvent *e)
{
    const double start = m_viewStartNs, end = viewEndNs();
    QWidget::resizeEvent(e);
    updateScrollBar();
    (void)end;
    // Keep the time per pixel: a wider window shows more.
    m_viewStartNs = start;
    clampView();
}

// ------------------------------------------------------------------------------------------------
// Input.

void TraceLanesView::wheelEvent(QWheelEvent *e)
{
    const QPointF pos = e->position();
    const double delta = e->angleDelta().y() != 0 ? e->angleDelta().y() : e->angleDelta().x();
    if (pos.x() < m_labelWidthPx) {
        m_scroll->setValue(m_scroll->value() - int(delta / 120.0 * 3 * m_rowPx));
    } else if (e->modifiers() & Qt::ShiftModifier) {
        panByPixels(delta / 120.0 * trackWidthPx() * kPanFraction);
    } else {
        zoomAt(std::pow(kZoomStep, delta / 120.0), pos.x() - m_labelWidthPx);
    }
    e->accept();
}

void TraceLanesView::mousePressEvent(QMouseEvent *e)
{
    setFocus(Qt::MouseFocusReason);
    m_pressPos = e->position();
    m_moved = false;
    m_drag = Drag::None;
    if (e->button() != Qt::LeftButton || e->position().x() < m_labelWidthPx)
        return;
    if ((e->modifiers() & Qt::ShiftModifier) || e->position().y() < m_rulerPx) {
        m_drag = Drag::Range;
        m_rangeAnchorNs = qint64(std::llround(toNs(e->position().x())));
    } else {
        m_drag = Drag::Pan;
        m_pressViewStartNs = m_viewStartNs;
    }
}

void TraceLanesView::mouseMoveEvent(QMouseEvent *e)
{
    if (m_drag == Drag::None)
        return;
    const QPointF d = e->position() - m_pressPos;
    if (!m_moved && std::abs(d.x()) + std::abs(d.y()) <= 3)
        return;
    m_moved = true;
    if (m_drag == Drag::Pan) {
        m_viewStartNs = m_pressViewStartNs - d.x() * m_nsPerPx;
        clampView();
        if (std::abs(d.y()) > 0)
            m_scroll->setValue(m_scroll->value() - int(e->position().y() - m_pressPos.y()));
        m_pressPos.setY(e->position().y());
    } else {
        setSelectedRange(m_rangeAnchorNs, qint64(std::llround(toNs(e->position().x()))));
    }
}

void TraceLanesView::mouseReleaseEvent(QMouseEvent *e)
{
    const Drag drag = m_drag;
    m_drag = Drag::None;
    if (e->button() != Qt::LeftButton || m_moved)
        return;
    const int r = rowAtY(e->position().y());
    if (e->position().x() < m_labelWidthPx) {
        // A thread's label or its "+ deeper" row toggles its depths.
        if (r >= 0 && m_rows[std::size_t(r)].kind == Row::Host) {
            const Row row = m_rows[std::size_t(r)];
            const bool expandable = hostLanes(row.file)->threads[std::size_t(row.thread)].depths > kCollapsedDepths;
            if (expandable && (row.depth == 0 || row.lastShownDepth))
                setThreadExpanded(row.file, row.thread, !m_files[std::size_t(row.file)].expanded[std::size_t(row.thread)]);
        }
        return;
    }
    if (drag == Drag::Range) {
        clearSelectedRange();
        return;
    }
    select(sliceAt(e->position()));
}

void TraceLanesView::keyPressEvent(QKeyEvent *e)
{
    // At the mouse when it is over the lanes (as Perfetto), else at the centre.
    const QPoint cursor = mapFromGlobal(QCursor::pos());
    const double x = underMouse() && cursor.x() > m_labelWidthPx ? cursor.x() - m_labelWidthPx : trackWidthPx() / 2.0;
    switch (e->key()) {
    case Qt::Key_W: zoomAt(kZoomStep, x); break;
    case Qt::Key_S: zoomAt(1.0 / kZoomStep, x); break;
    case Qt::Key_A: panByPixels(trackWidthPx() * kPanFraction); break;
    case Qt::Key_D: panByPixels(-trackWidthPx() * kPanFraction); break;
    case Qt::Key_F:
        if (m_range)
            setViewRange(double(m_range->startNs), double(m_range->endNs));
        else if (m_selected.valid()) {
            const double a = double(sliceStartNs(m_selected)), b = double(sliceEndNs(m_selected)), pad = std::max(1.0, (b - a) * 0.1);
            setViewRange(a - pad, b + pad);
        } else
            showWholeRun();
        break;
    case Qt::Key_Escape:
        select({});
        clearSelectedRange();
        break;
    default: QWidget::keyPressEvent(e); return;
    }
    e->accept();
}

QString TraceLanesView::toolTipAt(const QPointF &pos) const
{
    const SliceRef s = sliceAt(pos);
    if (!s.valid()) {
        const int r = rowAtY(pos.y());
        if (pos.x() < m_labelWidthPx && r >= 0 && m_rows[std::size_t(r)].kind == Row::Host)
            return tr("Click to show or hide the deeper levels of this thread");
        return {};
    }
    const qint64 a = sliceStartNs(s), b = sliceEndNs(s);
    QString what;
    if (s.gpu()) {
        const GpuEvent e = file(s.file)->devices[std::size_t(s.device)].events[s.index];
        what = gpuKindName(e.kind);
    } else {
        const HostSlice &h = hostLanes(s.file)->slices[s.index];
        what = tr("%1 · depth %2").arg(kindName(h.kind)).arg(h.depth);
    }
    return tr("%1\n%2 · %3 at %4\nClick: its flows (op or launch ↔ kernels) · Shift+drag: a range's budget")
        .arg(sliceName(s), what, duration(double(b - a)), duration(double(a - m_originNs)));
}

bool TraceLanesView::event(QEvent *e)
{
    if (e->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(e);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(e);
}

} // namespace goblin
