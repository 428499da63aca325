#pragma once
/// \file Does a text read as a software version? Metadata fields meant for a version can hold
/// anything a script wrote (environment values, secrets): only version-shaped text is reported.

#include <QString>

namespace goblin {

/// "2.4.1+rocm6.1", "2.6.0a0+git1c2d3e4", "6.3": digits, up to four dot-separated numbers, then
/// at most 40 letters, digits or `.+_-`.
bool looksLikeVersion(const QString &text);

} // namespace goblin
