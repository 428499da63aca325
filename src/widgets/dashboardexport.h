#pragma once
/// \file The dashboard as one PNG: budget, telemetry with the threshold lines, top kernels, the
/// thresholds and profile used, and the run name. Works on the offscreen platform.

#include "derived.h"

#include <QImage>
#include <QSize>
#include <QString>

namespace goblin {

/// Logical size of the exported dashboard; the PNG has this size times the pixel ratio.
inline constexpr QSize kDashboardLogicalSize{1600, 1000};
inline constexpr double kDashboardPixelRatio = 2.0;

/// Paints the dashboard of `run` for what `derived` holds (the window's live results; nothing is
/// recomputed) in the light palette, whatever the desktop theme. Needs a QGuiApplication
/// (QApplication for the chart widgets).
QImage renderDashboardImage(const RunAnalysis &run, const Derived &derived,
                            double devicePixelRatio = kDashboardPixelRatio);
/// The same with deriveResults(run, profile, thresholds).
QImage renderDashboardImage(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &thresholds,
                            double devicePixelRatio = kDashboardPixelRatio);

/// renderDashboardImage() at 2× written atomically (QSaveFile) as PNG. On failure returns false
/// and sets `error` to a message naming `path` and the reason.
bool renderDashboardPng(const RunAnalysis &run, const Derived &derived, const QString &path, QString *error);
bool renderDashboardPng(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &thresholds,
                        const QString &path, QString *error);

/// Exactly the `report` command's JSON for `profile` and `thresholds` (buildReport +
/// writeReportJson), written atomically. On failure returns false and sets `error`.
bool exportReportJson(const RunAnalysis &run, const Derived &derived, const QString &path, QString *error);
bool exportReportJson(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &thresholds,
                      const QString &path, QString *error);

} // namespace goblin
