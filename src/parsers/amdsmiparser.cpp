#include "amdsmiparser.h"

#include "io/regularfile.h"

#include "columnresolver.h"
#include "syntax/csvreader.h"
#include "pynumber.h"

#include <QBuffer>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStringList>
#include <QTimeZone>

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <string_view>

namespace goblin {

namespace {

const QString kFormat = QStringLiteral("amd-smi-csv");
constexpr qint64 kProgressStepBytes = 4 << 20;
/// Python's csv.field_size_limit() default, in characters (code points).
constexpr qint64 kPythonFieldLimit = 131072;
/// amd-smi writes MB values as integers of bytes // 2^20, so a total of more than 4096 can only
/// be MB (no GPU has 4 TB), while the GB view rounds the 192 GB of an MI300X to 0.1.
constexpr double kTotalVramMbThreshold = 4096.0;
/// Share of N/A values above which a column counts as "mostly N/A".
constexpr double kMostlyMissingShare = 0.5;

QString q(std::string_view text) { return QString::fromUtf8(text.data(), qsizetype(text.size())); }

/// A cell quoted in a message: long cells (list reprs, garbage) are cut so a message stays a line.
QString shown(std::string_view text)
{
    constexpr size_t kMax = 40;
    if (text.size() <= kMax)
        return q(text);
    return q(text.substr(0, kMax)) + QStringLiteral("… (%1 bytes)").arg(text.size());
}

// ---------------------------------------------------------------------------------------------
// Progress over the two passes: the workbench pass reports the first half of the file size, the
// reference pass the second half, so the callback sees one monotonic count up to the file size.
class ProgressGate
{
public:
    ProgressGate(const ProgressCallback &callback, qint64 totalBytes)
        : m_callback(callback), m_total(totalBytes),
          m_step(std::clamp<qint64>(totalBytes / 100, 64 << 10, kProgressStepBytes))
    {
    }

