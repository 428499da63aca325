// The allocator's [memory] events of a Kineto trace (issue 24 item 5; src/parsers/tracememory.h,
// docs/memory.md): per GPU device the events, the peaks of Total Allocated / Total Reserved, the
// peaks per ProfilerStep#N, deviceProperties' name / capacity / SM count, and the ops that
// allocated most.
//
// Real fixtures (tests/data/memory, PROVENANCE.md) whose expected values come from an independent
// count with Python's json module:
//     cd tests/data/memory && python3 ../../../scripts/memory_peaks.py FILE > NAME.memory.expected.json
// Each is read whole and in tiny byte ranges on several threads (the consumers' absorb()).

#include "torchtraceparser.h"
#include "workbench/memoryconsumer.h"
#include "testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace goblin;
using goblin::test::dataPath;

namespace {

/// A device as one line of text, in the script's terms: a failure shows what differs.
QString deviceText(const DeviceMemory &d, int topOps)
{
    QStringList steps, ops;
    for (const StepMemoryPeak &s : d.steps)
        steps << QStringLiteral("%1 %2/%3")
                     .arg(s.label,
                          d.allocatedFrom != AllocatedFrom::None ? QString::number(s.peakAllocatedBytes) : QStringLiteral("null"),
                          d.eventsWithReserved ? QString::number(s.peakReservedBytes) : QStringLiteral("null"));
    for (int i = 0; i < std::min<int>(topOps, int(d.topOps.size())); ++i)
        ops << QStringLiteral("%1 %2x %3").arg(d.topOps[size_t(i)].name).arg(d.topOps[size_t(i)].allocations)
                   .arg(d.topOps[size_t(i)].allocatedBytes);
    const char *from[] = {"null", "allocator_totals", "bytes_running_sum"};
    return QStringLiteral("type %1 id %2 events %3 peak %4/%5 name '%6' capacity %7 units %8 allocations %9 "
                          "outside %10 | steps [%11] | ops [%12] | from %13")
        .arg(d.deviceType)
        .arg(d.deviceId)
        .arg(d.events)
        .arg(d.allocatedFrom != AllocatedFrom::None ? QString::number(d.peakAllocatedBytes) : QStringLiteral("null"))
        .arg(d.eventsWithReserved ? QString::number(d.peakReservedBytes) : QStringLiteral("null"))
        .arg(d.name)
        .arg(d.capacityBytes ? QString::number(*d.capacityBytes) : QStringLiteral("null"))
        .arg(d.computeUnits ? QString::number(*d.computeUnits) : QStringLiteral("null"))
        .arg(d.allocations)
        .arg(d.allocationsOutsideOps)
        .arg(steps.join(QStringLiteral(", ")), ops.join(QStringLiteral(", ")),
             QString::fromLatin1(from[int(d.allocatedFrom)]));
}

QString number(const QJsonValue &v)
{
    return v.isNull() || v.isUndefined() ? QStringLiteral("null") : QString::number(v.toInteger());
}

/// The same line from the script's JSON.
QString expectedText(const QJsonObject &d, int &topOps)
{
    QStringList steps, ops;
    for (const QJsonValue &s : d.value(QLatin1String("steps")).toArray())
        steps << QStringLiteral("%1 %2/%3")
                     .arg(s[QLatin1String("label")].toString(), number(s[QLatin1String("peak_allocated_bytes")]),
                          number(s[QLatin1String("peak_reserved_bytes")]));
    const QJsonArray top = d.value(QLatin1String("top_ops")).toArray();
    topOps = int(top.size());
    for (const QJsonValue &o : top)
        ops << QStringLiteral("%1 %2x %3")
                   .arg(o[QLatin1String("name")].toString(), number(o[QLatin1String("allocations")]),
                        number(o[QLatin1String("allocated_bytes")]));
    const QJsonValue from = d[QLatin1String("allocated_from")];
    return QStringLiteral("type %1 id %2 events %3 peak %4/%5 name '%6' capacity %7 units %8 allocations %9 "
                          "outside %10 | steps [%11] | ops [%12] | from %13")
        .arg(number(d[QLatin1String("device_type")]), number(d[QLatin1String("device")]),
             number(d[QLatin1String("events")]), number(d[QLatin1String("peak_allocated_bytes")]),
             number(d[QLatin1String("peak_reserved_bytes")]), d[QLatin1String("name")].toString(),
             number(d[QLatin1String("capacity_bytes")]), number(d[QLatin1String("num_sms")]),
             number(d[QLatin1String("allocations")]))
        .arg(number(d[QLatin1String("allocations_outside_ops")]), steps.join(QStringLiteral(", ")),
             ops.join(QStringLiteral(", ")), from.isString() ? from.toString() : QStringLiteral("null"));
}

TorchTrace parseText(const QByteArray &json)
{
    return parseTorchTraceBytes(json, QStringLiteral("trace.json"));
}

QByteArray memoryEvent(double tsUs, int type, int id, qint64 bytes, qint64 allocated, qint64 reserved, int tid = 7)
{
    return QStringLiteral(R"({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": %1, )"
                          R"("ts": %2, "args": {"Total Reserved": %3, "Total Allocated": %4, "Bytes": %5, )"
                          R"("Addr": 1234, "Device Id": %6, "Device Type": %7, "Ev Idx": 1}})")
        .arg(tid)
        .arg(tsUs, 0, 'f', 3)
        .arg(reserved)
        .arg(allocated)
        .arg(bytes)
        .arg(id)
        .arg(type)
        .toUtf8();
}

