#pragma once
/// \file The JSON report (schema: resources/report.schema.json).

#include "derived.h"
#include "runanalysis.h"

#include <QJsonObject>

namespace goblin {

inline constexpr const char *kGeneratorName = "goblin-workbench";

/// The whole report of what `derived` holds (the window passes its live results: nothing is
/// recomputed). Strict JSON: non-finite numbers become null (and a diagnostic says so).
QJsonObject buildReport(const RunAnalysis &run, const Derived &derived);
/// The same with deriveResults(run, profile, thresholds).
QJsonObject buildReport(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &thresholds);

/// Writes the report atomically (QSaveFile) into a regular file, directly into a device or FIFO;
/// "-" writes to standard output.
bool writeReportJson(const QJsonObject &report, const QString &path, QString *error);

} // namespace goblin
