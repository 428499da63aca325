// The streaming JSON splitter: Python's json grammar (messages and positions hard-coded from
// json.loads under Python 3.11), the same result whatever the chunking, value boundaries,
// escapes, NaN/Infinity and nesting far beyond any call stack.

#include "syntax/jsonscanner.h"

#include <QString>
#include <QTest>

#include <string>
#include <vector>

using namespace goblin;

namespace {

struct Recorded {
    std::vector<std::string> rootKeys;
    std::vector<std::string> events;  // "b<depth>:<first>@<offset>:<line>" / "e<depth>@<offset>:<escapes>"
};

class RecordingSink : public JsonScanner::Sink
{
public:
    explicit RecordingSink(bool childrenOfDepth1 = true) : m_children(childrenOfDepth1) {}
    Recorded recorded;

    void rootKey(std::string_view key, qint64, qint64) override { recorded.rootKeys.emplace_back(key); }
    bool valueBegin(int depth, char first, qint64 offset, qint64 line) override
    {
        recorded.events.push_back(QStringLiteral("b%1:%2@%3:%4").arg(depth).arg(QLatin1Char(first)).arg(offset).arg(line).toStdString());
        return depth == 0 || m_children;
    }
    void valueEnd(int depth, qint64 endOffset, bool escapes) override
    {
        recorded.events.push_back(
            QStringLiteral("e%1@%2:%3").arg(depth).arg(endOffset).arg(escapes ? "esc" : "plain").toStdString());
    }

private:
    bool m_children;
};

struct Outcome {
    bool complete = false;
    std::string message;
    qint64 line = 0, column = 0, offset = 0;
    Recorded recorded;
    size_t maxDepth = 0;
    qint64 nonStandard = 0;
};

/// Feeds `doc` in pieces of `piece` bytes (0: all at once).
Outcome scan(const QByteArray &doc, int piece = 0, bool childrenOfDepth1 = true)
{
    RecordingSink sink(childrenOfDepth1);
    JsonScanner scanner(sink);
    const int step = piece > 0 ? piece : std::max<int>(1, int(doc.size()));
    for (qsizetype i = 0; i < doc.size() && !scanner.failed(); i += step)
        scanner.feed(doc.constData() + i, size_t(std::min<qsizetype>(step, doc.size() - i)));
    scanner.finish();
    Outcome o;
    o.complete = scanner.complete();
    o.message = scanner.errorMessage();
    o.line = scanner.errorLine();
    o.column = scanner.errorColumn();
    o.offset = scanner.errorOffset();
    o.recorded = sink.recorded;
    o.maxDepth = scanner.maxDepthSeen();
    o.nonStandard = scanner.nonStandardLiterals();
    return o;
}

/// Records, for each element of a root array, the members setCapturedKeys() located
/// ("ph=\"X\" ts=12"), or "slow" when the element was not scanned whole by the fast path.
class CapturingSink : public JsonScanner::Sink
{
public:
    static constexpr std::string_view kKeys[3] = {"ph", "ts", "name"};
    /// With nested capture: keys[1] is "args", whose members these are.
    static constexpr std::string_view kNestedKeys[4] = {"correlation", "Input Dims", "graph id", "cat"};
    static constexpr std::string_view kParentKeys[3] = {"ph", "args", "name"};
    JsonScanner *scanner = nullptr;
    QByteArray doc;
    QStringList elements;
    bool nested = false;

