// One clock for a kernel trace and the torch trace of the same run (issue 25): trace.csv (ns since
// boot) and torch_profile.json (Kineto µs) of a make_run folder are put on one clock by matching
// their kernels. The expected offset is an independent count: scripts/clock_offset.py, which finds
// the torch trace's kernels as one consecutive run of an agent's trace.csv rows (same names and
// durations) by brute force. The trace.csv stamps are moved by an arbitrary shift here, so the
// offset found must move by exactly that shift. A trace.csv of another run must not be aligned.

#include "clockalignment.h"
#include "runanalysis.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <utility>
#include <vector>

using namespace goblin;

namespace {

QString dataDir() { return QStringLiteral(GOBLIN_TEST_DATA "/alignment"); }

/// The offset scripts/clock_offset.py printed for the unshifted samerun folder.
qint64 expectedOffsetNs()
{
    QFile f(dataDir() + QStringLiteral("/samerun.clock_offset.expected"));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    const QRegularExpression re(QStringLiteral("offset_ns (-?\\d+)"));
    const auto m = re.match(QString::fromUtf8(f.readAll()));
    return m.hasMatch() ? m.captured(1).toLongLong() : 0;
}

/// Splits one CSV record (quoted fields may hold commas; no newlines inside fields here).
QStringList splitCsv(const QString &line)
{
    QStringList fields;
    QString field;
    bool quoted = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (c == QLatin1Char('"')) {
            if (quoted && i + 1 < line.size() && line[i + 1] == QLatin1Char('"')) {
                field += c;
                ++i;
            } else {
                quoted = !quoted;
            }
        } else if (c == QLatin1Char(',') && !quoted) {
            fields << field;
            field.clear();
        } else {
            field += c;
        }
    }
    fields << field;
    return fields;
}

QString joinCsv(const QStringList &fields)
{
    QStringList out;
    for (QString f : fields)
        out << QLatin1Char('"') + f.replace(QLatin1Char('"'), QStringLiteral("\"\"")) + QLatin1Char('"');
    return out.join(QLatin1Char(','));
}

/// Copies `from` to `to` with Start_Timestamp and End_Timestamp moved by `shiftNs`.
bool writeShiftedTrace(const QString &from, const QString &to, qint64 shiftNs)
{
    QFile in(from), out(to);
    if (!in.open(QIODevice::ReadOnly | QIODevice::Text) || !out.open(QIODevice::WriteOnly | QIODevice::Text))
        return false;
    const QStringList header = splitCsv(QString::fromUtf8(in.readLine()).trimmed());
    const qsizetype start = header.indexOf(QStringLiteral("Start_Timestamp"));
    const qsizetype end = header.indexOf(QStringLiteral("End_Timestamp"));
    if (start < 0 || end < 0)
        return false;
    out.write(joinCsv(header).toUtf8() + '\n');
    while (!in.atEnd()) {
        QStringList fields = splitCsv(QString::fromUtf8(in.readLine()).trimmed());
        if (fields.size() != header.size())
            continue;
        for (qsizetype column : {start, end})
            fields[column] = QString::number(fields[column].toLongLong() + shiftNs);
        out.write(joinCsv(fields).toUtf8() + '\n');
    }
    return true;
}

/// Per CPU-lane step of the torch trace (its clock): the length of the union of the device's
/// kernel events inside the step, counted from the events (sort, merge, clip), not by the sweep.
std::vector<qint64> torchKernelUnionPerStep(const GpuTimeline &torch, qint64 device)
{
    std::vector<qint64> out;
    if (torch.files.empty())
        return out;
    const GpuTimelineFile &file = torch.files.front();
    std::vector<std::pair<qint64, qint64>> kernels;
    for (const GpuDeviceTimeline &dev : file.devices)
        if (dev.device == device)
            for (const GpuEvent e : dev.events)
                if (e.kind == GpuEventKind::Kernel && e.endNs > e.startNs)
                    kernels.emplace_back(e.startNs, e.endNs);
    std::sort(kernels.begin(), kernels.end());
    std::vector<std::pair<qint64, qint64>> merged;
    for (const auto &[a, b] : kernels) {
        if (!merged.empty() && a <= merged.back().second)
            merged.back().second = std::max(merged.back().second, b);
        else
            merged.emplace_back(a, b);
    }
    for (const StepWindow &w : file.steps) {
        if (w.gpuLane)
            continue;
        qint64 sum = 0;
        for (const auto &[a, b] : merged)
            sum += std::max<qint64>(0, std::min(b, w.endNs) - std::max(a, w.startNs));
        out.push_back(sum);
    }
    return out;
}

bool hasDiagnostic(const RunAnalysis &run, const QString &needle)
{
    for (const Diagnostic &d : run.diagnostics)
        if (d.message.contains(needle))
            return true;
    return false;
}

} // namespace

class TestClockAlignment : public QObject
{
    Q_OBJECT

private slots:
    void alignsShiftedKernelTrace_data()
    {
        QTest::addColumn<qint64>("shiftNs");
        QTest::newRow("as written") << qint64(0);
        QTest::newRow("1234.6 s earlier") << qint64(-1234567891234);
        QTest::newRow("0.99 s later, odd ns") << qint64(987654321);
        QTest::newRow("near the torch clock's zero") << -expectedOffsetNs() + qint64(3600000000001);
    }

