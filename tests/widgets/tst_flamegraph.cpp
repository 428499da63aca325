// The launch flame graph (issue 24 item 4): frames laid out with widths proportional to their
// weight, zoom and back, search highlights, the GPU/host switch and the empty states, driven
// through the widget as a user drives it (mouse clicks on the canvas). Set
// GOBLIN_TEST_GRAB_DIR to keep pictures in light and dark palettes.

#include "attributionfixture.h"
#include "flamegraph.h"

#include <QComboBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>

using namespace goblin;

namespace
{

int nodeNamed(const LaunchTree &tree, const QString &name, int nth = 0)
{
    for (std::size_t i = 0; i < tree.nodes.size(); ++i)
        if (tree.nodes[i].name == name && nth-- == 0)
            return int(i);
    return -1;
}

const FlameGraph::Box *boxOf(const FlameGraph &graph, int node)
{
    for (const FlameGraph::Box &b : graph.boxes())
        if (b.node == node)
            return &b;
    return nullptr;
}

struct Shown {
    FlameGraph graph;
    Shown()
    {
        graph.resize(1000, 400);
        graph.setRun(test::makeAttributedRun());
        graph.show();
    }
    double canvasWidth() const { return double(graph.canvas()->width()); }
    int node(const char *name, int nth = 0) const { return nodeNamed(*graph.tree(), QString::fromUtf8(name), nth); }
};

QPalette darkPalette()
{
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    dark.setColor(QPalette::WindowText, QColor(0xee, 0xee, 0xee));
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::AlternateBase, QColor(0x26, 0x26, 0x26));
    dark.setColor(QPalette::Text, QColor(0xee, 0xee, 0xee));
    dark.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
    dark.setColor(QPalette::ButtonText, QColor(0xee, 0xee, 0xee));
    dark.setColor(QPalette::Mid, QColor(0x60, 0x60, 0x60));
    dark.setColor(QPalette::PlaceholderText, QColor(0xa0, 0xa0, 0xa0));
    dark.setColor(QPalette::Highlight, QColor(0x3d, 0x7a, 0xd6));
    dark.setColor(QPalette::HighlightedText, Qt::white);
    dark.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x80, 0x80, 0x80));
    dark.setColor(QPalette::Disabled, QPalette::Text, QColor(0x80, 0x80, 0x80));
    dark.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x80, 0x80, 0x80));
    return dark;
}

} // namespace

class TestFlameGraph : public QObject
{
    Q_OBJECT
private slots:
    void widthsProportionalToGpuTime_data();
    void widthsProportionalToGpuTime();
    void rootAtTheBottom();
    void hostSwitchChangesWidths();
    void clickZoomsAndSelects();
    void searchHighlights();
    void scopeSwitch();
    void tooltip();
    void emptyStates_data();
    void emptyStates();
    void grabForALook();
};

void TestFlameGraph::widthsProportionalToGpuTime_data()
{
    QTest::addColumn<QString>("frame");
    QTest::addColumn<int>("nth");
    QTest::addColumn<double>("fraction");
    QTest::addColumn<int>("depth");
    // Fractions of the root's 9.5 ms of attributed GPU time.
    QTest::newRow("module") << QStringLiteral("nn.Module: Model_0") << 0 << 8.5 / 9.5 << 1;
    QTest::newRow("annotation") << QStringLiteral("Optimizer.step#SGD.step") << 0 << 1.0 / 9.5 << 1;
    QTest::newRow("sub-module") << QStringLiteral("nn.Module: Linear_0") << 0 << 6.0 / 9.5 << 2;
    QTest::newRow("op") << QStringLiteral("aten::addmm") << 1 << 2.0 / 9.5 << 4;
    QTest::newRow("kernel") << test::gemmKernelA() << 0 << 6.0 / 9.5 << 5;
}

