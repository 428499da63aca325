// The format registry (formats/registry.h): one descriptor per format in one list, and the run
// inventory naming each file's format once from its head, so that the entries call the reader the
// format names (issue 32, item 7). Real fixtures of every format are recognised by the registry
// alone, and the inventory's rows carry the same format.

#include "formats/registry.h"
#include "databasefixture.h"
#include "io/runinventory.h"
#include "kerneltraceparser.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace goblin;

class TestFormatRegistry : public QObject
{
    Q_OBJECT

private slots:
    void descriptorsAreComplete();
    void guessFormat_data();
    void guessFormat();
    void inventoryRowsCarryTheFormat();
    void gzippedDatabaseIsAContainer();
    void openDialogListsEveryInput();
    void nsysExportWithoutCudaSaysSo();
};

void TestFormatRegistry::descriptorsAreComplete()
{
    const std::vector<const InputFormat *> &formats = inputFormats();
    QVERIFY(formats.size() >= 15);
    for (std::size_t i = 0; i < formats.size(); ++i) {
        const InputFormat &f = *formats[i];
        const QString name = QString::fromLatin1(f.name);
        QVERIFY2(!name.isEmpty() && f.what && f.noun && f.holdsNothing, qPrintable(name));
        QVERIFY2(!f.patterns.isEmpty(), qPrintable(name));
        if (i > 0)
            QVERIFY2(formats[i - 1]->priority >= f.priority, qPrintable(name));  // tried by priority
        // The formats read file by file name their reader; the container names none (what it
        // holds does).
        const bool kernelFileRole = f.role == InputRole::RocpdDatabase || f.role == InputRole::RocprofJson
                                    || f.role == InputRole::Pftrace;
        QCOMPARE(f.readKernels != nullptr, kernelFileRole && !f.container);
        QCOMPARE(f.readTelemetry != nullptr, f.role == InputRole::SmiTelemetry);
    }
    QVERIFY(formatNamed(QLatin1String("chrome-trace")));
    QVERIFY(formatNamed(QLatin1String("rpd")));
    QVERIFY(!formatNamed(QLatin1String("no-such-format")));
}

void TestFormatRegistry::guessFormat_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("inFolder");
    QTest::addColumn<QString>("format");
    QTest::newRow("rpd by its tables") << "rpd/matmul_result.rpd" << false << "rpd";
    QTest::newRow("rpd gzipped: a container") << "rpd/matmul_result.rpd.gz" << false << "gzip-database";
    QTest::newRow("nsys export by its tables") << "nsys/generated-2gpu.sqlite" << false << "nsys";
    QTest::newRow("rocpd") << "rocpd/single-v3-metric-1gpu/48213_results.db" << false << "rocpd";
    QTest::newRow("pftrace") << "pftrace/synthetic.pftrace" << false << "pftrace";
    QTest::newRow("pftrace gzipped") << "pftrace/908_first3000.pftrace.gz" << false << "pftrace";
    QTest::newRow("rocprofv3 json") << "rocprofv3json/synthetic_results.json" << false << "rocprofv3-json";
    QTest::newRow("rocprofv3 json gzipped") << "rocprofv3json/908_first3000_results.json.gz" << false
                                            << "rocprofv3-json";
    QTest::newRow("per-process kernel csv") << "rocprofv3json/synthetic_kernel_trace.csv" << false
                                            << "kernel-trace-csv";
    QTest::newRow("chrome trace by content") << "torch/gen_lite.json.gz" << false << "chrome-trace";
    QTest::newRow("nvidia-smi log") << "telemetry/nvsmi_noheader.csv" << false << "nvidia-smi-csv";
    QTest::newRow("dcgmi dmon log") << "telemetry/dcgm_dmon.log" << false << "dcgmi-dmon";
    QTest::newRow("rocm-smi log") << "telemetry/rocm_smi_loop.csv" << false << "rocm-smi-csv";
    QTest::newRow("no input") << "telemetry/foreign.txt" << false << "";
    QTest::newRow("array-form chrome trace") << "torch/kineto_2021_resnet50_steps6to8_array_form.json.gz" << false
                                             << "chrome-trace";
    QTest::newRow("telemetry CSV by its columns") << "telemetry/wrapper_rocm_smi.csv" << false << "telemetry-csv";
}

void TestFormatRegistry::guessFormat()
{
    QFETCH(QString, file);
    QFETCH(bool, inFolder);
    QFETCH(QString, format);
    const QString path = test::dataPath(file);
    const QFileInfo info(path);
    QVERIFY2(info.exists(), qPrintable(path));
    const FileHead head = FileHead::read(path, info, false);
    const InputFormat *found = goblin::guessFormat(info.fileName(), inFolder, head);
    QCOMPARE(found ? QString::fromLatin1(found->name) : QString(), format);
}

void TestFormatRegistry::inventoryRowsCarryTheFormat()
{
    // A folder of several formats: every row's format is the registry's for that file, and the
    // inventory chose by it (role from the format).
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QStringList files{QStringLiteral("rpd/matmul_result.rpd"), QStringLiteral("telemetry/dcgm_dmon.log"),
                            QStringLiteral("torch/gen_lite.json.gz"), QStringLiteral("telemetry/foreign.txt")};
    for (const QString &f : files)
        QVERIFY(QFile::copy(test::dataPath(f), dir.filePath(QFileInfo(f).fileName())));
    const RunInventory inventory = RunInventory::scanFolder(dir.path());
    QCOMPARE(inventory.rows().size(), std::size_t(files.size()));
    QSet<QString> names;
    for (const InputRow &row : inventory.rows()) {
        if (row.relativePath == QLatin1String("foreign.txt")) {
            QVERIFY(!row.format);
            QCOMPARE(row.role, InputRole::Other);
            continue;
        }
        QVERIFY2(row.format, qPrintable(row.relativePath));
        QCOMPARE(row.role, row.format->role);
        QVERIFY(row.read);
        names << QString::fromLatin1(row.format->name);
    }
    QCOMPARE(names, (QSet<QString>{QStringLiteral("rpd"), QStringLiteral("dcgmi-dmon"), QStringLiteral("chrome-trace")}));
    QVERIFY(inventory.smiTelemetry());
    QCOMPARE(QString::fromLatin1(inventory.smiTelemetry()->format->name), QStringLiteral("dcgmi-dmon"));
}

