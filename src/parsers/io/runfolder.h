#pragma once
/// \file Where a run folder's inputs may lie: the folder itself and its direct sub-folders
/// (rocprofv3 writes `<hostname>/<pid>_…` there). One rule for every reader that looks for
/// alternative files.

#include <QDir>
#include <QStringList>

namespace goblin {

/// Files matching `nameFilters` in `dir` and in its direct sub-folders, as paths relative to
/// `dir` ("a.db", "node01/48213_results.db"); the folder's own files first, each level by name.
QStringList runFolderFiles(const QDir &dir, const QStringList &nameFilters);

} // namespace goblin
