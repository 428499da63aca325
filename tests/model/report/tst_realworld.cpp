// Six real public runs nobody here wrote (issue 32, "Done when"): a trace whose only step marks
// are optimizer steps, GPU-lane step annotations, an Nsight export with TARGET_INFO_GPU, a
// non-PyTorch kernel trace, a Kineto 2021 trace with `[memory]` events, a HIP-graph capture.
// Each folder under tests/data/realworld/ is loaded as `goblin-workbench report` loads it
// (loadRun, deriveResults in the workbench profile, buildReport), and the primitives the report
// states are compared with expected_counts.json beside the file: an independent count by
// scripts/realworld_count.py (Python's json / csv / sqlite3 modules; provenance and licences in
// tests/data/PROVENANCE.md).
//
// Where today's report disagrees with the count in a way issue 32 calls wrong, the row is an
// expected failure naming what is expected (knownWrong() below); an unexpected pass fails the
// test, so the row is flipped when the run's facts land.

#include "derived.h"
#include "report.h"
#include "runanalysis.h"
#include "testsupport.h"
#include "tracememoryfigures.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>
#include <map>

using namespace goblin;

namespace {

struct Fixture {
    QJsonObject report;    ///< the report `goblin-workbench report DIR --json -` writes
    QJsonObject expected;  ///< expected_counts.json
};

const Fixture &fixture(const QString &name)
{
    static std::map<QString, Fixture> cache;
    auto it = cache.find(name);
    if (it != cache.end())
        return it->second;
    Fixture f;
    const QString dir = test::dataPath(QStringLiteral("realworld/") + name);
    QFile counts(dir + QStringLiteral("/expected_counts.json"));
    if (counts.open(QIODevice::ReadOnly))
        f.expected = QJsonDocument::fromJson(counts.readAll()).object();
    const LoadResult loaded = loadRun(dir);
    if (loaded.outcome == LoadOutcome::Finished && loaded.run)
        f.report = buildReport(*loaded.run, HeuristicsProfile::Workbench, Thresholds{});
    return cache[name] = f;
}

const QStringList &fixtureNames()
{
    static const QStringList names{QStringLiteral("optimizer-steps-only"),     QStringLiteral("gpu-lane-steps"),
                                   QStringLiteral("nsys-target-info-gpu"),     QStringLiteral("non-pytorch-kernel-trace"),
                                   QStringLiteral("memory-2021"),              QStringLiteral("graph-capture")};
    return names;
}

/// What today's report says wrong of a fixture (issue 32), by check: the expected value in words.
/// An empty text: the check holds today.
QString knownWrong(const QString &check, const QString &name)
{
    static const std::map<std::pair<QString, QString>, QString> rows{
    };
    const auto it = rows.find({check, name});
    return it == rows.end() ? QString() : it->second;
}

#define EXPECT_WRONG_TODAY(check)                                                                                      \
    do {                                                                                                               \
        const QString reason = knownWrong(QStringLiteral(check), QString::fromLatin1(QTest::currentDataTag()));        \
        if (!reason.isEmpty())                                                                                         \
            QEXPECT_FAIL("", qPrintable(reason), Continue);                                                            \
    } while (false)

QJsonObject object(const QJsonObject &o, const char *key) { return o.value(QLatin1String(key)).toObject(); }
qint64 integer(const QJsonObject &o, const char *key) { return qint64(o.value(QLatin1String(key)).toDouble(-1)); }
bool near(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

/// The file's own capacity (bytes) and name: deviceProperties / TARGET_INFO_GPU entry of the
/// device the kernels ran on (the count's first per-device key), else the first entry.
QJsonObject fileDevice(const QJsonObject &expected)
{
    const QJsonArray devices = expected.value(QLatin1String("devices")).toArray();
    const QStringList used = object(object(expected, "kernels"), "per_device").keys();
    for (const QJsonValue &d : devices)
        if (!used.isEmpty() && QString::number(d.toObject().value(QLatin1String("id")).toInt()) == used.front())
            return d.toObject();
    return devices.isEmpty() ? QJsonObject() : devices.first().toObject();
}

} // namespace

class TestRealWorld : public QObject
{
    Q_OBJECT

private:
    static void addFixtureRows()
    {
        QTest::addColumn<QString>("name");
        for (const QString &name : fixtureNames())
            QTest::newRow(qPrintable(name)) << name;
    }

private slots:
    void loads_data() { addFixtureRows(); }
    void loads()
    {
        QFETCH(QString, name);
        const Fixture &f = fixture(name);
        QVERIFY2(!f.expected.isEmpty(), "expected_counts.json missing or unreadable");
        QVERIFY2(!f.report.isEmpty(), "the run did not load");
        const QJsonArray inputs = f.report.value(QLatin1String("inputs")).toArray();
        bool read = false;
        for (const QJsonValue &in : inputs)
            read = read || in.toObject().value(QLatin1String("path")).toString() ==
                               f.expected.value(QLatin1String("file")).toString();
        QVERIFY2(read, "the report lists no input by the fixture's file name");
    }

