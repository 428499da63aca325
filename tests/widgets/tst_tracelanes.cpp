// The Timeline's host and GPU lanes (src/widgets/tracelanesview, timelineview): the host lanes
// read from the trace (steps, data loading, ranges, CPU ops, runtime calls by depth), flows
// between a kernel and its launch, zoom and pan keys, search, and a range's budget — each checked
// against counts made apart from the workbench (Python over the fixtures, see PROVENANCE.md).

#include "results/hostlanes.h"
#include "torchtraceparser.h"
#include "runanalysis.h"
#include "testsupport.h"
#include "timelinepanel.h"
#include "timelineview.h"
#include "tracelanesview.h"

#include <QFile>
#include <QLineEdit>
#include <QSignalSpy>
#include <QtTest>

using namespace goblin;

class TestTraceLanes : public QObject
{
    Q_OBJECT

private slots:
    // The window's reading: the host lanes are kept (torchtraceparser.h, setKeepHostLanes).
    void initTestCase() { setKeepHostLanes(true); }
    void dataLoaderAboveTheIdleGap_data();
    void dataLoaderAboveTheIdleGap();
    void hostLanesNestByDepth();
    void kernelFlowsToItsLaunch_data();
    void kernelFlowsToItsLaunch();
    void runtimeCallFlowsToItsKernels();
    void rangeFlowsToTheKernelsItLaunched_data();
    void rangeFlowsToTheKernelsItLaunched();
    void clickSelectsAndShowsTheFlow();
    void keysZoomAndPan_data();
    void keysZoomAndPan();
    void wheelZoomsAtTheCursor();
    void dragPans();
    void searchFindsSlices_data();
    void searchFindsSlices();
    void searchField();
    void rangeBudgetMatchesIndependentCount_data();
    void rangeBudgetMatchesIndependentCount();
    void rangeOfAStepEqualsItsBar();
    void shiftDragSelectsARange();
    void selectionLineNamesTheLaunch();
    void selectionLineCutsLongNamesInTheMiddle();
    void deeperLevelsOnExpandOrZoom();
    void pickedBarZoomsTheLanes();
    void scopeLine();
    void gpusInDeviceOrder();
    void scopeSaysWhenNoStepMarks();
    void ranksOnTheirOwnClocksAreAligned();
    void ranksOnOneClockStayAsRecorded();
    void ranksCountingFromOtherBaseTimesShareOneClock();
    void emptyRun();

private:
    std::shared_ptr<const RunAnalysis> load(const QString &relative);
    std::shared_ptr<const RunAnalysis> m_resnetReal, m_resnetSmall;
};

namespace {

/// The widget's x of time `ns` in its current view.
double xOf(const TraceLanesView &v, double ns)
{
    return v.labelWidthPx() + (ns - v.viewStartNs()) / (v.viewEndNs() - v.viewStartNs()) * v.trackWidthPx();
}

double yOfRow(const TraceLanesView &v, int row) { return v.rulerHeightPx() + row * v.rowHeightPx() + v.rowHeightPx() / 2.0; }

/// A Timeline tab on screen (1200×900) showing `run`; null when the window never showed.
std::unique_ptr<TimelineView> shownTimeline(const RunAnalysis *run)
{
    auto tab = std::make_unique<TimelineView>(new TimelinePanel);
    tab->resize(1200, 900);
    tab->show();
    if (!QTest::qWaitForWindowExposed(tab.get()))
        return nullptr;
    tab->setRun(run);
    return tab;
}

/// The first host slice of `kind` (file 0), in lane order.
int firstOfKind(const HostLanes &hl, HostSliceKind kind, const char *name = nullptr)
{
    for (std::size_t i = 0; i < hl.slices.size(); ++i)
        if (hl.slices[i].kind == kind && (!name || hl.names[hl.slices[i].nameId] == name))
            return int(i);
    return -1;
}

} // namespace

std::shared_ptr<const RunAnalysis> TestTraceLanes::load(const QString &relative)
{
    const LoadResult loaded = loadRun(test::dataPath(relative));
    if (loaded.outcome != LoadOutcome::Finished || !loaded.run)
        qWarning() << "cannot load" << relative << loaded.error;
    return loaded.run;
}

// ------------------------------------------------------------------------------------------------

void TestTraceLanes::dataLoaderAboveTheIdleGap_data()
{
    // The TB plugin's ResNet-50 sample, steps 6–8 (tests/data/torch): each step's
    // enumerate(DataLoader) range (start, µs) and the GPU's idle gap inside it, as offsets from
    // its start (µs), counted by Python over the raw events (PROVENANCE.md, tracelanes).
    QTest::addColumn<qint64>("dataLoaderStartUs");
    QTest::addColumn<qint64>("gapStartUs");
    QTest::addColumn<qint64>("gapEndUs");
    QTest::newRow("step 6") << qint64(1623142623636384) << qint64(11736) << qint64(68777);
    QTest::newRow("step 7") << qint64(1623142623810445) << qint64(12828) << qint64(73418);
    QTest::newRow("step 8") << qint64(1623142623987436) << qint64(15570) << qint64(71425);
}

