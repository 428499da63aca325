#include "kerneltraceparser.h"

#include "io/gzipinflater.h"
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
#include "pftrace/pftracereader.h"
#include "rocprofjson/rocprofjsonreader.h"
#include "nsys/nsysreader.h"
#include "rpd/dbcommon.h"
#include "rpd/rpdreader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStorageInfo>
#include <QTemporaryFile>

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

    /// A database in place of trace.csv, told by its tables (rpd/dbcommon.h): rocpd (both
    /// readings), rocmProfileData or an Nsight Systems export (the workbench only). `rocpd` says
    /// whether it was read as rocpd.
    Outcome readDatabase(const QString &givenPath, const QString &rel, int host, bool &rocpd)
    {
        const qint64 before = m_bytesBefore;
        ProgressCallback progress;
        if (m_progress)
            progress = [this, before](qint64 done) { return m_progress(before + done); };
        // A gzipped database (rpd files of vLLM runs travel as .rpd.gz): SQLite opens files by
        // name, so it is inflated into a private temporary file, removed when read; the run folder
        // is never written. Diagnostics still name the file as it lies in the folder.
        QTemporaryFile inflated(QDir(QDir::tempPath()).filePath(QStringLiteral("goblin-workbench-XXXXXX.sqlite")));
        QString path = givenPath;
        if (isGzipFile(givenPath)) {
            bool cancelled = false;
            QString problem;
            if (!inflated.open())
                problem = QStringLiteral("cannot create a temporary file in %1 (%2)")
                              .arg(QDir::tempPath(), inflated.errorString());
            else  // leaving the temporary folder's disk 256 MiB
                problem = io::inflateFileTo(
                    givenPath, inflated, std::max<qint64>(0, QStorageInfo(QDir::tempPath()).bytesAvailable() - (qint64(256) << 20)),
                    progress, &cancelled);
            if (cancelled)
                return Outcome::Cancelled;
            if (!problem.isEmpty() || !inflated.flush()) {
                m_trace.diagnostics.push_back(
                    {Severity::Warning, rel, 0,
                     QStringLiteral("is gzip-compressed and could not be inflated (%1); no kernels read from it")
                         .arg(problem.isEmpty() ? inflated.errorString() : problem)});
                m_bytesBefore += QFileInfo(givenPath).size();
                return Outcome::Unusable;
            }
            inflated.close();
            path = inflated.fileName();
        }
        const dbread::Recognition kind = dbread::recognise(path);
        rocpd = kind.kind == dbread::DatabaseKind::Other;
        RocpdOutcome outcome;
        if (kind.kind == dbread::DatabaseKind::Rpd) {
            RocpdSink sink{m_names, nullptr, m_wb, host};
            outcome = readRpdDatabase(path, rel, sink, m_trace, progress);
        } else if (kind.kind == dbread::DatabaseKind::Nsys) {
            RocpdSink sink{m_names, nullptr, m_wb, host};
            outcome = readNsysDatabase(path, rel, sink, m_trace, progress);
        } else {
            RocpdSink sink{m_names, &m_ref, m_wb, host};
            outcome = readRocpdDatabase(path, rel, sink, m_trace, progress);
            if (!kind.incompleteRpd.isEmpty())
                m_trace.diagnostics.push_back(
                    {Severity::Warning, rel, 0,
                     QStringLiteral("has rocmProfileData's tables but not the columns the rpd reader needs (%1); not "
                                    "read as rpd either")
                         .arg(kind.incompleteRpd)});
        }
        if (path != givenPath)  // the listing describes the file in the folder, not its inflated copy
            for (InputFileInfo &info : m_trace.files)
                if (info.relativePath == rel) {
                    info.compressed = true;
                    info.sizeBytes = QFileInfo(givenPath).size();
                }
        m_bytesBefore += QFileInfo(givenPath).size();
        return outcome == RocpdOutcome::Read        ? Outcome::Read
               : outcome == RocpdOutcome::Cancelled ? Outcome::Cancelled
                                                    : Outcome::Unusable;
    }

    static bool isGzipFile(const QString &path)
    {
        if (!specialFileProblem(path).isEmpty())
            return false;  // the database reader says what it is
        QFile f(path);
        char magic[2] = {0, 0};
        return f.open(QIODevice::ReadOnly) && f.read(magic, 2) == 2 && quint8(magic[0]) == 0x1f &&
               quint8(magic[1]) == 0x8b;
    }

    /// A rocprofv3 JSON or a Perfetto trace in place of a CSV kernel trace: the workbench reading
    /// only (the reference reads trace.csv, or a rocpd database as its stand-in).
    Outcome readKernelFile(const QString &path, const QString &rel, int host, bool json)
    {
        RocpdSink sink{m_names, nullptr, m_wb, host};
        const qint64 before = m_bytesBefore;
        ProgressCallback progress;
        if (m_progress)
            progress = [this, before](qint64 done) { return m_progress(before + done); };
        const size_t cutMark = m_names.cutMark();
        const RocpdOutcome outcome = json ? readRocprofJson(path, rel, sink, m_trace, progress)
                                          : readPftrace(path, rel, sink, m_trace, progress);
        if (const QString cut = m_names.cutsSince(cutMark).message(); !cut.isEmpty())
            m_trace.diagnostics.push_back({Severity::Warning, rel, 0, cut});
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

KernelTrace parseKernelTraces(const RunInventory &inventory, const ProgressCallback &progress)
{
    KernelTrace trace;
    const QDir dir(inventory.folder());
    const QString tracePath = dir.filePath(kTraceFileName);
    // Python's Path.exists() follows symlinks, as QFileInfo::exists() does (and the inventory).
    trace.referenceFileFound = inventory.kernelTrace() != nullptr;
    TraceReader reader(trace, progress);
    const QStringList perProcess = pathsOf(inventory.processKernelTraces());
    const QStringList databases = pathsOf(inventory.databases());
    auto listFiles = [](const QStringList &files) {
        QStringList shownFiles = files.mid(0, 4);
        if (files.size() > 4)
            shownFiles << QStringLiteral("...");
        return shownFiles.join(QStringLiteral(", "));
    };
    auto listed = [&] { return listFiles(perProcess); };
    const QString whatRead = inventory.wholeFolder() ? QStringLiteral("per-process trace file(s) rocprofv3 wrote")
                                                     : QStringLiteral("kernel trace file(s) opened");

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
                 QStringLiteral("trace.csv holds no kernel trace the workbench can read; it reads the %1 %2 instead "
                                "(%3)")
                     .arg(perProcess.size())
                     .arg(whatRead, listed())});
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
            QStringList others;     // rpd and nsys databases read: the workbench's alone
            QStringList rocpdFiles; // rocpd databases read: both profiles'
            for (const QString &rel : databases) {
                const qsizetype slash = rel.lastIndexOf(QLatin1Char('/'));
                const int host = reader.hostIndex(slash < 0 ? QString() : rel.left(slash));
                bool rocpd = true;
                const auto outcome = reader.readDatabase(dir.filePath(rel), rel, host, rocpd);
                if (outcome == TraceReader::Outcome::Cancelled) {
                    trace.cancelled = true;
                    return trace;
                }
                if (outcome == TraceReader::Outcome::Read && !rocpd)
                    others << rel;
                else if (outcome == TraceReader::Outcome::Read)
                    rocpdFiles << rel;
                read += outcome == TraceReader::Outcome::Read && rocpd;
            }
            if (read > 0) {
                trace.referenceFileFound = true;
                trace.diagnostics.push_back(
                    {Severity::Info, kTraceFileName, 0,
                     QStringLiteral("not found; both profiles read the kernels of %1 rocpd database(s) (%2) as the "
                                    "trace.csv rocpd2csv would make of them")
                         .arg(read)
                         .arg(listFiles(others.isEmpty() ? databases : rocpdFiles))});
            }
            if (!others.isEmpty())
                trace.diagnostics.push_back(
                    {Severity::Info, kTraceFileName, 0,
                     QStringLiteral("not found; the workbench reads the kernels of %1 rocmProfileData/Nsight Systems "
                                    "database(s) (%2); the reference reads neither kind")
                         .arg(others.size())
                         .arg(listFiles(others))});
            if (read > 0 || !others.isEmpty()) {
                reader.finish();
                return trace;
            }
        }
        // rocprofv3's JSON and pftrace outputs (issue 25): the workbench reads them when no CSV
        // and no database gave kernels.
        if (const QStringList kernelFiles = pathsOf(inventory.rocprofJsons()) + pathsOf(inventory.pftraces());
            !kernelFiles.isEmpty()) {
            int read = 0;
            for (const QString &rel : kernelFiles) {
                const qsizetype slash = rel.lastIndexOf(QLatin1Char('/'));
                const int host = reader.hostIndex(slash < 0 ? QString() : rel.left(slash));
                const bool json = inventory.find(rel) && inventory.find(rel)->role == InputRole::RocprofJson;
                const auto outcome = reader.readKernelFile(dir.filePath(rel), rel, host, json);
                if (outcome == TraceReader::Outcome::Cancelled) {
                    trace.cancelled = true;
                    return trace;
                }
                read += outcome == TraceReader::Outcome::Read;
            }
            if (read > 0) {
                trace.diagnostics.push_back(
                    {Severity::Info, kTraceFileName, 0,
                     QStringLiteral("not found; the workbench reads the kernels of %1 rocprofv3 JSON / Perfetto "
                                    "trace file(s) (%2); the reference reads neither kind")
                         .arg(read)
                         .arg(listFiles(kernelFiles))});
                reader.finish();
                return trace;
            }
        }
        trace.diagnostics.push_back(
            {Severity::Warning, kTraceFileName, 0,
             inventory.wholeFolder()
                 ? QStringLiteral("not found, and no rocprofv3 *_kernel_trace.csv in the folder or its sub-folders: no "
                                  "kernel data%1")
                       .arg(otherCandidates(inventory))
                 : QStringLiteral("not among the files opened, nor any other kernel trace: no kernel data")});
    } else {
        trace.diagnostics.push_back(
            {Severity::Info, kTraceFileName, 0,
             QStringLiteral("not found (the reference reads no kernels); the workbench reads the %1 %2 instead (%3)")
                 .arg(perProcess.size())
                 .arg(whatRead, listed())});
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
