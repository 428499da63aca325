// Several ranks (issue 13 item 3; src/model/timeline/ranks*, src/widgets/rankspanel): per-rank
// budgets equal each rank's trace read on its own, the workbench budget is their mean, the
// straggler is the rank make_run slowed, processes of rocpd databases and per-process CSV files
// are ranks, and the Ranks tab's model and panel follow the thresholds.
//
// Fixture runs/ranks-4traces (tests/data/PROVENANCE.md): four chrome traces made by make_run
// with different seeds, rank 2 with --gap-us 40 --data-wait-ms 8.

#include "heuristics.h"
#include "liveanalysis.h"
#include "modelroles.h"
#include "rankspanel.h"
#include "report.h"
#include "metrics.h"
#include "runanalysis.h"
#include "testsupport.h"
#include "rankanalysis.h"
#include "rankresults.h"
#include "ranksmodel.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace goblin;

namespace {

const QString kFixture = QStringLiteral("runs/ranks-4traces");

std::shared_ptr<const RunAnalysis> load(const QString &dir)
{
    LoadResult r = loadRun(dir);
    if (r.outcome != LoadOutcome::Finished)
        qWarning() << "load failed" << dir << r.error;
    return r.run;
}

bool near(double a, double b, double rel = 1e-12)
{
    return std::fabs(a - b) <= rel * std::max({1e-30, std::fabs(a), std::fabs(b)});
}

Thresholds changedThresholds()
{
    Thresholds t;
    t.gpuUtilBelowPct = 75;
    t.hostBusyAbove = 0.1;
    t.hbmTargetPct = 90;
    t.precision = Precision::Fp16;
    return t;
}

} // namespace

class TestRanks : public QObject
{
    Q_OBJECT

private slots:
    void perRankEqualsItsTraceAlone_data();
    void perRankEqualsItsTraceAlone();
    void runBudgetIsTheMean_data();
    void runBudgetIsTheMean();
    void stragglerIsTheSlowedRank();
    void ranksAgreeWithMakeRunTruth_data();
    void ranksAgreeWithMakeRunTruth();
    void processesAreRanks_data();
    void processesAreRanks();
    void oneRankIsTheRun_data();
    void oneRankIsTheRun();
    void noRanksWithoutKernels();
    void rankStatedTwice();
    void sameTraceTwiceIsOneRank();
    void rankModel();
    void ranksPanel();
};

void TestRanks::perRankEqualsItsTraceAlone_data()
{
    QTest::addColumn<int>("rank");
    QTest::addColumn<QString>("file");
    QTest::newRow("rank 0") << 0 << "rank-0.json.gz";
    QTest::newRow("rank 1") << 1 << "rank-1.json.gz";
    QTest::newRow("rank 2 (slowed)") << 2 << "sampled_rank-2.json.gz";
    QTest::newRow("rank 3") << 3 << "rank-3.json.gz";
}

