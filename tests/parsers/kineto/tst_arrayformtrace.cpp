// The Trace Event Format's array form (a top-level `[ {...}, ... ]`, which torch 1.x's
// export_chrome_trace wrote and Perfetto opens) is a chrome trace: recognised by its content under
// any name, and its list read as traceEvents. The workbench reading of the array form of a real
// trace equals that of the same events in their object; the reference profile reads nothing from a
// list (profile_parser: `data.get("traceEvents") if isinstance(data, dict) else None`) and the
// diagnostics say so. Counts: tests/data/torch/make_array_form_fixture.py (Python's json module).

#include "io/runinventory.h"
#include "kineto/tracediscovery.h"
#include "testsupport.h"
#include "torchtraceparser.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <zlib.h>

using namespace goblin;
using goblin::test::dataPath;

namespace {

const QString kArrayForm = QStringLiteral("torch/kineto_2021_resnet50_steps6to8_array_form.json.gz");
const QString kObjectForm = QStringLiteral("torch/kineto_2021_resnet50_steps6to8.json.gz");

qint64 deviceEvents(const TorchTrace &trace)
{
    qint64 n = 0;
    for (const GpuTimelineFile &file : trace.timeline.files)
        for (const GpuDeviceTimeline &device : file.devices)
            n += qint64(device.events.size());
    return n;
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

} // namespace

class TestArrayFormTrace : public QObject
{
    Q_OBJECT
private slots:
    void recognisedByContent_data();
    void recognisedByContent();
    void realTraceReadsAsItsObjectForm();
    void chosenInAFolderUnderAnyName();
};

void TestArrayFormTrace::recognisedByContent_data()
{
    QTest::addColumn<QByteArray>("document");
    QTest::addColumn<bool>("chromeTrace");
    QTest::newRow("torch 1.x export_chrome_trace")
        << QByteArray(R"([{"name": "aten::conv2d", "ph": "X", "ts": 12.5, "dur": 100.25, "tid": 1,
 "pid": "CPU functions", "args": {}}, {"name": "volta_scudnn_128x64_relu", "ph": "X", "ts": 30.0, "dur": 80.0,
 "tid": 0, "pid": "CUDA functions", "args": {}}])")
        << true;
    QTest::newRow("Perfetto's JSON example, metadata event first")
        << QByteArray(R"([
  {"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "trainer"}},
  {"name": "step", "ph": "B", "pid": 1, "tid": 1, "ts": 0},
  {"name": "step", "ph": "E", "pid": 1, "tid": 1, "ts": 10}
])")
        << true;
    QTest::newRow("byte order mark, then the array") << QByteArray("\xEF\xBB\xBF[{\"ph\":\"X\",\"ts\":1,\"dur\":2}]") << true;
    QTest::newRow("object form") << QByteArray(R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1}]})") << true;
    QTest::newRow("a list of numbers") << QByteArray("[1, 2, 3]") << false;
    QTest::newRow("a list of objects without ph") << QByteArray(R"([{"name": "a", "ts": 1}])") << false;
    QTest::newRow("ph not a string") << QByteArray(R"([{"ph": 1, "name": "a", "ts": 1}])") << false;
    QTest::newRow("ph alone") << QByteArray(R"([{"ph": "X"}])") << false;
    QTest::newRow("an empty list") << QByteArray("[]") << false;
    QTest::newRow("a list of lists") << QByteArray(R"([[{"ph": "X", "name": "a"}]])") << false;
    QTest::newRow("first element cut off") << QByteArray(R"([{"ph": "X", "name": "a", "ts)") << false;
    QTest::newRow("object without traceEvents") << QByteArray(R"({"events": [{"ph": "X", "name": "a"}]})") << false;
}

void TestArrayFormTrace::recognisedByContent()
{
    QFETCH(QByteArray, document);
    QFETCH(bool, chromeTrace);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("events.json"));
    QVERIFY(writeFile(path, document));
    QCOMPARE(kineto::looksLikeChromeTrace(path), chromeTrace);
}

void TestArrayFormTrace::realTraceReadsAsItsObjectForm()
{
    const TorchTrace array = parseTorchTraceFile(dataPath(kArrayForm), QStringLiteral("array.json.gz"));
    const TorchTrace object = parseTorchTraceFile(dataPath(kObjectForm), QStringLiteral("object.json.gz"));

    // make_array_form_fixture.py: 6380 events; 4403 kernels + 158 memsets + 6 memcpys on the GPU; 3 steps.
    QCOMPARE(array.eventCount, qint64(6380));
    QCOMPARE(object.eventCount, qint64(6380));
    QCOMPARE(deviceEvents(array), qint64(4403 + 158 + 6));
    QCOMPARE(deviceEvents(object), deviceEvents(array));
    QCOMPARE(array.timeline.files.size(), size_t(1));
    QCOMPARE(array.timeline.files.front().steps.size(), size_t(3));
    QCOMPARE(array.workbench.profilerSteps, 3);
    QVERIFY(array.workbench.stepTimeSeconds);
    QCOMPARE(array.workbench.stepTimeSeconds, object.workbench.stepTimeSeconds);
    QCOMPARE(array.workbench.hostBusyFraction, object.workbench.hostBusyFraction);
    QCOMPARE(array.file.dialect, QStringLiteral("legacy top-level array (torch 1.x without Kineto)"));

    // Reference parity: the reference takes nothing from a list, and the diagnostics say so.
    QVERIFY(object.reference.stepTimeSeconds);
    QVERIFY(!array.reference.stepTimeSeconds);
    QVERIFY(!array.reference.hostBusyFraction);
    QVERIFY(!array.reference.readFailed);
    bool said = false;
    for (const Diagnostic &d : array.diagnostics)
        said = said || (d.severity == Severity::Info && d.message.contains(QStringLiteral("reference profile reads nothing"))
                        && d.message.contains(QStringLiteral("6380 trace events")));
    QVERIFY(said);
    for (const Diagnostic &d : object.diagnostics)
        QVERIFY2(!d.message.contains(QStringLiteral("top-level list")), qPrintable(d.message));
}

void TestArrayFormTrace::chosenInAFolderUnderAnyName()
{
    // Any name, plain or gzip, in the folder or a sub-folder: the inventory chooses it by content,
    // and so does a file opened alone.
    QTemporaryDir dir;
    QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("traces"))));
    const QString traced = dir.filePath(QStringLiteral("traces/worker0.legacy.json.gz"));
    QVERIFY(QFile::copy(dataPath(kArrayForm), traced));
    const RunInventory folder = RunInventory::scanFolder(dir.path());
    QCOMPARE(folder.chromeTraces().size(), size_t(1));
    QCOMPARE(folder.chromeTraces().front()->relativePath, QStringLiteral("traces/worker0.legacy.json.gz"));

    const RunInventory alone = RunInventory::scan(RunSource{traced, {}, {}});
    QCOMPARE(alone.chromeTraces().size(), size_t(1));
    const TorchTrace read = parseTorchTrace(alone);
    QCOMPARE(read.eventCount, qint64(6380));
    QCOMPARE(deviceEvents(read), qint64(4567));
}

QTEST_GUILESS_MAIN(TestArrayFormTrace)
#include "tst_arrayformtrace.moc"
