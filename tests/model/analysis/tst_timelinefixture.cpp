// A make_run torch trace read as a GPU timeline and checked against make_run's --truth. The
// torch parser's own timeline is filled by another part of the project; here a small test-only
// converter (QJsonDocument) reads the trace's GPU events, ProfilerSteps and CPU ops, so the
// model is checked on realistic data independently of the parser.

#include "torchtraceparser.h"
#include "runanalysis.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>
#include <cmath>

using namespace goblin;

namespace {

qint64 ns(double us) { return qint64(std::llround(us * 1000.0)); }

GpuTimeline convert(const QJsonObject &doc, const QString &file)
{
    GpuTimeline tl;
    GpuTimelineFile f;
    f.source = QStringLiteral("torch_profile");
    f.file = file;
    std::map<std::string, std::uint32_t> names;
    std::map<qint64, std::size_t> devices;
    for (const QJsonValue &v : doc.value(QStringLiteral("traceEvents")).toArray()) {
        const QJsonObject e = v.toObject();
        if (e.value(QStringLiteral("ph")).toString() != QLatin1String("X"))
            continue;
        const QString cat = e.value(QStringLiteral("cat")).toString();
        const QString name = e.value(QStringLiteral("name")).toString();
        const qint64 start = ns(e.value(QStringLiteral("ts")).toDouble());
        const qint64 end = start + ns(e.value(QStringLiteral("dur")).toDouble());
        if (cat == QLatin1String("user_annotation") && name.startsWith(QLatin1String("ProfilerStep#"))) {
            f.steps.push_back({name, start, end, false});
        } else if (cat == QLatin1String("cpu_op")) {
            f.hostBusy.push_back({start, end});
        } else if (cat == QLatin1String("kernel") || cat == QLatin1String("gpu_memcpy") || cat == QLatin1String("gpu_memset")) {
            const QJsonObject args = e.value(QStringLiteral("args")).toObject();
            const qint64 device = args.value(QStringLiteral("device")).toInteger();
            auto [it, added] = devices.emplace(device, f.devices.size());
            if (added) {
                f.devices.emplace_back();
                f.devices.back().device = device;
                f.devices.back().source = f.source;
                f.devices.back().file = file;
            }
            GpuDeviceTimeline &d = f.devices[it->second];
            const qint64 stream = args.value(QStringLiteral("stream")).toInteger();
            auto s = std::find(d.streams.begin(), d.streams.end(), stream);
            if (s == d.streams.end())
                s = d.streams.insert(d.streams.end(), stream);
            auto [n, newName] = names.emplace(name.toStdString(), std::uint32_t(f.names.size()));
            if (newName)
                f.names.push_back(name.toStdString());
            GpuEvent g;
            g.startNs = start;
            g.endNs = end;
            g.nameId = n->second;
            g.stream = std::uint16_t(s - d.streams.begin());
            g.kind = cat == QLatin1String("kernel") ? GpuEventKind::Kernel
                     : cat == QLatin1String("gpu_memcpy") ? GpuEventKind::Memcpy
                                                          : GpuEventKind::Memset;
            d.events.push_back(g);
        }
    }
    std::sort(f.steps.begin(), f.steps.end(), [](const StepWindow &a, const StepWindow &b) { return a.startNs < b.startNs; });
    tl.files.push_back(std::move(f));
    return tl;
}

} // namespace

class TestTimelineFixture : public QObject
{
    Q_OBJECT

private slots:
    void makeRunTraceOnlyMatchesTruth();
};

