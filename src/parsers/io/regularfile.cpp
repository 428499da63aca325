#include "io/regularfile.h"

#include <QFile>
#include <QFileInfo>
#include <sys/stat.h>

namespace goblin {

QString specialFileProblem(const QString &path)
{
    const QByteArray native = QFile::encodeName(path);
    struct stat target {};
    if (::stat(native.constData(), &target) != 0)
        return {}; // missing or a dangling link: the caller's "not found"/"cannot be opened"
    QString kind;
    if (S_ISREG(target.st_mode) || S_ISDIR(target.st_mode))
        return {};
    if (S_ISFIFO(target.st_mode))
        kind = QStringLiteral("a FIFO (named pipe)");
    else if (S_ISSOCK(target.st_mode))
        kind = QStringLiteral("a socket");
    else if (S_ISCHR(target.st_mode))
        kind = QStringLiteral("a character device");
    else if (S_ISBLK(target.st_mode))
        kind = QStringLiteral("a block device");
    else
        kind = QStringLiteral("a special file");
    const QFileInfo info(path);
    const QString via = info.isSymLink()
                            ? QStringLiteral(" (a symbolic link to %1)").arg(info.canonicalFilePath().isEmpty()
                                                                                   ? info.symLinkTarget()
                                                                                   : info.canonicalFilePath())
                            : QString();
    return QStringLiteral("is %1%2, not a regular file: not read").arg(kind, via);
}

std::vector<SpecialFile> specialFilesIn(const QDir &folder)
{
    std::vector<SpecialFile> out;
    // QDir::System is what lists FIFOs, sockets and devices (QDir::Files leaves them out).
    const QDir::Filters entries = QDir::Files | QDir::System | QDir::Hidden | QDir::NoDotAndDotDot;
    const auto scan = [&out, entries](const QDir &dir, const QString &prefix) {
        for (const QFileInfo &fi : dir.entryInfoList(entries, QDir::Name)) {
            if (fi.isDir())
                continue;
            if (QString problem = specialFileProblem(fi.absoluteFilePath()); !problem.isEmpty())
                out.push_back({prefix + fi.fileName(), std::move(problem)});
        }
    };
    scan(folder, QString());
    for (const QFileInfo &sub : folder.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
        scan(QDir(sub.absoluteFilePath()), sub.fileName() + QLatin1Char('/'));
    return out;
}

} // namespace goblin
