// Issue 23's real-trace criterion as a test: "On the TensorBoard-plugin ResNet-50 trace: useful GPU
// <= measured busy compute in every step; data wait within 10 % of the GPU idle time that overlaps
// enumerate(DataLoader) ops, by an independent count."
//
// Fixture: tests/data/torch/kineto_2021_resnet50_steps6to8.json.gz, three ProfilerStep windows of
// that trace with every GPU event, DataLoader op and top-level CPU operator in them (event bytes
// unchanged; torch/make_measured_budget_fixture.py). Expected numbers: tests/data/torch/
// dataloader_idle.py (Python's json module, µs as Decimal -> exact ns, unions written from the
// issue's definitions, not from the C++), its output kept in torch/dataloader_idle.expected:
//     cd tests/data/torch && python3 dataloader_idle.py kineto_2021_resnet50_steps6to8.json.gz > dataloader_idle.expected
// The whole 6-step trace is too big for tests/data: scripts/check-measured-budget.sh checks it
// the same way against `goblin-workbench report`.

#include "derived.h"
#include "report.h"
#include "runanalysis.h"
#include "testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <map>

using namespace goblin;

namespace {

const QString kFixture = QStringLiteral("kineto_2021_resnet50_steps6to8.json.gz");

/// The independent count's rows for one file, in its order (steps by start, then device).
std::vector<std::map<QString, qint64>> expectedRows(const QString &file)
{
    std::vector<std::map<QString, qint64>> rows;
    const QStringList lines = QString::fromUtf8(test::readAll(test::dataPath(QStringLiteral("torch/dataloader_idle.expected"))))
                                  .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    if (lines.isEmpty())
        return rows;
    const QStringList columns = lines.front().split(QLatin1Char('\t'));
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QStringList cells = lines[i].split(QLatin1Char('\t'));
        if (cells.value(0) != file)
            continue;
        std::map<QString, qint64> row;
        for (qsizetype c = 3; c < columns.size() && c < cells.size(); ++c)  // file, step, device: text
            row[columns[c]] = cells[c].toLongLong();
        row[QStringLiteral("device")] = cells.value(2).toLongLong();
        rows.push_back(row);
    }
    return rows;
}

double sec(qint64 ns) { return double(ns) / 1e9; }

} // namespace

