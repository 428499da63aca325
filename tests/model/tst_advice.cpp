// Advice in the report: the first advice names the bucket that dominates (data wait on a
// data-bound run, communication on a comm-heavy one), untuned GEMMs are named under kernel shape,
// every advice's seconds equal its bucket, the list is sorted, and none comes without evidence.

#include "advice.h"
#include "report.h"
#include "runanalysis.h"
#include "testsupport.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace goblin;

namespace {

QString runFolder(const QString &name)
{
    return name == QLatin1String("example-run") ? QStringLiteral(GOBLIN_SOURCE_DIR "/resources/example-run")
                                                 : test::dataPath(QStringLiteral("runs/") + name);
}

std::shared_ptr<const RunAnalysis> load(const QString &name)
{
    const LoadResult r = loadRun(runFolder(name));
    return r.outcome == LoadOutcome::Finished ? r.run : nullptr;
}

/// Checks the invariants of one report's advice; returns an empty string or the first problem.
QString adviceProblem(const QJsonObject &report)
{
    const QJsonObject budget = report["metrics"]["waste_budget"].toObject();
    const double step = report["aggregates"]["budget_step_time_seconds"].toDouble();
    const QJsonArray advice = report["advice"].toArray();
    double previous = INFINITY;
    QStringList seen;
    for (const QJsonValue &a : advice) {
        const QString bucket = a["bucket"].toString();
        const double seconds = a["seconds_per_step"].toDouble(-1);
        if (!budget.contains(bucket) || bucket == "useful_gpu")
            return "unknown bucket " + bucket;
        if (seconds != budget[bucket].toDouble())
            return bucket + ": seconds differ from the bucket";
        if (!(seconds > 0))
            return bucket + ": advice on an empty bucket";
        if (seconds > previous)
            return bucket + ": not sorted";
        previous = seconds;
        if (a["share_of_step"].toDouble() != seconds / step)
            return bucket + ": share_of_step is not seconds / step time";
        const QJsonObject evidence = a["evidence"].toObject();
        if (evidence.size() < 3 || evidence["bucket_seconds_per_step"].toDouble() != seconds)
            return bucket + ": no evidence";
        if (a["text"].toString().isEmpty() || a["rule"].toString().isEmpty())
            return bucket + ": no text or rule";
        seen << bucket;
    }
    // Every waste bucket above zero has its advice.
    for (auto it = budget.begin(); it != budget.end(); ++it)
        if (it.key() != "useful_gpu" && it.value().toDouble() > 0 && !seen.contains(it.key()))
            return it.key() + ": bucket above zero without advice";
    return {};
}

} // namespace

