#pragma once
/// \file Refusing what is not a regular file before anything opens it. A FIFO blocks open()
/// until a writer comes, a link to /dev/zero reads forever, a socket cannot be opened at all:
/// in a run folder each of them is a mistake to report, not input to wait for.

#include <QString>

namespace goblin {

/// Why `path` (after following symbolic links) is not a regular file that can be read to its
/// end: "is a FIFO (named pipe)", "is a character device (a symbolic link to /dev/zero)", …
/// Empty when it is a regular file, a folder or missing: callers report those themselves.
QString specialFileProblem(const QString &path);

} // namespace goblin