    /// Kernels with a positive duration (zero-length ones are left out and said so), their summed
    /// time, and every kernel event on the devices' timelines.
    void kernels_data() { addFixtureRows(); }
    void kernels()
    {
        QFETCH(QString, name);
        const Fixture &f = fixture(name);
        const QJsonObject want = object(f.expected, "kernels");
        const QJsonObject aggregates = object(f.report, "aggregates");
        QCOMPARE(integer(aggregates, "kernel_count"), integer(want, "count_positive"));
        QCOMPARE(integer(aggregates, "kernel_time_ns"), integer(want, "total_ns"));
        QCOMPARE(integer(aggregates, "kernel_rows_skipped"), integer(want, "count") - integer(want, "count_positive"));
        qint64 timelineKernels = 0;
        for (const QJsonValue &d : object(f.report, "timeline").value(QLatin1String("devices")).toArray())
            timelineKernels += integer(d.toObject(), "kernels");
        QCOMPARE(timelineKernels, integer(want, "count"));
    }

    /// The kernel span (first begin to last end) and the span of every GPU event (kernels,
    /// copies, memsets) on the device timeline.
    void span_data() { addFixtureRows(); }
    void span()
    {
        QFETCH(QString, name);
        const Fixture &f = fixture(name);
        const double kernelSpanS = object(f.expected, "kernels").value(QLatin1String("span_ns")).toDouble() / 1e9;
        QVERIFY(near(object(f.report, "aggregates").value(QLatin1String("trace_span_seconds")).toDouble(), kernelSpanS));
        const QJsonArray devices = object(f.report, "timeline").value(QLatin1String("devices")).toArray();
        QCOMPARE(devices.size(), 1);  // every fixture's GPU work ran on one device
        QCOMPARE(std::llround(devices.first().toObject().value(QLatin1String("span_s")).toDouble() * 1e9),
                 integer(f.expected, "gpu_events_span_ns"));
    }

    /// The windows of the step plan issue 32 sets out (realworld_count.py step_plan): CPU-lane
    /// ProfilerStep#N, else GPU-lane step annotations one window each, else CPU-lane optimizer
    /// steps; no marks: none found (the kernel span is the one step).
    void stepsFound_data() { addFixtureRows(); }
    void stepsFound()
    {
        QFETCH(QString, name);
        const Fixture &f = fixture(name);
        const qint64 windows = integer(object(f.expected, "step_plan"), "windows");
        EXPECT_WRONG_TODAY("stepsFound");
        QCOMPARE(integer(object(f.report, "aggregates"), "steps_found"), windows);
    }

    void perStepWindows_data()
    {
        QTest::addColumn<QString>("name");
        for (const QString &name : fixtureNames())
            if (integer(object(fixture(name).expected, "step_plan"), "windows") > 0)
                QTest::newRow(qPrintable(name)) << name;
    }
    void perStepWindows()
    {
        QFETCH(QString, name);
        const Fixture &f = fixture(name);
        EXPECT_WRONG_TODAY("perStepWindows");
        QCOMPARE(qint64(f.report.value(QLatin1String("per_step")).toArray().size()),
                 integer(object(f.expected, "step_plan"), "windows"));
    }

