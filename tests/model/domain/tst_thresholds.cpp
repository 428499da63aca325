// One table of threshold knobs (issue 12, item 3): every place that bounds, stores, parses or
// reports a knob iterates thresholdDescriptors(), so each knob has one range, one settings key,
// one command-line option and one report key. Each test walks the table and asks the place.

#include "liveanalysis.h"
#include "report.h"
#include "settings.h"
#include "testsupport.h"
#include "thresholdeditor.h"
#include "thresholdpanel.h"
#include "thresholds.h"
#include "windowfixture.h"
#include "workbenchsession.h"

#include <QDoubleSpinBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace goblin;

namespace {

using CliRun = test::AppRun;
CliRun runCli(const QStringList &arguments) { return test::runApp(arguments); }

QString okRun()
{
    return test::dataPath(QStringLiteral("runs/v3-metric-1gpu"));
}

/// A value inside the range, distinct from the default, exactly representable at the knob's decimals.
double insideValue(const ThresholdDescriptor &d)
{
    const double v = d.minimum + 0.25 * (d.maximum - d.minimum);
    const double scale = std::pow(10.0, d.decimals);
    return std::round(v * scale) / scale;
}

QString number(double v)
{
    return QString::number(v, 'g', 17);
}

} // namespace

class TestThresholds : public QObject
{
    Q_OBJECT
private slots:
    void tableIsComplete();
    void hbmCapacityHasOneSensibleRange();
    void editorClampsToTheTableOnce();
    void panelUsesTheTable();
    void settingsRoundTripEveryKnob();
    void settingsOutOfRangeKeepsDefault();
    void reportHasEveryKey();
    void schemaHasEveryRange();
    void cliAcceptsEveryOption();
    void cliRefusesOutsideTheRange_data();
    void cliRefusesOutsideTheRange();
};

void TestThresholds::tableIsComplete()
{
    QSet<QString> settingsKeys, cliNames, jsonKeys;
    QSet<const void *> members;
    int index = 0;
    for (const ThresholdDescriptor &d : thresholdDescriptors()) {
        QCOMPARE(int(d.field), index++);
        QCOMPARE(thresholdDescriptor(d.field), &d);
        QVERIFY(d.minimum < d.maximum);
        QVERIFY2(d.contains(d.defaultValue()), d.cliName);  // the defaults are inside their ranges
        QVERIFY(!d.labelText().isEmpty() && !d.toolTipText().isEmpty());
        settingsKeys << d.settingsKeyText();
        cliNames << d.cliNameText();
        jsonKeys << d.jsonKeyText();
        Thresholds t;
        members << static_cast<const void *>(&(t.*(d.member)));
    }
    // Every knob its own member, key, option and report key.
    QCOMPARE(settingsKeys.size(), kNumericThresholdFieldCount);
    QCOMPARE(cliNames.size(), kNumericThresholdFieldCount);
    QCOMPARE(jsonKeys.size(), kNumericThresholdFieldCount);
    QCOMPARE(members.size(), kNumericThresholdFieldCount);
    QCOMPARE(thresholdDescriptor(ThresholdField::Precision), nullptr);
    QCOMPARE(thresholdDescriptor(ThresholdField::Steps), nullptr);
}

void TestThresholds::hbmCapacityHasOneSensibleRange()
{
    const ThresholdDescriptor *d = thresholdDescriptor(ThresholdField::HbmCapacity);
    QVERIFY(d);
    QCOMPARE(d->minimum, 1.0);
    QCOMPARE(d->maximum, 1024.0);
    QVERIFY(d->contains(192.0) && d->contains(288.0) && d->contains(16.0));
    QVERIFY(!d->contains(0.5) && !d->contains(2048.0));
}

void TestThresholds::editorClampsToTheTableOnce()
{
    LiveAnalysis live;
    ThresholdEditor editor(&live);
    for (const ThresholdDescriptor &d : thresholdDescriptors()) {
        const ThresholdFieldInfo info = thresholdFieldInfo(d.field);
        QCOMPARE(info.minimum, d.minimum);
        QCOMPARE(info.maximum, d.maximum);
        QCOMPARE(info.decimals, d.decimals);
        QCOMPARE(info.label, d.labelText());
        editor.changeValue(d.field, d.maximum * 10.0 + 1.0);
        QCOMPARE(live.thresholds().*(d.member), d.maximum);
        QCOMPARE(thresholdValue(live.thresholds(), d.field), d.maximum);
        editor.changeValue(d.field, d.minimum - 1.0);
        QCOMPARE(live.thresholds().*(d.member), d.minimum);
        const double v = insideValue(d);
        editor.changeValue(d.field, v);
        QCOMPARE(live.thresholds().*(d.member), v);
        editor.endGesture();
    }
    const Thresholds before = live.thresholds();
    editor.changeValue(ThresholdField::GpuUtilBelow, std::nan(""));  // no value, no edit
    QCOMPARE(live.thresholds(), before);
}

void TestThresholds::panelUsesTheTable()
{
    WorkbenchSession session;
    ThresholdPanel panel(&session);
    for (const ThresholdDescriptor &d : thresholdDescriptors()) {
        QDoubleSpinBox *spin = panel.spinBox(d.field);
        QCOMPARE(spin->minimum(), d.minimum);
        QCOMPARE(spin->maximum(), d.maximum);
        QCOMPARE(spin->decimals(), d.decimals);
        QCOMPARE(spin->value(), d.defaultValue());
    }
}

