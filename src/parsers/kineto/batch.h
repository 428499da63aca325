#pragma once
/// \file What thread A (reading, UTF-8, JsonScanner) hands thread B (simdjson, aggregation) in the
/// torch trace's two-stage pipeline: batches of whole events and the bounded queue between them.

#include "bytebuffer.h"
#include "diagnostic.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string_view>
#include <vector>

namespace goblin::kineto {

/// One trace event as JsonScanner delimited it.
struct EventSpan {
    qint64 begin;
    qint64 end;
    qint64 line;
    int generation;
    char first;
    bool escapes;
    bool preparsed = false;  ///< JsonScanner located its members (Batch::fields): no simdjson pass
};

// ------------------------------------------------------------------------------------------------
// The two-stage pipeline. Thread A (the caller's) reads, checks UTF-8 and splits the document with
// JsonScanner; thread B parses the finished events with simdjson and aggregates them, strictly in
// document order, so the floating-point sums are the same as in one thread.
//
// Before thread B starts (files up to kPipelineAfterChunks chunks, and the start of larger ones),
// JsonScanner also notes where each event's five members lie while it validates the event (see
// JsonScanner::setCapturedKeys): those events are aggregated from these tokens without a simdjson
// pass, so each of their bytes is checked once. Events the scanner did not scan whole in one
// feed() (cut by a chunk boundary, nested deeper than its fast path) still go through simdjson.

/// Something thread A did that must reach the diagnostics in the order the single-threaded reader
/// produced it: a diagnostic, or an event dropped for its size (counted and listed by thread B).
struct Deferred {
    Diagnostic diagnostic;
    bool droppedEvent = false;
};

/// The members an event is read for, in this order; later duplicates win, as in a Python dict.
/// "args", "pid" and "tid" feed the workbench's readers (args.device, args.stream; the host
/// process; the thread whose ops nest).
constexpr int kEventKeyCount = 8;
constexpr std::string_view kEventKeys[kEventKeyCount] = {"ph", "cat", "name", "ts", "dur", "args", "pid", "tid"};
constexpr int kArgsKey = 5;
constexpr int kPidKey = 6;
constexpr int kTidKey = 7;

/// Members of an event's args that several readers need (GPU events' correlation, graph id,
/// device and stream; ops' input shapes): where JsonScanner scanned the event whole it located
/// them on the way, else each reader searches the args itself. The first occurrence counts, on
/// both paths alike (the readers stop at it; Kineto writes each once), unlike the event's own
/// members, where the last wins as in Python. A repeated one is said in a warning: where the
/// scanner met it, the event's args are left to the readers' own search, which finds it
/// (repeatedArgKeys() in gpuevents.h), so the warning does not depend on which path read the event.
constexpr int kArgKeyCount = 5;
constexpr std::string_view kArgKeys[kArgKeyCount] = {"correlation", "graph id", "Input Dims", "device", "stream"};
enum ArgKey { kArgCorrelation, kArgGraphId, kArgInputDims, kArgDevice, kArgStream };

/// The raw tokens of those members (as simdjson's raw_json_token() shows them).
struct EventFields {
    std::string_view token[kEventKeyCount];
    quint8 have = 0;  ///< bit i: token[i] was found
    /// The args object was scanned for kArgKeys: argToken[i] holds member i where argHave says
    /// so (a container whole), and a member not there is not in the args. Else: not looked for.
    bool argsScanned = false;
    quint8 argHave = 0;
    std::string_view argToken[kArgKeyCount];
    /// bit i: the event has kEventKeys[i] more than once (the last value is in token[i]).
    quint8 duplicated = 0;
};

/// Where JsonScanner found them, for an event it scanned whole (offsets survive the buffer moving).
/// 88 bytes: one is written per event, and its cache misses showed in profiles.
struct EventTokens {
    EventTokens() {}  // user-provided: emplace_back() then does not zero the arrays (a `rep stos` per event)
    quint32 begin[kEventKeyCount];  ///< from the event's first byte (events are at most kMaxEventBytes); set where `have` says so
    quint32 length[kEventKeyCount];
    quint8 have = 0;
    bool argsScanned = false;  ///< as EventFields; false also where an offset did not fit 16 bits
    quint8 argHave = 0;
    quint8 duplicated = 0;     ///< as EventFields
    quint16 argBegin[kArgKeyCount];  ///< from the args' first byte
    quint16 argLength[kArgKeyCount];
};
static_assert(sizeof(EventTokens) <= 88, "one is written per event: keep it within 88 bytes");

/// A buffer of document bytes handed from thread A to thread B, with the events that lie whole in
/// it. Byte 0 is the spare slot of TraceReader's buffer; buf[1] holds the byte at offset `base`.
struct Batch {
    ByteBuffer buf;
    size_t capacity = 0;
    qint64 base = 0;
    std::vector<EventSpan> events;
    /// Members of the preparsed events, in order, located by JsonScanner on thread A; the other
    /// events are parsed by simdjson on thread B.
    std::vector<EventTokens> fields;
    std::vector<Deferred> deferred;  ///< applied before the events
    char *at(qint64 offset) const { return buf.get() + 1 + (offset - base); }
};

/// Bounded hand-over between the threads, plus the buffers thread B is done with (so that thread A
/// reuses warm memory instead of faulting in fresh pages). At most `capacity` batches wait.
class BatchQueue
{
public:
    explicit BatchQueue(size_t capacity) : m_capacity(capacity) {}

