#include "kerneltraceparser.h"

#include "formats/registry.h"
#include "io/inflatedcopy.h"
#include "io/regularfile.h"
#include "io/runinventory.h"

#include "syntax/csvreader.h"
#include "kernels/accumulator.h"
#include "kernels/celltext.h"
#include "kernels/namepool.h"
#include "reference/kernelrows.h"
#include "reference/openfailures.h"
#include "workbench/kernelrows.h"
#include "rocpdreader.h"
#include "torchtraceparser.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>

namespace goblin
{

namespace
{

using kernels::Accumulator;
using kernels::kMaxAgents;
using kernels::NamePool;

const QString kTraceFileName = kKernelTraceFileName;  // io/runinventory.h
const QString kFormat = QStringLiteral("kernel-trace-csv");
/// 1 MB keeps a chunk in L2 while it is validated, parsed and hashed.
constexpr qint64 kChunkBytes = 1 << 20;

/// Reads kernel traces into one name pool and the two readings' accumulators: CSV files (from
/// a path or from memory) and rocpd databases.
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
    /// The same from bytes in memory; `rel` names them (its file name part as the file's name).
    Outcome readBytes(QByteArrayView bytes, const QString &rel, int host)
    {
        InputFileInfo info;
        info.relativePath = rel;
        info.format = kFormat;
        info.sizeBytes = bytes.size();
        CsvReader reader(bytes, csvOptions());
        return readCsv(reader, info, QFileInfo(rel).fileName(), host, true, true);
    }

    /// A kernel file read by the reader its format names (formats/registry.h): a database in
    /// place of trace.csv (rocpd: both readings; rpd, nsys: the workbench only), a rocprofv3 JSON
    /// or a Perfetto trace (the workbench only). A gzipped database is inflated first (the
    /// container step) and the registry names the format of what it holds. `format` says which
    /// format read it (null: none could).
    Outcome readKernelFile(const InputRow &row, const QString &givenPath, int host, const InputFormat *&format)
    {
        const QString &rel = row.relativePath;
        const qint64 before = m_bytesBefore;
        ProgressCallback progress;
        if (m_progress)
            progress = [this, before](qint64 done) { return m_progress(before + done); };
        format = row.format;
        QString formatNote = row.formatNote;
        QString path = givenPath;
        io::InflatedCopy inflated;
        if (format->container) {
            const io::InflatedCopy::Outcome step = inflated.inflate(givenPath, progress);
            if (step == io::InflatedCopy::Outcome::Cancelled)
                return Outcome::Cancelled;
            if (step == io::InflatedCopy::Outcome::Failed) {
                m_trace.diagnostics.push_back(
                    {Severity::Warning, rel, 0,
                     QStringLiteral("is gzip-compressed and could not be inflated (%1); no kernels read from it")
                         .arg(inflated.problem())});
                m_bytesBefore += QFileInfo(givenPath).size();
                format = nullptr;
                return Outcome::Unusable;
            }
            path = inflated.path();
            const FileHead inner = FileHead::read(path, QFileInfo(path), true);
            format = guessInnerFormat(row.role, QFileInfo(rel).fileName(), inner);
            formatNote = inner.tables ? inner.tables->note : QString();
        }
        KernelSink sink{m_names, format->referenceReads ? &m_ref : nullptr, m_wb, host, keepHostLanes()};
        const size_t cutMark = m_names.cutMark();
        const ReadOutcome outcome = format->readKernels(path, rel, sink, m_trace, progress);
        // The database readers say their cut names with their other cut texts; the files here.
        if (format->role != InputRole::RocpdDatabase)
            if (const QString cut = m_names.cutsSince(cutMark).message(); !cut.isEmpty())
                m_trace.diagnostics.push_back({Severity::Warning, rel, 0, cut});
        if (!formatNote.isEmpty())
            m_trace.diagnostics.push_back(
                {Severity::Warning, rel, 0,
                 QStringLiteral("has rocmProfileData's tables but not the columns the rpd reader needs (%1); not "
                                "read as rpd either")
                     .arg(formatNote)});
        if (path != givenPath)  // the listing describes the file in the folder, not its inflated copy
            for (InputFileInfo &info : m_trace.files)
                if (info.relativePath == rel) {
                    info.compressed = true;
                    info.sizeBytes = QFileInfo(givenPath).size();
                }
        m_bytesBefore += QFileInfo(givenPath).size();
        return outcome == ReadOutcome::Read        ? Outcome::Read
               : outcome == ReadOutcome::Cancelled ? Outcome::Cancelled
                                                    : Outcome::Unusable;
    }

