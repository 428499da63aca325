#pragma once
/// \file The kernel-trace layouts the workbench knows, as tables: look-alike files it refuses
/// (statistics, agent info, API, copy, counter and allocation traces), the rocprofv3 releases
/// told apart by their marker columns, and the column names each layout reads.

#include "columnresolver.h"
#include "results/inputfile.h"

#include <QString>
#include <QStringList>
#include <vector>

namespace goblin::workbench
{

enum class Timing { EndMinusStart, StartPlusDuration, DurationOnly };

/// How the workbench reads one file, decided from its header.
struct KernelLayout {
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
    /// Names the header holds more than once (where a name repeats, the last column is read).
    std::vector<RepeatedColumn> repeated;
};

/// The layout of a header (names as written, BOM stripped); `fileName` tells rocprofiler-compute's
/// timestamps.csv from a rocprofv2 trace with the same columns.
KernelLayout detectKernelLayout(const QStringList &header, const QString &fileName);

} // namespace goblin::workbench