    void rootKey(std::string_view, qint64, qint64) override {}
    bool valueBegin(int depth, char, qint64, qint64) override { return depth == 0; }
    void valueEnd(int depth, qint64, bool) override
    {
        if (depth != 1)
            return;
        const JsonScanner::CapturedMembers *members = scanner->capturedMembers();
        if (!members) {
            elements << QStringLiteral("slow");
            return;
        }
        QStringList found;
        const std::string_view *keys = nested ? kParentKeys : kKeys;
        for (int k = 0; k < 3; ++k)
            if (members->have & (1u << k))
                found << QString::fromLatin1(keys[k].data(), qsizetype(keys[k].size())) + QLatin1Char('=') +
                             QString::fromUtf8(doc.mid(members->begin[k], members->end[k] - members->begin[k]));
        if (nested) {
            if (!members->nestedScanned)
                found << QStringLiteral("args:unscanned");
            for (int k = 0; k < 4; ++k)
                if (members->nestedScanned && (members->nestedHave & (1u << k)))
                    found << QStringLiteral("args.") + QString::fromLatin1(kNestedKeys[k].data(), qsizetype(kNestedKeys[k].size())) +
                                 QLatin1Char('=') +
                                 QString::fromUtf8(doc.mid(members->nestedBegin[k], members->nestedEnd[k] - members->nestedBegin[k]));
        }
        elements << found.join(QLatin1Char(' '));
    }
};

QStringList capture(const QByteArray &doc, int piece = 0, bool nested = false)
{
    CapturingSink sink;
    sink.doc = doc;
    sink.nested = nested;
    JsonScanner scanner(sink);
    sink.scanner = &scanner;
    if (nested) {
        scanner.setCapturedKeys(CapturingSink::kParentKeys, 3);
        scanner.setNestedCapturedKeys(1, CapturingSink::kNestedKeys, 4);
    } else {
        scanner.setCapturedKeys(CapturingSink::kKeys, 3);
    }
    const int step = piece > 0 ? piece : std::max<int>(1, int(doc.size()));
    for (qsizetype i = 0; i < doc.size() && !scanner.failed(); i += step)
        scanner.feed(doc.constData() + i, size_t(std::min<qsizetype>(step, doc.size() - i)));
    scanner.finish();
    return sink.elements;
}

} // namespace

class TestJsonScanner : public QObject
{
    Q_OBJECT

private slots:
    void pythonGrammar_data();
    void pythonGrammar();
    void boundariesAndKeys();
    void childrenOnlyWhenAsked();
    void nonStandardLiterals();
    void deepNestingIsIterative();
    void depthLimit();
    void unescape_data();
    void unescape();
    void capturedMembers_data();
    void capturedMembers();
    void capturedMembersOnlyFromTheFastPath();
    void nestedMembers_data();
    void nestedMembers();
    void rangeScannersAgreeWithOnePass();
};

