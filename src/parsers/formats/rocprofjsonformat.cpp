// rocprofv3's JSON (`--output-format json`), plain or gzip (rocprofjson/rocprofjsonreader.h).

#include "formats/builtinformats.h"

#include "rocprofjson/rocprofjsonreader.h"

namespace goblin::formats {

namespace {

/// `{"rocprofiler-sdk-tool":[` opens the document.
bool sniffRocprofJson(const FileHead &head)
{
    if (head.content != HeadContent::Json && head.content != HeadContent::Gzip)
        return false;
    const QByteArray text = head.contentHead(512);
    qsizetype i = 0;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t'))
        ++i;
    return i < text.size() && text[i] == '{' && text.indexOf("\"rocprofiler-sdk-tool\"", i) >= 0;
}

} // namespace

const InputFormat &rocprofJson()
{
    static const InputFormat f{"rocprofv3-json", InputRole::RocprofJson, FormatPlace::Anywhere,
                               {QStringLiteral("*.json"), QStringLiteral("*.json.gz")}, &sniffRocprofJson, 700,
                               "a rocprofv3 JSON (--output-format json)", "a rocprofv3 JSON trace",
                               "holds no kernel dispatch", &readRocprofJson};
    return f;
}

} // namespace goblin::formats
