// Kernel-dispatch CSVs: the reference's trace.csv, rocprofv3's per-process files, and other
// profilers' kernel CSVs, read when opened alone (kerneltraceparser.h reads them all).

#include "formats/builtinformats.h"

#include "io/runinventory.h"

namespace goblin::formats {

namespace {

/// A CSV whose header names a kernel (Kernel_Name, KernelName, "Kernel Name"): a kernel trace
/// of some profiler. Only for a file opened alone; in a folder such files are hints.
bool sniffKernelCsv(const FileHead &head)
{
    if (head.content != HeadContent::Text)
        return false;
    const QString header = head.headerLine().toLower();
    QString squeezed;
    for (const QChar c : header)
        if (c != QLatin1Char(' ') && c != QLatin1Char('_') && c != QLatin1Char('"'))
            squeezed += c;
    for (const QString &column : squeezed.split(QLatin1Char(',')))
        if (column == QLatin1String("kernelname"))
            return true;
    return false;
}

const QStringList kOtherKernelCsvNames{QStringLiteral("results.csv"), QStringLiteral("results_*.csv"),
                                       QStringLiteral("timestamps.csv"), QStringLiteral("*cuda_gpu_trace*.csv")};

} // namespace

const InputFormat &referenceKernelTrace()
{
    // The reference's name decides alone: it reads trace.csv whatever it holds.
    static const InputFormat f{"kernel-trace-csv", InputRole::KernelTrace, FormatPlace::Folder,
                               {kKernelTraceFileName}, nullptr, 1000, "the kernel trace", "a kernel trace",
                               "holds no kernel row the workbench reads"};
    return f;
}

const InputFormat &processKernelTrace()
{
    static const InputFormat f{"kernel-trace-csv", InputRole::ProcessKernelTrace, FormatPlace::Anywhere,
                               {QStringLiteral("*_kernel_trace.csv")}, nullptr, 900,
                               "a rocprofv3 per-process kernel trace", "a kernel trace",
                               "holds no kernel row the workbench reads"};
    return f;
}

const InputFormat &aloneKernelTraceByName()
{
    static const InputFormat f{"kernel-trace-csv", InputRole::ProcessKernelTrace, FormatPlace::AloneOnly,
                               kOtherKernelCsvNames, nullptr, 300, "a kernel trace opened alone", "a kernel trace",
                               "holds no kernel row the workbench reads"};
    return f;
}

const InputFormat &aloneKernelTraceByHeader()
{
    static const InputFormat f{"kernel-trace-csv", InputRole::ProcessKernelTrace, FormatPlace::AloneOnly,
                               {QStringLiteral("*.csv")}, &sniffKernelCsv, 290, "a kernel trace opened alone",
                               "a kernel trace", "holds no kernel row the workbench reads"};
    return f;
}

const InputFormat &kernelDataLookAlike()
{
    // Kernel data of other tools in a folder: a hint in the diagnostics, not read.
    static const InputFormat f{"kernel-data-look-alike", InputRole::LookAlike, FormatPlace::Anywhere,
                               kOtherKernelCsvNames, nullptr, 200, "kernel data", "an input",
                               "holds nothing readable"};
    return f;
}

} // namespace goblin::formats
