// Tests for CsvReader: Python csv-module semantics (expected records and line numbers were
// computed once with Python 3.11's csv.reader over io.StringIO(text, newline='') and pasted
// here), chunk boundaries, BOM, field limits, UTF-8 validation.
#include "syntax/bytesearch.h"
#include "syntax/csvreader.h"

#include <QBuffer>
#include <QTest>

#include <algorithm>

#include <string>
#include <string_view>
#include <vector>

using namespace goblin;
using namespace std::literals;

namespace
{

using Records = std::vector<std::vector<std::string_view>>;
using Lines = std::vector<qint64>;

struct ReadResult {
    std::vector<std::vector<std::string>> records;
    Lines starts;
    Lines ends;
    std::vector<int> quirkFields;
};

ReadResult readAll(const QByteArray &data, CsvReader::Options options = {})
{
    QByteArray copy = data;
    QBuffer buffer(&copy);
    buffer.open(QIODevice::ReadOnly);
    CsvReader reader(&buffer, options);
    ReadResult out;
    std::vector<std::string_view> fields;
    while (reader.readRecord(fields)) {
        out.records.emplace_back(fields.begin(), fields.end());
        out.starts.push_back(reader.recordStartLine());
        out.ends.push_back(reader.recordEndLine());
        out.quirkFields.push_back(reader.lastRecordQuoteQuirkField());
    }
    return out;
}

QString describe(const std::vector<std::vector<std::string>> &records)
{
    QStringList rows;
    for (const auto &r : records) {
        QStringList f;
        for (const auto &s : r)
            f << QString::fromUtf8(QByteArray(s.data(), qsizetype(s.size())).toPercentEncoding(" ,\""));
        rows << QLatin1Char('[') + f.join(QLatin1Char('|')) + QLatin1Char(']');
    }
    return rows.join(QLatin1Char(' '));
}

/// A device that delivers `good` bytes and then fails.
class FailingDevice : public QIODevice
{
public:
    explicit FailingDevice(QByteArray good) : m_good(std::move(good)) {}

protected:
    qint64 readData(char *data, qint64 maxSize) override
    {
        if (m_pos >= m_good.size()) {
            setErrorString(QStringLiteral("simulated I/O error"));
            return -1;
        }
        const qint64 n = std::min<qint64>(maxSize, m_good.size() - m_pos);
        std::memcpy(data, m_good.constData() + m_pos, size_t(n));
        m_pos += n;
        return n;
    }
    qint64 writeData(const char *, qint64) override { return -1; }

private:
    QByteArray m_good;
    qint64 m_pos = 0;
};

} // namespace

Q_DECLARE_METATYPE(Records)
Q_DECLARE_METATYPE(Lines)

class TestCsvReader : public QObject
{
    Q_OBJECT

private slots:
    void pythonGrammar_data();
    void pythonGrammar();
    void quoteQuirkField_data();
    void quoteQuirkField();
    void bom_data();
    void bom();
    void pythonFieldLimit_data();
    void pythonFieldLimit();
    void maxFieldBytesTruncates();
    void utf8Validation_data();
    void utf8Validation();
    void largeFieldAcrossChunks();
    void wideRecordsInTinyChunksFromMemory();
    void countNewlines_data();
    void countNewlines();
    void bytesConsumed();
    void emptyDevice();
    void readError();
    void splitCsvLine_data();
    void splitCsvLine();
};

