// The run inventory (issue 23, item 4): one walk of a folder names every file once — its role,
// whether the workbench and the reference read it, why, and its size. Folder trees are built in
// a temporary folder from a few kinds of content; every row of every tree is checked.

#include "io/runinventory.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace goblin;

namespace {

const QByteArray kKernelCsv =
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\","
    "\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n"
    "\"KERNEL_DISPATCH\",\"Agent 0\",1,1,1,1,\"gemm\",1,1000,2000\n";
const QByteArray kSmiCsv = "gpu,gfx_activity,used_vram\n0,50,1000\n";
const QByteArray kChrome = R"({"schemaVersion": 1, "traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm",
 "pid": 1, "tid": 1, "ts": 0, "dur": 10}]})";

/// Random bytes (a fixed LCG, so every run sees the same bytes), never valid UTF-8 for long.
QByteArray randomBytes(int n)
{
    QByteArray out(n, '\0');
    quint32 x = 12345;
    for (int i = 0; i < n; ++i) {
        x = x * 1103515245u + 12345u;
        out[i] = char(x >> 16);
    }
    return out;
}

/// Writes `spec` ("path:kind") under `root`: kernelcsv, smicsv, chrome, chromegz, random, empty,
/// text, json, sqlite, dir.
void make(const QString &root, const QString &spec)
{
    const qsizetype colon = spec.lastIndexOf(QLatin1Char(':'));
    const QString path = QDir(root).filePath(spec.left(colon));
    const QString kind = spec.mid(colon + 1);
    QDir().mkpath(QFileInfo(path).absolutePath());
    if (kind == QLatin1String("dir")) {
        QVERIFY(QDir().mkpath(path + QStringLiteral("/inner")));
        return;
    }
    if (kind == QLatin1String("chromegz")) {
        QVERIFY(QFile::copy(test::dataPath(QStringLiteral("torch/gen_lite.json.gz")), path));
        return;
    }
    QByteArray bytes;
    if (kind == QLatin1String("kernelcsv"))
        bytes = kKernelCsv;
    else if (kind == QLatin1String("smicsv"))
        bytes = kSmiCsv;
    else if (kind == QLatin1String("chrome"))
        bytes = kChrome;
    else if (kind == QLatin1String("random"))
        bytes = randomBytes(3000);
    else if (kind == QLatin1String("text"))
        bytes = "an empty run folder: the wrapper wrote nothing\n";
    else if (kind == QLatin1String("json"))
        bytes = R"({"run": 1, "nested": {"traceEvents": []}})";
    else if (kind == QLatin1String("sqlite"))
        bytes = QByteArray("SQLite format 3\0", 16) + QByteArray(84, '\0');
    else
        QVERIFY2(kind == QLatin1String("empty"), qPrintable(kind));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QCOMPARE(f.write(bytes), qint64(bytes.size()));
}

/// A row as "path|role|flags|reason": flags r (read), f (fallback), R (the reference reads it),
/// P (the primary torch trace), and for a skipped trace "<kept path".
QString describe(const InputRow &row)
{
    QString flags;
    if (row.read)
        flags += QLatin1Char('r');
    if (row.fallback)
        flags += QLatin1Char('f');
    if (row.referenceReads)
        flags += QLatin1Char('R');
    if (row.primary)
        flags += QLatin1Char('P');
    if (!row.keptPath.isEmpty())
        flags += QLatin1Char('<') + row.keptPath;
    return QStringLiteral("%1|%2|%3").arg(row.relativePath, inputRoleName(row.role), flags);
}

} // namespace

