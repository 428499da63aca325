#include "io/runinventory.h"

#include "io/regularfile.h"
#include "io/runfolder.h"
#include "io/bytesource.h"
#include "pftrace/pftracesniff.h"
#include "kineto/tracediscovery.h"
#include "syntax/utf8validator.h"
#include "telemetry/telemetrylogs.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>
#include <map>
#include <set>

namespace goblin {

namespace {

constexpr qint64 kHeadBytes = 4096;

/// A file's first bytes, read once for every kind's sniff.
struct Head {
    QString path;
    QFileInfo info;
    QByteArray bytes;
    HeadContent content = HeadContent::Text;
    QString contentText;
    bool alone = false;  ///< the file was picked (not found by walking the folder)
};

/// The first line of a text head (a CSV's header), without a byte order mark.
QString headerLine(const QByteArray &bytes)
{
    qsizetype end = bytes.indexOf('\n');
    QByteArray line = bytes.left(end < 0 ? bytes.size() : end).trimmed();
    if (line.startsWith("\xEF\xBB\xBF"))
        line = line.mid(3);
    return QString::fromUtf8(line);
}

/// The first line of a text head, cut to a readable length.
QString firstLine(const QByteArray &bytes)
{
    QString text = headerLine(bytes);
    if (text.size() > 80)
        text = text.left(77) + QStringLiteral("...");
    return text;
}

Head readHead(const QString &path, const QFileInfo &info, bool alone)
{
    Head head{path, info, {}, HeadContent::Text, {}, alone};
    if (info.isDir()) {
        head.content = HeadContent::NotAFile;
        head.contentText = QStringLiteral("a folder, not a file");
        return head;
    }
    if (const QString special = specialFileProblem(path); !special.isEmpty()) {
        head.content = HeadContent::NotAFile;
        head.contentText = special;  // "is a FIFO (named pipe)": never opened, it would block
        if (head.contentText.startsWith(QLatin1String("is ")))
            head.contentText = head.contentText.mid(3);
        return head;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        head.content = HeadContent::Unreadable;
        head.contentText = QStringLiteral("cannot be opened (%1)").arg(file.errorString());
        return head;
    }
    head.bytes = file.read(kHeadBytes);
    const QByteArray &b = head.bytes;
    if (b.isEmpty()) {
        head.content = HeadContent::Empty;
        head.contentText = QStringLiteral("empty (0 bytes)");
    } else if (b.size() >= 2 && quint8(b[0]) == 0x1f && quint8(b[1]) == 0x8b) {
        head.content = HeadContent::Gzip;
        head.contentText = QStringLiteral("gzip-compressed");
    } else if (b.startsWith(QByteArrayLiteral("SQLite format 3\0"))) {
        head.content = HeadContent::Sqlite;
        head.contentText = QStringLiteral("an SQLite database");
    } else {
        // Random bytes are almost never valid UTF-8 for long; an incomplete sequence cut by
        // the end of the head is not an error.
        syntax::Utf8Validator utf8;
        const bool nul = b.contains('\0');
        const bool invalid = utf8.feed(reinterpret_cast<const unsigned char *>(b.constData()), b.size()) >= 0;
        if (nul || invalid) {
            head.content = HeadContent::Binary;
            head.contentText = QStringLiteral("binary data, not text");
        } else {
            qsizetype i = b.startsWith("\xEF\xBB\xBF") ? 3 : 0;
            while (i < b.size() && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t'))
                ++i;
            if (i < b.size() && (b[i] == '{' || b[i] == '[')) {
                head.content = HeadContent::Json;
                head.contentText = QStringLiteral("JSON");
            } else {
                head.content = HeadContent::Text;
                head.contentText = i == b.size() ? QStringLiteral("blank text")
                                                 : QStringLiteral("text starting \"%1\"").arg(firstLine(b.mid(i)));
            }
        }
    }
    return head;
}

/// A chrome trace: JSON or gzip whose (decompressed) text is an object with a top-level
/// "traceEvents" key in its first megabyte (kineto/tracediscovery.h).
bool sniffChromeTrace(const Head &head)
{
    const bool candidate = head.content == HeadContent::Json || head.content == HeadContent::Gzip
                           || (head.content == HeadContent::Text && head.bytes.trimmed().isEmpty());
    return candidate && head.info.size() >= 2 && kineto::looksLikeChromeTrace(head.path);
}

/// A CSV whose header names a kernel (Kernel_Name, KernelName, "Kernel Name"): a kernel trace
/// of some profiler. Only for a file opened alone; in a folder such files are hints.
bool sniffKernelCsv(const Head &head)
{
    if (head.content != HeadContent::Text)
        return false;
    const QString header = headerLine(head.bytes).toLower();
    QString squeezed;
    for (const QChar c : header)
        if (c != QLatin1Char(' ') && c != QLatin1Char('_') && c != QLatin1Char('"'))
            squeezed += c;
    for (const QString &column : squeezed.split(QLatin1Char(',')))
        if (column == QLatin1String("kernelname"))
            return true;
    return false;
}

/// rocprofv3's API traces share one header: "Domain","Function","Process_Id","Thread_Id",
/// "Correlation_Id","Start_Timestamp","End_Timestamp" (rocpd2csv prepends "Guid"). The Domain of
/// the rows tells markers (roctx ranges: steps) from HIP calls (host activity).
bool sniffApiTraceCsv(const Head &head)
{
    if (head.content != HeadContent::Text)
        return false;
    QStringList columns;
    for (const QString &c : headerLine(head.bytes).split(QLatin1Char(',')))
        columns << c.trimmed().remove(QLatin1Char('"')).toLower();
    if (!columns.isEmpty() && columns.front() == QLatin1String("guid"))
        columns.removeFirst();
    return columns.size() >= 7 && columns[0] == QLatin1String("domain") && columns[1] == QLatin1String("function") &&
           columns.contains(QLatin1String("start_timestamp")) && columns.contains(QLatin1String("end_timestamp"));
}

/// A GPU telemetry log with no fixed name (nvidia-smi --query-gpu CSV, dcgmi dmon, rocm-smi
/// --csv), known by its head (telemetry/telemetrylogs.h).
bool sniffTelemetryLog(const Head &head)
{
    return head.content == HeadContent::Text &&
           telemetry::sniffTelemetryLog(QByteArrayView(head.bytes)) != telemetry::LogKind::None;
}

/// The first bytes of a file's content: its head, or for gzip the head of what it inflates to.
QByteArray contentHead(const Head &head, qint64 max)
{
    if (head.content != HeadContent::Gzip)
        return head.bytes.left(max);
    io::ByteSource source;
    QByteArray out(max, Qt::Uninitialized);
    if (!source.open(io::ByteOrigin::file(head.path), nullptr))
        return {};
    out.resize(qsizetype(source.read(out.data(), size_t(max))));
    return out;
}

/// rocprofv3's JSON (`--output-format json`): `{"rocprofiler-sdk-tool":[` opens the document,
/// plain or gzip (issue 25; rocprofjson/rocprofjsonreader.h).
bool sniffRocprofJson(const Head &head)
{
    if (head.content != HeadContent::Json && head.content != HeadContent::Gzip)
        return false;
    const QByteArray text = contentHead(head, 512);
    qsizetype i = 0;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t'))
        ++i;
    return i < text.size() && text[i] == '{' && text.indexOf("\"rocprofiler-sdk-tool\"", i) >= 0;
}

/// A Perfetto trace: a TracePacket stream (pftrace/pftracesniff.h), plain or gzip.
bool sniffPftrace(const Head &head)
{
    if (head.content == HeadContent::Gzip)
        return looksLikePftrace(QByteArrayView(contentHead(head, 64)));
    return looksLikePftrace(QByteArrayView(head.bytes));
}

/// Where a kind's files lie.
enum class Place {
    Folder,     ///< the run folder itself (the reference's place)
    Anywhere,   ///< the folder or a direct sub-folder
    AloneOnly,  ///< a file opened alone
};

/// An input kind: passive metadata (role, place, name patterns) and a sniff of the head
/// (null: the name decides). Tried in table order; the first that fits is the file's kind.
struct InputKind {
    InputRole role;
    Place place;
    QStringList patterns;
    bool (*sniff)(const Head &);
    const char *what;  ///< the kind in plain words, for the row's reason
};

const std::vector<InputKind> &inputKinds()
{
    static const std::vector<InputKind> kinds{
        // The reference's three names decide alone: it reads them whatever they hold.
        {InputRole::KernelTrace, Place::Folder, {kKernelTraceFileName}, nullptr, "the kernel trace"},
        {InputRole::SmiTelemetry, Place::Folder, {kSmiFileName}, nullptr, "the amd-smi telemetry"},
        {InputRole::ChromeTrace, Place::Folder, {kTorchTraceFileName}, nullptr, "the torch trace"},
        {InputRole::ProcessKernelTrace, Place::Anywhere, {QStringLiteral("*_kernel_trace.csv")}, nullptr,
         "a rocprofv3 per-process kernel trace"},
        // The database reader tells rocpd from other SQLite files (and those from non-databases) by
        // their tables, with a diagnostic for each: every file so named goes to it.
        {InputRole::RocpdDatabase, Place::Anywhere,
         {QStringLiteral("*.db"), QStringLiteral("*.rpd"), QStringLiteral("*.sqlite"), QStringLiteral("*.sqlite3"),
          QStringLiteral("*.db.gz"), QStringLiteral("*.rpd.gz"), QStringLiteral("*.sqlite.gz")},
         nullptr, "a database candidate"},
        // rocprofv3's JSON and Perfetto outputs (issue 25): by their content, under their usual names.
        {InputRole::RocprofJson, Place::Anywhere, {QStringLiteral("*.json"), QStringLiteral("*.json.gz")},
         &sniffRocprofJson, "a rocprofv3 JSON (--output-format json)"},
        {InputRole::Pftrace, Place::Anywhere,
         {QStringLiteral("*.pftrace"), QStringLiteral("*.perfetto-trace"), QStringLiteral("*.pb"),
          QStringLiteral("*.pftrace.gz"), QStringLiteral("*.perfetto-trace.gz"), QStringLiteral("*.pb.gz")},
         &sniffPftrace, "a Perfetto trace (TracePacket stream)"},
        {InputRole::ChromeTrace, Place::Anywhere, {QStringLiteral("*")}, &sniffChromeTrace, "a chrome trace"},
        {InputRole::ApiTrace, Place::Anywhere, {QStringLiteral("*.csv")}, &sniffApiTraceCsv,
         "a rocprofv3 API trace (roctx markers or HIP calls)"},
        // Telemetry logs have no fixed name (nvidia-smi.csv, gpu_log.txt, dmon.log): their head decides.
        {InputRole::SmiTelemetry, Place::Anywhere, {QStringLiteral("*")}, &sniffTelemetryLog,
         "a GPU telemetry log (nvidia-smi, dcgmi dmon or rocm-smi)"},
        // Kernel data of other tools: read when opened alone, a hint in a folder.
        {InputRole::ProcessKernelTrace, Place::AloneOnly,
         {QStringLiteral("results.csv"), QStringLiteral("results_*.csv"), QStringLiteral("timestamps.csv"),
          QStringLiteral("*cuda_gpu_trace*.csv")},
         nullptr, "a kernel trace opened alone"},
        {InputRole::ProcessKernelTrace, Place::AloneOnly, {QStringLiteral("*.csv")}, &sniffKernelCsv,
         "a kernel trace opened alone"},
        {InputRole::LookAlike, Place::Anywhere,
         {QStringLiteral("results.csv"), QStringLiteral("results_*.csv"), QStringLiteral("timestamps.csv"),
          QStringLiteral("*cuda_gpu_trace*.csv")},
         nullptr, "kernel data"},
        {InputRole::LookAlike, Place::Anywhere,
         {QStringLiteral("torch_profile.json.gz"), QStringLiteral("*.pt.trace.json"),
          QStringLiteral("*.pt.trace.json.gz")},
         nullptr, "named like a chrome trace"},
    };
    return kinds;
}

bool nameMatches(const QString &fileName, const QStringList &patterns)
{
    for (const QString &p : patterns) {
        if (p == QLatin1String("*"))
            return true;
        if (!p.contains(QLatin1Char('*')) ? fileName == p : QDir::match(p, fileName))
            return true;
    }
    return false;
}

/// The kind of one file (perfetto's Guess): the first kind whose place and name fit and whose
/// sniff, if any, accepts the head.
const InputKind *guessKind(const QString &relativePath, const Head &head)
{
    const bool inFolder = !relativePath.contains(QLatin1Char('/'));
    const QString name = head.info.fileName();
    for (const InputKind &kind : inputKinds()) {
        if (kind.place == Place::Folder && !inFolder)
            continue;
        if (kind.place == Place::AloneOnly && !head.alone)
            continue;
        if (!nameMatches(name, kind.patterns))
            continue;
        if (kind.sniff && !kind.sniff(head))
            continue;
        return &kind;
    }
    return nullptr;
}

QString fileNameOf(const QString &relativePath)
{
    return relativePath.mid(relativePath.lastIndexOf(QLatin1Char('/')) + 1);
}

QString folderOf(const QString &relativePath)
{
    const qsizetype slash = relativePath.lastIndexOf(QLatin1Char('/'));
    return slash < 0 ? QString() : relativePath.left(slash + 1);
}

/// `<worker>.<timestamp>.pt.trace.json[.gz]` (tensorboard_trace_handler's name): the worker and
/// the timestamp, or an empty worker for other names.
std::pair<QString, QString> workerSession(const QString &fileName)
{
    static const QRegularExpression re(QStringLiteral("^(.+)\\.(\\d{1,30})\\.pt\\.trace\\.json(?:\\.gz)?$"));
    const auto m = re.match(fileName);
    if (!m.hasMatch())
        return {};
    return {m.captured(1), m.captured(2)};
}

/// Is session timestamp `a` later than `b`? Digits compared as numbers, however long.
bool laterTimestamp(const QString &a, const QString &b)
{
    const auto strip = [](const QString &digits) {
        qsizetype zeros = 0;
        while (zeros + 1 < digits.size() && digits[zeros] == QLatin1Char('0'))
            ++zeros;
        return digits.mid(zeros);
    };
    const QString x = strip(a), y = strip(b);
    return x.size() != y.size() ? x.size() > y.size() : x > y;
}

bool isRegularFile(const InputRow &row)
{
    return row.content != HeadContent::NotAFile;
}

} // namespace

QString inputRoleName(InputRole role)
{
    switch (role) {
    case InputRole::KernelTrace: return QStringLiteral("kernel trace");
    case InputRole::ProcessKernelTrace: return QStringLiteral("per-process kernel trace");
    case InputRole::RocpdDatabase: return QStringLiteral("profiler database");  // rocpd, rpd or nsys, told by its tables
    case InputRole::RocprofJson: return QStringLiteral("rocprofv3 JSON");
    case InputRole::Pftrace: return QStringLiteral("Perfetto trace");
    case InputRole::ChromeTrace: return QStringLiteral("chrome trace");
    case InputRole::SmiTelemetry: return QStringLiteral("GPU telemetry");  // amd-smi, nvidia-smi, dcgmi, rocm-smi
    case InputRole::ApiTrace: return QStringLiteral("API trace");
    case InputRole::LookAlike: return QStringLiteral("look-alike");
    case InputRole::NotRead: return QStringLiteral("not read");
    case InputRole::Other: return QStringLiteral("other");
    }
    return {};
}

RunInventory RunInventory::scan(const RunSource &source)
{
    RunInventory inv;
    const QFileInfo given(source.path);
    std::vector<RunFolderEntry> entries;
    bool alone = false;
    if (given.exists() && !given.isDir()) {
        // A file alone: the only file of its folder.
        inv.m_folder = QDir::cleanPath(given.absolutePath());
        inv.m_wholeFolder = false;
        entries.push_back({given.fileName(), given});
        alone = true;
    } else {
        inv.m_folder = QDir::cleanPath(given.absoluteFilePath());
        const QDir dir(inv.m_folder);
        if (!source.files.isEmpty()) {
            inv.m_wholeFolder = false;
            alone = true;
            for (const QString &relative : source.files) {
                const QFileInfo info(dir.filePath(relative));
                if (info.exists())
                    entries.push_back({QDir::cleanPath(relative), info});
            }
        } else {
            entries = runFolderEntries(dir);
            // The reference's three names count in whatever form they exist (a folder, a FIFO):
            // the reference then fails to read them, and says so. A walk of files misses them.
            for (const QLatin1String name : {kKernelTraceFileName, kTorchTraceFileName, kSmiFileName}) {
                const QFileInfo info(dir.filePath(name));
                const bool listed = std::any_of(entries.begin(), entries.end(),
                                                [&](const RunFolderEntry &e) { return e.relativePath == name; });
                if (info.exists() && !listed)
                    entries.push_back({name, info});
            }
        }
    }

    for (const RunFolderEntry &entry : entries) {
        const Head head = readHead(entry.info.absoluteFilePath(), entry.info, alone);
        InputRow row;
        row.relativePath = entry.relativePath;
        row.sizeBytes = entry.info.isFile() ? entry.info.size() : 0;
        row.content = head.content;
        row.contentText = head.contentText;
        const InputKind *kind = head.content == HeadContent::NotAFile && entry.relativePath.contains(QLatin1Char('/'))
                                    ? nullptr
                                    : guessKind(entry.relativePath, head);
        row.role = kind ? kind->role : InputRole::Other;
        row.reason = kind ? QString::fromLatin1(kind->what) : QStringLiteral("no input the workbench reads");
        if (row.role == InputRole::ChromeTrace) {
            row.nameRank = kineto::rankFromFileName(fileNameOf(row.relativePath));
            // torch_profile.json is the torch trace by its name; whether its content is one
            // decides whether it is also a rank and a `.gz` beside it its copy.
            row.traceContent = kind->sniff == &sniffChromeTrace || sniffChromeTrace(head);
        }
        inv.m_rows.push_back(std::move(row));
    }
    inv.choose();
    return inv;
}

void RunInventory::choose()
{
    const auto indexOf = [this](const QString &relative) {
        for (std::size_t i = 0; i < m_rows.size(); ++i)
            if (m_rows[i].relativePath == relative)
                return int(i);
        return -1;
    };

    // --- kernels
    m_kernelTrace = indexOf(kKernelTraceFileName);
    if (m_kernelTrace >= 0 && m_rows[std::size_t(m_kernelTrace)].role != InputRole::KernelTrace)
        m_kernelTrace = -1;
    const bool processTraces = std::any_of(m_rows.begin(), m_rows.end(),
                                           [](const InputRow &r) { return r.role == InputRole::ProcessKernelTrace; });
    if (m_kernelTrace >= 0) {
        InputRow &row = m_rows[std::size_t(m_kernelTrace)];
        row.read = isRegularFile(row);
        row.referenceReads = true;
        row.reason = isRegularFile(row)
                         ? QStringLiteral("the kernel trace both profiles read (the reference reads trace.csv only)")
                         : QStringLiteral("trace.csv is %1: the reference fails to read it, the workbench reads no "
                                          "kernels from it")
                               .arg(row.contentText);
    }
    for (InputRow &row : m_rows) {
        switch (row.role) {
        case InputRole::ProcessKernelTrace:
            row.read = true;
            if (!m_wholeFolder && !row.relativePath.endsWith(QLatin1String("_kernel_trace.csv"))) {
                row.reason = QStringLiteral("a kernel trace opened alone: the workbench reads it (the reference "
                                            "reads trace.csv only)");
            } else if (m_kernelTrace >= 0) {
                row.fallback = true;
                row.reason = QStringLiteral("a rocprofv3 per-process kernel trace: read only if trace.csv holds no "
                                            "kernel trace the workbench can read");
            } else {
                row.reason = QStringLiteral("a rocprofv3 per-process kernel trace: the workbench reads every one "
                                            "as one trace (no trace.csv; the reference reads no kernels)");
            }
            break;
        case InputRole::RocpdDatabase:
            if (m_kernelTrace >= 0 || processTraces) {
                row.reason = QStringLiteral("a database beside a CSV kernel trace: not read, the CSV is");
            } else {
                row.read = true;
                row.referenceReads = true;
                row.reason = QStringLiteral("read by both profiles as the trace.csv rocpd2csv would make of it, "
                                            "when its tables are rocpd's (no CSV kernel trace)");
            }
            break;
        case InputRole::RocprofJson:
        case InputRole::Pftrace:
            if (m_kernelTrace >= 0 || processTraces) {
                row.reason = QStringLiteral("%1 beside a CSV kernel trace: not read, the CSV is")
                                 .arg(inputRoleName(row.role));
            } else {
                row.read = true;
                row.fallback = std::any_of(m_rows.begin(), m_rows.end(), [](const InputRow &r) {
                    return r.role == InputRole::RocpdDatabase;
                });
                row.reason = row.fallback
                                 ? QStringLiteral("%1: its kernels (and HIP calls, markers) are read if the databases "
                                                  "beside it give none (the reference reads neither)")
                                       .arg(inputRoleName(row.role))
                                 : QStringLiteral("%1: the workbench reads its kernels, HIP calls and markers (no CSV "
                                                  "kernel trace; the reference reads neither)")
                                       .arg(inputRoleName(row.role));
            }
            break;
        case InputRole::ApiTrace:
            row.read = true;
            row.reason = QStringLiteral("a rocprofv3 API trace: roctx ranges named like steps give the kernel "
                                        "trace's steps, HIP calls its host activity (the reference reads neither)");
            break;
        case InputRole::LookAlike:
            if (row.relativePath.endsWith(QLatin1String(".csv")))
                row.reason = QStringLiteral("kernel data the workbench does not pick up by itself: copy it to "
                                            "trace.csv (or open it alone) to read it");
            else
                row.reason = QStringLiteral("named like a chrome trace, but its head shows none (%1)")
                                 .arg(row.contentText);
            break;
        default:
            break;
        }
    }

    // --- telemetry
    m_smi = indexOf(kSmiFileName);
    if (m_smi >= 0 && m_rows[std::size_t(m_smi)].role != InputRole::SmiTelemetry)
        m_smi = -1;
    if (m_smi >= 0) {
        InputRow &row = m_rows[std::size_t(m_smi)];
        row.read = isRegularFile(row);
        row.referenceReads = true;
        row.reason = isRegularFile(row) ? QStringLiteral("the telemetry both profiles read")
                                        : QStringLiteral("amd_smi.csv is %1: no telemetry").arg(row.contentText);
    }
    // Telemetry logs known by their content: the first by path is read when there is no
    // amd_smi.csv (the reference's only telemetry), by the workbench alone; one telemetry per run.
    {
        std::vector<std::size_t> logs;
        for (std::size_t i = 0; i < m_rows.size(); ++i)
            if (m_rows[i].role == InputRole::SmiTelemetry && int(i) != indexOf(kSmiFileName))
                logs.push_back(i);
        std::stable_sort(logs.begin(), logs.end(),
                         [this](std::size_t a, std::size_t b) { return m_rows[a].relativePath < m_rows[b].relativePath; });
        for (std::size_t i : logs) {
            InputRow &row = m_rows[i];
            if (m_smi < 0) {
                m_smi = int(i);
                row.read = true;
                row.reason = QStringLiteral("a GPU telemetry log known by its content: the workbench reads it (no "
                                            "amd_smi.csv; the reference reads amd_smi.csv only)");
            } else {
                row.reason = QStringLiteral("a GPU telemetry log: not read, %1 is the run's telemetry")
                                 .arg(m_rows[std::size_t(m_smi)].relativePath);
            }
        }
    }

    // --- chrome traces: one per rank, read once
    // Per folder: the compressed copy of a trace that is there in plain text, and the older
    // sessions of one worker (tensorboard_trace_handler names each profiling session's file
    // `<worker>.<timestamp>.pt.trace.json[.gz]`, the worker being one process: two files of one
    // worker are two sessions of one rank; the latest timestamp is read).
    std::map<QString, std::vector<std::size_t>> byFolder;
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].role == InputRole::ChromeTrace && m_rows[i].traceContent)
            byFolder[folderOf(m_rows[i].relativePath)].push_back(i);
    for (const auto &[prefix, indexes] : byFolder) {
        std::set<QString> plain;
        for (std::size_t i : indexes)
            plain.insert(fileNameOf(m_rows[i].relativePath));
        const auto isCompressedCopy = [&plain](const QString &name) {
            return name.endsWith(QLatin1String(".gz")) && plain.count(name.chopped(3)) > 0;
        };
        std::map<QString, std::pair<QString, QString>> latestOfWorker;  // worker -> {file name, timestamp}
        for (std::size_t i : indexes) {
            const QString name = fileNameOf(m_rows[i].relativePath);
            if (isCompressedCopy(name))
                continue;
            const auto [worker, stamp] = workerSession(name);
            if (worker.isEmpty())
                continue;
            auto [it, inserted] = latestOfWorker.emplace(worker, std::pair{name, stamp});
            if (!inserted && laterTimestamp(stamp, it->second.second))
                it->second = {name, stamp};
        }
        for (std::size_t i : indexes) {
            InputRow &row = m_rows[i];
            const QString name = fileNameOf(row.relativePath);
            if (isCompressedCopy(name)) {
                row.role = InputRole::NotRead;
                row.skippedAs = SkippedAs::CompressedCopy;
                row.keptPath = prefix + name.chopped(3);
                row.reason =
                    QStringLiteral("the compressed copy of %1: the trace is read once, from %1").arg(row.keptPath);
                continue;
            }
            const QString worker = workerSession(name).first;
            if (!worker.isEmpty() && latestOfWorker[worker].first != name) {
                row.role = InputRole::NotRead;
                row.skippedAs = SkippedAs::OlderSession;
                row.keptPath = prefix + latestOfWorker[worker].first;
                row.reason = QStringLiteral("an older profiling session of the worker of %1: not read, one trace per "
                                            "worker")
                                 .arg(row.keptPath);
                continue;
            }
            row.read = true;
            row.reason = QStringLiteral("a chrome trace (a rank): its GPU timeline is read");
        }
    }

