#include "tracediscovery.h"
#include "io/regularfile.h"

#include "syntax/jsonscanner.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

namespace goblin::kineto {

namespace {

constexpr qint64 kSniffBytes = qint64(1) << 20;  // of decompressed text at most
constexpr qint64 kSniffChunk = qint64(64) << 10;

/// Collects the root keys the scanner reports until "traceEvents" appears.
struct RootKeySniffer final : JsonScanner::Sink {
    bool rootIsObject = false;
    bool sawTraceEvents = false;
    void rootKey(std::string_view key, qint64, qint64) override
    {
        if (key == "traceEvents")
            sawTraceEvents = true;
    }
    bool valueBegin(int depth, char first, qint64, qint64) override
    {
        if (depth == 0)
            rootIsObject = first == '{';
        return depth == 0;  // members of the root object only
    }
    void valueEnd(int, qint64, bool) override {}
};

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
            if (i < n && data[i] != '{')
                return false;  // not an object: most files stop here after one read
        }
        scanner.feed(data, n);
        return !sink.sawTraceEvents && !scanner.failed();
    });
    return sink.rootIsObject && sink.sawTraceEvents;
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

namespace {

/// `<worker>.<timestamp>.pt.trace.json[.gz]` (tensorboard_trace_handler's name): the worker and
/// the timestamp, or an empty worker for other names.
std::pair<QString, QString> workerSession(const QString &fileName)
{
    static const QRegularExpression re(QStringLiteral("^(.+)\\.(\\d{1,30})\\.pt\\.trace\\.json(?:\\.gz)?$"));
    const auto m = re.match(fileName);
    if (!m.hasMatch())
        return {};
    return {m.captured(1), m.captured(2)};
}

/// Is session timestamp `a` later than `b`? Digits compared as numbers, however long.
bool laterTimestamp(const QString &a, const QString &b)
{
    const auto strip = [](const QString &digits) {
        qsizetype zeros = 0;
        while (zeros + 1 < digits.size() && digits[zeros] == QLatin1Char('0'))
            ++zeros;
        return digits.mid(zeros);
    };
    const QString x = strip(a), y = strip(b);
    return x.size() != y.size() ? x.size() > y.size() : x > y;
}

} // namespace

std::vector<FoundTrace> findChromeTraces(const QString &runDir, std::vector<SkippedTrace> *skipped)
{
    std::vector<FoundTrace> found;
    const QDir root(runDir);
    std::vector<QString> folders{QString()};
    for (const QString &sub : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
        folders.push_back(sub + QLatin1Char('/'));
    for (const QString &prefix : folders) {
        const QDir dir(root.filePath(prefix));
        std::set<QString> plain;
        std::vector<QString> names;
        for (const QFileInfo &info : dir.entryInfoList(QDir::Files | QDir::Readable, QDir::Name)) {
            if (info.size() < 2 || !looksLikeChromeTrace(info.filePath()))
                continue;
            names.push_back(info.fileName());
            plain.insert(info.fileName());
        }
        // The compressed copy of a trace that is here in plain text.
        const auto isCompressedCopy = [&plain](const QString &name) {
            return name.endsWith(QLatin1String(".gz")) && plain.count(name.chopped(3)) > 0;
        };
        // The latest session of each worker (file names differing only in the timestamp).
        std::map<QString, std::pair<QString, QString>> latestOfWorker;  // worker -> {file name, timestamp}
        for (const QString &name : names) {
            if (isCompressedCopy(name))
                continue;
            const auto [worker, stamp] = workerSession(name);
            if (worker.isEmpty())
                continue;
            auto [it, inserted] = latestOfWorker.emplace(worker, std::pair{name, stamp});
            if (!inserted && laterTimestamp(stamp, it->second.second))
                it->second = {name, stamp};
        }
        for (const QString &name : names) {
            if (isCompressedCopy(name)) {
                if (skipped)
                    skipped->push_back({prefix + name, prefix + name.chopped(3), SkippedTrace::Reason::CompressedCopy});
                continue;
            }
            const QString worker = workerSession(name).first;
            if (!worker.isEmpty() && latestOfWorker[worker].first != name) {
                if (skipped)
                    skipped->push_back({prefix + name, prefix + latestOfWorker[worker].first, SkippedTrace::Reason::OlderSession});
                continue;
            }
            found.push_back({prefix + name, rankFromFileName(name)});
        }
    }
    std::stable_sort(found.begin(), found.end(), [](const FoundTrace &a, const FoundTrace &b) {
        if (a.nameRank.has_value() != b.nameRank.has_value())
            return a.nameRank.has_value();
        if (a.nameRank && *a.nameRank != *b.nameRank)
            return *a.nameRank < *b.nameRank;
        return a.relativePath < b.relativePath;
    });
    return found;
}

} // namespace goblin::kineto
