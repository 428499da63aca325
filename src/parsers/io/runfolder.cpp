#include "io/runfolder.h"

namespace goblin {

QStringList runFolderFiles(const QDir &dir, const QStringList &nameFilters)
{
    QStringList out;
    for (const QFileInfo &fi : dir.entryInfoList(nameFilters, QDir::Files, QDir::Name))
        out << fi.fileName();
    for (const QFileInfo &sub : dir.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
        for (const QFileInfo &fi : QDir(sub.absoluteFilePath()).entryInfoList(nameFilters, QDir::Files, QDir::Name))
            out << sub.fileName() + QLatin1Char('/') + fi.fileName();
    return out;
}

} // namespace goblin
