#pragma once
/// \file Python's text semantics on QString, as the reference's Path.read_text() text is treated:
/// str.isspace/strip/splitlines, ASCII lower-casing of its tokens, float() of a cell.

#include <QString>
#include <QStringList>

#include <optional>

namespace goblin::reference
{

/// Py_UNICODE_ISSPACE: what str.strip() and str.split() treat as whitespace.
bool isPyUnicodeSpace(char32_t c);
/// What str.splitlines() splits on (besides the two-character "\r\n").
bool isPyLineBreak(char16_t c);
/// str.strip() without arguments.
QString pyStrip(const QString &s);
/// str.isspace() or empty.
bool isPyBlank(const QString &s);
/// Lower-cases A-Z only (see pytext.cpp for why that is exact here).
QString asciiLower(const QString &s);
/// Python's float(str) of a cell.
std::optional<double> pyFloatOfText(const QString &text);
/// str.splitlines() of the text read with universal newlines.
QStringList pySplitLines(const QString &text);

} // namespace goblin::reference
