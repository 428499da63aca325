// Issue 36: what a hostile or careless run folder must not get out of the workbench, through the
// real executable: no formula cell in `table --csv` (item 2), no secret from a malformed line in
// any reader's diagnostics or exports (item 3), exit 1 with a one-line reason for a JSON trace
// with nothing readable (item 5), and a FIFO, socket or device named whatever its name, never
// opened (item 4).

#include "testsupport.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTest>

#include <cstring>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace goblin;

namespace {

// Fake credentials (none is real). Each needle is a piece of one that no redaction mark contains.
const QByteArray kHfToken = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567";
const QByteArray kAwsSecretKey = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const QByteArray kPassword = "Hunter2Hunter2";
const QList<QByteArray> kNeedles{"AbCdEfGhIjKlMnOp", "wJalrXUtnFEMI", kPassword};

/// The texts a malformed line carries a secret in, as a cell or a JSON string holds it.
QList<QByteArray> secretTexts()
{
    return {kHfToken, "aws_secret_access_key=" + kAwsSecretKey, kAwsSecretKey, "password=" + kPassword};
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

bool copyFolder(const QString &from, const QString &to)
{
    QDirIterator it(from, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString file = it.next();
        if (!writeFile(QDir(to).filePath(QDir(from).relativeFilePath(file)), test::readAll(file)))
            return false;
    }
    return true;
}

QByteArray fixture(const QString &relative) { return test::readAll(test::dataPath(relative)); }

/// `bytes` with `rows` inserted after the first occurrence of `after`.
QByteArray insertedAfter(QByteArray bytes, const QByteArray &after, const QByteArray &rows)
{
    const qsizetype at = bytes.indexOf(after);
    if (at < 0)
        return {};
    return bytes.insert(at + after.size(), rows);
}

QByteArray csvQuoted(const QByteArray &text) { return '"' + QByteArray(text).replace("\"", "\"\"") + '"'; }

/// A field of a CSV `line` replaced (fields without quotes, as the rows below use).
QByteArray withField(const QByteArray &line, int index, const QByteArray &value)
{
    QList<QByteArray> fields = line.split(',');
    fields[index] = value;
    return fields.join(',');
}

/// Minimal RFC 4180 reader for the output checks.
QList<QStringList> parseCsv(const QString &text)
{
    QList<QStringList> rows;
    QStringList row;
    QString cell;
    bool quoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (quoted) {
            if (c == QLatin1Char('"') && i + 1 < text.size() && text[i + 1] == QLatin1Char('"'))
                cell += c, ++i;
            else if (c == QLatin1Char('"'))
                quoted = false;
            else
                cell += c;
        } else if (c == QLatin1Char('"')) {
            quoted = true;
        } else if (c == QLatin1Char(',')) {
            row << cell, cell.clear();
        } else if (c == QLatin1Char('\n')) {
            rows << (row << cell), row.clear(), cell.clear();
        } else {
            cell += c;
        }
    }
    return rows;
}

QByteArray kernelTraceWithFormulaNames()
{
    const QByteArray header = "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\"\n";
    QByteArray rows;
    qint64 t = 1000000;
    // The payload kernel takes most of the time, so it is the table's top kernel.
    for (int i = 0; i < 3; ++i, t += 10000)
        rows += "\"KERNEL_DISPATCH\",1,1,\"=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"," + QByteArray::number(t) + "," +
                QByteArray::number(t + 9000) + "\n";
    rows += "\"KERNEL_DISPATCH\",1,1,\"@SUM(1+1)\"," + QByteArray::number(t) + "," + QByteArray::number(t + 100) + "\n";
    return header + rows;
}

} // namespace

