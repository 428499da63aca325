#pragma once
/// \file Column lookup by alias, as the reference does it (its three tiers), plus helpers
/// for the workbench's stricter lookups.

#include <QString>
#include <QStringList>

#include <vector>

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
/// wins; used by the workbench where substring matching is a known trap. Where several header
/// cells name that alias, the last one is taken, as csv.DictReader keeps the last value of a
/// repeated name (repeatedColumns() says so).
ResolvedColumn resolveExactColumn(const QStringList &header, const QStringList &aliases);

/// A column name the header holds more than once (csv.DictReader keeps the last one's value).
struct RepeatedColumn {
    QString name;         ///< as the last of them is written
    QList<int> indexes;   ///< 0-based positions, in order
    bool sameSpelling = true;  ///< false: some differ in case or surrounding blanks only
};

/// The names that occur more than once in `header`, compared as the workbench's lookups compare
/// them (case-insensitive, surrounding blanks ignored), in the order of their first occurrence.
/// No more than `limit` are listed.
std::vector<RepeatedColumn> repeatedColumns(const QStringList &header, int limit = 5);

/// A warning's text for one repeated column found in the header at `line`: which columns, and the
/// rule the readings apply (the last one's values).
QString repeatedColumnMessage(const RepeatedColumn &column, qint64 line);

} // namespace goblin
