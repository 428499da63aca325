#pragma once
/// \file The workbench's reading of an amd-smi (or rocm-smi, nvidia-smi) telemetry CSV: a real
/// CSV reader, the dialect's columns and VRAM unit (smicolumns.cpp), then per-GPU samples, the
/// job window and the aggregates (smisamples.cpp).

#include "amdsmi/smicommon.h"
#include "amdsmiparser.h"
#include "workbench/smidialects.h"

#include <QByteArray>
#include <QString>

#include <initializer_list>
#include <string>
#include <vector>

namespace goblin::workbench
{

/// One data row with the cells the workbench needs, copied out of the reader's buffer.
struct RawRow {
    qint64 line = 0;
    std::string gpu, timestamp, util, vram, total;
};

class WorkbenchReader
{
public:
    WorkbenchReader(const QByteArray &bytes, const QString &file, SmiTelemetry &out, amdsmi::ProgressGate &gate)
        : m_bytes(bytes), m_file(file), m_out(out), m_gate(gate)
    {
    }

    /// Returns the workbench's column names for the comparison with the reference.
    void run();

    QString utilColumn;  ///< empty when none
    QString hbmColumn;
    VramUnit hbmUnit = VramUnit::Unknown;
    QString hbmUnitReason;
    bool headerFound = false;

private:
    void diag(Severity severity, qint64 line, const QString &message)
    {
        m_out.diagnostics.push_back({severity, m_file, line, message});
    }
    bool looksBinary(qint64 *line) const;
    int findColumn(std::initializer_list<const char *> aliases) const;
    void resolveColumns();
    QString describeDialect() const;
    void decideVramUnit();
    void buildSamples();
    void markJobWindow();
    void aggregate();

    const QByteArray &m_bytes;
    QString m_file;
    SmiTelemetry &m_out;
    amdsmi::ProgressGate &m_gate;

    std::vector<std::string> m_header;       ///< trimmed header cells as written
    std::vector<std::string> m_headerLower;  ///< trimmed, lower case
    qint64 m_headerLine = 0;
    Tool m_tool = Tool::Unknown;
    int m_gpuCol = -1, m_timeCol = -1, m_utilCol = -1, m_vramCol = -1, m_totalCol = -1, m_rocmCol = -1;
    int m_usageCol = -1;  ///< a bare `usage` column (never read as utilisation)
    bool m_bannerSeen = false;
    qint64 m_blankLines = 0;
    qint64 m_repeatedHeaders = 0;
    std::vector<RawRow> m_rows;
};

} // namespace goblin::workbench
