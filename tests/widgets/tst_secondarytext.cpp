// Dark palette (issue 26, point 7 for the dashboard's own widgets): secondary texts — the
// threshold panel's "run:" values and crossing lines, the advice and sweep summaries, the
// telemetry plot's note — keep a contrast of at least 4.5:1 (WCAG AA) against their background,
// in light and dark palettes, also after the theme changes under them.

#include "advicepanel.h"
#include "liveanalysis.h"
#include "plotstyle.h"
#include "sweepchart.h"
#include "telemetryplot.h"
#include "testsupport.h"
#include "thresholdpanel.h"
#include "windowfixture.h"
#include "workbenchsession.h"

#include <QApplication>
#include <QLabel>
#include <QTest>
#include <QVBoxLayout>

using namespace goblin;

namespace {

/// A dark theme whose placeholder grey fades into the window (as Fusion's dark setups and many
/// desktop themes ship it): 2.3:1 against the window.
QPalette fadingDarkPalette()
{
    QPalette p;
    p.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    p.setColor(QPalette::WindowText, QColor(0xe6, 0xe6, 0xe6));
    p.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x26, 0x26));
    p.setColor(QPalette::Text, QColor(0xe6, 0xe6, 0xe6));
    p.setColor(QPalette::PlaceholderText, QColor(0x66, 0x66, 0x66));
    p.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
    p.setColor(QPalette::ButtonText, QColor(0xe6, 0xe6, 0xe6));
    return p;
}

QPalette fadingLightPalette()
{
    QPalette p;
    p.setColor(QPalette::Window, QColor(0xef, 0xef, 0xef));
    p.setColor(QPalette::WindowText, QColor(0x10, 0x10, 0x10));
    p.setColor(QPalette::Base, QColor(0xff, 0xff, 0xff));
    p.setColor(QPalette::Text, QColor(0x10, 0x10, 0x10));
    p.setColor(QPalette::PlaceholderText, QColor(0xa0, 0xa0, 0xa0));
    return p;
}

/// Every label drawn in the secondary role under `root`, with its text colour's contrast.
void verifySecondaryLabels(QWidget *root, int atLeast)
{
    int checked = 0;
    for (QLabel *label : root->findChildren<QLabel *>()) {
        if (label->foregroundRole() != QPalette::PlaceholderText)
            continue;
        const QPalette &p = label->palette();
        const QColor text = p.color(QPalette::PlaceholderText);
        const double ratio = std::min(contrastRatio(text, p.color(QPalette::Window)),
                                      contrastRatio(text, p.color(QPalette::Base)));
        QVERIFY2(ratio >= kMinTextContrast,
                 qPrintable(QStringLiteral("%1 \"%2\": %3:1").arg(label->objectName(), label->text()).arg(ratio)));
        ++checked;
    }
    QVERIFY2(checked >= atLeast, qPrintable(QString::number(checked)));
}

} // namespace

class TestSecondaryText : public QObject
{
    Q_OBJECT

private slots:
    void contrastRatioIsWcag()
    {
        QCOMPARE(contrastRatio(Qt::black, Qt::white), 21.0);
        QCOMPARE(contrastRatio(Qt::white, Qt::white), 1.0);
        QVERIFY(std::abs(contrastRatio(QColor(0x76, 0x76, 0x76), Qt::white) - 4.54) < 0.01);
    }

    void secondaryColourReads_data()
    {
        QTest::addColumn<QPalette>("palette");
        QTest::newRow("fading dark") << fadingDarkPalette();
        QTest::newRow("fading light") << fadingLightPalette();
        QTest::newRow("application default") << QApplication::palette();
    }
    void secondaryColourReads()
    {
        QFETCH(QPalette, palette);
        const QColor c = secondaryTextColor(palette);
        QVERIFY(contrastRatio(c, palette.color(QPalette::Window)) >= kMinTextContrast);
        QVERIFY(contrastRatio(c, palette.color(QPalette::Base)) >= kMinTextContrast);
        // Still secondary: never more contrast than the primary text.
        QVERIFY(contrastRatio(c, palette.color(QPalette::Window))
                <= contrastRatio(palette.color(QPalette::WindowText), palette.color(QPalette::Window)) + 1e-9);
    }

    void widgetsReadInEitherTheme()
    {
        WorkbenchSession session;
        QWidget window;
        auto *layout = new QVBoxLayout(&window);
        auto *panel = new ThresholdPanel(&session, &window);
        auto *advice = new AdvicePanel(&session, &window);
        auto *sweep = new SweepChart(&session, &window);
        layout->addWidget(panel);
        layout->addWidget(advice);
        layout->addWidget(sweep);
        window.resize(900, 1400);
        session.openRun(test::makeFakeRun());
        session.live()->flush();
        window.show();
        for (const QPalette &p : {fadingDarkPalette(), fadingLightPalette(), fadingDarkPalette()}) {
            window.setPalette(p);  // a theme switch reaches every child
            QCoreApplication::processEvents();
            // 6 run values/crossing lines of the panel at least, the advice and sweep summaries.
            verifySecondaryLabels(&window, 8);
            QVERIFY(!panel->crossingLabel(ThresholdField::GpuUtilBelow)->text().isEmpty());
        }
    }

    void plotNoteReads()
    {
        TelemetryPlot plot;
        plot.setPalette(fadingDarkPalette());
        QCoreApplication::processEvents();
        QVERIFY(plot.collapsed());
        const auto *note = qobject_cast<QCPTextElement *>(plot.plotLayout()->element(0, 0));
        QVERIFY(note);
        QCOMPARE(note->text(), plot.noteText());
        QVERIFY(contrastRatio(note->textColor(), fadingDarkPalette().color(QPalette::Base)) >= kMinTextContrast);
    }
};

QTEST_MAIN(TestSecondaryText)
#include "tst_secondarytext.moc"
