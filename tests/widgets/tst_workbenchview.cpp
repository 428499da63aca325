// The dashboard follows threshold drags live (issue 3, points 4–6): a drag on the telemetry
// plot's threshold line, done with mouse events, changes the thresholds, the budget chart and
// table, the verdict and the panel, as computeWasteBudget says for the same inputs.

#include "aboutinfo.h"
#include "advicepanel.h"
#include "budgetchart.h"
#include "budgetformula.h"
#include "liveanalysis.h"
#include "plotstyle.h"
#include "testsupport.h"
#include "modelroles.h"
#include "telemetryplot.h"
#include "thresholdeditor.h"
#include "thresholdgauge.h"
#include "thresholdpanel.h"
#include "wastebudgetmodel.h"
#include "windowfixture.h"
#include "workbenchsession.h"
#include "workbenchview.h"

#include <QAction>
#include <QDialog>
#include <QListWidget>
#include <QSplitter>
#include <QStackedWidget>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QTextBrowser>
#include <QToolButton>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSlider>
#include <QTableView>
#include <QApplication>
#include <QRegularExpression>
#include <QTest>

using namespace goblin;

namespace {

struct Dashboard {
    WorkbenchSession session;
    WorkbenchView view{&session};
    ThresholdPanel panel{&session};
    std::shared_ptr<RunAnalysis> run = test::makeFakeRun();

    Dashboard()
    {
        view.resize(1400, 1000);
        view.show();
        session.openRun(run);
        TelemetryPlot *plot = view.telemetryPlot();
        plot->replot();  // lays the axis rects out, so pixels map to values
    }
};

/// Every bar of the chart and every row of the budget table against computeWasteBudget.
void verifyBudgetShown(Dashboard &d, const Thresholds &thresholds)
{
    d.session.live()->flush();
    const BudgetInputs &in = d.run->workbench.budgetInputs;
    const WasteBudget expected = computeWasteBudget(in, thresholds);
    QCOMPARE(d.session.live()->metrics().wasteBudget, expected);
    const BudgetChart *chart = d.view.budgetChartView()->budgetChart();
    double base = 0.0;
    for (int i = 0; i < WasteBudget::BucketCount; ++i) {
        QVERIFY(qAbs(chart->valueSeconds(i) - expected.bucket(i)) <= 1e-12);
        QVERIFY(qAbs(chart->baseSeconds(i) - base) <= 1e-12);
        base += expected.bucket(i);
        const QModelIndex cell = d.session.budget()->index(i, WasteBudgetModel::SecondsColumn);
        QCOMPARE(cell.data(SortRole).toDouble(), expected.bucket(i));
        QCOMPARE(chart->formula(i), bucketFormula(i, expected, HeuristicsProfile::Workbench));
    }
    QCOMPARE(chart->valueSeconds(kStepTimeRow), in.stepTimeS);
    QCOMPARE(d.view.verdictLabel()->text(), budgetVerdict(expected, in.stepTimeS));
    // Every bucket's mark beside its bar and in the table: where its number came from.
    for (int i = 0; i < WasteBudget::BucketCount; ++i) {
        QCOMPARE(chart->markText(i), valueStateMark(expected.state(i)));
        QCOMPARE(d.session.budget()->index(i, WasteBudgetModel::StateColumn).data().toString(),
                 valueStateMark(expected.state(i)));
    }
}

/// The fake run with one of its inputs unknown (`what`), its telemetry's HBM peak the budget's.
std::shared_ptr<RunAnalysis> fakeRunWithout(const QString &what)
{
    auto run = test::makeFakeRun(QStringLiteral("without-") + what);
    run->smi.workbench.hbmPeakGb = 100.0;  // the quantity the hints read, as the budget's input
    BudgetInputs &in = run->workbench.budgetInputs;
    if (what == QLatin1String("host"))
        in.hostBusyKnown = false;
    else if (what == QLatin1String("util"))
        in.gpuUtilKnown = false;
    else if (what == QLatin1String("hbm")) {
        in.hbmPeakGb.reset();
        run->smi.workbench.hbmPeakGb.reset();
    }
    return run;
}

} // namespace

class TestWorkbenchView : public QObject
{
    Q_OBJECT
private slots:
    void initialBudget();
    void dragGpuUtilLineWithMouse();
    void dragHbmTargetLine();
    void dragHostBusyGauge();
    void panelFollowsAndEdits();
    void undoMovesLinesBack();
    void searchIsDebounced();
    void profileSwitch();
    void dragReachesEveryViewWithOneRecompute();
    void dragPastTheScaleIsClampedByTheEditor();
    void unmeasuredUtilisationHasItsOwnBar();
    void unknownReadsAsDash_data();
    void unknownReadsAsDash();
    void caveatLeadsTheVerdict();
    void definitionsButton();
    void aboutNamesVersions();
    void aboutNamesTheRunsGpus_data();
    void aboutNamesTheRunsGpus();
    void followsDarkPalette();
    void viewSwitchingByKeyboard_data();
    void viewSwitchingByKeyboard();
    void addedViewGetsAPageAndAKey();
    void layoutRemembered();
    void topAdviceLinksToAdviceView();
    void everyViewFitsAtLaptopSize();
};