void TestJsonScanner::pythonGrammar_data()
{
    QTest::addColumn<QByteArray>("document");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<QString>("message");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");

    QTest::newRow("object") << QByteArray("{\"a\": 1}") << true << QString() << 0 << 0;
    QTest::newRow("array") << QByteArray("[1, 2.5, -3e2, true, false, null, \"x\"]") << true << QString() << 0 << 0;
    QTest::newRow("scalar string") << QByteArray("\"abc\"") << true << QString() << 0 << 0;
    QTest::newRow("scalar number") << QByteArray("  -0.5e-3  ") << true << QString() << 0 << 0;
    QTest::newRow("nested") << QByteArray("{\"a\": [{\"b\": {\"c\": []}}, {}]}") << true << QString() << 0 << 0;
    QTest::newRow("escapes") << QByteArray("[\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\ud83d\\ude00 \\ud800\"]") << true << QString() << 0 << 0;
    QTest::newRow("NaN and Infinity") << QByteArray("[NaN, Infinity, -Infinity]") << true << QString() << 0 << 0;
    QTest::newRow("empty") << QByteArray("") << false << QStringLiteral("Expecting value") << 1 << 1;
    QTest::newRow("whitespace") << QByteArray(" \n\t\r ") << false << QStringLiteral("Expecting value") << 2 << 4;
    QTest::newRow("unclosed object") << QByteArray("{\"a\": 1") << false << QStringLiteral("Expecting ',' delimiter") << 1 << 8;
    QTest::newRow("unclosed array") << QByteArray("[1, 2") << false << QStringLiteral("Expecting ',' delimiter") << 1 << 6;
    QTest::newRow("unclosed string") << QByteArray("[\"abc") << false << QStringLiteral("Unterminated string starting at") << 1 << 2;
    QTest::newRow("missing colon") << QByteArray("{\"a\" 1}") << false << QStringLiteral("Expecting ':' delimiter") << 1 << 6;
    QTest::newRow("missing comma") << QByteArray("[1 2]") << false << QStringLiteral("Expecting ',' delimiter") << 1 << 4;
    QTest::newRow("trailing comma array") << QByteArray("[1,]") << false << QStringLiteral("Expecting value") << 1 << 4;
    QTest::newRow("trailing comma object") << QByteArray("{\"a\":1,}") << false << QStringLiteral("Expecting property name enclosed in double quotes") << 1 << 8;
    QTest::newRow("unquoted key") << QByteArray("{a: 1}") << false << QStringLiteral("Expecting property name enclosed in double quotes") << 1 << 2;
    QTest::newRow("single quotes") << QByteArray("['a']") << false << QStringLiteral("Expecting value") << 1 << 2;
    QTest::newRow("leading zero") << QByteArray("[01]") << false << QStringLiteral("Expecting ',' delimiter") << 1 << 3;
    QTest::newRow("dot without digits") << QByteArray("[1.]") << false << QStringLiteral("Expecting ',' delimiter") << 1 << 3;
    QTest::newRow("exponent without digits") << QByteArray("[1e]") << false << QStringLiteral("Expecting ',' delimiter") << 1 << 3;
    QTest::newRow("exponent sign only") << QByteArray("[1e+]") << false << QStringLiteral("Expecting ',' delimiter") << 1 << 3;
    QTest::newRow("lone minus") << QByteArray("[-]") << false << QStringLiteral("Expecting value") << 1 << 2;
    QTest::newRow("plus sign") << QByteArray("[+1]") << false << QStringLiteral("Expecting value") << 1 << 2;
    QTest::newRow("hex") << QByteArray("[0x10]") << false << QStringLiteral("Expecting ',' delimiter") << 1 << 3;
    QTest::newRow("bad literal") << QByteArray("[tru]") << false << QStringLiteral("Expecting value") << 1 << 2;
    QTest::newRow("literal extra") << QByteArray("[nulll]") << false << QStringLiteral("Expecting ',' delimiter") << 1 << 6;
    QTest::newRow("nan lowercase") << QByteArray("[nan]") << false << QStringLiteral("Expecting value") << 1 << 2;
    QTest::newRow("-NaN") << QByteArray("[-NaN]") << false << QStringLiteral("Expecting value") << 1 << 2;
    QTest::newRow("inf short") << QByteArray("[Inf]") << false << QStringLiteral("Expecting value") << 1 << 2;
    QTest::newRow("control char") << QByteArray("[\"a\tb\"]") << false << QStringLiteral("Invalid control character at") << 1 << 4;
    QTest::newRow("bad escape") << QByteArray("[\"\\x\"]") << false << QStringLiteral("Invalid \\escape") << 1 << 3;
    QTest::newRow("bad unicode") << QByteArray("[\"\\u12G4\"]") << false << QStringLiteral("Invalid \\uXXXX escape") << 1 << 4;
    QTest::newRow("short unicode") << QByteArray("[\"\\u12\"]") << false << QStringLiteral("Invalid \\uXXXX escape") << 1 << 4;
    QTest::newRow("extra data") << QByteArray("{} {}") << false << QStringLiteral("Extra data") << 1 << 4;
    QTest::newRow("extra close") << QByteArray("[1]]") << false << QStringLiteral("Extra data") << 1 << 4;
    QTest::newRow("mismatched close") << QByteArray("[1}") << false << QStringLiteral("Expecting ',' delimiter") << 1 << 3;
    QTest::newRow("mismatched close obj") << QByteArray("{\"a\":1]") << false << QStringLiteral("Expecting ',' delimiter") << 1 << 7;
    QTest::newRow("colon in array") << QByteArray("[1:2]") << false << QStringLiteral("Expecting ',' delimiter") << 1 << 3;
    QTest::newRow("key not string") << QByteArray("{1: 2}") << false << QStringLiteral("Expecting property name enclosed in double quotes") << 1 << 2;
    QTest::newRow("multiline error") << QByteArray("[\n  1,\n  2\n  3\n]") << false << QStringLiteral("Expecting ',' delimiter") << 4 << 3;
    QTest::newRow("number then letter") << QByteArray("[12a]") << false << QStringLiteral("Expecting ',' delimiter") << 1 << 4;
    QTest::newRow("dot dot") << QByteArray("[1.2.3]") << false << QStringLiteral("Expecting ',' delimiter") << 1 << 5;
    QTest::newRow("root literal") << QByteArray("true") << true << QString() << 0 << 0;
    QTest::newRow("root number trailing") << QByteArray("12 ") << true << QString() << 0 << 0;
    QTest::newRow("deep ok") << QByteArray("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]") << true << QString() << 0 << 0;
}

