// The trace's own memory in the budget (issue 24 item 5; docs/memory.md): the workbench's HBM
// capacity at its default becomes deviceProperties' totalGlobalMem when no memory telemetry
// exists (a typed value wins; the reference keeps 192 GB); without telemetry the memory
// headroom uses the peak Total Reserved of the trace's [memory] events, named as such and
// "estimated"; with no memory source at all it is unknown, never 0.
//
// Fixtures: memory/tracelens_h100_falconsai_… (H100, 620 [memory] events, no telemetry;
// expected values in memory/…memory.expected.json from scripts/memory_peaks.py),
// traceonly/datawait-20ms (a make_run trace: MI300X deviceProperties, no [memory] events, no
// telemetry), runs/v3-metric-1gpu (amd_smi.csv telemetry).

#include "derived.h"
#include "report.h"
#include "runanalysis.h"
#include "testsupport.h"
#include "tracememoryfigures.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonArray>
#include <QTest>

#include <map>

using namespace goblin;

namespace {

std::shared_ptr<const RunAnalysis> load(const QString &relative)
{
    static std::map<QString, std::shared_ptr<const RunAnalysis>> cache;
    auto it = cache.find(relative);
    if (it != cache.end())
        return it->second;
    const LoadResult loaded = loadRun(test::dataPath(relative));
    return cache[relative] = loaded.outcome == LoadOutcome::Finished ? loaded.run : nullptr;
}

QJsonObject expectedDevice(const QString &name)
{
    QFile f(test::dataPath(QStringLiteral("memory/%1.memory.expected.json").arg(name)));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object().value(QLatin1String("devices")).toArray().first().toObject();
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)); }

} // namespace

class TestTraceMemoryBudget : public QObject
{
    Q_OBJECT

private slots:
    void traceMemoryWithoutTelemetry()
    {
        const auto run = load(QStringLiteral("memory/tracelens_h100_falconsai_memory_modules__1016002.json.gz"));
        QVERIFY(run);
        QVERIFY(!run->smi.workbench.hbmPeakGb);
        const QJsonObject want = expectedDevice(QStringLiteral("tracelens_h100_falconsai_memory_modules__1016002"));
        QVERIFY(!want.isEmpty());
        const double capacityGb = want[QLatin1String("capacity_bytes")].toDouble() / kBytesPerHbmGb;
        const double peakGb = want[QLatin1String("peak_reserved_bytes")].toDouble() / kBytesPerHbmGb;
        QVERIFY(capacityGb > 79.0 && capacityGb < 80.0);  // an H100 80GB in 2^30-byte GB

        const Derived d = deriveResults(*run, HeuristicsProfile::Workbench, Thresholds{});
        QVERIFY(near(d.thresholds.hbmCapacityGb, capacityGb));
        const Quantity &capacity = d.quantities[QuantityKey::HbmCapacityGb];
        QVERIFY(capacity.value && near(*capacity.value, capacityGb));
        QVERIFY2(capacity.source.contains(QLatin1String("totalGlobalMem")), qPrintable(capacity.source));
        const Quantity &peak = d.quantities[QuantityKey::HbmPeakGb];
        QVERIFY(peak.value && near(*peak.value, peakGb));
        QCOMPARE(peak.state, ValueState::Estimated);
        QVERIFY2(peak.source.startsWith(QLatin1String("trace [memory] events: peak reserved")), qPrintable(peak.source));
        QVERIFY2(peak.source.contains(QLatin1String("lower bound")), qPrintable(peak.source));
        // The budget used them: headroom is estimated (0.3 % of the HBM held: all slack).
        const WasteBudget &b = d.metrics.wasteBudget;
        QCOMPARE(b.states[4], ValueState::Estimated);
        QVERIFY(b.terms.hbmPeakGb && near(*b.terms.hbmPeakGb, peakGb));
        QVERIFY(near(b.terms.hbmCapacityGb, capacityGb));

        // A typed capacity wins.
        Thresholds typed;
        typed.hbmCapacityGb = 40.0;
        const Derived t = deriveResults(*run, HeuristicsProfile::Workbench, typed);
        QCOMPARE(t.thresholds.hbmCapacityGb, 40.0);
        QCOMPARE(t.metrics.wasteBudget.terms.hbmCapacityGb, 40.0);
        QCOMPARE(t.quantities[QuantityKey::HbmCapacityGb].source, QStringLiteral("the HBM capacity threshold, as set"));

        // The reference keeps its own reading: 192 GB, no trace peak.
        const Derived r = deriveResults(*run, HeuristicsProfile::Reference, Thresholds{});
        QCOMPARE(r.thresholds.hbmCapacityGb, Thresholds{}.hbmCapacityGb);
    }

