// What the fastest validating JSON parser we have (simdjson's DOM parser, its best kernel for this
// CPU) costs per GB on a chrome trace, one core: a floor for what any full reading of the trace
// can cost, to set beside the workbench's load and `cat` (docs/performance.md). The trace is cut
// into documents of about 64 MB between two events (one 900 MB document would measure page
// faults of simdjson's 2.8 GB tape instead), which one parser, warmed up on all of them, parses
// in turn; the figures are the parse alone, the file already in memory.
//
//   goblin-bench-jsonfloor TRACE.json [--repeat N]

#include "io/bytesource.h"
#include "io/rangeplan.h"

#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s TRACE.json [--repeat N]\n", argv[0]);
        return 2;
    }
    const int repeat = argc >= 4 && std::strcmp(argv[2], "--repeat") == 0 ? std::max(1, std::atoi(argv[3])) : 3;
    std::ifstream in(argv[1], std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t key = text.find("\"traceEvents\"");
    const size_t open = key == std::string::npos ? key : text.find('[', key);
    const size_t close = text.rfind(']');
    if (open == std::string::npos || close == std::string::npos || close < open) {
        std::fprintf(stderr, "%s: no \"traceEvents\" array\n", argv[1]);
        return 1;
    }
    // Documents {"traceEvents": [ ...events... ]} of about 64 MB each.
    constexpr size_t kDocumentBytes = size_t(64) << 20;
    std::vector<simdjson::padded_string> documents;
    size_t bytes = 0;
    // Cut where the workbench's range planner cuts (io::findElementStart: a '{' after "},").
    goblin::io::ByteSource source;
    QString error;
    if (!source.open(goblin::io::ByteOrigin::bytes(QByteArrayView(text.data(), qsizetype(text.size()))), &error)) {
        std::fprintf(stderr, "%s: %s\n", argv[1], qPrintable(error));
        return 1;
    }
    for (size_t begin = open + 1; begin < close;) {
        size_t cut = close;
        if (begin + kDocumentBytes < close) {
            const qint64 next = goblin::io::findElementStart(source, qint64(begin + kDocumentBytes));
            if (next > 0 && size_t(next) < close)
                cut = size_t(next);
        }
        const size_t last = cut == close ? close : text.rfind(',', cut);  // without the ',' before the cut
        const std::string document = "{\"traceEvents\": [" + text.substr(begin, last - begin) + "]}";
        bytes += document.size();
        documents.emplace_back(document);
        begin = cut;
    }
    // One parser sized for the largest document and one untimed pass over all of them: on this
    // VM a page fault costs microseconds, and a parser that grows mid-run (fresh pages) took
    // three times as long on its first pass. Warm, it measures the parse alone (a floor: the
    // caches and branch predictors have seen these bytes).
    size_t largest = 0;
    for (const simdjson::padded_string &document : documents)
        largest = std::max(largest, document.size());
    simdjson::dom::parser parser;
    if (parser.allocate(largest)) {
        std::fprintf(stderr, "%s: simdjson cannot allocate for %zu bytes\n", argv[1], largest);
        return 1;
    }
    double best = 1e30;
    size_t events = 0;
    for (int r = -1; r < repeat; ++r) {  // r == -1: the warm-up pass
        events = 0;
        const auto start = std::chrono::steady_clock::now();
        for (const simdjson::padded_string &document : documents) {
            simdjson::dom::element root;
            simdjson::dom::array array;
            if (parser.parse(document).get(root) || root["traceEvents"].get_array().get(array)) {
                std::fprintf(stderr, "%s: simdjson refuses a document\n", argv[1]);
                return 1;
            }
            events += array.size();
        }
        if (r >= 0)
            best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::printf("simdjson (%s kernels): %zu documents, %.1f MB, %zu events; DOM parse %.3f s (best of %d) = "
                "%.2f GB/s, %.2f CPU s/GiB on one core\n",
                simdjson::get_active_implementation()->name().c_str(), documents.size(),
                double(bytes) / 1e6, events, best, repeat, double(bytes) / 1e9 / best,
                best / (double(bytes) / double(1u << 30)));
    return 0;
}