void TestFlameGraph::widthsProportionalToGpuTime()
{
    QFETCH(QString, frame);
    QFETCH(int, nth);
    QFETCH(double, fraction);
    QFETCH(int, depth);
    Shown s;
    QVERIFY(QTest::qWaitForWindowExposed(&s.graph));
    const FlameGraph::Box *root = boxOf(s.graph, 0);
    QVERIFY(root);
    QCOMPARE(root->rect.width(), s.canvasWidth());
    const FlameGraph::Box *box = boxOf(s.graph, nodeNamed(*s.graph.tree(), frame, nth));
    QVERIFY(box);
    QVERIFY(qAbs(box->rect.width() - fraction * s.canvasWidth()) < 1e-6);
    QCOMPARE(box->depth, depth);
    QVERIFY(!box->match);
    QVERIFY(!box->dimmed);
}

void TestFlameGraph::rootAtTheBottom()
{
    Shown s;
    QVERIFY(QTest::qWaitForWindowExposed(&s.graph));
    const FlameGraph::Box *root = boxOf(s.graph, 0);
    const FlameGraph::Box *model = boxOf(s.graph, s.node("nn.Module: Model_0"));
    QVERIFY(root && model);
    QCOMPARE(root->rect.bottom(), double(s.graph.canvas()->height()));
    QCOMPARE(model->rect.bottom(), root->rect.top());
    // Children side by side, sorted by name ("O" before "n"): the optimizer annotation, then the module.
    const FlameGraph::Box *optim = boxOf(s.graph, s.node("Optimizer.step#SGD.step"));
    QCOMPARE(optim->rect.left(), 0.0);
    QCOMPARE(model->rect.left(), optim->rect.right());
    QCOMPARE(model->rect.right(), s.canvasWidth());
}

void TestFlameGraph::hostSwitchChangesWidths()
{
    Shown s;
    QVERIFY(QTest::qWaitForWindowExposed(&s.graph));
    const int model = s.node("nn.Module: Model_0");
    const int kernel = nodeNamed(*s.graph.tree(), test::gemmKernelA());
    QVERIFY(qAbs(boxOf(s.graph, model)->rect.width() - 8.5 / 9.5 * s.canvasWidth()) < 1e-6);
    // Through the combo, as a user switches it: host 6 ms of the root's 8 ms.
    s.graph.weightCombo()->setCurrentIndex(1);
    QCOMPARE(s.graph.weight(), FlameGraph::Weight::HostTime);
    QVERIFY(qAbs(boxOf(s.graph, model)->rect.width() - 6.0 / 8.0 * s.canvasWidth()) < 1e-6);
    QVERIFY(!boxOf(s.graph, kernel)); // GPU events spend no host time: no box
    s.graph.setWeight(FlameGraph::Weight::GpuTime);
    QVERIFY(boxOf(s.graph, kernel));
}

