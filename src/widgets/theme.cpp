#include "theme.h"

#include "plotstyle.h"

namespace goblin {

QString themeName(Theme theme)
{
    switch (theme) {
    case Theme::Light: return QStringLiteral("light");
    case Theme::Dark: return QStringLiteral("dark");
    case Theme::System: break;
    }
    return QStringLiteral("system");
}

std::optional<Theme> themeFromName(const QString &name)
{
    for (Theme t : {Theme::System, Theme::Light, Theme::Dark})
        if (name == themeName(t))
            return t;
    return std::nullopt;
}

QPalette lightPalette()
{
    QPalette p;
    const QColor window(0xef, 0xef, 0xef), text(0x1e, 0x1e, 0x1e);
    for (QPalette::ColorGroup g : {QPalette::Active, QPalette::Inactive}) {
        p.setColor(g, QPalette::Window, window);
        p.setColor(g, QPalette::WindowText, text);
        p.setColor(g, QPalette::Base, QColor(0xff, 0xff, 0xff));
        p.setColor(g, QPalette::AlternateBase, QColor(0xf5, 0xf5, 0xf5));
        p.setColor(g, QPalette::Text, text);
        p.setColor(g, QPalette::Button, window);
        p.setColor(g, QPalette::ButtonText, text);
        p.setColor(g, QPalette::BrightText, QColor(0xff, 0xff, 0xff));
        p.setColor(g, QPalette::ToolTipBase, QColor(0xff, 0xff, 0xdc));
        p.setColor(g, QPalette::ToolTipText, text);
        p.setColor(g, QPalette::Highlight, QColor(0x2b, 0x6c, 0xb0));  // white on it: 5.4:1
        p.setColor(g, QPalette::HighlightedText, QColor(0xff, 0xff, 0xff));
        p.setColor(g, QPalette::Link, QColor(0x00, 0x5a, 0xb4));
        p.setColor(g, QPalette::LinkVisited, QColor(0x6a, 0x2c, 0x9a));
        p.setColor(g, QPalette::PlaceholderText, QColor(0x5c, 0x5c, 0x5c));
        p.setColor(g, QPalette::Light, QColor(0xff, 0xff, 0xff));
        p.setColor(g, QPalette::Midlight, QColor(0xe3, 0xe3, 0xe3));
        p.setColor(g, QPalette::Mid, QColor(0xa0, 0xa0, 0xa0));
        p.setColor(g, QPalette::Dark, QColor(0x80, 0x80, 0x80));
        p.setColor(g, QPalette::Shadow, QColor(0x40, 0x40, 0x40));
    }
    p.setColor(QPalette::Disabled, QPalette::Window, window);
    p.setColor(QPalette::Disabled, QPalette::Base, window);
    for (QPalette::ColorRole r : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, r, QColor(0x8c, 0x8c, 0x8c));
    p.setColor(QPalette::Disabled, QPalette::Button, window);
    return p;
}

QPalette darkPalette()
{
    QPalette p;
    const QColor window(0x2b, 0x2b, 0x2b), text(0xe8, 0xe8, 0xe8);
    for (QPalette::ColorGroup g : {QPalette::Active, QPalette::Inactive}) {
        p.setColor(g, QPalette::Window, window);
        p.setColor(g, QPalette::WindowText, text);
        p.setColor(g, QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
        p.setColor(g, QPalette::AlternateBase, QColor(0x27, 0x27, 0x27));
        p.setColor(g, QPalette::Text, text);
        p.setColor(g, QPalette::Button, QColor(0x3a, 0x3a, 0x3a));
        p.setColor(g, QPalette::ButtonText, text);
        p.setColor(g, QPalette::BrightText, QColor(0xff, 0xff, 0xff));
        p.setColor(g, QPalette::ToolTipBase, QColor(0x3a, 0x3a, 0x3a));
        p.setColor(g, QPalette::ToolTipText, text);
        p.setColor(g, QPalette::Highlight, QColor(0x2f, 0x6f, 0xb0));
        p.setColor(g, QPalette::HighlightedText, QColor(0xff, 0xff, 0xff));
        p.setColor(g, QPalette::Link, QColor(0x7c, 0xb8, 0xff));
        p.setColor(g, QPalette::LinkVisited, QColor(0xc0, 0x9c, 0xff));
        // Secondary text: #aaa on #1e1e1e is 7.2:1, on #2b2b2b 6.1:1; #909090 would be 4.4:1 on the window.
        p.setColor(g, QPalette::PlaceholderText, QColor(0xaa, 0xaa, 0xaa));
        p.setColor(g, QPalette::Light, QColor(0x50, 0x50, 0x50));
        p.setColor(g, QPalette::Midlight, QColor(0x42, 0x42, 0x42));
        p.setColor(g, QPalette::Mid, QColor(0x60, 0x60, 0x60));
        p.setColor(g, QPalette::Dark, QColor(0x1a, 0x1a, 0x1a));
        p.setColor(g, QPalette::Shadow, QColor(0x10, 0x10, 0x10));
    }
    p.setColor(QPalette::Disabled, QPalette::Window, window);
    p.setColor(QPalette::Disabled, QPalette::Base, QColor(0x24, 0x24, 0x24));
    for (QPalette::ColorRole r : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, r, QColor(0x80, 0x80, 0x80));
    p.setColor(QPalette::Disabled, QPalette::Button, QColor(0x33, 0x33, 0x33));
    return p;
}

QPalette withReadableSecondaryText(QPalette palette)
{
    for (QPalette::ColorGroup g : {QPalette::Active, QPalette::Inactive}) {
        QPalette group = palette;
        group.setCurrentColorGroup(g);
        palette.setColor(g, QPalette::PlaceholderText, secondaryTextColor(group));
    }
    return palette;
}

QPalette paletteFor(Theme theme, const QPalette &systemPalette)
{
    switch (theme) {
    case Theme::Light: return lightPalette();
    case Theme::Dark: return darkPalette();
    case Theme::System: break;
    }
    return withReadableSecondaryText(systemPalette);
}

} // namespace goblin
