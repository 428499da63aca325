#include "telemetry/logcommon.h"
#include "telemetry/telemetrylogs.h"

namespace goblin::telemetry
{

namespace
{

std::vector<std::string_view> splitCommas(std::string_view line)
{
    std::vector<std::string_view> fields;
    size_t start = 0;
    while (true) {
        const size_t comma = line.find(',', start);
        std::string_view f = trimmed(line.substr(start, comma == std::string_view::npos ? std::string_view::npos
                                                                                         : comma - start));
        if (f.size() >= 2 && f.front() == '"' && f.back() == '"')
            f = f.substr(1, f.size() - 2);
        fields.push_back(f);
        if (comma == std::string_view::npos)
            break;
        start = comma + 1;
    }
    return fields;
}

/// Shell loops around rocm-smi: no clock, one block per call; 1 s is the usual `sleep 1`.
constexpr double kAssumedIntervalS = 1.0;

} // namespace

void readRocmSmi(QByteArrayView bytes, const QString &file, SmiTelemetry &out)
{
    LogBuilder b(out, file);
    out.tool = QStringLiteral("rocm-smi");
    out.file.format = QStringLiteral("rocm-smi-csv");
    if (bytes.isEmpty()) {
        b.diag(Severity::Error, 0, QStringLiteral("the file is empty (0 bytes): no telemetry"));
        return;
    }
    if (const qint64 line = binaryLine(bytes)) {
        b.diag(Severity::Error, line, QStringLiteral("binary data, not rocm-smi CSV text: not read"));
        return;
    }
    std::vector<std::string> header;  // lower case
    std::vector<QString> written;
    qint64 headerLine = 0, blocks = 0, otherLines = 0, otherFirst = 0;
    bool inDeviceBlock = false;
    int util = -1, used = -1, total = -1, percentCol = -1, power = -1, series = -1;
    auto resolve = [&] {
        b.noteRepeatedColumns(headerLine, header);
        util = used = total = percentCol = power = series = -1;
        for (size_t i = 0; i < header.size(); ++i) {
            const std::string &h = header[i];
            const int c = int(i);
            if (h == "gpu use (%)")
                util = c;
            else if (h == "vram total used memory (b)")
                used = c;
            else if (h == "vram total memory (b)")
                total = c;
            else if (h == "gpu memory allocated (vram%)")
                percentCol = c;
            else if (h.find("graphics package power (w)") != std::string::npos || h == "power (w)")
                power = c;
            else if (h == "card series" || h == "card model" || h == "device name")
                series = series < 0 ? c : series;
        }
        auto name = [&](int c) { return c >= 0 ? written[size_t(c)] : QString(); };
        b.utilColumn = name(util);
        b.usedColumn = used >= 0 ? name(used) : name(percentCol);
        b.totalColumn = name(total);
        b.powerColumn = name(power);
        b.gpuColumn = name(0);
        b.usedUnit = used >= 0 ? QStringLiteral("B") : QStringLiteral("% of VRAM");
        b.utilWhy = util >= 0 ? QStringLiteral("rocm-smi GPU use (-u)")
                              : QStringLiteral("no 'GPU use (%)' column (rocm-smi -u / --showuse)");
        const bool activity = std::find(header.begin(), header.end(), "gpu memory use (%)") != header.end();
        b.usedWhy = used >= 0 ? QStringLiteral("rocm-smi --showmeminfo vram, bytes")
                    : percentCol >= 0
                        ? QStringLiteral("GPU Memory Allocated (VRAM%) × the total memory")
                        : activity ? QStringLiteral("'GPU memory use (%)' is memory read/write activity, not memory "
                                                    "used; no 'VRAM Total Used Memory (B)' column (--showmeminfo vram)")
                                   : QStringLiteral("no 'VRAM Total Used Memory (B)' column (--showmeminfo vram)");
    };

    for (const Line &line : splitLines(bytes)) {
        const std::string_view t = trimmed(line.text);
        if (t.empty())
            continue;
        const std::string low = lower(t);
        if (low.rfind("device,", 0) == 0) {
            std::vector<std::string> now;
            std::vector<QString> names;
            for (std::string_view f : splitCommas(t)) {
                now.push_back(lower(f));
                names.push_back(text(f));
            }
            if (now != header) {
                if (!header.empty())
                    b.diag(Severity::Warning, line.number,
                           QStringLiteral("a different device header (%1 columns); the rows under it are read with its "
                                          "columns")
                               .arg(now.size()));
                header = std::move(now);
                written = std::move(names);
                headerLine = line.number;
                resolve();
            }
            ++blocks;
            inDeviceBlock = true;
            continue;
        }
        const bool card = low.rfind("card", 0) == 0 && low.size() > 4 && low[4] >= '0' && low[4] <= '9';
        if (!card || !inDeviceBlock) {
            // WARNING lines, ===== banners, the `system` block of -a (name,value): not samples.
            if (card && !inDeviceBlock) {
                ++out.file.rowsRead;
                b.rowProblem(line.number, QStringLiteral("a card row before any 'device,' header; row skipped"));
                continue;
            }
            inDeviceBlock = false;
            if (otherLines++ == 0)
                otherFirst = line.number;
            continue;
        }
        ++out.file.rowsRead;
        const std::vector<std::string_view> fields = splitCommas(t);
        if (fields.size() != header.size()) {
            b.rowProblem(line.number, QStringLiteral("%1 fields where the header (line %2) has %3; row skipped (cut "
                                                     "short?)")
                                          .arg(fields.size())
                                          .arg(headerLine)
                                          .arg(header.size()));
            continue;
        }
        const int gpu = b.gpuOf(text(fields[0].substr(4)));
        auto value = [&](int col) -> double {
            if (col < 0)
                return NAN;
            const Cell c = readNumber(fields[size_t(col)]);
            if (c.kind == Cell::Kind::Missing) {
                b.missing(written[size_t(col)]);
                return NAN;
            }
            if (c.kind == Cell::Kind::NotANumber) {
                b.rowProblem(line.number, QStringLiteral("'%1' is '%2', not a number; value ignored")
                                              .arg(written[size_t(col)], excerpt(fields[size_t(col)])),
                             false);
                return NAN;
            }
            return c.value;
        };
        constexpr double kGbPerByte = 1.0 / (1024.0 * 1024.0 * 1024.0);
        const double totalGb = value(total) * kGbPerByte;
        double usedGb = value(used) * kGbPerByte;
        if (used < 0 && percentCol >= 0)
            usedGb = value(percentCol) / 100.0 * totalGb;  // NaN without a total: then unknown
        if (series >= 0 && !b.gpuNames.count(gpu) && !fields[size_t(series)].empty())
            b.gpuNames[gpu] = text(fields[size_t(series)]);
        b.add(line.number, gpu, NAN, b.checked(line.number, value(util), 0.0, 100.0, b.utilColumn),
              b.checked(line.number, usedGb, 0.0, 1e6, b.usedColumn), b.checked(line.number, totalGb, 0.0, 1e6, b.totalColumn),
              b.checked(line.number, value(power), 0.0, 1e5, b.powerColumn));
    }
    if (header.empty()) {
        b.diag(Severity::Error, 0, QStringLiteral("no 'device,' header line: not rocm-smi --csv output; no telemetry"));
        return;
    }
    if (otherLines > 0)
        b.diag(Severity::Info, otherFirst,
               QStringLiteral("%1 line(s) that are no device rows dropped (warnings, banners, the system block; first "
                              "at line %2)")
                   .arg(otherLines)
                   .arg(otherFirst));
    if (b.rows() == 0)
        b.diag(Severity::Warning, headerLine,
               QStringLiteral("a 'device,' header (line %1) but no card row: no telemetry").arg(headerLine));
    out.file.dialect = QStringLiteral("rocm-smi --csv (%1 block(s))").arg(blocks);
    if (used < 0 && percentCol >= 0 && total < 0)
        b.diag(Severity::Warning, headerLine,
               QStringLiteral("'GPU Memory Allocated (VRAM%)' without 'VRAM Total Memory (B)': memory used is unknown"));
    b.finish(kAssumedIntervalS, QStringLiteral("rocm-smi writes no time; one block per second assumed"));
}

} // namespace goblin::telemetry
