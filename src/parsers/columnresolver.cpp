#include "columnresolver.h"

namespace goblin {

namespace {

QString asciiLower(const QString &s)
{
    QString out = s;
    for (QChar &c : out)
        if (c.unicode() >= 'A' && c.unicode() <= 'Z')
            c = QChar(c.unicode() - 'A' + 'a');
        else if (c.unicode() > 127)
            c = c.toLower();
    return out;
}

int lastIndexOf(const QStringList &header, const QString &name)
{
    for (int i = header.size() - 1; i >= 0; --i)
        if (header[i] == name)
            return i;
    return -1;
}

} // namespace

QString ResolvedColumn::reason() const
{
    switch (tier) {
    case 1:
        return QStringLiteral("exact alias match '%1'").arg(matchedAlias);
    case 2:
        return QStringLiteral("case-insensitive alias match '%1'").arg(matchedAlias);
    case 3:
        return QStringLiteral("substring tier: every token of alias '%1' appears in the name").arg(matchedAlias);
    default:
        return QStringLiteral("no column matches any alias");
    }
}

ResolvedColumn resolveReferenceColumn(const QStringList &header, const QStringList &aliases)
{
    ResolvedColumn r;
    for (const QString &alias : aliases) {
        int i = lastIndexOf(header, alias);
        if (i >= 0) {
            r.index = i;
            r.name = header[i];
            r.matchedAlias = alias;
            r.tier = 1;
            return r;
        }
    }
    // Tier 2: Python builds {f.lower(): f}, so among names equal up to case the last one wins.
    for (const QString &alias : aliases) {
        const QString lowerAlias = asciiLower(alias);
        for (int i = header.size() - 1; i >= 0; --i) {
            if (asciiLower(header[i]) == lowerAlias) {
                r.index = lastIndexOf(header, header[i]);
                r.name = header[i];
                r.matchedAlias = alias;
                r.tier = 2;
                return r;
            }
        }
    }
    for (const QString &alias : aliases) {
        QString spaced = asciiLower(alias);
        spaced.replace(QLatin1Char('_'), QLatin1Char(' '));
        const QStringList tokens = spaced.split(QLatin1Char(' '), Qt::SkipEmptyParts);
        if (tokens.isEmpty())
            continue;
        for (int i = 0; i < header.size(); ++i) {
            const QString lower = asciiLower(header[i]);
            bool all = true;
            for (const QString &t : tokens)
                if (!lower.contains(t)) {
                    all = false;
                    break;
                }
            if (all) {
                r.index = lastIndexOf(header, header[i]);
                r.name = header[i];
                r.matchedAlias = alias;
                r.tier = 3;
                return r;
            }
        }
    }
    return r;
}

ResolvedColumn resolveExactColumn(const QStringList &header, const QStringList &aliases)
{
    ResolvedColumn r;
    for (const QString &alias : aliases) {
        for (int i = int(header.size()) - 1; i >= 0; --i) {  // the last of a repeated name
            // Trimmed like the layout detection's name set: a header cell padded with blanks or
            // control whitespace is still that column (a fuzzer found the two disagreeing).
            if (QStringView(header[i]).trimmed().compare(alias, Qt::CaseInsensitive) == 0) {
                r.index = i;
                r.name = header[i];
                r.matchedAlias = alias;
                r.tier = header[i] == alias ? 1 : 2;
                return r;
            }
        }
    }
    return r;
}

std::vector<RepeatedColumn> repeatedColumns(const QStringList &header, int limit)
{
    std::vector<RepeatedColumn> out;
    // Headers are short (tens of names): pairs are compared, no table is built.
    for (int i = 0; i < header.size() && int(out.size()) < limit; ++i) {
        const QStringView name = QStringView(header[i]).trimmed();
        bool seenBefore = false;
        for (int j = 0; j < i && !seenBefore; ++j)
            seenBefore = QStringView(header[j]).trimmed().compare(name, Qt::CaseInsensitive) == 0;
        if (seenBefore)
            continue;
        RepeatedColumn r;
        r.indexes.append(i);
        for (int j = i + 1; j < header.size(); ++j)
            if (QStringView(header[j]).trimmed().compare(name, Qt::CaseInsensitive) == 0) {
                r.indexes.append(j);
                r.sameSpelling = r.sameSpelling && header[j] == header[i];
            }
        if (r.indexes.size() < 2)
            continue;
        r.name = header[r.indexes.back()];
        out.push_back(std::move(r));
    }
    return out;
}

QString repeatedColumnMessage(const RepeatedColumn &column, qint64 line)
{
    QStringList positions;
    for (int i : column.indexes)
        positions << QString::number(i + 1);
    const QString rule = column.sameSpelling
                             ? QStringLiteral("the last one's values are read, as Python's csv.DictReader does")
                             : QStringLiteral("the workbench reads the last one's values (the spellings differ in "
                                              "case or blanks only; csv.DictReader keeps each spelling apart)");
    return QStringLiteral("the header (line %1) names the column \"%2\" %3 times (columns %4): %5")
        .arg(line)
        .arg(column.name.trimmed().left(80))
        .arg(column.indexes.size())
        .arg(positions.join(QStringLiteral(", ")), rule);
}

} // namespace goblin
