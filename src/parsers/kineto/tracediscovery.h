#pragma once
/// \file Finds the chrome traces (torch.profiler / Kineto JSON, plain or gzip) of a run folder by
/// their content rather than their name: one per rank in multi-GPU jobs (`rank-3.json.gz`,
/// `sampled_rank-0.json.gz`, `worker0.<pid>.pt.trace.json.gz`, …).

#include <QString>
#include <optional>
#include <vector>

namespace goblin::kineto {

/// Does the file hold a chrome trace? True when its (decompressed) text is a JSON object with a
/// top-level "traceEvents" key within its first megabyte; only the head is read.
bool looksLikeChromeTrace(const QString &path);

struct FoundTrace {
    QString relativePath;       ///< relative to the run folder, '/'-separated
    std::optional<int> nameRank; ///< rank the file name states (see rankFromFileName())
};

/// Every chrome trace in `runDir` and its direct sub-folders, sorted by rank from the name (unknown
/// last), then by path. A `X.json.gz` next to a `X.json` is the same trace compressed: only the
/// plain one is listed.
std::vector<FoundTrace> findChromeTraces(const QString &runDir);

/// The rank a trace's file name states: `rank-3.json.gz`, `sampled_rank-0.json.gz`, `rank3.pt.trace.json`,
/// `rank_12…`; nullopt when it states none.
std::optional<int> rankFromFileName(const QString &fileName);

} // namespace goblin::kineto
