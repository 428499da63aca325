// View ▸ Theme (issue 26, item 7): the fixed light and dark palettes keep every text role the
// window uses, secondary text (PlaceholderText) included, at a contrast of at least 4.5:1 on the
// backgrounds it is drawn on; the System theme keeps the desktop's palette but raises a fading
// placeholder grey; the names round-trip through the settings' spelling.

#include "plotstyle.h"
#include "theme.h"

#include <QTest>

using namespace goblin;

Q_DECLARE_METATYPE(goblin::Theme)
Q_DECLARE_METATYPE(QPalette::ColorRole)

namespace {

/// A desktop dark theme whose placeholder grey is 2.3:1 on its window.
QPalette fadingDarkPalette()
{
    QPalette p;
    p.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    p.setColor(QPalette::WindowText, QColor(0xe6, 0xe6, 0xe6));
    p.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x26, 0x26));
    p.setColor(QPalette::Text, QColor(0xe6, 0xe6, 0xe6));
    p.setColor(QPalette::PlaceholderText, QColor(0x66, 0x66, 0x66));
    return p;
}

} // namespace

class TestTheme : public QObject
{
    Q_OBJECT
private slots:
    void textRolesReadable_data();
    void textRolesReadable();
    void darkIsDarkLightIsLight();
    void systemThemeRaisesFadingSecondaryText();
    void systemThemeKeepsReadablePalette();
    void namesRoundTrip_data();
    void namesRoundTrip();
};

void TestTheme::textRolesReadable_data()
{
    QTest::addColumn<Theme>("theme");
    QTest::addColumn<QPalette::ColorRole>("text");
    QTest::addColumn<QPalette::ColorRole>("background");
    // Each text role on each background the widgets draw it on.
    const struct {
        const char *name;
        QPalette::ColorRole text, background;
    } pairs[] = {
        {"secondary on window", QPalette::PlaceholderText, QPalette::Window},
        {"secondary on base", QPalette::PlaceholderText, QPalette::Base},
        {"secondary on alternate rows", QPalette::PlaceholderText, QPalette::AlternateBase},
        {"window text", QPalette::WindowText, QPalette::Window},
        {"table text", QPalette::Text, QPalette::Base},
        {"table text, alternate rows", QPalette::Text, QPalette::AlternateBase},
        {"button text", QPalette::ButtonText, QPalette::Button},
        {"link on window (top advice)", QPalette::Link, QPalette::Window},
        {"link on base (help)", QPalette::Link, QPalette::Base},
        {"tooltip", QPalette::ToolTipText, QPalette::ToolTipBase},
        {"selection", QPalette::HighlightedText, QPalette::Highlight},
    };
    for (Theme theme : {Theme::Light, Theme::Dark})
        for (const auto &pair : pairs)
            QTest::addRow("%s: %s", qPrintable(themeName(theme)), pair.name) << theme << pair.text << pair.background;
}

void TestTheme::textRolesReadable()
{
    QFETCH(Theme, theme);
    QFETCH(QPalette::ColorRole, text);
    QFETCH(QPalette::ColorRole, background);
    const QPalette palette = paletteFor(theme, QPalette());
    for (QPalette::ColorGroup group : {QPalette::Active, QPalette::Inactive}) {
        const double ratio = contrastRatio(palette.color(group, text), palette.color(group, background));
        QVERIFY2(ratio >= kMinTextContrast, qPrintable(QStringLiteral("%1 on %2: %3:1")
                                                           .arg(palette.color(group, text).name(),
                                                                palette.color(group, background).name())
                                                           .arg(ratio, 0, 'f', 2)));
    }
}

void TestTheme::darkIsDarkLightIsLight()
{
    QVERIFY(isDarkPalette(paletteFor(Theme::Dark, lightPalette())));
    QVERIFY(!isDarkPalette(paletteFor(Theme::Light, darkPalette())));
    // System is the desktop's, whichever it is.
    QVERIFY(isDarkPalette(paletteFor(Theme::System, darkPalette())));
    QVERIFY(!isDarkPalette(paletteFor(Theme::System, lightPalette())));
}

void TestTheme::systemThemeRaisesFadingSecondaryText()
{
    const QPalette desktop = fadingDarkPalette();
    QVERIFY(contrastRatio(desktop.color(QPalette::PlaceholderText), desktop.color(QPalette::Window)) < kMinTextContrast);
    const QPalette shown = paletteFor(Theme::System, desktop);
    for (QPalette::ColorRole bg : {QPalette::Window, QPalette::Base})
        QVERIFY(contrastRatio(shown.color(QPalette::PlaceholderText), shown.color(bg)) >= kMinTextContrast);
    // Still secondary: not simply the main text colour.
    QVERIFY(shown.color(QPalette::PlaceholderText) != shown.color(QPalette::WindowText));
    QCOMPARE(shown.color(QPalette::Window), desktop.color(QPalette::Window));
}

void TestTheme::systemThemeKeepsReadablePalette()
{
    const QPalette desktop = lightPalette();
    QCOMPARE(paletteFor(Theme::System, desktop).color(QPalette::PlaceholderText),
             desktop.color(QPalette::PlaceholderText));
}

void TestTheme::namesRoundTrip_data()
{
    QTest::addColumn<Theme>("theme");
    QTest::addColumn<QString>("name");
    QTest::newRow("system") << Theme::System << "system";
    QTest::newRow("light") << Theme::Light << "light";
    QTest::newRow("dark") << Theme::Dark << "dark";
}

void TestTheme::namesRoundTrip()
{
    QFETCH(Theme, theme);
    QFETCH(QString, name);
    QCOMPARE(themeName(theme), name);
    QCOMPARE(themeFromName(name), std::optional<Theme>(theme));
    QVERIFY(!themeFromName(name.toUpper() + QStringLiteral("x")));
}

QTEST_MAIN(TestTheme)
#include "tst_theme.moc"