void TestRanks::perRankEqualsItsTraceAlone()
{
    QFETCH(int, rank);
    QFETCH(QString, file);
    const auto multi = load(test::dataPath(kFixture));
    QVERIFY(multi);
    QTemporaryDir alone;
    QVERIFY(alone.isValid());
    QVERIFY(QFile::copy(test::dataPath(kFixture + QLatin1Char('/') + file), alone.filePath(file)));
    const auto single = load(alone.path());
    QVERIFY(single);

    for (const Thresholds &t : {Thresholds{}, changedThresholds()}) {
        const QJsonObject multiReport = buildReport(*multi, HeuristicsProfile::Workbench, t);
        const QJsonObject singleReport = buildReport(*single, HeuristicsProfile::Workbench, t);
        const QJsonArray ranks = multiReport["ranks"].toArray();
        QCOMPARE(ranks.size(), 4);
        const QJsonObject entry = ranks[rank].toObject();
        QCOMPARE(entry["rank"].toInt(), rank);
        QCOMPARE(entry["file"].toString(), file);
        QCOMPARE(entry["rank_source"].toString(), QStringLiteral("trace"));

        // The rank's own budget is the report of its trace alone, bucket by bucket.
        const QJsonObject own = entry["waste_budget"].toObject();
        const QJsonObject alone = singleReport["metrics"]["waste_budget"].toObject();
        QCOMPARE(own.keys(), alone.keys());
        for (const QString &key : own.keys())
            QVERIFY2(near(own[key].toDouble(), alone[key].toDouble()),
                     qPrintable(QStringLiteral("%1: %2 vs %3").arg(key).arg(own[key].toDouble()).arg(alone[key].toDouble())));
        // And its numbers are the quantities of the trace alone (one value per quantity).
        const QJsonObject q = singleReport["quantities"].toObject();
        const QJsonObject agg = singleReport["aggregates"].toObject();
        QVERIFY(entry["budget_measured"].toBool());
        QVERIFY(near(entry["step_time_s"].toDouble(), q["step_time_s"]["value"].toDouble()));
        QVERIFY(near(entry["host_busy_fraction"].toDouble(), q["host_busy_fraction"]["value"].toDouble()));
        QVERIFY(near(entry["gpu_util_pct"].toDouble(), q["gpu_util_pct"]["value"].toDouble()));
        QCOMPARE(entry["kernels"].toDouble(), agg["kernel_count"].toDouble());

        // Alone, the trace is one rank whose entry is the run's own budget.
        const QJsonArray singleRanks = singleReport["ranks"].toArray();
        QCOMPARE(singleRanks.size(), 1);
        QCOMPARE(singleRanks[0]["waste_budget"].toObject(), alone);
        QCOMPARE(singleReport["rank_spread"]["workbench_budget"].toString(), QStringLiteral("the run's"));
    }
}

void TestRanks::runBudgetIsTheMean_data()
{
    QTest::addColumn<bool>("changed");
    QTest::newRow("default thresholds") << false;
    QTest::newRow("changed thresholds") << true;
}

void TestRanks::runBudgetIsTheMean()
{
    QFETCH(bool, changed);
    const Thresholds t = changed ? changedThresholds() : Thresholds{};
    const auto run = load(test::dataPath(kFixture));
    QVERIFY(run && run->workbench.ranks);
    const RankSet &set = *run->workbench.ranks;
    QCOMPARE(set.ranks.size(), std::size_t(4));
    QVERIFY(set.budgetIsMean);

    // Workbench: the mean of the four ranks' measured budgets, bucket by bucket; each rank's is the
    // mean over its steps of its devices' measured budgets (derived.h).
    const Derived derived = deriveResults(*run, HeuristicsProfile::Workbench, t);
    const WasteBudget &budget = derived.metrics.wasteBudget;
    QVERIFY(derived.budgetMeasured);
    const std::vector<RankResult> &results = derived.ranks;
    QCOMPARE(results.size(), std::size_t(4));
    double stepSum = 0.0;
    for (int b = 0; b < WasteBudget::BucketCount; ++b) {
        double sum = 0.0;
        for (const RankResult &r : results) {
            QVERIFY(r.measured && r.budget.terms.measured);
            sum += r.budget.bucket(b);
        }
        QVERIFY2(near(budget.bucket(b), sum / 4.0), qPrintable(WasteBudget::bucketKey(b)));
    }
    for (const RankResult &r : results)
        stepSum += r.stepTimeS;
    QVERIFY(near(budget.terms.stepS, stepSum / 4.0));
    QVERIFY(budget.commExcess > 0.0);

    const QJsonObject report = buildReport(*run, HeuristicsProfile::Workbench, t);
    for (int b = 0; b < WasteBudget::BucketCount; ++b)
        QCOMPARE(report["metrics"]["waste_budget"][WasteBudget::bucketKey(b)].toDouble(), budget.bucket(b));
    QCOMPARE(report["rank_spread"]["workbench_budget"].toString(), QStringLiteral("mean over ranks"));
    bool said = false;
    for (const QJsonValue &d : report["diagnostics"].toArray())
        said = said || d["message"].toString().contains(QStringLiteral("the workbench budget is the mean of the 4 ranks"));
    QVERIFY(said);

    // The reference profile keeps the reference's single answer (no mean).
    QVERIFY(!run->reference.ranks);
    QCOMPARE(computeMetrics(run->reference, t).wasteBudget,
             computeWasteBudget(run->reference.budgetInputs, t, HeuristicsProfile::Reference));
}