    // The primary: torch_profile.json when it is a readable file, else torch_profile.json.gz,
    // else the first chrome trace in rank order, else a `*.pt.trace.json[.gz]` of the folder.
    m_torchReference = indexOf(kTorchTraceFileName);
    if (m_torchReference >= 0 && m_rows[std::size_t(m_torchReference)].role != InputRole::ChromeTrace)
        m_torchReference = -1;
    m_torchPrimary = -1;
    if (m_torchReference >= 0) {
        InputRow &row = m_rows[std::size_t(m_torchReference)];
        row.referenceReads = true;
        if (row.content != HeadContent::NotAFile && row.content != HeadContent::Unreadable)
            m_torchPrimary = m_torchReference;
        else
            row.reason =
                QStringLiteral("torch_profile.json is %1: the reference fails to read it").arg(row.contentText);
    }
    if (m_torchPrimary < 0) {
        const int gz = indexOf(QStringLiteral("torch_profile.json.gz"));
        if (gz >= 0 && isRegularFile(m_rows[std::size_t(gz)]) && m_rows[std::size_t(gz)].role != InputRole::NotRead)
            m_torchPrimary = gz;
    }
    if (m_torchPrimary < 0) {
        const std::vector<const InputRow *> traces = chromeTraces();
        if (!traces.empty())
            m_torchPrimary = int(traces.front() - m_rows.data());
    }
    if (m_torchPrimary < 0) {
        for (std::size_t i = 0; i < m_rows.size(); ++i) {
            const InputRow &row = m_rows[i];
            if (row.role == InputRole::LookAlike && !row.relativePath.contains(QLatin1Char('/'))
                && nameMatches(row.relativePath,
                               {QStringLiteral("*.pt.trace.json"), QStringLiteral("*.pt.trace.json.gz")})) {
                m_torchPrimary = int(i);
                break;
            }
        }
    }
    if (m_torchPrimary >= 0) {
        InputRow &row = m_rows[std::size_t(m_torchPrimary)];
        const bool named = row.role != InputRole::ChromeTrace;
        row.primary = true;
        row.read = true;
        if (row.role == InputRole::LookAlike)
            row.role = InputRole::ChromeTrace;
        row.reason = m_torchPrimary == m_torchReference
                         ? QStringLiteral("the torch trace both profiles read (its CPU lane and metadata give the "
                                          "readings)")
                     : named || !row.traceContent
                         ? QStringLiteral("no torch_profile.json: the workbench reads this trace by its name, though "
                                          "its head shows no trace (%1), so that its diagnostics say what is wrong")
                               .arg(row.contentText)
                         : QStringLiteral("no readable torch_profile.json: the workbench's readings come from this "
                                          "trace (the reference reads none)");
    }
}