    void noMemorySourceIsUnknown()
    {
        const auto run = load(QStringLiteral("traceonly/datawait-20ms"));
        QVERIFY(run);
        QVERIFY(!run->smi.workbench.hbmPeakGb);
        QCOMPARE(run->torch.memory.memoryEvents, qint64(0));
        const Derived d = deriveResults(*run, HeuristicsProfile::Workbench, Thresholds{});
        const Quantity &peak = d.quantities[QuantityKey::HbmPeakGb];
        QVERIFY(!peak.value);
        QCOMPARE(peak.state, ValueState::Unknown);
        QCOMPARE(d.metrics.wasteBudget.states[4], ValueState::Unknown);
        QCOMPARE(int(d.metrics.wasteBudget.terms.gates[4]), int(BucketGate::NoHbmTelemetry));
        // Nothing uses a capacity without a peak, but the threshold (as the panel and the charts
        // show it) and the quantity are the trace's (deviceProperties: make_run's MI300X,
        // 205,822,885,888 B), not an MI300X's nominal 192 GB.
        const double traceGb = 205822885888.0 / kBytesPerHbmGb;
        QVERIFY(near(d.thresholds.hbmCapacityGb, traceGb));
        QVERIFY(near(appliedThresholds(*run, HeuristicsProfile::Workbench, Thresholds{}).hbmCapacityGb, traceGb));
        const Quantity &capacity = d.quantities[QuantityKey::HbmCapacityGb];
        QVERIFY(capacity.value && near(*capacity.value, traceGb));
        QCOMPARE(capacity.state, ValueState::Measured);
        QVERIFY2(capacity.source.contains(QLatin1String("totalGlobalMem")), qPrintable(capacity.source));
        // The reference keeps its 192 GB; a typed value wins.
        QCOMPARE(deriveResults(*run, HeuristicsProfile::Reference, Thresholds{}).thresholds.hbmCapacityGb,
                 Thresholds{}.hbmCapacityGb);
        Thresholds typed;
        typed.hbmCapacityGb = 40.0;
        QCOMPARE(deriveResults(*run, HeuristicsProfile::Workbench, typed).thresholds.hbmCapacityGb, 40.0);
    }

    void deviceCapacityWithoutMemoryEvents()
    {
        // A V100 16GB trace with deviceProperties and no [memory] events: the capacity the window
        // shows is 15.8 GB (2^30-byte GB), not 192.
        const auto run = load(QStringLiteral("attribution/hta_v100_rank1of2_cudagraph_record_shapes.json.gz"));
        QVERIFY(run);
        QCOMPARE(run->torch.memory.memoryEvents, qint64(0));
        const Derived d = deriveResults(*run, HeuristicsProfile::Workbench, Thresholds{});
        QVERIFY(near(d.thresholds.hbmCapacityGb, 16945512448.0 / kBytesPerHbmGb));
    }

    void telemetryWins()
    {
        const auto run = load(QStringLiteral("runs/v3-metric-1gpu"));
        QVERIFY(run);
        QVERIFY(run->smi.workbench.hbmPeakGb);
        const Derived d = deriveResults(*run, HeuristicsProfile::Workbench, Thresholds{});
        const Quantity &peak = d.quantities[QuantityKey::HbmPeakGb];
        QVERIFY(peak.value && near(*peak.value, *run->smi.workbench.hbmPeakGb));
        QCOMPARE(peak.state, ValueState::Measured);
        // The telemetry's total memory (its VRAM total column) is the capacity the peak is
        // measured against: the threshold's default becomes it, measured; a value set wins.
        QVERIFY(run->smi.hbmTotalGb);
        QCOMPARE(d.thresholds.hbmCapacityGb, *run->smi.hbmTotalGb);
        const Quantity &capacity = d.quantities[QuantityKey::HbmCapacityGb];
        QCOMPARE(capacity.state, ValueState::Measured);
        QVERIFY2(capacity.source.contains(QLatin1String("total memory in")), qPrintable(capacity.source));
        Thresholds set;
        set.hbmCapacityGb = 64.0;
        QCOMPARE(deriveResults(*run, HeuristicsProfile::Workbench, set).thresholds.hbmCapacityGb, 64.0);
        QCOMPARE(deriveResults(*run, HeuristicsProfile::Reference, Thresholds{}).thresholds.hbmCapacityGb,
                 Thresholds{}.hbmCapacityGb);
        QVERIFY(d.metrics.wasteBudget.terms.hbmPeakGb && near(*d.metrics.wasteBudget.terms.hbmPeakGb,
                                                              *run->smi.workbench.hbmPeakGb));
        QCOMPARE(d.metrics.wasteBudget.states[4], ValueState::Estimated);
    }

