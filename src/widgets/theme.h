#pragma once
/// \file The window's colour theme: the desktop's palette, or a fixed light or
/// dark one, every secondary text (QPalette::PlaceholderText: hints, "run:" values, summaries, the
/// step strip's title) held to the contrast rule of plotstyle.h.

#include <QColor>
#include <QPalette>
#include <QString>
#include <optional>

namespace goblin {

enum class Theme { System, Light, Dark };

/// "system", "light", "dark": the settings' spelling.
QString themeName(Theme theme);
std::optional<Theme> themeFromName(const QString &name);

/// The fixed palettes of the View ▸ Theme menu. Every text role, PlaceholderText included, reaches
/// kMinTextContrast (plotstyle.h) on Window, Base and AlternateBase.
QPalette lightPalette();
QPalette darkPalette();

/// `palette` with PlaceholderText replaced by secondaryTextColor() (plotstyle.h) in the active and
/// inactive groups: a desktop's dark theme often keeps a placeholder grey that is fine for an
/// empty line edit but vanishes as a hint under a chart. Unchanged when it already reads.
QPalette withReadableSecondaryText(QPalette palette);

/// The palette `theme` gives the application, `systemPalette` being the desktop's (kept from
/// start-up, since the application palette is what this replaces).
QPalette paletteFor(Theme theme, const QPalette &systemPalette);

} // namespace goblin