class TestRunInventory : public QObject
{
    Q_OBJECT

private slots:
    void rows_data()
    {
        QTest::addColumn<QStringList>("files");
        QTest::addColumn<QString>("alone");        // a file opened alone; empty: the whole folder
        QTest::addColumn<QStringList>("expected");  // describe() of every row, in walk order
        QTest::addColumn<QStringList>("reasons");   // a fragment of each row's reason, same order

        QTest::newRow("empty folder") << QStringList{} << QString() << QStringList{} << QStringList{};
        QTest::newRow("the reference's three")
            << QStringList{"trace.csv:kernelcsv", "torch_profile.json:chrome", "amd_smi.csv:smicsv"} << QString()
            << QStringList{"amd_smi.csv|GPU telemetry|rR", "torch_profile.json|chrome trace|rRP",
                           "trace.csv|kernel trace|rR"}
            << QStringList{"telemetry both profiles read", "both profiles read", "both profiles read"};
        QTest::newRow("per-process traces beside trace.csv")
            << QStringList{"trace.csv:kernelcsv", "node1/48213_kernel_trace.csv:kernelcsv"} << QString()
            << QStringList{"trace.csv|kernel trace|rR", "node1/48213_kernel_trace.csv|per-process kernel trace|rf"}
            << QStringList{"reference reads trace.csv only", "read only if trace.csv holds no kernel trace"};
        QTest::newRow("per-process traces alone")
            << QStringList{"node1/1_kernel_trace.csv:kernelcsv", "node1/2_kernel_trace.csv:kernelcsv"} << QString()
            << QStringList{"node1/1_kernel_trace.csv|per-process kernel trace|r",
                           "node1/2_kernel_trace.csv|per-process kernel trace|r"}
            << QStringList{"reads every one as one trace", "reads every one as one trace"};
        QTest::newRow("databases stand in for trace.csv")
            << QStringList{"a.db:sqlite", "host/9_results.db:random"} << QString()
            << QStringList{"a.db|profiler database|rR", "host/9_results.db|profiler database|rR"}
            << QStringList{"rocpd2csv", "rocpd2csv"};
        QTest::newRow("a gzipped database")
            << QStringList{"vllm.rpd.gz:random"} << QString()
            << QStringList{"vllm.rpd.gz|profiler database|rR"}
            << QStringList{"rocpd2csv"};
        QTest::newRow("a database beside a CSV trace")
            << QStringList{"trace.csv:kernelcsv", "x.db:sqlite"} << QString()
            << QStringList{"trace.csv|kernel trace|rR", "x.db|profiler database|"}
            << QStringList{"both profiles read", "not read, the CSV is"};
        QTest::newRow("a gzip copy beside its plain trace")
            << QStringList{"t.json:chrome", "t.json.gz:chromegz"} << QString()
            << QStringList{"t.json|chrome trace|rP", "t.json.gz|not read|<t.json"}
            << QStringList{"readings come from this trace", "compressed copy of t.json"};
        QTest::newRow("older sessions of one worker")
            << QStringList{"w.1.pt.trace.json:chrome", "w.10.pt.trace.json:chrome", "w.9.pt.trace.json:chrome",
                           "v.5.pt.trace.json:chrome"}
            << QString()
            << QStringList{"v.5.pt.trace.json|chrome trace|rP", "w.1.pt.trace.json|not read|<w.10.pt.trace.json",
                           "w.10.pt.trace.json|chrome trace|r", "w.9.pt.trace.json|not read|<w.10.pt.trace.json"}
            << QStringList{"readings come from", "older profiling session", "a rank", "older profiling session"};
        QTest::newRow("ranks by content, the lowest rank first")
            << QStringList{"rank-1.json:chrome", "node/rank-0.json.gz:chromegz", "trace_without_name:chrome"}
            << QString()
            << QStringList{"rank-1.json|chrome trace|r", "trace_without_name|chrome trace|r",
                           "node/rank-0.json.gz|chrome trace|rP"}
            << QStringList{"a rank", "a rank", "readings come from this trace"};
        QTest::newRow("torch_profile.json.gz before the ranks")
            << QStringList{"torch_profile.json.gz:chromegz", "rank-0.json:chrome"} << QString()
            << QStringList{"rank-0.json|chrome trace|r", "torch_profile.json.gz|chrome trace|rP"}
            << QStringList{"a rank", "readings come from this trace"};
        QTest::newRow("look-alikes")
            << QStringList{"results.csv:kernelcsv", "sub/timestamps.csv:kernelcsv", "x.pt.trace.json:text"}
            << QString()
            << QStringList{"results.csv|look-alike|", "x.pt.trace.json|chrome trace|rP", "sub/timestamps.csv|look-alike|"}
            << QStringList{"copy it to trace.csv", "by its name, though its head shows no trace", "copy it to trace.csv"};
        QTest::newRow("random bytes as trace.csv")
            << QStringList{"trace.csv:random"} << QString() << QStringList{"trace.csv|kernel trace|rR"}
            << QStringList{"both profiles read"};
        QTest::newRow("folders in the inputs' place")
            << QStringList{"trace.csv:dir", "amd_smi.csv:dir", "torch_profile.json:dir"} << QString()
            << QStringList{"trace.csv|kernel trace|R", "torch_profile.json|chrome trace|R", "amd_smi.csv|GPU telemetry|R"}
            << QStringList{"a folder, not a file", "a folder, not a file", "a folder, not a file"};
        QTest::newRow("no input")
            << QStringList{"README:text", "notes.json:json", "empty.json:empty"} << QString()
            << QStringList{"README|other|", "empty.json|other|", "notes.json|other|"}
            << QStringList{"no input", "no input", "no input"};
        QTest::newRow("deeper than one sub-folder")
            << QStringList{"a/b/rank-0.json:chrome", "a/x.txt:text"} << QString() << QStringList{"a/x.txt|other|"}
            << QStringList{"no input"};

        QTest::newRow("a chrome trace alone")
            << QStringList{"rank-3.json:chrome", "trace.csv:kernelcsv", "amd_smi.csv:smicsv"} << "rank-3.json"
            << QStringList{"rank-3.json|chrome trace|rP"} << QStringList{"readings come from this trace"};
        QTest::newRow("torch_profile.json alone")
            << QStringList{"torch_profile.json:chrome", "rank-1.json:chrome"} << "torch_profile.json"
            << QStringList{"torch_profile.json|chrome trace|rRP"} << QStringList{"both profiles read"};
        QTest::newRow("trace.csv alone")
            << QStringList{"trace.csv:kernelcsv", "torch_profile.json:chrome"} << "trace.csv"
            << QStringList{"trace.csv|kernel trace|rR"} << QStringList{"both profiles read"};
        QTest::newRow("results.csv alone") << QStringList{"results.csv:kernelcsv"} << "results.csv"
                                           << QStringList{"results.csv|per-process kernel trace|r"}
                                           << QStringList{"opened alone"};
        QTest::newRow("a kernel CSV alone, by its header")
            << QStringList{"my kernels.csv:kernelcsv"} << "my kernels.csv"
            << QStringList{"my kernels.csv|per-process kernel trace|r"} << QStringList{"opened alone"};
        QTest::newRow("random bytes alone") << QStringList{"x.bin:random"} << "x.bin" << QStringList{"x.bin|other|"}
                                            << QStringList{"no input"};
        QTest::newRow("a telemetry CSV alone under another name")
            << QStringList{"smi.csv:smicsv"} << "smi.csv" << QStringList{"smi.csv|other|"} << QStringList{"no input"};
    }