    /// One step time in the report (issue 32 item 2); where the plan has windows of its own
    /// duration (ProfilerStep, GPU-lane annotations) it is their mean, and without marks the
    /// kernel span.
    void oneStepTime_data() { addFixtureRows(); }
    void oneStepTime()
    {
        QFETCH(QString, name);
        const Fixture &f = fixture(name);
        const QJsonObject aggregates = object(f.report, "aggregates");
        const double stepS = aggregates.value(QLatin1String("step_time_seconds")).toDouble();
        const double budgetS = object(f.report, "budget").value(QLatin1String("step_time_s")).toDouble();
        const double quantityS =
            object(object(f.report, "quantities"), "step_time_s").value(QLatin1String("value")).toDouble();
        QVERIFY(near(quantityS, budgetS));
        QVERIFY(near(aggregates.value(QLatin1String("budget_step_time_seconds")).toDouble(), budgetS));
        EXPECT_WRONG_TODAY("oneStepTime");
        QVERIFY2(near(stepS, budgetS), qPrintable(QStringLiteral("aggregates %1 s, budget %2 s").arg(stepS).arg(budgetS)));

        const QJsonObject plan = object(f.expected, "step_plan");
        const QString source = plan.value(QLatin1String("source")).toString();
        double expectedS = -1;
        if (source == QLatin1String("kernel_span")) {
            expectedS = object(f.expected, "kernels").value(QLatin1String("span_ns")).toDouble() / 1e9;
        } else {
            // Optimizer steps cut the span: the steps are the windows between consecutive ends.
            const char *key = source == QLatin1String("cpu_optimizer_step") ? "cut_durations_ns" : "durations_ns";
            const QJsonArray durations =
                object(object(f.expected, "steps"), source.toLatin1().constData()).value(QLatin1String(key)).toArray();
            double sumNs = 0;
            for (const QJsonValue &d : durations)
                sumNs += d.toDouble();
            expectedS = sumNs / durations.size() / 1e9;
        }
        if (expectedS >= 0)
            QVERIFY2(near(budgetS, expectedS), qPrintable(QStringLiteral("budget %1 s, expected %2 s").arg(budgetS).arg(expectedS)));
    }

    /// The HBM capacity from the file itself where it has one (deviceProperties totalGlobalMem,
    /// TARGET_INFO_GPU totalMemory); where it has none, the default is said to be an estimate.
    void capacity_data() { addFixtureRows(); }
    void capacity()
    {
        QFETCH(QString, name);
        const Fixture &f = fixture(name);
        const QJsonObject quantity = object(object(f.report, "quantities"), "hbm_capacity_gb");
        const QJsonObject device = fileDevice(f.expected);
        if (device.isEmpty()) {
            QCOMPARE(quantity.value(QLatin1String("state")).toString(), QStringLiteral("estimated"));
            return;
        }
        const double fileGb = device.value(QLatin1String("total_memory_bytes")).toDouble() / kBytesPerHbmGb;
        const double reportGb = object(f.report, "thresholds").value(QLatin1String("hbm_capacity_gb")).toDouble();
        EXPECT_WRONG_TODAY("capacity");
        QVERIFY2(near(reportGb, fileGb), qPrintable(QStringLiteral("report %1 GB, file %2 GB").arg(reportGb).arg(fileGb)));
    }

    void deviceName_data()
    {
        QTest::addColumn<QString>("name");
        for (const QString &name : fixtureNames())
            if (!fileDevice(fixture(name).expected).isEmpty())
                QTest::newRow(qPrintable(name)) << name;
    }
    void deviceName()
    {
        QFETCH(QString, name);
        const Fixture &f = fixture(name);
        const QString deviceName = fileDevice(f.expected).value(QLatin1String("name")).toString();
        const QString source =
            object(object(f.report, "quantities"), "hbm_capacity_gb").value(QLatin1String("source")).toString();
        EXPECT_WRONG_TODAY("deviceName");
        QVERIFY2(source.contains(deviceName), qPrintable(source));
    }

