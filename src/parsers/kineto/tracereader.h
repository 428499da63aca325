#pragma once
/// \file The torch trace reader (internal to src/parsers): one pass over a Kineto document in
/// document order. Its stages live in their own files:
///   kineto/eventsource.cpp   reading rounds, the scanner's sink (root keys, events, captures), run()
///   kineto/utf8repair.cpp    strict UTF-8 check, '?' repair, Python's decode-error text
///   kineto/pipeline.cpp      thread B: batches parsed by simdjson, diagnostics kept in order
///   kineto/ranges.cpp        byte ranges read on helper threads, merged along confirmed cuts
///   kineto/events.cpp        one event's members collected, typed once, fanned out to the consumers
/// The readings of the events are consumers (kineto/eventconsumer.h), made by the makers the entry
/// passes: the reference's (reference/torchconsumer) and the workbench's (workbench/kinetoconsumer).

#include "diagnostic.h"
#include "io/bytesource.h"
#include "io/workerthread.h"
#include "kineto/batch.h"
#include "kineto/eventconsumer.h"
#include "syntax/jsonscanner.h"
#include "torchtraceparser.h"

#include <simdjson.h>

#include <QStringList>

#include <algorithm>
#include <exception>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace goblin::kineto {

// Decompressed bytes scanned per round. Small enough that the chunk, simdjson's index of it and
// the events stay in cache between the passes (measured: 2 MB beats 8 MB by ~15 % CPU on a
// 650 MB trace and needs a third of the memory).
constexpr size_t kDefaultChunkBytes = TorchReadPlan{}.chunkBytes;  // 2 MB
constexpr size_t kCaptureLimitBytes = size_t(64) << 20;   // one top-level value kept for simdjson
constexpr size_t kMaxEventBytes = size_t(256) << 20;      // one trace event kept whole
constexpr size_t kPadding = simdjson::SIMDJSON_PADDING;
constexpr size_t kSimdjsonMaxDepth = 1024;
/// A plain trace of 1.5 times this size or more (48 MB) is cut into ranges of about this size between two
/// elements of "traceEvents", parsed concurrently (see TraceReader::runRange()); a compressed one
/// into segments of 1/32 of it as it is inflated (RangeJobs::takeSegment()).
constexpr qint64 kDefaultRangeBytes = TorchReadPlan{}.rangeBytes;  // 32 MB

inline bool isCapturedKey(std::string_view key)
{
    return key == "metadata" || key == "tokens_per_sec" || key == "mfu_pct" || key == "step_time_seconds" ||
           key == "host_busy_fraction" || key == "pytorch_version" || key == "torch_version" ||
           key == "distributedInfo"  // the rank, for the GPU timeline
           || key == "deviceProperties"  // device model and memory (tracetraitsconsumer), a few hundred bytes per device
           || key == "baseTimeNanoseconds";  // the epoch of relative timestamps: ranks' clocks put side by side
}

struct RangeEnd {
    bool usable = false;   ///< read to a checked end, with nothing to report: its aggregates count
    int nextIndex = -1;    ///< it ends where range nextIndex starts; -1: at the ']' of "traceEvents"
    /// Where the reader before it goes on; lines count from 1 at the range's start.
    JsonScanner::Resume resume;
};

struct RangeJobs;

class TraceReader final : public JsonScanner::Sink
{
public:
    /// `makers` make this reader's consumers (and those of its byte ranges); they must outlive it.
    TraceReader(io::ByteOrigin origin, QString displayName, ReferenceMode mode, const ProgressCallback &progress,
                size_t chunkBytes, qint64 rangeBytes, std::span<const ConsumerMaker> makers, TorchTrace &out);

    ~TraceReader() override;

    /// The chunk size used for `origin`: at least 1 byte, and for bytes in memory no larger than
    /// they need (a fuzz input of 100 bytes gets buffers of kilobytes, not of 2 chunks of 2 MB).
    static size_t chunkFor(const io::ByteOrigin &origin, size_t chunkBytes)
    {
        size_t chunk = std::max<size_t>(1, chunkBytes);
        if (origin.inMemory) {
            const size_t size = size_t(origin.memory.size());
            const bool gzip = size >= 2 && quint8(origin.memory[0]) == 0x1f && quint8(origin.memory[1]) == 0x8b;
            const size_t enough =
                gzip ? std::max<size_t>(size_t(64) << 10, 4 * size) : std::max<size_t>(4096, size + 1);
            chunk = std::min(chunk, enough);
        }
        return chunk;
    }