void TestRanks::stragglerIsTheSlowedRank()
{
    const auto run = load(test::dataPath(kFixture));
    QVERIFY(run);
    const QJsonObject report = buildReport(*run, HeuristicsProfile::Workbench, Thresholds{});
    const QJsonObject spread = report["rank_spread"].toObject();
    QCOMPARE(spread["ranks"].toInt(), 4);
    QCOMPARE(spread["kind"].toString(), QStringLiteral("chrome traces"));
    QCOMPARE(spread["step_time_s"]["straggler_rank"].toInt(), 2);
    QCOMPARE(spread["exposed_comm_s_per_step"]["straggler_rank"].toInt(), 2);
    // Rank 2 spends 8 ms per step waiting for data before it reaches the collectives: the most own
    // work per step, so it is the rank the others would wait for (rank_spread.straggler_definition).
    QCOMPARE(spread["own_work_s_per_step"]["straggler_rank"].toInt(), 2);
    QCOMPARE(spread["straggler_rank"].toInt(), 2);
    QVERIFY(spread["straggler_definition"].toString().contains(QStringLiteral("wait")));
    double minStep = 1e9, maxStep = 0.0, minExposed = 1e9, maxExposed = 0.0;
    for (const QJsonValue &v : report["ranks"].toArray()) {
        const double step = v["step_time_s"].toDouble();
        const double exposed = v["exposed_comm_s_per_step"].toDouble();
        minStep = std::min(minStep, step);
        maxStep = std::max(maxStep, step);
        minExposed = std::min(minExposed, exposed);
        maxExposed = std::max(maxExposed, exposed);
        QCOMPARE(v["straggler"].toBool(), v["rank"].toInt() == 2);
    }
    QCOMPARE(spread["step_time_s"]["min"].toDouble(), minStep);
    QCOMPARE(spread["step_time_s"]["max"].toDouble(), maxStep);
    QCOMPARE(spread["exposed_comm_s_per_step"]["min"].toDouble(), minExposed);
    QCOMPARE(spread["exposed_comm_s_per_step"]["max"].toDouble(), maxExposed);
    QVERIFY(maxStep > 1.5 * minStep);  // rank 2 waits 8 ms for data and leaves 40 µs gaps
    const QStringList errors = test::validateJsonSchema(
        report, QJsonDocument::fromJson(test::readAll(QStringLiteral(GOBLIN_SOURCE_DIR "/resources/report.schema.json"))).object());
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
}

void TestRanks::ranksAgreeWithMakeRunTruth_data()
{
    // make_run --truth of each rank: torch_window.step_time_s (the mirrored steps) and
    // collective_exposed_s_per_step_per_gpu (all steps of the run).
    QTest::addColumn<int>("rank");
    QTest::addColumn<double>("stepS");
    QTest::addColumn<double>("exposedS");
    QTest::newRow("rank 0") << 0 << 0.008773848 << 3.9771375e-05;
    QTest::newRow("rank 1") << 1 << 0.005721482666666667 << 1.789375e-05;
    QTest::newRow("rank 2") << 2 << 0.015365902333333334 << 0.000296911125;
    QTest::newRow("rank 3") << 3 << 0.005612256 << 2.4235625e-05;
}