    /// `fraction` of the pass `pass` (0 or 1) done; returns false once cancelled.
    bool report(int pass, double fraction)
    {
        if (m_cancelled)
            return false;
        if (!m_callback)
            return true;
        const qint64 done =
            qint64(double(m_total) * (0.5 * pass + 0.5 * std::clamp(fraction, 0.0, 1.0)));
        if (done < m_last + m_step && done != m_total)
            return true;
        m_last = done;
        if (!m_callback(done))
            m_cancelled = true;
        return !m_cancelled;
    }
    bool cancelled() const { return m_cancelled; }

private:
    const ProgressCallback &m_callback;
    qint64 m_total;
    qint64 m_step;
    qint64 m_last = 0;
    bool m_cancelled = false;
};

// ---------------------------------------------------------------------------------------------
// Python text semantics (the reference reads the file with Path.read_text()).

/// Py_UNICODE_ISSPACE: what str.strip() and str.split() treat as whitespace.
bool isPyUnicodeSpace(char32_t c)
{
    return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f ||
           c == 0x3000;
}

/// What str.splitlines() splits on (besides the two-character "\r\n").
bool isPyLineBreak(char16_t c)
{
    return c == u'\n' || c == u'\r' || c == u'\v' || c == u'\f' || c == 0x1c || c == 0x1d || c == 0x1e ||
           c == 0x85 || c == 0x2028 || c == 0x2029;
}

/// str.strip() without arguments. Every Python whitespace character is in the BMP, so UTF-16
/// code units can be tested one by one.
QString pyStrip(const QString &s)
{
    qsizetype b = 0, e = s.size();
    while (b < e && isPyUnicodeSpace(s[b].unicode()))
        ++b;
    while (e > b && isPyUnicodeSpace(s[e - 1].unicode()))
        --e;
    return s.mid(b, e - b);
}

bool isPyBlank(const QString &s)
{
    for (QChar c : s)
        if (!isPyUnicodeSpace(c.unicode()))
            return false;
    return true;
}

/// Lower-cases A-Z only. Exact for the reference's tests: every token it looks for is ASCII,
/// and the only non-ASCII characters whose Python lower() contains ASCII (U+0130 -> "i\u0307",
/// U+212A -> "k") cannot complete any of those tokens.
QString asciiLower(const QString &s)
{
    QString out = s;
    for (QChar &c : out)
        if (c.unicode() >= 'A' && c.unicode() <= 'Z')
            c = QChar(char16_t(c.unicode() - 'A' + 'a'));
    return out;
}

/// Python's float(str) of a cell: pythonFloat() takes UTF-8 and applies CPython's Unicode rules
/// (Unicode spaces and decimal digits accepted, \x1c..\x1f not).
std::optional<double> pyFloatOfText(const QString &text)
{
    const QByteArray utf8 = text.toUtf8();
    return pythonFloat(std::string_view(utf8.constData(), size_t(utf8.size())));
}

/// Where Python's strict UTF-8 decoder (Path.read_text) fails, with its message.
struct Utf8Failure {
    qint64 offset = 0;
    qint64 line = 1;
    QString pythonMessage;
};

std::optional<Utf8Failure> firstUtf8Error(const QByteArray &bytes)
{
    const auto *p = reinterpret_cast<const unsigned char *>(bytes.constData());
    const qint64 n = bytes.size();
    qint64 i = 0;
    auto fail = [&](qint64 at, qint64 len, const char *reason) {
        Utf8Failure f;
        f.offset = at;
        f.line = 1 + std::count(bytes.constBegin(), bytes.constBegin() + at, '\n');
        if (len <= 1)
            f.pythonMessage = QStringLiteral("'utf-8' codec can't decode byte 0x%1 in position %2: %3")
                                  .arg(p[at], 2, 16, QLatin1Char('0'))
                                  .arg(at)
                                  .arg(QLatin1String(reason));
        else
            f.pythonMessage = QStringLiteral("'utf-8' codec can't decode bytes in position %1-%2: %3")
                                  .arg(at)
                                  .arg(at + len - 1)
                                  .arg(QLatin1String(reason));
        return f;
    };
    auto cont = [&](qint64 k) { return k < n && (p[k] & 0xc0) == 0x80; };
    while (i < n) {
        const unsigned char c = p[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        int need = 0;
        unsigned char lo = 0x80, hi = 0xbf;
        if (c >= 0xc2 && c <= 0xdf) {
            need = 1;
        } else if (c >= 0xe0 && c <= 0xef) {
            need = 2;
            if (c == 0xe0)
                lo = 0xa0;
            if (c == 0xed)
                hi = 0x9f;  // no surrogates
        } else if (c >= 0xf0 && c <= 0xf4) {
            need = 3;
            if (c == 0xf0)
                lo = 0x90;
            if (c == 0xf4)
                hi = 0x8f;
        } else {
            return fail(i, 1, "invalid start byte");
        }
        // Python's error covers the valid part of the sequence: up to the end of the data
        // ("unexpected end of data") or up to the byte that does not continue it.
        qint64 k = i + 1;
        for (int j = 0; j < need; ++j, ++k) {
            if (k >= n)
                return fail(i, k - i, "unexpected end of data");
            const unsigned char b = p[k];
            const bool ok = j == 0 ? (b >= lo && b <= hi) : cont(k);
            if (!ok)
                return fail(i, k - i, "invalid continuation byte");
        }
        i = k;
    }
    return std::nullopt;
}

/// Code points in a UTF-8 field (Python's csv counts characters, not bytes).
qint64 codePoints(std::string_view field)
{
    qint64 n = 0;
    for (char c : field)
        if ((static_cast<unsigned char>(c) & 0xc0) != 0x80)
            ++n;
    return n;
}

// ---------------------------------------------------------------------------------------------
// Reference reading: _read_amd_smi.

enum class RefHbmRule { DivideMb, AsGb, DivideVramMem, ByValue };

RefHbmRule referenceHbmRule(const QString &column)
{
    const QString lower = asciiLower(column);
    if (lower.contains(QLatin1String("_mb")) || lower.endsWith(QLatin1String("mb")))
        return RefHbmRule::DivideMb;
    if (lower.contains(QLatin1String("_gb")) || lower.endsWith(QLatin1String("gb")))
        return RefHbmRule::AsGb;
    if (lower.contains(QLatin1String("vram")) || lower.contains(QLatin1String("mem")))
        return RefHbmRule::DivideVramMem;
    return RefHbmRule::ByValue;
}

QString referenceHbmUnit(RefHbmRule rule)
{
    switch (rule) {
    case RefHbmRule::DivideMb:
        return QStringLiteral("MB");
    case RefHbmRule::AsGb:
        return QStringLiteral("GB");
    case RefHbmRule::DivideVramMem:
        return QStringLiteral("MB");
    case RefHbmRule::ByValue:
        return QStringLiteral("MB above 1024, else GB");
    }
    return {};
}

QString referenceHbmRuleWords(RefHbmRule rule, const QString &column)
{
    switch (rule) {
    case RefHbmRule::DivideMb:
        return QStringLiteral("the reference divides '%1' by 1024 because its name ends in MB").arg(column);
    case RefHbmRule::AsGb:
        return QStringLiteral("the reference takes '%1' as GB because its name says GB").arg(column);
    case RefHbmRule::DivideVramMem:
        return QStringLiteral("the reference divides '%1' by 1024 as if it were MB").arg(column);
    case RefHbmRule::ByValue:
        return QStringLiteral("the reference reads '%1' as MB when a value is above 1024 and as GB otherwise")
            .arg(column);
    }
    return {};
}

/// _hbm_to_gb(raw, column): empty -> None; strip, drop "MB", "GB" and ",", float(); unit by name.
std::optional<double> referenceHbmToGb(const QString &raw, RefHbmRule rule)
{
    if (raw.isEmpty())
        return std::nullopt;
    QString s = pyStrip(raw);
    s.replace(QStringLiteral("MB"), QString());
    s.replace(QStringLiteral("GB"), QString());
    s.replace(QStringLiteral(","), QString());
    const std::optional<double> v = pyFloatOfText(s);
    if (!v)
        return std::nullopt;
    switch (rule) {
    case RefHbmRule::DivideMb:
    case RefHbmRule::DivideVramMem:
        return *v / 1024.0;
    case RefHbmRule::AsGb:
        return *v;
    case RefHbmRule::ByValue:
        return *v > 1024.0 ? *v / 1024.0 : *v;
    }
    return std::nullopt;
}

const QStringList &referenceHbmAliases()
{
    static const QStringList aliases = {
        QStringLiteral("used_vram"),    QStringLiteral("USED_VRAM"),    QStringLiteral("VRAM_USED_MB"),
        QStringLiteral("vram_used_mb"), QStringLiteral("VRAM_USED"),    QStringLiteral("VRAM_USED_GB"),
        QStringLiteral("vram_used"),    QStringLiteral("VRAM Used"),    QStringLiteral("MEM_USED"),
        QStringLiteral("mem_used")};
    return aliases;
}

const QStringList &referenceUtilAliases()
{
    static const QStringList aliases = {
        QStringLiteral("usage"),           QStringLiteral("USAGE"),           QStringLiteral("GFX_UTIL"),
        QStringLiteral("gfx_util"),        QStringLiteral("GFX_UTILIZATION"), QStringLiteral("gfx_utilization"),
        QStringLiteral("GFX_ACTIVITY"),    QStringLiteral("gfx_activity"),    QStringLiteral("GPU_USE"),
        QStringLiteral("GFX %"),           QStringLiteral("Util")};
    return aliases;
}

const QStringList &referenceRocmAliases()
{
    static const QStringList aliases = {QStringLiteral("ROCM_VERSION"), QStringLiteral("rocm_version")};
    return aliases;
}

struct ReferenceOutcome {
    SmiReading reading;
    std::vector<ColumnChoice> columns;
    QString utilColumn;  ///< empty when the reference found none (or never got to look)
    QString hbmColumn;
    bool gotHeader = false;
};

/// str.splitlines() of the text read with universal newlines (which only turns "\r\n" and "\r"
/// into "\n", both of which splitlines() breaks on anyway).
QStringList pySplitLines(const QString &text)
{
    QStringList lines;
    qsizetype start = 0;
    const qsizetype n = text.size();
    for (qsizetype i = 0; i < n; ++i) {
        const char16_t c = text[i].unicode();
        if (!isPyLineBreak(c))
            continue;
        lines.append(text.mid(start, i - start));
        if (c == u'\r' && i + 1 < n && text[i + 1] == QLatin1Char('\n'))
            ++i;
        start = i + 1;
    }
    if (start < n)
        lines.append(text.mid(start));
    return lines;
}

bool referenceHeaderLine(const QString &line)
{
    if (!line.contains(QLatin1Char(',')))
        return false;
    const QString lower = asciiLower(line);
    for (const char *token : {"vram", "gfx_", "timestamp,", "gpu_use", "gpu,"})
        if (lower.contains(QLatin1String(token)))
            return true;
    return false;
}

ReferenceOutcome readReference(const QByteArray &bytes, ProgressGate &gate)
{
    ReferenceOutcome out;
    SmiReading &r = out.reading;

    if (const auto bad = firstUtf8Error(bytes)) {
        r.readFailed = true;
        r.readFailure = QStringLiteral("UnicodeDecodeError: %1 (line %2); Path.read_text() raises it and the "
                                       "reference does not catch it, so the whole reference run crashes")
                            .arg(bad->pythonMessage)
                            .arg(bad->line);
        return out;
    }
    const QStringList lines = pySplitLines(QString::fromUtf8(bytes));

    qsizetype headerIndex = -1;
    for (qsizetype i = 0; i < lines.size(); ++i)
        if (referenceHeaderLine(lines[i])) {
            headerIndex = i;
            break;
        }
    if (headerIndex < 0) {
        r.noHeader = true;
        return out;
    }
    out.gotHeader = true;

    const QString &header = lines[headerIndex];
    QString text = header;
    text += QLatin1Char('\n');
    bool anyData = false;
    for (qsizetype i = headerIndex + 1; i < lines.size(); ++i) {
        const QString &line = lines[i];
        if (isPyBlank(line) || line == header)
            continue;
        if (anyData)
            text += QLatin1Char('\n');
        text += line;
        anyData = true;
    }
    if (anyData)
        text += QLatin1Char('\n');

    QByteArray utf8 = text.toUtf8();
    text.clear();
    QBuffer buffer(&utf8);
    buffer.open(QIODevice::ReadOnly);
    CsvReader::Options options;
    options.stripUtf8Bom = false;  // Python's 'utf-8' codec keeps a BOM as U+FEFF in the first name
    CsvReader reader(&buffer, options);
    std::vector<std::string_view> fields;

    auto overLimit = [](const std::vector<std::string_view> &record) {
        for (std::string_view f : record)
            if (qint64(f.size()) > kPythonFieldLimit && codePoints(f) > kPythonFieldLimit)
                return true;
        return false;
    };
    auto failCsv = [&] {
        r.readFailed = true;
        r.readFailure = QStringLiteral("csv.Error: field larger than field limit (%1)").arg(kPythonFieldLimit);
    };

    // csv.DictReader: the first record gives the field names.
    if (!reader.readRecord(fields))
        return out;  // cannot happen: the header line holds a comma
    if (overLimit(fields)) {
        failCsv();
        return out;
    }
    QStringList fieldNames;
    fieldNames.reserve(qsizetype(fields.size()));
    for (std::string_view f : fields)
        fieldNames.append(q(f));

    const ResolvedColumn hbm = resolveReferenceColumn(fieldNames, referenceHbmAliases());
    const ResolvedColumn util = resolveReferenceColumn(fieldNames, referenceUtilAliases());
    const ResolvedColumn rocm = resolveReferenceColumn(fieldNames, referenceRocmAliases());
    const RefHbmRule hbmRule = hbm.found() ? referenceHbmRule(hbm.name) : RefHbmRule::ByValue;
    if (util.found()) {
        out.utilColumn = util.name;
        out.columns.push_back({QStringLiteral("gpu_util"), util.name, util.reason(), QStringLiteral("%")});
    }
    if (hbm.found()) {
        out.hbmColumn = hbm.name;
        out.columns.push_back({QStringLiteral("hbm_used"), hbm.name, hbm.reason(), referenceHbmUnit(hbmRule)});
    }
    if (rocm.found())
        out.columns.push_back({QStringLiteral("rocm_version"), rocm.name, rocm.reason(), QString()});

    std::vector<double> hbmSamples;
    std::vector<double> utilSamples;
    const qint64 total = qMax<qint64>(1, utf8.size());
    // DictReader maps a name to the value at its *last* position; a short row gives None.
    auto cell = [&](const ResolvedColumn &c) -> std::optional<QString> {
        if (!c.found() || size_t(c.index) >= fields.size())
            return std::nullopt;
        return q(fields[size_t(c.index)]);
    };
    qint64 records = 0;
    while (reader.readRecord(fields)) {
        if ((++records & 0xff) == 0 && !gate.report(1, double(reader.bytesConsumed()) / double(total)))
            return out;
        if (overLimit(fields)) {
            // The csv.Error aborts the loop: no HBM or utilisation, but a ROCm version read from
            // an earlier row is already stored in the summary and survives.
            failCsv();
            return out;
        }
        if (fields.empty())
            continue;  // DictReader skips [] rows
        if (hbm.found()) {
            if (const auto raw = cell(hbm))
                if (const auto gb = referenceHbmToGb(*raw, hbmRule))
                    hbmSamples.push_back(*gb);
        }
        if (util.found()) {
            if (const auto raw = cell(util))
                if (const auto v = pyFloatOfText(*raw))
                    utilSamples.push_back(*v < 100.0 ? *v : 100.0);  // min(100.0, v): NaN -> 100.0
        }
        if (rocm.found() && r.rocmVersion.isEmpty()) {
            if (const auto raw = cell(rocm)) {
                const QString v = pyStrip(*raw);
                if (!v.isEmpty())
                    r.rocmVersion = v;
            }
        }
    }
    if (!hbmSamples.empty()) {
        double peak = hbmSamples.front();
        double sum = 0.0;
        for (double v : hbmSamples) {
            if (v > peak)  // Python's max(): replace only when strictly greater (NaN never is)
                peak = v;
            sum += v;
        }
        r.hbmPeakGb = peak;
        r.hbmAvgGb = sum / double(hbmSamples.size());
        r.hbmSamples = int(hbmSamples.size());
    }
    if (!utilSamples.empty()) {
        double sum = 0.0;
        for (double v : utilSamples)
            sum += v;
        r.gpuUtilPct = sum / double(utilSamples.size());
        r.utilSamples = int(utilSamples.size());
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// Workbench reading.

std::string_view trimAscii(std::string_view s)
{
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; };
    while (!s.empty() && space(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && space(s.back()))
        s.remove_suffix(1);
    return s;
}

std::string lowerAscii(std::string_view s)
{
    std::string out(s);
    for (char &c : out)
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
    return out;
}

bool isMissingToken(std::string_view s)
{
    const std::string l = lowerAscii(s);
    return l.empty() || l == "n/a" || l == "[n/a]" || l == "na" || l == "none" || l == "-";
}

/// Column names the workbench knows from amd-smi, rocm-smi and nvidia-smi CSV headers (lower
/// case); a record naming one of them and holding no number is a header.
bool isKnownColumn(const std::string &lower)
{
    static const char *const known[] = {
        "gpu", "timestamp", "xcp", "gfx", "gfx_activity", "umc_activity", "mm_activity", "gfx_clk", "gfx_clock",
        "mem", "mem_clock", "power_usage", "socket_power", "used_vram", "vram_used", "total_vram", "vram_total",
        "vram_free", "vram_percent", "usage", "total_energy_consumption", "hotspot_temperature", "edge",
        "gfx_util", "gfx_utilization", "vram_used_gb", "vram_used_mb", "rocm_version", "device", "gpu use (%)",
        "vram total used memory (b)", "vram total memory (b)", "utilization.gpu [%]", "memory.used [mib]",
        "memory.total [mib]", "index"};
    for (const char *k : known)
        if (lower == k)
            return true;
    return false;
}

bool isPlainNumber(std::string_view s)
{
    const StrictNumber n = strictNumber(s);
    return n.status == StrictNumber::Status::Ok || n.status == StrictNumber::Status::NonFinite;
}

bool looksLikeHeader(const std::vector<std::string_view> &fields)
{
    bool known = false;
    for (std::string_view f : fields) {
        const std::string_view t = trimAscii(f);
        if (isPlainNumber(t))
            return false;
        if (!known && isKnownColumn(lowerAscii(t)))
            known = true;
    }
    return known;
}

bool isBanner(const std::vector<std::string_view> &fields)
{
    for (std::string_view f : fields)
        if (lowerAscii(f).find("to stop watching output") != std::string::npos)
            return true;
    return false;
}

enum class Tool { AmdSmiMetric, AmdSmiMonitor7, AmdSmiMonitor6, AmdSmiMonitor, RocmSmi, NvidiaSmi, Unknown };

enum class VramUnit { Unknown, MB, GB, MiB, Bytes };

double gbPerUnit(VramUnit unit)
{
    switch (unit) {
    case VramUnit::MB:
    case VramUnit::MiB:
    case VramUnit::Unknown:
        return 1.0 / 1024.0;
    case VramUnit::GB:
        return 1.0;
    case VramUnit::Bytes:
        return 1.0 / (1024.0 * 1024.0 * 1024.0);
    }
    return 1.0;
}

QString unitName(VramUnit unit)
{
    switch (unit) {
    case VramUnit::MB:
        return QStringLiteral("MB");
    case VramUnit::GB:
        return QStringLiteral("GB");
    case VramUnit::MiB:
        return QStringLiteral("MiB");
    case VramUnit::Bytes:
        return QStringLiteral("B");
    case VramUnit::Unknown:
        return QStringLiteral("MB");
    }
    return {};
}

/// One data row with the cells the workbench needs, copied out of the reader's buffer.
struct RawRow {
    qint64 line = 0;
    std::string gpu, timestamp, util, vram, total;
};

struct CellValue {
    enum class Kind { Value, Missing, NonFinite, NotANumber } kind = Kind::Missing;
    double value = NAN;
};

/// Reads one numeric cell: N/A and empty are missing (never zero); nvidia-smi appends units
/// ("22 %", "841 MiB"), which are cut off when `unitSuffixes` is set.
CellValue readCell(std::string_view raw, bool unitSuffixes)
{
    std::string_view s = trimAscii(raw);
    if (isMissingToken(s))
        return {};
    if (unitSuffixes) {
        const size_t space = s.rfind(' ');
        if (space != std::string_view::npos) {
            const std::string_view suffix = s.substr(space + 1);
            if (!suffix.empty() && std::all_of(suffix.begin(), suffix.end(), [](char c) {
                    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '%' || c == '/';
                }))
                s = trimAscii(s.substr(0, space));
        }
    }
    const StrictNumber n = strictNumber(s);
    switch (n.status) {
    case StrictNumber::Status::Ok:
        return {CellValue::Kind::Value, n.value};
    case StrictNumber::Status::Empty:
        return {};
    case StrictNumber::Status::NonFinite:
        return {CellValue::Kind::NonFinite, NAN};
    case StrictNumber::Status::NotANumber:
        break;
    }
    return {CellValue::Kind::NotANumber, NAN};
}

/// Plain-words description of what a column the reference might read as utilisation holds.
QString describeReferenceUtilColumn(const QString &column)
{
    const QString l = asciiLower(column);
    if (l == QLatin1String("usage"))
        return QStringLiteral("fan usage, or the single column amd-smi writes when it cannot read utilisation; "
                              "usually N/A");
    if (l.contains(QLatin1String("power")))
        return QStringLiteral("W");
    if (l.contains(QLatin1String("clk")) || l.contains(QLatin1String("clock")))
        return QStringLiteral("MHz");
    if (l.contains(QLatin1String("temp")))
        return QStringLiteral("°C");
    if (l.contains(QLatin1String("energy")))
        return QStringLiteral("an energy counter");
    if (l.contains(QLatin1String("usage")))
        return QStringLiteral("not GFX utilisation");
    return QStringLiteral("%");
}

class WorkbenchReader
{
public:
    WorkbenchReader(const QByteArray &bytes, const QString &file, SmiTelemetry &out, ProgressGate &gate)
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
    ProgressGate &m_gate;

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

bool WorkbenchReader::looksBinary(qint64 *line) const
{
    // amd-smi output is ASCII text; NUL bytes or many control characters mean something else
    // (a core dump, a database, a gzip) was saved under this name.
    const qint64 n = qMin<qint64>(m_bytes.size(), 1 << 16);
    qint64 control = 0;
    for (qint64 i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(m_bytes[i]);
        if (c == 0) {
            *line = 1 + std::count(m_bytes.constBegin(), m_bytes.constBegin() + i, '\n');
            return true;
        }
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
            ++control;
    }
    *line = 0;
    return n > 0 && control * 10 > n;
}

int WorkbenchReader::findColumn(std::initializer_list<const char *> aliases) const
{
    for (const char *alias : aliases)
        for (size_t i = 0; i < m_headerLower.size(); ++i)
            if (m_headerLower[i] == alias)
                return int(i);
    return -1;
}

void WorkbenchReader::resolveColumns()
{
    auto has = [&](const char *name) { return findColumn({name}) >= 0; };
    bool nvidia = false, rocmSmi = false;
    for (const std::string &h : m_headerLower) {
        if (h.rfind("utilization.gpu", 0) == 0 || h.rfind("memory.used", 0) == 0)
            nvidia = true;
        if (h == "gpu use (%)" || h.rfind("vram total", 0) == 0)
            rocmSmi = true;
    }
    if (nvidia)
        m_tool = Tool::NvidiaSmi;
    else if (rocmSmi)
        m_tool = Tool::RocmSmi;
    else if (has("xcp") || has("gfx_clk"))
        m_tool = Tool::AmdSmiMonitor7;
    else if (has("gfx_clock") || has("mem_clock") || has("pcie_replay"))
        m_tool = Tool::AmdSmiMonitor6;
    else if (has("gfx_activity") || has("used_vram") || has("total_vram") || has("socket_power") ||
             has("umc_activity") || has("total_energy_consumption") || has("usage") || has("gfx_0_clk"))
        m_tool = Tool::AmdSmiMetric;
    else if (has("gfx") || has("vram_used") || has("power_usage"))
        m_tool = Tool::AmdSmiMonitor;

    m_gpuCol = findColumn({"gpu", "device", "index"});
    m_timeCol = findColumn({"timestamp"});
    // True GFX utilisation names only. Never `usage` (fan usage, or the collapsed usage group),
    // never a power, clock, fan or temperature column, and no substring matching (`gfx` must
    // not find `gfx_clk`, `usage` must not find `power_usage`).
    m_utilCol = findColumn({"gfx_activity", "gfx", "gfx_util", "gfx_utilization", "gfx %", "gfx%", "gpu_use",
                            "gpu use (%)", "gpu_util", "utilization.gpu [%]"});
    m_usageCol = findColumn({"usage"});
    // Used VRAM of the whole device; never used_visible_vram / used_gtt, never `mem` (memory
    // temperature in metric, memory utilisation in monitor).
    m_vramCol = findColumn({"used_vram", "vram_used", "vram_used_gb", "vram_used_mb", "vram used",
                            "vram total used memory (b)", "memory.used [mib]"});
    m_totalCol = findColumn({"total_vram", "vram_total", "vram total memory (b)", "memory.total [mib]"});
    m_rocmCol = findColumn({"rocm_version"});
    if (m_utilCol >= 0)
        utilColumn = QString::fromStdString(m_header[size_t(m_utilCol)]);
    if (m_vramCol >= 0)
        hbmColumn = QString::fromStdString(m_header[size_t(m_vramCol)]);
}

QString WorkbenchReader::describeDialect() const
{
    auto has = [&](const char *name) { return findColumn({name}) >= 0; };
    QString base;
    switch (m_tool) {
    case Tool::AmdSmiMetric:
        base = QStringLiteral("amd-smi metric");
        break;
    case Tool::AmdSmiMonitor7:
        base = (has("vram_free") || has("vram_percent")) ? QStringLiteral("amd-smi monitor ROCm 7 (-v)")
                                                         : QStringLiteral("amd-smi monitor ROCm 7");
        break;
    case Tool::AmdSmiMonitor6:
        base = QStringLiteral("amd-smi monitor ROCm 6");
        break;
    case Tool::AmdSmiMonitor:
        base = QStringLiteral("amd-smi monitor");
        break;
    case Tool::RocmSmi:
        return QStringLiteral("rocm-smi --csv");
    case Tool::NvidiaSmi:
        return QStringLiteral("nvidia-smi --query-gpu --format=csv");
    case Tool::Unknown:
        return QStringLiteral("unrecognised CSV");
    }
    const bool timestamps = m_timeCol >= 0;
    QString mode;
    if (timestamps && m_bannerSeen)
        mode = QStringLiteral("watch to stdout: banner and a header per sample");
    else if (timestamps && m_repeatedHeaders > 0)
        mode = QStringLiteral("watch: a header per sample");
    else if (timestamps && m_blankLines > 0)
        mode = QStringLiteral("watch, banner and repeated headers filtered out");
    else if (timestamps)
        mode = QStringLiteral("watch with --file: one header");
    else if (m_repeatedHeaders > 0)
        mode = QStringLiteral("polled one-shot blocks, no timestamps");
    else
        mode = QStringLiteral("one-shot, no timestamps");
    return QStringLiteral("%1 (%2)").arg(base, mode);
}

void WorkbenchReader::decideVramUnit()
{
    if (m_vramCol < 0)
        return;
    const std::string &name = m_headerLower[size_t(m_vramCol)];
    auto endsWith = [&](const char *suffix) {
        const size_t n = std::char_traits<char>::length(suffix);
        return name.size() >= n && name.compare(name.size() - n, n, suffix) == 0;
    };
    // Units that the header states outright.
    if (name.find("(b)") != std::string::npos) {
        hbmUnit = VramUnit::Bytes;
        hbmUnitReason = QStringLiteral("rocm-smi reports bytes");
        return;
    }
    if (name.find("[mib]") != std::string::npos) {
        hbmUnit = VramUnit::MiB;
        hbmUnitReason = QStringLiteral("nvidia-smi reports MiB");
        return;
    }
    // GB or MB: a total-VRAM column settles it (amd-smi writes total and used in one unit).
    double total = NAN;
    if (m_totalCol >= 0)
        for (const RawRow &row : m_rows) {
            const CellValue c = readCell(row.total, false);
            if (c.kind == CellValue::Kind::Value && c.value > 0) {
                total = c.value;
                break;
            }
        }
    const QString totalName = m_totalCol >= 0 ? QString::fromStdString(m_header[size_t(m_totalCol)]) : QString();
    if (!std::isnan(total)) {
        const bool mb = total > kTotalVramMbThreshold;
        hbmUnit = mb ? VramUnit::MB : VramUnit::GB;
        hbmUnitReason = QStringLiteral("%1 is %2, so the file is in %3")
                            .arg(totalName, QString::number(total, 'g', 10), mb ? QStringLiteral("MB")
                                                                                 : QStringLiteral("GB"));
        return;
    }
    if (endsWith("_gb") || endsWith(" gb")) {
        hbmUnit = VramUnit::GB;
        hbmUnitReason = QStringLiteral("the column name says GB");
    } else if (endsWith("_mb") || endsWith(" mb")) {
        hbmUnit = VramUnit::MB;
        hbmUnitReason = QStringLiteral("the column name says MB");
    } else if (m_tool == Tool::AmdSmiMetric) {
        hbmUnit = VramUnit::MB;
        hbmUnitReason = QStringLiteral("amd-smi metric reports used_vram in MB");
    } else if (m_tool == Tool::AmdSmiMonitor6) {
        hbmUnit = VramUnit::MB;
        hbmUnitReason = QStringLiteral("amd-smi monitor on ROCm 6 reports vram_used in MB");
    } else if (m_tool == Tool::AmdSmiMonitor7) {
        const bool verbose = findColumn({"vram_free"}) >= 0 || findColumn({"vram_percent"}) >= 0;
        hbmUnit = verbose ? VramUnit::MB : VramUnit::GB;
        hbmUnitReason = verbose ? QStringLiteral("amd-smi monitor -v (vram_free/vram_percent present) reports MB")
                                : QStringLiteral("the ROCm 7 amd-smi monitor default view reports GB");
    }
    // Plausibility, and a guess when nothing else decided: no GPU has 4 TB, so larger values
    // are MB; amd-smi writes MB as integers and GB with one decimal.
    double maxValue = 0.0;
    bool fractional = false;
    for (const RawRow &row : m_rows) {
        const CellValue c = readCell(row.vram, m_tool == Tool::NvidiaSmi);
        if (c.kind != CellValue::Kind::Value)
            continue;
        maxValue = std::max(maxValue, c.value);
        if (c.value != std::floor(c.value))
            fractional = true;
    }
    const QString column = QString::fromStdString(m_header[size_t(m_vramCol)]);
    if (hbmUnit == VramUnit::GB && maxValue > kTotalVramMbThreshold) {
        hbmUnit = VramUnit::MB;
        hbmUnitReason = QStringLiteral("values up to %1 cannot be GB (no GPU has 4 TB), so they are MB")
                            .arg(QString::number(maxValue, 'g', 10));
        diag(Severity::Warning, m_headerLine,
             QStringLiteral("'%1' looks like GB by name or dialect but holds values up to %2; read as MB")
                 .arg(column, QString::number(maxValue, 'g', 10)));
    } else if (hbmUnit == VramUnit::Unknown) {
        hbmUnit = (fractional && maxValue <= kTotalVramMbThreshold) ? VramUnit::GB : VramUnit::MB;
        hbmUnitReason = hbmUnit == VramUnit::GB
                            ? QStringLiteral("guessed GB: no total column, values have decimals")
                            : QStringLiteral("guessed MB: no total column, whole-number values");
        diag(Severity::Warning, m_headerLine,
             QStringLiteral("the unit of '%1' is not known for this file and no total-VRAM column exists; %2")
                 .arg(column, hbmUnitReason));
    }
}

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

    QBuffer buffer(const_cast<QByteArray *>(&m_bytes));
    buffer.open(QIODevice::ReadOnly);
    CsvReader reader(&buffer);
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
        switch (c.kind) {
        case CellValue::Kind::Missing:
            ++missing;
            return NAN;
        case CellValue::Kind::NonFinite:
            nonFinite.add(row.line, QStringLiteral("'%1' is '%2', not a finite number; value ignored")
                                        .arg(column, shown(trimAscii(text))));
            return NAN;
        case CellValue::Kind::NotANumber:
            badValues.add(row.line,
                          QStringLiteral("'%1' is '%2', not a number; value ignored").arg(column, shown(trimAscii(text))));
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
    if (m_out.samples.empty())
        return;
    bool anyUtil = false;
    for (const TelemetrySample &s : m_out.samples)
        if (!std::isnan(s.utilPct)) {
            anyUtil = true;
            break;
        }
    if (!anyUtil) {
        diag(Severity::Info, 0,
             QStringLiteral("without utilisation values the job window cannot be found: all %1 samples are "
                            "averaged, idle lead-in and tail included")
                 .arg(m_out.samples.size()));
        return;
    }
    std::map<int, std::pair<qint64, qint64>> busySpan;  // gpu -> first, last busy sample index
    for (qint64 i = 0; i < qint64(m_out.samples.size()); ++i) {
        const TelemetrySample &s = m_out.samples[size_t(i)];
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
    for (qint64 i = 0; i < qint64(m_out.samples.size()); ++i) {
        TelemetrySample &s = m_out.samples[size_t(i)];
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
    m_out.samplesOutsideJob = outside;
    if (outside > 0)
        diag(Severity::Info, 0,
             QStringLiteral("%1 of %2 samples lie outside the job window (at most %3 % GFX utilisation, before the "
                            "first or after the last busy sample of their GPU) and are left out of the utilisation "
                            "mean and the HBM average; the HBM peak is over all samples")
                 .arg(outside)
                 .arg(m_out.samples.size())
                 .arg(kSmiIdleUtilPct));
    if (!neverBusy.isEmpty())
        diag(Severity::Info, 0,
             QStringLiteral("GPU %1 never rose above %2 % utilisation: no job window, all of its samples are kept")
                 .arg(neverBusy.join(QStringLiteral(", ")))
                 .arg(kSmiIdleUtilPct));
}

void WorkbenchReader::aggregate()
{
    SmiReading &w = m_out.workbench;
    double utilSum = 0.0, hbmSum = 0.0;
    int utilN = 0, hbmN = 0;
    std::optional<double> peak;
    for (const TelemetrySample &s : m_out.samples) {
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
    if (utilN > 0)
        w.gpuUtilPct = utilSum / utilN;
    if (hbmN > 0)
        w.hbmAvgGb = hbmSum / hbmN;
    w.hbmPeakGb = peak;
    w.utilSamples = utilN;
    w.hbmSamples = hbmN;

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

// ---------------------------------------------------------------------------------------------

/// Diagnostics wherever the reference reads a different column or unit than the workbench.
void compareReadings(const ReferenceOutcome &ref, const WorkbenchReader &wb, SmiTelemetry &out,
                     const QString &file)
{
    auto note = [&](const QString &message) { out.diagnostics.push_back({Severity::Info, file, 0, message}); };
    if (!wb.headerFound)
        return;
    if (!ref.gotHeader) {
        if (!ref.reading.readFailed)
            note(QStringLiteral("the reference finds no parseable header in this file and reads no telemetry"));
        return;
    }
    // The reference keeps header cells as written (nvidia-smi puts a space after each comma).
    const QString refUtil = ref.utilColumn.trimmed();
    const QString refHbm = ref.hbmColumn.trimmed();
    auto unparsable = [&](const QString &what, const QString &column) {
        note(QStringLiteral("the reference reads '%1' too, but none of its values is a plain number to Python's "
                            "float() (units or N/A in the cells), so it has no %2")
                 .arg(column, what));
    };
    // Utilisation.
    if (!refUtil.isEmpty() && refUtil == wb.utilColumn && ref.reading.utilSamples == 0 &&
        out.workbench.utilSamples > 0)
        unparsable(QStringLiteral("utilisation"), wb.utilColumn);
    if (refUtil != wb.utilColumn) {
        const QString refPart =
            ref.utilColumn.isEmpty()
                ? QStringLiteral("the reference finds no utilisation column")
                : QStringLiteral("the reference reads '%1' (%2) here")
                      .arg(ref.utilColumn, describeReferenceUtilColumn(ref.utilColumn));
        if (wb.utilColumn.isEmpty())
            note(QStringLiteral("utilisation unavailable; %1").arg(refPart));
        else
            note(QStringLiteral("utilisation read from '%1' (%); %2").arg(wb.utilColumn, refPart));
    }
    // VRAM.
    if (ref.hbmColumn.isEmpty() && wb.hbmColumn.isEmpty())
        return;
    const RefHbmRule rule = referenceHbmRule(ref.hbmColumn);
    const QString wbPart = wb.hbmColumn.isEmpty()
                               ? QStringLiteral("no used-VRAM column")
                               : QStringLiteral("VRAM read from '%1' as %2 (%3)")
                                     .arg(wb.hbmColumn, unitName(wb.hbmUnit), wb.hbmUnitReason);
    if (!refHbm.isEmpty() && refHbm == wb.hbmColumn && ref.reading.hbmSamples == 0 &&
        (out.workbench.hbmSamples > 0 || out.workbench.hbmPeakGb)) {
        unparsable(QStringLiteral("HBM usage"), wb.hbmColumn);
        return;
    }
    if (refHbm != wb.hbmColumn) {
        note(QStringLiteral("%1; %2")
                 .arg(wbPart, ref.hbmColumn.isEmpty() ? QStringLiteral("the reference finds no VRAM column")
                                                      : referenceHbmRuleWords(rule, ref.hbmColumn)));
        return;
    }
    const bool refGb = rule == RefHbmRule::AsGb;
    const bool refMb = rule == RefHbmRule::DivideMb || rule == RefHbmRule::DivideVramMem;
    const bool wbGb = wb.hbmUnit == VramUnit::GB;
    const bool wbMbLike = wb.hbmUnit == VramUnit::MB || wb.hbmUnit == VramUnit::MiB;
    const bool differs = rule == RefHbmRule::ByValue || (refGb && !wbGb) || (refMb && !wbMbLike);
    if (differs)
        note(QStringLiteral("VRAM read as %1 (%2); %3")
                 .arg(unitName(wb.hbmUnit), wb.hbmUnitReason, referenceHbmRuleWords(rule, ref.hbmColumn)));
}

} // namespace

SmiTelemetry parseAmdSmiFile(const QString &path, const QString &displayName, const ProgressCallback &progress)
{
    SmiTelemetry out;
    out.file.relativePath = displayName;
    out.file.format = kFormat;
    const QFileInfo info(path);
    if (!info.exists()) {
        out.diagnostics.push_back({Severity::Warning, displayName, 0,
                                   QStringLiteral("no amd-smi telemetry file: GPU utilisation falls back to kernel "
                                                  "time and HBM usage is unknown")});
        return out;
    }
    out.referenceFileFound = true;  // Path.exists() is true for folders too
    if (info.isDir()) {
        out.reference.readFailed = true;
        out.reference.fileUnreadable = true;
        out.reference.readFailure = QStringLiteral("[Errno 21] Is a directory: '%1'").arg(path);
        out.diagnostics.push_back({Severity::Error, displayName, 0,
                                   QStringLiteral("is a folder, not a file: no telemetry")});
        return out;
    }
    if (const QString problem = specialFileProblem(path); !problem.isEmpty()) {
        // The reference would block in open() or read without end here.
        out.reference.readFailed = true;
        out.reference.fileUnreadable = true;
        out.reference.readFailure = QStringLiteral("'%1' %2").arg(path, problem);
        out.diagnostics.push_back({Severity::Error, displayName, 0, problem});
        return out;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        out.reference.readFailed = true;
        out.reference.fileUnreadable = true;
        out.reference.readFailure = file.errorString();
        out.diagnostics.push_back({Severity::Error, displayName, 0,
                                   QStringLiteral("cannot be opened: %1").arg(file.errorString())});
        return out;
    }
    // Telemetry files are small (about 10^5 rows at most): both readings work on the whole file.
    const QByteArray bytes = file.readAll();
    out.file.sizeBytes = bytes.size();
    ProgressGate gate(progress, bytes.size());

    // A cancelled parse returns no readings at all, so nothing half-read can be mistaken for data.
    auto cancelled = [&] {
        SmiTelemetry stopped;
        stopped.file.relativePath = displayName;
        stopped.file.format = kFormat;
        stopped.file.sizeBytes = bytes.size();
        stopped.referenceFileFound = true;
        stopped.cancelled = true;
        return stopped;
    };
    WorkbenchReader wb(bytes, displayName, out, gate);
    wb.run();
    if (gate.cancelled())
        return cancelled();
    ReferenceOutcome ref = readReference(bytes, gate);
    if (gate.cancelled())
        return cancelled();
    out.reference = ref.reading;
    out.file.referenceColumns = ref.columns;
    if (out.reference.readFailed)
        out.diagnostics.push_back({Severity::Warning, displayName, 0,
                                   QStringLiteral("reference reading failed: %1").arg(out.reference.readFailure)});
    compareReadings(ref, wb, out, displayName);
    gate.report(1, 1.0);
    return out;
}

SmiTelemetry parseAmdSmi(const QString &runDir, const ProgressCallback &progress)
{
    return parseAmdSmiFile(QDir(runDir).filePath(QStringLiteral("amd_smi.csv")), QStringLiteral("amd_smi.csv"),
                           progress);
}

} // namespace goblin
