#pragma once
/// \file Refusing what is not a regular file before anything opens it. A FIFO blocks open()
/// until a writer comes, a link to /dev/zero reads forever, a socket cannot be opened at all:
/// in a run folder each of them is a mistake to report, not input to wait for.

#include <QDir>
#include <QString>
#include <vector>

namespace goblin {

/// Why `path` (after following symbolic links) is not a regular file that can be read to its
/// end: "is a FIFO (named pipe)", "is a character device (a symbolic link to /dev/zero)", …
/// Empty when it is a regular file, a folder or missing: callers report those themselves.
QString specialFileProblem(const QString &path);

/// A FIFO, socket or device (or a link to one) where inputs are looked for.
struct SpecialFile {
    QString relativePath;  ///< to the folder ("pipe", "node1/trace.json")
    QString problem;       ///< specialFileProblem(): "is a FIFO (named pipe), not a regular file: not read"
};

/// Every special file in `folder` and its direct sub-folders (where a run's inputs lie), hidden
/// ones and any name included, in name order. Listing a folder opens none of them.
std::vector<SpecialFile> specialFilesIn(const QDir &folder);

} // namespace goblin