void TestJsonScanner::pythonGrammar()
{
    QFETCH(QByteArray, document);
    QFETCH(bool, valid);
    QFETCH(QString, message);
    QFETCH(int, line);
    QFETCH(int, column);

    const Outcome whole = scan(document);
    QCOMPARE(whole.complete, valid);
    if (!valid) {
        QCOMPARE(QString::fromStdString(whole.message), message);
        QCOMPARE(whole.line, qint64(line));
        QCOMPARE(whole.column, qint64(column));
    }
    // Any chunking gives the same verdict, position and reports.
    for (int piece : {1, 2, 3, 7}) {
        const Outcome o = scan(document, piece);
        QCOMPARE(o.complete, whole.complete);
        QCOMPARE(o.message, whole.message);
        QCOMPARE(o.line, whole.line);
        QCOMPARE(o.column, whole.column);
        QCOMPARE(o.offset, whole.offset);
        QCOMPARE(o.recorded.events, whole.recorded.events);
        QCOMPARE(o.recorded.rootKeys, whole.recorded.rootKeys);
    }
}

void TestJsonScanner::boundariesAndKeys()
{
    const QByteArray doc = "{\"schemaVersion\": 1,\n \"traceEvents\": [{\"name\": \"a\\\"b\"}, 7, \"s\"],\n"
                           " \"k\\u0065y\": {\"x\": [1, {\"y\": null}]}, \"n\": -1.5e3}";
    for (int piece : {0, 1, 5}) {
        const Outcome o = scan(doc, piece);
        QVERIFY(o.complete);
        QCOMPARE(o.recorded.rootKeys, (std::vector<std::string>{"schemaVersion", "traceEvents", "key", "n"}));
        const std::vector<std::string> expected = {
            "b0:{@0:1",
            "b1:1@18:1", "e1@19:plain",
            "b1:[@37:2", "b2:{@38:2", "e2@54:esc", "b2:7@56:2", "e2@57:plain", "b2:\"@59:2", "e2@62:plain", "e1@63:esc",
            "b1:{@78:3", "b2:[@84:3", "e2@100:plain", "e1@101:plain",
            "b1:-@108:3", "e1@114:plain",
            "e0@115:esc",
        };
        QStringList actual;
        for (const std::string &e : o.recorded.events)
            actual << QString::fromStdString(e);
        QStringList want;
        for (const std::string &e : expected)
            want << QString::fromStdString(e);
        QCOMPARE(actual, want);
        QCOMPARE(o.maxDepth, size_t(4));
    }
    // Offsets delimit the values exactly.
    QCOMPARE(doc.mid(38, 54 - 38), QByteArray("{\"name\": \"a\\\"b\"}"));
    QCOMPARE(doc.mid(108, 114 - 108), QByteArray("-1.5e3"));
    QCOMPARE(doc.mid(84, 100 - 84), QByteArray("[1, {\"y\": null}]"));
    QCOMPARE(doc.size(), 115);
}

void TestJsonScanner::childrenOnlyWhenAsked()
{
    const Outcome o = scan("[[1, 2], {\"a\": [3]}, 4]", 0, false);
    QVERIFY(o.complete);
    // The root's children are reported (depth 0 always asks); theirs are not.
    const std::vector<std::string> expected = {"b0:[@0:1", "b1:[@1:1", "e1@7:plain", "b1:{@9:1", "e1@19:plain",
                                               "b1:4@21:1", "e1@22:plain", "e0@23:plain"};
    QCOMPARE(o.recorded.events, expected);
}

void TestJsonScanner::nonStandardLiterals()
{
    RecordingSink sink;
    JsonScanner scanner(sink);
    const QByteArray doc = "[1,\n NaN, {\"a\": [Infinity, -Infinity]}]";
    scanner.feed(doc.constData(), size_t(doc.size()));
    scanner.finish();
    QVERIFY(scanner.complete());
    QCOMPARE(scanner.nonStandardLiterals(), qint64(3));
    QCOMPARE(scanner.firstNonStandardLine(), qint64(2));
    QCOMPARE(scan("[1, 2]").nonStandard, qint64(0));
}

