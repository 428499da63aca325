#pragma once
/// \file The workbench's reading of a kernel-trace CSV, record by record: the layout from the
/// header (or from a header after a few banner lines), each row to a dispatch or a skip reason
/// with a limited diagnostic, the dispatches into the accumulator and the timeline, and the
/// summary diagnostics of the file.

#include "kerneltraceparser.h"
#include "kernels/accumulator.h"
#include "kernels/namepool.h"
#include "kernels/timelinebuilder.h"
#include "results/hostlanes.h"
#include "workbench/kernellayouts.h"

#include <QString>
#include <QStringList>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace goblin
{
class CsvReader;
}

namespace goblin::workbench
{

class KernelRows
{
public:
    /// `fileName` is the file's own name (it tells some layouts apart and gives rocprofv3's pid);
    /// `rel` names the file in diagnostics.
    KernelRows(KernelTrace &trace, kernels::Accumulator &accumulator, kernels::RowNameIds &names, int host,
               const QString &rel, const QString &fileName);
    ~KernelRows();

    /// The first record: the layout, or the start of a search for a header after a banner when
    /// `search` (the workbench reads this file) and the record is a single field.
    void onHeader(const std::vector<std::string_view> &fields, const CsvReader &reader, bool search);
    /// Called at every progress step: sizes the timeline once from the rows seen so far.
    void onProgress(qint64 consumed, qint64 fileSize);
    /// One record after the header (not blank); `recordBytes` = its length in the file.
    void onRecord(const std::vector<std::string_view> &fields, const CsvReader &reader, qint64 line,
                  qint64 recordBytes);
    /// After the last record: the file's summary diagnostics and its columns into `info`.
    void finish(const CsvReader &reader, InputFileInfo &info);
    /// Only the dialect into `info` (the workbench does not read this file).
    void noteDialect(InputFileInfo &info) const;
    /// The timeline of the file into the trace (unless cancelled), after `info` was stored.
    void finishTimeline(bool cancelled);

    bool usable() const { return m_layout.usable; }
    /// Keep each kernel's Correlation_Id (the HIP call that launched it, in the API traces) for the
    /// Timeline's flows: the file's GpuTimelineFile::hostLanes then holds them (gpuByPlace only;
    /// the loader adds the host side). Before onHeader().
    void keepCorrelations(bool keep) { m_keepCorrelations = keep; }

private:
    void useLayout(KernelLayout layout, const QStringList &header);

    KernelTrace &m_trace;
    kernels::Accumulator &m_acc;
    kernels::RowNameIds &m_names;
    int m_host = 0;
    QString m_rel;
    QString m_fileName;

    KernelLayout m_layout;
    QStringList m_header;
    std::string m_headerName;
    qint64 m_headerLine = 0;
    int m_headerCount = 0;
    int m_maxNeeded = -1;
    int m_queueColumn = -1;
    int m_correlationColumn = -1;  ///< only with m_keepCorrelations
    bool m_keepCorrelations = false;
    std::vector<GpuCorrelation> m_correlations;
    bool m_searching = false;
    int m_preambleLines = 0;
    QString m_firstLineText;
    bool m_firstRecordBinary = false;

    struct Limiters;
    std::unique_ptr<Limiters> m_limit;
    qint64 m_negativeRows = 0, m_zeroRows = 0, m_memcpyRows = 0;
    qint64 m_repeatedHeaders = 0, m_repeatedHeaderLine = 0;
    qint64 m_floatLine = 0;
    QString m_floatExample;
    qint64 m_rowsRead = 0, m_skipped = 0;

    kernels::TimelineBuilder m_timeline;
    qint64 m_filePid = -1;
    bool m_timelineSized = false;
};

} // namespace goblin::workbench