void TestWorkbenchView::initialBudget()
{
    Dashboard d;
    verifyBudgetShown(d, Thresholds{});
    TelemetryPlot *plot = d.view.telemetryPlot();
    QCOMPARE(plot->gpuCount(), 2);
    QCOMPARE(plot->utilGraph(0)->dataCount(), 20);
    QCOMPARE(plot->hbmGraph(1)->data()->at(0)->value, 65.0);
    QCOMPARE(plot->gpuUtilLinePct(), 30.0);
    QCOMPARE(plot->hbmTargetLineGb(), 0.7 * 192.0);
    QVERIFY(d.session.live()->metrics().wasteBudget.dataWait > 0.0);
}

void TestWorkbenchView::dragGpuUtilLineWithMouse()
{
    Dashboard d;
    TelemetryPlot *plot = d.view.telemetryPlot();
    QSignalSpy dragged(plot, &TelemetryPlot::thresholdDragged);
    QSignalSpy metrics(d.session.live(), &LiveAnalysis::metricsChanged);
    const int replotsBefore = plot->overlayReplots();
    const QPoint start = plot->linePosition(TelemetryPlot::Line::GpuUtil).toPoint();
    QCOMPARE(plot->lineAt(start), TelemetryPlot::Line::GpuUtil);

    // Down past the run's 25 % utilisation in several moves: data wait stops counting.
    QTest::mousePress(plot, Qt::LeftButton, Qt::NoModifier, start);
    QCOMPARE(plot->draggedLine(), TelemetryPlot::Line::GpuUtil);
    const double yAt20 = plot->utilRect()->axis(QCPAxis::atLeft)->coordToPixel(20.0);
    const QPoint end(start.x(), int(std::lround(yAt20)));
    for (int step = 1; step <= 5; ++step) {
        const QPoint p(start.x(), start.y() + (end.y() - start.y()) * step / 5);
        QTest::mouseMove(plot, p);
    }
    QTest::mouseRelease(plot, Qt::LeftButton, Qt::NoModifier, end);
    QCOMPARE(plot->draggedLine(), TelemetryPlot::Line::None);
    QVERIFY(dragged.count() >= 5);

    const double expectedPct = plot->valueAt(TelemetryPlot::Line::GpuUtil, end);
    QVERIFY2(qAbs(expectedPct - 20.0) < 1.0,  // within a pixel of 20 %
             qPrintable(QStringLiteral("%1 %, util panel %2 px high").arg(expectedPct).arg(plot->utilRect()->height())));
    QCOMPARE(d.session.live()->thresholds().gpuUtilBelowPct, expectedPct);
    QCOMPARE(plot->gpuUtilLinePct(), expectedPct);
    QCOMPARE(plot->utilLineItem()->point1->coords().y(), expectedPct);
    QCOMPARE(d.session.editor()->undoStack()->count(), 1);  // the whole drag is one undo step

    Thresholds expected;
    expected.gpuUtilBelowPct = expectedPct;
    verifyBudgetShown(d, expected);
    QCOMPARE(d.session.live()->metrics().wasteBudget.dataWait, 0.0);
    QVERIFY(metrics.count() >= 1);
    // Only the threshold layer was repainted; the sample graphs were not rebuilt.
    QTRY_VERIFY(plot->overlayReplots() > replotsBefore);
    QCOMPARE(plot->utilGraph(0)->dataCount(), 20);
}

void TestWorkbenchView::dragHbmTargetLine()
{
    Dashboard d;
    TelemetryPlot *plot = d.view.telemetryPlot();
    const QPointF start = plot->linePosition(TelemetryPlot::Line::HbmTarget);
    QVERIFY(plot->beginLineDrag(start));
    // 50 % of 192 GB = 96 GB, under the run's 100 GB peak: no headroom left.
    const double y = plot->hbmRect()->axis(QCPAxis::atLeft)->coordToPixel(96.0);
    plot->dragLineTo(QPointF(start.x(), y));
    plot->endLineDrag();
    const double pct = d.session.live()->thresholds().hbmTargetPct;
    QVERIFY(qAbs(pct - 50.0) < 1.0);
    QCOMPARE(plot->hbmTargetLineGb(), pct / 100.0 * 192.0);
    Thresholds expected;
    expected.hbmTargetPct = pct;
    verifyBudgetShown(d, expected);
    QCOMPARE(d.session.live()->metrics().wasteBudget.memoryHeadroom, 0.0);
}

