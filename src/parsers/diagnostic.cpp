#include "diagnostic.h"

#include "redaction.h"

namespace goblin {

Diagnostic::Diagnostic(Severity severity, QString file, qint64 line, QString message)
    : severity(severity), file(std::move(file)), line(line), message(redactSecrets(message))
{
}

QString severityName(Severity severity)
{
    switch (severity) {
    case Severity::Info:
        return QStringLiteral("info");
    case Severity::Warning:
        return QStringLiteral("warning");
    case Severity::Error:
        return QStringLiteral("error");
    }
    return QStringLiteral("warning");
}

DiagnosticLimiter::DiagnosticLimiter(Diagnostics &sink, QString file, QString what, int keep)
    : m_sink(sink), m_file(std::move(file)), m_what(std::move(what)), m_keep(keep)
{
}

void DiagnosticLimiter::add(qint64 line, const QString &message, Severity severity)
{
    ++m_count;
    if (severity > m_worst)
        m_worst = severity;
    if (m_count <= m_keep)
        m_sink.push_back({severity, m_file, line, message});
}

void DiagnosticLimiter::flush()
{
    if (m_count > m_keep)
        m_sink.push_back({m_worst, m_file, 0,
                          QStringLiteral("%1 more rows with %2 (only the first %3 are listed)")
                              .arg(m_count - m_keep)
                              .arg(m_what)
                              .arg(m_keep)});
    m_count = 0;
}

} // namespace goblin