void TestCsvReader::pythonGrammar_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<qint64>("chunkBytes");
    QTest::addColumn<Records>("expected");
    QTest::addColumn<Lines>("startLines");
    QTest::addColumn<Lines>("endLines");
    // Every case at several chunk sizes: 1-7 byte chunks put every field, quote pair and CRLF
    // across a chunk edge somewhere.
    auto addRow = [](const char *name, const QByteArray &input, const Records &expected, const Lines &starts,
                     const Lines &ends) {
        for (qint64 chunk : {1, 2, 3, 5, 7, 4096})
            QTest::addRow("%s / chunk %lld", name, chunk) << input << chunk << expected << starts << ends;
    };
    addRow("simple", QByteArray("a,b,c\n1,2,3\n", 12), Records{{"a"sv, "b"sv, "c"sv}, {"1"sv, "2"sv, "3"sv}},
           Lines{1, 2}, Lines{1, 2});
    addRow("no final newline", QByteArray("a,b\n1,2", 7), Records{{"a"sv, "b"sv}, {"1"sv, "2"sv}}, Lines{1, 2},
           Lines{1, 2});
    addRow("crlf", QByteArray("a,b\r\n1,2\r\n", 10), Records{{"a"sv, "b"sv}, {"1"sv, "2"sv}}, Lines{1, 2}, Lines{1, 2});
    addRow("bare cr", QByteArray("a,b\r1,2\r", 8), Records{{"a"sv, "b"sv}, {"1"sv, "2"sv}}, Lines{1, 2}, Lines{1, 2});
    addRow("mixed line ends", QByteArray("a\rb\nc\r\nd", 8), Records{{"a"sv}, {"b"sv}, {"c"sv}, {"d"sv}},
           Lines{1, 2, 3, 4}, Lines{1, 2, 3, 4});
    addRow("empty lines", QByteArray("a\n\n\nb\n\r\n", 8), Records{{"a"sv}, {}, {}, {"b"sv}, {}}, Lines{1, 2, 3, 4, 5},
           Lines{1, 2, 3, 4, 5});
    addRow("trailing comma", QByteArray("a,\n,b\n,\n", 8), Records{{"a"sv, ""sv}, {""sv, "b"sv}, {""sv, ""sv}},
           Lines{1, 2, 3}, Lines{1, 2, 3});
    addRow("quoted comma", QByteArray("\"a,b\",c\n", 8), Records{{"a,b"sv, "c"sv}}, Lines{1}, Lines{1});
    addRow("doubled quotes", QByteArray("\"say \"\"hi\"\"\",x\n", 15), Records{{"say \"hi\""sv, "x"sv}}, Lines{1},
           Lines{1});
    addRow("embedded newline", QByteArray("\"line1\nline2\",x\nnext,row\n", 25),
           Records{{"line1\nline2"sv, "x"sv}, {"next"sv, "row"sv}}, Lines{1, 3}, Lines{2, 3});
    addRow("embedded crlf", QByteArray("\"l1\r\nl2\r\nl3\",x\r\ny\r\n", 19),
           Records{{"l1\r\nl2\r\nl3"sv, "x"sv}, {"y"sv}}, Lines{1, 4}, Lines{3, 4});
    addRow("embedded bare cr", QByteArray("\"l1\rl2\",x\ry\r", 12), Records{{"l1\rl2"sv, "x"sv}, {"y"sv}}, Lines{1, 3},
           Lines{2, 3});
    addRow("text after closing quote", QByteArray("\"foo\"bar\",x\n", 12), Records{{"foobar\""sv, "x"sv}}, Lines{1},
           Lines{1});
    addRow("unescaped quote adds field", QByteArray("\"a\",b\",c\n", 9), Records{{"a"sv, "b\""sv, "c"sv}}, Lines{1},
           Lines{1});
    addRow("quote inside unquoted", QByteArray("ab\"c\"d,e\n", 9), Records{{"ab\"c\"d"sv, "e"sv}}, Lines{1}, Lines{1});
    addRow("space before quote", QByteArray(" \"a\",b\n", 7), Records{{" \"a\""sv, "b"sv}}, Lines{1}, Lines{1});
    addRow("eof inside quotes", QByteArray("a,\"open\nfield", 13), Records{{"a"sv, "open\nfield"sv}}, Lines{1},
           Lines{2});
    addRow("eof inside quotes after newline", QByteArray("a,\"open\n", 8), Records{{"a"sv, "open\n"sv}}, Lines{1},
           Lines{1});
    addRow("lone quote", QByteArray("\"", 1), Records{{""sv}}, Lines{1}, Lines{1});
    addRow("empty quoted", QByteArray("\"\",\"\"\n", 6), Records{{""sv, ""sv}}, Lines{1}, Lines{1});
    addRow("quote then eof", QByteArray("x,\"a\"", 5), Records{{"x"sv, "a"sv}}, Lines{1}, Lines{1});
    addRow("nul bytes",
           QByteArray("a\x00"
                      "b,\"c\x00"
                      "\"\n",
                      9),
           Records{{"a\x00"
                    "b"sv,
                    "c\x00"
                    ""sv}},
           Lines{1}, Lines{1});
    addRow("utf8",
           QByteArray("\xc3"
                      "\xa9"
                      ",\"\xc3"
                      "\xbc"
                      ",\xc3"
                      "\xb1"
                      "\",\xe2"
                      "\x82"
                      "\xac"
                      "\n",
                      15),
           Records{{"\xc3"
                    "\xa9"
                    ""sv,
                    "\xc3"
                    "\xbc"
                    ",\xc3"
                    "\xb1"
                    ""sv,
                    "\xe2"
                    "\x82"
                    "\xac"
                    ""sv}},
           Lines{1}, Lines{1});
    addRow("only newline", QByteArray("\n", 1), Records{{}}, Lines{1}, Lines{1});
    addRow("only cr lf", QByteArray("\r\n", 2), Records{{}}, Lines{1}, Lines{1});
    addRow("cr at eof in quotes", QByteArray("\"a\r", 3), Records{{"a\r"sv}}, Lines{1}, Lines{1});
    addRow("doubled quote at end", QByteArray("\"a\"\"\"\n", 6), Records{{"a\""sv}}, Lines{1}, Lines{1});
    addRow("quote quote then text", QByteArray("\"a\"\"b\"c,d\n", 10), Records{{"a\"bc"sv, "d"sv}}, Lines{1}, Lines{1});
}

