#pragma once
/// \file A gzipped input inflated into a private temporary file, for readers that open files by
/// name (SQLite): the container step of a gzipped database (rpd files of vLLM runs travel as
/// `.rpd.gz`). The run folder is never written; the copy is removed when this object goes.

#include "progress.h"

#include <QString>
#include <QTemporaryFile>

namespace goblin::io {

class InflatedCopy
{
public:
    enum class Outcome { Inflated, Failed, Cancelled };

    /// Inflates `gzPath` into a temporary file in QDir::tempPath(), leaving that disk 256 MiB.
    /// `progress` gets the compressed bytes read; false cancels.
    Outcome inflate(const QString &gzPath, const ProgressCallback &progress);
    QString path() const { return m_path; }        ///< the inflated copy (after Inflated)
    QString problem() const { return m_problem; }  ///< why it failed (after Failed)

private:
    QTemporaryFile m_file;
    QString m_path;
    QString m_problem;
};

} // namespace goblin::io
