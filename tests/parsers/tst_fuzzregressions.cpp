// Issue 5: every input under tests/data/fuzz-regressions/<parser>/ — crashes the fuzzers found
// and hand-written adversarial inputs — goes through its parser and through a whole run-folder
// load and report. Under the ASan+UBSan build in CI a crash, overflow or leak fails here; in
// any build, an input from which nothing was read must say why, and the report must stay
// valid against its schema.

#include "amdsmiparser.h"
#include "kerneltraceparser.h"
#include "report.h"
#include "syntax/csvreader.h"
#include "runanalysis.h"
#include "testsupport.h"
#include "torchtraceparser.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace goblin;

namespace {

enum class Parser { KernelTrace, TorchTrace, AmdSmi };

struct ParserInfo {
    Parser parser;
    const char *folder;       ///< under tests/data/fuzz-regressions
    const char *runFileName;  ///< the name the file takes in a run folder (and in diagnostics)
};

constexpr ParserInfo kParsers[] = {
    {Parser::KernelTrace, "kerneltrace", "trace.csv"},
    {Parser::TorchTrace, "torchtrace", "torch_profile.json"},
    {Parser::AmdSmi, "amdsmi", "amd_smi.csv"},
};

/// What a single-file parse gave, reduced to what the checks need.
struct Outcome {
    bool readSomething = false;
    bool cancelled = false;
    Diagnostics diagnostics;
};

Outcome parseOne(Parser parser, const QString &path, const QString &displayName)
{
    Outcome out;
    switch (parser) {
    case Parser::KernelTrace: {
        KernelTrace trace = parseKernelTraceFile(path, displayName);
        out.readSomething = trace.workbench.rowsUsed > 0 || trace.reference.rowsUsed > 0;
        out.cancelled = trace.cancelled;
        out.diagnostics = std::move(trace.diagnostics);
        break;
    }
    case Parser::TorchTrace: {
        TorchTrace trace = parseTorchTraceFile(path, displayName);
        out.readSomething = trace.eventCount > 0 || trace.workbench.stepTimeSeconds.has_value()
                            || trace.workbench.tokensPerSec.has_value() || trace.workbench.mfuPct.has_value();
        out.cancelled = trace.cancelled;
        out.diagnostics = std::move(trace.diagnostics);
        break;
    }
    case Parser::AmdSmi: {
        SmiTelemetry telemetry = parseAmdSmiFile(path, displayName);
        out.readSomething = !telemetry.samples.empty();
        out.cancelled = telemetry.cancelled;
        out.diagnostics = std::move(telemetry.diagnostics);
        break;
    }
    }
    return out;
}

QString describe(const Diagnostics &diagnostics)
{
    QStringList lines;
    for (const Diagnostic &d : diagnostics)
        lines << QStringLiteral("%1 %2:%3: %4").arg(severityName(d.severity), d.file).arg(d.line).arg(d.message);
    return lines.join(QLatin1Char('\n'));
}

} // namespace

class TestFuzzRegressions : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void parserSurvives_data();
    void parserSurvives();
    void runFolderSurvives_data() { parserSurvives_data(); }
    void runFolderSurvives();
    void csvGrammarChunkInvariant_data();
    void csvGrammarChunkInvariant();

private:
    QJsonObject m_schema;
    int m_inputCount = 0;
};

void TestFuzzRegressions::initTestCase()
{
    const QByteArray schema = test::readAll(QStringLiteral(GOBLIN_SOURCE_DIR "/resources/report.schema.json"));
    m_schema = QJsonDocument::fromJson(schema).object();
    QVERIFY2(!m_schema.isEmpty(), "resources/report.schema.json is missing or not a JSON object");
    for (const ParserInfo &info : kParsers) {
        const QDir dir(test::dataPath(QStringLiteral("fuzz-regressions/%1").arg(QLatin1String(info.folder))));
        m_inputCount += int(dir.entryList(QDir::Files).size());
    }
    // The folders hold the hand-written edge inputs at least; an empty set means a broken checkout.
    QVERIFY2(m_inputCount > 0, "no inputs under tests/data/fuzz-regressions");
}

void TestFuzzRegressions::parserSurvives_data()
{
    QTest::addColumn<int>("parser");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("runFileName");
    for (const ParserInfo &info : kParsers) {
        const QString folder = QStringLiteral("fuzz-regressions/%1").arg(QLatin1String(info.folder));
        const QDir dir(test::dataPath(folder));
        for (const QString &name : dir.entryList(QDir::Files, QDir::Name)) {
            const QByteArray row = QStringLiteral("%1/%2").arg(QLatin1String(info.folder), name).toUtf8();
            QTest::newRow(row.constData())
                << int(info.parser) << dir.absoluteFilePath(name) << QString::fromLatin1(info.runFileName);
        }
    }
}

