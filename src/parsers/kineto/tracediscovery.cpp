#include "tracediscovery.h"
#include "io/regularfile.h"
#include "io/runinventory.h"

#include "syntax/jsonscanner.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <zlib.h>

#include <algorithm>
#include <cstring>

namespace goblin::kineto {

namespace {

constexpr qint64 kSniffBytes = qint64(1) << 20;  // of decompressed text at most
constexpr qint64 kSniffChunk = qint64(64) << 10;

/// Collects the root keys the scanner reports until "traceEvents" appears; for a root array (the
/// Trace Event Format's array form, which Perfetto and chrome://tracing open), where its first
/// element lies.
struct RootKeySniffer final : JsonScanner::Sink {
    bool rootIsObject = false;
    bool rootIsArray = false;
    bool sawTraceEvents = false;
    qint64 firstElementBegin = -1;
    qint64 firstElementEnd = -1;  ///< past its last byte; -1 until the scanner met it
    char firstElementKind = 0;
    bool done() const { return sawTraceEvents || firstElementEnd >= 0 || (rootIsArray && firstElementKind != 0 && firstElementKind != '{'); }
    void rootKey(std::string_view key, qint64, qint64) override
    {
        if (key == "traceEvents")
            sawTraceEvents = true;
    }
    bool valueBegin(int depth, char first, qint64 offset, qint64) override
    {
        if (depth == 0) {
            rootIsObject = first == '{';
            rootIsArray = first == '[';
        } else if (depth == 1 && rootIsArray && firstElementKind == 0) {
            firstElementKind = first;
            firstElementBegin = offset;
        }
        return depth == 0;  // the root's members or elements only
    }
    void valueEnd(int depth, qint64 endOffset, bool) override
    {
        if (depth == 1 && rootIsArray && firstElementEnd < 0 && firstElementBegin >= 0)
            firstElementEnd = endOffset;
    }
};

/// The array form's first element is a trace event: an object with a string "ph" (the phase
/// every event of the Trace Event Format has) and a "name" or a "ts".
bool isTraceEvent(const QByteArray &element)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(element, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return false;
    const QJsonObject event = document.object();
    return event.value(QLatin1String("ph")).isString()
           && (event.contains(QLatin1String("name")) || event.contains(QLatin1String("ts")));
}

/// Reads up to kSniffBytes of decompressed text in chunks, handing each to `feed` until it
/// returns false.
template <typename Feed>
void readHead(QFile &file, Feed feed)
{
    char magic[2] = {0, 0};
    const bool gzip = file.read(magic, 2) == 2 && quint8(magic[0]) == 0x1f && quint8(magic[1]) == 0x8b;
    if (!file.seek(0))
        return;
    std::vector<char> in(static_cast<size_t>(kSniffChunk)), out(static_cast<size_t>(kSniffChunk));
    qint64 produced = 0;
    if (!gzip) {
        while (produced < kSniffBytes) {
            const qint64 n = file.read(out.data(), kSniffChunk);
            if (n <= 0 || !feed(out.data(), size_t(n)))
                return;
            produced += n;
        }
        return;
    }
    z_stream z;
    std::memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        return;
    bool more = true;
    while (more && produced < kSniffBytes) {
        if (z.avail_in == 0) {
            const qint64 n = file.read(in.data(), kSniffChunk);
            if (n <= 0)
                break;
            z.next_in = reinterpret_cast<Bytef *>(in.data());
            z.avail_in = uInt(n);
        }
        z.next_out = reinterpret_cast<Bytef *>(out.data());
        z.avail_out = uInt(out.size());
        const int rc = inflate(&z, Z_NO_FLUSH);
        const size_t n = out.size() - z.avail_out;
        if (n > 0 && !feed(out.data(), n))
            break;
        produced += qint64(n);
        more = rc == Z_OK;
    }
    inflateEnd(&z);
}

} // namespace

bool looksLikeChromeTrace(const QString &path)
{
    if (!specialFileProblem(path).isEmpty())
        return false;  // a FIFO would block the sniff, a device never end it
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    RootKeySniffer sink;
    JsonScanner scanner(sink);
    QByteArray fed;  // what the scanner read, for the array form's first element (at most kSniffBytes)
    bool first = true;
    readHead(file, [&](const char *data, size_t n) {
        if (first) {
            first = false;
            // A UTF-8 byte order mark is skipped (the trace reader warns about it).
            if (n >= 3 && quint8(data[0]) == 0xEF && quint8(data[1]) == 0xBB && quint8(data[2]) == 0xBF) {
                data += 3;
                n -= 3;
            }
            size_t i = 0;
            while (i < n && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t'))
                ++i;
            if (i < n && data[i] != '{' && data[i] != '[')
                return false;  // neither an object nor an array: most files stop here after one read
        }
        if (sink.rootIsArray || fed.isEmpty())
            fed.append(data, qsizetype(n));
        scanner.feed(data, n);
        return !sink.done() && !scanner.failed();
    });
    if (sink.rootIsObject)
        return sink.sawTraceEvents;
    if (sink.rootIsArray && sink.firstElementKind == '{' && sink.firstElementEnd > sink.firstElementBegin
        && sink.firstElementEnd <= fed.size())
        return isTraceEvent(fed.mid(sink.firstElementBegin, sink.firstElementEnd - sink.firstElementBegin));
    return false;
}

std::optional<int> rankFromFileName(const QString &fileName)
{
    // "rank" not preceded by a letter ("sampled_rank", "rank-3", "rank3", "Rank_12"), then an
    // optional '-' or '_' and the digits.
    static const QRegularExpression re(QStringLiteral("(?:^|[^A-Za-z])rank[-_]?(\\d{1,7})(?!\\d)"),
                                       QRegularExpression::CaseInsensitiveOption);
    const auto m = re.match(fileName);
    if (!m.hasMatch())
        return std::nullopt;
    bool ok = false;
    const int rank = m.captured(1).toInt(&ok);
    return ok ? std::optional<int>(rank) : std::nullopt;
}

std::vector<FoundTrace> findChromeTraces(const QString &runDir, std::vector<SkippedTrace> *skipped)
{
    const RunInventory inventory = RunInventory::scanFolder(runDir);
    std::vector<FoundTrace> found;
    for (const InputRow *row : inventory.chromeTraces())
        found.push_back({row->relativePath, row->nameRank});
    if (skipped)
        for (const InputRow *row : inventory.skippedChromeTraces())
            skipped->push_back({row->relativePath, row->keptPath,
                                row->skippedAs == SkippedAs::OlderSession ? SkippedTrace::Reason::OlderSession
                                                                          : SkippedTrace::Reason::CompressedCopy});
    return found;
}

} // namespace goblin::kineto
