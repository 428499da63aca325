#include "reference/amdsmi.h"

#include "columnresolver.h"
#include "reference/pytext.h"
#include "syntax/csvreader.h"
#include "syntax/utf8validator.h"

#include <optional>
#include <string_view>

namespace goblin::reference
{

namespace
{

using amdsmi::kPythonFieldLimit;
using amdsmi::q;
using syntax::codePoints;
using syntax::firstUtf8Error;

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

} // namespace

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

ReferenceOutcome readReference(const QByteArray &bytes, amdsmi::ProgressGate &gate)
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
        CsvReader::Options options;
    options.stripUtf8Bom = false;  // Python's 'utf-8' codec keeps a BOM as U+FEFF in the first name
    CsvReader reader(QByteArrayView(utf8), options);
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

} // namespace goblin::reference
