#include "io/runinventory.h"

#include "formats/builtinformats.h"
#include "formats/registry.h"
#include "io/runfolder.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>
#include <map>
#include <set>

namespace goblin {

namespace {

bool nameMatches(const QString &fileName, const QStringList &patterns)
{
    for (const QString &p : patterns)
        if (QDir::match(p, fileName))
            return true;
    return false;
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

/// One file's row: its head read once, its format named once by the registry.
InputRow describe(const RunFolderEntry &entry, bool alone)
{
    const FileHead head = FileHead::read(entry.info.absoluteFilePath(), entry.info, alone);
    InputRow row;
    row.relativePath = entry.relativePath;
    row.sizeBytes = entry.info.isFile() ? entry.info.size() : 0;
    row.content = head.content;
    row.contentText = head.contentText;
    // A folder or special file in a sub-folder is no input; in the folder it may bear one of the
    // reference's names (which the reference then fails to read).
    const bool inFolder = !entry.relativePath.contains(QLatin1Char('/'));
    row.format = head.content == HeadContent::NotAFile && !inFolder ? nullptr
                                                                    : guessFormat(head.info.fileName(), inFolder, head);
    row.role = row.format ? row.format->role : InputRole::Other;
    row.reason = row.format ? QString::fromLatin1(row.format->what) : QStringLiteral("no input the workbench reads");
    if (head.tables)
        row.formatNote = head.tables->note;
    if (row.role == InputRole::ChromeTrace) {
        row.nameRank = formats::rankFromTraceName(fileNameOf(row.relativePath));
        // torch_profile.json is the torch trace by its name; whether its content is one
        // decides whether it is also a rank and a `.gz` beside it its copy.
        row.traceContent = row.format->sniff || formats::chromeTraceContent(head);
    }
    return row;
}

} // namespace

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

    for (const RunFolderEntry &entry : entries)
        inv.m_rows.push_back(describe(entry, alone));
    inv.choose();
    return inv;
}

int RunInventory::indexOf(const QString &relative) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].relativePath == relative)
            return int(i);
    return -1;
}

void RunInventory::choose()
{
    chooseKernelSources();
    chooseTelemetry();
    chooseChromeTraces();
    choosePrimaryTrace();
}

/// trace.csv, else the per-process CSVs, else the databases, else rocprofv3 JSON and pftrace.
void RunInventory::chooseKernelSources()
{
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

}

/// amd_smi.csv, else the first telemetry log by path.
void RunInventory::chooseTelemetry()
{
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

}

/// One chrome trace per rank, each read once.
void RunInventory::chooseChromeTraces()
{
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

}

void RunInventory::choosePrimaryTrace()
{
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
        if (row.role == InputRole::LookAlike) {
            row.role = InputRole::ChromeTrace;
            row.format = &formats::chromeTrace();  // read as one, so that its diagnostics say what is wrong
        }
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
