#pragma once
/// \file Kernel dispatches from rocprofv3's rocpd SQLite database (ROCm 7's default output),
/// fed into the same accumulators as a kernel-trace CSV, so a folder with the `.db` gives the
/// report of the same run's trace.csv.
///
/// The rows are those of the `kernels` view, read per process from the suffixed tables with the
/// view's joins (every join on id and guid; the view drops a dispatch whose agent, event,
/// region string, symbol, queue/process or thread row is missing, and so does this reader):
/// faster than the view in merged files (its UNION ALL views defeat SQLite's join indexes) and
/// independent of the LZ4 views. The rows are read in storage order, but first uses (which
/// name and which agent comes first) follow rocpd2csv's order: start, then end descending. Each row
/// reads as rocpd2csv writes it: Kernel_Name = the symbol's display_name, Start/End_Timestamp,
/// Agent_Id "Agent <logical_index>"; the duration is end - start. Its roctx ranges (rocpd_region
/// rows of a MARKER_* category) go to KernelTrace::host, where step-named ones become steps.

#include "kerneltraceparser.h"
#include "kernels/kernelsink.h"
#include "progress.h"

#include <QString>

namespace goblin
{

/// A database file's row in the inputs, and the refusal every database reader (rocpd, rpd, nsys)
/// gives when it cannot read the file: a diagnostic naming it, and the row saying what it is.
class DatabaseRow
{
public:
    DatabaseRow(const QString &path, const QString &rel, const QString &format, KernelTrace &trace);
    ReadOutcome refuse(Severity severity, const QString &message, const QString &dialect);
    InputFileInfo info;

private:
    KernelTrace &m_trace;
};

/// Reads one database (both readings, and one KernelTrace::timeline file with its kernels).
/// Appends one InputFileInfo and the diagnostics to `trace`. `progress` gets the bytes of
/// this file read so far (an estimate from the rows read); false cancels.
ReadOutcome readRocpdDatabase(const QString &path, const QString &rel, KernelSink &sink, KernelTrace &trace,
                               const ProgressCallback &progress = {});

} // namespace goblin
