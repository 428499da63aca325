// libFuzzer target for the JSON grammar alone (syntax/jsonscanner): one input = a document,
// scanned twice, whole in one feed() (the fast path, locating the members a trace event is read
// for) and in chunks of a size picked from the input's last byte (the resumable state machine).
// Oracles: the sanitizers; both scans must report the same values, keys, verdict, error text and
// position; reported values nest and lie inside the document; located members lie inside their
// object. Bad input must end in an error, never a crash or a hang.

#include "syntax/jsonscanner.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::string_view kEventKeys[] = {"ph", "cat", "name", "ts", "dur", "args", "pid"};

[[noreturn]] void failWith(const char *what, const std::string &detail = {})
{
    std::fprintf(stderr, "fuzz_json: %s %s\n", what, detail.c_str());
    std::abort();
}

/// Logs what the scanner reports and checks that it nests.
class Recorder final : public goblin::JsonScanner::Sink
{
public:
    Recorder(const goblin::JsonScanner *scanner, qint64 size) : m_scanner(scanner), m_size(size) {}

    std::string log;

    void rootKey(std::string_view key, qint64 offset, qint64 line) override
    {
        if (offset < 0 || offset > m_size || line < 1)
            failWith("root key out of the document");
        log += "k" + std::to_string(offset) + ":" + std::to_string(line) + "=" + std::string(key) + "\n";
    }
    bool valueBegin(int depth, char first, qint64 offset, qint64 line) override
    {
        if (depth != int(m_open.size()) || depth > 2 || offset < 0 || offset >= m_size || line < 1)
            failWith("valueBegin out of order", std::to_string(depth) + " at " + std::to_string(offset));
        m_open.push_back(offset);
        log += "b" + std::to_string(depth) + first + std::to_string(offset) + ":" + std::to_string(line) + "\n";
        return depth < 2;
    }
    void valueEnd(int depth, qint64 endOffset, bool sawBackslash) override
    {
        if (m_open.empty() || depth != int(m_open.size()) - 1 || endOffset <= m_open.back() || endOffset > m_size)
            failWith("valueEnd out of order", std::to_string(depth) + " at " + std::to_string(endOffset));
        const qint64 begin = m_open.back();
        m_open.pop_back();
        if (m_scanner)
            if (const goblin::JsonScanner::CapturedMembers *members = m_scanner->capturedMembers())
                for (int k = 0; k < int(std::size(kEventKeys)); ++k)
                    if ((members->have & (1u << k)) &&
                        (members->begin[k] <= begin || members->end[k] > endOffset || members->end[k] <= members->begin[k]))
                        failWith("located member outside its object", std::string(kEventKeys[k]));
        log += "e" + std::to_string(depth) + (sawBackslash ? "\\" : "") + std::to_string(endOffset) + "\n";
    }

    void attach(const goblin::JsonScanner *scanner) { m_scanner = scanner; }

private:
    const goblin::JsonScanner *m_scanner;
    qint64 m_size;
    std::vector<qint64> m_open;
};

std::string verdict(const goblin::JsonScanner &s)
{
    return std::string(s.failed() ? "failed " : "ok ") + (s.complete() ? "complete " : "") + s.errorMessage() + " @" +
           std::to_string(s.errorOffset()) + ":" + std::to_string(s.errorLine()) + ":" +
           std::to_string(s.errorColumn()) + (s.errorIsDepthLimit() ? " depth" : "") + " max " +
           std::to_string(s.maxDepthSeen()) + " nonstd " + std::to_string(s.nonStandardLiterals()) + "@" +
           std::to_string(s.firstNonStandardLine());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = reinterpret_cast<const char *>(data);
    static constexpr size_t kChunkBytes[] = {1, 3, 64, 4093};
    const size_t chunk = size ? kChunkBytes[data[size - 1] % std::size(kChunkBytes)] : 1;

    Recorder whole(nullptr, qint64(size));
    goblin::JsonScanner a(whole);
    whole.attach(&a);
    a.setCapturedKeys(kEventKeys, int(std::size(kEventKeys)));
    a.feed(text, size);
    a.finish();

    Recorder chunked(nullptr, qint64(size));
    goblin::JsonScanner b(chunked);
    for (size_t at = 0; at < size && !b.failed(); at += chunk) {
        // A copy per chunk: the scanner must not keep pointers into data it was fed.
        const std::string piece(text + at, std::min(chunk, size - at));
        b.feed(piece.data(), piece.size());
    }
    b.finish();

    if (verdict(a) != verdict(b))
        failWith("whole and chunked scans disagree:", verdict(a) + " / " + verdict(b));
    // Before an error, both reported the same values (after it, reports may stop at different
    // places: the fast path validates a container before reporting it).
    if (!a.failed() && whole.log != chunked.log)
        failWith("whole and chunked scans report different values");
    if (a.complete() && size > 0) {
        // A valid document: its strings' escapes resolve without tripping anything.
        volatile size_t sink = goblin::JsonScanner::unescape(std::string_view(text, size)).size();
        (void)sink;
    }
    return 0;
}
