// Perfetto TracePacket streams, plain or gzip (pftrace/pftracereader.h).

#include "formats/builtinformats.h"

#include "pftrace/pftracereader.h"
#include "pftrace/pftracesniff.h"

namespace goblin::formats {

namespace {

bool sniffPftrace(const FileHead &head)
{
    if (head.content == HeadContent::Gzip)
        return looksLikePftrace(QByteArrayView(head.contentHead(64)));
    return looksLikePftrace(QByteArrayView(head.bytes));
}

} // namespace

const InputFormat &pftrace()
{
    static const InputFormat f{"pftrace", InputRole::Pftrace, FormatPlace::Anywhere,
                               {QStringLiteral("*.pftrace"), QStringLiteral("*.perfetto-trace"), QStringLiteral("*.pb"),
                                QStringLiteral("*.pftrace.gz"), QStringLiteral("*.perfetto-trace.gz"),
                                QStringLiteral("*.pb.gz")},
                               &sniffPftrace, 690, "a Perfetto trace (TracePacket stream)", "a Perfetto trace",
                               "holds no kernel dispatch", &readPftrace, nullptr, false, false,
                               /*binaryContent=*/true};
    return f;
}

} // namespace goblin::formats
