#include "reference/openfailures.h"

#include "kernels/celltext.h"

#include <QFile>
#include <QFileInfo>

namespace goblin::reference {

QString kernelOpenFailure(const QString &path, bool isDir, const QString &specialProblem, const QFile *failedOpen)
{
    using kernels::pythonRepr;
    if (isDir)
        return QStringLiteral("[Errno 21] Is a directory: %1").arg(pythonRepr(path));
    if (!specialProblem.isEmpty())  // Python would block in open() or read without end here
        return QStringLiteral("%1 %2").arg(pythonRepr(path), specialProblem);
    if (!failedOpen)
        return QString();
    const bool denied = failedOpen->error() == QFileDevice::OpenError && !QFileInfo(path).isReadable();
    return denied ? QStringLiteral("[Errno 13] Permission denied: %1").arg(pythonRepr(path))
                  : QStringLiteral("[Errno 5] %1: %2").arg(failedOpen->errorString(), pythonRepr(path));
}

QString torchOpenFailure(const QString &path, bool isDir, const QString &specialProblem)
{
    // Path.read_text() raises OSError, which the reference catches: a warning, nothing read.
    return isDir                     ? QStringLiteral("[Errno 21] Is a directory: '%1'").arg(path)
           : !specialProblem.isEmpty() ? QStringLiteral("'%1' %2").arg(path, specialProblem)
                                       : QStringLiteral("[Errno 13] Permission denied: '%1'").arg(path);
}

QString smiOpenFailure(const QString &path, bool isDir, const QString &specialProblem, const QFile *failedOpen)
{
    if (isDir)
        return QStringLiteral("[Errno 21] Is a directory: '%1'").arg(path);
    if (!specialProblem.isEmpty())  // the reference would block in open() or read without end here
        return QStringLiteral("'%1' %2").arg(path, specialProblem);
    return failedOpen ? failedOpen->errorString() : QString();
}

} // namespace goblin::reference