void TestWorkbenchView::dragHostBusyGauge()
{
    Dashboard d;
    ThresholdGauge *gauge = d.view.hostBusyGauge();
    QCOMPARE(gauge->value(), 0.6);
    const int y = int(gauge->scaleRect().center().y());
    QTest::mousePress(gauge, Qt::LeftButton, Qt::NoModifier, QPoint(int(gauge->xForValue(0.5)), y));
    QTest::mouseMove(gauge, QPoint(int(gauge->xForValue(0.7)), y));
    const QPoint end(int(gauge->xForValue(0.8)), y);
    QTest::mouseRelease(gauge, Qt::LeftButton, Qt::NoModifier, end);
    const double expected = gauge->valueForX(end.x());
    QCOMPARE(d.session.live()->thresholds().hostBusyAbove, expected);
    QCOMPARE(d.session.editor()->undoStack()->count(), 1);
    Thresholds t;
    t.hostBusyAbove = expected;
    verifyBudgetShown(d, t);
    QCOMPARE(d.session.live()->metrics().wasteBudget.dataWait, 0.0);  // 0.6 is not above ~0.8
}

void TestWorkbenchView::panelFollowsAndEdits()
{
    Dashboard d;
    TelemetryPlot *plot = d.view.telemetryPlot();
    QVERIFY(plot->beginLineDrag(plot->linePosition(TelemetryPlot::Line::GpuUtil)));
    plot->dragLineTo(QPointF(0, plot->utilRect()->axis(QCPAxis::atLeft)->coordToPixel(45.0)));
    plot->endLineDrag();
    const double pct = d.session.live()->thresholds().gpuUtilBelowPct;
    QCOMPARE(d.panel.spinBox(ThresholdField::GpuUtilBelow)->value(), std::round(pct * 10.0) / 10.0);
    QCOMPARE(d.panel.slider(ThresholdField::GpuUtilBelow)->value(),
             ThresholdPanel::sliderPosition(ThresholdField::GpuUtilBelow, pct));

    // The spin box edits the same threshold the line shows.
    d.panel.spinBox(ThresholdField::HbmTarget)->setValue(60.0);
    QCOMPARE(d.session.live()->thresholds().hbmTargetPct, 60.0);
    QCOMPARE(plot->hbmTargetLineGb(), 0.6 * 192.0);
    d.panel.slider(ThresholdField::HeadroomWeight)->setValue(200);  // 0.2
    QCOMPARE(d.session.live()->thresholds().headroomWeight, 0.2);
    Thresholds expected = d.session.live()->thresholds();
    verifyBudgetShown(d, expected);
}

void TestWorkbenchView::undoMovesLinesBack()
{
    Dashboard d;
    TelemetryPlot *plot = d.view.telemetryPlot();
    d.session.editor()->changeValue(ThresholdField::GpuUtilBelow, 70.0);
    d.session.editor()->endGesture();
    QCOMPARE(plot->gpuUtilLinePct(), 70.0);
    d.session.editor()->undoStack()->undo();
    QCOMPARE(plot->gpuUtilLinePct(), 30.0);
    QCOMPARE(d.panel.spinBox(ThresholdField::GpuUtilBelow)->value(), 30.0);
    verifyBudgetShown(d, Thresholds{});
}

void TestWorkbenchView::searchIsDebounced()
{
    Dashboard d;
    QTableView *table = d.view.kernelTable();
    QCOMPARE(table->model()->rowCount(table->rootIndex()), 5);
    QTest::keyClicks(d.view.searchEdit(), QStringLiteral("gemm"));
    QCOMPARE(table->model()->rowCount(table->rootIndex()), 5);  // not yet: debounced
    QTRY_COMPARE_WITH_TIMEOUT(table->model()->rowCount(table->rootIndex()), 2, 2000);
    QCOMPARE(table->rootIndex().data().toString(), QStringLiteral("fake-run"));
}

void TestWorkbenchView::profileSwitch()
{
    Dashboard d;
    d.session.live()->setProfile(HeuristicsProfile::Reference);
    QCOMPARE(d.view.budgetChartView()->budgetChart()->valueSeconds(3), 0.5);  // reference comm excess
    QTableView *table = d.view.kernelTable();
    QCOMPARE(table->model()->rowCount(table->rootIndex()), 4);
}

void TestWorkbenchView::aboutNamesVersions()
{
    QVERIFY(QRegularExpression(QStringLiteral("^\\d+\\.\\d+\\.\\d+$")).match(simdjsonVersion()).hasMatch());
    const QString text = aboutText(QStringLiteral("9.8.7"));
    QVERIFY(text.contains(QStringLiteral("9.8.7")));
    QVERIFY(text.contains(QString::fromLatin1(qVersion())));
    QVERIFY(text.contains(simdjsonVersion()));
}

/// Issue 26: About names the GPUs of the open run (the traces' deviceProperties, counted over the
/// ranks' traces; else the telemetry's GPU count), never a fixed model.
void TestWorkbenchView::aboutNamesTheRunsGpus_data()
{
    QTest::addColumn<QStringList>("rank0");
    QTest::addColumn<QStringList>("rank1");
    QTest::addColumn<int>("telemetryGpus");
    QTest::addColumn<QString>("expected");
    QTest::newRow("one trace, one GPU") << QStringList{"AMD Instinct MI250X"} << QStringList{} << 0
                                        << "AMD Instinct MI250X";
    QTest::newRow("two ranks, same GPU") << QStringList{"AMD Instinct MI300X"} << QStringList{"AMD Instinct MI300X"}
                                         << 2 << "AMD Instinct MI300X ×2";
    QTest::newRow("two kinds") << QStringList{"NVIDIA H100 80GB HBM3", "AMD Radeon Graphics"} << QStringList{} << 0
                               << "NVIDIA H100 80GB HBM3, AMD Radeon Graphics";
    QTest::newRow("telemetry only") << QStringList{} << QStringList{} << 4 << "4 GPUs in the telemetry";
    QTest::newRow("nothing names one") << QStringList{} << QStringList{} << 0 << "not named in";
}

