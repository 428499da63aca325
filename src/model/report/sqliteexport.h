#pragma once
/// \file `goblin-workbench export-sqlite`: one run as a SQLite database that pandas, DuckDB or the
/// sqlite3 shell query — runs, facts, devices, quantities, steps, the budget per step and bucket,
/// kernels, ops, modules, the timeline per device and step, telemetry samples, collectives and
/// diagnostics (docs/sqlite-export.md). Every row comes from the run's report (already redacted)
/// or, for kernels and telemetry samples, from the run's own aggregates; nothing is recomputed.

#include <QJsonObject>
#include <QString>

namespace goblin {

struct RunAnalysis;

/// The schema version written to `schema_version`; raised on any change a reader would notice.
constexpr int kSqliteExportSchemaVersion = 1;

/// Row counts written, by table (for the command's summary line and tests).
struct SqliteExportCounts {
    qint64 steps = 0, budgetRows = 0, kernels = 0, ops = 0, modules = 0, timelineRows = 0, telemetrySamples = 0,
           collectives = 0, diagnostics = 0, devices = 0, quantities = 0;
};

/// Writes `run` with its `report` (buildReport() of the same run and thresholds) to `path`
/// atomically: a temporary database beside it, renamed over `path` when complete. Refuses a path
/// inside the run folder. False with `error` set on failure (nothing is left behind).
bool writeSqliteExport(const RunAnalysis &run, const QJsonObject &report, const QString &path, QString *error,
                       SqliteExportCounts *counts = nullptr);

} // namespace goblin
