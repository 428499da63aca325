// The Timeline of a rocprofv3-only run (no torch trace): the host lanes come from its HIP API and
// marker traces, above the kernel trace's GPU streams on the same boot clock, and a kernel flows to
// the HIP call that launched it (Correlation_Id) and back. Fixture apitraces/rocprof-lanes; the
// expected numbers are scripts/hostlanes_count.py's (tests/data/PROVENANCE.md).

#include "results/hostlanes.h"
#include "runanalysis.h"
#include "testsupport.h"
#include "timelinepanel.h"
#include "timelineview.h"
#include "torchtraceparser.h"
#include "tracelanesview.h"

#include <QImage>
#include <QtTest>

using namespace goblin;

class TestApiTraceLanes : public QObject
{
    Q_OBJECT

private slots:
    // The window's reading: the host lanes are kept (torchtraceparser.h, setKeepHostLanes).
    void initTestCase()
    {
        setKeepHostLanes(true);
        const LoadResult loaded = loadRun(test::dataPath(QStringLiteral("apitraces/rocprof-lanes")));
        QVERIFY2(loaded.run, qPrintable(loaded.error));
        m_run = loaded.run;
    }

    void hostLanesAboveTheGpuStreams()
    {
        TraceLanesView view;
        view.resize(1366, 700);
        view.setRun(m_run.get());
        QVERIFY(!view.showsTorchTrace());  // the kernel trace's timeline, with its own host
        const HostLanes *hl = view.hostLanes(0);
        QVERIFY(hl);
        QCOMPARE(hl->threads.size(), std::size_t(1));
        QCOMPARE(hl->threads[0].tid, qint64(4242));
        const int stepRow = view.hostRow(0, 0, 0);
        const int gpuRow = view.gpuRow(0, 0, 0);
        QVERIFY(stepRow >= 0 && gpuRow >= 0);
        QVERIFY(stepRow < gpuRow);
        // The outermost lane holds the 4 "step N" ranges and the steps of the panel are the same.
        int steps = 0;
        for (const HostSlice &s : hl->slices)
            steps += s.kind == HostSliceKind::Step && s.depth == 0;
        QCOMPARE(steps, 4);
        QCOMPARE(view.steps().size(), std::size_t(4));
        QVERIFY(view.scopeText().contains(QStringLiteral("1 host thread")));
        // The run shown starts no later than the first step and ends no earlier than the last kernel.
        QVERIFY(view.runStartNs() <= hl->slices[0].startNs);
    }

    void kernelFlowsToItsHipCallAndBack()
    {
        TraceLanesView view;
        view.resize(1366, 700);
        view.setRun(m_run.get());
        const GpuTimelineFile &f = *view.file(0);
        QCOMPARE(f.devices.size(), std::size_t(1));
        // The first kernel by start: correlation 1, launched by hipExtModuleLaunchKernel.
        quint32 first = 0;
        for (quint32 i = 1; i < f.devices[0].events.size(); ++i)
            if (f.devices[0].events[i].startNs < f.devices[0].events[first].startNs)
                first = i;
        QCOMPARE(f.devices[0].events[first].startNs, qint64(2745948891083579));
        const TraceLanesView::SliceRef kernel{0, 0, first};
        view.select(kernel);
        QCOMPARE(int(view.flowTargets().size()), 1);
        const TraceLanesView::SliceRef call = view.flowTargets().front();
        QVERIFY(!call.gpu());
        QCOMPARE(view.sliceName(call), QStringLiteral("hipExtModuleLaunchKernel"));
        QCOMPARE(view.sliceStartNs(call), qint64(2745948891038658));
        // The call lies inside the "forward" marker range of step 0 on the same thread.
        bool inForward = false;
        for (const TraceLanesView::SliceRef &s : view.hostSlicesAt(0, 0, view.sliceStartNs(call)))
            inForward = inForward || view.sliceName(s) == QLatin1String("forward");
        QVERIFY(inForward);
        view.select(call);
        QCOMPARE(int(view.flowTargets().size()), 1);
        QCOMPARE(view.flowTargets().front(), kernel);
        // Every one of the 80 kernels flows to one HIP call.
        int flowing = 0;
        for (quint32 i = 0; i < f.devices[0].events.size(); ++i) {
            view.select({0, 0, i});
            flowing += view.flowTargets().size() == 1;
        }
        QCOMPARE(flowing, 80);
    }

    void clickAKernelShowsItsFlow()
    {
        TimelineView tab(new TimelinePanel);
        tab.resize(1366, 768);
        tab.setRun(m_run.get());
        tab.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tab));
        TraceLanesView &view = *tab.lanes();
        const GpuTimelineFile &f = *view.file(0);
        quint32 first = 0;
        for (quint32 i = 1; i < f.devices[0].events.size(); ++i)
            if (f.devices[0].events[i].startNs < f.devices[0].events[first].startNs)
                first = i;
        const GpuEvent e = f.devices[0].events[first];
        view.setViewRange(double(e.startNs) - 100'000.0, double(e.endNs) + 100'000.0);
        const TraceLanesView::SliceRef kernel{0, 0, first};
        QTest::mouseClick(&view, Qt::LeftButton, {}, view.slicePoint(kernel).toPoint());
        QCOMPARE(view.selected(), kernel);
        QCOMPARE(int(view.flowTargets().size()), 1);
        QVERIFY(view.sliceRow(view.flowTargets().front()) < view.sliceRow(kernel));
        QImage image(tab.size(), QImage::Format_ARGB32);
        tab.render(&image);  // draws the lanes and the arrow
        QVERIFY(!image.isNull());
    }

private:
    std::shared_ptr<const RunAnalysis> m_run;
};

QTEST_MAIN(TestApiTraceLanes)
#include "tst_apitracelanes.moc"
