// Tests for the Python number semantics the reference profile relies on. Expected values were
// computed once with Python 3.11 (float(s), int(float(s)), str.strip()) and pasted here; floats
// as hex literals so the comparison is bit for bit.
#include "pynumber.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace goblin;

namespace
{
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
enum class IntResult { Int, ValueError, Overflow, Beyond };
std::string_view view(const QByteArray &b)
{
    return std::string_view(b.constData(), size_t(b.size()));
}
} // namespace

Q_DECLARE_METATYPE(IntResult)

class TestPyNumber : public QObject
{
    Q_OBJECT

private slots:
    void pythonFloat_data();
    void pythonFloat();
    void pythonIntOfFloat_data() { pythonFloat_data(); }
    void pythonIntOfFloat();
    void strictNumber_data();
    void strictNumber();
    void pythonStrip_data();
    void pythonStrip();
};

void TestPyNumber::pythonFloat_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<double>("value");
    QTest::addColumn<IntResult>("intResult");
    QTest::addColumn<qint64>("intValue");
    auto add = [](const char *name, const QByteArray &text, bool valid, double value, IntResult intResult,
                  long long intValue) {
        QTest::newRow(name) << text << valid << value << intResult << qint64(intValue);
    };
    add("'0'", QByteArray("0", 1), true, 0x0.0p+0, IntResult::Int, 0LL);
    add("'42'", QByteArray("42", 2), true, 0x1.5000000000000p+5, IntResult::Int, 42LL);
    add("'-7'", QByteArray("-7", 2), true, -0x1.c000000000000p+2, IntResult::Int, -7LL);
    add("'+5'", QByteArray("+5", 2), true, 0x1.4000000000000p+2, IntResult::Int, 5LL);
    add("' 12 '", QByteArray(" 12 ", 4), true, 0x1.8000000000000p+3, IntResult::Int, 12LL);
    add("'\\t3\\n'",
        QByteArray("\x09"
                   "3\x0a"
                   "",
                   3),
        true, 0x1.8000000000000p+1, IntResult::Int, 3LL);
    add("'\\x0b1\\x0c'",
        QByteArray("\x0b"
                   "1\x0c"
                   "",
                   3),
        true, 0x1.0000000000000p+0, IntResult::Int, 1LL);
    add("'1_000'", QByteArray("1_000", 5), true, 0x1.f400000000000p+9, IntResult::Int, 1000LL);
    add("'1__0'", QByteArray("1__0", 4), false, 0.0, IntResult::ValueError, 0LL);
    add("'_1'", QByteArray("_1", 2), false, 0.0, IntResult::ValueError, 0LL);
    add("'1_'", QByteArray("1_", 2), false, 0.0, IntResult::ValueError, 0LL);
    add("'1_.5'", QByteArray("1_.5", 4), false, 0.0, IntResult::ValueError, 0LL);
    add("'1._5'", QByteArray("1._5", 4), false, 0.0, IntResult::ValueError, 0LL);
    add("'1e1_0'", QByteArray("1e1_0", 5), true, 0x1.2a05f20000000p+33, IntResult::Int, 10000000000LL);
    add("'1_e1'", QByteArray("1_e1", 4), false, 0.0, IntResult::ValueError, 0LL);
    add("'1.5'", QByteArray("1.5", 3), true, 0x1.8000000000000p+0, IntResult::Int, 1LL);
    add("'.5'", QByteArray(".5", 2), true, 0x1.0000000000000p-1, IntResult::Int, 0LL);
    add("'5.'", QByteArray("5.", 2), true, 0x1.4000000000000p+2, IntResult::Int, 5LL);
    add("'.'", QByteArray(".", 1), false, 0.0, IntResult::ValueError, 0LL);
    add("'1e5'", QByteArray("1e5", 3), true, 0x1.86a0000000000p+16, IntResult::Int, 100000LL);
    add("'1E+05'", QByteArray("1E+05", 5), true, 0x1.86a0000000000p+16, IntResult::Int, 100000LL);
    add("'1e-3'", QByteArray("1e-3", 4), true, 0x1.0624dd2f1a9fcp-10, IntResult::Int, 0LL);
    add("'1.e5'", QByteArray("1.e5", 4), true, 0x1.86a0000000000p+16, IntResult::Int, 100000LL);
    add("'1e'", QByteArray("1e", 2), false, 0.0, IntResult::ValueError, 0LL);
    add("'e5'", QByteArray("e5", 2), false, 0.0, IntResult::ValueError, 0LL);
    add("'+-1'", QByteArray("+-1", 3), false, 0.0, IntResult::ValueError, 0LL);
    add("'--1'", QByteArray("--1", 3), false, 0.0, IntResult::ValueError, 0LL);
    add("'0x10'", QByteArray("0x10", 4), false, 0.0, IntResult::ValueError, 0LL);
    add("'inf'", QByteArray("inf", 3), true, kInf, IntResult::Overflow, 0LL);
    add("'-Infinity'", QByteArray("-Infinity", 9), true, -kInf, IntResult::Overflow, 0LL);
    add("'+iNf'", QByteArray("+iNf", 4), true, kInf, IntResult::Overflow, 0LL);
    add("'nan'", QByteArray("nan", 3), true, kNaN, IntResult::ValueError, 0LL);
    add("'-NaN'", QByteArray("-NaN", 4), true, kNaN, IntResult::ValueError, 0LL);
    add("'infinit'", QByteArray("infinit", 7), false, 0.0, IntResult::ValueError, 0LL);
    add("'1e400'", QByteArray("1e400", 5), true, kInf, IntResult::Overflow, 0LL);
    add("'-1e400'", QByteArray("-1e400", 6), true, -kInf, IntResult::Overflow, 0LL);
    add("'1e-400'", QByteArray("1e-400", 6), true, 0x0.0p+0, IntResult::Int, 0LL);
    add("'9007199254740993'", QByteArray("9007199254740993", 16), true, 0x1.0000000000000p+53, IntResult::Int,
        9007199254740992LL);
    add("'1234567890123456789'", QByteArray("1234567890123456789", 19), true, 0x1.12210f47de981p+60, IntResult::Int,
        1234567890123456768LL);
    add("'99999999999999999999'", QByteArray("99999999999999999999", 20), true, 0x1.5af1d78b58c40p+66,
        IntResult::Beyond, 0LL);
    add("'8.1097E+14'", QByteArray("8.1097E+14", 10), true, 0x1.70c9556302000p+49, IntResult::Int, 810970000000000LL);
    add("'2745614438438939'", QByteArray("2745614438438939", 16), true, 0x1.3823e5a963036p+51, IntResult::Int,
        2745614438438939LL);
    add("'\\x1c1'",
        QByteArray("\x1c"
                   "1",
                   2),
        false, 0.0, IntResult::ValueError, 0LL);
    add("'1\\x1f'",
        QByteArray("1\x1f"
                   "",
                   2),
        false, 0.0, IntResult::ValueError, 0LL);
    add("'\\xa012\\u3000'",
        QByteArray("\xc2"
                   "\xa0"
                   "12\xe3"
                   "\x80"
                   "\x80"
                   "",
                   7),
        true, 0x1.8000000000000p+3, IntResult::Int, 12LL);
    add("'1\\x85'",
        QByteArray("1\xc2"
                   "\x85"
                   "",
                   3),
        true, 0x1.0000000000000p+0, IntResult::Int, 1LL);
    add("'\\u0661\\u0662'",
        QByteArray("\xd9"
                   "\xa1"
                   "\xd9"
                   "\xa2"
                   "",
                   4),
        true, 0x1.8000000000000p+3, IntResult::Int, 12LL);
    add("'\\uff11e\\uff12'",
        QByteArray("\xef"
                   "\xbc"
                   "\x91"
                   "e\xef"
                   "\xbc"
                   "\x92"
                   "",
                   7),
        true, 0x1.9000000000000p+6, IntResult::Int, 100LL);
    add("'\\xe9'",
        QByteArray("\xc3"
                   "\xa9"
                   "",
                   2),
        false, 0.0, IntResult::ValueError, 0LL);
    add("''", QByteArray("", 0), false, 0.0, IntResult::ValueError, 0LL);
    add("' '", QByteArray(" ", 1), false, 0.0, IntResult::ValueError, 0LL);
    add("'600.9'", QByteArray("600.9", 5), true, 0x1.2c73333333333p+9, IntResult::Int, 600LL);
    add("'-600.9'", QByteArray("-600.9", 6), true, -0x1.2c73333333333p+9, IntResult::Int, -600LL);
    add("'1e19'", QByteArray("1e19", 4), true, 0x1.158e460913d00p+63, IntResult::Beyond, 0LL);
    add("'-9.3e18'", QByteArray("-9.3e18", 7), true, -0x1.02207973f6440p+63, IntResult::Beyond, 0LL);
    add("'9.2e18'", QByteArray("9.2e18", 6), true, 0x1.feb3dd0676600p+62, IntResult::Int, 9200000000000000000LL);
    add("'0.1'", QByteArray("0.1", 3), true, 0x1.999999999999ap-4, IntResult::Int, 0LL);
    add("'1e-320'", QByteArray("1e-320", 6), true, 0x0.00000000007e8p-1022, IntResult::Int, 0LL);
    add("'123456789012345678901234567890e-10'", QByteArray("123456789012345678901234567890e-10", 34), true,
        0x1.56a95319d63e1p+63, IntResult::Beyond, 0LL);
    add("'0.000000000000000000000000001e27'", QByteArray("0.000000000000000000000000001e27", 32), true,
        0x1.0000000000000p+0, IntResult::Int, 1LL);
    add("'00012'", QByteArray("00012", 5), true, 0x1.8000000000000p+3, IntResult::Int, 12LL);
    add("'1_000.000_1'", QByteArray("1_000.000_1", 11), true, 0x1.f4000346dc5d6p+9, IntResult::Int, 1000LL);
    add("'\\x001'",
        QByteArray("\x00"
                   "1",
                   2),
        false, 0.0, IntResult::ValueError, 0LL);
    add("'12345678'", QByteArray("12345678", 8), true, 0x1.78c29c0000000p+23, IntResult::Int, 12345678LL);
    add("'123456789'", QByteArray("123456789", 9), true, 0x1.d6f3454000000p+26, IntResult::Int, 123456789LL);
    add("'1234567:'", QByteArray("1234567:", 8), false, 0.0, IntResult::ValueError, 0LL);
    add("'1234567/'", QByteArray("1234567/", 8), false, 0.0, IntResult::ValueError, 0LL);
    add("'/2345678'", QByteArray("/2345678", 8), false, 0.0, IntResult::ValueError, 0LL);
    add("'1234:678901234567'", QByteArray("1234:678901234567", 17), false, 0.0, IntResult::ValueError, 0LL);
    add("'12345678901234567'", QByteArray("12345678901234567", 17), true, 0x1.5ee2a2eb5a5c4p+53, IntResult::Int,
        12345678901234568LL);
    add("'9999999999999999999'", QByteArray("9999999999999999999", 19), true, 0x1.158e460913d00p+63, IntResult::Beyond,
        0LL);
    add("'18446744073709551615'", QByteArray("18446744073709551615", 20), true, 0x1.0000000000000p+64,
        IntResult::Beyond, 0LL);
    add("'-1234567890123456'", QByteArray("-1234567890123456", 17), true, -0x1.18b54f22aeb00p+50, IntResult::Int,
        -1234567890123456LL);
    add("'000000000000000000001'", QByteArray("000000000000000000001", 21), true, 0x1.0000000000000p+0, IntResult::Int,
        1LL);
    add("'12345678 '", QByteArray("12345678 ", 9), true, 0x1.78c29c0000000p+23, IntResult::Int, 12345678LL);
    // Out-of-range decimals: Python rounds to infinity or zero by magnitude, not by the sign of
    // the exponent.
    add("'1' + 400 zeros + 'e-5' (1e395)", QByteArray("1") + QByteArray(400, '0') + "e-5", true, kInf,
        IntResult::Overflow, 0);
    add("'0.' + 400 zeros + '1e5' (1e-396)", QByteArray("0.") + QByteArray(400, '0') + "1e5", true, 0.0, IntResult::Int,
        0);
}

