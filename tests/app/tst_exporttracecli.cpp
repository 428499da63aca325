// `goblin-workbench export-trace RUN_DIR [--step N] -o FILE` (issue 26, item 8): the real
// executable, with no display, writes the same Chrome trace the model builds, refuses the run
// folder and says what is wrong with a bad step or option.

#include "chrometraceexport.h"
#include "runanalysis.h"
#include "testsupport.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace goblin;

namespace {

QString exampleRun() { return QStringLiteral(GOBLIN_SOURCE_DIR "/resources/example-run"); }

int sliceCount(const QByteArray &json)
{
    int n = 0;
    for (const QJsonValue &e : QJsonDocument::fromJson(json)[QLatin1String("traceEvents")].toArray())
        n += e[QLatin1String("ph")] == QLatin1String("X");
    return n;
}

QByteArray folderFingerprint(const QString &dir)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    QStringList files;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext())
        files << it.next();
    files.sort();
    for (const QString &f : files) {
        hash.addData(f.toUtf8());
        hash.addData(test::readAll(f));
    }
    return hash.result();
}

} // namespace

class TestExportTraceCli : public QObject
{
    Q_OBJECT

private slots:
    void writesTheModelsTrace_data();
    void writesTheModelsTrace();
    void refusals_data();
    void refusals();
};

void TestExportTraceCli::writesTheModelsTrace_data()
{
    QTest::addColumn<int>("step");  // -1: the whole run
    QTest::newRow("step 0") << 0;
    QTest::newRow("step 2") << 2;
    QTest::newRow("whole run") << -1;
}

void TestExportTraceCli::writesTheModelsTrace()
{
    QFETCH(int, step);
    const LoadResult loaded = loadRun(exampleRun());
    QVERIFY2(loaded.run, qPrintable(loaded.error));
    ChromeTraceOptions options;
    if (step >= 0)
        options.step = step;
    const ChromeTraceExport expected = buildChromeTrace(*loaded.run, options);
    QVERIFY2(expected.ok(), qPrintable(expected.error));
    QVERIFY(expected.gpuEventCount > 0);

    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("step.trace.json"));
    QStringList args{QStringLiteral("export-trace"), exampleRun(), QStringLiteral("-o"), out};
    if (step >= 0)
        args << QStringLiteral("--step") << QString::number(step);
    const test::AppRun r = test::runApp(args);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QByteArray written = test::readAll(out);
    QJsonParseError error;
    QVERIFY(QJsonDocument::fromJson(written, &error).isObject());
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(written, expected.json);
    QCOMPARE(sliceCount(written), expected.sliceCount);
    QVERIFY2(r.err.contains(QByteArray::number(expected.sliceCount) + " events"), r.err.constData());

    // A step is a part of the whole run.
    if (step >= 0) {
        const ChromeTraceExport whole = buildChromeTrace(*loaded.run, {});
        QVERIFY(expected.sliceCount < whole.sliceCount);
    }
    // "-o -": the same bytes on standard output.
    args[3] = QStringLiteral("-");
    const test::AppRun toStdout = test::runApp(args);
    QCOMPARE(toStdout.exitCode, 0);
    QCOMPARE(toStdout.out, expected.json);
}

void TestExportTraceCli::refusals_data()
{
    QTest::addColumn<QStringList>("arguments");  // OUT stands for a writable path, RUN for the run
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::newRow("inside the run folder") << QStringList{"RUN", "-o", "RUN/x.trace.json"} << 2
                                           << "never writes into a run folder";
    QTest::newRow("no output") << QStringList{"RUN", "--step", "1"} << 2 << "missing -o FILE";
    QTest::newRow("no run") << QStringList{"-o", "OUT"} << 2 << "missing RUN_DIR";
    QTest::newRow("step not a number") << QStringList{"RUN", "--step", "two", "-o", "OUT"} << 2
                                       << "--step needs a whole number from 0, not 'two'";
    QTest::newRow("no such step") << QStringList{"RUN", "--step", "999", "-o", "OUT"} << 1 << "no step 999";
    QTest::newRow("unreadable run") << QStringList{"/nonexistent/run", "-o", "OUT"} << 1 << "cannot read";
}

void TestExportTraceCli::refusals()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    // A copy of the example as the run: the refusal must leave it as it was.
    QTemporaryDir runDir, outDir;
    for (const QString &f : QDir(exampleRun()).entryList(QDir::Files))
        QVERIFY(QFile::copy(exampleRun() + QLatin1Char('/') + f, runDir.filePath(f)));
    const QByteArray before = folderFingerprint(runDir.path());
    const QString out = outDir.filePath(QStringLiteral("t.json"));
    for (QString &a : arguments) {
        a.replace(QLatin1String("RUN"), runDir.path());
        a.replace(QLatin1String("OUT"), out);
    }
    const test::AppRun r = test::runApp(QStringList{QStringLiteral("export-trace")} + arguments);
    QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY(!QFile::exists(out));
    QCOMPARE(folderFingerprint(runDir.path()), before);
}

QTEST_MAIN(TestExportTraceCli)
#include "tst_exporttracecli.moc"