    void reportMemoryKey()
    {
        // The report's `memory` (memoryjson.h) against the script's count, and the schema.
        const QString name = QStringLiteral("tracelens_mi300_gaunernst_bert-small-uncased__1016001");
        const auto run = load(QStringLiteral("memory/%1.json.gz").arg(name));
        QVERIFY(run);
        const QJsonObject report = buildReport(*run, HeuristicsProfile::Workbench, Thresholds{});
        const QJsonObject schema =
            QJsonDocument::fromJson(test::readAll(QStringLiteral(GOBLIN_SOURCE_DIR "/resources/report.schema.json"))).object();
        // The `memory` subtree alone against its schema (it has no $ref): other keys are others'.
        const QJsonObject memorySchema =
            schema.value(QLatin1String("properties")).toObject().value(QLatin1String("memory")).toObject();
        QVERIFY(!memorySchema.isEmpty());
        const QJsonObject memory = report.value(QLatin1String("memory")).toObject();
        const QStringList problems = test::validateJsonSchema(memory, memorySchema);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        const QJsonArray devices = memory.value(QLatin1String("devices")).toArray();
        QCOMPARE(devices.size(), 1);
        const QJsonObject got = devices.first().toObject();
        const QJsonObject want = expectedDevice(name);
        QCOMPARE(got[QLatin1String("device")].toInt(), want[QLatin1String("device")].toInt());
        QCOMPARE(got[QLatin1String("device_type")].toInt(), 6);  // ROCm
        QCOMPARE(got[QLatin1String("name")].toString(), want[QLatin1String("name")].toString());
        QVERIFY(near(got[QLatin1String("capacity_gb")].toDouble(), want[QLatin1String("capacity_bytes")].toDouble() / kBytesPerHbmGb));
        QVERIFY(near(got[QLatin1String("peak_allocated_gb")].toDouble(),
                     want[QLatin1String("peak_allocated_bytes")].toDouble() / kBytesPerHbmGb));
        QVERIFY(near(got[QLatin1String("peak_reserved_gb")].toDouble(),
                     want[QLatin1String("peak_reserved_bytes")].toDouble() / kBytesPerHbmGb));
        QCOMPARE(got[QLatin1String("events")].toInteger(), want[QLatin1String("events")].toInteger());
        QVERIFY(got[QLatin1String("source")].toString().contains(QLatin1String("[memory]")));
        const QJsonObject top = got[QLatin1String("top_ops")].toArray().first().toObject();
        const QJsonObject wantTop = want[QLatin1String("top_ops")].toArray().first().toObject();
        QCOMPARE(top[QLatin1String("name")].toString(), wantTop[QLatin1String("name")].toString());
        QCOMPARE(top[QLatin1String("allocations")].toInteger(), wantTop[QLatin1String("allocations")].toInteger());
        QVERIFY(near(top[QLatin1String("allocated_gb")].toDouble(),
                     wantTop[QLatin1String("allocated_bytes")].toDouble() / kBytesPerHbmGb));

        // No trace memory: `memory` is there with no devices.
        const auto plain = load(QStringLiteral("traceonly/datawait-20ms"));
        QVERIFY(plain);
        const QJsonObject none = buildReport(*plain, HeuristicsProfile::Workbench, Thresholds{});
        QCOMPARE(none.value(QLatin1String("memory")).toObject().value(QLatin1String("devices")).toArray().size(), 0);
        QCOMPARE(none.value(QLatin1String("memory")).toObject().value(QLatin1String("events")).toInteger(), 0);
    }

    void figuresPickTheFullestDevice()
    {
        TorchTrace t;
        DeviceMemory a, b;
        a.deviceId = 0;
        a.deviceType = 1;
        a.eventsWithReserved = 3;
        a.peakReservedBytes = qint64(2) << 30;
        a.capacityBytes = qint64(16) << 30;
        b.deviceId = 1;
        b.deviceType = 1;
        b.eventsWithReserved = 1;
        b.peakReservedBytes = qint64(5) << 30;
        b.name = QStringLiteral("GPU B");
        t.memory.devices = {a, b};
        TraceMemoryFigures f = traceMemoryFigures(t);
        QCOMPARE(f.deviceId, 1);
        QCOMPARE(*f.peakReservedGb, 5.0);
        QVERIFY(!f.capacityGb);  // device 1 has none and no deviceProperties are there
        QVERIFY(!f.peakAllocatedGb);
        QCOMPARE(hbmCapacityDefaultGb(f, 192.0), 192.0);
        f.capacityGb = 32.0;
        QCOMPARE(hbmCapacityDefaultGb(f, 192.0), 32.0);
        QCOMPARE(hbmCapacityDefaultGb(f, 100.0), 100.0);  // typed
        f.capacityGb = 0.5;  // below the knob's range: not a capacity
        QCOMPARE(hbmCapacityDefaultGb(f, 192.0), 192.0);
    }
};

QTEST_GUILESS_MAIN(TestTraceMemoryBudget)
#include "tst_tracememorybudget.moc"
