// Thread B of the torch trace's two-stage pipeline: batches of events parsed in document order
// (from the scanner's located members, else by one simdjson pass per batch), and thread A's
// diagnostics applied in their place among the events.
#include "kineto/tracereader.h"

#include <cstring>
#include <utility>

namespace goblin::kineto {

void TraceReader::applyDeferred(std::vector<Deferred> &deferred)
{
    for (Deferred &d : deferred) {
        if (d.droppedEvent) {
            ++m_events;
            ++m_unreadableEvents;
            m_eventIssues.add(d.diagnostic.line, QStringLiteral("event larger than %1 MB skipped (both readings)")
                                                     .arg(kMaxEventBytes >> 20));
        } else {
            m_out.diagnostics.push_back(std::move(d.diagnostic));
        }
    }
    deferred.clear();
}

void TraceReader::processBatch(Batch &batch)
{
    applyDeferred(batch.deferred);
    const std::vector<EventSpan> &events = batch.events;
    size_t i = 0;
    size_t f = 0;
    while (i < events.size()) {
        if (events[i].preparsed) {
            const EventTokens &tokens = batch.fields[f++];
            EventFields &fields = m_fields;  // reused: tokens are read only where `have` says so
            fields.have = tokens.have;
            for (int k = 0; k < kEventKeyCount; ++k)
                if (tokens.have & (1u << k))
                    fields.token[k] = std::string_view(batch.at(events[i].begin + tokens.begin[k]), tokens.length[k]);
            if ((tokens.have & (1u << kArgsKey)) && fields.token[kArgsKey].size() == 1 &&
                fields.token[kArgsKey][0] == '{')  // the object, to the event's end
                fields.token[kArgsKey] = std::string_view(batch.at(events[i].begin + tokens.begin[kArgsKey]),
                                                          size_t(events[i].end - events[i].begin - tokens.begin[kArgsKey]));
            fields.argsScanned = tokens.argsScanned;
            fields.argHave = tokens.argsScanned ? tokens.argHave : 0;
            fields.duplicated = tokens.duplicated;
            if (tokens.argsScanned) {
                const char *const args = fields.token[kArgsKey].data();
                for (unsigned have = tokens.argHave; have; have &= have - 1) {
                    const int k = __builtin_ctz(have);
                    fields.argToken[k] = std::string_view(args + tokens.argBegin[k], tokens.argLength[k]);
                }
            }
            applyEvent(fields, events[i]);
            ++i;
            continue;
        }
        size_t j = i + 1;
        while (j < events.size() && !events[j].preparsed && events[j].generation == events[i].generation)
            ++j;
        parseBatch(batch, i, j);
        i = j;
    }
}

void TraceReader::startWorker()
{
    m_worker.start([this] {
        Batch batch;
        bool failed = false;
        while (m_queue.pop(batch)) {
            if (!failed) {
                try {
                    processBatch(batch);
                } catch (...) {
                    m_workerError = std::current_exception();
                    failed = true;
                    m_queue.fail();
                }
            }
            m_queue.recycle(std::move(batch));
        }
    });
}

void TraceReader::finishPipeline()
{
    stopWorker();
    if (m_workerError)
        std::rethrow_exception(std::exchange(m_workerError, nullptr));
    applyDeferred(m_deferred);
    m_deferDiagnostics = false;
}

/// Lets thread B finish what it was given (so that a cancelled or failed read leaves the same
/// state as the single-threaded reader did) and joins it. Safe to call more than once.
void TraceReader::stopWorker()
{
    if (!m_worker.joinable())
        return;
    m_queue.close();
    m_worker.join();
}

void TraceReader::submitBatch(qint64 keep, std::vector<Deferred> &&before, bool lastRound)
{
    const qint64 dataEnd = m_bufBase + qint64(m_len);
    const size_t kept = size_t(dataEnd - keep);
    Batch batch;
    batch.buf = std::move(m_buf);
    batch.capacity = m_capacity;
    batch.base = m_bufBase;
    batch.events.swap(m_pending);
    batch.fields.swap(m_fastFields);
    batch.deferred = std::move(before);

    // The second thread costs about 20 % more CPU in all (the bytes move between cores). When the
    // kernel-trace parser has the other core (loadRun), that loses on files up to ~100 MB and wins
    // little beyond, so the events are parsed right here until kPipelineAfterChunks chunks of the
    // document have been read (and always when the last data has been read).
    if (!m_worker.joinable() && (lastRound || dataEnd < m_pipelineFromOffset)) {
        processBatch(batch);
        m_buf = std::move(batch.buf);
        m_pending.swap(batch.events);
        m_pending.clear();
        m_fastFields.swap(batch.fields);
        m_fastFields.clear();
        if (kept > 0)
            std::memmove(m_buf.get() + 1, at(keep), kept);
        m_bufBase = keep;
        m_len = kept;
        return;
    }

    // A buffer for the next round: recycled if thread B has one, with the kept tail copied over.
    Batch next;
    if (!m_queue.takeFree(next)) {
        next.capacity = batch.capacity;
        next.buf = allocateByteBuffer(next.capacity);
    }
    if (next.capacity < 1 + kept) {
        next.capacity = std::max(batch.capacity, 1 + kept);
        next.buf = allocateByteBuffer(next.capacity);
    }
    if (kept > 0)
        std::memcpy(next.buf.get() + 1, batch.at(keep), kept);
    m_buf = std::move(next.buf);
    m_capacity = next.capacity;
    m_pending.swap(next.events);
    m_pending.clear();
    m_fastFields.swap(next.fields);
    m_fastFields.clear();
    m_bufBase = keep;
    m_len = kept;

    // Thread B parses every event of its batches with simdjson, as before the scanner located
    // members: the two threads then share the work evenly (thread A is the busier one, and
    // reading tokens scattered through a buffer filled on the other core costs thread B more than
    // simdjson's sequential pass). So the scanner stops locating members once thread B runs.
    if (!batch.fields.empty()) {
        for (EventSpan &span : batch.events)
            span.preparsed = false;
        batch.fields.clear();
    }
    if (!m_worker.joinable()) {
        m_scanner.setCapturedKeys(nullptr, 0);
        startWorker();
    }
    m_queue.push(std::move(batch));  // false: thread B failed; stopWorker() rethrows its error
}

// Parses events [first, last) of m_pending as one JSON array: the byte before the first event (a
// separator the scanner has already consumed, or the spare slot) becomes '[' and the byte after
// the last becomes ']'. One simdjson pass per round instead of one per event.
void TraceReader::parseBatch(Batch &batch, size_t first, size_t last)
{
    const std::vector<EventSpan> &pending = batch.events;
    char *open = batch.at(pending[first].begin) - 1;
    char *close = batch.at(pending[last - 1].end);
    const char savedOpen = *open;
    const char savedClose = *close;
    *open = '[';
    *close = ']';
    const size_t length = size_t(close + 1 - open);
    const size_t allocated = size_t(batch.buf.get() + batch.capacity - open);
    bool ok = true;
    size_t index = first;
    {
        auto doc = m_parser.iterate(open, length, allocated);
        simdjson::ondemand::array array;
        if (doc.get_array().get(array) != simdjson::SUCCESS) {
            ok = false;
        } else {
            for (auto element : array) {
                simdjson::ondemand::value value;
                if (element.get(value) != simdjson::SUCCESS || index >= last) {
                    ok = false;
                    break;
                }
                const EventSpan &span = pending[index];
                if (span.first == '{') {
                    simdjson::ondemand::object object;
                    if (value.get_object().get(object) != simdjson::SUCCESS) {
                        ok = false;
                        break;
                    }
                    handleEvent(object, span, batch.at(span.end));
                    if (m_batchError) {
                        ok = false;
                        break;
                    }
                } else {
                    ++m_events;
                    ++m_nonObjectEvents;
                    m_scalarEvents += span.first != '[';
                }
                ++index;
            }
        }
    }
    *open = savedOpen;
    *close = savedClose;
    if (!ok) {
        // Rare (an event nested deeper than simdjson's limit): the events already counted stay,
        // the rest are parsed one by one so one bad event costs only itself.
        m_batchError = false;
        for (size_t k = index; k < last; ++k)
            parseOneEvent(batch, pending[k]);
    }
}

void TraceReader::parseOneEvent(const Batch &batch, const EventSpan &span)
{
    if (span.first != '{') {
        ++m_events;
        ++m_nonObjectEvents;
        m_scalarEvents += span.first != '[';
        return;
    }
    const size_t length = size_t(span.end - span.begin);
    if (m_scratchSize < length + kPadding) {
        m_scratchSize = length + kPadding;
        m_scratch.reset(new char[m_scratchSize]);
    }
    std::memcpy(m_scratch.get(), batch.at(span.begin), length);
    auto doc = m_parser.iterate(m_scratch.get(), length, m_scratchSize);
    simdjson::ondemand::object object;
    if (doc.get_object().get(object) == simdjson::SUCCESS) {
        handleEvent(object, span, m_scratch.get() + length);
        if (!m_batchError)
            return;
        m_batchError = false;
    }
    // The event was counted by handleEvent only if it got through; count it now.
    ++m_events;
    ++m_unreadableEvents;
    m_eventIssues.add(span.line,
                      QStringLiteral("event could not be read (nested deeper than %1 levels?); skipped")
                          .arg(kSimdjsonMaxDepth));
}

} // namespace goblin::kineto
