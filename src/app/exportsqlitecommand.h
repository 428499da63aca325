#pragma once
// `goblin-workbench export-sqlite RUN_DIR -o FILE.sqlite`: the run as one SQLite database for
// pandas, DuckDB or the sqlite3 shell (sqliteexport.h, docs/sqlite-export.md). Needs no display.

#include <QStringList>

namespace goblin {

int runExportSqliteCommand(const QStringList &arguments);

} // namespace goblin