    void rows()
    {
        QFETCH(QStringList, files);
        QFETCH(QString, alone);
        QFETCH(QStringList, expected);
        QFETCH(QStringList, reasons);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        for (const QString &spec : files)
            make(dir.path(), spec);
        const RunInventory inventory =
            RunInventory::scan({alone.isEmpty() ? dir.path() : dir.filePath(alone), {}, {}});
        QCOMPARE(inventory.folder(), QDir::cleanPath(dir.path()));
        QCOMPARE(inventory.wholeFolder(), alone.isEmpty());
        QStringList actual;
        for (const InputRow &row : inventory.rows())
            actual << describe(row);
        QCOMPARE(actual, expected);
        QCOMPARE(qsizetype(inventory.rows().size()), reasons.size());
        for (std::size_t i = 0; i < inventory.rows().size(); ++i) {
            const InputRow &row = inventory.rows()[i];
            QVERIFY2(row.reason.contains(reasons[qsizetype(i)]),
                     qPrintable(QStringLiteral("%1: \"%2\" lacks \"%3\"").arg(row.relativePath, row.reason, reasons[qsizetype(i)])));
            if (row.content != HeadContent::NotAFile)
                QCOMPARE(row.sizeBytes, QFileInfo(dir.filePath(row.relativePath)).size());
        }
        // The byte total: what is read, the fallbacks left out.
        qint64 bytes = 0;
        for (const InputRow &row : inventory.rows())
            if (row.read && !row.fallback && row.content != HeadContent::NotAFile)
                bytes += row.sizeBytes;
        QCOMPARE(inventory.bytesToRead(), bytes);
        QCOMPARE(inventory.readsAnything(), bytes > 0);
    }

