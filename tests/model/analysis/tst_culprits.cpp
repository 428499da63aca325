// The ops and modules behind the advice (issue 24, "Advice says where"): the host self time each op
// ran while every GPU was idle, against an independent count over the raw trace
// (scripts/attribution_count.py: its `host_self_gpu_idle` per op), and the ops behind the kernel
// classes (generic/fp16/fp32 GEMMs, collectives), which must add up to no more than the GPU time
// each op launched.

#include "torchtraceparser.h"
#include "advice.h"
#include "derived.h"
#include "runanalysis.h"
#include "testsupport.h"

#include <QTest>

using namespace goblin;

namespace {

QString fixture(const QString &file) { return QStringLiteral(GOBLIN_TEST_DATA "/attribution/") + file; }

bool within(double a, double b) { return std::abs(a - b) <= std::max(1000.0, 5e-5 * std::max(std::abs(a), std::abs(b))); }

} // namespace

class TestCulprits : public QObject
{
    Q_OBJECT

private slots:
    void hostSelfInGpuIdleMatchesIndependentCount_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("shapes");  // "-": not recorded
        QTest::addColumn<qint64>("calls");
        QTest::addColumn<qint64>("idleNs");
        // python3 scripts/attribution_count.py tests/data/attribution/FILE: the ops with most
        // host_self_gpu_idle.
        const QString bert = QStringLiteral("tracelens_h100_gaunernst_bert-small-uncased__1016001.json.gz");
        QTest::newRow("bert H100: addmm 512x512") << bert << "aten::addmm" << "[[512],[141,512],[512,512],[],[]]" << qint64(17) << qint64(437701);
        QTest::newRow("bert H100: empty") << bert << "aten::empty" << "[[],[],[],[],[],[]]" << qint64(75) << qint64(184492);
        QTest::newRow("bert H100: addmm 2048x512") << bert << "aten::addmm" << "[[512],[141,2048],[2048,512],[],[]]" << qint64(4) << qint64(152579);
        const QString resnet = QStringLiteral("kineto_2021_resnet50_worker0.json.gz");
        QTest::newRow("resnet50 2021: DataLoader") << resnet << "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__" << "-" << qint64(6) << qint64(229156000);
        QTest::newRow("resnet50 2021: copy_") << resnet << "aten::copy_" << "[[3,224,224],[3,224,224],[]]" << qint64(384) << qint64(30309000);
        const QString v100 = QStringLiteral("hta_v100_rank1of2_cudagraph_record_shapes.json.gz");
        // make_run: one device, one stream in order (read in place, not copied into a union).
        QTest::newRow("make_run data-bound: cat") << QStringLiteral("../traceonly/datawait-20ms/torch_profile.json.gz")
                                                  << "aten::cat" << "-" << qint64(4) << qint64(39540448);
        QTest::newRow("V100 graphs: _local_scalar_dense") << v100 << "aten::_local_scalar_dense" << "[[]]" << qint64(30) << qint64(2612000);
    }
    void hostSelfInGpuIdleMatchesIndependentCount()
    {
        QFETCH(QString, file);
        QFETCH(QString, op);
        QFETCH(QString, shapes);
        QFETCH(qint64, calls);
        QFETCH(qint64, idleNs);
        const TorchTrace trace = parseTorchTraceFile(fixture(file), file);
        const OpStats *found = nullptr;
        for (const OpStats &row : trace.attribution.wholeTrace.ops)
            if (row.name == op && (shapes == QLatin1String("-") ? !row.inputShapes : row.inputShapes == shapes))
                found = &row;
        QVERIFY2(found, qPrintable(op));
        QCOMPARE(found->calls, calls);
        QVERIFY2(within(double(found->hostSelfGpuIdleNs), double(idleNs)),
                 qPrintable(QStringLiteral("%1 vs %2 ns").arg(found->hostSelfGpuIdleNs).arg(idleNs)));
        QVERIFY(found->hostSelfGpuIdleNs <= found->hostSelfNs);
        for (const OpStats &row : trace.attribution.wholeTrace.ops)
            QVERIFY2(row.hostSelfGpuIdleNs >= 0 && row.hostSelfGpuIdleNs <= row.hostSelfNs, qPrintable(row.name));
    }

    void classOpsAddUpToWhatEachOpLaunched_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("bert H100") << QStringLiteral("tracelens_h100_gaunernst_bert-small-uncased__1016001.json.gz");
        QTest::newRow("bert MI300") << QStringLiteral("tracelens_mi300_gaunernst_bert-small-uncased__1016001.json.gz");
        QTest::newRow("V100 graphs") << QStringLiteral("hta_v100_rank1of2_cudagraph_record_shapes.json.gz");
        QTest::newRow("resnet50 2021") << QStringLiteral("kineto_2021_resnet50_worker0.json.gz");
    }
    void classOpsAddUpToWhatEachOpLaunched()
    {
        QFETCH(QString, file);
        const LoadResult loaded = loadRun(fixture(file));
        QVERIFY2(loaded.run, qPrintable(loaded.error));
        const RunAnalysis &run = *loaded.run;
        const RunCulprits &c = run.culprits;
        QVERIFY(c.available);
        const double steps = c.steps > 0 ? double(c.steps) : 1.0;
        // Device self per op name over the scopes the culprits read (steps, else the whole trace).
        QHash<QString, qint64> deviceSelf;
        const auto addScope = [&](const AttributionScope &s) {
            for (const OpStats &op : s.ops)
                deviceSelf[op.name] += op.deviceSelfNs;
        };
        if (c.steps > 0)
            for (const AttributionScope &s : run.torch.attribution.steps)
                addScope(s);
        else
            addScope(run.torch.attribution.wholeTrace);
        bool anyClass = false;
        for (const ClassCulprits &cc : c.classes) {
            double listed = 0.0;
            for (const Culprit &op : cc.ops) {
                QVERIFY(op.secondsPerStep > 0.0);
                QVERIFY2(op.secondsPerStep * steps * 1e9 <= double(deviceSelf.value(op.name)) + 1.0,
                         qPrintable(QStringLiteral("%1: %2 s/step of its class, %3 ns launched in all")
                                        .arg(op.name).arg(op.secondsPerStep).arg(deviceSelf.value(op.name))));
                listed += op.secondsPerStep;
            }
            QVERIFY(listed <= cc.deviceSPerStep * (1.0 + 1e-12) + 1e-15);
            anyClass = anyClass || !cc.ops.empty();
        }
        QVERIFY2(anyClass, "no GEMM or collective op found behind any class");
        // The host-idle list: largest first, never more than its total.
        double previous = 1e300, listed = 0.0;
        for (const Culprit &op : c.hostIdle.ops) {
            QVERIFY(op.secondsPerStep <= previous);
            previous = op.secondsPerStep;
            listed += op.secondsPerStep;
        }
        QVERIFY(listed <= c.hostIdle.deviceSPerStep * (1.0 + 1e-12) + 1e-15);
    }

    void adviceNamesTheOps()
    {
        // The ResNet-50 trace: data-bound, its host gap and data wait have host ops in GPU idle.
        const LoadResult loaded = loadRun(fixture(QStringLiteral("kineto_2021_resnet50_worker0.json.gz")));
        QVERIFY2(loaded.run, qPrintable(loaded.error));
        const Derived d = deriveResults(*loaded.run, HeuristicsProfile::Workbench, Thresholds{});
        const std::vector<Advice> advice = adviseRun(*loaded.run, d);
        bool sawGap = false;
        for (const Advice &a : advice) {
            if (a.bucket != QLatin1String("host_gap"))
                continue;
            sawGap = true;
            QVERIFY2(a.text.contains(QLatin1String("While the GPU was idle (data wait and host gap together) the host ran")),
                     qPrintable(a.text));
            const QJsonArray ops = a.evidence.value(QStringLiteral("host_ops_in_gpu_idle")).toArray();
            QVERIFY(!ops.isEmpty());
            QCOMPARE(ops.first().toObject().value(QStringLiteral("name")).toString(),
                     loaded.run->culprits.hostIdle.ops.front().name);
        }
        QVERIFY(sawGap);
    }
};

QTEST_GUILESS_MAIN(TestCulprits)
#include "tst_culprits.moc"