void TestCsvReader::pythonGrammar()
{
    QFETCH(QByteArray, input);
    QFETCH(qint64, chunkBytes);
    QFETCH(Records, expected);
    QFETCH(Lines, startLines);
    QFETCH(Lines, endLines);
    CsvReader::Options options;
    options.chunkBytes = chunkBytes;
    const ReadResult got = readAll(input, options);
    std::vector<std::vector<std::string>> want;
    for (const auto &r : expected)
        want.emplace_back(r.begin(), r.end());
    QVERIFY2(got.records == want,
             qPrintable(QStringLiteral("got %1, want %2").arg(describe(got.records), describe(want))));
    QCOMPARE(got.starts, startLines);
    QCOMPARE(got.ends, endLines);
}

void TestCsvReader::quoteQuirkField_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<int>("quirkField");
    QTest::newRow("text after closing quote in field 0") << QByteArray("\"foo\"bar\",x\n") << 0;
    QTest::newRow("text after closing quote in field 1") << QByteArray("x,\"a\"b\n") << 1;
    QTest::newRow("doubled quote is no quirk") << QByteArray("\"a\"\"b\",c\n") << -1;
    QTest::newRow("quote inside unquoted field is no quirk") << QByteArray("ab\"c,d\n") << -1;
    QTest::newRow("plain quoted fields") << QByteArray("\"a\",\"b\"\n") << -1;
}

void TestCsvReader::quoteQuirkField()
{
    QFETCH(QByteArray, input);
    QFETCH(int, quirkField);
    for (qint64 chunk : {1, 3, 4096}) {
        CsvReader::Options options;
        options.chunkBytes = chunk;
        const ReadResult got = readAll(input, options);
        QCOMPARE(got.quirkFields.size(), size_t(1));
        QCOMPARE(got.quirkFields.front(), quirkField);
    }
}

void TestCsvReader::bom_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<bool>("strip");
    QTest::addColumn<QByteArray>("firstField");
    QTest::addColumn<bool>("hadBom");
    QTest::newRow("stripped") << QByteArray("\xEF\xBB\xBFName,x\n") << true << QByteArray("Name") << true;
    QTest::newRow("kept, as Python's utf-8 codec keeps it")
        << QByteArray("\xEF\xBB\xBFName,x\n") << false << QByteArray("\xEF\xBB\xBFName") << true;
    QTest::newRow("kept before a quote: the quote becomes literal")
        << QByteArray("\xEF\xBB\xBF\"Name\",x\n") << false << QByteArray("\xEF\xBB\xBF\"Name\"") << true;
    QTest::newRow("stripped before a quote")
        << QByteArray("\xEF\xBB\xBF\"Name\",x\n") << true << QByteArray("Name") << true;
    QTest::newRow("no BOM") << QByteArray("Name,x\n") << true << QByteArray("Name") << false;
    QTest::newRow("partial BOM is data") << QByteArray("\xEF\xBB") << true << QByteArray("\xEF\xBB") << false;
}