void TestThresholds::settingsRoundTripEveryKnob()
{
    QTemporaryDir dir;
    const QString ini = dir.filePath(QStringLiteral("settings.ini"));
    Thresholds t;
    for (const ThresholdDescriptor &d : thresholdDescriptors())
        t.*(d.member) = insideValue(d);
    {
        Settings settings(new QSettings(ini, QSettings::IniFormat));
        settings.setLastThresholds(t);
        settings.sync();
    }
    QSettings raw(ini, QSettings::IniFormat);
    for (const ThresholdDescriptor &d : thresholdDescriptors())
        QCOMPARE(raw.value(d.settingsKeyText()).toDouble(), insideValue(d));  // under the table's key
    Settings again(new QSettings(ini, QSettings::IniFormat));
    QCOMPARE(again.lastThresholds(), std::optional<Thresholds>(t));
}

void TestThresholds::settingsOutOfRangeKeepsDefault()
{
    QTemporaryDir dir;
    const QString ini = dir.filePath(QStringLiteral("settings.ini"));
    {
        Settings settings(new QSettings(ini, QSettings::IniFormat));
        settings.setLastThresholds(Thresholds{});
        settings.sync();
    }
    {
        QSettings raw(ini, QSettings::IniFormat);
        for (const ThresholdDescriptor &d : thresholdDescriptors())
            raw.setValue(d.settingsKeyText(), d.maximum + (d.maximum - d.minimum));
        raw.sync();
    }
    Settings again(new QSettings(ini, QSettings::IniFormat));
    QCOMPARE(again.lastThresholds(), std::optional<Thresholds>(Thresholds{}));
}

void TestThresholds::reportHasEveryKey()
{
    const auto run = test::makeFakeRun();
    Thresholds t;
    for (const ThresholdDescriptor &d : thresholdDescriptors())
        t.*(d.member) = insideValue(d);
    for (HeuristicsProfile profile : {HeuristicsProfile::Workbench, HeuristicsProfile::Reference}) {
        const QJsonObject json = buildReport(*run, profile, t).value(QStringLiteral("thresholds")).toObject();
        for (const ThresholdDescriptor &d : thresholdDescriptors())
            QCOMPARE(json.value(d.jsonKeyText()).toDouble(-1.0), insideValue(d));
        // the numeric knobs plus precision, steps, steps_source: no other key
        QCOMPARE(json.size(), kNumericThresholdFieldCount + 3);
    }
}

void TestThresholds::schemaHasEveryRange()
{
    const QJsonObject schema =
        QJsonDocument::fromJson(test::readAll(QStringLiteral(GOBLIN_SOURCE_DIR "/resources/report.schema.json"))).object();
    const QJsonObject thresholds = schema.value("properties").toObject().value("thresholds").toObject();
    const QJsonObject properties = thresholds.value("properties").toObject();
    QStringList required;
    for (const QJsonValue &v : thresholds.value("required").toArray())
        required << v.toString();
    for (const ThresholdDescriptor &d : thresholdDescriptors()) {
        const QJsonObject p = properties.value(d.jsonKeyText()).toObject();
        QVERIFY2(required.contains(d.jsonKeyText()), d.jsonKey);
        QCOMPARE(p.value("minimum").toDouble(-1.0), d.minimum);
        QCOMPARE(p.value("maximum").toDouble(-1.0), d.maximum);
    }
}

void TestThresholds::cliAcceptsEveryOption()
{
    QStringList arguments{QStringLiteral("report"), okRun()};
    for (const ThresholdDescriptor &d : thresholdDescriptors())
        arguments << QStringLiteral("--") + d.cliNameText() << number(insideValue(d));
    const CliRun r = runCli(arguments);
    QCOMPARE(r.exitCode, 0);
    const QJsonObject json = QJsonDocument::fromJson(r.out).object().value(QStringLiteral("thresholds")).toObject();
    for (const ThresholdDescriptor &d : thresholdDescriptors())
        QCOMPARE(json.value(d.jsonKeyText()).toDouble(-1.0), insideValue(d));

    const CliRun help = runCli({QStringLiteral("report"), QStringLiteral("--help")});
    QCOMPARE(help.exitCode, 0);
    for (const ThresholdDescriptor &d : thresholdDescriptors())
        QVERIFY2(help.out.contains("--" + QByteArray(d.cliName)), d.cliName);
}

void TestThresholds::cliRefusesOutsideTheRange_data()
{
    QTest::addColumn<QString>("option");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("message");
    for (const ThresholdDescriptor &d : thresholdDescriptors()) {
        const QString unit = d.unitText().isEmpty() ? QString() : QLatin1Char(' ') + d.unitText();
        const QString message =
            QStringLiteral("--%1 needs a number from %2 to %3%4").arg(d.cliNameText()).arg(d.minimum).arg(d.maximum).arg(unit);
        QTest::newRow(qPrintable(d.cliNameText() + QStringLiteral(" above")))
            << d.cliNameText() << number(d.maximum + (d.maximum - d.minimum)) << message;
        QTest::newRow(qPrintable(d.cliNameText() + QStringLiteral(" below")))
            << d.cliNameText() << number(d.minimum - 0.5) << message;
    }
    QTest::newRow("hbm capacity 1e-9 (the old lower bound)")
        << QStringLiteral("hbm-capacity-gb") << QStringLiteral("1e-9")
        << QStringLiteral("--hbm-capacity-gb needs a number from 1 to 1024 GB, not '1e-9'");
}

void TestThresholds::cliRefusesOutsideTheRange()
{
    QFETCH(QString, option);
    QFETCH(QString, value);
    QFETCH(QString, message);
    const CliRun r = runCli({QStringLiteral("report"), okRun(), QStringLiteral("--") + option, value});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    QVERIFY2(QString::fromUtf8(r.err).startsWith(QStringLiteral("goblin-workbench report: ") + message),
             r.err.constData());
}

QTEST_MAIN(TestThresholds)
#include "tst_thresholds.moc"
