#include "kerneltraceparser.h"

#include "io/regularfile.h"
#include "io/runfolder.h"

#include "columnresolver.h"
#include "csvreader.h"
#include "kernels/accumulator.h"
#include "kernels/namepool.h"
#include "kernels/timelinebuilder.h"
#include "pynumber.h"
#include "rocpd/rocpdfile.h"
#include "rocpdreader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <charconv>
#include <climits>
#include <cmath>
#include <cstring>
#include <optional>

namespace goblin
{

namespace
{

using kernels::Accumulator;
using kernels::kMaxAgents;
using kernels::NamePool;

const QString kTraceFileName = QStringLiteral("trace.csv");
const QString kFormat = QStringLiteral("kernel-trace-csv");
constexpr qint64 kProgressStepBytes = 4 << 20;
constexpr qint64 kHugeFieldBytes = 10 << 20;
/// 1 MB keeps a chunk in L2 while it is validated, parsed and hashed.
constexpr qint64 kChunkBytes = 1 << 20;
/// Python's TextIOWrapper decodes 8 KiB at a time; a decode error is raised when the chunk
/// holding the bad byte is decoded, which decides whether it comes before a csv.Error.
constexpr qint64 kPythonDecodeChunk = 8192;
constexpr int kMaxPreambleLines = 10;

// ---------------------------------------------------------------------------------------------
// Python's integers

__extension__ typedef unsigned __int128 Uint128;
__extension__ typedef __int128 Int128;

/// int(float(text)) as Python computes it, in 128 bits.
struct PyInt {
    enum class Status { Ok, ValueError, Infinite, Huge };
    Status status = Status::ValueError;
    Int128 value = 0;
};

PyInt pythonInt128(std::string_view text)
{
    PyInt out;
    bool overflow = false;
    const std::optional<long long> v = pythonIntOfFloat(text, &overflow);
    if (v) {
        out.status = PyInt::Status::Ok;
        out.value = *v;
        return out;
    }
    if (!overflow)
        return out; // ValueError (syntax or NaN)
    const double f = *pythonFloat(text);
    if (std::isinf(f)) {
        out.status = PyInt::Status::Infinite;
        return out;
    }
    const double t = std::trunc(f);
    if (std::fabs(t) >= 0x1p126) { // a timing value past 1e37 ns: not worth big-integer code
        out.status = PyInt::Status::Huge;
        return out;
    }
    out.status = PyInt::Status::Ok;
    out.value = static_cast<Int128>(t); // exact: t is an integer below 2^126
    return out;
}

// ---------------------------------------------------------------------------------------------
// Header helpers

QString fromUtf8(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

/// Header names as Python sees them: with keepBom the UTF-8 BOM stays in the first name as
/// U+FEFF (the reference opens the file as plain utf-8).
QStringList headerNames(const std::vector<std::string_view> &fields, bool keepBom)
{
    QStringList out;
    out.reserve(qsizetype(fields.size()));
    for (size_t i = 0; i < fields.size(); ++i) {
        std::string_view f = fields[i];
        if (i == 0 && f.size() >= 3 && std::memcmp(f.data(), "\xEF\xBB\xBF", 3) == 0) {
            f.remove_prefix(3);
            out << (keepBom ? QString(QChar(0xFEFF)) + fromUtf8(f) : fromUtf8(f));
        } else {
            out << fromUtf8(f);
        }
    }
    return out;
}

QString pythonRepr(const QString &s)
{
    if (s.contains(QLatin1Char('\'')) && !s.contains(QLatin1Char('"')))
        return QLatin1Char('"') + s + QLatin1Char('"');
    QString escaped = s;
    escaped.replace(QLatin1String("\\"), QLatin1String("\\\\")).replace(QLatin1String("'"), QLatin1String("\\'"));
    return QLatin1Char('\'') + escaped + QLatin1Char('\'');
}

/// A value quoted for a message: at most 60 characters, control characters made visible.
QString shown(std::string_view raw)
{
    QString s = fromUtf8(raw.substr(0, 240));
    if (s.size() > 60)
        s = s.left(57) + QStringLiteral("...");
    QString out;
    for (QChar c : s)
        out += c.unicode() < 0x20 ? QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0')) : QString(c);
    return QLatin1Char('\'') + out + QLatin1Char('\'');
}

QString describeMb(qint64 bytes)
{
    return QString::number(double(bytes) / (1 << 20), 'f', 1) + QStringLiteral(" MB");
}

// ---------------------------------------------------------------------------------------------
// Layouts

enum class Timing { EndMinusStart, StartPlusDuration, DurationOnly };

/// How the workbench reads one file, decided from its header.
struct Layout {
    bool recognised = false; ///< a header we know (kernel trace or a refused lookalike)
    bool usable = false;     ///< rows are read
    QString dialect;
    QString problem; ///< why the rows are not read
    int name = -1;
    int start = -1;
    int end = -1;
    int duration = -1;
    int agent = -1;
    Timing timing = Timing::EndMinusStart;
    bool nsys = false;
    std::vector<ColumnChoice> columns;
    QString startName, endName, durationName;
};

Layout detectLayout(const QStringList &header, const QString &fileName)
{
    Layout l;
    QSet<QString> names;
    for (const QString &h : header)
        names.insert(h.trimmed().toLower());
    auto has = [&](const char *n) { return names.contains(QLatin1String(n)); };
    const int count = int(header.size());
    auto refuse = [&](const QString &dialect, const QString &why) {
        l.recognised = true;
        l.dialect = dialect;
        l.problem = why;
        return l;
    };

    if (has("calls") && (has("totaldurationns") || has("averagens") || has("percentage")))
        return refuse(QStringLiteral("rocprof statistics file"),
                      QStringLiteral("a statistics file (Name, Calls, TotalDurationNs, ...): one row per kernel "
                                     "name with summed times, not one row per dispatch; not read as a kernel trace"));
    if (has("node_id") && (has("agent_type") || has("logical_node_id")))
        return refuse(QStringLiteral("rocprofv3 agent_info"),
                      QStringLiteral("an agent_info file (Node_Id, Agent_Type, ..., Name): one row per CPU/GPU "
                                     "agent, not kernel dispatches; not read as a kernel trace"));
    if (has("domain") && has("function"))
        return refuse(QStringLiteral("API trace"),
                      QStringLiteral("an API trace (Domain, Function, ...): host API calls, not GPU kernel "
                                     "dispatches; not read as a kernel trace"));
    if (has("domain") && has("operation"))
        return refuse(QStringLiteral("rocprofv2 async-copy/API trace"),
                      QStringLiteral("a rocprofv2 async-copy or API trace (Domain, Operation, ...), not kernel "
                                     "dispatches; not read as a kernel trace"));
    if (has("direction") || (has("source_agent_id") && has("destination_agent_id")))
        return refuse(QStringLiteral("rocprofv3 memory copy trace"),
                      QStringLiteral("a memory copy trace (Direction, Source_Agent_Id, ...), not kernel "
                                     "dispatches; not read as a kernel trace"));
    if (has("counter_name") || has("counter_value"))
        return refuse(QStringLiteral("rocprofv3 counter collection"),
                      QStringLiteral("a counter-collection file: one row per counter per dispatch, so every "
                                     "kernel would be counted once per counter; not read as a kernel trace"));
    if (has("allocation_size"))
        return refuse(QStringLiteral("rocprofv3 memory allocation trace"),
                      QStringLiteral("a memory allocation trace, not kernel dispatches; not read as a kernel trace"));

    auto choose = [&](const QString &role, const ResolvedColumn &c, const QString &unit) {
        l.columns.push_back(
            {role, c.name, QStringLiteral("exact column name '%1' of the %2 layout").arg(c.name, l.dialect), unit});
    };

    if (has("start (ns)") && has("duration (ns)") && has("name")) {
        const ResolvedColumn name = resolveExactColumn(header, {QStringLiteral("Name")});
        const ResolvedColumn start = resolveExactColumn(header, {QStringLiteral("Start (ns)")});
        const ResolvedColumn dur = resolveExactColumn(header, {QStringLiteral("Duration (ns)")});
        const ResolvedColumn agent = resolveExactColumn(header, {QStringLiteral("Device")});
        l.recognised = l.usable = true;
        l.nsys = true;
        l.dialect = QStringLiteral("nsys cuda_gpu_trace (%1 columns)").arg(count);
        l.name = name.index;
        l.start = start.index;
        l.duration = dur.index;
        l.agent = agent.index;
        l.timing = Timing::StartPlusDuration;
        l.startName = start.name;
        l.durationName = dur.name;
        choose(QStringLiteral("kernel_name"), name, QString());
        choose(QStringLiteral("start"), start, QStringLiteral("ns"));
        choose(QStringLiteral("duration"), dur, QStringLiteral("ns"));
        if (agent.found())
            choose(QStringLiteral("agent"), agent, QString());
        return l;
    }

    const ResolvedColumn name = resolveExactColumn(
        header, {QStringLiteral("Kernel_Name"), QStringLiteral("KernelName"), QStringLiteral("kernel_name")});
    if (!name.found()) {
        if (has("name"))
            return refuse(QStringLiteral("CSV with a Name column"),
                          QStringLiteral("has a Name column but no Kernel_Name/KernelName column and no kernel "
                                         "timing columns; not a kernel trace"));
        l.problem = QStringLiteral("no recognisable kernel-trace header");
        return l;
    }
    const ResolvedColumn start =
        resolveExactColumn(header, {QStringLiteral("Start_Timestamp"), QStringLiteral("BeginNs")});
    const ResolvedColumn end = resolveExactColumn(header, {QStringLiteral("End_Timestamp"), QStringLiteral("EndNs")});
    const ResolvedColumn agent =
        resolveExactColumn(header, {QStringLiteral("Agent_Id"), QStringLiteral("gpu-id"), QStringLiteral("GPU_ID")});
    const bool v3Timestamps = has("start_timestamp") && has("end_timestamp");
    const bool v1Timestamps = has("beginns") && has("endns");
    ResolvedColumn duration;

    l.recognised = true;
    if (v3Timestamps && has("kind") && has("agent_id")) {
        int expected = 0;
        if (!header.isEmpty() && header.front().trimmed().compare(QLatin1String("Guid"), Qt::CaseInsensitive) == 0) {
            l.dialect = QStringLiteral("rocprofv3 ROCm 7.x converted from rocpd (leading Guid)");
            expected = 23;
        } else if (has("lds_block_size") || has("vgpr_count")) {
            l.dialect = QStringLiteral("rocprofv3 ROCm 7.x");
            expected = 22;
        } else if (has("stream_id")) {
            l.dialect = QStringLiteral("rocprofv3 development build with Stream_Id");
            expected = 19;
        } else if (has("thread_id") || has("dispatch_id")) {
            l.dialect = QStringLiteral("rocprofv3 ROCm 6.3/6.4");
            expected = 18;
        } else {
            l.dialect = QStringLiteral("rocprofv3 ROCm 6.2");
            expected = 16;
        }
        l.dialect += count == expected
                         ? QStringLiteral(" (%1 columns)").arg(count)
                         : QStringLiteral(" (%1 columns; that release writes %2)").arg(count).arg(expected);
    } else if (v3Timestamps && has("dispatchns")) {
        l.dialect =
            QStringLiteral("rocprofiler-compute timestamps.csv (renamed rocprof columns, %1 columns)").arg(count);
    } else if (v3Timestamps && has("gpu_id")) {
        l.dialect =
            fileName.compare(QLatin1String("timestamps.csv"), Qt::CaseInsensitive) == 0
                ? QStringLiteral("rocprofiler-compute timestamps.csv (rocprofv2 columns, %1 columns)").arg(count)
                : QStringLiteral("rocprofv2 kernel trace (file plugin, %1 columns)").arg(count);
    } else if (v1Timestamps) {
        l.dialect = has("durationns")
                        ? QStringLiteral("rocprof v1 results.csv, trace mode (%1 columns)").arg(count)
                        : QStringLiteral("rocprof v1-style results (BeginNs/EndNs, %1 columns)").arg(count);
    } else if (v3Timestamps) {
        l.dialect = QStringLiteral("kernel trace with Start_Timestamp/End_Timestamp (unrecognised variant, %1 columns)")
                        .arg(count);
    } else if (has("durationns")) {
        duration = resolveExactColumn(header, {QStringLiteral("DurationNs")});
        l.dialect = QStringLiteral("rocprof v1-style results with DurationNs only (%1 columns)").arg(count);
    } else if (has("kernelname") && has("gpu-id")) {
        return refuse(QStringLiteral("rocprof v1 results.csv, counter mode (%1 columns)").arg(count),
                      QStringLiteral("a rocprof v1 counter-mode results.csv: it has KernelName but no timing "
                                     "columns (BeginNs/EndNs/DurationNs; rocprof was run without --timestamp on "
                                     "or --stats), so nothing in it is usable"));
    } else {
        return refuse(QStringLiteral("kernel names without timing (%1 columns)").arg(count),
                      QStringLiteral("has a kernel-name column (%1) but no timing columns "
                                     "(Start_Timestamp/End_Timestamp, BeginNs/EndNs or DurationNs), so nothing in "
                                     "it is usable")
                          .arg(name.name));
    }

    if (!(start.found() && end.found()) && !duration.found())
        return refuse(l.dialect, QStringLiteral("its timing columns (%1) could not be matched to a start and an end "
                                                "or a duration column; not read as a kernel trace")
                                     .arg(header.join(QStringLiteral(", ")).left(200)));
    l.usable = true;
    l.name = name.index;
    l.agent = agent.index;
    choose(QStringLiteral("kernel_name"), name, QString());
    if (start.found() && end.found()) {
        l.start = start.index;
        l.end = end.index;
        l.startName = start.name;
        l.endName = end.name;
        l.timing = Timing::EndMinusStart;
        choose(QStringLiteral("start"), start, QStringLiteral("ns"));
        choose(QStringLiteral("end"), end, QStringLiteral("ns"));
        l.columns.push_back({QStringLiteral("duration"), QString(),
                             QStringLiteral("computed as %1 - %2").arg(end.name, start.name), QStringLiteral("ns")});
    } else {
        l.duration = duration.index;
        l.durationName = duration.name;
        l.timing = Timing::DurationOnly;
        choose(QStringLiteral("duration"), duration, QStringLiteral("ns"));
    }
    if (agent.found())
        choose(QStringLiteral("agent"), agent, QString());
    return l;
}

// ---------------------------------------------------------------------------------------------
// The reader

/// The reference's column plan for trace.csv and how far it got.
struct ReferencePlan {
    bool active = false;
    bool stopped = false;
    int name = -1;
    int start = -1;
    int end = -1;
    int duration = -1;
    int agent = -1;
    enum class Event { None, FieldLimit, Overflow, BeyondInt64 };
    Event event = Event::None; ///< what stops Python's loop (BeyondInt64 never does)
    qint64 beyondLine = 0;     ///< first value Python keeps as a big integer we cannot hold
    QString beyondText;
    qint64 eventLine = 0;
    qint64 eventRecordEnd = 0; ///< byte offset after the record where the event happened
    QString eventText;
};

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

class TraceReader
{
public:
    enum class Outcome { Read, Unusable, Cancelled };

    TraceReader(KernelTrace &trace, const ProgressCallback &progress) : m_trace(trace), m_progress(progress)
    {
        m_ref.reading = &trace.reference;
        m_wb.reading = &trace.workbench;
    }

    int hostIndex(const QString &host)
    {
        qsizetype i = m_hosts.indexOf(host);
        if (i < 0) {
            m_hosts << host;
            i = m_hosts.size() - 1;
        }
        return int(i);
    }

    Outcome readFile(const QString &path, const QString &rel, int host, bool doReference, bool doWorkbench);

    /// A rocpd database in place of trace.csv: both readings.
    Outcome readDatabase(const QString &path, const QString &rel, int host)
    {
        RocpdSink sink{m_names, &m_ref, m_wb, host};
        const qint64 before = m_bytesBefore;
        ProgressCallback progress;
        if (m_progress)
            progress = [this, before](qint64 done) { return m_progress(before + done); };
        const RocpdOutcome outcome = readRocpdDatabase(path, rel, sink, m_trace, progress);
        m_bytesBefore += QFileInfo(path).size();
        return outcome == RocpdOutcome::Read        ? Outcome::Read
               : outcome == RocpdOutcome::Cancelled ? Outcome::Cancelled
                                                    : Outcome::Unusable;
    }

    void finish()
    {
        m_trace.names = m_names.take();
        m_ref.finish(m_trace.names.size(), m_hosts);
        m_wb.finish(m_trace.names.size(), m_hosts);
        if (m_wb.agents.overflow)
            m_trace.diagnostics.push_back({Severity::Warning, QString(), 0,
                                           QStringLiteral("more than %1 distinct GPU agent labels; only the first "
                                                          "%1 are counted")
                                               .arg(kMaxAgents)});
    }

private:
    void failReference(const QString &failure, qint64 line, bool crash)
    {
        KernelReading &r = m_trace.reference;
        r.readFailed = true;
        r.readFailure = failure;
        r.wouldCrash = crash;
        r.failureLine = line;
    }

    KernelTrace &m_trace;
    const ProgressCallback &m_progress;
    NamePool m_names;
    Accumulator m_ref;
    Accumulator m_wb;
    QStringList m_hosts;
    qint64 m_bytesBefore = 0;
};

TraceReader::Outcome TraceReader::readFile(const QString &path, const QString &rel, int host, bool doReference,
                                           bool doWorkbench)
{
    Diagnostics &diags = m_trace.diagnostics;
    InputFileInfo info;
    info.relativePath = rel;
    info.format = kFormat;
    const QFileInfo fileInfo(path);

    if (fileInfo.isDir()) {
        diags.push_back(
            {Severity::Error, rel, 0, QStringLiteral("is a folder, not a file: no kernel trace can be read from it")});
        if (doReference)
            failReference(QStringLiteral("[Errno 21] Is a directory: %1").arg(pythonRepr(path)), 0, false);
        info.dialect = QStringLiteral("folder");
        m_trace.files.push_back(info);
        return Outcome::Unusable;
    }
    if (const QString problem = specialFileProblem(path); !problem.isEmpty()) {
        diags.push_back({Severity::Error, rel, 0, problem});
        // The reference would block in open() or read without end here; it gets no rows.
        if (doReference)
            failReference(QStringLiteral("%1 %2").arg(pythonRepr(path), problem), 0, false);
        info.dialect = QStringLiteral("special file");
        m_trace.files.push_back(info);
        return Outcome::Unusable;
    }
    QFile file(path);
    // Unbuffered: the reader has its own chunk buffer; QIODevice's would only add a copy.
    if (!file.open(QIODevice::ReadOnly | QIODevice::Unbuffered)) {
        diags.push_back({Severity::Error, rel, 0, QStringLiteral("cannot be opened: %1").arg(file.errorString())});
        if (doReference) {
            const bool denied = file.error() == QFileDevice::OpenError && !fileInfo.isReadable();
            failReference(denied ? QStringLiteral("[Errno 13] Permission denied: %1").arg(pythonRepr(path))
                                 : QStringLiteral("[Errno 5] %1: %2").arg(file.errorString(), pythonRepr(path)),
                          0, false);
        }
        info.dialect = QStringLiteral("unreadable");
        m_trace.files.push_back(info);
        return Outcome::Unusable;
    }
    info.sizeBytes = file.size();

    CsvReader::Options options;
    options.stripUtf8Bom = false; // the reference keeps the BOM in its first header name
    options.chunkBytes = kChunkBytes;
    options.validateUtf8 = true;
    CsvReader reader(&file, options);
    std::vector<std::string_view> fields;

    auto finishBytes = [&] { m_bytesBefore += std::max<qint64>(reader.bytesConsumed(), 0); };

    if (!reader.readRecord(fields)) {
        if (!reader.errorString().isEmpty()) {
            diags.push_back({Severity::Error, rel, 0, QStringLiteral("read error: %1").arg(reader.errorString())});
            if (doReference)
                failReference(QStringLiteral("[Errno 5] Input/output error"), 0, false);
            info.dialect = QStringLiteral("unreadable");
        } else {
            diags.push_back({Severity::Warning, rel, 0, QStringLiteral("is empty: no header and no rows")});
            if (doReference)
                m_trace.referenceFileEmpty = true;
            info.dialect = QStringLiteral("empty");
        }
        m_trace.files.push_back(info);
        finishBytes();
        return Outcome::Unusable;
    }

    // ---- Reference plan: first record is the header, BOM kept, the reference's three tiers.
    ReferencePlan ref;
    if (doReference) {
        ref.active = true;
        const QStringList header = headerNames(fields, true);
        const ResolvedColumn name =
            resolveReferenceColumn(header, {QStringLiteral("KernelName"), QStringLiteral("Kernel_Name"),
                                            QStringLiteral("kernel_name"), QStringLiteral("Name")});
        const ResolvedColumn start =
            resolveReferenceColumn(header, {QStringLiteral("BeginNs"), QStringLiteral("start_ns"),
                                            QStringLiteral("BeginNS"), QStringLiteral("Start")});
        const ResolvedColumn end = resolveReferenceColumn(header, {QStringLiteral("EndNs"), QStringLiteral("end_ns"),
                                                                   QStringLiteral("EndNS"), QStringLiteral("End")});
        const ResolvedColumn duration = resolveReferenceColumn(
            header, {QStringLiteral("DurationNs"), QStringLiteral("duration_ns"), QStringLiteral("Duration")});
        ref.name = name.index;
        ref.start = start.index;
        ref.end = end.index;
        ref.duration = duration.index;
        ref.agent =
            resolveExactColumn(headerNames(fields, false), {QStringLiteral("Agent_Id"), QStringLiteral("gpu-id"),
                                                            QStringLiteral("GPU_ID"), QStringLiteral("Device")})
                .index;
        info.referenceColumns.push_back({QStringLiteral("kernel_name"), name.name, name.reason(), QString()});
        info.referenceColumns.push_back({QStringLiteral("start"), start.name, start.reason(), QStringLiteral("ns")});
        info.referenceColumns.push_back({QStringLiteral("end"), end.name, end.reason(), QStringLiteral("ns")});
        info.referenceColumns.push_back({QStringLiteral("duration"), duration.name,
                                         duration.found()
                                             ? duration.reason() + QStringLiteral("; used when the cell is not empty")
                                             : duration.reason(),
                                         QStringLiteral("ns")});
    }

    // ---- Workbench layout (BOM stripped), possibly after a few banner lines.
    QStringList wbHeader = headerNames(fields, false);
    Layout layout = detectLayout(wbHeader, fileInfo.fileName());
    qint64 wbHeaderLine = reader.recordStartLine();
    bool wbSearching = doWorkbench && !layout.recognised && fields.size() <= 1;
    int preambleLines = 0;
    const QString firstLineText = fields.empty() ? QString() : shown(fields.front());
    const bool firstRecordBinary = [&] {
        for (std::string_view f : fields)
            if (std::memchr(f.data(), '\0', f.size()))
                return true;
        return reader.firstInvalidUtf8Offset() >= 0 && reader.firstInvalidUtf8Offset() < reader.bytesConsumed();
    }();

    if (reader.exceededPythonFieldLimit() && ref.active) {
        ref.stopped = true;
        ref.event = ReferencePlan::Event::FieldLimit;
        ref.eventLine = reader.pythonFieldLimitLine();
        ref.eventRecordEnd = reader.bytesConsumed();
    }

    // ---- Workbench counters and limited diagnostics.
    DiagnosticLimiter extraFields(diags, rel, QStringLiteral("more fields than the header"));
    DiagnosticLimiter shortRows(diags, rel, QStringLiteral("fewer fields than the header"));
    DiagnosticLimiter quoteQuirk(diags, rel, QStringLiteral("an unescaped quote in a quoted field"));
    DiagnosticLimiter noName(diags, rel, QStringLiteral("no kernel name"));
    DiagnosticLimiter badNumber(diags, rel, QStringLiteral("unreadable timing values"));
    DiagnosticLimiter hugeField(diags, rel, QStringLiteral("a field over 10 MB"));
    qint64 negativeRows = 0, zeroRows = 0, memcpyRows = 0;
    qint64 repeatedHeaders = 0, repeatedHeaderLine = 0;
    qint64 floatLine = 0;
    QString floatExample;
    qint64 wbRowsRead = 0, wbSkipped = 0;
    int headerCount = int(wbHeader.size());
    int maxNeeded = std::max({layout.name, layout.start, layout.end, layout.duration});
    auto headerNameBytes = [&] {
        return layout.name >= 0 && layout.name < wbHeader.size() ? wbHeader[layout.name].toStdString() : std::string();
    };
    std::string wbHeaderName = headerNameBytes();

    // ---- Timeline: kernels with exact ns per (process, agent) and queue, when the layout has times.
    kernels::TimelineBuilder timeline(kTraceFileName, rel);
    const qint64 filePid = [&] {
        const QString base = fileInfo.fileName();
        qsizetype digits = 0;
        while (digits < base.size() && base[digits].isDigit())
            ++digits;
        return digits > 0 && digits < 16 && base.mid(digits) == QLatin1String("_kernel_trace.csv")
                   ? base.left(digits).toLongLong()
                   : qint64(-1);
    }();
    auto streamColumn = [&] {
        return resolveExactColumn(wbHeader, {QStringLiteral("Queue_Id"), QStringLiteral("Stream_Id"),
                                             QStringLiteral("queue-id")})
            .index;
    };
    int queueColumn = streamColumn();

    qint64 nextProgress = kProgressStepBytes;
    bool timelineSized = false;
    qint64 previousConsumed = reader.bytesConsumed();
    bool cancelled = false;

    // Per record: the name id is shared when both readings use the same column.
    int rowNameColumn = -1;
    std::uint32_t rowNameId = 0;
    auto nameId = [&](int column, std::string_view stripped) {
        if (column != rowNameColumn) {
            rowNameId = m_names.intern(stripped);
            rowNameColumn = column;
        }
        return rowNameId;
    };

    while (reader.readRecord(fields)) {
        const qint64 consumed = reader.bytesConsumed();
        if (consumed >= nextProgress) {
            nextProgress = consumed + kProgressStepBytes;
            if (!timelineSized && consumed > 0) { // the rows so far tell how many the file holds
                timelineSized = true;
                timeline.expectRows(qint64(double(timeline.eventCount()) * double(info.sizeBytes) / double(consumed)));
            }
            if (m_progress && !m_progress(m_bytesBefore + consumed)) {
                cancelled = true;
                break;
            }
        }
        const qint64 recordBytes = consumed - previousConsumed;
        previousConsumed = consumed;
        if (fields.empty())
            continue; // csv.DictReader skips blank lines, and so does the workbench
        rowNameColumn = -1;
        const qint64 line = reader.recordStartLine();

        // ---------------- reference: DictReader row + _row_duration_ns, exactly
        if (ref.active && !ref.stopped) {
            if (reader.exceededPythonFieldLimit()) {
                ref.stopped = true;
                ref.event = ReferencePlan::Event::FieldLimit;
                ref.eventLine = reader.pythonFieldLimitLine();
                ref.eventRecordEnd = consumed;
            } else {
                // DictReader: a header position past the row's end reads as None.
                auto cell = [&](int column) -> const std::string_view * {
                    return column >= 0 && size_t(column) < fields.size() ? &fields[size_t(column)] : nullptr;
                };
                KernelReading &r = m_trace.reference;
                const std::string_view *nameCell = cell(ref.name);
                const std::string_view name = nameCell ? pythonStrip(*nameCell) : std::string_view();
                if (name.empty()) {
                    ++r.rowsSkippedNoName;
                } else {
                    // Python ints are unbounded: compute in 128 bits, so a huge end minus a
                    // huge start still gives the right duration; only a duration (or total)
                    // beyond 64 bits cannot be followed.
                    Int128 duration = 0;
                    bool unreadable = false;
                    bool beyondRow = false;
                    auto event = [&](ReferencePlan::Event e, std::string_view text) {
                        if (e == ReferencePlan::Event::BeyondInt64) {
                            // Python goes on with its big integer; a later crash or csv.Error
                            // still decides the outcome, so keep reading.
                            beyondRow = true;
                            if (ref.beyondLine == 0) {
                                ref.beyondLine = line;
                                ref.beyondText = shown(text);
                            }
                            return;
                        }
                        ref.stopped = true;
                        ref.event = e;
                        ref.eventLine = line;
                        ref.eventRecordEnd = consumed;
                        ref.eventText = shown(text);
                    };
                    // int(float(text)): false when the reference stops (OverflowError on inf).
                    auto convert = [&](std::string_view text, PyInt &out) {
                        out = pythonInt128(text);
                        if (out.status == PyInt::Status::Infinite) {
                            event(ReferencePlan::Event::Overflow, text);
                            return false;
                        }
                        if (out.status == PyInt::Status::Huge) {
                            event(ReferencePlan::Event::BeyondInt64, text);
                            return false;
                        }
                        return true;
                    };
                    const std::string_view *durCell = cell(ref.duration);
                    const std::string_view *startCell = cell(ref.start);
                    const std::string_view *endCell = cell(ref.end);
                    if (durCell && !durCell->empty()) {
                        PyInt v;
                        if (convert(*durCell, v)) {
                            if (v.status == PyInt::Status::Ok)
                                duration = v.value;
                            else
                                unreadable = true;
                        }
                    } else if (startCell && endCell && !startCell->empty() && !endCell->empty()) {
                        // int(float(end)) - int(float(start)): end is converted first.
                        PyInt endValue, startValue;
                        if (convert(*endCell, endValue)) {
                            if (endValue.status != PyInt::Status::Ok) {
                                unreadable = true;
                            } else if (convert(*startCell, startValue)) {
                                if (startValue.status != PyInt::Status::Ok)
                                    unreadable = true;
                                else if (__builtin_sub_overflow(endValue.value, startValue.value, &duration))
                                    event(ReferencePlan::Event::BeyondInt64, *endCell);
                            }
                        }
                    }
                    if (!ref.stopped && !beyondRow && !unreadable && duration > 0 &&
                        (duration > LLONG_MAX || r.totalNs > LLONG_MAX - qint64(duration)))
                        event(ReferencePlan::Event::BeyondInt64, durCell && !durCell->empty() ? *durCell : *endCell);
                    // A row Python keeps with a big integer cannot be represented; the reading
                    // fails at the end unless a crash or csv.Error comes first.
                    if (!ref.stopped && !beyondRow) {
                        if (unreadable) {
                            ++r.rowsSkippedUnreadable;
                        } else if (duration <= 0) {
                            ++r.rowsSkippedNonPositive;
                        } else {
                            m_ref.use(nameId(ref.name, name), qint64(duration));
                            if (startCell && endCell) {
                                const std::optional<long long> startValue = pythonIntOfFloat(*startCell);
                                const std::optional<long long> endValue = pythonIntOfFloat(*endCell);
                                if (startValue && endValue)
                                    m_ref.span(*startValue, *endValue);
                            }
                            if (const std::string_view *agentCell = cell(ref.agent))
                                m_ref.agents.add(host, pythonStrip(*agentCell));
                        }
                    }
                }
            }
        }

        // ---------------- workbench
        if (!doWorkbench)
            continue;
        if (wbSearching) {
            const QStringList candidate = headerNames(fields, false);
            Layout l = detectLayout(candidate, fileInfo.fileName());
            if (l.recognised) {
                layout = std::move(l);
                wbHeader = candidate;
                wbHeaderLine = line;
                wbSearching = false;
                headerCount = int(wbHeader.size());
                wbHeaderName = headerNameBytes();
                queueColumn = streamColumn();
                maxNeeded = std::max({layout.name, layout.start, layout.end, layout.duration});
                diags.push_back({Severity::Info, rel, line,
                                 QStringLiteral("the header starts at line %1; the %2 line(s) before it (banner text "
                                                "or blank) were skipped")
                                     .arg(line)
                                     .arg(line - 1)});
            } else if (fields.size() > 1 || ++preambleLines >= kMaxPreambleLines) {
                wbSearching = false;
            }
            continue;
        }
        if (!layout.usable)
            continue;
        ++wbRowsRead;
        if (recordBytes > kHugeFieldBytes) {
            for (size_t i = 0; i < fields.size(); ++i)
                if (qint64(fields[i].size()) > kHugeFieldBytes) {
                    hugeField.add(line, QStringLiteral("field %1 (%2) is %3 long")
                                            .arg(i + 1)
                                            .arg(i < size_t(wbHeader.size()) ? wbHeader[qsizetype(i)]
                                                                             : QStringLiteral("past the header"),
                                                 describeMb(qint64(fields[i].size()))));
                    break;
                }
        }
        const int fieldCount = int(fields.size());
        if (reader.lastRecordQuoteQuirkField() >= 0) {
            const int f = reader.lastRecordQuoteQuirkField();
            quoteQuirk.add(line, QStringLiteral("field %1 (%2) has text after its closing quote: an embedded '\"' was "
                                                "not escaped (rocprofv3 writes names that way); read as Python's csv "
                                                "module reads it")
                                     .arg(f + 1)
                                     .arg(f < wbHeader.size() ? wbHeader[f] : QStringLiteral("past the header")));
        }
        if (fieldCount > headerCount) {
            extraFields.add(line, QStringLiteral("row has %1 fields, the header %2: an unescaped quote or comma in a "
                                                 "kernel name shifts the columns after it; row skipped")
                                      .arg(fieldCount)
                                      .arg(headerCount));
            ++wbSkipped;
            continue;
        }
        if (fieldCount < headerCount) {
            if (maxNeeded >= fieldCount) {
                shortRows.add(line, QStringLiteral("row has %1 fields, the header %2; the row ends before the columns "
                                                   "it needs; row skipped")
                                        .arg(fieldCount)
                                        .arg(headerCount));
                ++wbSkipped;
                ++m_trace.workbench.rowsSkippedUnreadable;
                continue;
            }
            shortRows.add(line, QStringLiteral("row has %1 fields, the header %2; the missing trailing fields are not "
                                               "needed, row read")
                                    .arg(fieldCount)
                                    .arg(headerCount));
        }
        KernelReading &w = m_trace.workbench;
        const std::string_view name = pythonStrip(fields[size_t(layout.name)]);
        if (name.empty()) {
            noName.add(line, QStringLiteral("empty kernel name; row skipped"));
            ++w.rowsSkippedNoName;
            ++wbSkipped;
            continue;
        }
        if (layout.nsys && (name.substr(0, 12) == "[CUDA memcpy" || name.substr(0, 12) == "[CUDA memset")) {
            ++memcpyRows;
            ++wbSkipped;
            continue;
        }
        if (fieldCount == headerCount && fields[size_t(layout.name)] == wbHeaderName) {
            // Concatenated per-process files leave their header lines mid-file.
            bool same = true;
            for (int i = 0; i < fieldCount && same; ++i)
                same = fromUtf8(fields[size_t(i)]) == wbHeader[i];
            if (same) {
                if (repeatedHeaderLine == 0)
                    repeatedHeaderLine = line;
                ++repeatedHeaders;
                ++wbSkipped;
                continue;
            }
        }
        qint64 startNs = 0, endNs = 0, durationNs = 0;
        bool haveSpan = false;
        auto number = [&](int column, const QString &columnName, qint64 &out) {
            const WorkbenchNumber n = workbenchNumber(fields[size_t(column)]);
            if (!n.ok) {
                badNumber.add(line, QStringLiteral("%1 %2; row skipped").arg(columnName, n.problem));
                return false;
            }
            if (n.fromFloat && floatLine == 0) {
                floatLine = line;
                floatExample = shown(fields[size_t(column)]);
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
                    badNumber.add(
                        line,
                        QStringLiteral("%1 - %2 is out of range; row skipped").arg(layout.endName, layout.startName));
                    ok = false;
                } else {
                    durationNs = qint64(d);
                    haveSpan = true;
                }
            }
            break;
        case Timing::StartPlusDuration:
            ok = number(layout.start, layout.startName, startNs) &&
                 number(layout.duration, layout.durationName, durationNs);
            if (ok) {
                long long e = 0;
                if (__builtin_add_overflow(startNs, durationNs, &e)) {
                    badNumber.add(line, QStringLiteral("%1 + %2 is out of range; row skipped")
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
            ++wbSkipped;
            continue;
        }
        if (haveSpan && durationNs >= 0) {
            const qint64 device = layout.agent >= 0 && layout.agent < fieldCount
                                      ? kernels::agentNumber(pythonStrip(fields[size_t(layout.agent)]))
                                      : 0;
            qint64 queue = 0;
            if (queueColumn >= 0 && queueColumn < fieldCount) {
                const std::string_view q = pythonStrip(fields[size_t(queueColumn)]);
                std::from_chars(q.data(), q.data() + q.size(), queue);
            }
            timeline.addKernel(nameId(layout.name, name), name, filePid, device, queue, startNs, endNs);
        }
        if (durationNs <= 0) {
            ++(durationNs < 0 ? negativeRows : zeroRows);
            ++w.rowsSkippedNonPositive;
            ++wbSkipped;
            continue;
        }
        // No single kernel runs for a day: such a duration is a clock mix-up or a corrupt row, and
        // summing a few of them would overflow the per-run totals.
        constexpr qint64 kMaxPlausibleKernelNs = 86'400'000'000'000;
        if (durationNs > kMaxPlausibleKernelNs) {
            badNumber.add(line, QStringLiteral("a kernel duration of %1 s is implausible (over a day); row skipped")
                                    .arg(double(durationNs) / 1e9, 0, 'g', 3));
            ++w.rowsSkippedUnreadable;
            ++wbSkipped;
            continue;
        }
        m_wb.use(nameId(layout.name, name), durationNs);
        if (haveSpan)
            m_wb.span(startNs, endNs);
        if (layout.agent >= 0 && layout.agent < fieldCount)
            m_wb.agents.add(host, pythonStrip(fields[size_t(layout.agent)]));
    }

    // ---------------- after the last record
    if (!reader.errorString().isEmpty())
        diags.push_back({Severity::Error, rel, reader.recordEndLine(),
                         QStringLiteral("read error after line %1: %2; the rest of the file is not read")
                             .arg(reader.recordEndLine())
                             .arg(reader.errorString())});
    if (reader.hadTruncatedField())
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("a field or row is longer than the reader keeps in memory (%1 per field); "
                                        "its end was dropped")
                             .arg(describeMb(options.maxFieldBytes))});

    // Reference: which of Python's failures comes first.
    if (ref.active && !cancelled) {
        const qint64 badUtf8 = reader.firstInvalidUtf8Offset();
        bool decodeFirst = badUtf8 >= 0;
        if (decodeFirst && ref.event != ReferencePlan::Event::None) {
            const qint64 decodedUpTo =
                (ref.eventRecordEnd + kPythonDecodeChunk - 1) / kPythonDecodeChunk * kPythonDecodeChunk;
            decodeFirst = badUtf8 < decodedUpTo;
        }
        if (decodeFirst) {
            const qint64 l = reader.firstInvalidUtf8Line();
            failReference(QStringLiteral("the reference would crash here: bytes at line %1 are not valid UTF-8 "
                                         "(UnicodeDecodeError, which it does not catch)")
                              .arg(l),
                          l, true);
        } else if (ref.event == ReferencePlan::Event::FieldLimit) {
            failReference(QStringLiteral("field larger than field limit (131072)"), ref.eventLine, false);
            diags.push_back({Severity::Warning, rel, ref.eventLine,
                             QStringLiteral("a field longer than 131072 characters: Python's csv module stops here "
                                            "(field larger than field limit (131072)), so the reference reads no "
                                            "kernels from this file")});
        } else if (ref.event == ReferencePlan::Event::Overflow) {
            failReference(QStringLiteral("the reference would crash here: cannot convert float infinity to integer "
                                         "(OverflowError at line %1, value %2, which it does not catch)")
                              .arg(ref.eventLine)
                              .arg(ref.eventText),
                          ref.eventLine, true);
            diags.push_back({Severity::Warning, rel, ref.eventLine,
                             QStringLiteral("timing value %1 is infinite: the reference would stop with OverflowError "
                                            "here")
                                 .arg(ref.eventText)});
        } else if (ref.beyondLine > 0) {
            failReference(QStringLiteral("a duration at line %1 (from %2) or the running total is beyond the 64-bit "
                                         "range; the reference's arithmetic on it cannot be reproduced")
                              .arg(ref.beyondLine)
                              .arg(ref.beyondText),
                          ref.beyondLine, false);
        }
        if (m_trace.reference.readFailed)
            m_ref.clearStats();
    }

    // Workbench summary diagnostics.
    if (doWorkbench && !cancelled) {
        if (reader.firstInvalidUtf8Offset() >= 0 && !(firstRecordBinary && !layout.recognised)) {
            diags.push_back({Severity::Warning, rel, reader.firstInvalidUtf8Line(),
                             QStringLiteral("bytes that are not valid UTF-8 (first at line %1): the reference would "
                                            "crash on this file (UnicodeDecodeError); the workbench reads on and shows "
                                            "such bytes as replacement characters")
                                 .arg(reader.firstInvalidUtf8Line())});
        }
        if (!layout.recognised) {
            diags.push_back(
                {Severity::Error, rel, wbHeaderLine,
                 firstRecordBinary
                     ? QStringLiteral("does not look like a CSV file (binary or non-UTF-8 bytes in the first "
                                      "line); no kernel trace read")
                     : QStringLiteral("no recognisable kernel-trace header (first line %1); no kernel trace "
                                      "read")
                           .arg(firstLineText)});
        } else if (!layout.usable) {
            diags.push_back(
                {Severity::Warning, rel, wbHeaderLine, QStringLiteral("%1 (%2)").arg(layout.problem, layout.dialect)});
        } else if (wbRowsRead == 0) {
            diags.push_back({Severity::Warning, rel, wbHeaderLine,
                             QStringLiteral("has a header (%1) but no data rows").arg(layout.dialect)});
        }
        extraFields.flush();
        shortRows.flush();
        quoteQuirk.flush();
        noName.flush();
        badNumber.flush();
        hugeField.flush();
        if (repeatedHeaders > 0)
            diags.push_back({Severity::Warning, rel, repeatedHeaderLine,
                             QStringLiteral("%1 repeated header line(s), first at line %2 (several traces "
                                            "concatenated into one file?); skipped")
                                 .arg(repeatedHeaders)
                                 .arg(repeatedHeaderLine)});
        if (memcpyRows > 0)
            diags.push_back(
                {Severity::Info, rel, 0,
                 QStringLiteral("%1 memory copy/set rows ([CUDA memcpy ...], [CUDA memset]) are not kernels "
                                "and were skipped")
                     .arg(memcpyRows)});
        if (floatLine > 0)
            diags.push_back({Severity::Warning, rel, floatLine,
                             QStringLiteral("timestamps are written in floating-point notation (%1 at line %2), as "
                                            "after a spreadsheet round-trip: only a few significant digits survive, "
                                            "so durations computed from them are unreliable")
                                 .arg(floatExample)
                                 .arg(floatLine)});
        if (negativeRows > 0) {
            const QString what = layout.timing == Timing::EndMinusStart
                                     ? QStringLiteral("%1 before %2").arg(layout.endName, layout.startName)
                                     : QStringLiteral("a negative %1").arg(layout.durationName);
            diags.push_back({Severity::Warning, rel, 0,
                             QStringLiteral("%1 rows with %2 were skipped").arg(negativeRows).arg(what)});
        }
        if (zeroRows > 0)
            diags.push_back(
                {Severity::Warning, rel, 0, QStringLiteral("%1 rows with zero duration were skipped").arg(zeroRows)});
        info.dialect = layout.recognised ? layout.dialect : QStringLiteral("unrecognised");
        info.workbenchColumns = layout.columns;
        info.rowsRead = wbRowsRead;
        info.rowsSkipped = wbSkipped;
    } else if (!doWorkbench) {
        info.dialect = layout.recognised ? layout.dialect : QStringLiteral("unrecognised");
    }
    m_trace.files.push_back(info);
    if (!cancelled && timeline.eventCount() > 0)
        m_trace.timeline.files.push_back(timeline.take());
    if (timeline.streamOverflow())
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("more than 65535 queues on one agent: the last ones share one timeline lane")});
    finishBytes();
    if (cancelled)
        return Outcome::Cancelled;
    return layout.usable ? Outcome::Read : Outcome::Unusable;
}

// ---------------------------------------------------------------------------------------------
// Folder scan

/// `*_kernel_trace.csv` in the run folder and its direct sub-folders, relative paths, sorted.
QStringList perProcessTraces(const QDir &dir)
{
    return runFolderFiles(dir, {QStringLiteral("*_kernel_trace.csv")});
}

/// Other files that hold kernel data the workbench does not pick up by itself.
QString otherCandidates(const QDir &dir)
{
    QStringList csvs, dbs;
    const QStringList csvFilter{QStringLiteral("results.csv"), QStringLiteral("results_*.csv"),
                                QStringLiteral("timestamps.csv"), QStringLiteral("*cuda_gpu_trace*.csv")};
    auto scan = [&](const QDir &d, const QString &prefix) {
        for (const QFileInfo &fi : d.entryInfoList(csvFilter, QDir::Files, QDir::Name))
            csvs << prefix + fi.fileName();
        for (const QFileInfo &fi :
             d.entryInfoList({QStringLiteral("*_results.db"), QStringLiteral("*.rpd")}, QDir::Files, QDir::Name))
            dbs << prefix + fi.fileName();
    };
    scan(dir, QString());
    for (const QFileInfo &sub : dir.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
        scan(QDir(sub.absoluteFilePath()), sub.fileName() + QLatin1Char('/'));
    QString hint;
    if (!dbs.isEmpty())
        hint += QStringLiteral("; found %1, but no readable rocpd database among them (see their diagnostics; "
                               "rocpd2csv converts one that SQLite can read)")
                    .arg(dbs.mid(0, 3).join(QStringLiteral(", ")));
    if (!csvs.isEmpty())
        hint += QStringLiteral("; found %1: copy the kernel trace to trace.csv to read it")
                    .arg(csvs.mid(0, 3).join(QStringLiteral(", ")));
    return hint;
}

} // namespace

KernelTrace parseKernelTraces(const QString &runDir, const ProgressCallback &progress)
{
    KernelTrace trace;
    const QDir dir(runDir);
    const QString tracePath = dir.filePath(kTraceFileName);
    // Python's Path.exists() follows symlinks, as QFileInfo::exists() does.
    trace.referenceFileFound = QFileInfo::exists(tracePath);
    TraceReader reader(trace, progress);
    const QStringList perProcess = perProcessTraces(dir);
    const QStringList databases = rocpd::databaseCandidates(dir);
    auto listFiles = [](const QStringList &files) {
        QStringList shownFiles = files.mid(0, 4);
        if (files.size() > 4)
            shownFiles << QStringLiteral("...");
        return shownFiles.join(QStringLiteral(", "));
    };
    auto listed = [&] { return listFiles(perProcess); };

    bool workbenchDone = false;
    if (trace.referenceFileFound) {
        const auto outcome = reader.readFile(tracePath, kTraceFileName, reader.hostIndex(QString()), true, true);
        if (outcome == TraceReader::Outcome::Cancelled) {
            trace.cancelled = true;
            return trace;
        }
        workbenchDone = outcome == TraceReader::Outcome::Read;
        if (!workbenchDone && !perProcess.isEmpty())
            trace.diagnostics.push_back(
                {Severity::Info, kTraceFileName, 0,
                 QStringLiteral("trace.csv holds no kernel trace the workbench can read; it reads the %1 per-process "
                                "trace file(s) rocprofv3 wrote instead (%2)")
                     .arg(perProcess.size())
                     .arg(listed())});
        else if (!perProcess.isEmpty())
            trace.diagnostics.push_back(
                {Severity::Info, kTraceFileName, 0,
                 QStringLiteral("%1 per-process trace file(s) (%2) are also present; both profiles read trace.csv only")
                     .arg(perProcess.size())
                     .arg(listed())});
    } else if (perProcess.isEmpty()) {
        if (!databases.isEmpty()) {
            // rocprofv3's default output (ROCm 7): read as the trace.csv rocpd2csv would make.
            int read = 0;
            for (const QString &rel : databases) {
                const qsizetype slash = rel.lastIndexOf(QLatin1Char('/'));
                const int host = reader.hostIndex(slash < 0 ? QString() : rel.left(slash));
                const auto outcome = reader.readDatabase(dir.filePath(rel), rel, host);
                if (outcome == TraceReader::Outcome::Cancelled) {
                    trace.cancelled = true;
                    return trace;
                }
                read += outcome == TraceReader::Outcome::Read;
            }
            if (read > 0) {
                trace.referenceFileFound = true;
                trace.diagnostics.push_back(
                    {Severity::Info, kTraceFileName, 0,
                     QStringLiteral("not found; both profiles read the kernels of %1 rocpd database(s) (%2) as the "
                                    "trace.csv rocpd2csv would make of them")
                         .arg(read)
                         .arg(listFiles(databases))});
                reader.finish();
                return trace;
            }
        }
        trace.diagnostics.push_back(
            {Severity::Warning, kTraceFileName, 0,
             QStringLiteral("not found, and no rocprofv3 *_kernel_trace.csv in the folder or its sub-folders: no "
                            "kernel data%1")
                 .arg(otherCandidates(dir))});
    } else {
        trace.diagnostics.push_back(
            {Severity::Info, kTraceFileName, 0,
             QStringLiteral("not found (the reference reads no kernels); the workbench reads the %1 per-process trace "
                            "file(s) rocprofv3 wrote instead (%2)")
                 .arg(perProcess.size())
                 .arg(listed())});
    }

    if (trace.referenceFileFound || !perProcess.isEmpty()) {
        if (!databases.isEmpty())
            trace.diagnostics.push_back(
                {Severity::Info, databases.front(), 0,
                 QStringLiteral("%1 database file(s) (%2) are also present and not read: the CSV kernel trace is")
                     .arg(databases.size())
                     .arg(listFiles(databases))});
    }

    if (!workbenchDone) {
        for (const QString &rel : perProcess) {
            const qsizetype slash = rel.lastIndexOf(QLatin1Char('/'));
            const QString host = slash < 0 ? QString() : rel.left(slash);
            const auto outcome = reader.readFile(dir.filePath(rel), rel, reader.hostIndex(host), false, true);
            if (outcome == TraceReader::Outcome::Cancelled) {
                trace.cancelled = true;
                return trace;
            }
        }
    }
    reader.finish();
    return trace;
}

KernelTrace parseKernelTraceFile(const QString &path, const QString &displayName, const ProgressCallback &progress)
{
    KernelTrace trace;
    trace.referenceFileFound = QFileInfo::exists(path);
    TraceReader reader(trace, progress);
    if (!trace.referenceFileFound) {
        trace.diagnostics.push_back({Severity::Warning, displayName, 0, QStringLiteral("not found")});
    } else if (reader.readFile(path, displayName, reader.hostIndex(QString()), true, true) ==
               TraceReader::Outcome::Cancelled) {
        trace.cancelled = true;
        return trace;
    }
    reader.finish();
    return trace;
}

} // namespace goblin