class TestAdvice : public QObject
{
    Q_OBJECT

private slots:
    void firstAdvice_data()
    {
        QTest::addColumn<QString>("run");
        QTest::addColumn<QString>("profile");
        QTest::addColumn<double>("gpuUtilBelow");
        QTest::addColumn<QString>("firstBucket");
        QTest::addColumn<QString>("textHas");
        QTest::newRow("example run is data-bound at 60") << "example-run" << "workbench" << 60.0 << "data_wait"
                                                         << "DataLoader workers";
        QTest::newRow("example run, reference") << "example-run" << "reference" << 60.0 << "data_wait"
                                                << "pinned memory";
        QTest::newRow("busy host waits for data") << "busy-host-datawait" << "workbench" << 60.0 << "data_wait"
                                                  << "DataLoader";
        QTest::newRow("comm-heavy") << "comm-heavy" << "workbench" << 30.0 << "comm_excess" << "bucket sizes";
    }
    void firstAdvice()
    {
        QFETCH(QString, run);
        QFETCH(QString, profile);
        QFETCH(double, gpuUtilBelow);
        QFETCH(QString, firstBucket);
        QFETCH(QString, textHas);
        const auto loaded = load(run);
        QVERIFY(loaded);
        Thresholds t;
        t.gpuUtilBelowPct = gpuUtilBelow;
        const QJsonObject report = buildReport(*loaded, *profileFromName(profile), t);
        const QJsonArray advice = report["advice"].toArray();
        QVERIFY(!advice.isEmpty());
        QCOMPARE(advice[0]["bucket"].toString(), firstBucket);
        QVERIFY2(advice[0]["text"].toString().contains(textHas), qPrintable(advice[0]["text"].toString()));
        const QString problem = adviceProblem(report);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    void dataWaitEvidence()
    {
        const auto loaded = load("example-run");
        QVERIFY(loaded);
        Thresholds t;
        t.gpuUtilBelowPct = 60;
        const QJsonObject report = buildReport(*loaded, HeuristicsProfile::Workbench, t);
        const QJsonObject evidence = report["advice"][0]["evidence"].toObject();
        QCOMPARE(evidence["gpu_util_pct"].toDouble(), report["aggregates"]["gpu_util_pct"].toDouble());
        QCOMPARE(evidence["host_busy_fraction"].toDouble(), report["aggregates"]["host_busy_fraction"].toDouble());
        QCOMPARE(evidence["gpu_util_below_pct"].toDouble(), 60.0);
        // At the default 30 % the same run is not data-bound: no data-wait advice at all.
        const QJsonObject atDefault = buildReport(*loaded, HeuristicsProfile::Workbench, Thresholds{});
        for (const QJsonValue &a : atDefault["advice"].toArray())
            QVERIFY(a["bucket"].toString() != "data_wait");
    }

    void untunedGemm_data()
    {
        QTest::addColumn<QString>("profile");
        QTest::newRow("workbench") << "workbench";
        QTest::newRow("reference") << "reference";
    }
    void untunedGemm()
    {
        QFETCH(QString, profile);
        const auto loaded = load("untuned-gemm");
        QVERIFY(loaded);
        const QJsonObject report = buildReport(*loaded, *profileFromName(profile), Thresholds{});
        QJsonObject shape;
        for (const QJsonValue &a : report["advice"].toArray())
            if (a["bucket"] == QString("kernel_shape"))
                shape = a.toObject();
        QVERIFY(!shape.isEmpty());
        const QJsonObject evidence = shape["evidence"].toObject();
        QVERIFY(shape["text"].toString().contains("hipBLASLt"));
        const QJsonArray kernels = evidence["untuned_kernels"].toArray();
        QVERIFY(!kernels.isEmpty());
        double previous = 2.0;
        for (const QJsonValue &k : kernels) {
            const QString name = k["name"].toString();
            QVERIFY(!name.isEmpty());
            QVERIFY2(shape["text"].toString().contains(name), qPrintable(name));
            const double share = k["share_of_gemm_time"].toDouble();
            QVERIFY(share > 0 && share <= previous);
            previous = share;
        }
        const double generic = report["aggregates"]["classes"]["generic_gemm"]["time_ns"].toDouble();
        const double gemm = report["aggregates"]["classes"]["gemm"]["time_ns"].toDouble();
        QCOMPARE(evidence["generic_gemm_share_of_gemm_time"].toDouble(), generic / gemm);
        QVERIFY(generic / gemm > 0.5);  // made with --generic-gemm-frac 0.8
    }

    /// On every run fixture, both profiles, default and changed thresholds: the invariants hold
    /// and the report (with advice and command) still matches the schema.
    void everyFixture_data()
    {
        QTest::addColumn<QString>("run");
        const QStringList names =
            QDir(test::dataPath("runs")).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
        QVERIFY(names.size() > 10);
        for (const QString &n : names)
            QTest::newRow(qPrintable(n)) << n;
        QTest::newRow("example-run") << "example-run";
    }
    void everyFixture()
    {
        QFETCH(QString, run);
        const auto loaded = load(run);
        if (!loaded)
            QSKIP("not a readable run folder");
        const QJsonObject schema =
            QJsonDocument::fromJson(test::readAll(QStringLiteral(GOBLIN_SOURCE_DIR "/resources/report.schema.json")))
                .object();
        Thresholds changed;
        changed.gpuUtilBelowPct = 75;
        changed.hostBusyAbove = 0.1;
        changed.hbmTargetPct = 90;
        changed.precision = Precision::Fp16;
        for (const HeuristicsProfile p : {HeuristicsProfile::Workbench, HeuristicsProfile::Reference})
            for (const Thresholds &t : {Thresholds{}, changed}) {
                const QJsonObject report = buildReport(*loaded, p, t);
                const QString problem = adviceProblem(report);
                QVERIFY2(problem.isEmpty(), qPrintable(problem));
                const QStringList errors = test::validateJsonSchema(report, schema);
                QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
                QCOMPARE(report["command"][0].toString(), QString("goblin-workbench"));
                QCOMPARE(report["command"][2].toString(), loaded->runDir);
            }
    }
};

QTEST_GUILESS_MAIN(TestAdvice)
#include "tst_advice.moc"
