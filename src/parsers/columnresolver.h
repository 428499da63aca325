#pragma once
/// \file Column lookup by alias, as the reference does it (its three tiers), plus helpers
/// for the workbench's stricter lookups.

#include <QString>
#include <QStringList>

namespace goblin {

struct ResolvedColumn {
    int index = -1;        ///< position in the header; -1 when nothing matched
    QString name;          ///< header text of the chosen column
    QString matchedAlias;  ///< the alias that matched
    int tier = 0;          ///< 1 exact, 2 case-insensitive, 3 substring (every token of the alias)
    bool found() const { return index >= 0; }
    QString reason() const;  ///< plain-words explanation, e.g. "substring tier: alias 'Start'"
};

/// The reference's `_pick_column`: (1) exact match of any alias in order, (2) case-insensitive
/// match, (3) every '_'/space separated token of an alias appears in a header name. The index
/// is that of the *last* column with the chosen name, because Python's csv.DictReader keeps
/// the last value when a header repeats a name.
ResolvedColumn resolveReferenceColumn(const QStringList &header, const QStringList &aliases);

/// Exact (case-insensitive, surrounding whitespace ignored) lookup only, first alias that exists
/// wins; used by the workbench where substring matching is a known trap.
ResolvedColumn resolveExactColumn(const QStringList &header, const QStringList &aliases);

} // namespace goblin