    void headsInPlainWords_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("content");
        QTest::addColumn<QString>("words");
        QTest::newRow("random bytes") << "random" << int(HeadContent::Binary) << "binary data, not text";
        QTest::newRow("empty") << "empty" << int(HeadContent::Empty) << "empty (0 bytes)";
        QTest::newRow("a folder") << "dir" << int(HeadContent::NotAFile) << "a folder, not a file";
        QTest::newRow("a CSV") << "kernelcsv" << int(HeadContent::Text) << "text starting \"\"Kind\",";
        QTest::newRow("JSON") << "chrome" << int(HeadContent::Json) << "JSON";
        QTest::newRow("gzip") << "chromegz" << int(HeadContent::Gzip) << "gzip-compressed";
        QTest::newRow("SQLite") << "sqlite" << int(HeadContent::Sqlite) << "an SQLite database";
    }

    void headsInPlainWords()
    {
        QFETCH(QString, kind);
        QFETCH(int, content);
        QFETCH(QString, words);
        QTemporaryDir dir;
        make(dir.path(), QStringLiteral("trace.csv:") + kind);
        const RunInventory inventory = RunInventory::scanFolder(dir.path());
        const InputRow *row = inventory.kernelTrace();
        QVERIFY(row);
        QCOMPARE(int(row->content), content);
        QVERIFY2(row->contentText.startsWith(words), qPrintable(row->contentText));
    }

    void fifoIsNeverOpened()
    {
        // A FIFO in trace.csv's place is named (the reference fails on it) but never opened: the
        // scan would block in open() until a writer came.
        QTemporaryDir dir;
        QVERIFY(::mkfifo(QFile::encodeName(dir.filePath(QStringLiteral("trace.csv"))).constData(), 0644) == 0);
        QVERIFY(::mkfifo(QFile::encodeName(dir.filePath(QStringLiteral("rank-0.json"))).constData(), 0644) == 0);
        const RunInventory inventory = RunInventory::scanFolder(dir.path());
        QCOMPARE(inventory.rows().size(), std::size_t(1));  // a FIFO under another name is no file
        const InputRow *row = inventory.kernelTrace();
        QVERIFY(row);
        QCOMPARE(int(row->content), int(HeadContent::NotAFile));
        QVERIFY2(row->contentText.contains(QStringLiteral("FIFO")), qPrintable(row->contentText));
        QVERIFY(!row->read && row->referenceReads);
    }

    void pickedFilesOfAFolder()
    {
        // A separate run of a folder: only the files picked, read as if alone in the folder.
        QTemporaryDir dir;
        for (const char *spec : {"rank-0.json:chrome", "node/rank-1.json:chrome", "torch_profile.json:chrome",
                                 "amd_smi.csv:smicsv"})
            make(dir.path(), QString::fromLatin1(spec));
        const RunInventory inventory = RunInventory::scan({dir.path(), {"node/rank-1.json", "rank-0.json"}, {}});
        QVERIFY(!inventory.wholeFolder());
        QStringList actual;
        for (const InputRow &row : inventory.rows())
            actual << describe(row);
        QCOMPARE(actual, (QStringList{"node/rank-1.json|chrome trace|r", "rank-0.json|chrome trace|rP"}));
        QVERIFY(!inventory.torchReference());
        QVERIFY(!inventory.smiTelemetry());
        QCOMPARE(inventory.chromeTraces().size(), std::size_t(2));
        QCOMPARE(inventory.chromeTraces().front()->relativePath, QStringLiteral("rank-0.json"));
    }
};

QTEST_GUILESS_MAIN(TestRunInventory)
#include "tst_runinventory.moc"