void TestRanks::ranksAgreeWithMakeRunTruth()
{
    QFETCH(int, rank);
    QFETCH(double, stepS);
    QFETCH(double, exposedS);
    const auto run = load(test::dataPath(kFixture));
    QVERIFY(run);
    const std::vector<RankResult> results = deriveResults(*run, HeuristicsProfile::Workbench, Thresholds{}).ranks;
    const RankResult &r = results[std::size_t(rank)];
    QCOMPARE(r.inputs->rank, rank);
    QVERIFY2(std::fabs(r.stepTimeS - stepS) < 0.01 * stepS, qPrintable(QString::number(r.stepTimeS)));
    // Issue 13: exposed communication within 5 % of the step.
    QVERIFY2(std::fabs(r.exposedCommSPerStep - exposedS) < 0.05 * stepS, qPrintable(QString::number(r.exposedCommSPerStep)));
}

void TestRanks::processesAreRanks_data()
{
    QTest::addColumn<QString>("folder");
    QTest::addColumn<QString>("source");
    QTest::newRow("rocpd database, two processes") << "rocpd/merged-rocm7-monwatch-kineto" << "rocpd";
    QTest::newRow("rocpd, one file per process") << "rocpd/split-mixed-flashrocm" << "rocpd";
    QTest::newRow("per-process kernel trace CSV files") << "runs/multiprocess-hostdir" << "trace.csv";
}

void TestRanks::processesAreRanks()
{
    QFETCH(QString, folder);
    QFETCH(QString, source);
    const auto run = load(test::dataPath(folder));
    QVERIFY(run && run->workbench.ranks);
    const RankSet &set = *run->workbench.ranks;
    QCOMPARE(set.kind, QStringLiteral("processes"));
    QCOMPARE(set.ranks.size(), std::size_t(2));
    quint64 kernels = 0;
    for (std::size_t i = 0; i < set.ranks.size(); ++i) {
        const RankInputs &r = set.ranks[i];
        QCOMPARE(r.source, source);
        QCOMPARE(r.rank, int(i));  // process order
        QVERIFY(!r.rankStated);
        QVERIFY(r.pid >= 0);
        QVERIFY(r.kernels > 0);
        kernels += r.kernels;
    }
    QVERIFY(set.ranks[0].pid != set.ranks[1].pid || set.ranks[0].file != set.ranks[1].file);
    // The processes share the run's kernels between them.
    QCOMPARE(qint64(kernels), run->kernels.workbench.rowsUsed);
    const QJsonObject report = buildReport(*run, HeuristicsProfile::Workbench, Thresholds{});
    QCOMPARE(report["ranks"].toArray().size(), 2);
    QCOMPARE(report["ranks"][0]["rank_source"].toString(), QStringLiteral("process order"));
    // Processes of one kernel trace share its clock and the run's reading already takes their
    // kernels per step per GPU: the budget stays the run's (a rocpd database reports as its CSV).
    QVERIFY(!set.budgetIsMean);
    QCOMPARE(report["rank_spread"]["workbench_budget"].toString(), QStringLiteral("the run's"));
    QCOMPARE(computeMetrics(run->workbench, Thresholds{}).wasteBudget,
             computeWasteBudget(run->workbench.budgetInputs, Thresholds{}, HeuristicsProfile::Workbench));
    for (const RankResult &r : rankResults(set, Thresholds{})) {
        QVERIFY(r.stepTimeS > 0.0);
        QCOMPARE(r.budget, computeWasteBudget(r.inputs->analysis.budgetInputs, Thresholds{}, HeuristicsProfile::Workbench));
    }
}

void TestRanks::oneRankIsTheRun_data()
{
    QTest::addColumn<QString>("folder");
    QTest::newRow("make_run folder, one process") << "runs/v3-metric-1gpu";
    QTest::newRow("one rocpd process") << "rocpd/single-v3-metric-1gpu";
    QTest::newRow("trace-only timeline fixture") << "timeline/makerun-4steps";
}