QByteArray document(const QByteArrayList &events, const QByteArray &header = {})
{
    return "{" + header + "\"traceEvents\": [" + events.join(",\n") + "]}";
}

} // namespace

class TestTraceMemory : public QObject
{
    Q_OBJECT

private slots:
    void realFixtures_data();
    void realFixtures();
    void literal_data();
    void literal();
    void decimationKeepsPeaks();
    void argsReader();
};

void TestTraceMemory::realFixtures_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("ranges");
    const char *files[] = {"tracelens_h100_falconsai_memory_modules__1016002", "tracelens_h100_gaunernst_bert-small-uncased__1016001",
                           "tracelens_mi300_gaunernst_bert-small-uncased__1016001", "kineto_2021_resnet50_memory_steps6to7"};
    const char *rows[] = {"H100 inference (falconsai)", "H100 BERT", "MI300 BERT (Device Type 6)", "Kineto 2021 (no totals)"};
    for (int i = 0; i < 4; ++i) {
        QTest::addRow("%s, whole", rows[i]) << QString::fromLatin1(files[i]) << false;
        QTest::addRow("%s, byte ranges", rows[i]) << QString::fromLatin1(files[i]) << true;
    }
}

void TestTraceMemory::realFixtures()
{
    QFETCH(QString, file);
    QFETCH(bool, ranges);
    const QString trace = dataPath(QStringLiteral("memory/%1.json.gz").arg(file));
    QFile expectedFile(dataPath(QStringLiteral("memory/%1.memory.expected.json").arg(file)));
    QVERIFY(expectedFile.open(QIODevice::ReadOnly));
    const QJsonObject expected = QJsonDocument::fromJson(expectedFile.readAll()).object();
    QVERIFY(!expected.isEmpty());

    TorchTrace t;
    if (!ranges) {
        t = parseTorchTraceFile(trace, file);
    } else {
        // Ranges are cut in plain files only: the trace unzipped, read in 64 KiB ranges.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString plain = dir.filePath(QStringLiteral("trace.json"));
        QFile out(plain);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(test::readGunzipped(trace));
        out.close();
        t = parseTorchTraceFile(plain, file, {}, 16384, 65536);
    }
    const TraceMemory &m = t.memory;
    QCOMPARE(m.memoryEvents, expected.value(QLatin1String("memory_events")).toInteger());
    QCOMPARE(m.cpuEvents, expected.value(QLatin1String("cpu_events")).toInteger());
    QCOMPARE(m.outOfMemoryEvents, expected.value(QLatin1String("out_of_memory_events")).toInteger());
    // Read whole or in ranges, every op takes part in the join (the attribution's sweep).
    QVERIFY(m.opsComplete);
    const QJsonArray devices = expected.value(QLatin1String("devices")).toArray();
    QCOMPARE(qsizetype(m.devices.size()), devices.size());
    for (qsizetype i = 0; i < devices.size(); ++i) {
        int topOps = 0;
        const QString want = expectedText(devices[i].toObject(), topOps);
        QVERIFY(topOps > 0);
        const DeviceMemory &device = m.devices[size_t(i)];
        QCOMPARE(device.allocationsOpUnknown, qint64(0));
        QCOMPARE(deviceText(device, topOps), want);
        // The curve carries every event with totals (none of these is long enough to decimate).
        const DeviceMemory &d = device;
        const qint64 allocatedPoints = d.allocatedFrom == AllocatedFrom::BytesRunningSum ? d.eventsWithBytes
                                                                                          : d.eventsWithAllocated;
        QCOMPARE(qint64(d.curve.size()), std::max(allocatedPoints, d.eventsWithReserved));
        QVERIFY(std::is_sorted(d.curve.begin(), d.curve.end(),
                               [](const MemoryPoint &a, const MemoryPoint &b) { return a.timestampNs < b.timestampNs; }));
    }
}