void TestPyNumber::pythonFloat()
{
    QFETCH(QByteArray, text);
    QFETCH(bool, valid);
    QFETCH(double, value);
    const std::optional<double> got = goblin::pythonFloat(view(text));
    QCOMPARE(got.has_value(), valid);
    if (!valid)
        return;
    if (std::isnan(value)) {
        QVERIFY(std::isnan(*got));
    } else {
        QCOMPARE(std::signbit(*got), std::signbit(value));
        QVERIFY2(*got == value, qPrintable(QString::number(*got, 'g', 17)));
    }
}

void TestPyNumber::pythonIntOfFloat()
{
    QFETCH(QByteArray, text);
    QFETCH(IntResult, intResult);
    QFETCH(qint64, intValue);
    bool overflow = true;
    const std::optional<long long> got = goblin::pythonIntOfFloat(view(text), &overflow);
    switch (intResult) {
    case IntResult::Int:
        QVERIFY(got.has_value());
        QCOMPARE(*got, intValue);
        QVERIFY(!overflow);
        break;
    case IntResult::ValueError:
        QVERIFY(!got.has_value());
        QVERIFY(!overflow);
        break;
    case IntResult::Overflow: // Python: OverflowError (infinity)
    case IntResult::Beyond:   // Python: a finite int beyond 64 bits
        QVERIFY(!got.has_value());
        QVERIFY(overflow);
        QCOMPARE(std::isinf(*goblin::pythonFloat(view(text))), intResult == IntResult::Overflow);
        break;
    }
}

