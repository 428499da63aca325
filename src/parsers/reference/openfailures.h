#pragma once
/// \file What the reference's Python raises, in its own words, when one of its three inputs
/// cannot be opened (a folder, a FIFO or device, no permission), before a byte is read. The
/// entries (which also write the workbench's diagnostics) and the reference-only reading
/// (reference/referencerun) take the texts from here.

#include <QString>

class QFile;

namespace goblin::reference {

/// trace.csv (`open(path, newline="")`), quoted with Python's repr. `specialProblem` is
/// io::specialFileProblem(path); `failedOpen` the file whose open() failed (else null).
QString kernelOpenFailure(const QString &path, bool isDir, const QString &specialProblem, const QFile *failedOpen);

/// torch_profile.json (`Path.read_text()`): it exists but is not a readable regular file.
QString torchOpenFailure(const QString &path, bool isDir, const QString &specialProblem);

/// amd_smi.csv (`Path.read_text()`), as above; `failedOpen` the file whose open() failed.
QString smiOpenFailure(const QString &path, bool isDir, const QString &specialProblem, const QFile *failedOpen);

} // namespace goblin::reference
