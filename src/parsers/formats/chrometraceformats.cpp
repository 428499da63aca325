// torch.profiler / Kineto chrome traces (torchtraceparser.h): torch_profile.json by its name,
// any other by its content (kineto/tracediscovery.h), and files named like one whose head shows none.

#include "formats/builtinformats.h"

#include "io/runinventory.h"
#include "kineto/tracediscovery.h"

namespace goblin::formats {

bool chromeTraceContent(const FileHead &head)
{
    // JSON or gzip whose (decompressed) text is an object with a top-level "traceEvents" key
    // in its first megabyte.
    const bool candidate = head.content == HeadContent::Json || head.content == HeadContent::Gzip
                           || (head.content == HeadContent::Text && head.bytes.trimmed().isEmpty());
    return candidate && head.info.size() >= 2 && kineto::looksLikeChromeTrace(head.path);
}

const InputFormat &referenceTorchTrace()
{
    // The reference's name decides alone; whether its content is a trace is asked apart (InputRow::traceContent).
    static const InputFormat f{"chrome-trace", InputRole::ChromeTrace, FormatPlace::Folder,
                               {kTorchTraceFileName}, nullptr, 1000, "the torch trace", "a chrome trace",
                               "holds no trace event"};
    return f;
}

const InputFormat &chromeTrace()
{
    static const InputFormat f{"chrome-trace", InputRole::ChromeTrace, FormatPlace::Anywhere, {QStringLiteral("*")},
                               &chromeTraceContent, 600, "a chrome trace", "a chrome trace", "holds no trace event"};
    return f;
}

std::optional<int> rankFromTraceName(const QString &fileName)
{
    return kineto::rankFromFileName(fileName);
}

const InputFormat &chromeTraceLookAlike()
{
    static const InputFormat f{"chrome-trace-look-alike", InputRole::LookAlike, FormatPlace::Anywhere,
                               {QStringLiteral("torch_profile.json.gz"), QStringLiteral("*.pt.trace.json"),
                                QStringLiteral("*.pt.trace.json.gz")},
                               nullptr, 190, "named like a chrome trace", "an input", "holds nothing readable"};
    return f;
}

} // namespace goblin::formats