void TestFormatRegistry::gzippedDatabaseIsAContainer()
{
    // The container is named by the registry; what it holds is named after inflating, by the same
    // registry (the entries' container step): rpd's tables under the container's own name.
    const QString path = test::dataPath(QStringLiteral("rpd/matmul_result.rpd"));
    const FileHead inner = FileHead::read(path, QFileInfo(path), true);
    const InputFormat *format = guessInnerFormat(InputRole::RocpdDatabase, QStringLiteral("matmul_result.rpd.gz"), inner);
    QVERIFY(format);
    QCOMPARE(QString::fromLatin1(format->name), QStringLiteral("rpd"));
    QVERIFY(!format->container);
}

void TestFormatRegistry::openDialogListsEveryInput()
{
    // The Open Trace File dialog's filters come from this list: every name a readable format
    // accepts is offered by the first line, the kinds follow, and "All files" comes last.
    const QStringList filters = openDialogNameFilters();
    QVERIFY(filters.size() >= 3);
    QCOMPARE(filters.last(), QStringLiteral("All files (*)"));
    const QString every = filters.first();
    QVERIFY2(every.startsWith(QLatin1String("Everything the workbench reads (")), qPrintable(every));
    const QStringList offered =
        every.mid(every.indexOf(QLatin1Char('(')) + 1).chopped(1).split(QLatin1Char(' '), Qt::SkipEmptyParts);
    for (const char *name : {"*.rpd", "*.sqlite", "*.db", "*.pftrace", "*.json", "*.json.gz", "*.csv", "*.db.gz",
                             "*.perfetto-trace", "*.log", "*.txt"})
        QVERIFY2(offered.contains(QLatin1String(name)), qPrintable(every));
    for (const InputFormat *format : inputFormats()) {
        if (format->role == InputRole::LookAlike || format->role == InputRole::NotRead)
            continue;
        for (const QString &pattern : format->patterns) {
            if (pattern == QLatin1String("*"))
                continue;  // known by content: offered under the names its writers use
            const QString example = QString(pattern).replace(QLatin1Char('*'), QStringLiteral("run"));
            const bool matched = std::any_of(offered.begin(), offered.end(),
                                             [&](const QString &name) { return QDir::match(name, example); });
            QVERIFY2(matched, qPrintable(QStringLiteral("%1 (%2) is not offered by: %3")
                                             .arg(example, QLatin1String(format->name), every)));
        }
    }
    // One line per kind, each naming its kind.
    QVERIFY(filters.contains(QStringLiteral("Profiler database (*.db *.rpd *.sqlite *.sqlite3 *.db.gz *.rpd.gz "
                                            "*.sqlite.gz)")));
    QVERIFY2(std::any_of(filters.begin(), filters.end(),
                         [](const QString &f) { return f.startsWith(QLatin1String("Chrome trace (*.json")); }),
             qPrintable(filters.join(QStringLiteral(";;"))));
}

void TestFormatRegistry::nsysExportWithoutCudaSaysSo()
{
    // nsys profile --trace=osrt (no cuda, no nvtx): the export's own tables and no CUPTI_ table.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("cpu_only.sqlite"));
    QVERIFY(test::execSql(path, "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
                                "CREATE TABLE ThreadNames (nameId INTEGER, priority INTEGER, globalTid INTEGER);"
                                "CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, "
                                "localTime TEXT);"
                                "CREATE TABLE OSRT_API (start INTEGER, end INTEGER, nameId INTEGER);"
                                "INSERT INTO StringIds VALUES (1, 'pthread_mutex_lock');"));
    const FileHead head = FileHead::read(path, QFileInfo(path), true);
    const InputFormat *format = goblin::guessFormat(QStringLiteral("cpu_only.sqlite"), true, head);
    QVERIFY(format);
    QCOMPARE(QString::fromLatin1(format->name), QStringLiteral("nsys-without-cuda"));
    const KernelTrace trace = parseKernelTraces(path);
    const Diagnostic *said = test::findDiagnostic(
        trace.diagnostics, QStringLiteral("cpu_only.sqlite"),
        QStringLiteral("has no CUDA activity tables (CUPTI_ACTIVITY_KIND_KERNEL"));
    QVERIFY2(said, qPrintable(test::diagnosticsText(trace.diagnostics)));
    QVERIFY(said->message.contains(QLatin1String("nothing to read")));
    QVERIFY2(!test::diagnosticsText(trace.diagnostics).contains(QLatin1String("without rocpd tables")),
             qPrintable(test::diagnosticsText(trace.diagnostics)));
    // With its CUDA tables it is an Nsight export as before.
    QVERIFY(test::execSql(path, "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER);"));
    const FileHead withCuda = FileHead::read(path, QFileInfo(path), true);
    QCOMPARE(QString::fromLatin1(goblin::guessFormat(QStringLiteral("cpu_only.sqlite"), true, withCuda)->name),
             QStringLiteral("nsys"));
}

QTEST_GUILESS_MAIN(TestFormatRegistry)
#include "tst_formatregistry.moc"