class TestMeasuredBudgetTruth : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY(QFile::copy(test::dataPath(QStringLiteral("torch/") + kFixture), m_dir.filePath(kFixture)));
        const LoadResult loaded = loadRun(m_dir.path());
        QCOMPARE(int(loaded.outcome), int(LoadOutcome::Finished));
        m_run = loaded.run;
        m_derived = deriveResults(*m_run, HeuristicsProfile::Workbench, Thresholds());
        m_report = buildReport(*m_run, m_derived);
        m_rows = expectedRows(kFixture);
        QCOMPARE(m_rows.size(), std::size_t(3));
    }

    /// The timeline's per-step values are the independent count's, to the ns it can be read in:
    /// window, busy, compute, idle inside the DataLoader ops, host-to-device copies alone.
    void timelineMatchesTheCount()
    {
        const QJsonArray devices = m_report.value(QStringLiteral("timeline")).toObject().value(QStringLiteral("devices")).toArray();
        QCOMPARE(devices.size(), qsizetype(1));
        const QJsonObject device = devices.first().toObject();
        QCOMPARE(qint64(device.value(QStringLiteral("device")).toDouble()), m_rows.front().at(QStringLiteral("device")));
        QCOMPARE(device.value(QStringLiteral("steps_source")).toString(), QStringLiteral("ProfilerStep"));
        const QJsonArray perStep = device.value(QStringLiteral("per_step")).toArray();
        QCOMPARE(perStep.size(), qsizetype(m_rows.size()));
        const std::pair<const char *, const char *> columns[] = {{"window_s", "window_ns"},
                                                                 {"busy_s", "busy_ns"},
                                                                 {"compute_s", "compute_ns"},
                                                                 {"idle_data_loading_s", "idle_dl_ns"},
                                                                 {"h2d_copy_only_s", "h2d_only_ns"}};
        for (std::size_t i = 0; i < m_rows.size(); ++i) {
            const QJsonObject got = perStep[qsizetype(i)].toObject();
            for (const auto &[key, column] : columns) {
                const double have = got.value(QLatin1String(key)).toDouble();
                const double want = sec(m_rows[i].at(QLatin1String(column)));
                QVERIFY2(std::fabs(have - want) <= 1e-6,
                         qPrintable(QStringLiteral("step %1 %2: %3 s, count %4 s").arg(i).arg(QLatin1String(key))
                                        .arg(have, 0, 'g', 12).arg(want, 0, 'g', 12)));
            }
            // The step is data-bound: most of the DataLoader time is GPU idle (not a vacuous count).
            QVERIFY(m_rows[i].at(QStringLiteral("idle_dl_ns")) > m_rows[i].at(QStringLiteral("window_ns")) / 4);
        }
    }

    /// Every step's budget: useful GPU <= the busy compute counted, data wait within 10 % of the GPU
    /// idle inside the DataLoader ops counted, buckets + unattributed = the step.
    void budgetPerStep()
    {
        QVERIFY2(m_derived.budgetMeasured, qPrintable(m_derived.budgetSource));
        QCOMPARE(int(m_derived.plan.kind), int(StepPlan::Kind::Marked));
        const QJsonArray perStep = m_report.value(QStringLiteral("per_step")).toArray();
        QCOMPARE(perStep.size(), qsizetype(m_rows.size()));
        for (std::size_t i = 0; i < m_rows.size(); ++i) {
            const QJsonObject step = perStep[qsizetype(i)].toObject();
            const QJsonObject b = step.value(QStringLiteral("waste_budget")).toObject();
            const std::map<QString, qint64> &want = m_rows[i];
            QCOMPARE(step.value(QStringLiteral("partial")).toBool(), false);
            QVERIFY(std::fabs(step.value(QStringLiteral("duration_s")).toDouble() - sec(want.at(QStringLiteral("window_ns")))) <= 1e-9);

            const double useful = b.value(QStringLiteral("useful_gpu")).toDouble();
            const double compute = sec(want.at(QStringLiteral("compute_ns")));
            QVERIFY2(useful <= compute, qPrintable(QStringLiteral("step %1: useful GPU %2 s > busy compute %3 s").arg(i).arg(useful).arg(compute)));
            QVERIFY(useful > 0.5 * compute);  // the compute is there, not booked elsewhere

            const double dataWait = b.value(QStringLiteral("data_wait")).toDouble();
            const double idleDl = sec(want.at(QStringLiteral("idle_dl_ns")));
            QVERIFY2(std::fabs(dataWait - idleDl) <= 0.10 * idleDl,
                     qPrintable(QStringLiteral("step %1: data wait %2 s, GPU idle in DataLoader ops %3 s").arg(i).arg(dataWait).arg(idleDl)));

            double sum = b.value(QStringLiteral("unattributed_s")).toDouble();
            for (int k = 0; k < WasteBudget::BucketCount; ++k)
                sum += b.value(WasteBudget::bucketKey(k)).toDouble();
            QVERIFY2(std::fabs(sum - step.value(QStringLiteral("duration_s")).toDouble()) <= 1e-9,
                     qPrintable(QStringLiteral("step %1: buckets sum to %2 s").arg(i).arg(sum, 0, 'g', 15)));

            // The same numbers in Derived (the window reads these).
            const WasteBudget &d = m_derived.stepBudgets[i];
            QCOMPARE(d.usefulGpu, useful);
            QCOMPARE(d.dataWait, dataWait);
            QCOMPARE(d.terms.computeS, compute);
            QCOMPARE(d.terms.idleDataS, idleDl);
        }
    }

    /// The run's budget (the mean of the steps): the same criteria on the means.
    void budgetOfTheRun()
    {
        double compute = 0.0, idleDl = 0.0, window = 0.0;
        for (const auto &row : m_rows) {
            compute += sec(row.at(QStringLiteral("compute_ns")));
            idleDl += sec(row.at(QStringLiteral("idle_dl_ns")));
            window += sec(row.at(QStringLiteral("window_ns")));
        }
        const double n = double(m_rows.size());
        const QJsonObject buckets = m_report.value(QStringLiteral("budget")).toObject().value(QStringLiteral("buckets")).toObject();
        const auto seconds = [&](const char *key) {
            return buckets.value(QLatin1String(key)).toObject().value(QStringLiteral("seconds_per_step")).toDouble();
        };
        QVERIFY(seconds("useful_gpu") <= compute / n);
        QVERIFY2(std::fabs(seconds("data_wait") - idleDl / n) <= 0.10 * idleDl / n,
                 qPrintable(QStringLiteral("data wait %1 s, idle in DataLoader ops %2 s").arg(seconds("data_wait")).arg(idleDl / n)));
        QCOMPARE(buckets.value(QStringLiteral("data_wait")).toObject().value(QStringLiteral("state")).toString(), QStringLiteral("measured"));
        double sum = 0.0;
        for (const QString &key : buckets.keys())
            sum += buckets.value(key).toObject().value(QStringLiteral("seconds_per_step")).toDouble();
        QVERIFY2(std::fabs(sum - window / n) <= 1e-9, qPrintable(QStringLiteral("buckets sum to %1 s, step %2 s").arg(sum).arg(window / n)));
    }

private:
    QTemporaryDir m_dir;
    std::shared_ptr<const RunAnalysis> m_run;
    Derived m_derived;
    QJsonObject m_report;
    std::vector<std::map<QString, qint64>> m_rows;
};

QTEST_GUILESS_MAIN(TestMeasuredBudgetTruth)
#include "tst_measuredbudgettruth.moc"
