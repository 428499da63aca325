#include "telemetry/logcommon.h"
#include "telemetry/telemetrylogs.h"

namespace goblin::telemetry
{

namespace
{

std::vector<std::string_view> splitSpaces(std::string_view line)
{
    std::vector<std::string_view> out;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
            ++i;
        const size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t')
            ++i;
        if (i > start)
            out.push_back(line.substr(start, i - start));
    }
    return out;
}

/// dcgmi's default sampling period (-d, ms): the cadence when the log has no clock.
constexpr double kDefaultIntervalS = 1.0;

} // namespace

void readDcgm(QByteArrayView bytes, const QString &file, SmiTelemetry &out)
{
    LogBuilder b(out, file);
    out.tool = QStringLiteral("dcgmi dmon");
    out.file.format = QStringLiteral("dcgmi-dmon");
    if (bytes.isEmpty()) {
        b.diag(Severity::Error, 0, QStringLiteral("the file is empty (0 bytes): no telemetry"));
        return;
    }
    if (const qint64 line = binaryLine(bytes)) {
        b.diag(Severity::Error, line, QStringLiteral("binary data, not dcgmi dmon text: not read"));
        return;
    }
    std::vector<std::string> fields;  // short names of the header in force
    qint64 headerLine = 0, repeatedHeaders = 0, otherEntities = 0, otherFirst = 0, foreign = 0, foreignFirst = 0;
    int util = -1, used = -1, total = -1, freeCol = -1, power = -1, ratioCol = -1;
    bool stopped = false;
    auto resolve = [&] {
        b.noteRepeatedColumns(headerLine, fields);
        util = used = total = freeCol = power = ratioCol = -1;
        for (size_t i = 0; i < fields.size(); ++i) {
            const std::string &f = fields[i];
            const int c = int(i);
            if (f == "GPUTL")
                util = c;
            else if (f == "FBUSD")
                used = c;
            else if (f == "FBTTL")
                total = c;
            else if (f == "FBFRE")
                freeCol = c;
            else if (f == "POWER" || (f == "POWINST" && power < 0))
                power = c;
            else if (f == "SMACT" || f == "GRACT")
                ratioCol = c;
        }
        auto name = [&](int c) { return c >= 0 ? QString::fromStdString(fields[size_t(c)]) : QString(); };
        b.utilColumn = name(util);
        b.usedColumn = name(used);
        b.totalColumn = name(total);
        b.powerColumn = name(power);
        b.gpuColumn = QStringLiteral("Entity");
        b.usedUnit = QStringLiteral("MiB");
        // Profiling ratios (SMACT, GRACT: 0-1 of the SMs or engine active) are not GPUTL's time share.
        b.utilWhy = util >= 0 ? QStringLiteral("DCGM GPUTL (field 203, % of time a kernel ran)")
                    : ratioCol >= 0
                        ? QStringLiteral("no GPUTL field (203); %1 is a 0-1 profiling ratio, not the same measure, "
                                         "so it is not read as utilisation")
                              .arg(name(ratioCol))
                        : QStringLiteral("no GPUTL field (203) in the dmon query");
        b.usedWhy = used >= 0 ? QStringLiteral("DCGM FBUSD (field 252, framebuffer used, MiB)")
                              : QStringLiteral("no FBUSD field (252) in the dmon query");
        b.totalWhy = total < 0 && used >= 0 && freeCol >= 0 ? QStringLiteral("FBUSD + FBFRE (no FBTTL field)")
                                                           : QString();
    };

    for (const Line &line : splitLines(bytes)) {
        const std::string_view t = trimmed(line.text);
        if (t.empty())
            continue;
        if (t.rfind("#Entity", 0) == 0) {
            std::vector<std::string> now;
            for (std::string_view f : splitSpaces(t.substr(7)))
                now.emplace_back(f);
            if (!fields.empty() && now == fields) {
                ++repeatedHeaders;  // dmon repeats its header every 14 rows
                continue;
            }
            if (!fields.empty())
                b.diag(Severity::Warning, line.number,
                       QStringLiteral("a different #Entity header (%1 fields); the rows under it are read with its "
                                      "fields")
                           .arg(now.size()));
            fields = std::move(now);
            headerLine = line.number;
            resolve();
            continue;
        }
        if (t.rfind("ID", 0) == 0 && (t.size() == 2 || t[2] == ' ' || t[2] == '\t'))
            continue;  // the units line under the header
        if (lower(t).find("dmon was stopped") != std::string::npos) {
            stopped = true;
            continue;
        }
        if (fields.empty()) {
            if (foreign++ == 0)
                foreignFirst = line.number;
            continue;
        }
        const std::vector<std::string_view> tokens = splitSpaces(t);
        // Values never contain spaces; the entity label ("GPU 0", "GPU 0 LINK 2", "CPU Core 12")
        // is whatever precedes the last fields.size() tokens.
        if (tokens.size() < fields.size() + 2) {
            ++out.file.rowsRead;
            b.rowProblem(line.number, QStringLiteral("%1 value(s) where the #Entity header (line %2) names %3; row "
                                                     "skipped (cut short, or not a dmon row)")
                                          .arg(qint64(tokens.size()) - 2)
                                          .arg(headerLine)
                                          .arg(fields.size()));
            continue;
        }
        const size_t labelTokens = tokens.size() - fields.size();
        if (labelTokens != 2 || tokens[0] != "GPU") {
            if (otherEntities++ == 0)
                otherFirst = line.number;
            continue;
        }
        ++out.file.rowsRead;
        bool idOk = false;
        const int id = text(tokens[1]).toInt(&idOk);
        if (!idOk || id < 0) {
            b.rowProblem(line.number, QStringLiteral("GPU id '%1' is not a number; row skipped").arg(excerpt(tokens[1])));
            continue;
        }
        auto value = [&](int col) -> double {
            if (col < 0)
                return NAN;
            const std::string_view raw = tokens[labelTokens + size_t(col)];
            const Cell c = readNumber(raw);
            const QString column = QString::fromStdString(fields[size_t(col)]);
            if (c.kind == Cell::Kind::Missing) {
                b.missing(column);
                return NAN;
            }
            if (c.kind == Cell::Kind::NotANumber) {
                b.rowProblem(line.number, QStringLiteral("'%1' is '%2', not a number; value ignored").arg(column, excerpt(raw)),
                             false);
                return NAN;
            }
            return c.value;
        };
        const double usedGb = value(used) / 1024.0;
        double totalGb = value(total) / 1024.0;
        if (total < 0 && used >= 0 && freeCol >= 0)
            totalGb = usedGb + value(freeCol) / 1024.0;
        b.add(line.number, b.gpuOf(text(tokens[1])), NAN, b.checked(line.number, value(util), 0.0, 100.0, b.utilColumn),
              b.checked(line.number, usedGb, 0.0, 1e6, b.usedColumn), b.checked(line.number, totalGb, 0.0, 1e6, b.totalColumn),
              b.checked(line.number, value(power), 0.0, 1e5, b.powerColumn));
    }
    if (fields.empty()) {
        b.diag(Severity::Error, 0, QStringLiteral("no '#Entity' header line: not dcgmi dmon output; no telemetry"));
        return;
    }
    if (foreign > 0)
        b.diag(Severity::Warning, foreignFirst,
               QStringLiteral("%1 line(s) before the first #Entity header dropped (first at line %2)")
                   .arg(foreign)
                   .arg(foreignFirst));
    if (otherEntities > 0)
        b.diag(Severity::Info, otherFirst,
               QStringLiteral("%1 row(s) of other entities (GPU instances, links, CPUs, switches) left out: only whole "
                              "GPUs are telemetry samples")
                   .arg(otherEntities));
    if (repeatedHeaders > 0)
        b.diag(Severity::Info, 0,
               QStringLiteral("dropped %1 repeated #Entity header(s) (dmon repeats it every 14 rows)").arg(repeatedHeaders));
    if (stopped)
        b.diag(Severity::Info, 0, QStringLiteral("dmon was stopped by a signal (its last line says so)"));
    if (b.rows() == 0)
        b.diag(Severity::Warning, headerLine,
               QStringLiteral("an #Entity header (line %1) but no GPU row: no telemetry").arg(headerLine));
    out.file.dialect = QStringLiteral("dcgmi dmon (%1 field(s): %2)")
                           .arg(fields.size())
                           .arg(QString::fromStdString([&] {
                               std::string j;
                               for (const std::string &f : fields)
                                   j += (j.empty() ? "" : " ") + f;
                               return j;
                           }()));
    b.finish(kDefaultIntervalS, QStringLiteral("dcgmi dmon writes no time; dmon's default -d 1000 ms assumed"));
}

} // namespace goblin::telemetry
