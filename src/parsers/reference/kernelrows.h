#pragma once
/// \file The reference's `_read_kernels` over the records of trace.csv, bit for bit: its column
/// plan (the three tiers of `_pick_column`, BOM kept), `_row_duration_ns` with Python's unbounded
/// ints, and which of Python's failures ends the reading first (UnicodeDecodeError, csv.Error on
/// the field limit, OverflowError on an infinite value).

#include "diagnostic.h"
#include "results/inputfile.h"
#include "kernels/accumulator.h"
#include "kernels/namepool.h"

#include <QString>
#include <string_view>
#include <vector>

namespace goblin
{
class CsvReader;
}

namespace goblin::reference
{

/// Marks the reading failed (nothing of it is used).
void failKernelReading(KernelReading &reading, const QString &failure, qint64 line, bool crash);

class KernelRows
{
public:
    KernelRows(kernels::Accumulator &accumulator, kernels::RowNameIds &names, int host)
        : m_acc(accumulator), m_names(names), m_host(host)
    {
    }

    /// The first record is the header: plan the columns and note them in `info`.
    void onHeader(const std::vector<std::string_view> &fields, const CsvReader &reader, InputFileInfo &info);
    /// One record after the header (not blank); `consumed` = bytes read up to its end.
    void onRecord(const std::vector<std::string_view> &fields, const CsvReader &reader, qint64 line,
                  qint64 consumed);
    /// After the last record: which of Python's failures comes first, if any.
    void finish(const CsvReader &reader, const QString &rel, Diagnostics &diags);

private:
    enum class Event { None, FieldLimit, Overflow, BeyondInt64 };
    void event(Event e, std::string_view text, qint64 line, qint64 consumed);

    kernels::Accumulator &m_acc;
    kernels::RowNameIds &m_names;
    int m_host = 0;

    bool m_stopped = false;
    int m_name = -1;
    int m_start = -1;
    int m_end = -1;
    int m_duration = -1;
    int m_agent = -1;
    Event m_event = Event::None; ///< what stops Python's loop (BeyondInt64 never does)
    bool m_beyondRow = false;
    qint64 m_beyondLine = 0;     ///< first value Python keeps as a big integer we cannot hold
    QString m_beyondText;
    qint64 m_eventLine = 0;
    qint64 m_eventRecordEnd = 0; ///< byte offset after the record where the event happened
    QString m_eventText;
};

} // namespace goblin::reference