void TestWorkbenchView::aboutNamesTheRunsGpus()
{
    QFETCH(QStringList, rank0);
    QFETCH(QStringList, rank1);
    QFETCH(int, telemetryGpus);
    QFETCH(QString, expected);
    auto run = test::makeFakeRun();
    run->torch.timeline.files.clear();
    for (const QStringList &names : {rank0, rank1}) {
        if (names.isEmpty())
            continue;
        GpuTimelineFile file;
        file.traits.identity.deviceNames = names;
        run->torch.timeline.files.push_back(file);
    }
    run->smi.gpuCount = telemetryGpus;
    const QString text = aboutText(QStringLiteral("1.2.3"), run.get());
    QVERIFY2(text.contains(expected.toHtmlEscaped()), qPrintable(text));
    if (!expected.contains(QLatin1String("MI300X")))
        QVERIFY2(!text.contains(QLatin1String("MI300X")), qPrintable(text));
    QVERIFY(aboutText(QStringLiteral("1.2.3")).contains(QLatin1String("no run open")));
}

/// A dark desktop theme reaches both chart libraries: backgrounds, text and axes take the
/// palette's colours, and the budget chart switches to a dark Qt Charts theme. Set
/// GOBLIN_TEST_GRAB_DIR to keep a picture of the dark dashboard for a look.
void TestWorkbenchView::followsDarkPalette()
{
    Dashboard d;
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    dark.setColor(QPalette::WindowText, QColor(0xee, 0xee, 0xee));
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::Text, QColor(0xee, 0xee, 0xee));
    dark.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
    dark.setColor(QPalette::ButtonText, QColor(0xee, 0xee, 0xee));
    dark.setColor(QPalette::Mid, QColor(0x60, 0x60, 0x60));
    dark.setColor(QPalette::AlternateBase, QColor(0x26, 0x26, 0x26));
    dark.setColor(QPalette::PlaceholderText, QColor(0x90, 0x90, 0x90));
    QVERIFY(isDarkPalette(dark));
    d.view.setPalette(dark);
    QCoreApplication::processEvents();

    TelemetryPlot *plot = d.view.telemetryPlot();
    for (QCPAxisRect *rect : plot->axisRects()) {
        QCOMPARE(rect->backgroundBrush().color(), dark.color(QPalette::Base));
        for (QCPAxis *axis : rect->axes()) {
            QCOMPARE(axis->tickLabelColor(), dark.color(QPalette::WindowText));
            QCOMPARE(axis->basePen().color(), dark.color(QPalette::WindowText));
        }
    }
    const BudgetChart *chart = d.view.budgetChartView()->budgetChart();
    QCOMPARE(chart->backgroundBrush().color(), dark.color(QPalette::Base));
    QCOMPARE(chart->titleBrush().color(), dark.color(QPalette::WindowText));
    QVERIFY(chart->theme() != QChart::ChartThemeLight);

    const QByteArray grabDir = qgetenv("GOBLIN_TEST_GRAB_DIR");
    if (!grabDir.isEmpty())
        QVERIFY(d.view.grab().save(QString::fromLocal8Bit(grabDir) + QStringLiteral("/dashboard-dark.png")));
}

void TestWorkbenchView::dragReachesEveryViewWithOneRecompute()
{
    Dashboard d;
    TelemetryPlot *plot = d.view.telemetryPlot();
    BudgetChart *chart = d.view.budgetChartView()->budgetChart();
    LiveAnalysis *live = d.session.live();
    QSignalSpy budgetChanged(d.session.budget(), &QAbstractItemModel::dataChanged);
    const quint64 recomputesBefore = live->recomputeCount();
    const quint64 refreshesBefore = chart->refreshCount();
    const QPoint start = plot->linePosition(TelemetryPlot::Line::GpuUtil).toPoint();
    QTest::mousePress(plot, Qt::LeftButton, Qt::NoModifier, start);
    const double yAt20 = plot->utilRect()->axis(QCPAxis::atLeft)->coordToPixel(20.0);
    const QPoint end(start.x(), int(std::lround(yAt20)));
    for (int step = 1; step <= 5; ++step) {
        QTest::mouseMove(plot, QPoint(start.x(), start.y() + (end.y() - start.y()) * step / 5));
        // The line, the panel and the thresholds follow each move, before any recompute.
        const double v = live->thresholds().gpuUtilBelowPct;
        QCOMPARE(plot->gpuUtilLinePct(), v);
        QCOMPARE(d.panel.spinBox(ThresholdField::GpuUtilBelow)->value(), std::round(v * 10.0) / 10.0);
    }
    QTest::mouseRelease(plot, Qt::LeftButton, Qt::NoModifier, end);
    QVERIFY(live->recomputePending());
    QTRY_VERIFY(!live->recomputePending());
    // Five moves in one frame: one recompute, one model update, one chart refresh.
    QCOMPARE(live->recomputeCount() - recomputesBefore, quint64(1));
    QCOMPARE(budgetChanged.count(), 1);
    QCOMPARE(chart->refreshCount() - refreshesBefore, quint64(1));
    Thresholds expected;
    expected.gpuUtilBelowPct = live->thresholds().gpuUtilBelowPct;
    verifyBudgetShown(d, expected);
    QCOMPARE(live->recomputeCount() - recomputesBefore, quint64(1));  // verifying did not recompute
    QCOMPARE(d.session.budget()->index(1, WasteBudgetModel::SecondsColumn).data(SortRole).toDouble(), 0.0);
}

