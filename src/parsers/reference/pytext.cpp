#include "reference/pytext.h"

#include "pynumber.h"

#include <string_view>

namespace goblin::reference
{

/// Py_UNICODE_ISSPACE: what str.strip() and str.split() treat as whitespace.
bool isPyUnicodeSpace(char32_t c)
{
    return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f ||
           c == 0x3000;
}

/// What str.splitlines() splits on (besides the two-character "\r\n").
bool isPyLineBreak(char16_t c)
{
    return c == u'\n' || c == u'\r' || c == u'\v' || c == u'\f' || c == 0x1c || c == 0x1d || c == 0x1e ||
           c == 0x85 || c == 0x2028 || c == 0x2029;
}

/// str.strip() without arguments. Every Python whitespace character is in the BMP, so UTF-16
/// code units can be tested one by one.
QString pyStrip(const QString &s)
{
    qsizetype b = 0, e = s.size();
    while (b < e && isPyUnicodeSpace(s[b].unicode()))
        ++b;
    while (e > b && isPyUnicodeSpace(s[e - 1].unicode()))
        --e;
    return s.mid(b, e - b);
}

bool isPyBlank(const QString &s)
{
    for (QChar c : s)
        if (!isPyUnicodeSpace(c.unicode()))
            return false;
    return true;
}

/// Lower-cases A-Z only. Exact for the reference's tests: every token it looks for is ASCII,
/// and the only non-ASCII characters whose Python lower() contains ASCII (U+0130 -> "i\u0307",
/// U+212A -> "k") cannot complete any of those tokens.
QString asciiLower(const QString &s)
{
    QString out = s;
    for (QChar &c : out)
        if (c.unicode() >= 'A' && c.unicode() <= 'Z')
            c = QChar(char16_t(c.unicode() - 'A' + 'a'));
    return out;
}

/// Python's float(str) of a cell: pythonFloat() takes UTF-8 and applies CPython's Unicode rules
/// (Unicode spaces and decimal digits accepted, \x1c..\x1f not).
std::optional<double> pyFloatOfText(const QString &text)
{
    const QByteArray utf8 = text.toUtf8();
    return pythonFloat(std::string_view(utf8.constData(), size_t(utf8.size())));
}

/// str.splitlines() of the text read with universal newlines (which only turns "\r\n" and "\r"
/// into "\n", both of which splitlines() breaks on anyway).
QStringList pySplitLines(const QString &text)
{
    QStringList lines;
    qsizetype start = 0;
    const qsizetype n = text.size();
    for (qsizetype i = 0; i < n; ++i) {
        const char16_t c = text[i].unicode();
        if (!isPyLineBreak(c))
            continue;
        lines.append(text.mid(start, i - start));
        if (c == u'\r' && i + 1 < n && text[i + 1] == QLatin1Char('\n'))
            ++i;
        start = i + 1;
    }
    if (start < n)
        lines.append(text.mid(start));
    return lines;
}

} // namespace goblin::reference
