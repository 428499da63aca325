#include "io/inflatedcopy.h"

#include "io/gzipinflater.h"

#include <QDir>
#include <QStorageInfo>

#include <algorithm>

namespace goblin::io {

InflatedCopy::Outcome InflatedCopy::inflate(const QString &gzPath, const ProgressCallback &progress)
{
    m_file.setFileTemplate(QDir(QDir::tempPath()).filePath(QStringLiteral("goblin-workbench-XXXXXX.sqlite")));
    bool cancelled = false;
    QString problem;
    if (!m_file.open())
        problem = QStringLiteral("cannot create a temporary file in %1 (%2)").arg(QDir::tempPath(), m_file.errorString());
    else  // leaving the temporary folder's disk 256 MiB
        problem = inflateFileTo(gzPath, m_file,
                                std::max<qint64>(0, QStorageInfo(QDir::tempPath()).bytesAvailable() - (qint64(256) << 20)),
                                progress, &cancelled);
    if (cancelled)
        return Outcome::Cancelled;
    if (!problem.isEmpty() || !m_file.flush()) {
        m_problem = problem.isEmpty() ? m_file.errorString() : problem;
        return Outcome::Failed;
    }
    m_file.close();
    m_path = m_file.fileName();
    return Outcome::Inflated;
}

} // namespace goblin::io
