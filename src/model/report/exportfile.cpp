#include "exportfile.h"

#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

namespace goblin {

namespace {

bool fail(QString *error, const QString &path, const QString &reason)
{
    if (error)
        *error = QStringLiteral("%1: %2").arg(path, reason);
    return false;
}

} // namespace

bool writeExportFile(const QString &path, const std::function<bool(QIODevice &)> &write, QString *error)
{
    const QFileInfo target(path);
    // An existing target that is not a regular file (a device, a FIFO, a socket; through a link
    // or not) is written in place: there is nothing to replace atomically, and renaming over it
    // would destroy it.
    if (target.exists() && !target.isFile() && !target.isDir()) {
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Unbuffered))
            return fail(error, path, file.errorString());
        if (!write(file))
            return fail(error, path, file.errorString().isEmpty() ? QStringLiteral("write failed") : file.errorString());
        return true;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return fail(error, path, file.errorString());
    if (!write(file)) {
        const QString reason = file.errorString();
        file.cancelWriting();
        return fail(error, path, reason.isEmpty() || reason == QLatin1String("Unknown error") ? QStringLiteral("write failed") : reason);
    }
    if (!file.commit())
        return fail(error, path, file.errorString());
    return true;
}

} // namespace goblin