void TestJsonScanner::deepNestingIsIterative()
{
    const int n = 100000;
    Outcome o = scan(QByteArray(n, '[') + QByteArray(n, ']'));
    QVERIFY(o.complete);
    QCOMPARE(o.maxDepth, size_t(n));
    o = scan(QByteArray(n, '[') + QByteArray(n, ']'), 4096);
    QVERIFY(o.complete);
    o = scan(QByteArray(n, '['));
    QVERIFY(!o.complete);
    QCOMPARE(o.message, std::string("Expecting value"));
    QCOMPARE(o.column, qint64(n + 1));
    o = scan(QByteArray(n / 2, '[') + "{\"a\": " + QByteArray(n / 2, '[') + QByteArray(n / 2, ']') + "}" +
             QByteArray(n / 2 - 1, ']'));
    QVERIFY(!o.complete);  // one bracket short
    QCOMPARE(o.message, std::string("Expecting ',' delimiter"));
}

void TestJsonScanner::depthLimit()
{
    RecordingSink sink;
    JsonScanner scanner(sink);
    const QByteArray doc(int(JsonScanner::maxDepthLimit()) + 1, '[');
    QCOMPARE(scanner.feed(doc.constData(), size_t(doc.size())), JsonScanner::Status::Error);
    QVERIFY(scanner.errorIsDepthLimit());
    QCOMPARE(scanner.errorColumn(), qint64(JsonScanner::maxDepthLimit()) + 1);
    QCOMPARE(scanner.maxDepthSeen(), JsonScanner::maxDepthLimit());
}

void TestJsonScanner::unescape_data()
{
    QTest::addColumn<QByteArray>("raw");
    QTest::addColumn<QByteArray>("expected");
    QTest::newRow("plain") << QByteArray("abc") << QByteArray("abc");
    QTest::newRow("simple escapes") << QByteArray(R"(\"\\\/\b\f\n\r\t)") << QByteArray("\"\\/\b\f\n\r\t");
    QTest::newRow("BMP") << QByteArray(R"(\u00e9\u4E2D)") << QByteArray("\xc3\xa9\xe4\xb8\xad");
    QTest::newRow("surrogate pair") << QByteArray(R"(\ud83d\ude00)") << QByteArray("\xf0\x9f\x98\x80");
    QTest::newRow("lone high surrogate") << QByteArray(R"(a\ud800b)") << QByteArray("a\xed\xa0\x80" "b");
    QTest::newRow("lone low surrogate") << QByteArray(R"(\udc00)") << QByteArray("\xed\xb0\x80");
    QTest::newRow("high then non-low") << QByteArray(R"(\ud800\u0041)") << QByteArray("\xed\xa0\x80" "A");
    QTest::newRow("key") << QByteArray(R"(n\u0061me)") << QByteArray("name");
}

void TestJsonScanner::unescape()
{
    QFETCH(QByteArray, raw);
    QFETCH(QByteArray, expected);
    const std::string out = JsonScanner::unescape(std::string_view(raw.constData(), size_t(raw.size())));
    QCOMPARE(QByteArray::fromStdString(out), expected);
}

// The torch trace reader reads an event's members from these offsets instead of running simdjson
// over the event again, so they must be exactly the tokens simdjson's raw_json_token() shows.
void TestJsonScanner::capturedMembers_data()
{
    QTest::addColumn<QByteArray>("doc");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("plain") << QByteArray(R"([{"ph": "X", "ts": 12.5, "name": "a b", "dur": 3}])")
                           << QStringList{R"(ph="X" ts=12.5 name="a b")"};
    QTest::newRow("whitespace around tokens") << QByteArray("[{ \"ph\" :\t\"X\" ,\r\n \"ts\"\n:\n-1e-3 \n}]")
                                              << QStringList{R"(ph="X" ts=-1e-3)"};
    QTest::newRow("later duplicates win") << QByteArray(R"([{"ph": "B", "ts": 1, "ph": "X", "ts": [2]}])")
                                          << QStringList{R"(ph="X" ts=[)"};
    QTest::newRow("containers show their first byte")
        << QByteArray(R"([{"ph": {"ph": "no"}, "name": [1, {"ts": 3}], "ts": {}}])")
        << QStringList{R"(ph={ ts={ name=[)"};
    QTest::newRow("only the element's own members")
        << QByteArray(R"([{"args": {"ph": "X", "ts": 1, "name": "n"}, "x": [{"ph": 2}]}, {}])")
        << QStringList{QString(), QString()};
    QTest::newRow("prefixes and longer names are other keys")
        << QByteArray(R"([{"p": 1, "pha": 2, "t": 3, "tss": 4, "nam": 5, "names": 6, "": 7}])") << QStringList{QString()};
    QTest::newRow("escaped keys are resolved")
        << QByteArray(R"([{"p\u0068": "X", "t\u0073": 1, "n\"ame": 2, "\u006eame": "\"q\\"}])")
        << QStringList{R"(ph="X" ts=1 name="\"q\\")"};
    QTest::newRow("literals, NaN and Infinity")
        << QByteArray(R"([{"ph": null, "ts": NaN, "name": true}, {"ts": -Infinity, "ph": Infinity, "name": false}])")
        << QStringList{R"(ph=null ts=NaN name=true)", R"(ph=Infinity ts=-Infinity name=false)"};
    QTest::newRow("non-object elements and empty objects")
        << QByteArray(R"([1, "s", [{"ph": 1}], {}, {"ph": 0}])") << QStringList{"slow", "slow", QString(), QString(), "ph=0"};
    QTest::newRow("deeper than the fast path") << QByteArray("[{\"ph\": 1, \"a\": " + QByteArray(70, '[') + QByteArray(70, ']') + "}]")
                                              << QStringList{"slow"};
}

