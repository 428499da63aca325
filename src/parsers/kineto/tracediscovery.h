#pragma once
/// \file Recognises chrome traces (torch.profiler / Kineto JSON, plain or gzip) by their content
/// rather than their name — one per rank in multi-GPU jobs (`rank-3.json.gz`,
/// `sampled_rank-0.json.gz`, `worker0.<pid>.pt.trace.json.gz`, …) — and the rank a file name
/// states. The run inventory (io/runinventory.h) uses both when it walks a folder.

#include <QString>
#include <optional>
#include <vector>

namespace goblin::kineto {

/// Does the file hold a chrome trace? True when its (decompressed) text is a JSON object with a
/// top-level "traceEvents" key within its first megabyte, or the Trace Event Format's array form
/// (`[{"ph": "X", "name": …}, …]`, which Perfetto opens) whose first element is a trace event;
/// only the head is read.
bool looksLikeChromeTrace(const QString &path);

struct FoundTrace {
    QString relativePath;       ///< relative to the run folder, '/'-separated
    std::optional<int> nameRank; ///< rank the file name states (see rankFromFileName())
};

/// A chrome trace of the folder that findChromeTraces() leaves out, and why.
struct SkippedTrace {
    enum class Reason {
        CompressedCopy,  ///< `X.json.gz` next to `X.json`: the same trace compressed
        OlderSession,    ///< `W.<time>.pt.trace.json` with a newer `W.<later>.pt.trace.json` beside it
    };
    QString relativePath;
    QString keptPath;  ///< the trace read in its place
    Reason reason = Reason::CompressedCopy;
};

/// Every chrome trace in `runDir` and its direct sub-folders, one per rank, sorted by rank from
/// the name (unknown last), then by path, with the ones left out in `skipped`: the run
/// inventory's chrome traces (io/runinventory.h, where the rules of which trace is read live —
/// a `X.json.gz` next to a `X.json` is the same trace compressed, and of several sessions of one
/// tensorboard_trace_handler worker the latest is read). For tools and tests; the entries take
/// the inventory itself.
std::vector<FoundTrace> findChromeTraces(const QString &runDir, std::vector<SkippedTrace> *skipped = nullptr);

/// The rank a trace's file name states: `rank-3.json.gz`, `sampled_rank-0.json.gz`, `rank3.pt.trace.json`,
/// `rank_12…`; nullopt when it states none.
std::optional<int> rankFromFileName(const QString &fileName);

} // namespace goblin::kineto
