#pragma once
/// \file The run inventory: one walk of a run folder (the folder and its direct sub-folders, see
/// io/runfolder.h), or of the files a caller picked, that names every file once — its role,
/// whether the workbench and the reference read it, why it was chosen or left out, and its size.
/// The entries (parseKernelTraces, parseTorchTrace, parseAmdSmi) read the files it chose and the
/// loader takes its byte total from it, so the folder is walked once and the rules of which file
/// stands in for which are written here only.
///
/// Detection stays apart from reading: each file's head is read once (FileHead) and the format
/// registry (formats/registry.h) names its format — name patterns, a place, a sniff of the head,
/// by priority (after perfetto's TraceTypeDescriptor and TraceImporterRegistry::Guess). The row
/// keeps the format, so an entry calls the reader the format names and never sniffs again; what a
/// file holds beyond its head is for the readers to find out.

#include "formats/inputformat.h"

#include <QLatin1String>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace goblin {

/// The reference's three inputs: `profile_parser.parse()` reads these names in the run folder
/// and nothing else.
inline constexpr QLatin1String kKernelTraceFileName("trace.csv");
inline constexpr QLatin1String kTorchTraceFileName("torch_profile.json");
inline constexpr QLatin1String kSmiFileName("amd_smi.csv");

/// What to load: a run folder, a file alone, or some files of a folder.
struct RunSource {
    /// A folder, or a file: a file is read alone, as if it were the only file of its folder (so the
    /// reference reads it only when it bears one of the three names above).
    QString path;
    /// With a folder: only these of its files (paths relative to it, '/'-separated), e.g. one
    /// separate run of a folder; empty: the whole folder.
    QStringList files;
    /// The names of the roctx ranges that are steps, as a regular expression matched against the
    /// whole name, case-insensitive (apitraceparser.h); empty: defaultStepRangePattern().
    QString stepPattern;
};

/// Why a chrome trace is left out (InputRole::NotRead).
enum class SkippedAs { Nothing, CompressedCopy, OlderSession };

/// One file of the inventory.
struct InputRow {
    QString relativePath;          ///< relative to the folder, '/'-separated
    InputRole role = InputRole::Other;
    /// The format the registry named (null: no input of the workbench); the entries call its reader.
    const InputFormat *format = nullptr;
    /// What the sniff found beyond the format (a database with rpd's tables but not the columns
    /// the rpd reader needs: which); the entry says it after reading.
    QString formatNote;
    bool read = false;             ///< an entry reads it
    /// Read only when the first choice holds nothing the workbench can read (the per-process
    /// kernel traces beside a trace.csv).
    bool fallback = false;
    bool referenceReads = false;   ///< profile_parser.parse() reads it
    bool primary = false;          ///< the torch trace whose CPU lane and metadata give the readings
    QString reason;                ///< why it was chosen or left out, in plain words
    qint64 sizeBytes = 0;
    HeadContent content = HeadContent::Text;
    QString contentText;           ///< the head in plain words: "empty (0 bytes)", "binary data, not text", …
    bool traceContent = false;     ///< the head shows a chrome trace (a primary read by its name may not)
    std::optional<int> nameRank;   ///< chrome traces: the rank the file name states
    SkippedAs skippedAs = SkippedAs::Nothing;
    QString keptPath;              ///< NotRead: the file read in its place
};

/// The inputs of one run source. Built once per load; cheap to copy.
class RunInventory
{
public:
    /// Walks `source` (a file alone, a folder, or the listed files of a folder). Reads at most
    /// the first 4 KB of each file, and for a chrome-trace candidate (JSON or gzip) up to the
    /// first megabyte of its text, until its top-level "traceEvents" key shows.
    static RunInventory scan(const RunSource &source);
    static RunInventory scanFolder(const QString &folder) { return scan(RunSource{folder, {}, {}}); }

    QString folder() const { return m_folder; }       ///< absolute
    bool wholeFolder() const { return m_wholeFolder; } ///< false: a file alone, or picked files
    const std::vector<InputRow> &rows() const { return m_rows; }
    QString filePath(const InputRow &row) const;       ///< absolute
    const InputRow *find(const QString &relativePath) const;

    /// `trace.csv` (also when it is a folder or a FIFO: the reference then fails to read it).
    const InputRow *kernelTrace() const { return roleAt(m_kernelTrace); }
    /// The per-process kernel traces (read when there is no trace.csv, else as its fallback).
    std::vector<const InputRow *> processKernelTraces() const { return rowsOf(InputRole::ProcessKernelTrace); }
    /// The database candidates, read only when there is no CSV kernel trace at all.
    std::vector<const InputRow *> databases() const { return rowsOf(InputRole::RocpdDatabase); }
    /// rocprofv3 JSON files and Perfetto traces, known by their content: kernel traces read when
    /// there is no CSV kernel trace and no database gives kernels (rocprofjson/, pftrace/).
    std::vector<const InputRow *> rocprofJsons() const { return rowsOf(InputRole::RocprofJson); }
    std::vector<const InputRow *> pftraces() const { return rowsOf(InputRole::Pftrace); }
    /// Kernel data the workbench does not pick up by itself (a hint in the diagnostics).
    std::vector<const InputRow *> kernelLookAlikes() const;
    /// `torch_profile.json` (in whatever form: the reference reads it, or fails to).
    const InputRow *torchReference() const { return roleAt(m_torchReference); }
    /// The torch trace the readings come from: torch_profile.json when it is a readable file,
    /// else torch_profile.json.gz, else the first chrome trace in rank order, else a
    /// `*.pt.trace.json[.gz]` of the folder whose head shows no trace (read so that its
    /// diagnostics say what is wrong with it). Null when none.
    const InputRow *torchPrimary() const { return roleAt(m_torchPrimary); }
    /// Every chrome trace read (one per rank), in rank order: the rank the file name states
    /// first (unknown last), then the path. The primary is among them when its content is a
    /// chrome trace.
    std::vector<const InputRow *> chromeTraces() const;
    /// The chrome traces left out (a `.gz` copy, an older session of a worker), in walk order.
    std::vector<const InputRow *> skippedChromeTraces() const;
    /// rocprofv3 API traces (`*_marker_api_trace.csv`, `*_hip_api_trace.csv`, known by their header).
    std::vector<const InputRow *> apiTraces() const { return rowsOf(InputRole::ApiTrace); }
    /// The run's telemetry: `amd_smi.csv`, else the first telemetry log (by path) known by its
    /// content (nvidia-smi, dcgmi dmon, rocm-smi); the others are listed, not read.
    const InputRow *smiTelemetry() const { return roleAt(m_smi); }

    /// Bytes the entries will read (the fallbacks left out): the loader's progress total.
    qint64 bytesToRead() const;
    /// Does any entry read a file of it? (False: an empty folder, a file that is no input.)
    bool readsAnything() const;

private:
    const InputRow *roleAt(int index) const { return index < 0 ? nullptr : &m_rows[std::size_t(index)]; }
    std::vector<const InputRow *> rowsOf(InputRole role) const;
    int indexOf(const QString &relativePath) const;
    // The choice, in phases: which kernel source, which telemetry, one chrome trace per rank, the primary.
    void choose();
    void chooseKernelSources();
    void chooseTelemetry();
    void chooseChromeTraces();
    void choosePrimaryTrace();

    QString m_folder;
    bool m_wholeFolder = true;
    std::vector<InputRow> m_rows;
    int m_kernelTrace = -1;
    int m_torchReference = -1;
    int m_torchPrimary = -1;
    int m_smi = -1;
};

} // namespace goblin