void TestRanks::oneRankIsTheRun()
{
    QFETCH(QString, folder);
    const auto run = load(test::dataPath(folder));
    QVERIFY(run);
    for (const Thresholds &t : {Thresholds{}, changedThresholds()}) {
        const QJsonObject report = buildReport(*run, HeuristicsProfile::Workbench, t);
        const QJsonArray ranks = report["ranks"].toArray();
        QCOMPARE(ranks.size(), 1);
        QCOMPARE(ranks[0]["waste_budget"].toObject(), report["metrics"]["waste_budget"].toObject());
        QCOMPARE(ranks[0]["straggler"].toBool(), false);
        const QJsonObject spread = report["rank_spread"].toObject();
        QCOMPARE(spread["ranks"].toInt(), 1);
        QCOMPARE(spread["step_time_s"]["min"].toDouble(), spread["step_time_s"]["max"].toDouble());
        QCOMPARE(spread["step_time_s"]["straggler_rank"].toInt(), ranks[0]["rank"].toInt());
    }
}

void TestRanks::noRanksWithoutKernels()
{
    // Telemetry only (an empty folder no longer loads: nothing readable, issue 23).
    QTemporaryDir dir;
    QVERIFY(QFile::copy(QStringLiteral(GOBLIN_SOURCE_DIR "/resources/example-run/amd_smi.csv"),
                        dir.filePath(QStringLiteral("amd_smi.csv"))));
    const auto run = load(dir.path());
    QVERIFY(run);
    const QJsonObject report = buildReport(*run, HeuristicsProfile::Workbench, Thresholds{});
    QVERIFY(report["ranks"].toArray().isEmpty());
    QVERIFY(report["rank_spread"].isNull());
}

void TestRanks::rankStatedTwice()
{
    // Two traces whose distributedInfo both say rank 0: rank 1's trace restated as rank 0. Two
    // traces of one rank are not ranks of one job (issue 23): the second is a separate run, named
    // with the reason, outside the run's ranks and budget (it used to be a second rank 0).
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QFile::copy(test::dataPath(kFixture + QStringLiteral("/rank-0.json.gz")), dir.filePath(QStringLiteral("rank-0.json.gz"))));
    QByteArray restated = test::readGunzipped(test::dataPath(kFixture + QStringLiteral("/rank-1.json.gz")));
    const QByteArray stated = "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 1,";
    QVERIFY(restated.contains(stated));
    restated.replace(stated, "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0,");
    QFile file(dir.filePath(QStringLiteral("rank-5.json")));
    QVERIFY(file.open(QIODevice::WriteOnly) && file.write(restated) == restated.size());
    file.close();
    const auto run = load(dir.path());
    QVERIFY(run);
    QVERIFY(!run->workbench.ranks || run->workbench.ranks->ranks.size() == 1);
    QCOMPARE(run->facts.job.separate.size(), std::size_t(1));
    QCOMPARE(run->facts.job.separate[0].file, QStringLiteral("rank-5.json"));
    QVERIFY2(run->facts.job.separate[0].reason.contains(QStringLiteral("rank 0 again")), qPrintable(run->facts.job.separate[0].reason));
    QCOMPARE(run->torch.timeline.files.size(), std::size_t(1));
    QCOMPARE(run->torch.timeline.files[0].file, QStringLiteral("rank-0.json.gz"));
}

void TestRanks::sameTraceTwiceIsOneRank()
{
    // The same trace under two names (a copy): one rank, and a warning naming the copy.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString source = test::dataPath(kFixture + QStringLiteral("/rank-0.json.gz"));
    QVERIFY(QFile::copy(source, dir.filePath(QStringLiteral("rank-0.json.gz"))));
    QVERIFY(QFile::copy(source, dir.filePath(QStringLiteral("rank-5.json.gz"))));
    const auto run = load(dir.path());
    QVERIFY(run);
    bool warned = false;
    for (const Diagnostic &d : run->diagnostics)
        warned = warned || (d.severity == Severity::Warning && d.file == QStringLiteral("rank-5.json.gz")
                            && d.message.contains(QStringLiteral("taken for a copy of it")));
    QVERIFY(warned);
    QVERIFY(!run->workbench.ranks || run->workbench.ranks->ranks.size() == 1);
    // The report of the trace read alone.
    QTemporaryDir alone;
    QVERIFY(QFile::copy(source, alone.filePath(QStringLiteral("rank-0.json.gz"))));
    const auto single = load(alone.path());
    QVERIFY(single);
    // The same metrics but the warnings (which name the copy).
    QJsonObject withCopy = buildReport(*run, HeuristicsProfile::Workbench, Thresholds{})["metrics"].toObject();
    QJsonObject withoutCopy = buildReport(*single, HeuristicsProfile::Workbench, Thresholds{})["metrics"].toObject();
    QCOMPARE(withCopy["warnings"].toArray().size(), withoutCopy["warnings"].toArray().size() + 1);
    withCopy.remove(QStringLiteral("warnings"));
    withoutCopy.remove(QStringLiteral("warnings"));
    QCOMPARE(withCopy, withoutCopy);
}

