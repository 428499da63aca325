#pragma once
/// \file Tables written for spreadsheets (CSV files, tab-separated text on the clipboard). A cell
/// holds what a run folder named — kernel names, folder names — and a spreadsheet evaluates a cell
/// that starts like a formula (`=cmd|' /C calc'!A0`, `=HYPERLINK(…)`, `@SUM(…)`): every cell the
/// workbench writes goes through csvCell(), which neutralises such cells the way OWASP's
/// CSV-injection guidance says and quotes per RFC 4180.

#include <QString>
#include <QStringList>

namespace goblin {

/// True when a spreadsheet would read `text` as a formula: it starts with `=`, `+`, `-`, `@`, a
/// tab or a carriage return — except a `+` or `-` that starts a plain number ("-1.5", "+3e-9"),
/// which stays a number.
bool startsLikeFormula(const QString &text);

/// One cell: a leading `'` when startsLikeFormula() (the spreadsheet then shows the text as it
/// is), then in double quotes, inner quotes doubled, when it holds the separator, `"`, CR or LF.
QString csvCell(const QString &text, QChar separator = QLatin1Char(','));

/// One line of cells joined by `separator`, without the line end.
QString csvLine(const QStringList &fields, QChar separator = QLatin1Char(','));

} // namespace goblin