void TestWorkbenchView::dragPastTheScaleIsClampedByTheEditor()
{
    Dashboard d;
    TelemetryPlot *plot = d.view.telemetryPlot();
    QVERIFY(plot->beginLineDrag(plot->linePosition(TelemetryPlot::Line::GpuUtil)));
    const QPointF above(0, plot->utilRect()->axis(QCPAxis::atLeft)->coordToPixel(100.0) - 200.0);
    QVERIFY(plot->valueAt(TelemetryPlot::Line::GpuUtil, above) > 100.0);  // the plot does not clamp
    plot->dragLineTo(above);
    plot->endLineDrag();
    QCOMPARE(d.session.live()->thresholds().gpuUtilBelowPct, 100.0);  // the editor does
    QCOMPARE(plot->gpuUtilLinePct(), 100.0);  // and the line shows the clamped value that came back

    // A plot nobody listens to does not move its own line.
    TelemetryPlot alone;
    alone.resize(800, 600);
    alone.setTelemetry(&d.run->smi);
    alone.setThresholds(30.0, 70.0, 192.0);
    alone.replot();
    QVERIFY(alone.beginLineDrag(alone.linePosition(TelemetryPlot::Line::GpuUtil)));
    alone.dragLineTo(QPointF(0, alone.utilRect()->axis(QCPAxis::atLeft)->coordToPixel(50.0)));
    alone.endLineDrag();
    QCOMPARE(alone.gpuUtilLinePct(), 30.0);
}

void TestWorkbenchView::unmeasuredUtilisationHasItsOwnBar()
{
    Dashboard d;
    const BudgetChart *chart = d.view.budgetChartView()->budgetChart();
    QVERIFY(!chart->rowShown(kUnattributedRow));
    QVERIFY(d.view.budgetTable()->isRowHidden(kUnattributedRow));

    auto unmeasured = test::makeFakeRun(QStringLiteral("no-util"));
    unmeasured->workbench.budgetInputs.gpuUtilKnown = false;
    d.session.openRun(unmeasured);
    const WasteBudget expected = computeWasteBudget(unmeasured->workbench.budgetInputs, Thresholds{});
    QVERIFY(expected.unattributed > 0.0);
    QVERIFY(chart->rowShown(kUnattributedRow));
    QVERIFY(!d.view.budgetTable()->isRowHidden(kUnattributedRow));
    QCOMPARE(chart->valueSeconds(0), 0.0);
    QCOMPARE(chart->valueSeconds(kUnattributedRow), expected.unattributed);
    double base = 0.0;
    for (int i = 0; i < WasteBudget::BucketCount; ++i)
        base += expected.bucket(i);
    QVERIFY(qAbs(chart->baseSeconds(kUnattributedRow) - base) <= 1e-12);  // stacked after the seven
    QVERIFY(chart->categoryLabel(kUnattributedRow).startsWith(QStringLiteral("Unattributed")));
    QVERIFY(chart->formula(kUnattributedRow).startsWith(QStringLiteral("not measured: no GPU utilisation in this run")));
    QVERIFY(chart->formula(0).startsWith(QStringLiteral("0: no GPU utilisation")));
    QVERIFY2(d.view.verdictLabel()->text().contains(QStringLiteral("Useful GPU time: unknown")),
             qPrintable(d.view.verdictLabel()->text()));

    // The reference profile keeps the reference's useful GPU.
    d.session.live()->setProfile(HeuristicsProfile::Reference);
    QVERIFY(!chart->rowShown(kUnattributedRow));
    QCOMPARE(chart->valueSeconds(0),
             computeWasteBudget(unmeasured->reference.budgetInputs, Thresholds{}, HeuristicsProfile::Reference).usefulGpu);
}

/// Issue 23: what nothing measured reads "—" everywhere in the dashboard (budget table, chart
/// label, gauge, plot level, threshold hints), never 0; each mark is "?".
void TestWorkbenchView::unknownReadsAsDash_data()
{
    QTest::addColumn<QString>("what");
    QTest::addColumn<QList<int>>("unknownRows");
    QTest::addColumn<bool>("hostDash");
    QTest::addColumn<bool>("utilDash");
    QTest::addColumn<bool>("hbmDash");
    QTest::newRow("host not traced") << "host" << QList<int>{1, 2} << true << false << false;
    QTest::newRow("utilisation not measured") << "util" << QList<int>{0, 1, 2, 5, 6} << false << true << false;
    QTest::newRow("no memory telemetry") << "hbm" << QList<int>{4} << false << false << true;
    QTest::newRow("everything known") << "nothing" << QList<int>{} << false << false << false;
}

