#include "telemetry/logcommon.h"
#include "telemetry/telemetrylogs.h"

#include <QRegularExpression>

namespace goblin::telemetry
{

namespace
{

/// One column of an nvidia-smi header: the property before ` [unit]`, and the unit.
struct Property {
    std::string name;  ///< lower case, "memory.used"
    QString unit;      ///< "MiB", "%", "W"; empty when the header states none
    QString written;   ///< as the header writes it
};

std::vector<std::string_view> splitFields(std::string_view line)
{
    std::vector<std::string_view> fields;
    size_t start = 0;
    while (true) {
        const size_t comma = line.find(',', start);
        fields.push_back(trimmed(line.substr(start, comma == std::string_view::npos ? std::string_view::npos
                                                                                     : comma - start)));
        if (comma == std::string_view::npos)
            break;
        start = comma + 1;
    }
    return fields;
}

std::vector<Property> propertiesOf(const std::vector<std::string_view> &fields)
{
    std::vector<Property> out;
    for (std::string_view f : fields) {
        Property p;
        p.written = text(f);
        std::string name = lower(f);
        if (const size_t bracket = name.find(" ["); bracket != std::string::npos) {
            const size_t close = name.find(']', bracket);
            p.unit = text(f.substr(bracket + 2, close == std::string::npos ? std::string::npos : close - bracket - 2));
            name = name.substr(0, bracket);
        }
        p.name = name;
        out.push_back(std::move(p));
    }
    return out;
}

bool isHeader(const std::vector<std::string_view> &fields)
{
    bool named = false;
    for (std::string_view f : fields) {
        if (readNumber(f).kind == Cell::Kind::Value || !std::isnan(parseWallClock(f)))
            return false;
        const std::string l = lower(f);
        if (l == "timestamp" || l == "index" || l == "name" || l == "uuid" || l.find('.') != std::string::npos)
            named = true;
    }
    return named;
}

/// GB per unit of a memory column (nvidia-smi writes MiB; "GB" in the workbench is 2^30 bytes).
double gbPer(const QString &unit)
{
    const QString u = unit.toLower();
    if (u == QLatin1String("gib") || u == QLatin1String("gb"))
        return 1.0;
    if (u == QLatin1String("kib") || u == QLatin1String("kb"))
        return 1.0 / (1024.0 * 1024.0);
    if (u == QLatin1String("b"))
        return 1.0 / (1024.0 * 1024.0 * 1024.0);
    return 1.0 / 1024.0;  // MiB, and the default of memory.* properties
}

/// Columns of a header-less log, from the units its first row writes (`--format=csv,noheader`).
/// Returns an empty list when the row tells nothing (nounits as well).
std::vector<Property> guessProperties(const std::vector<std::string_view> &cells, QString *how)
{
    static const QRegularExpression busId(QStringLiteral("^[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\\.[0-7]$"));
    std::vector<Property> out(cells.size());
    std::vector<size_t> percent, mib, watts;
    bool any = false;
    for (size_t i = 0; i < cells.size(); ++i) {
        out[i].written = QStringLiteral("column %1").arg(i + 1);
        const std::string_view c = cells[i];
        if (!std::isnan(parseWallClock(c))) {
            out[i].name = "timestamp";
            continue;
        }
        if (busId.match(text(c)).hasMatch()) {
            out[i].name = "pci.bus_id";
            continue;
        }
        const Cell cell = readNumber(c);
        if (cell.unit == QLatin1String("%"))
            percent.push_back(i);
        else if (cell.unit == QLatin1String("MiB"))
            mib.push_back(i);
        else if (cell.unit == QLatin1String("W"))
            watts.push_back(i);
        else if (cell.kind == Cell::Kind::Value && cell.unit.isEmpty() && cell.value == std::floor(cell.value) &&
                 cell.value >= 0 && cell.value < 64 && i <= 1)
            out[i].name = "index";
        else if (cell.kind == Cell::Kind::NotANumber && cell.unit.isEmpty())
            out[i].name = "name";
    }
    if (!percent.empty()) {
        out[percent[0]].name = "utilization.gpu";
        out[percent[0]].unit = QStringLiteral("%");
        any = true;
    }
    if (!watts.empty()) {
        out[watts[0]].name = "power.draw";
        out[watts[0]].unit = QStringLiteral("W");
    }
    if (!mib.empty()) {
        any = true;
        // used <= total: the largest value of two or three MiB columns is the total; the first
        // other one is taken as used (nvidia-smi prints properties in the order asked).
        size_t total = mib.size() > 1 ? mib[0] : size_t(-1);
        if (mib.size() > 1)
            for (size_t i : mib)
                if (readNumber(cells[i]).value > readNumber(cells[total]).value)
                    total = i;
        for (size_t i : mib) {
            if (i == total)
                continue;
            out[i].name = "memory.used";
            out[i].unit = QStringLiteral("MiB");
            break;
        }
        if (total != size_t(-1)) {
            out[total].name = "memory.total";
            out[total].unit = QStringLiteral("MiB");
        }
    }
    if (!any)
        return {};
    *how = QStringLiteral("no header (--format=csv,noheader): columns told apart by the units of the first row "
                          "(%1 utilisation, MiB memory used and total, W power)");
    return out;
}

} // namespace

void readNvidiaSmi(QByteArrayView bytes, const QString &file, SmiTelemetry &out)
{
    LogBuilder b(out, file);
    out.tool = QStringLiteral("nvidia-smi");
    out.file.format = QStringLiteral("nvidia-smi-csv");
    if (bytes.isEmpty()) {
        b.diag(Severity::Error, 0, QStringLiteral("the file is empty (0 bytes): no telemetry"));
        return;
    }
    if (const qint64 line = binaryLine(bytes)) {
        b.diag(Severity::Error, line, QStringLiteral("binary data, not nvidia-smi CSV text: not read"));
        return;
    }
    const std::vector<Line> lines = splitLines(bytes);
    std::vector<Property> props;
    std::vector<std::string_view> header;
    qint64 headerLine = 0, repeatedHeaders = 0, blank = 0, lastLine = 0;
    bool guessed = false;
    QString guessHow;
    int utilCol = -1, usedCol = -1, totalCol = -1, freeCol = -1, powerCol = -1, timeCol = -1, gpuCol = -1,
        nameCol = -1;
    auto resolve = [&] {
        QStringList names;  // the properties, units aside
        for (const Property &p : props)
            names << QString::fromStdString(p.name);
        b.noteRepeatedColumns(headerLine, names);
        utilCol = usedCol = totalCol = freeCol = powerCol = timeCol = gpuCol = nameCol = -1;
        int pciCol = -1, uuidCol = -1, powerAvg = -1, powerInst = -1;
        for (size_t i = 0; i < props.size(); ++i) {
            const std::string &n = props[i].name;
            const int c = int(i);
            if (n == "utilization.gpu")
                utilCol = c;
            else if (n == "memory.used")
                usedCol = c;
            else if (n == "memory.total")
                totalCol = c;
            else if (n == "memory.free")
                freeCol = c;
            else if (n == "power.draw")
                powerCol = c;
            else if (n == "power.draw.average")
                powerAvg = c;
            else if (n == "power.draw.instant")
                powerInst = c;
            else if (n == "timestamp")
                timeCol = c;
            else if (n == "index")
                gpuCol = c;
            else if (n == "pci.bus_id")
                pciCol = c;
            else if (n == "uuid")
                uuidCol = c;
            else if (n == "name" || n == "gpu_name")
                nameCol = c;
        }
        if (powerCol < 0)
            powerCol = powerAvg >= 0 ? powerAvg : powerInst;
        if (gpuCol < 0)
            gpuCol = pciCol >= 0 ? pciCol : uuidCol;
        auto name = [&](int c) { return c >= 0 ? props[size_t(c)].written : QString(); };
        b.utilColumn = name(utilCol);
        b.usedColumn = name(usedCol);
        b.totalColumn = name(totalCol);
        b.powerColumn = name(powerCol);
        b.gpuColumn = name(gpuCol);
        b.timeColumn = name(timeCol);
        b.usedUnit = usedCol >= 0 && !props[size_t(usedCol)].unit.isEmpty() ? props[size_t(usedCol)].unit
                                                                             : QStringLiteral("MiB");
        b.utilWhy = utilCol >= 0 ? QStringLiteral("nvidia-smi utilization.gpu (time share with a kernel running)")
                                 : QStringLiteral("no utilization.gpu column in the query");
        b.usedWhy = usedCol >= 0 ? QStringLiteral("nvidia-smi memory.used (framebuffer)")
                                 : QStringLiteral("no memory.used column in the query");
        if (totalCol < 0 && usedCol >= 0 && freeCol >= 0)
            b.totalWhy = QStringLiteral("memory.used + memory.free (no memory.total column)");
        else
            b.totalWhy.clear();
    };

    for (const Line &line : lines) {
        lastLine = line.number;
        const std::string_view t = trimmed(line.text);
        if (t.empty()) {
            if (!props.empty())
                ++blank;
            continue;
        }
        const std::vector<std::string_view> fields = splitFields(t);
        if (isHeader(fields)) {
            if (!header.empty() && fields == header) {
                ++repeatedHeaders;
                continue;
            }
            if (!header.empty())
                b.diag(Severity::Warning, line.number,
                       QStringLiteral("a different header (%1 columns); the rows under it are read with its columns")
                           .arg(fields.size()));
            header = fields;
            props = propertiesOf(fields);
            headerLine = line.number;
            guessed = false;
            resolve();
            continue;
        }
        if (props.empty()) {
            props = guessProperties(fields, &guessHow);
            if (props.empty()) {
                b.diag(Severity::Error, line.number,
                       QStringLiteral("no nvidia-smi header before this row, and its cells carry no units "
                                      "(--format=csv,noheader,nounits?): the columns cannot be told apart; no "
                                      "telemetry"));
                return;
            }
            guessed = true;
            headerLine = line.number;
            b.diag(Severity::Warning, line.number, guessHow);
            resolve();
        }
        ++out.file.rowsRead;
        if (fields.size() != props.size()) {
            b.rowProblem(line.number, QStringLiteral("%1 fields where the header (line %2) has %3; row skipped (cut "
                                                     "short?)")
                                          .arg(fields.size())
                                          .arg(headerLine)
                                          .arg(props.size()));
            continue;
        }
        int gpu = 0;
        if (gpuCol >= 0) {
            const QString key = text(fields[size_t(gpuCol)]);
            if (key.isEmpty()) {
                b.rowProblem(line.number, QStringLiteral("no GPU in '%1'; row skipped").arg(b.gpuColumn));
                continue;
            }
            gpu = b.gpuOf(key);
        }
        double epoch = NAN;
        if (timeCol >= 0) {
            epoch = parseWallClock(fields[size_t(timeCol)]);
            if (std::isnan(epoch)) {
                b.rowProblem(line.number, QStringLiteral("timestamp '%1' is not a time (yyyy/MM/dd HH:mm:ss.zzz); row "
                                                         "skipped")
                                              .arg(excerpt(fields[size_t(timeCol)])));
                continue;
            }
        }
        auto value = [&](int col, const QString &column) -> double {
            if (col < 0)
                return NAN;
            const Cell c = readNumber(fields[size_t(col)]);
            if (c.kind == Cell::Kind::Missing) {
                b.missing(column);
                return NAN;
            }
            if (c.kind == Cell::Kind::NotANumber) {
                b.rowProblem(line.number, QStringLiteral("'%1' is '%2', not a number; value ignored")
                                              .arg(column, excerpt(fields[size_t(col)])),
                             false);
                return NAN;
            }
            return c.value;
        };
        const double util = b.checked(line.number, value(utilCol, b.utilColumn), 0.0, 100.0, b.utilColumn);
        const double usedGb = value(usedCol, b.usedColumn) * gbPer(b.usedUnit);
        double totalGb = totalCol >= 0 ? value(totalCol, b.totalColumn) * gbPer(props[size_t(totalCol)].unit) : NAN;
        if (totalCol < 0 && usedCol >= 0 && freeCol >= 0)
            totalGb = usedGb + value(freeCol, props[size_t(freeCol)].written) * gbPer(props[size_t(freeCol)].unit);
        const double power = b.checked(line.number, value(powerCol, b.powerColumn), 0.0, 1e5, b.powerColumn);
        if (nameCol >= 0 && !b.gpuNames.count(gpu))
            b.gpuNames[gpu] = text(fields[size_t(nameCol)]);
        b.add(line.number, gpu, epoch, util, b.checked(line.number, usedGb, 0.0, 1e6, b.usedColumn),
              b.checked(line.number, totalGb, 0.0, 1e6, b.totalColumn), power);
    }
    if (props.empty()) {
        b.diag(Severity::Error, 0,
               QStringLiteral("no nvidia-smi header or row in %1 line(s): no telemetry").arg(lastLine));
        return;
    }
    if (b.rows() == 0) {
        b.diag(Severity::Warning, headerLine,
               QStringLiteral("a header (line %1) but no data row: no telemetry").arg(headerLine));
    }
    if (repeatedHeaders > 0 || blank > 0)
        b.diag(Severity::Info, 0,
               QStringLiteral("dropped %1 repeated header(s) and %2 blank line(s) (a shell loop prints a header per "
                              "sample)")
                   .arg(repeatedHeaders)
                   .arg(blank));
    out.file.dialect = QStringLiteral("nvidia-smi --query-gpu --format=csv%1%2")
                           .arg(guessed ? QStringLiteral(",noheader") : QString(),
                                timeCol >= 0 ? QStringLiteral(" (timestamps)") : QString());
    if (timeCol >= 0) {
        out.wallClockLocal = true;
        out.timestampResolutionS = 0.001;
    }
    if (gpuCol < 0 && nameCol >= 0)
        b.diag(Severity::Info, 0, QStringLiteral("no index, pci.bus_id or uuid column: every row is GPU 0"));
    b.finish(1.0, QStringLiteral("no timestamp column in the query"));
}

} // namespace goblin::telemetry
