// What the fastest validating JSON parser we have (simdjson's DOM parser, its best kernel for this
// CPU) costs per GB on a chrome trace, one core: a floor for what any full reading of the trace
// can cost, to set beside the workbench's load and `cat` (docs/performance.md). The trace is cut
// into documents of about 64 MB between two events (one 900 MB document would measure page
// faults of simdjson's 2.8 GB tape instead), which one parser, warmed up on all of them, parses
// in turn; the figures are the parse alone, the file already in memory.
//
// Second figure, the end-to-end floor beside issue 13's "within 3x of cat": the same documents
// read from the file (pread() out of the page cache into one reused buffer per thread, as the
// workbench reads) and parsed on --threads cores (default 2, this machine's count), next to
// `cat`'s own loop timed in the same run (read() of 128 kB into one buffer, written nowhere).
// Nothing is done with the events: whatever a reader interprets comes on top of this.
//
//   goblin-bench-jsonfloor TRACE.json [--repeat N] [--threads N]

#include "io/bytesource.h"
#include "io/rangeplan.h"

#include <simdjson.h>

#include <sys/resource.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace {

double cpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + 1e-6 * double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// What `cat FILE > /dev/null` does (coreutils reads 128 kB at a time into one buffer); wall s.
double catSeconds(const char *path)
{
    const int fd = ::open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    std::vector<char> buffer(size_t(128) << 10);
    const auto start = std::chrono::steady_clock::now();
    while (::read(fd, buffer.data(), buffer.size()) > 0) {
    }
    const double seconds = secondsSince(start);
    ::close(fd);
    return seconds;
}

struct Span {
    size_t begin = 0;  ///< first byte of the first event
    size_t end = 0;    ///< after the last event (the ',' before the next range excluded)
};

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s TRACE.json [--repeat N]\n", argv[0]);
        return 2;
    }
    int repeat = 3;
    int threads = 2;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--repeat") == 0)
            repeat = std::max(1, std::atoi(argv[i + 1]));
        else if (std::strcmp(argv[i], "--threads") == 0)
            threads = std::clamp(std::atoi(argv[i + 1]), 1, 64);
    }
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
    std::vector<Span> spans;
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
        spans.push_back({begin, last});
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

    // End to end: from the file, on `threads` cores, documents handed out in order.
    static constexpr char kPrefix[] = "{\"traceEvents\": [";
    static constexpr char kSuffix[] = "]}";
    const size_t prefixBytes = sizeof kPrefix - 1;
    const int fd = ::open(argv[1], O_RDONLY);
    if (fd < 0) {
        std::perror(argv[1]);
        return 1;
    }
    struct Worker {
        simdjson::dom::parser parser;
        std::vector<char> buffer;
        size_t events = 0;
        bool failed = false;
    };
    std::vector<Worker> workers(static_cast<size_t>(threads));
    for (Worker &worker : workers) {
        worker.buffer.resize(largest + simdjson::SIMDJSON_PADDING);
        if (worker.parser.allocate(largest))
            return 1;
        std::memset(worker.buffer.data(), ' ', worker.buffer.size());  // faulted in before timing
    }
    const auto runAll = [&] {
        std::atomic<size_t> next{0};
        const auto work = [&](Worker &worker) {
            worker.events = 0;
            for (size_t i = next++; i < spans.size(); i = next++) {
                const Span span = spans[i];
                const size_t length = span.end - span.begin;
                char *out = worker.buffer.data();
                std::memcpy(out, kPrefix, prefixBytes);
                size_t done = 0;
                while (done < length) {
                    const ssize_t got = ::pread(fd, out + prefixBytes + done, length - done, off_t(span.begin + done));
                    if (got <= 0)
                        break;
                    done += size_t(got);
                }
                std::memcpy(out + prefixBytes + length, kSuffix, 2);
                simdjson::dom::element root;
                simdjson::dom::array array;
                if (done != length || worker.parser.parse(out, prefixBytes + length + 2, false).get(root)
                    || root["traceEvents"].get_array().get(array)) {
                    worker.failed = true;
                    return;
                }
                worker.events += array.size();
            }
        };
        std::vector<std::thread> pool;
        for (size_t t = 1; t < workers.size(); ++t)
            pool.emplace_back(work, std::ref(workers[t]));
        work(workers[0]);
        for (std::thread &thread : pool)
            thread.join();
    };
    runAll();  // warm-up
    double bestWall = 1e30, bestCpu = 1e30, bestCat = 1e30;
    for (int r = 0; r < repeat; ++r) {
        bestCat = std::min(bestCat, catSeconds(argv[1]));
        const double cpuBefore = cpuSeconds();
        const auto start = std::chrono::steady_clock::now();
        runAll();
        bestWall = std::min(bestWall, secondsSince(start));
        bestCpu = std::min(bestCpu, cpuSeconds() - cpuBefore);
    }
    ::close(fd);
    size_t eventsAll = 0;
    for (const Worker &worker : workers) {
        if (worker.failed) {
            std::fprintf(stderr, "%s: simdjson refuses a document read from the file\n", argv[1]);
            return 1;
        }
        eventsAll += worker.events;
    }
    const double fileGiB = double(text.size()) / double(1u << 30);
    std::printf("end to end (pread + DOM parse, %d threads): %zu events; %.3f s wall, %.2f CPU s/GiB (best of %d); "
                "cat's read loop %.3f s; floor/cat %.1fx\n",
                threads, eventsAll, bestWall, bestCpu / fileGiB, repeat, bestCat, bestWall / bestCat);
    return 0;
}
