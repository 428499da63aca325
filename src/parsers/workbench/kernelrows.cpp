#include "workbench/kernelrows.h"

#include "columnresolver.h"
#include "syntax/csvreader.h"
#include "kernels/celltext.h"
#include "kernels/hostlanesbuilder.h"
#include "pynumber.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

namespace goblin::workbench
{

namespace
{

using kernels::describeMb;
using kernels::fromUtf8;
using kernels::headerNames;
using kernels::shown;

const QString kTraceFileName = QStringLiteral("trace.csv");
constexpr qint64 kHugeFieldBytes = 10 << 20;
constexpr int kMaxPreambleLines = 10;

/// Outcome of one workbench number.
struct WorkbenchNumber {
    bool ok = false;
    bool fromFloat = false;
    qint64 value = 0;
    QString problem;
};

WorkbenchNumber workbenchNumber(std::string_view text)
{
    WorkbenchNumber out;
    const StrictNumber n = strictNumber(text);
    switch (n.status) {
    case StrictNumber::Status::Empty:
        out.problem = QStringLiteral("is empty");
        return out;
    case StrictNumber::Status::NotANumber:
        out.problem = QStringLiteral("is %1, not a number").arg(shown(text));
        return out;
    case StrictNumber::Status::NonFinite:
        out.problem = QStringLiteral("is %1, not a finite number").arg(shown(text));
        return out;
    case StrictNumber::Status::Ok:
        break;
    }
    if (n.isInteger) {
        out.ok = true;
        out.value = n.integer;
        return out;
    }
    if (!(std::fabs(n.value) < 9.2e18)) {
        out.problem = QStringLiteral("is %1, out of range").arg(shown(text));
        return out;
    }
    out.ok = true;
    out.fromFloat = true;
    out.value = std::llround(n.value);
    return out;
}

/// rocprofv3's `<pid>_kernel_trace.csv` gives the process id; -1 otherwise.
qint64 pidOfFileName(const QString &base)
{
    qsizetype digits = 0;
    while (digits < base.size() && base[digits].isDigit())
        ++digits;
    return digits > 0 && digits < 16 && base.mid(digits) == QLatin1String("_kernel_trace.csv")
               ? base.left(digits).toLongLong()
               : qint64(-1);
}

} // namespace

struct KernelRows::Limiters {
    Limiters(Diagnostics &diags, const QString &rel)
        : extraFields(diags, rel, QStringLiteral("more fields than the header")),
          shortRows(diags, rel, QStringLiteral("fewer fields than the header")),
          quoteQuirk(diags, rel, QStringLiteral("an unescaped quote in a quoted field")),
          noName(diags, rel, QStringLiteral("no kernel name")),
          badNumber(diags, rel, QStringLiteral("unreadable timing values")),
          hugeField(diags, rel, QStringLiteral("a field over 10 MB"))
    {
    }
    DiagnosticLimiter extraFields, shortRows, quoteQuirk, noName, badNumber, hugeField;
};

KernelRows::KernelRows(KernelTrace &trace, kernels::Accumulator &accumulator, kernels::RowNameIds &names, int host,
                       const QString &rel, const QString &fileName)
    : m_trace(trace), m_acc(accumulator), m_names(names), m_host(host), m_rel(rel), m_fileName(fileName),
      m_limit(std::make_unique<Limiters>(trace.diagnostics, rel)), m_timeline(kTraceFileName, rel),
      m_filePid(pidOfFileName(fileName))
{
}

KernelRows::~KernelRows() = default;

void KernelRows::useLayout(KernelLayout layout, const QStringList &header)
{
    m_layout = std::move(layout);
    m_header = header;
    m_headerCount = int(m_header.size());
    m_maxNeeded = std::max({m_layout.name, m_layout.start, m_layout.end, m_layout.duration});
    m_headerName = m_layout.name >= 0 && m_layout.name < m_header.size() ? m_header[m_layout.name].toStdString()
                                                                         : std::string();
    m_queueColumn = resolveExactColumn(m_header, {QStringLiteral("Queue_Id"), QStringLiteral("Stream_Id"),
                                                  QStringLiteral("queue-id")})
                        .index;
    m_correlationColumn =
        m_keepCorrelations ? resolveExactColumn(m_header, {QStringLiteral("Correlation_Id")}).index : -1;
}

void KernelRows::onHeader(const std::vector<std::string_view> &fields, const CsvReader &reader, bool search)
{
    const QStringList header = headerNames(fields, false);
    useLayout(detectKernelLayout(header, m_fileName), header);
    m_headerLine = reader.recordStartLine();
    m_searching = search && !m_layout.recognised && fields.size() <= 1;
    m_firstLineText = fields.empty() ? QString() : shown(fields.front());
    m_firstRecordBinary = [&] {
        for (std::string_view f : fields)
            if (std::memchr(f.data(), '\0', f.size()))
                return true;
        return reader.firstInvalidUtf8Offset() >= 0 && reader.firstInvalidUtf8Offset() < reader.bytesConsumed();
    }();
}

void KernelRows::onProgress(qint64 consumed, qint64 fileSize)
{
    if (!m_timelineSized && consumed > 0) { // the rows so far tell how many the file holds
        m_timelineSized = true;
        m_timeline.expectRows(qint64(double(m_timeline.eventCount()) * double(fileSize) / double(consumed)));
    }
}

void KernelRows::onRecord(const std::vector<std::string_view> &fields, const CsvReader &reader, qint64 line,
                          qint64 recordBytes)
{
    Diagnostics &diags = m_trace.diagnostics;
    if (m_searching) {
        const QStringList candidate = headerNames(fields, false);
        KernelLayout l = detectKernelLayout(candidate, m_fileName);
        if (l.recognised) {
            useLayout(std::move(l), candidate);
            m_headerLine = line;
            m_searching = false;
            diags.push_back({Severity::Info, m_rel, line,
                             QStringLiteral("the header starts at line %1; the %2 line(s) before it (banner text "
                                            "or blank) were skipped")
                                 .arg(line)
                                 .arg(line - 1)});
        } else if (fields.size() > 1 || ++m_preambleLines >= kMaxPreambleLines) {
            m_searching = false;
        }
        return;
    }
    if (!m_layout.usable)
        return;
    const KernelLayout &layout = m_layout;
    Limiters &limit = *m_limit;
    ++m_rowsRead;
    if (recordBytes > kHugeFieldBytes) {
        for (size_t i = 0; i < fields.size(); ++i)
            if (qint64(fields[i].size()) > kHugeFieldBytes) {
                limit.hugeField.add(line, QStringLiteral("field %1 (%2) is %3 long")
                                              .arg(i + 1)
                                              .arg(i < size_t(m_header.size()) ? m_header[qsizetype(i)]
                                                                               : QStringLiteral("past the header"),
                                                   describeMb(qint64(fields[i].size()))));
                break;
            }
    }
    const int fieldCount = int(fields.size());
    if (reader.lastRecordQuoteQuirkField() >= 0) {
        const int f = reader.lastRecordQuoteQuirkField();
        limit.quoteQuirk.add(line,
                             QStringLiteral("field %1 (%2) has text after its closing quote: an embedded '\"' was "
                                            "not escaped (rocprofv3 writes names that way); read as Python's csv "
                                            "module reads it")
                                 .arg(f + 1)
                                 .arg(f < m_header.size() ? m_header[f] : QStringLiteral("past the header")));
    }
    if (fieldCount > m_headerCount) {
        limit.extraFields.add(line, QStringLiteral("row has %1 fields, the header %2: an unescaped quote or comma in a "
                                                   "kernel name shifts the columns after it; row skipped")
                                        .arg(fieldCount)
                                        .arg(m_headerCount));
        ++m_skipped;
        return;
    }
    KernelReading &w = *m_acc.reading;
    if (fieldCount < m_headerCount) {
        if (m_maxNeeded >= fieldCount) {
            limit.shortRows.add(line, QStringLiteral("row has %1 fields, the header %2; the row ends before the "
                                                     "columns it needs; row skipped")
                                          .arg(fieldCount)
                                          .arg(m_headerCount));
            ++m_skipped;
            ++w.rowsSkippedUnreadable;
            return;
        }
        limit.shortRows.add(line, QStringLiteral("row has %1 fields, the header %2; the missing trailing fields are "
                                                 "not needed, row read")
                                      .arg(fieldCount)
                                      .arg(m_headerCount));
    }
    const std::string_view name = pythonStrip(fields[size_t(layout.name)]);
    if (name.empty()) {
        limit.noName.add(line, QStringLiteral("empty kernel name; row skipped"));
        ++w.rowsSkippedNoName;
        ++m_skipped;
        return;
    }
    if (layout.nsys && (name.substr(0, 12) == "[CUDA memcpy" || name.substr(0, 12) == "[CUDA memset")) {
        ++m_memcpyRows;
        ++m_skipped;
        return;
    }
    if (fieldCount == m_headerCount && fields[size_t(layout.name)] == m_headerName) {
        // Concatenated per-process files leave their header lines mid-file.
        bool same = true;
        for (int i = 0; i < fieldCount && same; ++i)
            same = fromUtf8(fields[size_t(i)]) == m_header[i];
        if (same) {
            if (m_repeatedHeaderLine == 0)
                m_repeatedHeaderLine = line;
            ++m_repeatedHeaders;
            ++m_skipped;
            return;
        }
    }
    qint64 startNs = 0, endNs = 0, durationNs = 0;
    bool haveSpan = false;
    auto number = [&](int column, const QString &columnName, qint64 &out) {
        const WorkbenchNumber n = workbenchNumber(fields[size_t(column)]);
        if (!n.ok) {
            limit.badNumber.add(line, QStringLiteral("%1 %2; row skipped").arg(columnName, n.problem));
            return false;
        }
        if (n.fromFloat && m_floatLine == 0) {
            m_floatLine = line;
            m_floatExample = shown(fields[size_t(column)]);
        }
        out = n.value;
        return true;
    };
    bool ok = true;
    switch (layout.timing) {
    case Timing::EndMinusStart:
        ok = number(layout.start, layout.startName, startNs) && number(layout.end, layout.endName, endNs);
        if (ok) {
            long long d = 0;
            if (__builtin_sub_overflow(endNs, startNs, &d)) {
                limit.badNumber.add(
                    line, QStringLiteral("%1 - %2 is out of range; row skipped").arg(layout.endName, layout.startName));
                ok = false;
            } else {
                durationNs = qint64(d);
                haveSpan = true;
            }
        }
        break;
    case Timing::StartPlusDuration:
        ok = number(layout.start, layout.startName, startNs) && number(layout.duration, layout.durationName, durationNs);
        if (ok) {
            long long e = 0;
            if (__builtin_add_overflow(startNs, durationNs, &e)) {
                limit.badNumber.add(line, QStringLiteral("%1 + %2 is out of range; row skipped")
                                              .arg(layout.startName, layout.durationName));
                ok = false;
            } else {
                endNs = qint64(e);
                haveSpan = true;
            }
        }
        break;
    case Timing::DurationOnly:
        ok = number(layout.duration, layout.durationName, durationNs);
        break;
    }
    if (!ok) {
        ++w.rowsSkippedUnreadable;
        ++m_skipped;
        return;
    }
    if (haveSpan && durationNs >= 0) {
        const qint64 device = layout.agent >= 0 && layout.agent < fieldCount
                                  ? kernels::agentNumber(pythonStrip(fields[size_t(layout.agent)]))
                                  : 0;
        qint64 queue = 0;
        if (m_queueColumn >= 0 && m_queueColumn < fieldCount) {
            const std::string_view q = pythonStrip(fields[size_t(m_queueColumn)]);
            std::from_chars(q.data(), q.data() + q.size(), queue);
        }
        m_timeline.addKernel(m_names(layout.name, name), name, m_filePid, device, queue, startNs, endNs);
        if (m_correlationColumn >= 0) {
            qint64 correlation = 0;
            const std::string_view c =
                m_correlationColumn < fieldCount ? pythonStrip(fields[size_t(m_correlationColumn)]) : std::string_view();
            if (!c.empty() && std::from_chars(c.data(), c.data() + c.size(), correlation).ec == std::errc())
                m_correlations.push_back({startNs, correlation, qint32(device), qint32(queue)});
        }
    }
    if (durationNs <= 0) {
        ++(durationNs < 0 ? m_negativeRows : m_zeroRows);
        ++w.rowsSkippedNonPositive;
        ++m_skipped;
        return;
    }
    // No single kernel runs for a day: such a duration is a clock mix-up or a corrupt row, and
    // summing a few of them would overflow the per-run totals.
    constexpr qint64 kMaxPlausibleKernelNs = 86'400'000'000'000;
    if (durationNs > kMaxPlausibleKernelNs) {
        limit.badNumber.add(line, QStringLiteral("a kernel duration of %1 s is implausible (over a day); row skipped")
                                      .arg(double(durationNs) / 1e9, 0, 'g', 3));
        ++w.rowsSkippedUnreadable;
        ++m_skipped;
        return;
    }
    m_acc.use(m_names(layout.name, name), durationNs);
    if (haveSpan)
        m_acc.span(startNs, endNs);
    if (layout.agent >= 0 && layout.agent < fieldCount)
        m_acc.agents.add(m_host, pythonStrip(fields[size_t(layout.agent)]));
}

void KernelRows::finish(const CsvReader &reader, InputFileInfo &info)
{
    Diagnostics &diags = m_trace.diagnostics;
    const KernelLayout &layout = m_layout;
    if (reader.firstInvalidUtf8Offset() >= 0 && !(m_firstRecordBinary && !layout.recognised)) {
        diags.push_back({Severity::Warning, m_rel, reader.firstInvalidUtf8Line(),
                         QStringLiteral("bytes that are not valid UTF-8 (first at line %1): the reference would "
                                        "crash on this file (UnicodeDecodeError); the workbench reads on and shows "
                                        "such bytes as replacement characters")
                             .arg(reader.firstInvalidUtf8Line())});
    }
    if (!layout.recognised) {
        diags.push_back({Severity::Error, m_rel, m_headerLine,
                         m_firstRecordBinary
                             ? QStringLiteral("does not look like a CSV file (binary or non-UTF-8 bytes in the first "
                                              "line); no kernel trace read")
                             : QStringLiteral("no recognisable kernel-trace header (first line %1); no kernel trace "
                                              "read")
                                   .arg(m_firstLineText)});
    } else if (!layout.usable) {
        diags.push_back(
            {Severity::Warning, m_rel, m_headerLine, QStringLiteral("%1 (%2)").arg(layout.problem, layout.dialect)});
    } else if (m_rowsRead == 0) {
        diags.push_back({Severity::Warning, m_rel, m_headerLine,
                         QStringLiteral("has a header (%1) but no data rows").arg(layout.dialect)});
    }
    if (layout.usable)
        for (const RepeatedColumn &column : layout.repeated)
            diags.push_back({Severity::Warning, m_rel, m_headerLine, repeatedColumnMessage(column, m_headerLine)});
    m_limit->extraFields.flush();
    m_limit->shortRows.flush();
    m_limit->quoteQuirk.flush();
    m_limit->noName.flush();
    m_limit->badNumber.flush();
    m_limit->hugeField.flush();
    if (m_repeatedHeaders > 0)
        diags.push_back({Severity::Warning, m_rel, m_repeatedHeaderLine,
                         QStringLiteral("%1 repeated header line(s), first at line %2 (several traces "
                                        "concatenated into one file?); skipped")
                             .arg(m_repeatedHeaders)
                             .arg(m_repeatedHeaderLine)});
    if (m_memcpyRows > 0)
        diags.push_back({Severity::Info, m_rel, 0,
                         QStringLiteral("%1 memory copy/set rows ([CUDA memcpy ...], [CUDA memset]) are not kernels "
                                        "and were skipped")
                             .arg(m_memcpyRows)});
    if (m_floatLine > 0)
        diags.push_back({Severity::Warning, m_rel, m_floatLine,
                         QStringLiteral("timestamps are written in floating-point notation (%1 at line %2), as "
                                        "after a spreadsheet round-trip: only a few significant digits survive, "
                                        "so durations computed from them are unreliable")
                             .arg(m_floatExample)
                             .arg(m_floatLine)});
    if (m_negativeRows > 0) {
        const QString what = layout.timing == Timing::EndMinusStart
                                 ? QStringLiteral("%1 before %2").arg(layout.endName, layout.startName)
                                 : QStringLiteral("a negative %1").arg(layout.durationName);
        diags.push_back(
            {Severity::Warning, m_rel, 0, QStringLiteral("%1 rows with %2 were skipped").arg(m_negativeRows).arg(what)});
    }
    if (m_zeroRows > 0)
        diags.push_back(
            {Severity::Warning, m_rel, 0, QStringLiteral("%1 rows with zero duration were skipped").arg(m_zeroRows)});
    noteDialect(info);
    info.workbenchColumns = layout.columns;
    info.rowsRead = m_rowsRead;
    info.rowsSkipped = m_skipped;
}

void KernelRows::noteDialect(InputFileInfo &info) const
{
    info.dialect = m_layout.recognised ? m_layout.dialect : QStringLiteral("unrecognised");
}

void KernelRows::finishTimeline(bool cancelled)
{
    if (!cancelled && m_timeline.eventCount() > 0) {
        m_trace.timeline.files.push_back(m_timeline.take());
        if (m_keepCorrelations) {
            // The kernels' side of the flows (none without a Correlation_Id column); the loader adds
            // the API traces' calls, or drops it.
            auto lanes = std::make_shared<HostLanes>();
            lanes->gpuByPlace = kernels::sortedByPlace(m_correlations);
            m_trace.timeline.files.back().hostLanes = std::move(lanes);
        }
    }
    m_correlations = {};
    if (m_timeline.streamOverflow())
        m_trace.diagnostics.push_back(
            {Severity::Warning, m_rel, 0,
             QStringLiteral("more than 65535 queues on one agent: the last ones share one timeline lane")});
}

} // namespace goblin::workbench