QString RunInventory::filePath(const InputRow &row) const
{
    return QDir(m_folder).filePath(row.relativePath);
}

const InputRow *RunInventory::find(const QString &relativePath) const
{
    for (const InputRow &row : m_rows)
        if (row.relativePath == relativePath)
            return &row;
    return nullptr;
}

std::vector<const InputRow *> RunInventory::rowsOf(InputRole role) const
{
    std::vector<const InputRow *> out;
    for (const InputRow &row : m_rows)
        if (row.role == role)
            out.push_back(&row);
    return out;
}

std::vector<const InputRow *> RunInventory::kernelLookAlikes() const
{
    std::vector<const InputRow *> out;
    for (const InputRow &row : m_rows)
        if (row.role == InputRole::LookAlike && row.relativePath.endsWith(QLatin1String(".csv")))
            out.push_back(&row);
    return out;
}

std::vector<const InputRow *> RunInventory::chromeTraces() const
{
    std::vector<const InputRow *> out;
    for (const InputRow &row : m_rows) {
        if (row.role != InputRole::ChromeTrace || !row.read)
            continue;
        if (!row.traceContent)
            continue;  // a primary read by its name only
        out.push_back(&row);
    }
    std::stable_sort(out.begin(), out.end(), [](const InputRow *a, const InputRow *b) {
        if (a->nameRank.has_value() != b->nameRank.has_value())
            return a->nameRank.has_value();
        if (a->nameRank && *a->nameRank != *b->nameRank)
            return *a->nameRank < *b->nameRank;
        return a->relativePath < b->relativePath;
    });
    return out;
}

std::vector<const InputRow *> RunInventory::skippedChromeTraces() const
{
    return rowsOf(InputRole::NotRead);
}

qint64 RunInventory::bytesToRead() const
{
    qint64 total = 0;
    for (const InputRow &row : m_rows)
        if (row.read && !row.fallback && isRegularFile(row))
            total += row.sizeBytes;
    return total;
}

bool RunInventory::readsAnything() const
{
    return std::any_of(m_rows.begin(), m_rows.end(), [](const InputRow &r) { return r.read && !r.fallback; });
}

} // namespace goblin