void TestCsvReader::bom()
{
    QFETCH(QByteArray, input);
    QFETCH(bool, strip);
    QFETCH(QByteArray, firstField);
    QFETCH(bool, hadBom);
    for (qint64 chunk : {1, 2, 4096}) {
        QByteArray copy = input;
        QBuffer buffer(&copy);
        buffer.open(QIODevice::ReadOnly);
        CsvReader::Options options;
        options.stripUtf8Bom = strip;
        options.chunkBytes = chunk;
        CsvReader reader(&buffer, options);
        std::vector<std::string_view> fields;
        QVERIFY(reader.readRecord(fields));
        QCOMPARE(QByteArray(fields.front().data(), qsizetype(fields.front().size())), firstField);
        QCOMPARE(reader.hadBom(), hadBom);
    }
}

void TestCsvReader::pythonFieldLimit_data()
{
    // Python's csv raises "field larger than field limit (131072)" when a field reaches 131073
    // characters (code points, after unquoting).
    QTest::addColumn<QByteArray>("field");
    QTest::addColumn<bool>("exceeds");
    const QByteArray e = QByteArray("\xC3\xA9");
    QTest::newRow("131072 ASCII characters") << QByteArray(131072, 'a') << false;
    QTest::newRow("131073 ASCII characters") << QByteArray(131073, 'a') << true;
    QTest::newRow("131072 two-byte characters (262144 bytes)") << e.repeated(131072) << false;
    QTest::newRow("131073 two-byte characters") << e.repeated(131073) << true;
    QTest::newRow("quoted, 131070 + an escaped quote + 1 = 131072")
        << QByteArray("\"") + QByteArray(131070, 'a') + QByteArray("\"\"b\"") << false;
    QTest::newRow("quoted, 131071 + an escaped quote + 1 = 131073")
        << QByteArray("\"") + QByteArray(131071, 'a') + QByteArray("\"\"b\"") << true;
}

void TestCsvReader::pythonFieldLimit()
{
    QFETCH(QByteArray, field);
    QFETCH(bool, exceeds);
    const QByteArray input = QByteArray("h1,h2\nx,y\n1,") + field + QByteArray("\n2,3\n");
    for (qint64 chunk : {4093, 1 << 20}) {
        QByteArray copy = input;
        QBuffer buffer(&copy);
        buffer.open(QIODevice::ReadOnly);
        CsvReader::Options options;
        options.chunkBytes = chunk;
        CsvReader reader(&buffer, options);
        std::vector<std::string_view> fields;
        int records = 0;
        while (reader.readRecord(fields))
            ++records;
        QCOMPARE(records, 4); // the reader itself goes on; only the flag records what Python does
        QCOMPARE(reader.exceededPythonFieldLimit(), exceeds);
        QCOMPARE(reader.pythonFieldLimitLine(), exceeds ? 3 : 0);
        if (exceeds)
            QVERIFY(reader.pythonFieldLimitOffset() > 131072);
    }
}

void TestCsvReader::maxFieldBytesTruncates()
{
    const QByteArray input = QByteArray("a,") + QByteArray(200000, 'x') + QByteArray(",b\nnext,row\n");
    CsvReader::Options options;
    options.chunkBytes = 4096;
    options.maxFieldBytes = 1000;
    const ReadResult got = readAll(input, options);
    QCOMPARE(got.records.size(), size_t(2));
    QCOMPARE(got.records[0].size(), size_t(3));
    QCOMPARE(got.records[0][1], std::string(1000, 'x'));
    QCOMPARE(got.records[0][2], std::string("b"));
    QCOMPARE(got.records[1], (std::vector<std::string>{"next", "row"}));

    QByteArray copy = input;
    QBuffer buffer(&copy);
    buffer.open(QIODevice::ReadOnly);
    CsvReader reader(&buffer, options);
    std::vector<std::string_view> fields;
    while (reader.readRecord(fields)) {
    }
    QVERIFY(reader.hadTruncatedField());
    QVERIFY(reader.exceededPythonFieldLimit()); // counted on the full field, not the kept part
}

