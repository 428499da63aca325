#include "workbench/smireader.h"

#include "pynumber.h"
#include "syntax/csvreader.h"
#include "syntax/utf8validator.h"
#include "telemetry/telemetrylogs.h"

#include <QDateTime>
#include <QTimeZone>

#include <algorithm>
#include <limits>
#include <map>

namespace goblin::workbench
{

namespace
{

using amdsmi::q;
using amdsmi::shown;
using amdsmi::cellHoldsSecret;
using syntax::firstUtf8Error;

/// Share of N/A values above which a column counts as "mostly N/A".
constexpr double kMostlyMissingShare = 0.5;

} // namespace

void WorkbenchReader::run()
{
    if (m_bytes.isEmpty()) {
        diag(Severity::Error, 0, QStringLiteral("the file is empty (0 bytes): no telemetry"));
        return;
    }
    qint64 binaryLine = 0;
    if (looksBinary(&binaryLine)) {
        diag(Severity::Error, binaryLine,
             binaryLine > 0 ? QStringLiteral("binary data (a NUL byte at line %1), not amd-smi CSV text: not read")
                                  .arg(binaryLine)
                            : QStringLiteral("binary data (many control characters), not amd-smi CSV text: not read"));
        return;
    }
    if (const auto bad = firstUtf8Error(m_bytes))
        diag(Severity::Warning, bad->line,
             QStringLiteral("not valid UTF-8 (byte offset %1); read anyway, but the reference profile crashes on "
                            "this file (%2)")
                 .arg(bad->offset)
                 .arg(bad->pythonMessage));

    CsvReader reader{QByteArrayView(m_bytes)};
    std::vector<std::string_view> fields;
    qint64 preambleRecords = 0, preambleFirstLine = 0, banners = 0;
    qint64 &blankLines = m_blankLines;
    qint64 foreignRows = 0, foreignFirstLine = 0;
    bool inForeignBlock = false;
    DiagnosticLimiter shapeDiag(m_out.diagnostics, m_file, QStringLiteral("a field count that differs from the header"));
    DiagnosticLimiter quoteDiag(m_out.diagnostics, m_file, QStringLiteral("a field over several lines"));
    const qint64 total = qMax<qint64>(1, m_bytes.size());
    qint64 records = 0;
    qint64 lastRecordLine = 0;

    while (reader.readRecord(fields)) {
        if ((++records & 0xff) == 0 && !m_gate.report(0, double(reader.bytesConsumed()) / double(total)))
            return;
        const qint64 line = reader.recordStartLine();
        lastRecordLine = line;
        const bool blank = fields.empty() || (fields.size() == 1 && trimAscii(fields[0]).empty());
        if (blank) {
            if (headerFound)
                ++blankLines;
            continue;
        }
        if (!headerFound) {
            if (isBanner(fields)) {
                m_bannerSeen = true;
                ++banners;
                continue;
            }
            if (looksLikeHeader(fields)) {
                headerFound = true;
                m_headerLine = line;
                for (std::string_view f : fields) {
                    m_header.emplace_back(trimAscii(f));
                    m_headerLower.push_back(lowerAscii(trimAscii(f)));
                }
                resolveColumns();
                continue;
            }
            if (preambleRecords++ == 0)
                preambleFirstLine = line;
            continue;
        }
        // Structure lines that repeat in polled and watch output.
        bool sameAsHeader = fields.size() == m_header.size();
        for (size_t i = 0; sameAsHeader && i < fields.size(); ++i)
            sameAsHeader = trimAscii(fields[i]) == m_header[i];
        if (sameAsHeader) {
            ++m_repeatedHeaders;
            inForeignBlock = false;
            continue;
        }
        if (isBanner(fields)) {
            m_bannerSeen = true;
            ++banners;
            continue;
        }
        if (!isPlainNumber(trimAscii(fields[0])) && looksLikeHeader(fields)) {
            if (!inForeignBlock)
                diag(Severity::Warning, line,
                     QStringLiteral("a different header (%1 columns, starting '%2'); the rows under it are "
                                    "skipped until the first header appears again")
                         .arg(fields.size())
                         .arg(shown(trimAscii(fields[0]))));
            inForeignBlock = true;
            continue;
        }
        ++m_out.file.rowsRead;
        if (inForeignBlock) {
            if (foreignRows++ == 0)
                foreignFirstLine = line;
            ++m_out.file.rowsSkipped;
            continue;
        }
        // amd-smi never writes a line break inside a field: one means an unbalanced quote.
        for (std::string_view f : fields)
            if (f.find_first_of("\r\n") != std::string_view::npos) {
                quoteDiag.add(line, QStringLiteral("a quoted field starting here runs over several lines (an "
                                                   "unclosed quote?)"));
                break;
            }
        if (fields.size() != m_header.size()) {
            shapeDiag.add(line, QStringLiteral("%1 fields where the header (line %2) has %3; row skipped")
                                    .arg(fields.size())
                                    .arg(m_headerLine)
                                    .arg(m_header.size()));
            ++m_out.file.rowsSkipped;
            continue;
        }
        RawRow row;
        row.line = line;
        auto take = [&](int col, std::string &into) {
            if (col >= 0)
                into.assign(fields[size_t(col)]);
        };
        take(m_gpuCol, row.gpu);
        take(m_timeCol, row.timestamp);
        take(m_utilCol, row.util);
        take(m_vramCol, row.vram);
        take(m_totalCol, row.total);
        if (m_rocmCol >= 0 && m_out.workbench.rocmVersion.isEmpty()) {
            const std::string_view v = trimAscii(fields[size_t(m_rocmCol)]);
            if (!isMissingToken(v))
                m_out.workbench.rocmVersion = q(v);
        }
        m_rows.push_back(std::move(row));
    }
    shapeDiag.flush();
    quoteDiag.flush();
    if (!reader.errorString().isEmpty())
        diag(Severity::Error, lastRecordLine,
             QStringLiteral("read error after line %1: %2").arg(lastRecordLine).arg(reader.errorString()));
    if (reader.hadTruncatedField())
        diag(Severity::Warning, 0, QStringLiteral("a field longer than 64 MB was cut short"));

    if (!headerFound) {
        diag(Severity::Error, 0,
             QStringLiteral("no amd-smi CSV header found in %1 line(s) (looked for a line naming columns such as "
                            "gpu, gfx_activity, used_vram, gfx or vram_used): no telemetry")
                 .arg(lastRecordLine));
        return;
    }
    if (banners > 0 || preambleRecords > 0) {
        QStringList parts;
        if (banners > 0)
            parts << QStringLiteral("%1 amd-smi watch banner line(s)").arg(banners);
        if (preambleRecords > 0)
            parts << QStringLiteral("%1 other line(s) before the header (first at line %2)")
                         .arg(preambleRecords)
                         .arg(preambleFirstLine);
        diag(preambleRecords > 0 ? Severity::Warning : Severity::Info, m_headerLine,
             QStringLiteral("dropped %1").arg(parts.join(QStringLiteral(" and "))));
    }
    if (m_repeatedHeaders > 0 || blankLines > 0) {
        QStringList parts;
        if (m_repeatedHeaders > 0)
            parts << QStringLiteral("%1 repeated header row(s)").arg(m_repeatedHeaders);
        if (blankLines > 0)
            parts << QStringLiteral("%1 blank line(s)").arg(blankLines);
        diag(Severity::Info, 0,
             QStringLiteral("dropped %1 (amd-smi prints a header and a blank line with every sample)")
                 .arg(parts.join(QStringLiteral(" and "))));
    }
    if (foreignRows > 0)
        diag(Severity::Warning, foreignFirstLine,
             QStringLiteral("%1 row(s) under a different header skipped").arg(foreignRows));

    m_out.file.dialect = describeDialect();
    if (m_tool == Tool::Unknown)
        diag(Severity::Warning, m_headerLine,
             QStringLiteral("the header (line %1) does not match amd-smi metric/monitor, rocm-smi or nvidia-smi "
                            "output; only columns with well-known names are read")
                 .arg(m_headerLine));

    if (m_rows.empty() && m_out.file.rowsRead == 0)
        diag(Severity::Warning, m_headerLine,
             QStringLiteral("a header (line %1) but no data rows: no telemetry").arg(m_headerLine));
    else if (m_rows.empty())
        diag(Severity::Warning, m_headerLine,
             QStringLiteral("none of the %1 data row(s) under the header (line %2) could be used: no telemetry")
                 .arg(m_out.file.rowsRead)
                 .arg(m_headerLine));
    decideVramUnit();
    buildSamples();
    markJobWindow();
    aggregate();
}

void WorkbenchReader::buildSamples()
{
    const bool unitSuffixes = m_tool == Tool::NvidiaSmi;
    DiagnosticLimiter badValues(m_out.diagnostics, m_file, QStringLiteral("values that are not numbers"));
    DiagnosticLimiter nonFinite(m_out.diagnostics, m_file, QStringLiteral("non-finite values"));
    DiagnosticLimiter outOfRange(m_out.diagnostics, m_file, QStringLiteral("values out of range"));
    DiagnosticLimiter badKeys(m_out.diagnostics, m_file, QStringLiteral("an unreadable GPU index or timestamp"));
    const QString utilName = utilColumn, vramName = hbmColumn;
    qint64 utilMissing = 0, vramMissing = 0;
    const double gbFactor = gbPerUnit(hbmUnit);
    std::vector<double> times;  // absolute, parallel to samples
    std::map<int, int> perGpuIndex;

    auto number = [&](const RawRow &row, const std::string &text, const QString &column, qint64 &missing,
                      double lo, double hi) -> double {
        const CellValue c = readCell(text, unitSuffixes);
        // A cell of a line that holds a secret elsewhere is not quoted (see cellHoldsSecret()).
        auto cell = [&] {
            for (const std::string *f : {&row.gpu, &row.timestamp, &row.util, &row.vram, &row.total})
                if (cellHoldsSecret(*f))
                    return QStringLiteral("[withheld: its line holds a secret]");
            return shown(trimAscii(text));
        };
        switch (c.kind) {
        case CellValue::Kind::Missing:
            ++missing;
            return NAN;
        case CellValue::Kind::NonFinite:
            nonFinite.add(row.line, QStringLiteral("'%1' is '%2', not a finite number; value ignored")
                                        .arg(column, cell()));
            return NAN;
        case CellValue::Kind::NotANumber:
            badValues.add(row.line,
                          QStringLiteral("'%1' is '%2', not a number; value ignored").arg(column, cell()));
            return NAN;
        case CellValue::Kind::Value:
            break;
        }
        if (c.value < lo || c.value > hi) {
            outOfRange.add(row.line, QStringLiteral("'%1' is %2, outside %3..%4; value ignored")
                                         .arg(column, shown(trimAscii(text)))
                                         .arg(lo)
                                         .arg(hi));
            return NAN;
        }
        return c.value;
    };

    for (const RawRow &row : m_rows) {
        int gpu = 0;
        if (m_gpuCol >= 0) {
            std::string_view g = trimAscii(row.gpu);
            if (m_tool == Tool::RocmSmi && lowerAscii(g).rfind("card", 0) == 0)
                g.remove_prefix(4);
            const StrictNumber n = strictNumber(g);
            if (n.status != StrictNumber::Status::Ok || !n.isInteger || n.integer < 0 || n.integer > 4095) {
                badKeys.add(row.line, QStringLiteral("GPU index '%1' is not a GPU number; row skipped").arg(shown(g)));
                ++m_out.file.rowsSkipped;
                continue;
            }
            gpu = int(n.integer);
        }
        double t = NAN;
        if (m_timeCol >= 0) {
            const std::string_view ts = trimAscii(row.timestamp);
            if (m_tool == Tool::NvidiaSmi) {
                QDateTime dt = QDateTime::fromString(q(ts), QStringLiteral("yyyy/MM/dd HH:mm:ss.zzz"));
                if (!dt.isValid())
                    dt = QDateTime::fromString(q(ts), QStringLiteral("yyyy/MM/dd HH:mm:ss"));
                if (dt.isValid()) {
                    dt.setTimeZone(QTimeZone::utc());  // no zone in the file; only differences matter
                    t = double(dt.toMSecsSinceEpoch()) / 1000.0;
                }
            } else {
                const StrictNumber n = strictNumber(ts);
                if (n.status == StrictNumber::Status::Ok)
                    t = n.value;
            }
            if (std::isnan(t)) {
                badKeys.add(row.line, QStringLiteral("timestamp '%1' is not a time; row skipped").arg(shown(ts)));
                ++m_out.file.rowsSkipped;
                continue;
            }
        }
        TelemetrySample s;
        s.gpu = gpu;
        if (m_utilCol >= 0)
            s.utilPct = number(row, row.util, utilName, utilMissing, 0.0, 100.0);
        if (m_vramCol >= 0) {
            const double v = number(row, row.vram, vramName, vramMissing, 0.0, std::numeric_limits<double>::max());
            s.hbmUsedGb = v * gbFactor;
        }
        if (m_totalCol >= 0) {
            const CellValue c = readCell(row.total, unitSuffixes);
            if (c.kind == CellValue::Kind::Value && c.value > 0)
                s.hbmTotalGb = c.value * gbFactor;
        }
        const int index = perGpuIndex[gpu]++;
        s.timeS = std::isnan(t) ? index * m_out.intervalS : 0.0;
        times.push_back(t);
        m_out.samples.push_back(s);
    }
    badValues.flush();
    nonFinite.flush();
    outOfRange.flush();
    badKeys.flush();
    m_out.gpuCount = int(perGpuIndex.size());

    if (m_timeCol >= 0 && !m_out.samples.empty()) {
        const double t0 = *std::min_element(times.begin(), times.end());
        // Wall clock of the first sample, for placing the samples on a trace's steps: amd-smi
        // writes whole Unix seconds, nvidia-smi local time to the millisecond (no zone).
        m_out.startEpochS = t0;
        m_out.wallClockLocal = m_tool == Tool::NvidiaSmi;
        m_out.timestampResolutionS = m_tool == Tool::NvidiaSmi ? 0.001 : 1.0;
        std::map<int, double> lastTime;
        std::vector<double> gaps;
        for (size_t i = 0; i < m_out.samples.size(); ++i) {
            m_out.samples[i].timeS = times[i] - t0;
            const int g = m_out.samples[i].gpu;
            auto it = lastTime.find(g);
            if (it != lastTime.end() && times[i] > it->second)
                gaps.push_back(times[i] - it->second);
            lastTime[g] = times[i];
        }
        if (!gaps.empty()) {
            std::nth_element(gaps.begin(), gaps.begin() + ptrdiff_t(gaps.size() / 2), gaps.end());
            m_out.measuredIntervalS = gaps[gaps.size() / 2];
        }
    } else if (!m_out.samples.empty()) {
        diag(Severity::Info, 0,
             QStringLiteral("no timestamp column: sample times are the sample number per GPU × %1 s (the nominal "
                            "polling period)")
                 .arg(m_out.intervalS));
    }

    const qint64 n = qint64(m_out.samples.size());
    auto reportMissing = [&](const QString &column, qint64 missing, const QString &consequence) {
        if (missing == 0 || n == 0)
            return;
        const bool all = missing == n;
        const bool mostly = double(missing) > kMostlyMissingShare * double(n);
        diag(all || mostly ? Severity::Warning : Severity::Info, 0,
             all ? QStringLiteral("'%1' is N/A in all %2 samples: %3").arg(column).arg(n).arg(consequence)
                 : QStringLiteral("'%1' is N/A in %2 of %3 samples%4; those values are skipped, not read as zero")
                       .arg(column)
                       .arg(missing)
                       .arg(n)
                       .arg(mostly ? QStringLiteral(" (mostly N/A)") : QString()));
    };
    reportMissing(utilName, utilMissing,
                  QStringLiteral("utilisation unavailable, the engine falls back to kernel time"));
    reportMissing(vramName, vramMissing, QStringLiteral("HBM usage unavailable"));
}

void WorkbenchReader::markJobWindow()
{
    telemetry::markJobWindow(m_out, m_file);
}

void WorkbenchReader::aggregate()
{
    telemetry::aggregateSamples(m_out);
    double total = NAN;
    for (const TelemetrySample &s : m_out.samples)
        if (!std::isnan(s.hbmTotalGb))
            total = std::isnan(total) ? s.hbmTotalGb : std::max(total, s.hbmTotalGb);
    if (!std::isnan(total)) {
        m_out.hbmTotalGb = total;
        m_out.hbmTotalSource = QStringLiteral("'%1' column").arg(QString::fromStdString(m_header[size_t(m_totalCol)]));
    }

    if (!headerFound)
        return;
    std::vector<ColumnChoice> &cols = m_out.file.workbenchColumns;
    if (m_utilCol >= 0) {
        const QString reason =
            m_tool == Tool::AmdSmiMetric      ? QStringLiteral("GFX utilisation of the amd-smi metric usage group")
            : m_tool == Tool::NvidiaSmi       ? QStringLiteral("nvidia-smi GPU utilisation")
            : m_tool == Tool::RocmSmi         ? QStringLiteral("rocm-smi GPU use")
            : utilColumn == QLatin1String("gfx") ? QStringLiteral("amd-smi monitor's GFX utilisation column")
                                                 : QStringLiteral("a GFX utilisation column by its exact name");
        cols.push_back({QStringLiteral("gpu_util"), utilColumn, reason, QStringLiteral("%")});
    } else {
        const QString why =
            m_usageCol >= 0
                ? QStringLiteral("'usage' is fan usage or the collapsed usage group amd-smi writes when it cannot "
                                 "read utilisation, never GFX utilisation")
                : QStringLiteral("no GFX utilisation column in the header");
        cols.push_back({QStringLiteral("gpu_util"), QString(), why, QStringLiteral("%")});
        diag(m_rows.empty() ? Severity::Info : Severity::Warning, m_headerLine,
             QStringLiteral("utilisation unavailable (%1); the engine falls back to kernel time").arg(why));
    }
    if (m_vramCol >= 0) {
        cols.push_back({QStringLiteral("hbm_used"), hbmColumn, hbmUnitReason, unitName(hbmUnit)});
    } else {
        cols.push_back({QStringLiteral("hbm_used"), QString(),
                        QStringLiteral("no used-VRAM column (used_vram, vram_used, …) in the header"), QString()});
        diag(m_rows.empty() ? Severity::Info : Severity::Warning, m_headerLine,
             QStringLiteral("no used-VRAM column (used_vram, vram_used, …): HBM usage unavailable"));
    }
    if (m_rocmCol >= 0)
        cols.push_back({QStringLiteral("rocm_version"), QString::fromStdString(m_header[size_t(m_rocmCol)]),
                        QStringLiteral("exact name"), QString()});
    if (m_gpuCol >= 0)
        cols.push_back({QStringLiteral("gpu"), QString::fromStdString(m_header[size_t(m_gpuCol)]),
                        QStringLiteral("GPU index of each row"), QString()});
    else
        cols.push_back({QStringLiteral("gpu"), QString(), QStringLiteral("no GPU column: every row is GPU 0"),
                        QString()});
    if (m_timeCol >= 0)
        cols.push_back({QStringLiteral("timestamp"), QString::fromStdString(m_header[size_t(m_timeCol)]),
                        m_tool == Tool::NvidiaSmi ? QStringLiteral("local wall-clock time, relative to the first sample")
                                                  : QStringLiteral("Unix seconds, relative to the first sample"),
                        QStringLiteral("s")});
    else
        cols.push_back({QStringLiteral("timestamp"), QString(),
                        QStringLiteral("no timestamp column: sample number × %1 s").arg(m_out.intervalS),
                        QStringLiteral("s")});
}

} // namespace goblin::workbench
