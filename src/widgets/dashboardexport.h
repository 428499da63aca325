#pragma once
/// \file The dashboard as one PNG: budget, telemetry with the threshold lines, top kernels, the
/// thresholds and profile used, and the run name. Works on the offscreen platform.

#include "derived.h"

#include <QImage>
#include <QSize>
#include <QString>
#include <QStringList>
#include <vector>

namespace goblin {

class TelemetryPlot;

/// Logical size of the exported dashboard; the PNG has this size times the pixel ratio.
inline constexpr QSize kDashboardLogicalSize{1600, 1000};
inline constexpr double kDashboardPixelRatio = 2.0;

/// Paints the dashboard of `run` for what `derived` holds (the window's live results; nothing is
/// recomputed) in the light palette, whatever the desktop theme. Needs a QGuiApplication
/// (QApplication for the chart widgets). `painted`, when given, receives every text line painted
/// outside the charts, in painting order, as drawn (elided where it was).
QImage renderDashboardImage(const RunAnalysis &run, const Derived &derived,
                            double devicePixelRatio = kDashboardPixelRatio, QStringList *painted = nullptr);
/// The same with deriveResults(run, profile, thresholds).
QImage renderDashboardImage(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &thresholds,
                            double devicePixelRatio = kDashboardPixelRatio, QStringList *painted = nullptr);

/// Sets `plot` up as the image draws it: the run's telemetry, or without it the trace's busy
/// fraction per step and memory (TelemetryPlot::setRun), the run's levels and thresholds, in the
/// export palette. When plot.collapsed(), the image prints plot.noteText() in one line instead
/// of the chart and gives the budget chart the height.
void prepareDashboardTelemetry(TelemetryPlot &plot, const RunAnalysis &run, const Derived &derived);

/// The step time the header prints: the run's StepTimeS quantity with its scope, or "—".
QString dashboardStepTimeText(const Derived &derived);

/// One line of the image's "Run" section: a quantity's label, value ("—" when unknown), state
/// mark and the note under it (scope and source, or why it is unknown).
struct DashboardRunLine {
    QString label, value, mark, note;
};
/// The Run section: step time (the header's number), GPU utilisation, host busy, HBM peak and
/// capacity, tokens/s and MFU, from derived.quantities.
std::vector<DashboardRunLine> dashboardRunLines(const Derived &derived);

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
