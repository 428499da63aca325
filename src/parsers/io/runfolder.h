#pragma once
/// \file Where a run folder's inputs may lie: the folder itself and its direct sub-folders
/// (rocprofv3 writes `<hostname>/<pid>_…` there). One rule for every reader that looks for
/// alternative files; the run inventory (io/runinventory.h) walks it once for all of them.

#include <QDir>
#include <QFileInfo>
#include <QStringList>
#include <vector>

namespace goblin {

/// A file of a run folder and its path relative to the folder ('/'-separated).
struct RunFolderEntry {
    QString relativePath;
    QFileInfo info;
};

/// Every file (regular files and links to them; hidden files and special files left out, as
/// QDir::Files does) of `dir` and of its direct sub-folders: the folder's own files first, then
/// each sub-folder's, each level by name.
std::vector<RunFolderEntry> runFolderEntries(const QDir &dir);

/// Files matching `nameFilters` in `dir` and in its direct sub-folders, as paths relative to
/// `dir` ("a.db", "node01/48213_results.db"); the folder's own files first, each level by name.
QStringList runFolderFiles(const QDir &dir, const QStringList &nameFilters);

} // namespace goblin