    void run();
    /// Reads one byte range (of a plain trace's file, or a compressed trace's inflated segment in
    /// memory) on its own: from jobs.starts[index], assumed to be
    /// the start of an element of "traceEvents", to the first later start that the scanner
    /// confirms to be one, or to the array's end. Its aggregates count only if the reader of
    /// the range before confirms this range's start in turn (joinRanges()).
    void runRange(RangeJobs &jobs, size_t index, RangeEnd &end);

    // JsonScanner::Sink
    void rootKey(std::string_view key, qint64 offset, qint64 line) override;
    bool valueBegin(int depth, char first, qint64 offset, qint64 line) override;
    void valueEnd(int depth, qint64 endOffset, bool sawBackslash) override;

private:
    using Root = DocumentRoot;

    void diag(Severity severity, qint64 line, const QString &message)
    {
        // While thread B may be writing diagnostics, thread A's wait their turn (see Deferred).
        if (m_deferDiagnostics)
            m_deferred.push_back({{severity, m_name, line, message}, false});
        else
            m_out.diagnostics.push_back({severity, m_name, line, message});
    }
    char *at(qint64 offset) { return m_buf.get() + 1 + (offset - m_bufBase); }
    void ensureCapacity(size_t needed);
    void checkUtf8(bool eof);
    // Thread A: hands the events found in this round (and the buffer holding them) to thread B,
    // keeping the bytes from `keep` on for the next round.
    void submitBatch(qint64 keep, std::vector<Deferred> &&before, bool lastRound);
    void startWorker();
    void stopWorker();
    // Thread A, after its last round: waits for thread B, then reports directly again.
    void finishPipeline();
    void applyDeferred(std::vector<Deferred> &deferred);
    // Thread B (or thread A when the whole file fits in one round).
    void processBatch(Batch &batch);
    void parseBatch(Batch &batch, size_t first, size_t last);
    void parseOneEvent(const Batch &batch, const EventSpan &span);
    void handleEvent(simdjson::ondemand::object object, const EventSpan &span, const char *eventEnd);
    static bool collectFields(simdjson::ondemand::object object, bool escapes, const char *eventEnd,
                              EventFields &fields);
    // Types the event's members once and hands it to every consumer, in order.
    void applyEvent(const EventFields &fields, const EventSpan &span);
    // An event with a member twice: counted; the first one named in a warning (on the thread
    // that applies the events, in document order).
    void noteDuplicatedMember(const EventFields &fields, const EventSpan &span);
    // The count of such events, added to that warning once the events are read.
    void noteDuplicatedArg(quint8 repeated, const EventSpan &span);
    void finishDuplicatedMembers();
    void flushCaptures(qint64 upTo);
    // The end of a round: hands the finished events on and keeps the unfinished bytes.
    void endRound(bool lastRound);
    // Byte ranges: plans them and starts the helper threads (large plain traces only).
    void planRanges(io::ByteSource &source);
    // At the start of range 1: helps with the ranges, then goes on after those that count.
    // False when cancelled.
    bool joinRanges(io::ByteSource &source);
    // A compressed trace's ranges: segments of the inflated stream (RangeJobs::takeSegment()).
    void planSegments();
    // The input from here on: after a compressed trace's ranges, the last segment's bytes and
    // the ranges' stream; else `source`.
    size_t readInput(io::ByteSource &source, char *dst, size_t want);
    io::ByteSource &input(io::ByteSource &source) { return m_tailSource ? *m_tailSource : source; }
    bool reportProgress(qint64 done);
    void absorb(TraceReader &range);
    void releaseBuffers();
    void finishConsumers(bool bom, bool compressed);