class TestHostileFiles : public QObject
{
    Q_OBJECT

private slots:
    // ---- item 2: no formula cell
    void tableCsvHasNoFormulaCell()
    {
        QTemporaryDir parent, out;
        QVERIFY(parent.isValid() && out.isValid());
        const QString run = QDir(parent.path()).filePath(QStringLiteral("=evil"));
        QVERIFY(writeFile(QDir(run).filePath(QStringLiteral("trace.csv")), kernelTraceWithFormulaNames()));
        const QString csvPath = out.filePath(QStringLiteral("table.csv"));
        const test::AppRun r = test::runApp({"table", run, "--csv", csvPath});
        QCOMPARE(r.exitCode, 0);
        const QString csv = QString::fromUtf8(test::readAll(csvPath));
        const QList<QStringList> rows = parseCsv(csv);
        QCOMPARE(rows.size(), 2);
        const QStringList &header = rows[0];
        const QStringList &row = rows[1];
        QCOMPARE(row.size(), header.size());
        const qsizetype runColumn = header.indexOf(QStringLiteral("run"));
        const qsizetype topColumn = header.indexOf(QStringLiteral("top_kernel"));
        QVERIFY2(runColumn >= 0 && topColumn >= 0, qPrintable(header.join(QLatin1Char(','))));
        QCOMPARE(row[runColumn], QStringLiteral("'=evil"));
        QCOMPARE(row[topColumn], QStringLiteral("'=HYPERLINK(\"http://x\",\"y\")"));
        for (const QStringList &cells : rows)
            for (const QString &cell : cells)
                QVERIFY2(cell.isEmpty() || !QStringLiteral("=+@\t\r").contains(cell.front()) ||
                             QRegularExpression(QStringLiteral("^[+-]?[0-9.]+([eE][+-]?[0-9]+)?$")).match(cell).hasMatch(),
                         qPrintable(cell));
    }

    // ---- item 3: no secret from a malformed line, in any reader
    void noSecretFromMalformedLines_data()
    {
        QTest::addColumn<QString>("fixtureFolder");  ///< copied first (empty: none)
        QTest::addColumn<QString>("file");           ///< the reader's file, relative to the run
        QTest::addColumn<QByteArray>("bytes");       ///< its content, malformed lines included

        const QList<QByteArray> secrets = secretTexts();

        // Kernel trace CSV (rocprofv3): the secret where a timestamp belongs.
        {
            QByteArray rows;
            int n = 900;
            for (const QByteArray &s : secrets) {
                const QByteArray id = QByteArray::number(n++);
                rows += "\"KERNEL_DISPATCH\",2,1,0,48213," + id + ",25,\"k\"," + id + "," + csvQuoted(s) +
                        ",2745622216190433,0,32768,256,1,1,4096,16,8\n";
            }
            QTest::newRow("kernel trace CSV") << QString() << "trace.csv"
                                              << fixture(QStringLiteral("runs/v3-metric-1gpu/trace.csv")) + rows;
        }
        // Kineto JSON: the secret as an event's ts, and as its dur.
        {
            QByteArray events;
            for (const QByteArray &s : secrets)
                events += "\n  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": \"" +
                          s + "\", \"dur\": 5},\n  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, "
                              "\"tid\": 7, \"ts\": 5, \"dur\": \"" + s + "\"},";
            QTest::newRow("Kineto JSON")
                << QString() << "torch_profile.json"
                << insertedAfter(fixture(QStringLiteral("runs/v3-metric-1gpu/torch_profile.json")), "\"traceEvents\": [",
                                 events);
        }
        // amd-smi CSV: the secret as a GPU's activity.
        {
            const QByteArray smi = fixture(QStringLiteral("runs/v3-metric-1gpu/amd_smi.csv"));
            const QList<QByteArray> lines = smi.split('\n');
            QByteArray rows;
            for (const QByteArray &s : secrets)
                rows += "0," + csvQuoted(s) + lines[1].mid(3) + "\n";
            QTest::newRow("amd-smi CSV") << QString() << "amd_smi.csv" << smi + rows;
        }
        // nvidia-smi log: the secret as utilisation, and as the timestamp.
        {
            const QByteArray log = fixture(QStringLiteral("telemetry/nvsmi_lms500_2gpu.csv"));
            const QByteArray line = log.split('\n')[1];
            QByteArray rows;
            for (const QByteArray &s : secrets)
                rows += withField(line, 4, " " + s) + "\n" + withField(line, 0, s) + "\n";
            QTest::newRow("nvidia-smi log") << QString() << "nvidia_smi.csv" << log + rows;
        }
        // rocprofv3 JSON: the secret as a dispatch's start_timestamp.
        {
            QByteArray records;
            for (const QByteArray &s : secrets)
                records += "\n{\"size\": 184, \"kind\": 11, \"operation\": 2, \"thread_id\": 4242, \"correlation_id\": "
                           "{\"internal\": 2, \"external\": 0}, \"start_timestamp\": \"" + s +
                           "\", \"end_timestamp\": 1000054000, \"dispatch_info\": {\"size\": 72, \"agent_id\": "
                           "{\"handle\": 101}, \"queue_id\": {\"handle\": 1}, \"kernel_id\": 1, \"dispatch_id\": 2}},";
            QTest::newRow("rocprofv3 JSON")
                << QString() << "synthetic_results.json"
                << insertedAfter(fixture(QStringLiteral("rocprofv3json/synthetic_results.json")), "\"kernel_dispatch\": [",
                                 records);
        }
        // HIP API trace CSV beside a kernel trace: the secret as a call's start.
        {
            QByteArray rows;
            for (const QByteArray &s : secrets)
                rows += "\"HIP_RUNTIME_API_EXT\",\"hipLaunchKernel\",4242,4242,99," + csvQuoted(s) + ",2745933336475903\n";
            QTest::newRow("HIP API trace CSV")
                << QStringLiteral("apitraces/rocprof-steps") << "4242_hip_api_trace.csv"
                << fixture(QStringLiteral("apitraces/rocprof-steps/4242_hip_api_trace.csv")) + rows;
        }
    }

