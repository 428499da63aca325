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
        for (int i = 0; i < header.size(); ++i) {
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

} // namespace goblin