void TestWorkbenchView::unknownReadsAsDash()
{
    QFETCH(QString, what);
    QFETCH(QList<int>, unknownRows);
    QFETCH(bool, hostDash);
    QFETCH(bool, utilDash);
    QFETCH(bool, hbmDash);
    Dashboard d;
    d.session.openRun(fakeRunWithout(what));
    d.session.live()->flush();
    const WasteBudgetModel *model = d.session.budget();
    const BudgetChart *chart = d.view.budgetChartView()->budgetChart();
    const QString dash = QStringLiteral("—");
    for (int row = 0; row < WasteBudget::BucketCount; ++row) {
        const bool unknown = unknownRows.contains(row);
        QCOMPARE(model->rowState(row) == ValueState::Unknown, unknown);
        QCOMPARE(model->index(row, WasteBudgetModel::SecondsColumn).data().toString() == dash, unknown);
        QCOMPARE(model->index(row, WasteBudgetModel::PercentColumn).data().toString() == dash, unknown);
        QCOMPARE(chart->markText(row) == QStringLiteral("?"), unknown);
        QCOMPARE(chart->categoryLabel(row).contains(dash), unknown);
        if (unknown)
            QCOMPARE(chart->valueSeconds(row), 0.0);  // no bar
    }
    ThresholdGauge *gauge = d.view.hostBusyGauge();
    QCOMPARE(gauge->valueText() == dash, hostDash);
    QCOMPARE(std::isnan(gauge->value()), hostDash);
    QCOMPARE(d.panel.runValueLabel(ThresholdField::HostBusyAbove)->text(), hostDash ? QStringLiteral("run: —")
                                                                                   : QStringLiteral("run: 0.60"));
    if (!hostDash)  // a known value says what it covers
        QVERIFY2(!gauge->scope().isEmpty() && gauge->toolTipText().contains(gauge->scope()), qPrintable(gauge->toolTipText()));
    else
        QVERIFY2(gauge->toolTipText().contains(QStringLiteral("unknown")), qPrintable(gauge->toolTipText()));
    TelemetryPlot *plot = d.view.telemetryPlot();
    QCOMPARE(plot->meanUtilLineShown(), !utilDash);
    QCOMPARE(plot->meanUtilText(), utilDash ? QStringLiteral("budget util —") : QStringLiteral("budget util 25.0 %"));
    QCOMPARE(d.panel.runValueLabel(ThresholdField::GpuUtilBelow)->text(), utilDash ? QStringLiteral("run: —")
                                                                                  : QStringLiteral("run: 25.0 %"));
    QVERIFY(!d.panel.runValueLabel(ThresholdField::GpuUtilBelow)->toolTip().isEmpty());
    QCOMPARE(d.panel.runValueLabel(ThresholdField::HbmTarget)->text(), hbmDash ? QStringLiteral("run peak: —")
                                                                              : QStringLiteral("run peak: 52.1 %"));
}

/// A run whose trace cannot carry a verdict says so first: the verdict is runVerdict() (caveat,
/// then the budget's verdict), and the rows the caveat lowered name it as their source.
void TestWorkbenchView::caveatLeadsTheVerdict()
{
    const LoadResult loaded = loadRun(test::dataPath(QStringLiteral("runs/graph-replay-decode")));
    QCOMPARE(int(loaded.outcome), int(LoadOutcome::Finished));
    WorkbenchSession session;
    WorkbenchView view(&session);
    view.resize(1366, 768);
    view.show();
    session.openRun(loaded.run);
    session.live()->flush();
    const Derived &derived = session.live()->derived();
    QVERIFY(!derived.caveat.isEmpty());
    QCOMPARE(view.verdictLabel()->text(), runVerdict(derived));
    QVERIFY(view.verdictLabel()->text().startsWith(derived.caveat));
    int caveated = 0;
    for (int row = 0; row <= kUnattributedRow; ++row)
        if (derived.caveated[std::size_t(row)]) {
            ++caveated;
            QCOMPARE(session.budget()->rowSource(row), derived.caveat);
            QVERIFY(session.budget()->rowToolTip(row).contains(derived.caveat.toHtmlEscaped()));
        }
    QVERIFY(caveated > 0);
}

