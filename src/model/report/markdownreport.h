#pragma once
/// \file `report --markdown`: a one-page summary of a report for a person or a model — the
/// headline, the budget table with each number's state, the first advice with its ops, the top
/// kernels and ops, and the diagnostics that matter. Made from the report object itself (already
/// redacted), so it says nothing the JSON does not; always under kMarkdownMaxBytes.

#include <QByteArray>
#include <QJsonObject>

namespace goblin {

/// The summary never grows past this, whatever the run: lists and texts are cut to fit.
constexpr qsizetype kMarkdownMaxBytes = 8000;

/// The Markdown summary of `report` (a buildReport() object), UTF-8.
QByteArray markdownSummary(const QJsonObject &report);

} // namespace goblin