void TestJsonScanner::capturedMembers()
{
    QFETCH(QByteArray, doc);
    QFETCH(QStringList, expected);
    QStringList got = capture(doc);
    // Containers scanned whole by the fast path report members (arrays none); scalars are
    // scanned by the state machine and report nothing.
    QCOMPARE(got, expected);
}

void TestJsonScanner::capturedMembersOnlyFromTheFastPath()
{
    // Fed a byte at a time, no element is scanned whole in one feed(): none reports members, and
    // the reader parses them with simdjson instead.
    const QByteArray doc = R"([{"ph": "X", "ts": 1}, {"ph": "Y"}])";
    QCOMPARE(capture(doc, 1), (QStringList{"slow", "slow"}));
    QCOMPARE(capture(doc, 0), (QStringList{R"(ph="X" ts=1)", R"(ph="Y")"}));
}

// The args members every consumer of an event reads (correlation, Input Dims…) come from these
// offsets instead of a search of the args' bytes: the same tokens, first occurrence, whole
// containers, and nothing claimed where a key could not be compared.
void TestJsonScanner::nestedMembers_data()
{
    QTest::addColumn<QByteArray>("doc");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("flat args") << QByteArray(R"([{"ph": "X", "args": {"External id": 4, "correlation": 17, "cat": "c"}}])")
                               << QStringList{R"(ph="X" args={ args.correlation=17 args.cat="c")"};
    QTest::newRow("containers whole, nested ones too")
        << QByteArray(R"([{"args": {"Input Dims": [[2, 3], [], [{"a": [1]}]], "graph id": {"x": 1}}}])")
        << QStringList{R"(args={ args.Input Dims=[[2, 3], [], [{"a": [1]}]] args.graph id={"x": 1})"};
    QTest::newRow("only the args' own members")
        << QByteArray(R"([{"correlation": 1, "args": {"x": {"correlation": 2}, "y": [{"cat": 3}]}, "cat": 4}])")
        << QStringList{R"(args={)"};
    QTest::newRow("the first occurrence counts")
        << QByteArray(R"([{"args": {"correlation": "5", "correlation": 6}}])") << QStringList{R"(args={ args.correlation="5")"};
    QTest::newRow("a later args replaces the members")
        << QByteArray(R"([{"args": {"correlation": 1, "cat": 2}, "args": {"cat": 3}}])") << QStringList{R"(args={ args.cat=3)"};
    QTest::newRow("args not an object")
        << QByteArray(R"([{"args": [1, {"correlation": 2}]}, {"args": "s"}, {"ph": 1}])")
        << QStringList{R"(args=[ args:unscanned)", R"(args="s" args:unscanned)", R"(ph=1 args:unscanned)"};
    QTest::newRow("an escaped key: not claimed")
        << QByteArray(R"([{"args": {"c\u006frrelation": 1, "cat": 2}}])") << QStringList{R"(args={ args:unscanned)"};
    QTest::newRow("escapes in values are fine")
        << QByteArray(R"([{"args": {"kernel": "a\"b", "correlation": 9}}])") << QStringList{R"(args={ args.correlation=9)"};
    QTest::newRow("members of the next event are its own")
        << QByteArray(R"([{"args": {"correlation": 1}}, {"args": {}}, {"name": "n", "args": {"Input Dims": []}}])")
        << QStringList{R"(args={ args.correlation=1)", R"(args={)", R"(args={ name="n" args.Input Dims=[])"};
}