void TestTraceMemory::literal_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("expected");  // deviceText of every device, " ; "-joined
    QTest::addColumn<qint64>("memoryEvents");
    QTest::addColumn<int>("warnings");      // diagnostics naming [memory]

    const QByteArray props = R"("deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X", "totalGlobalMem": 1000, "numSms": 4},)"
                             R"( {"id": 1, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 2000, "numSms": 8}], )";
    const QByteArray op = R"({"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 7, "ts": 10, "dur": 100, "args": {}})";
    const QByteArray inner = R"({"ph": "X", "cat": "cpu_op", "name": "aten::zeros", "pid": 1, "tid": 7, "ts": 20, "dur": 10, "args": {}})";
    const QByteArray step = R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 7, "ts": 15, "dur": 50, "args": {}})";

    QTest::newRow("no memory events") << document({op}, props) << QString() << qint64(0) << 0;
    QTest::newRow("host events only: no device")
        << document({memoryEvent(12, 0, -1, 64, 64, 0)}, props) << QString() << qint64(1) << 0;
    // Device Id 1 is deviceProperties' id 1 (whatever the kernels' device); the innermost op wins;
    // a free is no allocation; an allocation on another thread has no op.
    QTest::newRow("innermost op, device 1, step carried in")
        << document({op, inner, step, memoryEvent(12, 1, 1, 100, 100, 512), memoryEvent(25, 1, 1, 50, 150, 512),
                     memoryEvent(40, 1, 1, -100, 50, 1024), memoryEvent(45, 1, 1, 30, 80, 1024, 8)},
                    props)
        << QStringLiteral("type 1 id 1 events 4 peak 150/1024 name 'NVIDIA H100 80GB HBM3' capacity 2000 units 8 allocations 3 "
                          "outside 1 | steps [ProfilerStep#3 150/1024] | ops [aten::empty 1x 100, aten::zeros 1x 50] | from allocator_totals")
        << qint64(4) << 0;
    QTest::newRow("ROCm Device Type 6, no deviceProperties")
        << document({memoryEvent(12, 6, 0, 100, 100, 200)})
        << QStringLiteral("type 6 id 0 events 1 peak 100/200 name '' capacity null units null allocations 1 "
                          "outside 1 | steps [] | ops [] | from allocator_totals")
        << qint64(1) << 0;
    QTest::newRow("two devices, unusable event diagnosed")
        << document({memoryEvent(12, 1, 0, 10, 10, 20), memoryEvent(13, 1, 1, 10, 30, 40),
                     R"({"ph": "i", "name": "[memory]", "pid": 1, "tid": 7, "ts": 14, "args": {"Bytes": 4}})",
                     R"({"ph": "i", "name": "[OutOfMemory]", "pid": 1, "tid": 7, "ts": 15, "args": {"Device Type": 1}})"},
                    props)
        << QStringLiteral("type 1 id 0 events 1 peak 10/20 name 'AMD Instinct MI300X' capacity 1000 units 4 allocations 1 outside 1 "
                          "| steps [] | ops [] | from allocator_totals ; type 1 id 1 events 1 peak 30/40 name 'NVIDIA H100 80GB HBM3' "
                          "capacity 2000 units 8 allocations 1 outside 1 | steps [] | ops [] | from allocator_totals")
        << qint64(3) << 1;
    // Kineto 2021 (issue 32): Bytes only. Allocated is the running sum of the signed Bytes since
    // the trace began (100, 150, 50, 80: peak 150; the step carries 100 in and sees 150, 50);
    // nothing says what was reserved.
    const auto bytesOnly = [](double tsUs, qint64 bytes, int tid = 7) {
        return QStringLiteral(R"({"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": %1, "ts": %2, )"
                              R"("args": {"Device Type": 1, "Device Id": 0, "Bytes": %3}})")
            .arg(tid)
            .arg(tsUs, 0, 'f', 3)
            .arg(bytes)
            .toUtf8();
    };
    QTest::newRow("Kineto 2021: Bytes only, running sum")
        << document({op, inner, step, bytesOnly(12, 100), bytesOnly(25, 50), bytesOnly(40, -100), bytesOnly(45, 30, 8)},
                    props)
        << QStringLiteral("type 1 id 0 events 4 peak 150/null name 'AMD Instinct MI300X' capacity 1000 units 4 allocations 3 "
                          "outside 1 | steps [ProfilerStep#3 150/null] | ops [aten::empty 1x 100, aten::zeros 1x 50] | "
                          "from bytes_running_sum")
        << qint64(4) << 0;
    // Frees before any allocation: the sum goes below the trace's start, the peak stays 0.
    QTest::newRow("Kineto 2021: frees first")
        << document({bytesOnly(12, -64), bytesOnly(13, -64), bytesOnly(14, 32)})
        << QStringLiteral("type 1 id 0 events 3 peak 0/null name '' capacity null units null allocations 1 "
                          "outside 1 | steps [] | ops [] | from bytes_running_sum")
        << qint64(3) << 0;
}

