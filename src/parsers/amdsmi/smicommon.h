#pragma once
/// \file What both readings of an amd-smi CSV share: the progress over their two passes, and a
/// cell as it is quoted in a message.

#include "progress.h"
#include "redaction.h"

#include <QString>

#include <algorithm>
#include <string_view>

namespace goblin::amdsmi
{

/// Python's csv.field_size_limit() default, in characters (code points).
constexpr qint64 kPythonFieldLimit = 131072;

inline QString q(std::string_view text) { return QString::fromUtf8(text.data(), qsizetype(text.size())); }

/// A cell quoted in a message: long cells (list reprs, garbage) are cut so a message stays a line;
/// secrets redacted and control characters made visible (inputExcerpt()).
inline QString shown(std::string_view text)
{
    constexpr size_t kMax = 40;
    if (text.size() <= kMax)
        return inputExcerpt(text, int(kMax));
    return inputExcerpt(text, int(kMax)) + QStringLiteral(" (%1 bytes)").arg(text.size());
}

/// True when a cell holds something the redaction recognises as a secret (a token, a secret
/// KEY=value, a bare key-like run): a line holding one is credential material, and none of its
/// cells is quoted, since a password with no name beside it has no shape the redaction knows.
inline bool cellHoldsSecret(std::string_view text)
{
    const QString s = q(text.substr(0, 2048));
    return !s.contains(kRedacted) && inputExcerpt(s, int(s.size()) + 3).contains(kRedacted);
}

// ---------------------------------------------------------------------------------------------
// Progress over the two passes: the workbench pass reports the first half of the file size, the
// reference pass the second half, so the callback sees one monotonic count up to the file size.
class ProgressGate
{
public:
    ProgressGate(const ProgressCallback &callback, qint64 totalBytes)
        : m_callback(callback), m_total(totalBytes),
          m_throttle(&callback, std::clamp<qint64>(totalBytes / 100, 64 << 10, kProgressStepBytes))
    {
    }

    /// `fraction` of the pass `pass` (0 or 1) done; returns false once cancelled.
    bool report(int pass, double fraction)
    {
        if (m_cancelled)
            return false;
        if (!m_callback)
            return true;
        const qint64 done =
            qint64(double(m_total) * (0.5 * pass + 0.5 * std::clamp(fraction, 0.0, 1.0)));
        if (!m_throttle.report(done, done == m_total))
            m_cancelled = true;
        return !m_cancelled;
    }
    bool cancelled() const { return m_cancelled; }

private:
    const ProgressCallback &m_callback;
    qint64 m_total;
    ProgressThrottle m_throttle;
    bool m_cancelled = false;
};

} // namespace goblin::amdsmi