void TestTraceLanes::dataLoaderAboveTheIdleGap()
{
    QFETCH(qint64, dataLoaderStartUs);
    QFETCH(qint64, gapStartUs);
    QFETCH(qint64, gapEndUs);
    if (!m_resnetReal)
        m_resnetReal = load(QStringLiteral("torch/kineto_2021_resnet50_steps6to8.json.gz"));
    QVERIFY(m_resnetReal);
    TraceLanesView view;
    view.resize(1400, 900);
    view.setRun(m_resnetReal.get());
    const HostLanes *hl = view.hostLanes(0);
    QVERIFY(hl);
    const qint64 a = dataLoaderStartUs * 1000, gapA = a + gapStartUs * 1000, gapB = a + gapEndUs * 1000;
    const qint64 mid = (gapA + gapB) / 2;

    // The main thread (pid 25738, tid 25738) has the DataLoader slice at the gap's middle.
    int thread = -1;
    for (std::size_t t = 0; t < hl->threads.size(); ++t)
        if (hl->threads[t].tid == 25738)
            thread = int(t);
    QVERIFY(thread >= 0);
    TraceLanesView::SliceRef dataLoader;
    for (const TraceLanesView::SliceRef &s : view.hostSlicesAt(0, thread, mid))
        if (hl->slices[s.index].kind == HostSliceKind::DataLoading)
            dataLoader = s;
    QVERIFY(dataLoader.valid());
    QVERIFY(view.sliceName(dataLoader).startsWith(QStringLiteral("enumerate(DataLoader)")));
    QCOMPARE(view.sliceStartNs(dataLoader), a);

    // No GPU event of the device in the gap; some just before it (the previous step's tail).
    const auto devices = view.shownDevices();
    QCOMPARE(int(devices.size()), 1);
    QCOMPARE(view.gpuEventCount(0, devices[0].second, gapA, gapB), 0);
    QVERIFY(view.gpuEventCount(0, devices[0].second, a, gapA) > 0);

    // As drawn: at the gap's middle the DataLoader's row hits its slice, every stream row nothing.
    view.setViewRange(double(a), double(gapB));
    const double x = xOf(view, double(mid));
    const int row = view.sliceRow(dataLoader);
    QVERIFY(row >= 0);
    QCOMPARE(view.sliceAt(QPointF(x, yOfRow(view, row))), dataLoader);
    int streamRows = 0;
    for (int r = 0; r < view.rowCount(); ++r)
        if (view.rowLabel(r).contains(QStringLiteral("stream"))) {
            ++streamRows;
            QVERIFY2(!view.sliceAt(QPointF(x, yOfRow(view, r))).valid(), qPrintable(view.rowLabel(r)));
        }
    QVERIFY(streamRows > 0);
    // The host rows sit above the GPU rows.
    QVERIFY(row < view.gpuRow(0, devices[0].second, 0) || view.gpuRow(0, devices[0].second, 0) < 0);
}

