// Telemetry CSVs whose columns say what they are, whatever wrote them: a wrapper script's
// `timestamp, device, gpu_use_percent, vram_used_bytes` around rocm-smi or nvidia-smi, a
// monitoring agent's export. The columns are found by the tokens of their names, as the
// reference's _pick_column finds amd-smi's by its substring tier (every token of a candidate
// somewhere in the name): a time, a device, a utilisation in percent, memory used with its unit
// in the name (bytes, KiB/KB, MiB/MB, GiB/GB), and optionally the total memory and the power.
#include "telemetry/logcommon.h"
#include "telemetry/telemetrylogs.h"

#include <algorithm>
#include <iterator>
#include <optional>

namespace goblin::telemetry
{

namespace
{

/// The tokens of a column name: lower-case runs of letters and digits, and '%' on its own
/// ("utilization.gpu [%]" → utilization gpu %; "vram_used_mb" → vram used mb).
std::vector<std::string> nameTokens(std::string_view name)
{
    std::vector<std::string> tokens;
    std::string current;
    auto flush = [&] {
        if (!current.empty())
            tokens.push_back(std::move(current));
        current.clear();
    };
    for (const char c : name) {
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
            current += c;
        else if (c >= 'A' && c <= 'Z')
            current += char(c - 'A' + 'a');
        else {
            flush();
            if (c == '%')
                tokens.emplace_back("%");
        }
    }
    flush();
    return tokens;
}

template <std::size_t N> bool hasAny(const std::vector<std::string> &tokens, const std::string_view (&words)[N])
{
    return std::any_of(tokens.begin(), tokens.end(), [&](const std::string &t) {
        return std::find(std::begin(words), std::end(words), t) != std::end(words);
    });
}

template <std::size_t N> bool onlyOf(const std::vector<std::string> &tokens, const std::string_view (&words)[N])
{
    return !tokens.empty() && std::all_of(tokens.begin(), tokens.end(), [&](const std::string &t) {
        return std::find(std::begin(words), std::end(words), t) != std::end(words);
    });
}

constexpr std::string_view kTimeWords[]{"timestamp", "time", "ts", "epoch", "datetime", "date",
                                                             "elapsed"};
constexpr std::string_view kDeviceWords[]{"device", "dev", "gpu", "card", "index", "idx", "id",
                                                               "gpuid", "bus", "busid", "pci", "uuid", "rank"};
constexpr std::string_view kMemoryWords[]{"mem", "memory", "vram", "hbm", "fb"};
constexpr std::string_view kUsedWords[]{"used", "use", "usage", "alloc", "allocated"};
constexpr std::string_view kTotalWords[]{"total", "capacity", "size"};
constexpr std::string_view kUtilWords[]{"util", "utilization", "utilisation", "use", "usage",
                                                             "busy", "activity", "load"};
constexpr std::string_view kPercentWords[]{"percent", "pct", "%"};
constexpr std::string_view kEngineWords[]{"gpu", "gfx", "sm"};
constexpr std::string_view kNotUsedWords[]{"free", "reserved"};
constexpr std::string_view kPowerWords[]{"power"};
constexpr std::string_view kWattWords[]{"w", "watt", "watts"};

/// A memory unit a column name states, and its factor to GB (GiB, as every telemetry reader
/// here counts; MB is read as MiB, as amd-smi and nvidia-smi mean it).
struct MemoryUnit {
    QString word;  ///< "bytes", "KiB", "MiB", "GiB"
    double toGb = NAN;
};

std::optional<MemoryUnit> unitOf(const std::vector<std::string> &tokens)
{
    for (const std::string &t : tokens) {
        if (t == "bytes" || t == "byte" || t == "b")
            return MemoryUnit{QStringLiteral("bytes"), 1.0 / (1024.0 * 1024.0 * 1024.0)};
        if (t == "kib" || t == "kb")
            return MemoryUnit{QStringLiteral("KiB"), 1.0 / (1024.0 * 1024.0)};
        if (t == "mib" || t == "mb")
            return MemoryUnit{QStringLiteral("MiB"), 1.0 / 1024.0};
        if (t == "gib" || t == "gb")
            return MemoryUnit{QStringLiteral("GiB"), 1.0};
    }
    return std::nullopt;
}

/// Which column is what; -1 where none is.
struct ColumnPlan {
    int time = -1, device = -1, util = -1, used = -1, total = -1, power = -1;
    MemoryUnit usedUnit, totalUnit;
    int usedWithoutUnit = -1;  ///< a memory-used column whose name states no unit (not read)

