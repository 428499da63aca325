#pragma once
/// \file Byte ranges of a large plain trace, read on helper threads (see kineto/ranges.cpp).

#include "io/workerthread.h"
#include "kineto/tracereader.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>  // hardware_concurrency

namespace goblin::kineto {

// Byte ranges. A plain trace of 1.5 range sizes or more is cut near every multiple of the size,
// at a '{' that follows "}," (where the next element of "traceEvents" starts in every trace
// writer's output). Helper threads read ranges 1, 2, … each with its own scanner that assumes it
// starts there; the main reader reads range 0, then helps. Each reader checks, when it reaches
// the next cut, that its scanner is indeed between two elements of the events array there, which
// confirms the next range's assumption: ranges count from range 1 along the chain of confirmed
// cuts, up to the first one that met anything worth a diagnostic (bad bytes, a syntax error, an
// unusable event), a value that makes the order of the reference's sums matter, or the end of
// the file inside the array. From there the main reader goes on by itself, so what it reports
// is what a single reader would have reported. (Reading with mmap instead was measured: on the
// benchmark machine, mapping the page cache cost more than read()'s copy, 0.75 s against 0.48 s
// for the 642 MB trace.)

struct RangeJobs {
    /// A thread's buffers, handed from range to range: fresh memory costs a page fault per 4 kB.
    struct Buffers {
        ByteBuffer buf;
        size_t capacity = 0;
        std::unique_ptr<simdjson::ondemand::parser> parser;
        std::vector<EventSpan> pending;
        std::vector<EventTokens> fastFields;
    };
    /// A compressed trace's range, inflated (buffers recycled: fresh pages cost a fault each).
    struct Segment {
        ByteBuffer data;  ///< a spare byte, `size` bytes, room for simdjson's padding
        size_t size = 0;
        size_t capacity = 0;
    };
    struct Job {
        std::unique_ptr<TorchTrace> trace;  // a range's own diagnostics (it counts only if none)
        std::unique_ptr<TraceReader> reader;
        RangeEnd end;
        Segment segment;  // a compressed trace's range: its inflated bytes
    };

    io::ByteOrigin origin;
    QString name;
    ReferenceMode mode = ReferenceMode::AsJson;
    std::span<const ConsumerMaker> makers;  // the main reader's: each range gets the same consumers
    size_t chunkBytes = kDefaultChunkBytes;
    std::vector<qint64> starts;  // starts[0] == 0: the main reader's range
    std::vector<Job> jobs;
    std::vector<io::WorkerThread> helpers;
    std::atomic<size_t> next{1};
    std::atomic<bool> cancel{false};
    std::atomic<qint64> bytesDone{0};
    ProgressCallback noProgress;
    std::mutex mutex;
    std::condition_variable changed;
    size_t finished = 0;
    std::vector<char> jobDone;  // guarded by mutex: range k has been read (or skipped)
    std::vector<Buffers> spare;  // guarded by mutex

    // A compressed trace cannot be seeked in: its ranges are segments of the inflated stream (1 MB
    // by default), cut one after the other (at the planner's rule) by whichever thread takes the
    // next range, and read from memory. The inflate is serial, under feedMutex; it takes about a
    // fifth of a segment's parse, so two threads parse side by side and hold a few segments
    // between them. The last segment's bytes stay for what follows "traceEvents".
    bool segmented = false;
    qint64 segmentBytes = 0;
    std::mutex feedMutex;
    std::unique_ptr<io::ByteSource> stream;  // guarded by feedMutex; its position: the carry's end
    std::vector<char> carry;                 // guarded by feedMutex: inflated bytes from the next start on
    std::vector<Segment> segmentPool;        // guarded by feedMutex: buffers of ranges read
    std::atomic<size_t> published{0};        // starts known (a segment's cut is the next one's start)
    std::atomic<size_t> produced{1};         // ranges handed out (range 0 is the main reader's)
    std::atomic<bool> segmentsDone{false};   // no range will be handed out any more
    std::atomic<qint64> feedRaw{0};          // compressed bytes inflated, for progress
    std::atomic<size_t> lastSegment{0};      // the range that reached the stream's end (0: none)

    /// The ranges' starts known so far.
    size_t startCount() const { return segmented ? published.load() : starts.size(); }

    Buffers takeBuffers()
    {
        std::lock_guard lock(mutex);
        if (spare.empty())
            return {};
        Buffers b = std::move(spare.back());
        spare.pop_back();
        return b;
    }
    void giveBack(Buffers &&b)
    {
        std::lock_guard lock(mutex);
        spare.push_back(std::move(b));
    }

    ~RangeJobs() { stop(); }

    /// Cuts the next segment off the inflated stream for range k (under feedMutex); false when
    /// there is none.
    bool takeSegment(size_t &k);

    /// Reads the next range not taken yet; false when there is none.
    bool runNext()
    {
        size_t k = 0;
        if (segmented) {
            if (!takeSegment(k))
                return false;
        } else {
            k = next.fetch_add(1);
            if (k >= starts.size())
                return false;
        }
        if (!cancel) {
            Job &job = jobs[k];
            try {
                job.trace = std::make_unique<TorchTrace>();
                job.reader = std::make_unique<TraceReader>(origin, name, mode, noProgress, chunkBytes, 0, makers,
                                                           *job.trace);
                job.reader->runRange(*this, k, job.end);
            } catch (...) {  // out of memory: the main reader reads this range itself
                job.end = RangeEnd{};
                job.reader.reset();
            }
        }
        if (segmented && k != lastSegment) {  // the last one holds what follows the events
            std::lock_guard lock(feedMutex);
            segmentPool.push_back(std::move(jobs[k].segment));
            jobs[k].segment = {};
        }
        std::lock_guard lock(mutex);
        ++finished;
        jobDone[k] = 1;
        changed.notify_all();
        return true;
    }

    void startHelpers()
    {
        const unsigned cores = std::max(2u, std::thread::hardware_concurrency());
        const size_t count = std::min<size_t>({size_t(cores - 1), segmented ? size_t(7) : starts.size() - 1, 7});
        helpers = std::vector<io::WorkerThread>(count);
        for (io::WorkerThread &helper : helpers)
            helper.start([this] {
                while (runNext()) {
                }
            });
    }

    /// True when every range has been read (or skipped after a cancel).
    bool waitAll(std::chrono::milliseconds timeout)
    {
        std::unique_lock lock(mutex);
        return changed.wait_for(lock, timeout, [&] {
            return segmented ? segmentsDone && finished + 1 >= produced.load() : finished + 1 >= starts.size();
        });
    }

    void stop()
    {
        cancel = true;
        for (io::WorkerThread &helper : helpers)
            helper.join();
        helpers.clear();
    }
};

} // namespace goblin::kineto