void TestTraceLanes::hostLanesNestByDepth()
{
    // hostlanes-resnet: ProfilerStep (0) > nn.Module (1) > aten::conv2d (2) > aten::convolution (3)
    // > aten::cudnn_convolution (4) > cudaLaunchKernel (5), by make_host_lanes_fixture.py.
    m_resnetSmall = load(QStringLiteral("timeline/hostlanes-resnet"));
    QVERIFY(m_resnetSmall);
    const GpuTimelineFile &f = m_resnetSmall->torch.timeline.files.at(0);
    QVERIFY(f.hostLanes);
    const HostLanes &hl = *f.hostLanes;
    QCOMPARE(int(hl.threads.size()), 2);
    QCOMPARE(hl.threads[0].tid, qint64(100));
    QCOMPARE(hl.threads[1].tid, qint64(101));
    QCOMPARE(int(hl.threads[0].depths), 6);
    QCOMPARE(int(hl.threads[1].depths), 3);
    // Counted by kind, as the script writes them (per step: 34 CPU ops, 15 launches).
    std::map<HostSliceKind, int> kinds;
    for (const HostSlice &s : hl.slices)
        ++kinds[s.kind];
    QCOMPARE(kinds[HostSliceKind::Step], 2);
    QCOMPARE(kinds[HostSliceKind::DataLoading], 2);
    QCOMPARE(kinds[HostSliceKind::Module], 2);
    QCOMPARE(kinds[HostSliceKind::Annotation], 2);  // Optimizer.step#SGD.step
    QCOMPARE(kinds[HostSliceKind::Runtime], 2 * 15);
    QCOMPARE(kinds[HostSliceKind::CpuOp], 2 * (1 + 30 + 2 + 1));
    QCOMPARE(int(hl.runtimeByCorrelation.size()), 30);
    QCOMPARE(int(hl.gpuByPlace.size()), 30);
    for (const HostLane &lane : hl.lanes)
        for (std::uint32_t i = lane.begin; i < lane.end; ++i) {
            QCOMPARE(int(hl.slices[i].depth), int(lane.depth));
            QCOMPARE(int(hl.slices[i].thread), int(lane.thread));
            if (i > lane.begin)  // one depth's slices never overlap
                QVERIFY(hl.slices[i].startNs >= hl.slices[i - 1].endNs);
        }
    // The first conv's launch (1.0404 s) under step, module and three ops; the optimizer's under
    // step, Optimizer.step and aten::add_.
    std::map<qint64, int> launchDepth;
    for (const HostSlice &s : hl.slices)
        if (s.kind == HostSliceKind::Runtime)
            launchDepth[s.startNs] = s.depth;
    QCOMPARE(launchDepth.at(1'040'400'000), 5);
    QCOMPARE(launchDepth.at(1'080'200'000), 3);
    QCOMPARE(launchDepth.at(1'061'000'000), 2);  // the backward thread's
    QCOMPARE(QString::fromStdString(hl.names[hl.slices[std::size_t(firstOfKind(hl, HostSliceKind::Step))].nameId]),
             QStringLiteral("ProfilerStep#0"));
}

void TestTraceLanes::kernelFlowsToItsLaunch_data()
{
    // Kernel name, its index among those of that name, the launching thread and op (the script's).
    QTest::addColumn<QString>("kernel");
    QTest::addColumn<int>("nth");
    QTest::addColumn<qint64>("tid");
    QTest::addColumn<QString>("op");
    QTest::addColumn<qint64>("launchStartNs");
    const auto s = [](const char *text) { return QString::fromLatin1(text); };
    QTest::newRow("first conv") << s("implicit_convolve_sgemm") << 0 << qint64(100) << s("aten::cudnn_convolution")
                                << qint64(1'040'400'000);
    QTest::newRow("third conv of step 1") << s("implicit_convolve_sgemm") << 12 << qint64(100)
                                          << s("aten::cudnn_convolution") << qint64(1'144'200'000);
    QTest::newRow("backward") << s("wgrad_alg0_engine") << 1 << qint64(101) << s("aten::convolution_backward")
                              << qint64(1'065'000'000);
    QTest::newRow("optimizer") << s("vectorized_elementwise_kernel") << 1 << qint64(100) << s("aten::add_")
                               << qint64(1'180'200'000);
}

void TestTraceLanes::kernelFlowsToItsLaunch()
{
    QFETCH(QString, kernel);
    QFETCH(int, nth);
    QFETCH(qint64, tid);
    QFETCH(QString, op);
    QFETCH(qint64, launchStartNs);
    QVERIFY(m_resnetSmall);
    TraceLanesView view;
    view.resize(1200, 800);
    view.setRun(m_resnetSmall.get());
    const GpuTimelineFile &f = *view.file(0);
    // The nth kernel of that name in start order.
    std::vector<std::pair<qint64, quint32>> found;
    for (std::size_t i = 0; i < f.devices[0].events.size(); ++i) {
        const GpuEvent e = f.devices[0].events[i];
        if (QString::fromStdString(f.names[e.nameId]) == kernel)
            found.push_back({e.startNs, quint32(i)});
    }
    std::sort(found.begin(), found.end());
    QVERIFY(nth < int(found.size()));
    const TraceLanesView::SliceRef k{0, 0, found[std::size_t(nth)].second};
    QSignalSpy selected(&view, &TraceLanesView::selectionChanged);
    view.select(k);
    QCOMPARE(selected.count(), 1);
    QCOMPARE(int(view.flowTargets().size()), 1);
    const TraceLanesView::SliceRef call = view.flowTargets().front();
    QCOMPARE(view.sliceName(call), QStringLiteral("cudaLaunchKernel"));
    QCOMPARE(view.sliceStartNs(call), launchStartNs);
    const HostLanes &hl = *view.hostLanes(0);
    QCOMPARE(hl.threads[hl.slices[call.index].thread].tid, tid);
    const TraceLanesView::SliceRef launching = view.launchingOp(call);
    QVERIFY(launching.valid());
    QCOMPARE(view.sliceName(launching), op);
    QCOMPARE(view.selectedLaunchingOp(), launching);
    const QString summary = view.selectionSummary();
    QVERIFY2(summary.startsWith(kernel + QStringLiteral(" — GPU kernel")), qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("launched by cudaLaunchKernel in ") + op), qPrintable(summary));

    // And back: the runtime call's flow goes to this kernel.
    view.select(call);
    QCOMPARE(int(view.flowTargets().size()), 1);
    QCOMPARE(view.flowTargets().front(), k);
}

void TestTraceLanes::runtimeCallFlowsToItsKernels()
{
    // Every runtime call of the fixture launched exactly one kernel, at its start + 200 µs (the
    // script's layout), and every kernel flows back to exactly one call.
    QVERIFY(m_resnetSmall);
    TraceLanesView view;
    view.setRun(m_resnetSmall.get());
    const HostLanes &hl = *view.hostLanes(0);
    int calls = 0;
    for (std::size_t i = 0; i < hl.slices.size(); ++i) {
        if (hl.slices[i].kind != HostSliceKind::Runtime)
            continue;
        ++calls;
        view.select({0, -1, quint32(i)});
        QCOMPARE(int(view.flowTargets().size()), 1);
        const TraceLanesView::SliceRef k = view.flowTargets().front();
        QVERIFY(k.gpu());
        const qint64 delay = view.sliceStartNs(k) - hl.slices[i].startNs;
        QVERIFY2(delay == 200'000 || delay == 1'000'000 || delay == 500'000, qPrintable(QString::number(delay)));
    }
    QCOMPARE(calls, 30);
}

void TestTraceLanes::rangeFlowsToTheKernelsItLaunched_data()
{
    // The script's layout, per step on the main thread: 10 convolutions (1.5 ms kernels, each
    // under nn.Module and three ops) and one optimizer kernel (0.8 ms) under Optimizer.step; the
    // backward's 4 kernels are launched by the other thread, so no main-thread range owns them.
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("kernels");
    QTest::addColumn<qint64>("gpuNs");
    QTest::addColumn<QString>("summary");
    const auto s = [](const char *text) { return QString::fromUtf8(text); };
    QTest::newRow("step") << int(HostSliceKind::Step) << s("ProfilerStep#0") << 11 << qint64(15'800'000)
                          << s("launched 11 GPU events, 15.8 ms of GPU time");
    QTest::newRow("module") << int(HostSliceKind::Module) << s("nn.Module: ResNet_0") << 10 << qint64(15'000'000)
                            << s("launched 10 GPU events, 15 ms of GPU time");
    QTest::newRow("optimizer") << int(HostSliceKind::Annotation) << s("Optimizer.step#SGD.step") << 1 << qint64(800'000)
                               << s("launched 1 GPU event, 800 µs of GPU time");
    QTest::newRow("conv op") << int(HostSliceKind::CpuOp) << s("aten::conv2d") << 1 << qint64(1'500'000)
                             << s("launched 1 GPU event, 1.5 ms of GPU time");
    QTest::newRow("data loading") << int(HostSliceKind::DataLoading) << QString() << 0 << qint64(0)
                                  << s("launched nothing on the GPU");
}

void TestTraceLanes::rangeFlowsToTheKernelsItLaunched()
{
    QFETCH(int, kind);
    QFETCH(QString, name);
    QFETCH(int, kernels);
    QFETCH(qint64, gpuNs);
    QFETCH(QString, summary);
    QVERIFY(m_resnetSmall);
    TraceLanesView view;
    view.resize(1200, 800);
    view.setRun(m_resnetSmall.get());
    const HostLanes &hl = *view.hostLanes(0);
    const QByteArray latin = name.toUtf8();
    const int slice = firstOfKind(hl, HostSliceKind(kind), name.isEmpty() ? nullptr : latin.constData());
    QVERIFY(slice >= 0);
    view.select({0, -1, quint32(slice)});
    QCOMPARE(view.selectedKernelCount(), kernels);
    QCOMPARE(view.selectedGpuTimeNs(), gpuNs);
    QCOMPARE(int(view.flowTargets().size()), kernels);
    const HostSlice &range = hl.slices[std::size_t(slice)];
    for (const TraceLanesView::SliceRef &k : view.flowTargets()) {
        QVERIFY(k.gpu());
        // Each kernel's own launch lies inside the range, on its thread.
        TraceLanesView probe;
        probe.setRun(m_resnetSmall.get());
        probe.select(k);
        QCOMPARE(int(probe.flowTargets().size()), 1);
        const HostSlice &call = hl.slices[probe.flowTargets().front().index];
        QCOMPARE(call.thread, range.thread);
        QVERIFY(call.startNs >= range.startNs && call.endNs <= range.endNs);
    }
    QVERIFY2(view.selectionSummary().contains(summary), qPrintable(view.selectionSummary()));
}

void TestTraceLanes::clickSelectsAndShowsTheFlow()
{
    QVERIFY(m_resnetSmall);
    TraceLanesView view;
    view.resize(1200, 800);
    view.setRun(m_resnetSmall.get());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    // The first conv kernel: 1.0404 s … 1.0419 s on device 0, stream 7.
    view.setViewRange(1'040'000'000.0, 1'042'500'000.0);
    const int row = view.gpuRow(0, 0, 0);
    QVERIFY(row >= 0);
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPointF(xOf(view, 1'041'000'000.0), yOfRow(view, row)).toPoint());
    QVERIFY(view.selected().gpu());
    QCOMPARE(view.sliceName(view.selected()), QStringLiteral("implicit_convolve_sgemm"));
    QCOMPARE(int(view.flowTargets().size()), 1);
    // The call sits at depth 5, hidden while the thread is collapsed: the flow ends on its
    // thread's deepest shown row, above the GPU row.
    const int callRow = view.sliceRow(view.flowTargets().front());
    QVERIFY(callRow >= 0 && callRow < row);
    QCOMPARE(view.hostRow(0, 0, 5), -1);
    QCOMPARE(callRow, view.hostRow(0, 0, TraceLanesView::kCollapsedDepths - 1));
    // Escape clears.
    QTest::keyClick(&view, Qt::Key_Escape);
    QVERIFY(!view.selected().valid());
    QVERIFY(view.flowTargets().empty());
}

void TestTraceLanes::keysZoomAndPan_data()
{
    QTest::addColumn<int>("key");
    QTest::addColumn<double>("spanFactor");  // visible span after / before
    QTest::addColumn<int>("direction");      // -1: the view moves earlier, +1 later, 0 stays centred
    QTest::newRow("W zooms in") << int(Qt::Key_W) << 1.0 / 1.25 << 0;
    QTest::newRow("S zooms out") << int(Qt::Key_S) << 1.25 << 0;
    QTest::newRow("A pans earlier") << int(Qt::Key_A) << 1.0 << -1;
    QTest::newRow("D pans later") << int(Qt::Key_D) << 1.0 << 1;
}

void TestTraceLanes::keysZoomAndPan()
{
    QFETCH(int, key);
    QFETCH(double, spanFactor);
    QFETCH(int, direction);
    QVERIFY(m_resnetSmall);
    TraceLanesView view;
    view.resize(1000, 600);
    view.setRun(m_resnetSmall.get());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setViewRange(1'050'000'000.0, 1'100'000'000.0);
    const double a = view.viewStartNs(), b = view.viewEndNs();
    QSignalSpy changed(&view, &TraceLanesView::viewRangeChanged);
    // The mouse is not over the view: the keys act on its centre.
    QTest::keyClick(&view, Qt::Key(key));
    QVERIFY(changed.count() >= 1);
    const double a2 = view.viewStartNs(), b2 = view.viewEndNs();
    QVERIFY2(std::abs((b2 - a2) / (b - a) - spanFactor) < 1e-6, qPrintable(QString::number((b2 - a2) / (b - a))));
    if (direction == 0)
        QVERIFY(std::abs((a2 + b2) / 2 - (a + b) / 2) < (b - a) * 1e-6);
    else
        QVERIFY(direction < 0 ? a2 < a - (b - a) * 0.05 : a2 > a + (b - a) * 0.05);
}

void TestTraceLanes::wheelZoomsAtTheCursor()
{
    QVERIFY(m_resnetSmall);
    TraceLanesView view;
    view.resize(1000, 600);
    view.setRun(m_resnetSmall.get());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setViewRange(1'000'000'000.0, 1'100'000'000.0);
    const double x = xOf(view, 1'030'000'000.0);
    const QPointF at(x, 100);
    QWheelEvent wheel(at, view.mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&view, &wheel);
    // The time under the cursor stays; the span shrinks by one step.
    QVERIFY(std::abs(xOf(view, 1'030'000'000.0) - x) < 0.5);
    QVERIFY(std::abs((view.viewEndNs() - view.viewStartNs()) - 100'000'000.0 / 1.25) < 1.0);
}

void TestTraceLanes::dragPans()
{
    QVERIFY(m_resnetSmall);
    TraceLanesView view;
    view.resize(1000, 600);
    view.setRun(m_resnetSmall.get());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setViewRange(1'000'000'000.0, 1'100'000'000.0);
    const double nsPerPx = (view.viewEndNs() - view.viewStartNs()) / view.trackWidthPx();
    const QPoint from(600, 60), to(500, 60);
    QTest::mousePress(&view, Qt::LeftButton, {}, from);
    QMouseEvent move(QEvent::MouseMove, QPointF(to), view.mapToGlobal(QPointF(to)), Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&view, &move);
    QTest::mouseRelease(&view, Qt::LeftButton, {}, to);
    // Dragged 100 px left: the view moved 100 px later.
    QVERIFY(std::abs(view.viewStartNs() - (1'000'000'000.0 + 100 * nsPerPx)) < nsPerPx);
    QVERIFY(!view.selected().valid());  // a drag selects nothing
}

void TestTraceLanes::searchFindsSlices_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("matches");  // as the script writes the events
    const auto s = [](const char *text) { return QString::fromLatin1(text); };
    QTest::newRow("dataloader, any case") << s("dataloader") << 2;
    QTest::newRow("host op") << s("aten::cudnn_convolution") << 20;
    QTest::newRow("kernel") << s("wgrad") << 8;
    // conv2d, convolution, cudnn_convolution ×10, the backward's two ops, a step; the conv kernels.
    QTest::newRow("host and GPU") << s("conv") << 2 * (10 * 3 + 2) + 20;
    QTest::newRow("nothing") << s("no such op") << 0;
}

void TestTraceLanes::searchFindsSlices()
{
    QFETCH(QString, text);
    QFETCH(int, matches);
    QVERIFY(m_resnetSmall);
    TraceLanesView view;
    view.resize(1200, 800);
    view.setRun(m_resnetSmall.get());
    QCOMPARE(view.setSearchText(text), matches);
    for (int i = 0; i < view.searchMatchCount(); ++i) {
        QVERIFY(view.sliceName(view.match(i)).contains(text, Qt::CaseInsensitive));
        if (i > 0)
            QVERIFY(view.sliceStartNs(view.match(i - 1)) <= view.sliceStartNs(view.match(i)));
    }
    if (matches == 0)
        return;
    // Next selects the first, brings it into view, and wraps after the last.
    view.nextMatch();
    QCOMPARE(view.currentMatch(), 0);
    QCOMPARE(view.selected(), view.match(0));
    QVERIFY(view.sliceStartNs(view.match(0)) < view.viewEndNs() && view.sliceEndNs(view.match(0)) > view.viewStartNs());
    const QPointF p = view.slicePoint(view.match(0));
    QCOMPARE(view.sliceAt(p), view.match(0));
    view.previousMatch();
    QCOMPARE(view.currentMatch(), matches - 1);
    view.nextMatch();
    QCOMPARE(view.currentMatch(), 0);
}

void TestTraceLanes::searchField()
{
    QVERIFY(m_resnetSmall);
    TimelineView tab(new TimelinePanel);
    tab.resize(1200, 900);
    tab.setRun(m_resnetSmall.get());
    QSignalSpy searched(tab.lanes(), &TraceLanesView::searchChanged);
    QTest::keyClicks(tab.searchField(), QStringLiteral("enumerate"));
    QVERIFY(searched.wait(2000));  // the field waits for typing to pause
    QCOMPARE(tab.lanes()->searchMatchCount(), 2);
    QTest::keyClick(tab.searchField(), Qt::Key_Return);
    QCOMPARE(tab.lanes()->currentMatch(), 0);
    QCOMPARE(tab.matchText(), QStringLiteral("1 of 2"));
}

void TestTraceLanes::rangeBudgetMatchesIndependentCount_data()
{
    // hostlanes-resnet.expected: make_host_lanes_fixture.py's own unions over the events.
    QTest::addColumn<QStringList>("fields");
    QFile expected(test::dataPath(QStringLiteral("timeline/hostlanes-resnet.expected")));
    QVERIFY(expected.open(QIODevice::ReadOnly));
    int n = 0;
    for (const QByteArray &line : expected.readAll().split('\n')) {
        if (line.isEmpty() || line.startsWith('#'))
            continue;
        const QStringList fields = QString::fromLatin1(line).split(QLatin1Char(' '));
        QTest::newRow(qPrintable(QStringLiteral("%1…%2").arg(fields[0], fields[1]))) << fields;
        ++n;
    }
    QVERIFY(n >= 4);
}

void TestTraceLanes::rangeBudgetMatchesIndependentCount()
{
    QFETCH(QStringList, fields);
    QVERIFY(m_resnetSmall);
    TraceLanesView view;
    view.setRun(m_resnetSmall.get());
    const qint64 a = fields[0].toLongLong(), b = fields[1].toLongLong();
    QSignalSpy changed(&view, &TraceLanesView::rangeChanged);
    view.setSelectedRange(a, b);
    QCOMPARE(changed.count(), 1);
    const TimelineRangeValues v = view.rangeValues(0, 0, a, b);
    QCOMPARE(v.windowNs, b - a);
    QCOMPARE(v.busyNs, fields[2].toLongLong());
    QCOMPARE(v.idleNs, fields[3].toLongLong());
    QCOMPARE(v.hostActiveNs, fields[4].toLongLong());
    QCOMPARE(v.idleHostBusyNs, fields[5].toLongLong());
    QCOMPARE(v.idleDataLoadingNs, fields[6].toLongLong());
    QCOMPARE(v.idleNothingNs, v.idleNs - v.idleHostBusyNs);
    QVERIFY(view.rangeSummary().contains(QStringLiteral("data wait")));
}

void TestTraceLanes::rangeOfAStepEqualsItsBar()
{
    // The per-step values (timelineanalysis' sweep) and the range index are two computations of
    // one definition: over a step's window they agree to the nanosecond.
    if (!m_resnetReal)
        m_resnetReal = load(QStringLiteral("torch/kineto_2021_resnet50_steps6to8.json.gz"));
    QVERIFY(m_resnetReal);
    TraceLanesView view;
    view.setRun(m_resnetReal.get());
    const DeviceTimelineAnalysis &d = m_resnetReal->torchTimeline.devices.at(0);
    QCOMPARE(int(d.perStep.size()), 3);
    for (std::size_t s = 0; s < d.stepWindows.size(); ++s) {
        const TimeInterval w = d.stepWindows[s];
        const TimelineRangeValues v = view.rangeValues(int(d.fileIndex), int(d.deviceIndex), w.startNs, w.endNs);
        QCOMPARE(v.busyNs, d.perStep[s].busyNs);
        QCOMPARE(v.idleNs, d.perStep[s].idleNs);
        QCOMPARE(v.idleHostBusyNs, d.perStep[s].idleHostBusyNs);
        QCOMPARE(v.idleDataLoadingNs, d.perStep[s].idleDataLoadingNs);
        QCOMPARE(v.idleNothingNs, d.perStep[s].idleNothingNs);
        QVERIFY(v.idleDataLoadingNs > 50'000'000);  // the DataLoader stall: > 50 ms a step
    }
}

void TestTraceLanes::shiftDragSelectsARange()
{
    QVERIFY(m_resnetSmall);
    const auto shown = shownTimeline(m_resnetSmall.get());
    QVERIFY(shown);
    TimelineView &tab = *shown;
    TraceLanesView &view = *tab.lanes();
    view.setViewRange(1'000'000'000.0, 1'100'000'000.0);
    const QPoint from(int(xOf(view, 1'020'000'000.0)), 80), to(int(xOf(view, 1'070'000'000.0)), 80);
    QTest::mousePress(&view, Qt::LeftButton, Qt::ShiftModifier, from);
    QMouseEvent move(QEvent::MouseMove, QPointF(to), view.mapToGlobal(QPointF(to)), Qt::NoButton, Qt::LeftButton,
                     Qt::ShiftModifier);
    QApplication::sendEvent(&view, &move);
    QTest::mouseRelease(&view, Qt::LeftButton, Qt::ShiftModifier, to);
    QVERIFY(view.selectedRange());
    const double nsPerPx = (view.viewEndNs() - view.viewStartNs()) / view.trackWidthPx();
    QVERIFY(std::abs(double(view.selectedRange()->startNs) - 1'020'000'000.0) <= nsPerPx);
    QVERIFY(std::abs(double(view.selectedRange()->endNs) - 1'070'000'000.0) <= nsPerPx);
    QVERIFY2(tab.rangeText().contains(QStringLiteral("GPU busy")), qPrintable(tab.rangeText()));
    // F fits the view to the range.
    QTest::keyClick(&view, Qt::Key_F);
    QVERIFY(std::abs(view.viewStartNs() - double(view.selectedRange()->startNs)) < 1.0);
}

void TestTraceLanes::selectionLineNamesTheLaunch()
{
    QVERIFY(m_resnetSmall);
    const auto shown = shownTimeline(m_resnetSmall.get());
    QVERIFY(shown);
    TimelineView &tab = *shown;
    QVERIFY(tab.selectionText().startsWith(QStringLiteral("Click a slice")));
    TraceLanesView &view = *tab.lanes();
    // The first conv kernel (1.0404 s … 1.0419 s, device 0, stream 7), clicked.
    view.setViewRange(1'040'000'000.0, 1'042'500'000.0);
    const int row = view.gpuRow(0, 0, 0);
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPointF(xOf(view, 1'041'000'000.0), yOfRow(view, row)).toPoint());
    QVERIFY2(tab.selectionText().contains(QStringLiteral("launched by cudaLaunchKernel in aten::cudnn_convolution")),
             qPrintable(tab.selectionText()));
    QVERIFY(tab.selectionText().contains(QStringLiteral("GPU 0, stream 7")));
    QVERIFY(tab.selectionText().size() < 200);
    QTest::keyClick(&view, Qt::Key_Escape);
    QVERIFY(tab.selectionText().startsWith(QStringLiteral("Click a slice")));
}

void TestTraceLanes::selectionLineCutsLongNamesInTheMiddle()
{
    // A rocprofv3 run with its HIP API trace: kernel names up to 717 characters (Python's csv
    // over trace.csv). The line keeps both ends of the name and what launched the kernel.
    const auto run = load(QStringLiteral("apitraces/rocprof-lanes"));
    QVERIFY(run);
    TraceLanesView view;
    view.setRun(run.get());
    const GpuTimelineFile *f = view.file(0);
    QVERIFY(f && !f->devices.empty());
    int longNames = 0;
    for (quint32 i = 0; i < quint32(f->devices[0].events.size()); ++i) {
        const TraceLanesView::SliceRef k{0, 0, i};
        const QString name = view.sliceName(k);
        if (name.size() <= TraceLanesView::kSummaryNameChars)
            continue;
        ++longNames;
        view.select(k);
        const QString line = view.selectionSummary();
        QVERIFY2(line.startsWith(name.left(TraceLanesView::kSummaryNameChars / 2 - 1) + QStringLiteral("…")
                                 + name.right(TraceLanesView::kSummaryNameChars / 2) + QStringLiteral(" — GPU kernel")),
                 qPrintable(line));
        QVERIFY2(line.contains(QStringLiteral("launched by hip")), qPrintable(line));
    }
    QVERIFY(longNames > 0);
}

void TestTraceLanes::deeperLevelsOnExpandOrZoom()
{
    QVERIFY(m_resnetSmall);
    TraceLanesView view;
    view.resize(1200, 800);
    view.setRun(m_resnetSmall.get());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    // Collapsed: the main thread shows four of its six depths; its label says so.
    QVERIFY(view.hostRow(0, 0, 3) >= 0);
    QCOMPARE(view.hostRow(0, 0, 4), -1);
    QVERIFY(view.rowLabel(view.hostRow(0, 0, 3)).contains(QStringLiteral("2 deeper")));
    // A click on the thread's label expands it.
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPointF(20, yOfRow(view, view.hostRow(0, 0, 0))).toPoint());
    QVERIFY(view.hostRow(0, 0, 5) >= 0);
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPointF(20, yOfRow(view, view.hostRow(0, 0, 0))).toPoint());
    QCOMPARE(view.hostRow(0, 0, 5), -1);
    // Zoomed in below kAllDepthsNs every depth shows.
    view.setViewRange(1'040'000'000.0, 1'041'000'000.0);
    QVERIFY(view.hostRow(0, 0, 5) >= 0);
    view.showWholeRun();
    QCOMPARE(view.hostRow(0, 0, 5), -1);
}

void TestTraceLanes::pickedBarZoomsTheLanes()
{
    QVERIFY(m_resnetSmall);
    TimelineView tab(new TimelinePanel);
    tab.resize(1200, 900);
    tab.setRun(m_resnetSmall.get());
    QVERIFY(!tab.panel()->stripShown());  // the lanes show the events
    // A new run opens on the whole run (the panel's first bar is shown, not picked).
    QVERIFY(tab.lanes()->viewStartNs() <= double(tab.lanes()->runStartNs()));
    QVERIFY(tab.lanes()->viewEndNs() >= double(tab.lanes()->runEndNs()));
    tab.panel()->showStrip(0, 1);
    const auto w = tab.panel()->stepWindow(0, 1);
    QVERIFY(w);
    QCOMPARE(w->startNs, qint64(1'100'000'000));
    QVERIFY(tab.lanes()->viewStartNs() <= double(w->startNs) && tab.lanes()->viewStartNs() > double(w->startNs) - 5e6);
    QVERIFY(tab.lanes()->viewEndNs() >= double(w->endNs) && tab.lanes()->viewEndNs() < double(w->endNs) + 5e6);
}

void TestTraceLanes::scopeLine()
{
    QVERIFY(m_resnetSmall);
    TimelineView tab(new TimelinePanel);
    tab.setRun(m_resnetSmall.get());
    const QString scope = tab.scopeText();
    for (const QString &part : {QStringLiteral("torch_profile.json"), QStringLiteral("1 GPU (d0)"), QStringLiteral("2 steps"),
                                QStringLiteral("2 host threads")})
        QVERIFY2(scope.contains(part), qPrintable(scope));
}

void TestTraceLanes::gpusInDeviceOrder()
{
    // The generated Nsight export lists device 1's kernels first: rows and scope line still read
    // d0 before d1.
    const auto run = load(QStringLiteral("nsys/generated-2gpu.sqlite"));
    QVERIFY(run);
    TraceLanesView view;
    view.setRun(run.get());
    const GpuTimelineFile *f = view.file(0);
    QVERIFY(f && f->devices.size() == 2);
    const int d0 = f->devices[0].device == 0 ? 0 : 1, d1 = 1 - d0;
    QCOMPARE(f->devices[std::size_t(d0)].device, qint64(0));
    QVERIFY(view.gpuRow(0, d0, 0) >= 0);
    QVERIFY(view.gpuRow(0, d0, 0) < view.gpuRow(0, d1, 0));
    QVERIFY2(view.scopeText().contains(QStringLiteral("2 GPUs (d0, d1)")), qPrintable(view.scopeText()));
}

void TestTraceLanes::scopeSaysWhenNoStepMarks()
{
    // rocmProfileData's matmul sample: HIP calls and kernels, no marker naming a step.
    const auto run = load(QStringLiteral("rpd/matmul_result.rpd"));
    QVERIFY(run);
    TraceLanesView view;
    view.setRun(run.get());
    QVERIFY2(view.scopeText().contains(QStringLiteral(" · no step marks · ")), qPrintable(view.scopeText()));
    QVERIFY(!view.scopeText().contains(QStringLiteral("0 steps")));
}

void TestTraceLanes::ranksOnTheirOwnClocksAreAligned()
{
    // Four make_run traces, each with its own epoch: 3685.56 s, 3693.34 s, 3701.13 s, 3708.89 s
    // (first events, Python over the raw files), each span under 50 ms. As recorded they sit
    // seconds apart; aligned, every rank's first ProfilerStep starts with rank 0's.
    const auto run = load(QStringLiteral("runs/ranks-4traces"));
    QVERIFY(run);
    TraceLanesView view;
    view.resize(1200, 900);
    view.setRun(run.get());
    QCOMPARE(int(run->torch.timeline.files.size()), 4);
    QVERIFY(view.ranksAligned());
    QVERIFY2(view.scopeText().contains(QStringLiteral("aligned at first step (clocks apart)")),
             qPrintable(view.scopeText()));
    QVERIFY(view.runEndNs() - view.runStartNs() < 100'000'000);
    std::vector<qint64> firstSteps;
    for (int fi = 0; fi < 4; ++fi) {
        const HostLanes *hl = view.hostLanes(fi);
        QVERIFY(hl);
        qint64 first = std::numeric_limits<qint64>::max();
        for (std::size_t i = 0; i < hl->slices.size(); ++i)
            if (hl->slices[i].kind == HostSliceKind::Step)
                first = std::min(first, view.sliceStartNs({fi, -1, quint32(i)}));
        firstSteps.push_back(first);
    }
    QCOMPARE(firstSteps[1], firstSteps[0]);
    QCOMPARE(firstSteps[2], firstSteps[0]);
    QCOMPARE(firstSteps[3], firstSteps[0]);
    // A click lands on the shifted kernel of the last file.
    const GpuTimelineFile &last = *view.file(3);
    QVERIFY(!last.devices.empty() && last.devices[0].events.size() > 0);
    const TraceLanesView::SliceRef kernel{3, 0, 0};
    view.setViewRange(double(view.sliceStartNs(kernel)) - 20'000.0, double(view.sliceEndNs(kernel)) + 20'000.0);
    const int row = view.sliceRow(kernel);
    QVERIFY(row >= 0);
    view.setThreadExpanded(0, 0, false);
    QVERIFY(view.sliceAt(view.slicePoint(kernel)).valid());
    QCOMPARE(view.sliceAt(view.slicePoint(kernel)).file, 3);
    // As recorded: the four epochs, over 23 s apart.
    view.setRankAlignment(TraceLanesView::RankAlignment::AsRecorded);
    QVERIFY(!view.ranksAligned());
    QVERIFY(!view.scopeText().contains(QStringLiteral("aligned")));
    QVERIFY(view.runEndNs() - view.runStartNs() > 23'000'000'000);

    // The Timeline's "Align ranks" button shows the state and switches it.
    const auto shown = shownTimeline(run.get());
    QVERIFY(shown);
    TimelineView &tab = *shown;
    QToolButton *align = tab.alignRanksButton();
    QVERIFY(align->isVisible());
    QVERIFY(align->isChecked());
    QVERIFY(tab.scopeText().contains(QStringLiteral("aligned")));
    align->click();
    QVERIFY(!align->isChecked());
    QVERIFY(!tab.lanes()->ranksAligned());
    QVERIFY(!tab.scopeText().contains(QStringLiteral("aligned")));
    align->click();
    QVERIFY(tab.lanes()->ranksAligned());
    QVERIFY2(tab.scopeText().endsWith(QStringLiteral("aligned at first step")), qPrintable(tab.scopeText()));
    // One file: nothing to align, no button.
    tab.setRun(m_resnetSmall.get());
    QVERIFY(!align->isVisible());
}

void TestTraceLanes::ranksOnOneClockStayAsRecorded()
{
    // make_collective_ranks.py: four ranks on one clock (every file from 1.7e15 µs).
    const auto run = load(QStringLiteral("collectives/ranks4-seq"));
    QVERIFY(run);
    TraceLanesView view;
    view.setRun(run.get());
    QVERIFY(run->torch.timeline.files.size() >= 2);
    QVERIFY(!view.ranksAligned());
    const qint64 recordedSpan = view.runEndNs() - view.runStartNs();
    QVERIFY(recordedSpan < 100'000'000);
    // Forced: shifted to the first file's anchor, and said so.
    view.setRankAlignment(TraceLanesView::RankAlignment::FirstStep);
    QVERIFY(view.ranksAligned());
    QVERIFY2(view.scopeText().endsWith(QStringLiteral("aligned at first step")), qPrintable(view.scopeText()));
}

void TestTraceLanes::ranksCountingFromOtherBaseTimesShareOneClock()
{
    // Kineto 2024+ counts each trace's timestamps from its own baseTimeNanoseconds (rounded to
    // the second). Rank 1 started profiling one second later: the same instant reads 1 s less in
    // its trace. Its step starts 50 µs after rank 0's; on the bases' common clock they overlap and
    // stay as recorded, 50 µs apart.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto write = [&](int rank, qint64 baseSeconds, double stepTsUs) {
        const QString json = QStringLiteral(
            R"({"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": %1, "world_size": 2},
"traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 10, "tid": 10, "ts": %3, "dur": 100000},
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 10, "tid": 10, "ts": %4, "dur": 50},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 10, "ts": %5, "dur": 10, "args": {"correlation": 5}},
{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": %6, "dur": 80000, "args": {"device": 0, "stream": 7, "correlation": 5}}
],
"baseTimeNanoseconds": %2})")
                                 .arg(rank)
                                 .arg(baseSeconds * 1'000'000'000)
                                 .arg(stepTsUs, 0, 'f', 3)
                                 .arg(stepTsUs + 10, 0, 'f', 3)
                                 .arg(stepTsUs + 20, 0, 'f', 3)
                                 .arg(stepTsUs + 100, 0, 'f', 3);
        QFile f(dir.filePath(QStringLiteral("rank-%1.pt.trace.json").arg(rank)));
        return f.open(QIODevice::WriteOnly) && f.write(json.toUtf8()) > 0;
    };
    QVERIFY(write(0, 1'733'126'400, 2'000'000.0));
    QVERIFY(write(1, 1'733'126'401, 1'000'050.0));
    const auto run = load(dir.path());
    QVERIFY(run);
    QCOMPARE(int(run->torch.timeline.files.size()), 2);
    TraceLanesView view;
    view.setRun(run.get());
    QVERIFY(!view.ranksAligned());
    std::vector<qint64> stepStart(2, -1);
    for (int fi = 0; fi < 2; ++fi) {
        const HostLanes *hl = view.hostLanes(fi);
        QVERIFY(hl);
        const int step = firstOfKind(*hl, HostSliceKind::Step);
        QVERIFY(step >= 0);
        const int rank = view.file(fi)->rank.value_or(-1);
        QVERIFY(rank == 0 || rank == 1);
        stepStart[std::size_t(rank)] = view.sliceStartNs({fi, -1, quint32(step)});
    }
    QCOMPARE(stepStart[1] - stepStart[0], qint64(50'000));
}

void TestTraceLanes::emptyRun()
{
    TimelineView tab(new TimelinePanel);
    tab.resize(800, 600);
    tab.setRun(nullptr);
    QCOMPARE(tab.lanes()->rowCount(), 0);
    QVERIFY(!tab.scopeText().isEmpty());
    QImage image(tab.size(), QImage::Format_ARGB32);
    tab.render(&image);  // draws without a run
    QTest::keyClick(tab.lanes(), Qt::Key_W);
    QCOMPARE(tab.lanes()->setSearchText(QStringLiteral("x")), 0);
    QVERIFY(!tab.lanes()->sliceAt(QPointF(400, 100)).valid());
}

QTEST_MAIN(TestTraceLanes)
#include "tst_tracelanes.moc"
