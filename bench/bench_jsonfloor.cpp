// What the fastest validating JSON parser we have (simdjson's DOM parser, its best kernel for this
// CPU) costs per GB on a chrome trace, one core: a floor for what any full reading of the trace
// can cost, to set beside the workbench's load and `cat` (docs/performance.md). The trace is cut
// into documents of about 64 MB between two events (one 900 MB document would measure page
// faults of simdjson's 2.8 GB tape instead), which one parser, warmed up on all of them, parses
// in turn; the figures are the parse alone, the file already in memory.
//
//   goblin-bench-jsonfloor TRACE.json [--repeat N]

#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

/// The next element start at or after `from`: a '{' after "}," (whitespace between), as the
/// workbench's range planner cuts.
size_t nextElementStart(const std::string &text, size_t from, size_t end)
{
    for (size_t i = from; i < end; ++i) {
        if (text[i] != '{')
            continue;
        size_t j = i;
        while (j > 0 && std::strchr(" \t\r\n", text[j - 1]))
            --j;
        if (j == 0 || text[j - 1] != ',')
            continue;
        --j;
        while (j > 0 && std::strchr(" \t\r\n", text[j - 1]))
            --j;
        if (j > 0 && text[j - 1] == '}')
            return i;
    }
    return std::string::npos;
}

} // namespace

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
    for (size_t begin = open + 1; begin < close;) {
        size_t cut = begin + kDocumentBytes < close ? nextElementStart(text, begin + kDocumentBytes, close) : close;
        if (cut == std::string::npos)
            cut = close;
        size_t last = cut;  // drop the ',' before the next element
        if (cut != close) {
            last = text.rfind(',', cut);
        }
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