void TestFuzzRegressions::parserSurvives()
{
    QFETCH(int, parser);
    QFETCH(QString, path);
    QFETCH(QString, runFileName);

    const Outcome out = parseOne(Parser(parser), path, runFileName);
    QVERIFY2(!out.cancelled, "nobody cancelled, yet the parser says it was cancelled");
    for (const Diagnostic &d : out.diagnostics) {
        QVERIFY2(!d.message.trimmed().isEmpty(), qPrintable(describe(out.diagnostics)));
        QVERIFY2(d.line >= 0, qPrintable(describe(out.diagnostics)));
    }
    if (!out.readSomething) {
        // Never silently read as zero: nothing usable means a diagnostic naming the file.
        const bool namesFile = std::any_of(out.diagnostics.begin(), out.diagnostics.end(),
                                           [&](const Diagnostic &d) { return d.file == runFileName; });
        QVERIFY2(namesFile, qPrintable(QStringLiteral("nothing was read from %1 and no diagnostic names %2:\n%3")
                                           .arg(path, runFileName, describe(out.diagnostics))));
    }
}

void TestFuzzRegressions::runFolderSurvives()
{
    QFETCH(int, parser);
    QFETCH(QString, path);
    QFETCH(QString, runFileName);
    Q_UNUSED(parser);

    // The input alone in a run folder, under the name the loader looks for.
    QTemporaryDir run;
    QVERIFY(run.isValid());
    QVERIFY(QFile::copy(path, run.filePath(runFileName)));

    const LoadResult loaded = loadRun(run.path());
    // A folder whose only input holds nothing readable fails (issue 23 item 2) with a message
    // naming the folder and the file; what the load read still makes a valid report.
    if (loaded.outcome == LoadOutcome::Failed) {
        QVERIFY2(loaded.error.startsWith(run.path()) && loaded.error.contains(runFileName), qPrintable(loaded.error));
        QVERIFY(!loaded.run);
    } else {
        QCOMPARE(int(loaded.outcome), int(LoadOutcome::Finished));
    }
    const std::shared_ptr<const RunAnalysis> analysed = loaded.run ? loaded.run : loaded.unreadableRun;
    QVERIFY(analysed);
    for (HeuristicsProfile profile : {HeuristicsProfile::Workbench, HeuristicsProfile::Reference}) {
        const QJsonObject report = buildReport(*analysed, profile, Thresholds{});
        const QStringList problems = test::validateJsonSchema(report, m_schema);
        QVERIFY2(problems.isEmpty(), qPrintable(profileName(profile) + QStringLiteral(": ")
                                                + problems.join(QStringLiteral("\n"))));
        // Strict JSON: the document must survive a round trip through text.
        const QByteArray text = QJsonDocument(report).toJson(QJsonDocument::Compact);
        QJsonParseError error;
        QJsonDocument::fromJson(text, &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
    }
}

namespace {

/// The records and flags of a CsvReader over `bytes`, as text (what fuzz_csv compares).
QString csvRecords(QByteArrayView bytes, const CsvReader::Options &options)
{
    CsvReader reader(bytes, options);
    QString out;
    std::vector<std::string_view> fields;
    while (reader.readRecord(fields)) {
        out += QStringLiteral("%1-%2 @%3 q%4:")
                   .arg(reader.recordStartLine())
                   .arg(reader.recordEndLine())
                   .arg(reader.bytesConsumed())
                   .arg(reader.lastRecordQuoteQuirkField());
        for (std::string_view f : fields)
            out += QLatin1Char('[') + QString::fromUtf8(f.data(), qsizetype(f.size())) + QLatin1Char(']');
        out += QLatin1Char('\n');
    }
    out += QStringLiteral("limit %1 %2 %3 utf8 %4 %5 truncated %6 bom %7\n")
               .arg(reader.exceededPythonFieldLimit())
               .arg(reader.pythonFieldLimitLine())
               .arg(reader.pythonFieldLimitOffset())
               .arg(reader.firstInvalidUtf8Offset())
               .arg(reader.firstInvalidUtf8Line())
               .arg(reader.hadTruncatedField())
               .arg(reader.hadBom());
    return out;
}

} // namespace

/// fuzz_csv's inputs (a mode byte, then CSV bytes): the records may not depend on the chunk size.
void TestFuzzRegressions::csvGrammarChunkInvariant_data()
{
    QTest::addColumn<QString>("path");
    const QDir dir(test::dataPath(QStringLiteral("fuzz-regressions/csv")));
    for (const QString &name : dir.entryList(QDir::Files, QDir::Name))
        QTest::newRow(qPrintable(name)) << dir.absoluteFilePath(name);
}

void TestFuzzRegressions::csvGrammarChunkInvariant()
{
    QFETCH(QString, path);
    const QByteArray input = test::readAll(path);
    QVERIFY(!input.isEmpty());
    const auto mode = static_cast<unsigned char>(input.front());
    const QByteArrayView bytes(input.constData() + 1, input.size() - 1);
    CsvReader::Options options; // as fuzz_csv decodes the mode byte
    options.stripUtf8Bom = (mode & 1) != 0;
    options.validateUtf8 = (mode & 2) != 0;
    if (mode & 4) {
        options.maxFieldBytes = 64;
        options.maxRecordBytes = 256;
        options.maxFieldsPerRecord = 16;
    }
    const QString whole = csvRecords(bytes, options);
    for (const qint64 chunk : {qint64(1), qint64(1 + (mode >> 4)), qint64(4096)}) {
        CsvReader::Options small = options;
        small.chunkBytes = chunk;
        QCOMPARE(csvRecords(bytes, small), whole);
    }
}

QTEST_GUILESS_MAIN(TestFuzzRegressions)
#include "tst_fuzzregressions.moc"