void TestFlameGraph::clickZoomsAndSelects()
{
    Shown s;
    QVERIFY(QTest::qWaitForWindowExposed(&s.graph));
    QSignalSpy selected(&s.graph, &FlameGraph::frameSelected);
    const int linear0 = s.node("nn.Module: Linear_0");
    QTest::mouseClick(s.graph.canvas(), Qt::LeftButton, {}, boxOf(s.graph, linear0)->rect.center().toPoint());
    QCOMPARE(s.graph.zoomNode(), linear0);
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.at(0).at(0).toString(), QStringLiteral("nn.Module: Linear_0"));
    QCOMPARE(selected.at(0).at(1).value<FrameKind>(), FrameKind::Module);
    // The zoomed frame and what it launched span the width; its ancestors stay below as full bars.
    QCOMPARE(boxOf(s.graph, linear0)->rect.width(), s.canvasWidth());
    QCOMPARE(boxOf(s.graph, s.node("aten::addmm"))->rect.width(), s.canvasWidth());
    QCOMPARE(boxOf(s.graph, 0)->rect.width(), s.canvasWidth());
    QCOMPARE(boxOf(s.graph, s.node("nn.Module: Model_0"))->rect.width(), s.canvasWidth());
    QVERIFY(!boxOf(s.graph, s.node("nn.Module: ReLU_0")));
    QVERIFY(!boxOf(s.graph, s.node("Optimizer.step#SGD.step")));
    QVERIFY2(s.graph.breadcrumb().startsWith(QStringLiteral("all › nn.Module: Model_0 › nn.Module: Linear_0")),
             qPrintable(s.graph.breadcrumb()));

    // Zoom further into the op, then back, then out through the root bar.
    const int addmm = s.node("aten::addmm");
    QTest::mouseClick(s.graph.canvas(), Qt::LeftButton, {}, boxOf(s.graph, addmm)->rect.center().toPoint());
    QCOMPARE(s.graph.zoomNode(), addmm);
    QCOMPARE(selected.count(), 2);
    QCOMPARE(selected.at(1).at(1).value<FrameKind>(), FrameKind::Op);
    s.graph.back();
    QCOMPARE(s.graph.zoomNode(), linear0);
    QTest::mouseClick(s.graph.canvas(), Qt::LeftButton, {}, boxOf(s.graph, 0)->rect.center().toPoint());
    QCOMPARE(s.graph.zoomNode(), 0);
    QCOMPARE(selected.count(), 2); // the root is no frame to filter on
    QVERIFY(boxOf(s.graph, s.node("Optimizer.step#SGD.step")));
}

void TestFlameGraph::searchHighlights()
{
    Shown s;
    QVERIFY(QTest::qWaitForWindowExposed(&s.graph));
    QTest::keyClicks(s.graph.searchEdit(), QStringLiteral("ADDMM"));
    const int addmm0 = s.node("aten::addmm", 0), addmm1 = s.node("aten::addmm", 1);
    QVERIFY(boxOf(s.graph, addmm0)->match);
    QVERIFY(boxOf(s.graph, addmm1)->match);
    QVERIFY(!boxOf(s.graph, 0)->match);
    QVERIFY(!boxOf(s.graph, 0)->dimmed);                                               // below a match
    QVERIFY(!boxOf(s.graph, nodeNamed(*s.graph.tree(), test::gemmKernelB()))->dimmed); // above one
    QVERIFY(boxOf(s.graph, s.node("nn.Module: ReLU_0"))->dimmed);
    QVERIFY(boxOf(s.graph, s.node("aten::mm"))->dimmed);
    QCOMPARE(s.graph.searchSummary(), QStringLiteral("2 frame(s) match: 8.000 ms (84.2 %)"));
    s.graph.setSearchText(QStringLiteral("no such frame"));
    QCOMPARE(s.graph.searchSummary(), QStringLiteral("no frame matches"));
    s.graph.searchEdit()->clear();
    for (const FlameGraph::Box &b : s.graph.boxes())
        QVERIFY(!b.match && !b.dimmed);
    QCOMPARE(s.graph.searchSummary(), QString());
}

void TestFlameGraph::scopeSwitch()
{
    Shown s;
    QVERIFY(QTest::qWaitForWindowExposed(&s.graph));
    QCOMPARE(s.graph.scopeCombo()->count(), 3);
    s.graph.zoomTo(s.node("nn.Module: Linear_1"));
    s.graph.scopeCombo()->setCurrentIndex(1);
    QCOMPARE(s.graph.scopeIndex(), 1);
    QCOMPARE(s.graph.zoomNode(), 0); // another scope, another tree
    QCOMPARE(s.graph.weightOf(0), 4'750'000);
    QVERIFY(s.graph.breadcrumb().contains(QLatin1String("4.750 ms GPU time")));
    const FlameGraph::Box *model = boxOf(s.graph, s.node("nn.Module: Model_0"));
    QVERIFY(qAbs(model->rect.width() - 4.25 / 4.75 * s.canvasWidth()) < 1e-6);
}