    /// Keep the CSV kernels' Correlation_Id for the Timeline's flows (the window's reading of a
    /// folder with API traces beside the kernel trace: nothing else joins them).
    void keepCorrelations(bool keep) { m_keepCorrelations = keep; }

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
    static CsvReader::Options csvOptions()
    {
        CsvReader::Options options;
        options.stripUtf8Bom = false; // the reference keeps the BOM in its first header name
        options.chunkBytes = kChunkBytes;
        options.validateUtf8 = true;
        return options;
    }

    /// One pass over the records, each fed to the readings this file is read by.
    Outcome readCsv(CsvReader &reader, InputFileInfo &info, const QString &fileName, int host, bool doReference,
                    bool doWorkbench);

    KernelTrace &m_trace;
    const ProgressCallback &m_progress;
    NamePool m_names;
    Accumulator m_ref;
    Accumulator m_wb;
    QStringList m_hosts;
    qint64 m_bytesBefore = 0;
    bool m_keepCorrelations = false;
};

TraceReader::Outcome TraceReader::readFile(const QString &path, const QString &rel, int host, bool doReference,
                                           bool doWorkbench)
{
    Diagnostics &diags = m_trace.diagnostics;
    InputFileInfo info;
    info.relativePath = rel;
    info.format = kFormat;
    const QFileInfo fileInfo(path);
    auto failReference = [&](const QString &failure) {
        if (doReference)
            reference::failKernelReading(m_trace.reference, failure, 0, false);
    };

    if (fileInfo.isDir()) {
        diags.push_back(
            {Severity::Error, rel, 0, QStringLiteral("is a folder, not a file: no kernel trace can be read from it")});
        failReference(reference::kernelOpenFailure(path, true, QString(), nullptr));
        info.dialect = QStringLiteral("folder");
        m_trace.files.push_back(info);
        return Outcome::Unusable;
    }
    if (const QString problem = specialFileProblem(path); !problem.isEmpty()) {
        diags.push_back({Severity::Error, rel, 0, problem});
        // The reference would block in open() or read without end here; it gets no rows.
        failReference(reference::kernelOpenFailure(path, false, problem, nullptr));
        info.dialect = QStringLiteral("special file");
        m_trace.files.push_back(info);
        return Outcome::Unusable;
    }
    QFile file(path);
    // Unbuffered: the reader has its own chunk buffer; QIODevice's would only add a copy.
    if (!file.open(QIODevice::ReadOnly | QIODevice::Unbuffered)) {
        diags.push_back({Severity::Error, rel, 0, QStringLiteral("cannot be opened: %1").arg(file.errorString())});
        failReference(reference::kernelOpenFailure(path, false, QString(), &file));
        info.dialect = QStringLiteral("unreadable");
        m_trace.files.push_back(info);
        return Outcome::Unusable;
    }
    info.sizeBytes = file.size();
    CsvReader reader(&file, csvOptions());
    return readCsv(reader, info, fileInfo.fileName(), host, doReference, doWorkbench);
}

TraceReader::Outcome TraceReader::readCsv(CsvReader &reader, InputFileInfo &info, const QString &fileName, int host,
                                          bool doReference, bool doWorkbench)
{
    Diagnostics &diags = m_trace.diagnostics;
    const QString rel = info.relativePath;
    std::vector<std::string_view> fields;
    auto finishBytes = [&] { m_bytesBefore += std::max<qint64>(reader.bytesConsumed(), 0); };

    if (!reader.readRecord(fields)) {
        if (!reader.errorString().isEmpty()) {
            diags.push_back({Severity::Error, rel, 0, QStringLiteral("read error: %1").arg(reader.errorString())});
            if (doReference)
                reference::failKernelReading(m_trace.reference, QStringLiteral("[Errno 5] Input/output error"), 0,
                                             false);
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

    // Per record, the name id is shared when both readings use the same column.
    kernels::RowNameIds nameIds{m_names};
    const size_t cutMark = m_names.cutMark();
    reference::KernelRows ref(m_ref, nameIds, host);
    workbench::KernelRows wb(m_trace, m_wb, nameIds, host, rel, fileName);
    wb.keepCorrelations(m_keepCorrelations);
    if (doReference)
        ref.onHeader(fields, reader, info); // the first record is the header, BOM kept
    wb.onHeader(fields, reader, doWorkbench); // BOM stripped, perhaps after a few banner lines

    ProgressThrottle throttle(&m_progress, kProgressStepBytes, m_bytesBefore);
    qint64 previousConsumed = reader.bytesConsumed();
    bool cancelled = false;
    while (reader.readRecord(fields)) {
        const qint64 consumed = reader.bytesConsumed();
        if (throttle.due(m_bytesBefore + consumed)) {
            wb.onProgress(consumed, info.sizeBytes);
            if (!throttle.report(m_bytesBefore + consumed, true)) {
                cancelled = true;
                break;
            }
        }
        const qint64 recordBytes = consumed - previousConsumed;
        previousConsumed = consumed;
        if (fields.empty())
            continue; // csv.DictReader skips blank lines, and so does the workbench
        nameIds.reset();
        const qint64 line = reader.recordStartLine();
        if (doReference)
            ref.onRecord(fields, reader, line, consumed);
        if (doWorkbench)
            wb.onRecord(fields, reader, line, recordBytes);
    }

    if (!reader.errorString().isEmpty())
        diags.push_back({Severity::Error, rel, reader.recordEndLine(),
                         QStringLiteral("read error after line %1: %2; the rest of the file is not read")
                             .arg(reader.recordEndLine())
                             .arg(reader.errorString())});
    if (reader.hadTruncatedField())
        diags.push_back({Severity::Warning, rel, 0,
                         QStringLiteral("a field or row is longer than the reader keeps in memory (%1 per field); "
                                        "its end was dropped")
                             .arg(kernels::describeMb(csvOptions().maxFieldBytes))});
    if (const QString cut = m_names.cutsSince(cutMark).message(); !cut.isEmpty())
        diags.push_back({Severity::Warning, rel, 0, cut});
    if (doReference && !cancelled)
        ref.finish(reader, rel, diags); // which of Python's failures comes first
    if (doWorkbench && !cancelled)
        wb.finish(reader, info);
    else if (!doWorkbench)
        wb.noteDialect(info);
    m_trace.files.push_back(info);
    wb.finishTimeline(cancelled);
    finishBytes();
    if (cancelled)
        return Outcome::Cancelled;
    return wb.usable() ? Outcome::Read : Outcome::Unusable;
}

// ---------------------------------------------------------------------------------------------
// The files of a run inventory

QStringList pathsOf(const std::vector<const InputRow *> &rows)
{
    QStringList out;
    for (const InputRow *row : rows)
        out << row->relativePath;
    return out;
}

/// Other files that hold kernel data the workbench does not pick up by itself.
QString otherCandidates(const RunInventory &inventory)
{
    const QStringList csvs = pathsOf(inventory.kernelLookAlikes());
    QStringList dbs;
    for (const InputRow *row : inventory.databases())
        if (row->relativePath.endsWith(QLatin1String("_results.db"))
            || row->relativePath.endsWith(QLatin1String(".rpd")))
            dbs << row->relativePath;
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
    return parseKernelTraces(RunInventory::scanFolder(runDir), progress);
}

namespace {

/// The kernel sources of one inventory, read in phases: trace.csv (both readings), else the
/// databases, else rocprofv3 JSON and pftrace files, else the per-process CSVs; each phase says in
/// a diagnostic what it read instead of what.
class KernelSources
{
public:
    enum class Next { Continue, Done, Cancelled };

    KernelSources(const RunInventory &inventory, KernelTrace &trace, TraceReader &reader)
        : m_inventory(inventory), m_dir(inventory.folder()), m_trace(trace), m_reader(reader),
          m_perProcess(pathsOf(inventory.processKernelTraces())), m_databases(pathsOf(inventory.databases())),
          m_whatRead(inventory.wholeFolder() ? QStringLiteral("per-process trace file(s) rocprofv3 wrote")
                                             : QStringLiteral("kernel trace file(s) opened"))
    {
    }

    /// trace.csv, read by both profiles; true in `workbenchDone` when the workbench found its kernels there.
    Next readReferenceCsv(bool &workbenchDone)
    {
        const auto outcome = m_reader.readFile(m_dir.filePath(kTraceFileName), kTraceFileName,
                                               m_reader.hostIndex(QString()), true, true);
        if (outcome == TraceReader::Outcome::Cancelled)
            return Next::Cancelled;
        workbenchDone = outcome == TraceReader::Outcome::Read;
        if (!workbenchDone && !m_perProcess.isEmpty())
            note(QStringLiteral("trace.csv holds no kernel trace the workbench can read; it reads the %1 %2 instead "
                                "(%3)")
                     .arg(m_perProcess.size())
                     .arg(m_whatRead, listFiles(m_perProcess)));
        else if (!m_perProcess.isEmpty())
            note(QStringLiteral("%1 per-process trace file(s) (%2) are also present; both profiles read trace.csv only")
                     .arg(m_perProcess.size())
                     .arg(listFiles(m_perProcess)));
        return Next::Continue;
    }

    /// rocprofv3's default output (ROCm 7) in place of trace.csv, read as the trace.csv rocpd2csv
    /// would make; rpd and nsys databases by the workbench alone.
    Next readDatabases()
    {
        if (m_databases.isEmpty())
            return Next::Continue;
        int read = 0;
        QStringList others;     // rpd and nsys databases read: the workbench's alone
        QStringList rocpdFiles; // rocpd databases read: both profiles'
        for (const InputRow *row : m_inventory.databases()) {
            const InputFormat *format = nullptr;
            const auto outcome = m_reader.readKernelFile(*row, m_inventory.filePath(*row), hostOf(row->relativePath), format);
            if (outcome == TraceReader::Outcome::Cancelled)
                return Next::Cancelled;
            if (outcome != TraceReader::Outcome::Read)
                continue;
            if (format->referenceReads) {
                rocpdFiles << row->relativePath;
                ++read;
            } else {
                others << row->relativePath;
            }
        }
        if (read > 0) {
            m_trace.referenceFileFound = true;
            note(QStringLiteral("not found; both profiles read the kernels of %1 rocpd database(s) (%2) as the "
                                "trace.csv rocpd2csv would make of them")
                     .arg(read)
                     .arg(listFiles(others.isEmpty() ? m_databases : rocpdFiles)));
        }
        if (!others.isEmpty())
            note(QStringLiteral("not found; the workbench reads the kernels of %1 rocmProfileData/Nsight Systems "
                                "database(s) (%2); the reference reads neither kind")
                     .arg(others.size())
                     .arg(listFiles(others)));
        return read > 0 || !others.isEmpty() ? Next::Done : Next::Continue;
    }

    /// rocprofv3's JSON and pftrace outputs: the workbench reads them when no CSV and no database
    /// gave kernels.
    Next readKernelFiles()
    {
        std::vector<const InputRow *> rows = m_inventory.rocprofJsons();
        for (const InputRow *row : m_inventory.pftraces())
            rows.push_back(row);
        if (rows.empty())
            return Next::Continue;
        int read = 0;
        for (const InputRow *row : rows) {
            const InputFormat *format = nullptr;
            const auto outcome = m_reader.readKernelFile(*row, m_inventory.filePath(*row), hostOf(row->relativePath), format);
            if (outcome == TraceReader::Outcome::Cancelled)
                return Next::Cancelled;
            read += outcome == TraceReader::Outcome::Read;
        }
        if (read == 0)
            return Next::Continue;
        note(QStringLiteral("not found; the workbench reads the kernels of %1 rocprofv3 JSON / Perfetto "
                            "trace file(s) (%2); the reference reads neither kind")
                 .arg(read)
                 .arg(listFiles(pathsOf(rows))));
        return Next::Done;
    }

    /// No kernel source at all: what was looked for, and what lies there instead.
    void noKernelSource()
    {
        m_trace.diagnostics.push_back(
            {Severity::Warning, kTraceFileName, 0,
             m_inventory.wholeFolder()
                 ? QStringLiteral("not found, and no rocprofv3 *_kernel_trace.csv in the folder or its sub-folders: no "
                                  "kernel data%1")
                       .arg(otherCandidates(m_inventory))
                 : QStringLiteral("not among the files opened, nor any other kernel trace: no kernel data")});
    }

    void processCsvsInstead()
    {
        note(QStringLiteral("not found (the reference reads no kernels); the workbench reads the %1 %2 instead (%3)")
                 .arg(m_perProcess.size())
                 .arg(m_whatRead, listFiles(m_perProcess)));
    }

    /// Databases beside a CSV kernel trace are named, not read.
    void databasesNotRead()
    {
        if (!m_databases.isEmpty())
            m_trace.diagnostics.push_back(
                {Severity::Info, m_databases.front(), 0,
                 QStringLiteral("%1 database file(s) (%2) are also present and not read: the CSV kernel trace is")
                     .arg(m_databases.size())
                     .arg(listFiles(m_databases))});
    }

    /// The per-process CSVs, by the workbench alone, as one trace.
    Next readProcessCsvs()
    {
        for (const QString &rel : m_perProcess) {
            const auto outcome = m_reader.readFile(m_dir.filePath(rel), rel, hostOf(rel), false, true);
            if (outcome == TraceReader::Outcome::Cancelled)
                return Next::Cancelled;
        }
        return Next::Continue;
    }

    bool hasProcessCsvs() const { return !m_perProcess.isEmpty(); }

private:
    static QString listFiles(const QStringList &files)
    {
        QStringList shownFiles = files.mid(0, 4);
        if (files.size() > 4)
            shownFiles << QStringLiteral("...");
        return shownFiles.join(QStringLiteral(", "));
    }
    /// Agents of files in different host folders are different agents.
    int hostOf(const QString &rel)
    {
        const qsizetype slash = rel.lastIndexOf(QLatin1Char('/'));
        return m_reader.hostIndex(slash < 0 ? QString() : rel.left(slash));
    }
    void note(const QString &message)
    {
        m_trace.diagnostics.push_back({Severity::Info, kTraceFileName, 0, message});
    }

    const RunInventory &m_inventory;
    const QDir m_dir;
    KernelTrace &m_trace;
    TraceReader &m_reader;
    const QStringList m_perProcess;
    const QStringList m_databases;
    const QString m_whatRead;
};

} // namespace

KernelTrace parseKernelTraces(const RunInventory &inventory, const ProgressCallback &progress)
{
    using Next = KernelSources::Next;
    KernelTrace trace;
    // Python's Path.exists() follows symlinks, as QFileInfo::exists() does (and the inventory).
    trace.referenceFileFound = inventory.kernelTrace() != nullptr;
    TraceReader reader(trace, progress);
    reader.keepCorrelations(keepHostLanes() && !inventory.apiTraces().empty());
    KernelSources sources(inventory, trace, reader);
    const auto stop = [&trace](Next next) {
        if (next == Next::Cancelled)
            trace.cancelled = true;
        return next != Next::Continue;
    };

    bool workbenchDone = false;
    if (trace.referenceFileFound) {
        if (stop(sources.readReferenceCsv(workbenchDone)))
            return trace;
    } else if (!sources.hasProcessCsvs()) {
        for (const auto phase : {&KernelSources::readDatabases, &KernelSources::readKernelFiles}) {
            const Next next = (sources.*phase)();
            if (next == Next::Done)
                reader.finish();
            if (stop(next))
                return trace;
        }
        sources.noKernelSource();
    } else {
        sources.processCsvsInstead();
    }
    if (trace.referenceFileFound || sources.hasProcessCsvs())
        sources.databasesNotRead();
    if (!workbenchDone && stop(sources.readProcessCsvs()))
        return trace;
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


KernelTrace parseKernelTraceBytes(QByteArrayView bytes, const QString &displayName, const ProgressCallback &progress)
{
    KernelTrace trace;
    trace.referenceFileFound = true;
    TraceReader reader(trace, progress);
    if (reader.readBytes(bytes, displayName, reader.hostIndex(QString())) == TraceReader::Outcome::Cancelled) {
        trace.cancelled = true;
        return trace;
    }
    reader.finish();
    return trace;
}

} // namespace goblin
