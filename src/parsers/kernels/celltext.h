#pragma once
/// \file Cells as text for both readings of a kernel trace: header names (with or without the
/// BOM), a cell quoted for a message, sizes and Python's repr of a path.

#include <QString>
#include <QStringList>
#include <string_view>
#include <vector>

namespace goblin::kernels
{

inline QString fromUtf8(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

/// Header names as Python sees them: with keepBom the UTF-8 BOM stays in the first name as
/// U+FEFF (the reference opens the file as plain utf-8).
QStringList headerNames(const std::vector<std::string_view> &fields, bool keepBom);

/// repr() of a str, as Python's OSError texts quote a path.
QString pythonRepr(const QString &s);

/// A value quoted for a message: inputExcerpt() (at most 60 characters, secrets redacted, control
/// characters made visible) in single quotes.
QString shown(std::string_view raw);

QString describeMb(qint64 bytes);

} // namespace goblin::kernels