void TestFlameGraph::tooltip()
{
    Shown s;
    const QString tip = s.graph.toolTipFor(s.node("nn.Module: Linear_0"));
    QVERIFY2(tip.contains(QLatin1String("<b>nn.Module: Linear_0</b>")), qPrintable(tip));
    QVERIFY2(tip.contains(QLatin1String("module")), qPrintable(tip));
    QVERIFY2(tip.contains(QLatin1String("GPU time launched: 6.000 ms (63.2 % of the graph)")), qPrintable(tip));
    QVERIFY2(tip.contains(QLatin1String("host time: 2.000 ms (25.0 % of the graph)")), qPrintable(tip));
}

void TestFlameGraph::emptyStates_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("note");
    QTest::newRow("no run") << 0 << QStringLiteral("No run is open.");
    QTest::newRow("no torch trace") << 1 << QStringLiteral("no torch.profiler trace");
    QTest::newRow("no CPU ops") << 2 << QStringLiteral("no CPU ops");
    QTest::newRow("no GPU events") << 3 << QStringLiteral("no GPU events");
    QTest::newRow("CPU ops, no GPU events") << 4 << QStringLiteral("CPU ops but no GPU events");
}

void TestFlameGraph::emptyStates()
{
    QFETCH(int, kind);
    QFETCH(QString, note);
    Shown s;
    std::shared_ptr<RunAnalysis> run;
    if (kind >= 1)
        run = std::make_shared<RunAnalysis>();
    if (kind >= 2)
        run->torch.file.relativePath = QStringLiteral("torch_profile.json");
    if (kind >= 3) {
        run->torch.attribution.available = true;
        run->torch.attribution.wholeTrace.launches.nodes.push_back(LaunchNode{});
    }
    if (kind >= 4)
        run->torch.attribution.wholeTrace.ops.push_back(OpStats{QStringLiteral("aten::empty"), {}, 1, 10, 10, 0, 0, 0, 0, false, {}, {}});
    s.graph.setRun(run);
    QVERIFY(s.graph.boxes().empty());
    QVERIFY2(s.graph.emptyNote().contains(note), qPrintable(s.graph.emptyNote()));
    // A run with data clears the note again.
    s.graph.setRun(test::makeAttributedRun());
    QVERIFY(s.graph.emptyNote().isEmpty());
    QVERIFY(!s.graph.boxes().empty());
}

void TestFlameGraph::grabForALook()
{
    const QString dir = qEnvironmentVariable("GOBLIN_TEST_GRAB_DIR");
    if (dir.isEmpty())
        QSKIP("set GOBLIN_TEST_GRAB_DIR to keep pictures");
    for (const bool dark : {false, true}) {
        Shown s;
        if (dark)
            s.graph.setPalette(darkPalette());
        s.graph.setAutoFillBackground(true);
        QVERIFY(QTest::qWaitForWindowExposed(&s.graph));
        const QString suffix = dark ? QStringLiteral("dark") : QStringLiteral("light");
        QCoreApplication::processEvents(); // let the labels' layout follow before the picture
        QVERIFY(s.graph.grab().save(dir + QStringLiteral("/flamegraph-%1.png").arg(suffix)));
        s.graph.setSearchText(QStringLiteral("addmm"));
        QCoreApplication::processEvents(); // let the labels' layout follow before the picture
        QVERIFY(s.graph.grab().save(dir + QStringLiteral("/flamegraph-search-%1.png").arg(suffix)));
        s.graph.setSearchText(QString());
        s.graph.zoomTo(s.node("nn.Module: Model_0"));
        s.graph.setWeight(FlameGraph::Weight::HostTime);
        QCoreApplication::processEvents(); // let the labels' layout follow before the picture
        QVERIFY(s.graph.grab().save(dir + QStringLiteral("/flamegraph-zoom-host-%1.png").arg(suffix)));
    }
}

QTEST_MAIN(TestFlameGraph)
#include "tst_flamegraph.moc"