void TestPyNumber::strictNumber_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("status");
    QTest::addColumn<bool>("isInteger");
    QTest::addColumn<qint64>("integer");
    QTest::addColumn<double>("value");
    using S = StrictNumber::Status;
    QTest::newRow("integer") << QByteArray("2745614438438939") << int(S::Ok) << true << qint64(2745614438438939)
                             << 2745614438438939.0;
    QTest::newRow("negative integer") << QByteArray("-100") << int(S::Ok) << true << qint64(-100) << -100.0;
    QTest::newRow("plus sign") << QByteArray("+7") << int(S::Ok) << true << qint64(7) << 7.0;
    QTest::newRow("int64 max") << QByteArray("9223372036854775807") << int(S::Ok) << true
                               << qint64(9223372036854775807LL) << 9223372036854775807.0;
    QTest::newRow("int64 min") << QByteArray("-9223372036854775808") << int(S::Ok) << true
                               << std::numeric_limits<qint64>::min() << -9223372036854775808.0;
    QTest::newRow("beyond int64 is a float")
        << QByteArray("9223372036854775808") << int(S::Ok) << false << qint64(0) << 9223372036854775808.0;
    QTest::newRow("spaces and CR around") << QByteArray(" 12\t\r") << int(S::Ok) << true << qint64(12) << 12.0;
    QTest::newRow("scientific") << QByteArray("8.1097E+14") << int(S::Ok) << false << qint64(0) << 8.1097e14;
    QTest::newRow("fraction") << QByteArray("600.9") << int(S::Ok) << false << qint64(0) << 600.9;
    QTest::newRow("empty") << QByteArray("") << int(S::Empty) << false << qint64(0) << 0.0;
    QTest::newRow("only spaces") << QByteArray("   ") << int(S::Empty) << false << qint64(0) << 0.0;
    QTest::newRow("nan") << QByteArray("nan") << int(S::NonFinite) << false << qint64(0) << 0.0;
    QTest::newRow("-inf") << QByteArray("-inf") << int(S::NonFinite) << false << qint64(0) << 0.0;
    QTest::newRow("Infinity") << QByteArray("Infinity") << int(S::NonFinite) << false << qint64(0) << 0.0;
    QTest::newRow("overflowing exponent") << QByteArray("1e400") << int(S::NonFinite) << false << qint64(0) << 0.0;
    QTest::newRow("underscores (Python accepts them)")
        << QByteArray("1_000") << int(S::NotANumber) << false << qint64(0) << 0.0;
    QTest::newRow("text") << QByteArray("abc") << int(S::NotANumber) << false << qint64(0) << 0.0;
    QTest::newRow("lone plus") << QByteArray("+") << int(S::NotANumber) << false << qint64(0) << 0.0;
    QTest::newRow("lone minus") << QByteArray("-") << int(S::NotANumber) << false << qint64(0) << 0.0;
    QTest::newRow("two signs") << QByteArray("+-5") << int(S::NotANumber) << false << qint64(0) << 0.0;
    QTest::newRow("hex") << QByteArray("0x10") << int(S::NotANumber) << false << qint64(0) << 0.0;
    QTest::newRow("unit suffix") << QByteArray("12 ns") << int(S::NotANumber) << false << qint64(0) << 0.0;
    QTest::newRow("N/A") << QByteArray("N/A") << int(S::NotANumber) << false << qint64(0) << 0.0;
}

