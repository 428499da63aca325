#include "redaction.h"

#include <QRegularExpression>

#include <array>

namespace goblin {

namespace {

/// Fragments one of which every secret the patterns know contains (case-insensitive): text
/// without any of them is returned untouched without running a pattern.
constexpr std::array<QLatin1String, 21> kTriggers{
    QLatin1String("hf_"),    QLatin1String("ghp_"),       QLatin1String("gho_"),   QLatin1String("ghu_"),
    QLatin1String("ghs_"),   QLatin1String("ghr_"),       QLatin1String("github_pat_"), QLatin1String("xox"),
    QLatin1String("sk-"),    QLatin1String("akia"),       QLatin1String("asia"),   QLatin1String("eyj"),
    QLatin1String("bearer"), QLatin1String("-----begin"), QLatin1String("://"),    QLatin1String("pass"),
    QLatin1String("pwd"),    QLatin1String("secret"),     QLatin1String("token"),  QLatin1String("key"),
    QLatin1String("auth"),
};
constexpr std::array<QLatin1String, 3> kMoreTriggers{QLatin1String("credential"), QLatin1String("cookie"),
                                                     QLatin1String("session")};

bool mayHoldSecret(const QString &text)
{
    for (const QLatin1String t : kTriggers)
        if (text.contains(t, Qt::CaseInsensitive))
            return true;
    for (const QLatin1String t : kMoreTriggers)
        if (text.contains(t, Qt::CaseInsensitive))
            return true;
    return false;
}

/// The patterns, compiled once per thread (diagnostics are made on reader threads).
struct Patterns {
    QRegularExpression pemBlock{QStringLiteral("-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?:.*?-----END[A-Z0-9 ]*PRIVATE "
                                               "KEY-----|.*)"),
                                QRegularExpression::DotMatchesEverythingOption};
    QRegularExpression urlCredentials{QStringLiteral("([A-Za-z][A-Za-z0-9+.-]*://)[^\\s/@:]+:[^\\s/@]+(?=@)")};
    QRegularExpression token{QStringLiteral(
        "(?<![A-Za-z0-9_])(?:hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"
        "|xox[bpars]-[A-Za-z0-9-]{10,}|sk-[A-Za-z0-9_-]{16,}|(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])"
        "|eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}(?:\\.[A-Za-z0-9_-]*)?)")};
    QRegularExpression bearer{QStringLiteral("(\\bbearer\\s+)(?!\\[redacted\\])[A-Za-z0-9._~+/-]{8,}=*"),
                              QRegularExpression::CaseInsensitiveOption};
    /// KEY=value, KEY: value, "KEY": "value", 'KEY'='value' with a key that names a secret.
    /// Captures: 1 the key's quote (or nothing), 3 the value (a quoted one may lack its closing
    /// quote: a malformed line, or an excerpt, can end inside it).
    QRegularExpression keyValue{
        QStringLiteral("([\"']?)([A-Za-z0-9_.-]*?(?:password|passwd|passphrase|pwd|secret|token(?!s)|api[_-]?key"
                       "|access[_-]?key|private[_-]?key|credential|auth(?:orization)?(?![a-z])|cookie"
                       "|session[_-]?id)[A-Za-z0-9_.-]*)\\1\\s*[=:]\\s*(?!\"?\\[redacted\\])"
                       "(\"[^\"]*\"?|'[^']*'?|[^\\s,;&\"'<>{}\\[\\]]+)"),
        QRegularExpression::CaseInsensitiveOption};
};

const Patterns &patterns()
{
    thread_local const Patterns compiled;
    return compiled;
}

QString replaceAll(const QString &text, const QRegularExpression &re, int keepGroup)
{
    QString out;
    qsizetype from = 0;
    QRegularExpressionMatchIterator it = re.globalMatch(text);
    if (!it.hasNext())
        return text;
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        out += QStringView(text).mid(from, m.capturedStart() - from);
        if (keepGroup > 0)
            out += m.capturedView(keepGroup);
        out += kRedacted;
        from = m.capturedEnd();
    }
    out += QStringView(text).mid(from);
    return out;
}

QString replaceValues(const QString &text, const QRegularExpression &re)
{
    QRegularExpressionMatchIterator it = re.globalMatch(text);
    if (!it.hasNext())
        return text;
    QString out;
    qsizetype from = 0;
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        const QStringView value = m.capturedView(3);
        out += QStringView(text).mid(from, m.capturedStart(3) - from);
        const QChar quote = value.front();
        if (quote == QLatin1Char('"') || quote == QLatin1Char('\''))
            out += quote + QString(kRedacted) + quote;
        else
            out += kRedacted;
        from = m.capturedEnd(3);
    }
    out += QStringView(text).mid(from);
    return out;
}

bool isKeyChar(QChar c)
{
    const char16_t u = c.unicode();
    return (u >= 'A' && u <= 'Z') || (u >= 'a' && u <= 'z') || (u >= '0' && u <= '9') || u == '+' || u == '/' ||
           u == '=';
}

/// Runs of 32 or more base64 characters that mix upper case, lower case and digits: a bare key
/// (an AWS secret access key is 40 of them) with no name beside it to tell what it is.
QString redactKeyLikeRuns(const QString &text)
{
    constexpr qsizetype kMinRun = 32;
    QString out;
    qsizetype i = 0;
    qsizetype copied = 0;
    while (i < text.size()) {
        if (!isKeyChar(text[i])) {
            ++i;
            continue;
        }
        const qsizetype start = i;
        bool upper = false, lower = false, digit = false;
        for (; i < text.size() && isKeyChar(text[i]); ++i) {
            const char16_t u = text[i].unicode();
            upper |= u >= 'A' && u <= 'Z';
            lower |= u >= 'a' && u <= 'z';
            digit |= u >= '0' && u <= '9';
        }
        if (i - start >= kMinRun && upper && lower && digit) {
            out += QStringView(text).mid(copied, start - copied);
            out += kRedacted;
            copied = i;
        }
    }
    if (copied == 0)
        return text;
    out += QStringView(text).mid(copied);
    return out;
}

} // namespace

QString redactSecrets(const QString &text)
{
    if (!mayHoldSecret(text))
        return text;
    const Patterns &p = patterns();
    QString out = replaceAll(text, p.pemBlock, 0);
    out = replaceAll(out, p.urlCredentials, 1);
    out = replaceAll(out, p.token, 0);
    out = replaceAll(out, p.bearer, 1);
    return replaceValues(out, p.keyValue);
}

bool holdsSecret(const QString &text)
{
    return redactSecrets(text) != text;
}

QString inputExcerpt(const QString &text, int maxChars)
{
    // Redacted before the cut, so that a cut never leaves the head of a token that the patterns
    // no longer recognise.
    constexpr qsizetype kLookChars = 512;
    QString s = redactKeyLikeRuns(redactSecrets(text.left(kLookChars)));
    if (s.size() > maxChars)
        s = s.left(std::max(0, maxChars - 3)) + QStringLiteral("...");
    QString out;
    out.reserve(s.size());
    for (QChar c : s)
        out += c.unicode() < 0x20 || c.unicode() == 0x7f
                   ? QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0'))
                   : QString(c);
    return out;
}

QString inputExcerpt(std::string_view raw, int maxChars)
{
    constexpr std::size_t kLookBytes = 2048;
    raw = raw.substr(0, kLookBytes);
    return inputExcerpt(QString::fromUtf8(raw.data(), qsizetype(raw.size())), maxChars);
}

} // namespace goblin
