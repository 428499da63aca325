#pragma once
/// \file Diagnostics that parsers and the engine report to the user.

#include <QString>
#include <vector>

namespace goblin {

enum class Severity { Info, Warning, Error };

/// One problem found in the input, always naming the file and (where it applies) the line.
/// The message is redacted when the diagnostic is made (redactSecrets()): a message may quote a
/// short excerpt of the input (inputExcerpt()), never a secret that was on the line.
struct Diagnostic {
    Diagnostic() = default;
    Diagnostic(Severity severity, QString file, qint64 line = 0, QString message = {});

    Severity severity = Severity::Warning;
    QString file;     ///< path relative to the run folder ("trace.csv"); empty for run-wide notes
    qint64 line = 0;  ///< 1-based line number; 0 when the problem concerns the whole file
    QString message;  ///< plain words, no trailing full stop
};
using Diagnostics = std::vector<Diagnostic>;

QString severityName(Severity severity);

/// Caps the number of per-row diagnostics of one kind: the first few are kept with their line,
/// the rest are counted and summarised once by flush(), so a million bad rows do not make a
/// million messages.
class DiagnosticLimiter
{
public:
    DiagnosticLimiter(Diagnostics &sink, QString file, QString what, int keep = 5);
    void add(qint64 line, const QString &message, Severity severity = Severity::Warning);
    void flush();
    qint64 count() const { return m_count; }

private:
    Diagnostics &m_sink;
    QString m_file;
    QString m_what;
    int m_keep;
    qint64 m_count = 0;
    Severity m_worst = Severity::Info;
};

} // namespace goblin
