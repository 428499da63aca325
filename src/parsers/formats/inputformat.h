#pragma once
/// \file An input format as the run inventory knows it: a descriptor (name, where its files lie,
/// name patterns, a sniff of the file's head, a detection priority, the words the loader prints)
/// and the reader entry it hands the file to. Every format is one descriptor; formats/registry.h
/// lists them all, and the inventory (io/runinventory.h) decides each file's format once, from
/// one read of its head, and hands the reader the decision. After perfetto's TraceTypeDescriptor
/// and TraceImporter (`src/trace_processor/util/trace_type.h`, `importers/common/trace_importer.h`):
/// the descriptor lives next to the format's words, the one list in the registry.

#include "progress.h"

#include <QByteArray>
#include <QFileInfo>
#include <QString>
#include <QStringList>

#include <optional>

namespace goblin {

struct KernelTrace;   // kerneltraceparser.h
struct KernelSink;     // rocpdreader.h
enum class ReadOutcome;
struct SmiTelemetry;  // amdsmiparser.h

/// What a file is to the workbench: which entry reads it and by which rules of the inventory
/// (io/runinventory.h, RunInventory::choose) it is chosen. Several formats share a role (the
/// three databases, the three telemetry logs).
enum class InputRole {
    KernelTrace,         ///< `trace.csv` in the folder: the reference's kernel input, the workbench's first choice
    ProcessKernelTrace,  ///< rocprofv3's `<pid>_kernel_trace.csv` (folder or sub-folder), or a kernel-trace
                         ///< CSV opened alone
    RocpdDatabase,       ///< `*.db`, `*.rpd`, `*.sqlite`, `*.sqlite3`: rocpd, rpd or nsys as its tables say
    RocprofJson,         ///< rocprofv3 `--output-format json` (`*.json[.gz]` whose head shows "rocprofiler-sdk-tool")
    Pftrace,             ///< a Perfetto TracePacket stream (`*.pftrace`, `*.perfetto-trace`, `*.pb`, plain or .gz)
    ChromeTrace,         ///< a torch.profiler / Kineto chrome trace, plain or gzip, known by its content
    SmiTelemetry,        ///< `amd_smi.csv` in the folder, or a telemetry log known by its content (nvidia-smi,
                         ///< dcgmi dmon, rocm-smi; any name, folder or sub-folder)
    ApiTrace,            ///< rocprofv3's marker (roctx) or HIP API trace CSV: steps and host activity, by content
    LookAlike,           ///< named like an input but not read as one (kernel data the workbench does not pick up
                         ///< by itself; a `*.pt.trace.json` whose head is no chrome trace)
    NotRead,             ///< the data of a file that is read: a `.gz` copy of a plain trace, an older session
    Other,               ///< no input of the workbench
};

/// "kernel trace", "per-process kernel trace", "profiler database", "chrome trace", "GPU
/// telemetry", "look-alike", "not read", "other".
QString inputRoleName(InputRole role);

/// What a file's first bytes show.
enum class HeadContent {
    NotAFile,    ///< a folder, a FIFO, a device… (contentText says which)
    Unreadable,  ///< cannot be opened
    Empty,       ///< 0 bytes
    Binary,      ///< NUL bytes or bytes that are not UTF-8: random bytes, not text
    Gzip,
    Sqlite,
    Json,        ///< text starting with '{' or '['
    Text,
};

/// A file's head, read once by the inventory and handed to every format's sniff.
struct FileHead {
    QString path;             ///< absolute
    QFileInfo info;
    QByteArray bytes;         ///< the first kHeadBytes
    HeadContent content = HeadContent::Text;
    QString contentText;      ///< the head in plain words: "empty (0 bytes)", "binary data, not text", …
    bool alone = false;       ///< the file was picked (not found by walking the folder)

    static constexpr qint64 kHeadBytes = 4096;

    /// Reads the head of `path` (nothing for a folder or a special file, which would block).
    static FileHead read(const QString &path, const QFileInfo &info, bool alone);
    /// The first line of a text head (a CSV's header), without a byte order mark.
    QString headerLine() const;
    /// The first bytes of the content: the head, or for gzip the head of what it inflates to
    /// (inflated once, on the first call, and kept for the other sniffs).
    QByteArray contentHead(qint64 max) const;

    /// What a database's tables say, read once on the first database sniff (formats/databaseformats.cpp):
    /// the kind (rpd/dbcommon.h's DatabaseKind as an int) and a note (rpd's tables without the
    /// columns its reader needs).
    struct Tables {
        int kind = 0;
        QString note;
    };
    mutable std::optional<Tables> tables;

private:
    mutable std::optional<QByteArray> m_inflated;
};

/// Where a format's files lie.
enum class FormatPlace {
    Folder,     ///< the run folder itself (the reference's place)
    Anywhere,   ///< the folder or a direct sub-folder
    AloneOnly,  ///< a file opened alone
};

/// Reads one kernel file of this format into the run's kernel trace (rocpdreader.h's sink: the
/// name pool and the readings' accumulators). `progress` gets this file's bytes; false cancels.
using KernelFileReader = ReadOutcome (*)(const QString &path, const QString &relativePath, KernelSink &sink,
                                          KernelTrace &trace, const ProgressCallback &progress);
/// Reads one telemetry file of this format (the whole run's telemetry).
using TelemetryFileReader = SmiTelemetry (*)(const QString &path, const QString &relativePath,
                                             const ProgressCallback &progress);

/// One input format. Passive data and two function pointers; the registry holds one per format.
struct InputFormat {
    /// Stable id: "kernel-trace-csv", "rocpd", "rpd", "nsys", "rocprofv3-json", "pftrace",
    /// "chrome-trace", "amd-smi-csv", "nvidia-smi-csv", "dcgmi-dmon", "rocm-smi-csv", "api-trace-csv" …
    const char *name;
    InputRole role;
    FormatPlace place;
    QStringList patterns;                 ///< file-name patterns ("*" any); a name alone decides when sniff is null
    /// Does the head show this format? Null: the name decides. Tried only when a pattern fits.
    bool (*sniff)(const FileHead &head);
    /// Higher is tried first (perfetto's detection_priority): a format that stands in for another
    /// on the same names (the reference's three names before any sniff, rocprofv3's JSON before a
    /// chrome trace, a telemetry log before the look-alikes) sits above it.
    int priority;
    const char *what;                     ///< the file in plain words, the inventory row's reason when chosen
    const char *noun;                     ///< the loader's word for it: "a profiler database"
    const char *holdsNothing;             ///< the loader's words when it gave nothing: "holds no kernel dispatch"
    KernelFileReader readKernels = nullptr;      ///< the kernel formats read one by one (databases, JSON, pftrace)
    TelemetryFileReader readTelemetry = nullptr; ///< the telemetry formats
    bool referenceReads = false;          ///< rocpd: both profiles read it as the trace.csv rocpd2csv makes
    /// A container (a gzipped database): the entry inflates it (io/inflatedcopy.h) and the
    /// registry names the format of what it holds (guessInnerFormat).
    bool container = false;
    bool binaryContent = false;           ///< binary bytes are its normal content (protobuf), not a sign of a wrong file
};

} // namespace goblin