void TestPyNumber::strictNumber()
{
    QFETCH(QByteArray, text);
    QFETCH(int, status);
    QFETCH(bool, isInteger);
    QFETCH(qint64, integer);
    QFETCH(double, value);
    const StrictNumber n = goblin::strictNumber(view(text));
    QCOMPARE(int(n.status), status);
    if (n.status != StrictNumber::Status::Ok)
        return;
    QCOMPARE(n.isInteger, isInteger);
    if (isInteger)
        QCOMPARE(n.integer, integer);
    QCOMPARE(n.value, value);
}

void TestPyNumber::pythonStrip_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QByteArray>("stripped");
    QTest::newRow("'  abc  '") << QByteArray("  abc  ", 7) << QByteArray("abc", 3);
    QTest::newRow("'\\x1c\\x1dabc\\x1e\\x1f'") << QByteArray("\x1c"
                                                             "\x1d"
                                                             "abc\x1e"
                                                             "\x1f"
                                                             "",
                                                             7)
                                               << QByteArray("abc", 3);
    QTest::newRow("'\\xa0abc\\u3000'") << QByteArray("\xc2"
                                                     "\xa0"
                                                     "abc\xe3"
                                                     "\x80"
                                                     "\x80"
                                                     "",
                                                     8)
                                       << QByteArray("abc", 3);
    QTest::newRow("'\\u2000\\u200a abc \\u2028\\u2029\\u202f\\u205f\\x85'") << QByteArray("\xe2"
                                                                                          "\x80"
                                                                                          "\x80"
                                                                                          "\xe2"
                                                                                          "\x80"
                                                                                          "\x8a"
                                                                                          " abc \xe2"
                                                                                          "\x80"
                                                                                          "\xa8"
                                                                                          "\xe2"
                                                                                          "\x80"
                                                                                          "\xa9"
                                                                                          "\xe2"
                                                                                          "\x80"
                                                                                          "\xaf"
                                                                                          "\xe2"
                                                                                          "\x81"
                                                                                          "\x9f"
                                                                                          "\xc2"
                                                                                          "\x85"
                                                                                          "",
                                                                                          25)
                                                                            << QByteArray("abc", 3);
    QTest::newRow("'\\u200babc'") << QByteArray("\xe2"
                                                "\x80"
                                                "\x8b"
                                                "abc",
                                                6)
                                  << QByteArray("\xe2"
                                                "\x80"
                                                "\x8b"
                                                "abc",
                                                6);
    QTest::newRow("'a b'") << QByteArray("a b", 3) << QByteArray("a b", 3);
    QTest::newRow("''") << QByteArray("", 0) << QByteArray("", 0);
    QTest::newRow("'   '") << QByteArray("   ", 3) << QByteArray("", 0);
    QTest::newRow("'\\t\\n\\r\\x0b\\x0c'") << QByteArray("\x09"
                                                         "\x0a"
                                                         "\x0d"
                                                         "\x0b"
                                                         "\x0c"
                                                         "",
                                                         5)
                                           << QByteArray("", 0);
    QTest::newRow("'\\xe9 '") << QByteArray("\xc3"
                                            "\xa9"
                                            " ",
                                            3)
                              << QByteArray("\xc3"
                                            "\xa9"
                                            "",
                                            2);
    QTest::newRow("' \\xa0\\xe9'") << QByteArray(" \xc2"
                                                 "\xa0"
                                                 "\xc3"
                                                 "\xa9"
                                                 "",
                                                 5)
                                   << QByteArray("\xc3"
                                                 "\xa9"
                                                 "",
                                                 2);
    QTest::newRow("invalid UTF-8 is kept") << QByteArray(" \xFF ") << QByteArray("\xFF");
}

void TestPyNumber::pythonStrip()
{
    QFETCH(QByteArray, text);
    QFETCH(QByteArray, stripped);
    const std::string_view got = goblin::pythonStrip(view(text));
    QCOMPARE(QByteArray(got.data(), qsizetype(got.size())), stripped);
}

QTEST_GUILESS_MAIN(TestPyNumber)
#include "tst_pynumber.moc"
