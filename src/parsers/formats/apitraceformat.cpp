// rocprofv3's API traces (apitraceparser.h): roctx markers and HIP calls, known by their header.

#include "formats/builtinformats.h"

namespace goblin::formats {

namespace {

/// rocprofv3's API traces share one header: "Domain","Function","Process_Id","Thread_Id",
/// "Correlation_Id","Start_Timestamp","End_Timestamp" (rocpd2csv prepends "Guid"). The Domain of
/// the rows tells markers (roctx ranges: steps) from HIP calls (host activity).
bool sniffApiTraceCsv(const FileHead &head)
{
    if (head.content != HeadContent::Text)
        return false;
    QStringList columns;
    for (const QString &c : head.headerLine().split(QLatin1Char(',')))
        columns << c.trimmed().remove(QLatin1Char('"')).toLower();
    if (!columns.isEmpty() && columns.first() == QLatin1String("guid"))
        columns.removeFirst();
    return columns.size() >= 7 && columns[0] == QLatin1String("domain") && columns[1] == QLatin1String("function") &&
           columns.contains(QLatin1String("start_timestamp")) && columns.contains(QLatin1String("end_timestamp"));
}

} // namespace

const InputFormat &apiTraceCsv()
{
    static const InputFormat f{"api-trace-csv", InputRole::ApiTrace, FormatPlace::Anywhere, {QStringLiteral("*.csv")},
                               &sniffApiTraceCsv, 500, "a rocprofv3 API trace (roctx markers or HIP calls)",
                               "an input", "holds nothing readable"};
    return f;
}

} // namespace goblin::formats
