#include "telemetry/logcommon.h"
#include "telemetry/telemetrylogs.h"

#include "columnresolver.h"
#include "pynumber.h"
#include "redaction.h"

#include <QStringList>

#include <algorithm>
#include <limits>

namespace goblin::telemetry
{

namespace
{

/// Share of N/A values above which a column counts as "mostly N/A" (the amd-smi reader's rule).
constexpr double kMostlyMissingShare = 0.5;

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

/// Days from 1970-01-01 to the civil date (proleptic Gregorian; H. Hinnant's algorithm).
qint64 daysFromCivil(qint64 y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const qint64 era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = unsigned(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + qint64(doe) - 719468;
}

} // namespace

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && isSpace(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && isSpace(s.back()))
        s.remove_suffix(1);
    return s;
}

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char &c : out)
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
    return out;
}

QString text(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

QString excerpt(std::string_view s) { return inputExcerpt(s); }

std::vector<Line> splitLines(QByteArrayView bytes)
{
    std::vector<Line> lines;
    const char *p = bytes.data();
    const qsizetype n = bytes.size();
    qsizetype start = 0;
    qint64 number = 1;
    for (qsizetype i = 0; i < n; ++i) {
        if (p[i] != '\n' && p[i] != '\r')
            continue;
        lines.push_back({number++, std::string_view(p + start, size_t(i - start))});
        if (p[i] == '\r' && i + 1 < n && p[i + 1] == '\n')
            ++i;
        start = i + 1;
    }
    if (start < n)
        lines.push_back({number, std::string_view(p + start, size_t(n - start))});
    if (!lines.empty() && lines.front().text.substr(0, 3) == "\xEF\xBB\xBF")
        lines.front().text.remove_prefix(3);
    return lines;
}

Cell readNumber(std::string_view raw)
{
    std::string_view s = trimmed(raw);
    const std::string l = lower(s);
    if (l.empty() || l == "n/a" || l == "[n/a]" || l == "na" || l == "-" || l == "not supported" ||
        l == "[not supported]" || l == "[unknown error]" || l == "[gpu is lost]" || l == "[insufficient permissions]")
        return {};
    Cell cell;
    // A unit after the number ("22 %", "841 MiB", "22.89 W"): letters, % and / after a space.
    const size_t space = s.rfind(' ');
    if (space != std::string_view::npos) {
        const std::string_view suffix = s.substr(space + 1);
        if (!suffix.empty() && std::all_of(suffix.begin(), suffix.end(), [](char c) {
                return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '%' || c == '/';
            })) {
            cell.unit = text(suffix);
            s = trimmed(s.substr(0, space));
        }
    } else if (!s.empty() && s.back() == '%') {
        cell.unit = QStringLiteral("%");
        s.remove_suffix(1);
    }
    const StrictNumber n = strictNumber(s);
    if (n.status == StrictNumber::Status::Ok) {
        cell.kind = Cell::Kind::Value;
        cell.value = n.value;
    } else {
        cell.kind = Cell::Kind::NotANumber;
    }
    return cell;
}

qint64 binaryLine(QByteArrayView bytes)
{
    const qsizetype n = std::min<qsizetype>(bytes.size(), 1 << 16);
    qint64 line = 1, control = 0;
    for (qsizetype i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        if (c == '\n')
            ++line;
        if (c == 0)
            return line;
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
            ++control;
    }
    return n > 0 && control * 10 > n ? 1 : 0;
}

double parseWallClock(std::string_view t)
{
    t = trimmed(t);
    // yyyy/MM/dd HH:mm:ss[.f…]
    if (t.size() < 19)
        return NAN;
    auto digits = [&](size_t at, size_t count, int &into) {
        int v = 0;
        for (size_t i = at; i < at + count; ++i) {
            if (t[i] < '0' || t[i] > '9')
                return false;
            v = v * 10 + (t[i] - '0');
        }
        into = v;
        return true;
    };
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
    const bool dateSeps = (t[4] == '/' || t[4] == '-') && t[7] == t[4];
    if (!dateSeps || (t[10] != ' ' && t[10] != 'T') || t[13] != ':' || t[16] != ':')
        return NAN;
    if (!digits(0, 4, y) || !digits(5, 2, mo) || !digits(8, 2, d) || !digits(11, 2, h) || !digits(14, 2, mi) ||
        !digits(17, 2, s))
        return NAN;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
        return NAN;
    double fraction = 0.0;
    if (t.size() > 19) {
        if (t[19] != '.' || t.size() == 20)
            return NAN;
        double scale = 0.1;
        for (size_t i = 20; i < t.size(); ++i) {
            if (t[i] < '0' || t[i] > '9')
                return NAN;
            fraction += (t[i] - '0') * scale;
            scale /= 10.0;
        }
    }
    const qint64 days = daysFromCivil(y, unsigned(mo), unsigned(d));
    return double(days * 86400 + h * 3600 + mi * 60 + s) + fraction;
}

// ---------------------------------------------------------------------------------------------

LogBuilder::LogBuilder(SmiTelemetry &out, const QString &file)
    : m_out(out), m_file(file),
      m_rowProblems(out.diagnostics, file, QStringLiteral("rows that could not be read")),
      m_outOfRange(out.diagnostics, file, QStringLiteral("values out of range"))
{
}

void LogBuilder::noteRepeatedColumns(qint64 line, const QStringList &header)
{
    if (m_repeatedColumnsSaid)
        return;
    const std::vector<RepeatedColumn> repeated = repeatedColumns(header);
    for (const RepeatedColumn &column : repeated)
        diag(Severity::Warning, line, repeatedColumnMessage(column, line));
    m_repeatedColumnsSaid = !repeated.empty();
}

void LogBuilder::noteRepeatedColumns(qint64 line, const std::vector<std::string> &header)
{
    QStringList names;
    names.reserve(qsizetype(header.size()));
    for (const std::string &h : header)
        names << QString::fromStdString(h);
    noteRepeatedColumns(line, names);
}

void LogBuilder::rowProblem(qint64 line, const QString &message, bool skipped)
{
    m_rowProblems.add(line, message);
    if (skipped)
        ++m_out.file.rowsSkipped;
}

int LogBuilder::gpuOf(const QString &key)
{
    bool ok = false;
    const int n = key.toInt(&ok);
    if (ok && n >= 0 && n < 4096)
        return n;
    auto it = m_gpuKeys.find(key);
    if (it != m_gpuKeys.end())
        return it->second;
    const int next = int(m_gpuKeys.size());
    m_gpuKeys.emplace(key, next);
    return next;
}

double LogBuilder::checked(qint64 line, double value, double lo, double hi, const QString &column)
{
    if (std::isnan(value) || (value >= lo && value <= hi))
        return value;
    m_outOfRange.add(line, QStringLiteral("'%1' is %2, outside %3..%4; value ignored")
                               .arg(column)
                               .arg(value)
                               .arg(lo)
                               .arg(hi));
    return NAN;
}

void LogBuilder::add(qint64 line, int gpu, double epochS, double utilPct, double usedGb, double totalGb, double powerW)
{
    m_rows.push_back({line, gpu, epochS, utilPct, usedGb, totalGb, powerW});
}

void LogBuilder::finish(double intervalS, const QString &noClockWhy)
{
    m_rowProblems.flush();
    m_outOfRange.flush();
    m_out.intervalS = intervalS;
    std::map<int, int> perGpu;
    bool clock = !m_rows.empty();
    for (const Row &r : m_rows)
        clock = clock && !std::isnan(r.epochS);
    double t0 = NAN;
    if (clock)
        for (const Row &r : m_rows)
            t0 = std::isnan(t0) ? r.epochS : std::min(t0, r.epochS);
    std::map<int, double> lastTime;
    std::vector<double> gaps;
    for (const Row &r : m_rows) {
        TelemetrySample s;
        s.gpu = r.gpu;
        s.utilPct = r.util;
        s.hbmUsedGb = r.used;
        s.hbmTotalGb = r.total;
        s.powerW = r.power;
        const int index = perGpu[r.gpu]++;
        if (clock) {
            s.timeS = r.epochS - t0;
            auto it = lastTime.find(r.gpu);
            if (it != lastTime.end() && r.epochS > it->second)
                gaps.push_back(r.epochS - it->second);
            lastTime[r.gpu] = r.epochS;
        } else {
            s.timeS = index * intervalS;
        }
        m_out.samples.push_back(s);
    }
    m_out.gpuCount = int(perGpu.size());
    if (clock) {
        m_out.startEpochS = t0;
        if (!gaps.empty()) {
            std::nth_element(gaps.begin(), gaps.begin() + ptrdiff_t(gaps.size() / 2), gaps.end());
            m_out.measuredIntervalS = gaps[gaps.size() / 2];
        }
    } else if (!m_rows.empty()) {
        diag(Severity::Info, 0,
             QStringLiteral("no clock in the log (%1): sample times are the sample number per GPU × %2 s, so the "
                            "samples cannot be placed on the trace's steps")
                 .arg(noClockWhy)
                 .arg(intervalS));
    }

    // N/A summaries: skipped, never read as zero.
    const qint64 n = qint64(m_out.samples.size());
    for (const auto &[column, count] : m_missing) {
        if (n == 0 || count == 0)
            continue;
        const bool all = count >= n;
        const bool mostly = double(count) > kMostlyMissingShare * double(n);
        diag(all || mostly ? Severity::Warning : Severity::Info, 0,
             all ? QStringLiteral("'%1' is N/A in all %2 samples: not available").arg(column).arg(n)
                 : QStringLiteral("'%1' is N/A in %2 of %3 samples%4; those values are skipped, not read as zero")
                       .arg(column)
                       .arg(count)
                       .arg(n)
                       .arg(mostly ? QStringLiteral(" (mostly N/A)") : QString()));
    }

    // Total memory: a column. A log without one names its GPUs at most: the names are reported as
    // the log writes them, and the run's devices decide what memory a name means (the one table).
    double total = NAN;
    for (const TelemetrySample &s : m_out.samples)
        if (!std::isnan(s.hbmTotalGb))
            total = std::isnan(total) ? s.hbmTotalGb : std::max(total, s.hbmTotalGb);
    if (!std::isnan(total)) {
        m_out.hbmTotalGb = total;
        m_out.hbmTotalSource = totalWhy.isEmpty() ? QStringLiteral("'%1' column").arg(totalColumn) : totalWhy;
    }
    for (const auto &[gpu, name] : gpuNames)
        if (!name.isEmpty())
            m_out.gpuNames[gpu] = name;

    markJobWindow(m_out, m_file);
    aggregateSamples(m_out);

    std::vector<ColumnChoice> &cols = m_out.file.workbenchColumns;
    cols.push_back({QStringLiteral("gpu_util"), utilColumn,
                    utilColumn.isEmpty() ? utilWhy : utilWhy.isEmpty() ? QStringLiteral("GPU utilisation") : utilWhy,
                    QStringLiteral("%")});
    cols.push_back({QStringLiteral("hbm_used"), usedColumn,
                    usedColumn.isEmpty() ? usedWhy : usedWhy.isEmpty() ? QStringLiteral("memory used") : usedWhy,
                    usedUnit});
    if (!totalColumn.isEmpty() || m_out.hbmTotalGb)
        cols.push_back({QStringLiteral("hbm_total"), totalColumn, m_out.hbmTotalSource, QStringLiteral("GB")});
    if (!powerColumn.isEmpty())
        cols.push_back({QStringLiteral("power"), powerColumn, QStringLiteral("board power"), QStringLiteral("W")});
    cols.push_back({QStringLiteral("gpu"), gpuColumn,
                    gpuColumn.isEmpty() ? QStringLiteral("no GPU column: every row is GPU 0")
                                        : QStringLiteral("GPU of each row"),
                    QString()});
    cols.push_back({QStringLiteral("timestamp"), timeColumn,
                    timeColumn.isEmpty() ? QStringLiteral("no timestamp: sample number × %1 s").arg(intervalS)
                                         : QStringLiteral("local wall-clock time, relative to the first sample"),
                    QStringLiteral("s")});
    if (utilColumn.isEmpty() && !m_out.samples.empty())
        diag(Severity::Warning, 0,
             QStringLiteral("utilisation unavailable (%1); the engine falls back to kernel time").arg(utilWhy));
    if (usedColumn.isEmpty() && !m_out.samples.empty())
        diag(Severity::Warning, 0, QStringLiteral("memory used unavailable (%1): HBM usage unknown").arg(usedWhy));
}

// ---------------------------------------------------------------------------------------------

void markJobWindow(SmiTelemetry &out, const QString &file)
{
    auto diag = [&](const QString &message) { out.diagnostics.push_back({Severity::Info, file, 0, message}); };
    if (out.samples.empty())
        return;
    const bool anyUtil = std::any_of(out.samples.begin(), out.samples.end(),
                                     [](const TelemetrySample &s) { return !std::isnan(s.utilPct); });
    if (!anyUtil) {
        diag(QStringLiteral("without utilisation values the job window cannot be found: all %1 samples are "
                            "averaged, idle lead-in and tail included")
                 .arg(out.samples.size()));
        return;
    }
    std::map<int, std::pair<qint64, qint64>> busySpan;  // gpu -> first, last busy sample index
    for (qint64 i = 0; i < qint64(out.samples.size()); ++i) {
        const TelemetrySample &s = out.samples[size_t(i)];
        if (std::isnan(s.utilPct) || s.utilPct <= kSmiIdleUtilPct)
            continue;
        auto it = busySpan.find(s.gpu);
        if (it == busySpan.end())
            busySpan[s.gpu] = {i, i};
        else
            it->second.second = i;
    }
    QStringList neverBusy;
    std::map<int, bool> seen;
    int outside = 0;
    for (qint64 i = 0; i < qint64(out.samples.size()); ++i) {
        TelemetrySample &s = out.samples[size_t(i)];
        auto it = busySpan.find(s.gpu);
        if (it == busySpan.end()) {
            if (!seen[s.gpu]) {
                seen[s.gpu] = true;
                neverBusy << QString::number(s.gpu);
            }
            continue;  // a GPU that never works has no window: keep all its samples
        }
        if (i < it->second.first || i > it->second.second) {
            s.inJobWindow = false;
            ++outside;
        }
    }
    out.samplesOutsideJob = outside;
    if (outside > 0)
        diag(QStringLiteral("%1 of %2 samples lie outside the job window (at most %3 % GFX utilisation, before the "
                            "first or after the last busy sample of their GPU) and are left out of the utilisation "
                            "mean and the HBM average; the HBM peak is over all samples")
                 .arg(outside)
                 .arg(out.samples.size())
                 .arg(kSmiIdleUtilPct));
    if (!neverBusy.isEmpty())
        diag(QStringLiteral("GPU %1 never rose above %2 % utilisation: no job window, all of its samples are kept")
                 .arg(neverBusy.join(QStringLiteral(", ")))
                 .arg(kSmiIdleUtilPct));
}

void aggregateSamples(SmiTelemetry &out)
{
    SmiReading &w = out.workbench;
    double utilSum = 0.0, hbmSum = 0.0;
    int utilN = 0, hbmN = 0;
    std::optional<double> peak;
    for (const TelemetrySample &s : out.samples) {
        if (!std::isnan(s.hbmUsedGb))
            peak = peak ? std::max(*peak, s.hbmUsedGb) : s.hbmUsedGb;
        if (!s.inJobWindow)
            continue;
        if (!std::isnan(s.utilPct)) {
            utilSum += s.utilPct;
            ++utilN;
        }
        if (!std::isnan(s.hbmUsedGb)) {
            hbmSum += s.hbmUsedGb;
            ++hbmN;
        }
    }
    w.gpuUtilPct = utilN > 0 ? std::optional<double>(utilSum / utilN) : std::nullopt;
    w.hbmAvgGb = hbmN > 0 ? std::optional<double>(hbmSum / hbmN) : std::nullopt;
    w.hbmPeakGb = peak;
    w.utilSamples = utilN;
    w.hbmSamples = hbmN;
}

} // namespace goblin::telemetry