/// The "?" beside the budget's title opens every row's definition in the shown profile.
void TestWorkbenchView::definitionsButton()
{
    Dashboard d;
    BudgetChartView *view = d.view.budgetChartView();
    QVERIFY(view->helpButton()->isVisible());
    QVERIFY(!view->definitionsDialog());
    QTest::mouseClick(view->helpButton(), Qt::LeftButton);
    QDialog *dialog = view->definitionsDialog();
    QVERIFY(dialog && dialog->isVisible());
    const QString text = dialog->findChild<QTextBrowser *>()->toPlainText();
    const bool measured = d.session.budget()->budget().terms.measured;
    for (int row = 0; row <= kUnattributedRow; ++row)
        QVERIFY2(text.contains(bucketDefinition(row, HeuristicsProfile::Workbench, measured)), qPrintable(text));
    d.session.live()->setProfile(HeuristicsProfile::Reference);
    view->showDefinitions();
    QVERIFY(dialog->findChild<QTextBrowser *>()->toPlainText().contains(
        bucketDefinition(0, HeuristicsProfile::Reference, false)));
    dialog->close();
}

/// Issue 26: every view is a page of its own; Ctrl+1…9 shows the page of that number, Ctrl+Tab
/// and Ctrl+Shift+Tab the next and previous, wrapping, wherever the focus is.
void TestWorkbenchView::viewSwitchingByKeyboard_data()
{
    QTest::addColumn<int>("from");
    QTest::addColumn<int>("key");
    QTest::addColumn<int>("modifiers");
    QTest::addColumn<int>("expected");
    const int ctrl = int(Qt::ControlModifier), ctrlShift = int(Qt::ControlModifier | Qt::ShiftModifier);
    QTest::newRow("Ctrl+1 overview") << int(WorkbenchView::SweepPage) << int(Qt::Key_1) << ctrl
                                     << int(WorkbenchView::OverviewPage);
    QTest::newRow("Ctrl+2 kernels") << 0 << int(Qt::Key_2) << ctrl << int(WorkbenchView::KernelsPage);
    QTest::newRow("Ctrl+3 operators") << 0 << int(Qt::Key_3) << ctrl << int(WorkbenchView::OperatorsPage);
    QTest::newRow("Ctrl+4 flame graph") << 0 << int(Qt::Key_4) << ctrl << int(WorkbenchView::FlameGraphPage);
    QTest::newRow("Ctrl+5 modules") << 0 << int(Qt::Key_5) << ctrl << int(WorkbenchView::ModulesPage);
    QTest::newRow("Ctrl+6 timeline") << 0 << int(Qt::Key_6) << ctrl << int(WorkbenchView::TimelinePage);
    QTest::newRow("Ctrl+7 ranks") << 0 << int(Qt::Key_7) << ctrl << int(WorkbenchView::RanksPage);
    QTest::newRow("Ctrl+8 advice") << 0 << int(Qt::Key_8) << ctrl << int(WorkbenchView::AdvicePage);
    QTest::newRow("Ctrl+9 sweep") << 0 << int(Qt::Key_9) << ctrl << int(WorkbenchView::SweepPage);
    QTest::newRow("Ctrl+Tab next") << 2 << int(Qt::Key_Tab) << ctrl << 3;
    QTest::newRow("Ctrl+Tab wraps") << int(WorkbenchView::BuiltInPageCount) - 1 << int(Qt::Key_Tab) << ctrl << 0;
    QTest::newRow("Ctrl+Shift+Tab previous") << 3 << int(Qt::Key_Backtab) << ctrlShift << 2;
    QTest::newRow("Ctrl+Shift+Tab wraps") << 0 << int(Qt::Key_Backtab) << ctrlShift
                                          << int(WorkbenchView::BuiltInPageCount) - 1;
}

void TestWorkbenchView::viewSwitchingByKeyboard()
{
    QFETCH(int, from);
    QFETCH(int, key);
    QFETCH(int, modifiers);
    QFETCH(int, expected);
    Dashboard d;
    d.view.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&d.view));
    d.view.showView(from);
    QCOMPARE(d.view.currentViewIndex(), from);
    QSignalSpy changed(&d.view, &WorkbenchView::currentViewChanged);
    // From inside a table: the keys are the window's, not the focused widget's.
    d.view.kernelTable()->setFocus();
    QTest::keyClick(QApplication::focusWidget() ? QApplication::focusWidget() : &d.view, Qt::Key(key),
                    Qt::KeyboardModifiers(modifiers));
    QCOMPARE(d.view.currentViewIndex(), expected);
    QCOMPARE(d.view.pages()->currentIndex(), expected);
    QCOMPARE(d.view.viewList()->currentRow(), expected);
    QCOMPARE(changed.count(), from == expected ? 0 : 1);
}