    io::ByteOrigin m_origin;
    QString m_name;
    ReferenceMode m_mode;
    const ProgressCallback &m_progress;
    size_t m_chunkBytes;
    qint64 m_rangeBytes;  // 0: one range
    TorchTrace &m_out;
    qint64 m_pipelineFromOffset;  // document offset from which thread B parses the events
    JsonScanner m_scanner;
    DiagnosticLimiter m_eventIssues;

    // Buffer: byte 0 is a spare slot for the '[' that turns a run of events into one array;
    // m_buf[1] holds the byte at absolute offset m_bufBase; m_len bytes are valid.
    ByteBuffer m_buf;
    size_t m_capacity = 0;
    qint64 m_bufBase = 0;
    size_t m_len = 0;
    qint64 m_docSkip = 0;  // a UTF-8 BOM the workbench skips
    qint64 m_lineAtBase = 1;  // line of the byte at m_bufBase, kept once the scanner has stopped

    qint64 m_utf8From = 0;           // absolute offset of the first byte not yet UTF-8 checked
    qint64 m_invalidUtf8Bytes = 0;
    qint64 m_firstInvalidUtf8Offset = -1;
    qint64 m_firstInvalidUtf8Line = 0;
    QString m_utf8Reason;

    Root m_root = Root::Unknown;
    std::string m_lastRootKey;
    QStringList m_rootKeys;
    int m_generation = -1;            // counts "traceEvents" arrays
    int m_traceEventsKeys = 0;
    qint64 m_traceEventsLine = 0;
    bool m_lastTraceEventsIsList = false;
    int m_lastTraceEventsGeneration = -1;
    bool m_inEventsArray = false;
    bool m_inEvent = false;
    bool m_dropEvent = false;
    EventSpan m_current{};
    std::vector<EventSpan> m_pending;
    std::vector<Capture> m_captures;
    int m_openCapture = -1;
    qint64 m_captureCopied = 0;

    simdjson::ondemand::parser m_parser{simdjson::SIMDJSON_MAXSIZE_BYTES};
    std::vector<EventTokens> m_fastFields;  // members of m_pending's preparsed events
    std::unique_ptr<char[]> m_scratch;
    size_t m_scratchSize = 0;
    bool m_batchError = false;  // set by handleEvent when simdjson refuses the event

    // Counts of the core; the readings are the consumers'.
    qint64 m_events = 0;
    qint64 m_nonObjectEvents = 0;
    qint64 m_scalarEvents = 0;  ///< of those, numbers, strings, true/false/null (not lists)
    qint64 m_unreadableEvents = 0;
    std::string m_nameText, m_catText, m_phText;  // unescaped copies, rare
    qint64 m_duplicatedEvents = 0;       // events with a member twice (Python keeps the last)
    qsizetype m_duplicateWarning = -1;   // its warning in m_out.diagnostics
    qint64 m_duplicatedArgEvents = 0;    // events whose args repeat a located member (first wins)
    qsizetype m_duplicateArgWarning = -1;
    // The event being applied; a member so that its 7 tokens are not zeroed for every event.
    EventFields m_fields;
    std::span<const ConsumerMaker> m_makers;
    std::vector<std::unique_ptr<EventConsumer>> m_consumers;  // one per maker, in the makers' order

    // Byte ranges.
    std::unique_ptr<RangeJobs> m_ranges;  // while the main reader has not reached range 1
    bool m_rangeMode = false;             // this reader reads one range (runRange())
    bool m_rangeClosed = false;           // ... and has met the end of "traceEvents"
    JsonScanner::Resume m_closeResume;
    ProgressThrottle m_throttle{&m_progress};
    qint64 m_rangeStart1 = -1;
    std::vector<char> m_tail;  // the last segment's bytes after the ranges (compressed traces)
    size_t m_tailPos = 0;
    std::unique_ptr<io::ByteSource> m_tailSource;  // the ranges' stream, at the last segment's end
    bool m_inputLost = false;  // the input could not be read on after the ranges

    // Pipeline (thread A's side, except the queue).
    bool m_deferDiagnostics = false;
    std::vector<Deferred> m_deferred;  // thread A's diagnostics not yet handed to thread B
    BatchQueue m_queue{kQueuedBatches};
    io::WorkerThread m_worker;
    std::exception_ptr m_workerError;  // written by thread B, read after join
};

} // namespace goblin::kineto
