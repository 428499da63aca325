#pragma once
/// \file What the three telemetry log readers share: lines of a text buffer, a numeric cell with
/// its unit and missing-value tokens, and the builder that turns rows into SmiTelemetry samples,
/// times, aggregates, columns and the diagnostics about them.

#include "amdsmiparser.h"
#include "diagnostic.h"

#include <QByteArrayView>
#include <QString>
#include <QStringList>

#include <cmath>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace goblin::telemetry
{

std::string_view trimmed(std::string_view s);
std::string lower(std::string_view s);
QString text(std::string_view s);
/// A cell as a message quotes it: short, secrets redacted (inputExcerpt()).
QString excerpt(std::string_view s);

/// The lines of `bytes` (LF, CRLF or CR line ends), each with its 1-based number.
struct Line {
    qint64 number = 0;
    std::string_view text;  ///< without the line end
};
std::vector<Line> splitLines(QByteArrayView bytes);

/// One numeric cell. nvidia-smi writes `[N/A]`, `[Not Supported]`, `[Unknown Error]`, `[GPU is
/// lost]`; DCGM and rocm-smi `N/A`: all missing, never zero.
struct Cell {
    enum class Kind { Value, Missing, NotANumber } kind = Kind::Missing;
    double value = NAN;
    QString unit;  ///< the unit written after the number ("MiB", "%", "W"), empty when none
};
Cell readNumber(std::string_view raw);

/// A text that is no telemetry log at all (NUL bytes, control characters): the line of the first
/// such byte, else 0.
qint64 binaryLine(QByteArrayView bytes);

/// Collects one log's rows and finishes the SmiTelemetry from them.
class LogBuilder
{
public:
    LogBuilder(SmiTelemetry &out, const QString &file);

    void diag(Severity severity, qint64 line, const QString &message)
    {
        m_out.diagnostics.push_back({severity, m_file, line, message});
    }
    /// The header at `line` names a column more than once: a warning, for the first such header
    /// of the file. The readers read the last of them, as csv.DictReader keeps the last value.
    void noteRepeatedColumns(qint64 line, const QStringList &header);
    /// As above, for names held as std::string.
    void noteRepeatedColumns(qint64 line, const std::vector<std::string> &header);

    /// A per-row problem, capped (DiagnosticLimiter); `skipped`: the row is left out.
    void rowProblem(qint64 line, const QString &message, bool skipped = true);

    /// A GPU key as the log writes it (index, PCI bus id, `card3`): its 0-based GPU number.
    /// Numbers are kept; other keys are numbered in order of first appearance.
    int gpuOf(const QString &key);

    /// Adds one sample. `epochS` NaN: the log has no clock (times are sample numbers × interval).
    /// Values NaN: missing in the row.
    void add(qint64 line, int gpu, double epochS, double utilPct, double usedGb, double totalGb, double powerW);
    /// A value outside its range (utilisation 0..100, memory and power ≥ 0): a diagnostic, NaN.
    double checked(qint64 line, double value, double lo, double hi, const QString &column);

    /// Counts a missing value of a column, for the summary at the end.
    void missing(const QString &column) { ++m_missing[column]; }

    /// Names of the columns read (for the column table and the summaries).
    QString utilColumn, usedColumn, totalColumn, powerColumn, gpuColumn, timeColumn;
    QString utilWhy, usedWhy, totalWhy;
    QString usedUnit = QStringLiteral("MiB");
    /// A GPU model name per GPU (nvidia-smi `name`, rocm-smi `Card Series`), for the capacity.
    std::map<int, QString> gpuNames;

    /// Turns the rows into samples: times relative to the first (or sample numbers × `intervalS`
    /// with `noClockWhy` as the reason), the job window, the aggregates, the total memory (from a
    /// column; the GPU names as written), the columns table and the N/A summaries.
    void finish(double intervalS, const QString &noClockWhy);

    qint64 rows() const { return qint64(m_rows.size()); }

private:
    struct Row {
        qint64 line;
        int gpu;
        double epochS, util, used, total, power;
    };
    SmiTelemetry &m_out;
    QString m_file;
    std::vector<Row> m_rows;
    std::map<QString, int> m_gpuKeys;
    std::map<QString, qint64> m_missing;
    DiagnosticLimiter m_rowProblems;
    DiagnosticLimiter m_outOfRange;
    bool m_repeatedColumnsSaid = false;
};

/// Unix seconds of `yyyy/MM/dd HH:mm:ss[.fff]` (also `-` as date separator, `T` between date and
/// time) read as UTC; NaN when the text is no such time.
double parseWallClock(std::string_view text);

} // namespace goblin::telemetry