/// The later analysis views come in with one call: a page, a list entry, an action with the next
/// Ctrl+number, and a title the layout remembers it by.
void TestWorkbenchView::addedViewGetsAPageAndAKey()
{
    Dashboard d;
    d.view.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&d.view));
    QSignalSpy rebuilt(&d.view, &WorkbenchView::viewActionsChanged);
    auto *extra = new QLabel(QStringLiteral("extra"));
    const int index = d.view.addAnalysisView(extra, QStringLiteral("Extra"));
    QCOMPARE(index, int(WorkbenchView::BuiltInPageCount));
    QCOMPARE(rebuilt.count(), 1);
    QCOMPARE(d.view.viewCount(), int(WorkbenchView::BuiltInPageCount) + 1);
    QCOMPARE(d.view.viewTitle(index), QStringLiteral("Extra"));
    // Past the ninth view there is no Ctrl+number: the list and Ctrl+Tab reach it.
    bool hasAction = false;
    for (QAction *a : d.view.viewActions())
        if (a->text().contains(QLatin1String("Extra"))) {
            hasAction = true;
            QVERIFY(a->shortcut().isEmpty());
        }
    QVERIFY(hasAction);
    QTest::keyClick(&d.view, Qt::Key_Backtab, Qt::ControlModifier | Qt::ShiftModifier);  // from Overview: the last
    QCOMPARE(d.view.currentView(), extra);
    // Inserted at a position, it moves the later ones down.
    auto *memory = new QLabel(QStringLiteral("memory"));
    QCOMPARE(d.view.addAnalysisView(memory, QStringLiteral("Memory"), 1), 1);
    QCOMPARE(d.view.viewTitle(2), QStringLiteral("Kernels"));
    QTest::keyClick(&d.view, Qt::Key_2, Qt::ControlModifier);
    QCOMPARE(d.view.currentView(), memory);
}

/// The shown view and the splitter sizes survive a restart (MainWindow stores saveLayout() in
/// the settings); an unreadable layout changes nothing.
void TestWorkbenchView::layoutRemembered()
{
    QByteArray saved;
    QList<int> overviewSizes;
    {
        Dashboard d;
        auto *splitter = d.view.findChild<QSplitter *>(QStringLiteral("OverviewSplitter"));
        QVERIFY(splitter);
        d.view.showView(WorkbenchView::OverviewPage);
        QCoreApplication::processEvents();
        const QList<int> before = splitter->sizes();
        const int total = before.value(0) + before.value(1);
        splitter->setSizes({total / 3, total - total / 3});
        overviewSizes = splitter->sizes();
        QVERIFY(overviewSizes != before);
        d.view.showView(WorkbenchView::SweepPage);
        saved = d.view.saveLayout();
    }
    Dashboard e;
    QCOMPARE(e.view.currentViewIndex(), int(WorkbenchView::OverviewPage));
    QVERIFY(!e.view.restoreLayout(QByteArray("not a layout")));
    QCOMPARE(e.view.currentViewIndex(), int(WorkbenchView::OverviewPage));
    QVERIFY(e.view.restoreLayout(saved));
    QCOMPARE(e.view.currentViewIndex(), int(WorkbenchView::SweepPage));
    auto *splitter = e.view.findChild<QSplitter *>(QStringLiteral("OverviewSplitter"));
    e.view.showView(WorkbenchView::OverviewPage);
    QCoreApplication::processEvents();
    QCOMPARE(splitter->sizes(), overviewSizes);
}

/// The largest piece of advice sits under the headline; its link shows the Advice view.
void TestWorkbenchView::topAdviceLinksToAdviceView()
{
    Dashboard d;
    d.session.live()->flush();
    QLabel *top = d.view.topAdviceLabel();
    const std::vector<Advice> &advice = d.view.advicePanel()->advice();
    QVERIFY(!advice.empty());
    QVERIFY(top->isVisible());
    QVERIFY2(top->text().contains(advice.front().text.toHtmlEscaped()), qPrintable(top->text()));
    QVERIFY(top->text().contains(QLatin1String("<a href=")));
    d.view.showView(WorkbenchView::KernelsPage);
    emit top->linkActivated(QStringLiteral("advice"));
    QCOMPARE(d.view.currentView(), static_cast<QWidget *>(d.view.advicePanel()));
    // No run: nothing under the headline.
    d.session.closeRun(d.session.currentRow());
    QVERIFY(!top->isVisible());
}

/// At 1366×768 (a laptop) the whole view — headline, list and the largest page's minimum — fits
/// in what the window leaves it, so no view is squeezed below its minimum (overlapping or cut),
/// and the list names every view in full.
void TestWorkbenchView::everyViewFitsAtLaptopSize()
{
    Dashboard d;
    // The window's chrome (menu, toolbar, status bar, the threshold dock) takes about this much.
    const QSize available(1366 - 330, 768 - 110);
    const QSize min = d.view.minimumSizeHint();
    QVERIFY2(min.width() <= available.width() && min.height() <= available.height(),
             qPrintable(QStringLiteral("needs %1×%2").arg(min.width()).arg(min.height())));
    d.view.resize(available);
    QCoreApplication::processEvents();
    for (int i = 0; i < d.view.viewCount(); ++i) {
        d.view.showView(i);
        QWidget *page = d.view.currentView();
        const QSize pageMin = page->minimumSizeHint().expandedTo(page->minimumSize());
        QVERIFY2(page->width() >= pageMin.width() && page->height() >= pageMin.height(),
                 qPrintable(d.view.viewTitle(i)));
    }
    QListWidget *list = d.view.viewList();
    for (int i = 0; i < list->count(); ++i)
        QVERIFY2(list->fontMetrics().horizontalAdvance(list->item(i)->text()) < list->viewport()->width(),
                 qPrintable(list->item(i)->text()));
}

QTEST_MAIN(TestWorkbenchView)
#include "tst_workbenchview.moc"
