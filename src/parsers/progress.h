#pragma once
/// \file Progress and cancellation shared by all parsers.

#include <QtGlobal>
#include <functional>

namespace goblin {

/// Called by a parser every few MB with the bytes of this file processed so far.
/// Returning false cancels: the parser stops at the next chunk and reports `cancelled`.
/// May be called from a worker thread; must be cheap and thread-safe.
using ProgressCallback = std::function<bool(qint64 bytesDone)>;

/// How far apart progress reports are: every parser reports every 4 MB (and at the end), so
/// the window's progress bar moves smoothly without a callback per record.
constexpr qint64 kProgressStepBytes = qint64(4) << 20;

/// The one progress rule of the parsers: report `done` once it is a step past the last report
/// (or when forced: the end). Holds the callback by pointer; it must outlive the throttle.
class ProgressThrottle
{
public:
    explicit ProgressThrottle(const ProgressCallback *callback, qint64 stepBytes = kProgressStepBytes,
                              qint64 startAt = 0)
        : m_callback(callback), m_step(stepBytes > 0 ? stepBytes : 1), m_last(startAt)
    {
    }
    /// True once `done` is a step past the last report.
    bool due(qint64 done) const { return done - m_last >= m_step; }
    /// Reports `done` when due (always with `force`); false when the callback cancels.
    bool report(qint64 done, bool force = false)
    {
        if (!force && !due(done))
            return true;
        m_last = done;
        return !m_callback || !*m_callback || (*m_callback)(done);
    }

private:
    const ProgressCallback *m_callback;
    qint64 m_step;
    qint64 m_last;
};

} // namespace goblin
