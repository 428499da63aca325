#pragma once
/// \file The reference's two passes over traceEvents (_step_time_from_events and
/// _host_busy_from_events of profile_parser.py), fused into one and kept in the same
/// floating-point order: events are added in document order, and byte ranges merge only where
/// the order cannot matter (see merge()).

#include "syntax/jsontoken.h"

#include <cmath>
#include <optional>
#include <string_view>

namespace goblin::reference {

/// Python's `"cpu_op" in cat.lower()`. Only ASCII letters lower-case onto the letters of
/// "cpu_op", so an ASCII fold is exact here.
inline bool containsCpuOpIgnoreCase(std::string_view s)
{
    static constexpr std::string_view needle = "cpu_op";
    if (s.size() < needle.size())
        return false;
    for (size_t i = 0; i + needle.size() <= s.size(); ++i) {
        size_t k = 0;
        for (; k < needle.size(); ++k) {
            char c = s[i + k];
            if (c >= 'A' && c <= 'Z')
                c = char(c - 'A' + 'a');
            if (c != needle[k])
                break;
        }
        if (k == needle.size())
            return true;
    }
    return false;
}

struct ReferenceEvents {
    int generation = -1;          ///< which "traceEvents" key these events belong to
    double stepSum = 0.0;         ///< sum(durations), left to right (Python 3.11 sum() of floats)
    qint64 stepCount = 0;
    bool haveSpan = false;
    double spanStart = 0.0;       ///< overall_start == span_min
    double spanEnd = 0.0;         ///< overall_end == span_max
    double cpuOpUs = 0.0;
    bool stepPassOverflow = false;  ///< float() of a huge int in _step_time_from_events
    bool hostPassOverflow = false;  ///< ... in _host_busy_from_events
    /// A negative or non-finite value went into a sum or the span: then the order of the events
    /// matters beyond the last bits (cancellation, NaN), and a byte range holding it does not
    /// count (see merge()).
    bool orderSensitive = false;

    void add(const syntax::PyValue &name, const syntax::PyValue &cat, const syntax::PyValue &ts,
             const syntax::PyValue &dur, std::string_view nameText, std::string_view catText)
    {
        // _step_time_from_events: ProfilerStep durations.
        if (name.isString() && syntax::startsWith(nameText, "ProfilerStep") && dur.isNumeric()) {
            if (dur.overflow)
                stepPassOverflow = true;
            if (!(dur.number >= 0.0) || std::isinf(dur.number))
                orderSensitive = true;
            stepSum += dur.number / 1e6;
            ++stepCount;
        }
        if (!(ts.isNumeric() && dur.isNumeric()))
            return;
        if (ts.overflow || dur.overflow) {
            stepPassOverflow = true;
            hostPassOverflow = true;
        }
        const double start = ts.number;
        const double end = start + dur.number;
        if (!std::isfinite(start) || !std::isfinite(end) || !(dur.number >= 0.0))
            orderSensitive = true;
        if (!haveSpan) {
            spanStart = start;
            spanEnd = end;
            haveSpan = true;
        } else {
            // min(a, b) keeps a unless b < a; max(a, b) keeps a unless b > a (NaN never replaces).
            if (start < spanStart)
                spanStart = start;
            if (end > spanEnd)
                spanEnd = end;
        }
        if (cat.isString() && containsCpuOpIgnoreCase(catText))
            cpuOpUs += dur.number;
    }

    /// Adds the events of a later byte range. Its sums are added as a whole, which is
    /// left-to-right summation to within n ulps as long as every addend is finite and not
    /// negative; ranges where one was not (orderSensitive) are read by the main reader instead.
    void merge(const ReferenceEvents &later)
    {
        stepSum += later.stepSum;
        stepCount += later.stepCount;
        stepPassOverflow = stepPassOverflow || later.stepPassOverflow;
        orderSensitive = orderSensitive || later.orderSensitive;
        hostPassOverflow = hostPassOverflow || later.hostPassOverflow;
        if (later.haveSpan) {
            if (!haveSpan) {
                spanStart = later.spanStart;
                spanEnd = later.spanEnd;
                haveSpan = true;
            } else {
                if (later.spanStart < spanStart)
                    spanStart = later.spanStart;
                if (later.spanEnd > spanEnd)
                    spanEnd = later.spanEnd;
            }
        }
        cpuOpUs += later.cpuOpUs;
    }

    std::optional<double> stepTime() const
    {
        if (stepCount > 0)
            return stepSum / double(stepCount);
        if (haveSpan && spanEnd > spanStart)
            return (spanEnd - spanStart) / 1e6;
        return std::nullopt;
    }

    std::optional<double> hostBusy() const
    {
        if (!haveSpan || spanEnd <= spanStart)
            return std::nullopt;
        const double span = spanEnd - spanStart;
        if (span <= 0)
            return std::nullopt;
        const double fraction = cpuOpUs / span;
        return fraction < 1.0 ? fraction : 1.0;
    }
};

} // namespace goblin::reference