void TestCsvReader::utf8Validation_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<qint64>("badOffset");
    QTest::addColumn<qint64>("badLine");
    QTest::newRow("valid multi-byte") << QByteArray("a\xC3\xA9,\xE2\x82\xAC,\xF0\x9F\x98\x80\n") << qint64(-1)
                                      << qint64(0);
    QTest::newRow("invalid lead byte on line 2") << QByteArray("ok\nab\xFF\n") << qint64(5) << qint64(2);
    QTest::newRow("overlong encoding") << QByteArray("x\n\n\xC0\xAF\n") << qint64(3) << qint64(3);
    QTest::newRow("UTF-16 surrogate") << QByteArray("\xED\xA0\x80") << qint64(1) << qint64(1);
    QTest::newRow("beyond U+10FFFF") << QByteArray("a\xF4\x90\x80\x80") << qint64(2) << qint64(1);
    QTest::newRow("truncated at end of data") << QByteArray("a\r\nb\xE2\x82") << qint64(6) << qint64(2);
    QTest::newRow("continuation without lead") << QByteArray("\"a\nb\x80\"\n") << qint64(4) << qint64(2);
}

void TestCsvReader::utf8Validation()
{
    QFETCH(QByteArray, input);
    QFETCH(qint64, badOffset);
    QFETCH(qint64, badLine);
    for (qint64 chunk : {1, 2, 4096}) {
        QByteArray copy = input;
        QBuffer buffer(&copy);
        buffer.open(QIODevice::ReadOnly);
        CsvReader::Options options;
        options.chunkBytes = chunk;
        options.validateUtf8 = true;
        CsvReader reader(&buffer, options);
        std::vector<std::string_view> fields;
        while (reader.readRecord(fields)) {
        }
        QCOMPARE(reader.firstInvalidUtf8Offset(), badOffset);
        QCOMPARE(reader.firstInvalidUtf8Line(), badLine);
    }
}

void TestCsvReader::largeFieldAcrossChunks()
{
    // A 10 MB quoted field with escaped quotes and CRLFs inside, read in 64 KB chunks.
    std::string content;
    QByteArray raw = "head\n\"";
    qint64 newlines = 0;
    for (int i = 0; content.size() < (10u << 20); ++i) {
        const std::string piece = "kernel<" + std::to_string(i) + ">";
        content += piece;
        raw += QByteArray::fromStdString(piece);
        if (i % 97 == 0) {
            content += "\"";
            raw += "\"\"";
        }
        if (i % 1013 == 0) {
            content += "\r\n";
            raw += "\r\n";
            ++newlines;
        }
    }
    raw += "\",tail\nlast\n";
    CsvReader::Options options;
    options.chunkBytes = 64 << 10;
    const ReadResult got = readAll(raw, options);
    QCOMPARE(got.records.size(), size_t(3));
    QCOMPARE(got.records[1].size(), size_t(2));
    QVERIFY(got.records[1][0] == content);
    QCOMPARE(got.records[1][1], std::string("tail"));
    QCOMPARE(got.starts, (Lines{1, 2, 3 + newlines}));
    QCOMPARE(got.ends[1], 2 + newlines);
}

/// Records of hundreds of fields read from memory in chunks of 1..17 bytes: the views of a
/// record's finished fields stay right while the record grows the buffer (and moves it) and
/// while later chunks only append (when the reader leaves the views alone).
void TestCsvReader::wideRecordsInTinyChunksFromMemory()
{
    QByteArray raw;
    std::vector<std::vector<std::string>> expected;
    for (int r = 0; r < 4; ++r) {
        std::vector<std::string> record;
        for (int f = 0; f < 300; ++f) {
            std::string field(size_t((f * 7 + r) % 23), char('a' + (f + r) % 26));
            if (f % 50 == 7) {
                field += "\"\n,";  // quoted: a quote, a line break and a comma in the data
                raw += '"';
                for (char c : field) {
                    raw += c;
                    if (c == '"')
                        raw += '"';
                }
                raw += '"';
            } else {
                raw += QByteArray(field.data(), qsizetype(field.size()));
            }
            record.push_back(field);
            raw += f + 1 < 300 ? ',' : '\n';
        }
        expected.push_back(std::move(record));
    }
    for (qint64 chunk = 1; chunk <= 17; ++chunk) {
        CsvReader::Options options;
        options.chunkBytes = chunk;
        CsvReader reader(QByteArrayView(raw), options);
        std::vector<std::vector<std::string>> got;
        std::vector<std::string_view> fields;
        while (reader.readRecord(fields))
            got.emplace_back(fields.begin(), fields.end());
        QVERIFY2(got == expected, qPrintable(QStringLiteral("chunk %1: %2").arg(chunk).arg(describe(got).left(300))));
        QCOMPARE(reader.bytesConsumed(), qint64(raw.size()));
    }
}

