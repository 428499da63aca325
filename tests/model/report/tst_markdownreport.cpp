// `report --markdown`: the one-page summary holds the report's own numbers (the budget rows as
// the report gives them, with their states), stays under 8 KB for any run — real fixtures and a
// report bloated with long names and many diagnostics — and the CLI writes it.

#include "formatting.h"
#include "heuristics.h"
#include "markdownreport.h"
#include "report.h"
#include "runanalysis.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace goblin;

namespace {

QJsonObject reportOf(const QString &dir)
{
    const LoadResult loaded = loadRun(dir);
    if (loaded.outcome != LoadOutcome::Finished || !loaded.run)
        return {};
    return buildReport(*loaded.run, HeuristicsProfile::Workbench, Thresholds{});
}

/// The budget table's row for `label`: its cells.
QStringList budgetRow(const QString &markdown, const QString &label)
{
    for (const QString &line : markdown.split(QLatin1Char('\n')))
        if (line.startsWith(QStringLiteral("| %1 |").arg(label))) {
            QStringList cells = line.split(QStringLiteral(" | "));
            cells.front().remove(0, 2);
            cells.back().chop(2);
            return cells;
        }
    return {};
}

} // namespace

class TestMarkdownReport : public QObject
{
    Q_OBJECT

private slots:
    void holdsTheReportsNumbers_data()
    {
        QTest::addColumn<QString>("dir");
        QTest::newRow("small run") << test::dataPath(QStringLiteral("window/run-small"));
        QTest::newRow("optimizer steps only") << test::dataPath(QStringLiteral("realworld/optimizer-steps-only"));
        QTest::newRow("non-PyTorch kernel trace") << test::dataPath(QStringLiteral("realworld/non-pytorch-kernel-trace"));
        QTest::newRow("graph capture") << test::dataPath(QStringLiteral("realworld/graph-capture"));
        QTest::newRow("bad input") << test::dataPath(QStringLiteral("runs/bad-nan-negative"));
    }
    void holdsTheReportsNumbers()
    {
        QFETCH(QString, dir);
        const QJsonObject report = reportOf(dir);
        QVERIFY(!report.isEmpty());
        const QByteArray bytes = markdownSummary(report);
        QVERIFY2(bytes.size() <= kMarkdownMaxBytes, QByteArray::number(bytes.size()).constData());
        const QString markdown = QString::fromUtf8(bytes);
        QVERIFY(markdown.startsWith(QStringLiteral("# ") + report["run"]["name"].toString()));
        const QJsonObject buckets = report["budget"]["buckets"].toObject();
        for (int i = 0; i < WasteBudget::BucketCount; ++i) {
            const QJsonObject b = buckets[WasteBudget::bucketKey(i)].toObject();
            const QStringList row = budgetRow(markdown, WasteBudget::bucketLabel(i));
            QCOMPARE(row.size(), 4);
            const bool unknown = b["state"].toString() == QLatin1String("unknown");
            QCOMPARE(row.at(1), unknown ? QStringLiteral("—") : formatSeconds(b["seconds_per_step"].toDouble()));
            QCOMPARE(row.at(3), b["state"].toString());
        }
        const QJsonObject step = report["quantities"]["step_time_s"].toObject();
        const QStringList stepRow = budgetRow(markdown, QStringLiteral("Step time"));
        QCOMPARE(stepRow.value(1), step["value"].isDouble() ? formatSeconds(step["value"].toDouble()) : QStringLiteral("—"));
        // Every error and warning is listed or counted.
        int matter = 0;
        for (const QJsonValue &d : report["diagnostics"].toArray())
            matter += d["severity"].toString() != QLatin1String("info") ? 1 : 0;
        QVERIFY(matter == 0 ? markdown.contains(QStringLiteral("No errors or warnings."))
                            : markdown.contains(QStringLiteral("**warning**")) || markdown.contains(QStringLiteral("**error**")));
    }

    /// Thousands of long kernel and op names, long advice, many diagnostics: still one page.
    void staysUnder8KB()
    {
        QJsonObject report = reportOf(test::dataPath(QStringLiteral("window/run-small")));
        QVERIFY(!report.isEmpty());
        const QString longName = QStringLiteral("void very::long::templated<").repeated(400) + QStringLiteral(">");
        QJsonArray kernels, ops, diagnostics, advice;
        for (int i = 0; i < 2000; ++i) {
            kernels.append(QJsonObject{{"name", longName + QString::number(i)}, {"pct_time", 0.05}});
            ops.append(QJsonObject{{"name", longName + QString::number(i)}, {"calls", i}, {"device_self_s", 1.0 / (i + 1)},
                                   {"host_self_s", 0.001}});
            diagnostics.append(QJsonObject{{"severity", "warning"}, {"file", "trace.csv"}, {"line", i + 2},
                                           {"message", QStringLiteral("bad row | ").repeated(200)}});
        }
        for (int i = 0; i < 50; ++i)
            advice.append(QJsonObject{{"text", QStringLiteral("Do this. ").repeated(500)}});
        QJsonObject metrics = report["metrics"].toObject();
        metrics["top_kernels"] = kernels;
        report["metrics"] = metrics;
        report["ops"] = ops;
        report["diagnostics"] = diagnostics;
        report["advice"] = advice;
        const QByteArray bytes = markdownSummary(report);
        QVERIFY2(bytes.size() <= kMarkdownMaxBytes, QByteArray::number(bytes.size()).constData());
        const QString markdown = QString::fromUtf8(bytes);
        QVERIFY(markdown.contains(QStringLiteral("## Budget per step")));
        QVERIFY(markdown.contains(QStringLiteral("## Top kernels")));
        QVERIFY(markdown.contains(QStringLiteral("more error(s) and warning(s)")));
        // A '|' inside a cell is escaped: every table row has its four columns.
        for (const QString &line : markdown.split(QLatin1Char('\n')))
            if (line.startsWith(QStringLiteral("| ")) && line.contains(QStringLiteral("bad row")))
                QFAIL("diagnostics are a list, not a table");
    }

    void commandLine_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QByteArray>("stdoutHas");
        QTest::addColumn<QByteArray>("stderrHas");
        const QString run = test::dataPath(QStringLiteral("window/run-small"));
        QTest::newRow("to stdout") << QStringList{"report", run, "--markdown", "-"} << 0 << QByteArray("## Budget per step")
                                   << QByteArray();
        QTest::newRow("both to stdout") << QStringList{"report", run, "--markdown", "-", "--json", "-"} << 2 << QByteArray()
                                        << QByteArray("standard output");
        QTest::newRow("into the run folder") << QStringList{"report", run, "--markdown", run + "/summary.md"} << 2
                                             << QByteArray() << QByteArray("inside the run folder");
    }
    void commandLine()
    {
        QFETCH(QStringList, arguments);
        QFETCH(int, exitCode);
        QFETCH(QByteArray, stdoutHas);
        QFETCH(QByteArray, stderrHas);
        const test::AppRun r = test::runApp(arguments);
        QVERIFY2(r.exitCode == exitCode, r.err.constData());
        QVERIFY(r.out.contains(stdoutHas));
        QVERIFY2(r.err.contains(stderrHas), r.err.constData());
        if (exitCode == 0)
            QVERIFY(r.out.size() <= kMarkdownMaxBytes);
    }
};

QTEST_GUILESS_MAIN(TestMarkdownReport)
#include "tst_markdownreport.moc"
