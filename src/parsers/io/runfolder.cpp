#include "io/runfolder.h"

namespace goblin {

namespace {

template <typename Visit>
void walkRunFolder(const QDir &dir, const QStringList &nameFilters, Visit visit)
{
    for (const QFileInfo &fi : dir.entryInfoList(nameFilters, QDir::Files, QDir::Name))
        visit(fi.fileName(), fi);
    for (const QFileInfo &sub : dir.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
        for (const QFileInfo &fi : QDir(sub.absoluteFilePath()).entryInfoList(nameFilters, QDir::Files, QDir::Name))
            visit(sub.fileName() + QLatin1Char('/') + fi.fileName(), fi);
}

} // namespace

std::vector<RunFolderEntry> runFolderEntries(const QDir &dir)
{
    std::vector<RunFolderEntry> out;
    walkRunFolder(dir, {}, [&out](const QString &relative, const QFileInfo &info) { out.push_back({relative, info}); });
    return out;
}

QStringList runFolderFiles(const QDir &dir, const QStringList &nameFilters)
{
    QStringList out;
    walkRunFolder(dir, nameFilters, [&out](const QString &relative, const QFileInfo &) { out << relative; });
    return out;
}

} // namespace goblin