void TestCsvReader::countNewlines_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("no line feed") << QByteArray("abc\rdef");
    QTest::newRow("only line feeds") << QByteArray(5, '\n');
    QTest::newRow("CRLF counts its LF") << QByteArray("a\r\nb\r\n");
    QTest::newRow("line feed first and last") << QByteArray("\nabc\n");
    QByteArray large;
    for (int i = 0; i < 5000; ++i)
        large += (i % 7 == 0) ? '\n' : char('0' + i % 10);
    QTest::newRow("5000 bytes") << large;
}

// What the torch reader counts lines with where its scanner has stopped (memchr, not a byte loop).
void TestCsvReader::countNewlines()
{
    QFETCH(QByteArray, bytes);
    const char *p = bytes.constData();
    const qint64 expected = std::count(p, p + bytes.size(), '\n');
    QCOMPARE(syntax::countNewlines(p, p + bytes.size()), expected);
    if (bytes.size() > 2)  // and from inside the bytes
        QCOMPARE(syntax::countNewlines(p + 1, p + bytes.size() - 1), qint64(std::count(p + 1, p + bytes.size() - 1, '\n')));
}

void TestCsvReader::bytesConsumed()
{
    QByteArray input = "a,b\r\n\"c\nd\",e\r\n";
    QBuffer buffer(&input);
    buffer.open(QIODevice::ReadOnly);
    CsvReader::Options options;
    options.chunkBytes = 3;
    CsvReader reader(&buffer, options);
    std::vector<std::string_view> fields;
    QVERIFY(reader.readRecord(fields));
    QCOMPARE(reader.bytesConsumed(), qint64(5));
    QVERIFY(reader.readRecord(fields));
    QCOMPARE(reader.bytesConsumed(), qint64(input.size()));
    QVERIFY(!reader.readRecord(fields));
    QVERIFY(reader.errorString().isEmpty());
}

void TestCsvReader::emptyDevice()
{
    QByteArray input;
    QBuffer buffer(&input);
    buffer.open(QIODevice::ReadOnly);
    CsvReader reader(&buffer);
    std::vector<std::string_view> fields;
    QVERIFY(!reader.readRecord(fields));
    QVERIFY(fields.empty());
    QCOMPARE(reader.bytesConsumed(), qint64(0));
}

void TestCsvReader::readError()
{
    FailingDevice device(QByteArray("a,b\nc,d\ne,"));
    device.open(QIODevice::ReadOnly);
    CsvReader::Options options;
    options.chunkBytes = 4;
    CsvReader reader(&device, options);
    std::vector<std::string_view> fields;
    int records = 0;
    while (reader.readRecord(fields))
        ++records;
    QCOMPARE(records, 2); // the partial third record is not returned as if the file ended there
    QCOMPARE(reader.errorString(), QStringLiteral("simulated I/O error"));
}

void TestCsvReader::splitCsvLine_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<QStringList>("fields");
    QTest::newRow("quoted header") << QByteArray("\"Kind\",\"Agent_Id\",\"Kernel_Name\"")
                                   << QStringList{"Kind", "Agent_Id", "Kernel_Name"};
    QTest::newRow("comma inside quotes") << QByteArray("\"f(a, b)\",2") << QStringList{"f(a, b)", "2"};
    QTest::newRow("empty fields") << QByteArray(",,") << QStringList{"", "", ""};
    QTest::newRow("trailing CRLF") << QByteArray("a,b\r\n") << QStringList{"a", "b"};
    QTest::newRow("empty line") << QByteArray("") << QStringList{};
}

void TestCsvReader::splitCsvLine()
{
    QFETCH(QByteArray, line);
    QFETCH(QStringList, fields);
    const std::vector<std::string> got = goblin::splitCsvLine(std::string_view(line.constData(), size_t(line.size())));
    QStringList gotList;
    for (const std::string &f : got)
        gotList << QString::fromStdString(f);
    QCOMPARE(gotList, fields);
}

QTEST_GUILESS_MAIN(TestCsvReader)
#include "tst_csvreader.moc"