    /// `[memory]` events: how many, per GPU device, and the device's peak — the maximum Total
    /// Allocated where the events carry it, else the peak of the running sum of Bytes.
    void memory_data()
    {
        QTest::addColumn<QString>("name");
        for (const QString &name : fixtureNames())
            if (integer(object(fixture(name).expected, "memory"), "events") > 0)
                QTest::newRow(qPrintable(name)) << name;
    }
    void memory()
    {
        QFETCH(QString, name);
        const Fixture &f = fixture(name);
        const QJsonObject want = object(f.expected, "memory");
        const QJsonObject memory = object(f.report, "memory");
        QCOMPARE(integer(memory, "events"), integer(want, "events"));
        QCOMPARE(integer(memory, "cpu_events"), integer(want, "host_events"));
        const QJsonArray devices = memory.value(QLatin1String("devices")).toArray();
        const QJsonObject wantDevices = object(want, "devices");
        QCOMPARE(qsizetype(devices.size()), wantDevices.size());
        const QJsonObject device = devices.first().toObject();
        const QJsonObject wantDevice = wantDevices.value(QStringLiteral("%1:%2")
                                                             .arg(device.value(QLatin1String("device_type")).toInt())
                                                             .arg(device.value(QLatin1String("device")).toInt()))
                                           .toObject();
        QVERIFY2(!wantDevice.isEmpty(), "the report's device is not one the count found");
        QCOMPARE(integer(device, "events"), integer(wantDevice, "events"));
    }

    void memoryPeak_data() { memory_data(); }
    void memoryPeak()
    {
        QFETCH(QString, name);
        const Fixture &f = fixture(name);
        const QJsonObject wantDevice = object(object(f.expected, "memory"), "devices").begin()->toObject();
        const QJsonValue totals = wantDevice.value(QLatin1String("peak_total_allocated_bytes"));
        const double wantBytes =
            totals.isNull() ? wantDevice.value(QLatin1String("peak_cumulative_bytes")).toDouble() : totals.toDouble();
        const QJsonObject device = object(f.report, "memory").value(QLatin1String("devices")).toArray().first().toObject();
        const QJsonValue peak = device.value(QLatin1String("peak_allocated_gb"));
        EXPECT_WRONG_TODAY("memoryPeak");
        QVERIFY2(peak.isDouble() && near(peak.toDouble() * kBytesPerHbmGb, wantBytes),
                 qPrintable(QStringLiteral("peak_allocated_gb %1, expected %2 B").arg(peak.toDouble()).arg(wantBytes)));
        if (!totals.isNull()) {
            const double reservedBytes = wantDevice.value(QLatin1String("peak_total_reserved_bytes")).toDouble();
            QVERIFY(near(device.value(QLatin1String("peak_reserved_gb")).toDouble() * kBytesPerHbmGb, reservedBytes));
        }
    }

    /// No sentence says "no [memory] events" of a trace that has them.
    void memoryWords_data() { memory_data(); }
    void memoryWords()
    {
        QFETCH(QString, name);
        const Fixture &f = fixture(name);
        const QJsonObject peak = object(object(f.report, "quantities"), "hbm_peak_gb");
        EXPECT_WRONG_TODAY("memoryWords");
        QVERIFY2(!peak.value(QLatin1String("source")).toString().contains(QLatin1String("no [memory] events")),
                 qPrintable(peak.value(QLatin1String("source")).toString()));
    }

    /// Graph launches (cudaGraphLaunch / hipGraphLaunch runtime calls); the capture fixture has
    /// its stream-capture calls counted.
    void graphs_data()
    {
        QTest::addColumn<QString>("name");
        for (const QString &name : fixtureNames())
            if (fixture(name).expected.contains(QLatin1String("graphs")))  // a kernel CSV has no runtime calls
                QTest::newRow(qPrintable(name)) << name;
    }
    void graphs()
    {
        QFETCH(QString, name);
        const Fixture &f = fixture(name);
        const QJsonObject want = object(f.expected, "graphs");
        const QJsonObject graphs = object(f.report, "graphs");
        QCOMPARE(integer(graphs, "launches"), integer(want, "graph_launches"));
        const qint64 captureCalls = integer(want, "begin_capture") + integer(want, "graph_instantiate");
        if (captureCalls > 0)
            QVERIFY(integer(graphs, "captures") > 0);
        else
            QCOMPARE(integer(graphs, "captures"), qint64(0));
    }
};

QTEST_GUILESS_MAIN(TestRealWorld)
#include "tst_realworld.moc"