void TestRanks::rankModel()
{
    const auto run = load(test::dataPath(kFixture));
    QVERIFY(run);
    RanksModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRun(run, deriveResults(*run, HeuristicsProfile::Workbench, Thresholds{}));
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.columnCount(), int(RanksModel::ColumnCount));
    QCOMPARE(model.stragglerRow(), 2);
    QVERIFY(model.data(model.index(2, RanksModel::RankColumn)).toString().contains(QStringLiteral("straggler")));
    QVERIFY(model.data(model.index(2, 0), Qt::BackgroundRole).isValid());
    QVERIFY(!model.data(model.index(1, 0), Qt::BackgroundRole).isValid());
    QCOMPARE(model.headerData(RanksModel::FirstBucketColumn, Qt::Horizontal).toString(), WasteBudget::bucketLabel(0));
    const int hostGap = RanksModel::FirstBucketColumn + 2;
    const double before = model.data(model.index(2, hostGap), RawValueRole).toDouble();
    QCOMPARE(before, deriveResults(*run, HeuristicsProfile::Workbench, Thresholds{}).ranks[2].budget.hostGap);

    // A threshold change updates the numbers in place (no reset), from the per-rank inputs.
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    Thresholds t;
    t.hostBusyAbove = 0.01;
    t.gpuUtilBelowPct = 99;
    model.setDerived(deriveResults(*run, HeuristicsProfile::Workbench, t));
    QCOMPARE(reset.count(), 0);
    QCOMPARE(changed.count(), 1);
    const WasteBudget expected = deriveResults(*run, HeuristicsProfile::Workbench, t).ranks[2].budget;
    QCOMPARE(model.data(model.index(2, RanksModel::FirstBucketColumn + 1), RawValueRole).toDouble(), expected.dataWait);
    QVERIFY(expected.dataWait > 0.0);  // the data-wait gate opens at these thresholds

    model.setRun(nullptr, Derived{});
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(!model.spread());
}

void TestRanks::ranksPanel()
{
    LiveAnalysis live;
    RanksPanel panel(&live);
    panel.resize(1200, 300);
    QCOMPARE(panel.table()->model()->rowCount(), 0);
    live.setRun(load(test::dataPath(kFixture)));
    QCOMPARE(panel.table()->model()->rowCount(), 4);
    QVERIFY2(panel.spreadText().contains(QStringLiteral("Straggler: rank 2")), qPrintable(panel.spreadText()));
    QVERIFY(panel.spreadText().contains(QStringLiteral("mean")));
    // Data wait of rank 0: its measured DataLoader idle at the default thresholds (make_run's 2 ms).
    const double before = panel.model()->data(panel.model()->index(0, RanksModel::FirstBucketColumn + 1), RawValueRole).toDouble();
    QVERIFY(before > 0.0015 && before < 0.0025);
    Thresholds t;
    t.hostBusyAbove = 0.01;
    t.gpuUtilBelowPct = 99;
    live.setThresholds(t);
    live.flush();
    const double after = panel.model()->data(panel.model()->index(0, RanksModel::FirstBucketColumn + 1), RawValueRole).toDouble();
    QVERIFY(after > before);  // the gate opens: host-busy idle joins it, the panel follows the thresholds
    live.setRun(nullptr);
    QCOMPARE(panel.table()->model()->rowCount(), 0);
}

QTEST_MAIN(TestRanks)
#include "tst_ranks.moc"
