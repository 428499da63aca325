#pragma once
/// \file Writing an export: atomically (QSaveFile) into a regular file, directly into anything
/// else. QSaveFile writes a temporary file and renames it over the target, which for
/// `--json /dev/null` run as root replaced /dev/null with a regular file, and for a FIFO or
/// `/dev/stdout` would never reach the reader.

#include <QString>
#include <functional>

class QIODevice;

namespace goblin {

/// Opens `path` for writing, calls `write` with the device and commits. Returns false with
/// `error` ("PATH: reason") when opening, `write` or the commit fails; a failed atomic write
/// leaves an existing file untouched.
bool writeExportFile(const QString &path, const std::function<bool(QIODevice &)> &write, QString *error);

} // namespace goblin