void TestTimelineFixture::makeRunTraceOnlyMatchesTruth()
{
    const QString dir = test::dataPath(QStringLiteral("timeline/makerun-4steps"));
    const QJsonObject truth = QJsonDocument::fromJson(test::readAll(dir + QStringLiteral("/truth.json"))).object();
    const QJsonObject doc = QJsonDocument::fromJson(test::readAll(dir + QStringLiteral("/torch_profile.json"))).object();
    QVERIFY(!truth.isEmpty() && !doc.isEmpty());

    RunAnalysis run;
    run.runDir = run.runDirAsGiven = dir;
    run.runName = QStringLiteral("makerun-4steps");
    run.torch = parseTorchTraceFile(dir + QStringLiteral("/torch_profile.json"), QStringLiteral("torch_profile.json"));
    run.torch.timeline = convert(doc, QStringLiteral("torch_profile.json"));
    analyzeRun(run);

    const double step = truth.value(QStringLiteral("step_time_s")).toDouble();
    QVERIFY(run.kernelsFromTorchTimeline);
    QCOMPARE(run.kernels.workbench.rowsUsed, qint64(4 * truth.value(QStringLiteral("kernels_per_step_per_gpu")).toInt()));
    const ProfileAnalysis &w = run.workbench;
    // The step plan's windows (docs/steps.md) against the truth's mean step: within 0.1 %.
    QVERIFY2(std::fabs(w.stepTimeS - step) <= 1e-3 * step,
             qPrintable(QStringLiteral("step %1, truth %2").arg(w.stepTimeS).arg(step)));
    // Utilisation within 5 points of the truth's (busy here includes the H2D memcpy).
    QVERIFY2(std::fabs(w.gpuUtilPct - truth.value(QStringLiteral("gpu_util_pct")).toDouble()) < 5.0,
             qPrintable(QString::number(w.gpuUtilPct)));
    // Collectives per step per GPU, as from trace.csv.
    QVERIFY2(std::fabs(w.budgetInputs.commExcessS - truth.value(QStringLiteral("collective_s_per_step_per_gpu")).toDouble())
                 < 0.05 * step,
             qPrintable(QString::number(w.budgetInputs.commExcessS)));
    QVERIFY(w.topKernels.front().name.contains(QLatin1String("gemm"), Qt::CaseInsensitive)
            || w.topKernels.front().name.startsWith(QLatin1String("Cijk")));

    QCOMPARE(run.torchTimeline.devices.size(), std::size_t(1));
    const DeviceTimelineAnalysis &d = run.torchTimeline.devices[0];
    QCOMPARE(d.perStep.size(), std::size_t(4));
    auto perStep = [&](qint64 TimelineStepValues::*m) { return d.meanPerStepNs(m) / 1e9; };
    // Same definitions as the truth: exact up to the µs rounding of the trace (1 µs per step).
    QVERIFY2(std::fabs(perStep(&TimelineStepValues::exposedCommNs)
                       - truth.value(QStringLiteral("collective_exposed_s_per_step_per_gpu")).toDouble()) < 1e-6,
             qPrintable(QString::number(perStep(&TimelineStepValues::exposedCommNs), 'g', 10)));
    QVERIFY2(std::fabs(perStep(&TimelineStepValues::commNs)
                       - truth.value(QStringLiteral("collective_s_per_step_per_gpu")).toDouble()) < 1e-6,
             qPrintable(QString::number(perStep(&TimelineStepValues::commNs), 'g', 10)));
    QVERIFY2(std::fabs(double(d.kernelTimeNs) / 4 / 1e9 - truth.value(QStringLiteral("kernel_time_s_per_step_per_gpu")).toDouble())
                 < 1e-6,
             qPrintable(QString::number(double(d.kernelTimeNs) / 4 / 1e9, 'g', 10)));
    const double busyKernelsAndCopies = perStep(&TimelineStepValues::busyNs) / step;
    QVERIFY2(busyKernelsAndCopies >= truth.value(QStringLiteral("gpu_busy_frac")).toDouble() - 1e-6
                 && busyKernelsAndCopies < truth.value(QStringLiteral("gpu_busy_frac")).toDouble() + 0.05,
             qPrintable(QString::number(busyKernelsAndCopies, 'g', 10)));
}

QTEST_GUILESS_MAIN(TestTimelineFixture)
#include "tst_timelinefixture.moc"
