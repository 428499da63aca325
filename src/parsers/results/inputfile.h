#pragma once
/// \file What the engine learnt about one input file: shown in the report's `inputs` section.

#include <QString>
#include <vector>

namespace goblin {

/// The column a profile chose for one role (kernel name, start, utilisation…) and why.
struct ColumnChoice {
    QString role;    ///< "kernel_name", "start", "end", "duration", "agent", "gpu_util", "hbm_used", …
    QString column;  ///< header text of the chosen column; empty when none was found
    QString reason;  ///< e.g. "exact alias match", "substring tier: every token of 'Start' appears"
    QString unit;    ///< unit the value is read in ("ns", "%", "MB", "GB"); empty if not numeric
};

struct InputFileInfo {
    QString relativePath;  ///< relative to the run folder
    qint64 sizeBytes = 0;
    QString format;        ///< "kernel-trace-csv", "kineto-json", "amd-smi-csv", …
    QString dialect;       ///< "rocprofv3 ROCm 7.x (22 columns)", "amd-smi metric", …
    bool compressed = false;
    std::vector<ColumnChoice> workbenchColumns;
    std::vector<ColumnChoice> referenceColumns;
    qint64 rowsRead = 0;     ///< data rows / events seen
    qint64 rowsSkipped = 0;  ///< rows the workbench reading did not use (each reason is a diagnostic)
};

} // namespace goblin