    void alignsShiftedKernelTrace()
    {
        QFETCH(qint64, shiftNs);
        const qint64 expected = expectedOffsetNs();
        QVERIFY2(expected != 0, "samerun.clock_offset.expected is missing");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString src = dataDir() + QStringLiteral("/samerun/");
        QVERIFY(QFile::copy(src + QStringLiteral("torch_profile.json"), dir.filePath(QStringLiteral("torch_profile.json"))));
        QVERIFY(writeShiftedTrace(src + QStringLiteral("trace.csv"), dir.filePath(QStringLiteral("trace.csv")), shiftNs));

        const LoadResult loaded = loadRun(dir.path());
        QVERIFY2(loaded.run, qPrintable(loaded.error));
        const RunAnalysis &run = *loaded.run;
        const ClockAlignment &a = run.clockAlignment;
        QVERIFY2(a.aligned, qPrintable(a.reason));
        QVERIFY2(std::llabs(a.offsetNs - (expected + shiftNs)) <= 1000,
                 qPrintable(QStringLiteral("offset %1, expected %2").arg(a.offsetNs).arg(expected + shiftNs)));
        QVERIFY(a.residualMaxNs <= 1000.0);
        QCOMPARE(a.kernelTraceDevice, qint64(2));  // the torch trace mirrors GPU 0 = agent 2
        QCOMPARE(a.matchedKernels, a.torchKernels);
        QVERIFY(hasDiagnostic(run, QStringLiteral("clock alignment: trace.csv")));

        // The kernel trace's devices carry the torch trace's steps, moved onto their clock.
        std::vector<TimeInterval> torchSteps;
        for (const StepWindow &w : run.torch.timeline.files.front().steps)
            if (!w.gpuLane)
                torchSteps.push_back({w.startNs + a.offsetNs, w.endNs + a.offsetNs});
        QCOMPARE(torchSteps.size(), std::size_t(3));
        QVERIFY(!run.kernelTimeline.devices.empty());
        for (const DeviceTimelineAnalysis &d : run.kernelTimeline.devices) {
            QCOMPARE(d.stepsKind, TimelineStepsKind::AlignedProfilerSteps);
            QCOMPARE(d.stepWindows.size(), torchSteps.size());
            for (std::size_t i = 0; i < torchSteps.size(); ++i) {
                QCOMPARE(d.stepWindows[i].startNs, torchSteps[i].startNs);
                QCOMPARE(d.stepWindows[i].endNs, torchSteps[i].endNs);
            }
            // The kernels inside an aligned step of GPU 0 cover what the torch trace's own do, to
            // the ns. trace.csv holds kernels only, ROCm's __amd_rocclr_copyBuffer blit kernels
            // among them, and those are copies in both readings (docs/collectives.md): so
            //  - its busy time is the union of the torch trace's kernel events (any class; not its
            //    gpu_memcpy events), counted here from the events themselves;
            //  - busy less copy-only time (the union of the kernels that are no copies) is the same
            //    in both readings.
            if (d.device == 2) {
                const DeviceTimelineAnalysis &t = run.torchTimeline.devices.front();
                QCOMPARE(d.perStep.size(), t.perStep.size());
                const std::vector<qint64> torchKernelNs = torchKernelUnionPerStep(run.torch.timeline, t.device);
                QCOMPARE(torchKernelNs.size(), d.perStep.size());
                for (std::size_t i = 0; i < d.perStep.size(); ++i) {
                    QCOMPARE(d.perStep[i].busyNs, torchKernelNs[i]);
                    QCOMPARE(d.perStep[i].busyNs - d.perStep[i].copyOnlyNs, t.perStep[i].busyNs - t.perStep[i].copyOnlyNs);
                    QCOMPARE(d.perStep[i].commNs, t.perStep[i].commNs);
                    QCOMPARE(d.perStep[i].gemmNs, t.perStep[i].gemmNs);
                }
            }
        }
    }

    void refusesAnotherRunsKernelTrace()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(QFile::copy(dataDir() + QStringLiteral("/samerun/torch_profile.json"),
                            dir.filePath(QStringLiteral("torch_profile.json"))));
        QVERIFY(QFile::copy(dataDir() + QStringLiteral("/otherrun/trace.csv"), dir.filePath(QStringLiteral("trace.csv"))));
        const LoadResult loaded = loadRun(dir.path());
        QVERIFY2(loaded.run, qPrintable(loaded.error));
        const RunAnalysis &run = *loaded.run;
        QVERIFY(run.clockAlignment.attempted);
        QVERIFY(!run.clockAlignment.aligned);
        QVERIFY2(run.clockAlignment.reason.contains(QStringLiteral("different runs")), qPrintable(run.clockAlignment.reason));
        QVERIFY(hasDiagnostic(run, QStringLiteral("clock alignment:")));
        for (const DeviceTimelineAnalysis &d : run.kernelTimeline.devices)
            QCOMPARE(d.stepsKind, TimelineStepsKind::WholeSpan);
    }

    void noAttemptWithoutBothTraces()
    {
        GpuTimeline empty;
        const ClockAlignment a = alignClocks(empty, empty);
        QVERIFY(!a.attempted);
        QVERIFY(!a.aligned);
    }
};

QTEST_GUILESS_MAIN(TestClockAlignment)
#include "tst_clockalignment.moc"