    bool telemetry() const { return time >= 0 && (util >= 0 || used >= 0); }
};

ColumnPlan planColumns(const std::vector<std::string_view> &header)
{
    ColumnPlan plan;
    for (size_t i = 0; i < header.size(); ++i) {
        const std::vector<std::string> tokens = nameTokens(header[i]);
        const int c = int(i);
        const bool memory = hasAny(tokens, kMemoryWords);
        const bool percent = hasAny(tokens, kPercentWords);
        if (memory) {
            if (hasAny(tokens, kNotUsedWords) || percent)
                continue;  // free memory, or a share of it: not memory used
            const std::optional<MemoryUnit> unit = unitOf(tokens);
            // "VRAM Total Used Memory (B)" (rocm-smi) is memory used: a used word wins over total.
            if (hasAny(tokens, kUsedWords)) {
                if (plan.used < 0 && unit) {
                    plan.used = c;
                    plan.usedUnit = *unit;
                } else if (!unit && plan.usedWithoutUnit < 0) {
                    plan.usedWithoutUnit = c;
                }
            } else if (hasAny(tokens, kTotalWords)) {
                if (plan.total < 0 && unit) {
                    plan.total = c;
                    plan.totalUnit = *unit;
                }
            }
            continue;
        }
        if (plan.util < 0 && hasAny(tokens, kUtilWords) && (percent || hasAny(tokens, kEngineWords))) {
            plan.util = c;
            continue;
        }
        if (plan.power < 0 && hasAny(tokens, kPowerWords) && hasAny(tokens, kWattWords)) {
            plan.power = c;
            continue;
        }
        if (plan.time < 0 && hasAny(tokens, kTimeWords)) {
            plan.time = c;
            continue;
        }
        if (plan.device < 0 && onlyOf(tokens, kDeviceWords))
            plan.device = c;
    }
    return plan;
}

std::vector<std::string_view> splitFields(std::string_view line)
{
    std::vector<std::string_view> fields;
    size_t start = 0;
    while (true) {
        const size_t comma = line.find(',', start);
        std::string_view f =
            trimmed(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
        if (f.size() >= 2 && f.front() == '"' && f.back() == '"')
            f = f.substr(1, f.size() - 2);
        fields.push_back(f);
        if (comma == std::string_view::npos)
            break;
        start = comma + 1;
    }
    return fields;
}

/// The header line: the first that is neither empty nor a `#` comment.
const Line *headerOf(const std::vector<Line> &lines)
{
    for (const Line &l : lines) {
        const std::string_view t = trimmed(l.text);
        if (!t.empty() && t.front() != '#')
            return &l;
    }
    return nullptr;
}

/// A header is names, not values: at least two fields, none a number.
bool looksLikeHeader(const std::vector<std::string_view> &fields)
{
    if (fields.size() < 2)
        return false;
    return std::none_of(fields.begin(), fields.end(), [](std::string_view f) {
        return f.empty() || readNumber(f).kind == Cell::Kind::Value;
    });
}

/// Unix seconds of a time cell: a wall-clock time (`2024-01-31T12:00:00.5`, `2024/01/31 12:00:00`,
/// with a trailing `Z` or UTC offset ignored), or a number of seconds, milliseconds, microseconds
/// or nanoseconds (told apart by their size: this century in each). NaN when it is none.
double secondsOf(std::string_view cell)
{
    std::string_view t = trimmed(cell);
    if (!t.empty() && (t.back() == 'Z' || t.back() == 'z'))
        t.remove_suffix(1);
    if (t.size() > 25 && (t[t.size() - 6] == '+' || t[t.size() - 6] == '-') && t[t.size() - 3] == ':')
        t.remove_suffix(6);
    const double wall = parseWallClock(t);
    if (!std::isnan(wall))
        return wall;
    const Cell c = readNumber(t);
    if (c.kind != Cell::Kind::Value || !c.unit.isEmpty() || !std::isfinite(c.value))
        return NAN;
    const double v = c.value;
    if (std::fabs(v) >= 1e17)
        return v / 1e9;
    if (std::fabs(v) >= 1e14)
        return v / 1e6;
    if (std::fabs(v) >= 1e11)
        return v / 1e3;
    return v;
}

} // namespace

bool sniffTelemetryColumns(QByteArrayView head)
{
    if (head.isEmpty() || binaryLine(head) > 0)
        return false;
    std::vector<Line> lines = splitLines(head);
    if (lines.size() > 40)
        lines.resize(40);
    const Line *header = headerOf(lines);
    if (!header)
        return false;
    const std::vector<std::string_view> fields = splitFields(trimmed(header->text));
    return looksLikeHeader(fields) && planColumns(fields).telemetry();
}

void readTelemetryColumns(QByteArrayView bytes, const QString &file, SmiTelemetry &out)
{
    LogBuilder b(out, file);
    out.tool = logKindTool(LogKind::ByColumns);
    out.file.format = logKindFormat(LogKind::ByColumns);
    if (bytes.isEmpty()) {
        b.diag(Severity::Error, 0, QStringLiteral("the file is empty (0 bytes): no telemetry"));
        return;
    }
    if (const qint64 line = binaryLine(bytes)) {
        b.diag(Severity::Error, line, QStringLiteral("binary data, not CSV text: not read"));
        return;
    }
    const std::vector<Line> lines = splitLines(bytes);
    const Line *header = headerOf(lines);
    const std::vector<std::string_view> fields = header ? splitFields(trimmed(header->text))
                                                        : std::vector<std::string_view>{};
    const ColumnPlan plan = planColumns(fields);
    if (!header || !looksLikeHeader(fields) || !plan.telemetry()) {
        b.diag(Severity::Error, header ? header->number : 0,
               QStringLiteral("no header naming a time and a GPU utilisation (%) or memory-used column: no telemetry"));
        return;
    }
    std::vector<QString> names;
    for (std::string_view f : fields)
        names.push_back(text(f));
    b.noteRepeatedColumns(header->number, QStringList(names.begin(), names.end()));
    auto name = [&](int c) { return c >= 0 ? names[size_t(c)] : QString(); };
    b.timeColumn = name(plan.time);
    b.gpuColumn = name(plan.device);
    b.utilColumn = name(plan.util);
    b.usedColumn = name(plan.used);
    b.totalColumn = name(plan.total);
    b.powerColumn = name(plan.power);
    b.usedUnit = plan.used >= 0 ? plan.usedUnit.word : QString();
    b.utilWhy = plan.util >= 0 ? QStringLiteral("GPU utilisation (%), by the column's name")
                               : QStringLiteral("no column named like a GPU utilisation in percent");
    b.usedWhy = plan.used >= 0
                    ? QStringLiteral("memory used, in %1 as the column's name says").arg(plan.usedUnit.word)
                : plan.usedWithoutUnit >= 0
                    ? QStringLiteral("'%1' states no unit in its name (bytes, MiB, MB, GiB …)").arg(name(plan.usedWithoutUnit))
                    : QStringLiteral("no column named like memory used with its unit");
    if (plan.total >= 0)
        b.totalWhy = QStringLiteral("'%1' column, in %2").arg(name(plan.total), plan.totalUnit.word);

    // The one line that says how the file was read: which column is which.
    QStringList chosen;
    chosen << QStringLiteral("time '%1'").arg(name(plan.time));
    chosen << (plan.device >= 0 ? QStringLiteral("device '%1'").arg(name(plan.device))
                                : QStringLiteral("no device column (every row is GPU 0)"));
    if (plan.util >= 0)
        chosen << QStringLiteral("utilisation % '%1'").arg(name(plan.util));
    if (plan.used >= 0)
        chosen << QStringLiteral("memory used '%1' (%2)").arg(name(plan.used), plan.usedUnit.word);
    if (plan.total >= 0)
        chosen << QStringLiteral("memory total '%1' (%2)").arg(name(plan.total), plan.totalUnit.word);
    if (plan.power >= 0)
        chosen << QStringLiteral("power '%1' (W)").arg(name(plan.power));
    b.diag(Severity::Info, header->number,
           QStringLiteral("a telemetry CSV known by its columns' names; columns read: %1").arg(chosen.join(QStringLiteral(", "))));

    bool pastHeader = false;
    for (const Line &line : lines) {
        if (&line == header) {
            pastHeader = true;
            continue;
        }
        const std::string_view t = trimmed(line.text);
        if (!pastHeader || t.empty() || t.front() == '#')
            continue;
        ++out.file.rowsRead;
        const std::vector<std::string_view> cells = splitFields(t);
        if (cells.size() != fields.size()) {
            b.rowProblem(line.number, QStringLiteral("%1 fields where the header (line %2) has %3; row skipped (cut "
                                                     "short?)")
                                          .arg(cells.size())
                                          .arg(header->number)
                                          .arg(fields.size()));
            continue;
        }
        const double epochS = secondsOf(cells[size_t(plan.time)]);
        if (std::isnan(epochS)) {
            b.rowProblem(line.number, QStringLiteral("'%1' is '%2', not a time; row skipped")
                                          .arg(name(plan.time), excerpt(cells[size_t(plan.time)])));
            continue;
        }
        auto value = [&](int col) -> double {
            if (col < 0)
                return NAN;
            const Cell c = readNumber(cells[size_t(col)]);
            if (c.kind == Cell::Kind::Missing) {
                b.missing(names[size_t(col)]);
                return NAN;
            }
            if (c.kind == Cell::Kind::NotANumber) {
                b.rowProblem(line.number, QStringLiteral("'%1' is '%2', not a number; value ignored")
                                              .arg(names[size_t(col)], excerpt(cells[size_t(col)])),
                             false);
                return NAN;
            }
            return c.value;
        };
        const int gpu = plan.device >= 0 ? b.gpuOf(text(cells[size_t(plan.device)])) : 0;
        const double usedGb = value(plan.used) * plan.usedUnit.toGb;
        const double totalGb = value(plan.total) * plan.totalUnit.toGb;
        b.add(line.number, gpu, epochS, b.checked(line.number, value(plan.util), 0.0, 100.0, b.utilColumn),
              b.checked(line.number, usedGb, 0.0, 1e6, b.usedColumn),
              b.checked(line.number, totalGb, 0.0, 1e6, b.totalColumn),
              b.checked(line.number, value(plan.power), 0.0, 1e5, b.powerColumn));
    }
    out.file.dialect = QStringLiteral("telemetry CSV by column names");
    if (b.rows() == 0)
        b.diag(Severity::Warning, header->number,
               QStringLiteral("a header (line %1) but no row of samples: no telemetry").arg(header->number));
    b.finish(1.0, QStringLiteral("no time column"));
}

} // namespace goblin::telemetry