void TestJsonScanner::nestedMembers()
{
    QFETCH(QByteArray, doc);
    QFETCH(QStringList, expected);
    QCOMPARE(capture(doc, 0, true), expected);
    // Not scanned whole: nothing is claimed, the readers search.
    for (const QString &e : capture(doc, 1, true))
        QCOMPARE(e, QStringLiteral("slow"));
}

// A trace cut between two elements of a root member's array: the second scanner starts there
// with startInsideRootArray(), the first stops there and finds itself between two elements, then
// skips what the second read (skipTo()) and goes on. Together they report what one pass does.
void TestJsonScanner::rangeScannersAgreeWithOnePass()
{
    const QByteArray doc = "{\"a\": 1, \"traceEvents\": [\n  {\"x\": \"}, {\"},\n  {\"y\": [{}, {}]},\n  \"s\\n\",\n"
                           "  {\"z\": 2}\n],\n \"b\": [3]}\n";
    const Outcome whole = scan(doc);
    QVERIFY(whole.complete);
    for (const QByteArray &cutBefore : {QByteArray("{\"y\""), QByteArray("\"s\\n\""), QByteArray("{\"z\"")}) {
        const qsizetype cut = doc.indexOf(cutBefore);
        QVERIFY(cut > 0);
        RecordingSink firstSink;
        JsonScanner first(firstSink);
        first.feed(doc.constData(), size_t(cut));
        QVERIFY(first.atRootArrayElement());
        QVERIFY(!first.afterRootArrayElement());
        const size_t before = firstSink.recorded.events.size();
        const qint64 firstLineAtCut = first.line();

        RecordingSink secondSink;
        JsonScanner second(secondSink);
        second.startInsideRootArray(cut);
        QVERIFY(second.atRootArrayElement());
        // Up to the array's ']' (the second reader stops at its depth-1 valueEnd).
        const qsizetype close = doc.indexOf("\n],") + 1;
        second.feed(doc.constData() + cut, size_t(close - cut));
        QVERIFY(second.afterRootArrayElement());
        QCOMPARE(second.line(), 1 + doc.mid(cut, close - cut).count('\n'));

        JsonScanner::Resume r;
        r.offset = close;
        r.line = first.line() + second.line() - 1;
        r.lineStart = second.lineStart();
        r.afterElement = true;
        r.escapes = second.escapes();
        r.maxDepth = second.maxDepthSeen();
        first.skipTo(r);
        first.feed(doc.constData() + close, size_t(doc.size() - close));
        first.finish();
        QVERIFY(first.complete());
        QCOMPARE(first.maxDepthSeen(), whole.maxDepth);
        QCOMPARE(first.line(), qint64(doc.count('\n') + 1));
        QCOMPARE(first.escapes(), qint64(1));

        // The events of both, in order, are those of one pass. The second reader's lines count
        // from 1 at its start.
        std::vector<std::string> joined(firstSink.recorded.events.begin(), firstSink.recorded.events.begin() + before);
        for (const std::string &e : secondSink.recorded.events) {
            const QString event = QString::fromStdString(e);
            if (!event.startsWith(QLatin1Char('b'))) {
                joined.push_back(e);
                continue;
            }
            const qsizetype colon = event.lastIndexOf(QLatin1Char(':'));
            const qint64 line = event.mid(colon + 1).toLongLong() + firstLineAtCut - 1;
            joined.push_back((event.left(colon + 1) + QString::number(line)).toStdString());
        }
        joined.insert(joined.end(), firstSink.recorded.events.begin() + before, firstSink.recorded.events.end());
        QCOMPARE(joined, whole.recorded.events);
    }

    // A cut inside a string is not between two elements.
    RecordingSink sink;
    JsonScanner scanner(sink);
    const qsizetype inString = doc.indexOf("{\"},");
    scanner.feed(doc.constData(), size_t(inString));
    QVERIFY(!scanner.atRootArrayElement());
}

QTEST_GUILESS_MAIN(TestJsonScanner)
#include "tst_jsonscanner.moc"
