// Issue 36 item 2: no cell the workbench writes is a formula a spreadsheet runs. The classic CSV
// injection payloads (OWASP), numbers that must stay numbers, and RFC 4180 quoting.

#include "csvexport.h"

#include <QTest>

using namespace goblin;

class TestCsvExport : public QObject
{
    Q_OBJECT

private slots:
    void cells_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("comma");  ///< the cell in a CSV line
        QTest::addColumn<QString>("tab");    ///< the cell in tab-separated text

        // Formulas: a leading ' makes the spreadsheet show them as text.
        QTest::newRow("DDE cmd") << "=cmd|' /C calc'!A0" << "'=cmd|' /C calc'!A0" << "'=cmd|' /C calc'!A0";
        QTest::newRow("HYPERLINK") << "=HYPERLINK(\"http://x\",\"y\")" << "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""
                                   << "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"";
        QTest::newRow("@SUM") << "@SUM(1+1)" << "'@SUM(1+1)" << "'@SUM(1+1)";
        QTest::newRow("+1+1") << "+1+1" << "'+1+1" << "'+1+1";
        QTest::newRow("-2+3") << "-2+3" << "'-2+3" << "'-2+3";
        QTest::newRow("tab then =") << "\t=1" << "'\t=1" << "\"'\t=1\"";
        QTest::newRow("CR then =") << "\r=1" << "\"'\r=1\"" << "\"'\r=1\"";
        QTest::newRow("-inf") << "-inf" << "'-inf" << "'-inf";
        QTest::newRow("a lone minus") << "-" << "'-" << "'-";
        QTest::newRow("=evil folder") << "=evil" << "'=evil" << "'=evil";
        // Numbers stay numbers.
        QTest::newRow("-1.5") << "-1.5" << "-1.5" << "-1.5";
        QTest::newRow("+2") << "+2" << "+2" << "+2";
        QTest::newRow("+3e-9") << "+3e-9" << "+3e-9" << "+3e-9";
        QTest::newRow("-.5E+10") << "-.5E+10" << "-.5E+10" << "-.5E+10";
        QTest::newRow("0.25") << "0.25" << "0.25" << "0.25";
        // Plain text; RFC 4180 quoting.
        QTest::newRow("empty") << "" << "" << "";
        QTest::newRow("unknown dash") << "—" << "—" << "—";
        QTest::newRow("kernel name") << "Cijk_Ailk_Bljk" << "Cijk_Ailk_Bljk" << "Cijk_Ailk_Bljk";
        QTest::newRow("comma") << "a,b" << "\"a,b\"" << "a,b";
        QTest::newRow("quote") << "say \"hi\"" << "\"say \"\"hi\"\"\"" << "\"say \"\"hi\"\"\"";
        QTest::newRow("line feed") << "a\nb" << "\"a\nb\"" << "\"a\nb\"";
        QTest::newRow("tab inside") << "a\tb" << "a\tb" << "\"a\tb\"";
        QTest::newRow("= inside") << "a=b" << "a=b" << "a=b";
    }

    void cells()
    {
        QFETCH(QString, text);
        QFETCH(QString, comma);
        QFETCH(QString, tab);
        QCOMPARE(csvCell(text), comma);
        QCOMPARE(csvCell(text, QLatin1Char('\t')), tab);
    }

    void lines()
    {
        QCOMPARE(csvLine({"a", "b,c", "say \"hi\"", ""}), QString("a,\"b,c\",\"say \"\"hi\"\"\","));
        QCOMPARE(csvLine({"=evil", "-1.5", "@x"}), QString("'=evil,-1.5,'@x"));
        QCOMPARE(csvLine({"=a", "b\tc"}, QLatin1Char('\t')), QString("'=a\t\"b\tc\""));
    }
};

QTEST_GUILESS_MAIN(TestCsvExport)
#include "tst_csvexport.moc"