void TestTraceMemory::literal()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, expected);
    QFETCH(qint64, memoryEvents);
    QFETCH(int, warnings);
    const TorchTrace t = parseText(json);
    QStringList got;
    for (const DeviceMemory &d : t.memory.devices)
        got << deviceText(d, 20);
    QCOMPARE(got.join(QStringLiteral(" ; ")), expected);
    QCOMPARE(t.memory.memoryEvents, memoryEvents);
    const int named = int(std::count_if(t.diagnostics.begin(), t.diagnostics.end(), [](const Diagnostic &d) {
        return d.message.contains(QLatin1String("[memory]"));
    }));
    QCOMPARE(named, warnings);
}

void TestTraceMemory::decimationKeepsPeaks()
{
    // 20,000 events: one spike of allocated and a later one of reserved must survive decimation.
    QByteArrayList events;
    for (int i = 0; i < 20000; ++i) {
        const qint64 allocated = i == 12345 ? 9000 : 100 + (i % 7);
        const qint64 reserved = i == 17777 ? 99999 : 5000;
        events << memoryEvent(10 + i, 1, 0, 1, allocated, reserved);
    }
    const TorchTrace t = parseText(document(events));
    QCOMPARE(t.memory.devices.size(), size_t(1));
    const DeviceMemory &d = t.memory.devices[0];
    QCOMPARE(d.events, qint64(20000));
    QCOMPARE(d.peakAllocatedBytes, qint64(9000));
    QCOMPARE(d.peakReservedBytes, qint64(99999));
    QVERIFY(d.curve.size() <= 4096);
    QVERIFY(d.curve.size() > 1000);
    qint64 maxAllocated = 0, maxReserved = 0, minAllocated = 1 << 30;
    for (const MemoryPoint &p : d.curve) {
        maxAllocated = std::max(maxAllocated, p.allocatedBytes);
        maxReserved = std::max(maxReserved, p.reservedBytes);
        minAllocated = std::min(minAllocated, p.allocatedBytes);
    }
    QCOMPARE(maxAllocated, qint64(9000));
    QCOMPARE(maxReserved, qint64(99999));
    QCOMPARE(minAllocated, qint64(100));
    QCOMPARE(d.curve[0].timestampNs, qint64(10000));
}

void TestTraceMemory::argsReader()
{
    const workbench::MemoryArgs a = workbench::readMemoryArgs(
        R"({"Total Reserved": 2.5e3, "Nested": {"Bytes": 99}, "Total Allocated": 7, "Bytes": -8, "Device Id": 3, "Device Type": 6}, "tid": 1})");
    QVERIFY(a.haveReserved && a.haveAllocated && a.haveBytes && a.haveDeviceId && a.haveDeviceType);
    QCOMPARE(a.totalReserved, qint64(2500));
    QCOMPARE(a.totalAllocated, qint64(7));
    QCOMPARE(a.bytes, qint64(-8));
    QCOMPARE(a.deviceId, qint64(3));
    QCOMPARE(a.deviceType, qint64(6));
}

QTEST_GUILESS_MAIN(TestTraceMemory)
#include "tst_tracememory.moc"
