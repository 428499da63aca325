#pragma once
/// \file Colours and chart styling derived from the palette, so charts read in light and dark
/// themes alike; the only fixed colours are the categorical series colours (Okabe–Ito, which
/// stay distinguishable for colour-blind readers on light and dark backgrounds).

#include <QChart>
#include <QColor>
#include <QPalette>

class QCPAxisRect;
class QCPLegend;
class QCustomPlot;
class QLabel;
class QWidget;

namespace goblin {

bool isDarkPalette(const QPalette &palette);
/// The print palette exported images use whatever the window's theme is: dark text on white,
/// every role of every group set (nothing inherited from a dark application palette).
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
/// The same for one axis rect, also one that is not in the plot's layout at the moment.
void applyPalette(QCPAxisRect *rect, const QPalette &palette);

/// WCAG 2 contrast ratio of two colours (1 … 21).
double contrastRatio(const QColor &a, const QColor &b);
/// The minimum contrast of secondary text (WCAG AA for body text).
inline constexpr double kMinTextContrast = 4.5;
/// The palette's PlaceholderText, moved towards WindowText just far enough to reach
/// kMinTextContrast against both Window and Base: dark themes ship placeholder greys that fade
/// into the background, light ones usually pass unchanged.
QColor secondaryTextColor(const QPalette &palette);
/// Makes `widget` draw secondary text (foreground role PlaceholderText) in secondaryTextColor()
/// of the palette it inherits, and keeps it so when the palette or theme changes.
void useSecondaryText(QWidget *widget);
/// Keeps the links of a rich-text `label` in the colour of the palette it shows: Qt colours a
/// link once, when it parses the text, so the label parses it again on every palette change.
void keepLinksInPalette(QLabel *label);
/// Wraps `legend` into as many columns as fit in `width` pixels, so no item is cut at the edge.
void fitLegendToWidth(QCPLegend *legend, int width);

} // namespace goblin