    /// Thread A. Blocks while the queue is full. Returns false (and drops the batch) once the
    /// consumer has failed.
    bool push(Batch &&batch)
    {
        std::unique_lock lock(m_mutex);
        m_notFull.wait(lock, [&] { return m_queue.size() < m_capacity || m_failed; });
        if (m_failed)
            return false;
        m_queue.push_back(std::move(batch));
        m_notEmpty.notify_one();
        return true;
    }
    /// Thread A: no more batches.
    void close()
    {
        std::lock_guard lock(m_mutex);
        m_closed = true;
        m_notEmpty.notify_one();
    }
    /// Thread A: a buffer thread B has finished with, if any.
    bool takeFree(Batch &out)
    {
        std::lock_guard lock(m_mutex);
        if (m_free.empty())
            return false;
        out = std::move(m_free.back());  // the most recently used: the warmest
        m_free.pop_back();
        return true;
    }
    /// Thread B. Blocks while the queue is empty; false once it is closed and drained.
    bool pop(Batch &out)
    {
        std::unique_lock lock(m_mutex);
        m_notEmpty.wait(lock, [&] { return !m_queue.empty() || m_closed; });
        if (m_queue.empty())
            return false;
        out = std::move(m_queue.front());
        m_queue.pop_front();
        m_notFull.notify_one();
        return true;
    }
    /// Thread B: gives a processed buffer back.
    void recycle(Batch &&batch)
    {
        batch.events.clear();
        batch.fields.clear();
        batch.deferred.clear();
        std::lock_guard lock(m_mutex);
        if (m_free.size() < m_capacity + 1)
            m_free.push_back(std::move(batch));
    }
    /// Thread B: it threw; thread A stops waiting for room.
    void fail()
    {
        std::lock_guard lock(m_mutex);
        m_failed = true;
        m_notFull.notify_all();
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_notEmpty;
    std::condition_variable m_notFull;
    std::deque<Batch> m_queue;
    std::vector<Batch> m_free;
    size_t m_capacity;
    bool m_closed = false;
    bool m_failed = false;
};

constexpr size_t kQueuedBatches = 2;
/// Chunks of the document read in one thread before the second thread starts: 128 MB with the
/// default 2 MB chunks (tests pass small chunks to run the pipeline on small documents).
constexpr qint64 kPipelineAfterChunks = 64;
/// The same for a compressed document, whose thread A also inflates: thread B takes the events
/// from the fourth chunk on (8 MB), which on 2 cores loads a 0.9 GB trace-only .json.gz 40 ms
/// sooner (0.91 -> 0.87 s wall) for 3 % more CPU.
constexpr qint64 kCompressedPipelineAfterChunks = 4;


} // namespace goblin::kineto
