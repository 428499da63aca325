#pragma once
/// \file Colours and chart styling derived from the palette, so charts read in light and dark
/// themes alike; the only fixed colours are the categorical series colours (Okabe–Ito, which
/// stay distinguishable for colour-blind readers on light and dark backgrounds).

#include <QChart>
#include <QColor>
#include <QPalette>

class QCustomPlot;

namespace goblin {

bool isDarkPalette(const QPalette &palette);
/// The light palette exported images use whatever the desktop theme is.
QPalette exportPalette();

/// Colour of budget row `index` (WasteBudget order; kUnattributedRow grey; kStepTimeRow = step time).
QColor bucketColor(int index, const QPalette &palette);
/// Colour of the `index`-th series (one per GPU).
QColor seriesColor(int index);
/// Colour of threshold lines and of the shading on their wasteful side.
QColor thresholdColor(const QPalette &palette);

QChart::ChartTheme chartThemeFor(const QPalette &palette);
/// Axis, grid, text and background colours of a QCustomPlot from the palette.
void applyPalette(QCustomPlot *plot, const QPalette &palette);

} // namespace goblin