    void noSecretFromMalformedLines()
    {
        QFETCH(QString, fixtureFolder);
        QFETCH(QString, file);
        QFETCH(QByteArray, bytes);
        for (const QByteArray &needle : kNeedles)
            QVERIFY2(bytes.contains(needle), needle.constData());

        QTemporaryDir runDir, outDir;
        QVERIFY(runDir.isValid() && outDir.isValid());
        if (!fixtureFolder.isEmpty())
            QVERIFY(copyFolder(test::dataPath(fixtureFolder), runDir.path()));
        QVERIFY(writeFile(runDir.filePath(file), bytes));

        QStringList leaks;
        const auto look = [&](const QString &where, const QByteArray &output) {
            for (const QByteArray &needle : kNeedles)
                if (output.contains(needle))
                    leaks << QStringLiteral("%1 (%2)").arg(where, QString::fromLatin1(needle));
        };
        for (const QString &profile : {QStringLiteral("workbench"), QStringLiteral("reference")}) {
            const QString json = outDir.filePath(QStringLiteral("report-%1.json").arg(profile));
            const test::AppRun report = test::runApp({"report", runDir.path(), "--profile", profile, "--json", json});
            QCOMPARE(report.exitCode, 0);
            const QByteArray reportBytes = test::readAll(json);
            look(QStringLiteral("report --profile %1").arg(profile), reportBytes + report.out + report.err);

            // The malformed lines are still said: a diagnostic names the file and a line.
            const QJsonArray diagnostics = QJsonDocument::fromJson(reportBytes).object().value("diagnostics").toArray();
            bool named = false;
            for (const QJsonValue &d : diagnostics)
                named |= d.toObject().value("file").toString() == file && d.toObject().value("line").toInt() > 0;
            QVERIFY2(named, qPrintable(QString::fromUtf8(QJsonDocument(diagnostics).toJson())));

            const QString csv = outDir.filePath(QStringLiteral("table-%1.csv").arg(profile));
            const test::AppRun table = test::runApp({"table", runDir.path(), "--profile", profile, "--csv", csv});
            QCOMPARE(table.exitCode, 0);
            look(QStringLiteral("table --profile %1").arg(profile), test::readAll(csv) + table.out + table.err);
        }
        QVERIFY2(leaks.isEmpty(), qPrintable(QStringLiteral("secrets in: ") + leaks.join(QStringLiteral("; "))));
    }

    // ---- item 5: a JSON trace with nothing readable exits 1 with its one-line reason
    void jsonWithNothingReadable_data()
    {
        QTest::addColumn<QByteArray>("document");
        QTest::newRow("a number") << QByteArray("42\n");
        QTest::newRow("a string") << QByteArray("\"traceEvents\"\n");
        QTest::newRow("null") << QByteArray("null\n");
        QTest::newRow("true") << QByteArray("true\n");
        QTest::newRow("traceEvents of numbers") << QByteArray("{\"traceEvents\": [1, 2, 3]}\n");
        QTest::newRow("traceEvents of strings and null") << QByteArray("{\"traceEvents\": [\"X\", null, true]}\n");
        QTest::newRow("traceEvents is a number") << QByteArray("{\"traceEvents\": 5}\n");
        QTest::newRow("array of scalars") << QByteArray("[1, \"a\", null]\n");
    }

    void jsonWithNothingReadable()
    {
        QFETCH(QByteArray, document);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        for (const QString &name : {QStringLiteral("torch_profile.json"), QStringLiteral("rank0.pt.trace.json")}) {
            QTemporaryDir run;
            QVERIFY(writeFile(run.filePath(name), document));
            // The folder, and the file alone.
            for (const QString &target : {run.path(), run.filePath(name)}) {
                const test::AppRun r = test::runApp({"report", target, "--json", dir.filePath(QStringLiteral("r.json"))});
                QCOMPARE(r.exitCode, 1);
                const QByteArray err = r.err.trimmed();
                QVERIFY2(err.startsWith("goblin-workbench report: cannot read "), err.constData());
                QVERIFY2(!err.contains('\n'), err.constData());  // one line
                QVERIFY2(err.contains(name.toUtf8()), err.constData());
                QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("r.json"))));
            }
        }
    }

    // ---- item 4: a FIFO, socket or device among the inputs is named, whatever its name, never opened
    void nonRegularInputsNamed_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("kind");  ///< "fifo", "socket", "device" (a link to /dev/zero)
        QTest::newRow("FIFO named like no input") << "notes.bin" << "fifo";
        QTest::newRow("FIFO named like a chrome trace") << "rank1.pt.trace.json" << "fifo";
        QTest::newRow("FIFO named like telemetry") << "nvidia_smi.csv" << "fifo";
        QTest::newRow("FIFO in a sub-folder") << "node1/pipe" << "fifo";
        QTest::newRow("socket") << "agent.sock" << "socket";
        QTest::newRow("link to /dev/zero") << "zeros.json" << "device";
    }

    void nonRegularInputsNamed()
    {
        QFETCH(QString, name);
        QFETCH(QString, kind);
        QTemporaryDir runDir, outDir;
        QVERIFY(runDir.isValid() && outDir.isValid());
        QVERIFY(copyFolder(test::dataPath(QStringLiteral("runs/v3-metric-1gpu")), runDir.path()));
        for (const QString &expected : {QStringLiteral("expected.reference.json"), QStringLiteral("expected.reference.fp16.json"),
                                       QStringLiteral("truth.json.expected")})
            QFile::remove(runDir.filePath(expected));
        const QString path = runDir.filePath(name);
        QDir().mkpath(QFileInfo(path).absolutePath());
        int socketFd = -1;
        const auto closeSocket = qScopeGuard([&] {
            if (socketFd >= 0)
                ::close(socketFd);
        });
        if (kind == QLatin1String("fifo")) {
            QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
        } else if (kind == QLatin1String("socket")) {
            socketFd = ::socket(AF_UNIX, SOCK_STREAM, 0);
            sockaddr_un address{};
            address.sun_family = AF_UNIX;
            const QByteArray native = QFile::encodeName(path);
            QVERIFY(socketFd >= 0 && std::size_t(native.size()) < sizeof(address.sun_path));
            std::memcpy(address.sun_path, native.constData(), std::size_t(native.size()));
            QCOMPARE(::bind(socketFd, reinterpret_cast<const sockaddr *>(&address), sizeof(address)), 0);
        } else {
            QVERIFY(QFile::link(QStringLiteral("/dev/zero"), path));
        }

        // A FIFO opened for reading would block the run until the 2-minute timeout (-1).
        const QString json = outDir.filePath(QStringLiteral("report.json"));
        const test::AppRun r = test::runApp({"report", runDir.path(), "--json", json});
        QCOMPARE(r.exitCode, 0);
        const QJsonArray diagnostics =
            QJsonDocument::fromJson(test::readAll(json)).object().value("diagnostics").toArray();
        bool named = false;
        for (const QJsonValue &d : diagnostics)
            named |= d.toObject().value("file").toString() == name &&
                     d.toObject().value("message").toString().contains(QLatin1String("not a regular file"));
        QVERIFY2(named, qPrintable(QString::fromUtf8(QJsonDocument(diagnostics).toJson())));
    }
};

QTEST_GUILESS_MAIN(TestHostileFiles)
#include "tst_hostilefiles.moc"
