// Byte ranges: planning them, reading one, and merging those that count into the main reader.
#include "kineto/rangejobs.h"

#include "io/rangeplan.h"

#include <algorithm>
#include <utility>

namespace goblin::kineto {

void TraceReader::planRanges(io::ByteSource &source)
{
    if (source.compressed())
        m_pipelineFromOffset = kCompressedPipelineAfterChunks * qint64(m_chunkBytes);
    if (m_rangeBytes <= 0 || source.compressed() || source.fileSize() < m_rangeBytes + m_rangeBytes / 2)
        return;
    // An object at the root, no byte order mark: offsets in the document are file offsets.
    char head[16];
    const qint64 headBytes = source.peek(0, head, sizeof head);
    qint64 i = 0;
    while (i < headBytes && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
        ++i;
    if (i >= headBytes || head[i] != '{')
        return;
    auto jobs = std::make_unique<RangeJobs>();
    jobs->starts.push_back(0);
    // The last few ranges are smaller (a quarter): the threads then finish within a small range
    // of each other instead of one waiting up to a whole range for the other.
    const qint64 size = source.fileSize();
    const auto stepAt = [&](qint64 at) { return size - at > 3 * m_rangeBytes ? m_rangeBytes : std::max<qint64>(1, m_rangeBytes / 4); };
    for (qint64 nominal = m_rangeBytes; nominal + stepAt(nominal) / 2 <= size; nominal += stepAt(nominal)) {
        const qint64 start = io::findElementStart(source, nominal);
        if (start > jobs->starts.back())
            jobs->starts.push_back(start);
    }
    if (jobs->starts.size() < 2)
        return;
    jobs->origin = m_origin;
    jobs->name = m_name;
    jobs->mode = m_mode;
    jobs->makers = m_makers;
    jobs->chunkBytes = m_chunkBytes;
    jobs->jobs.resize(jobs->starts.size());
    m_rangeStart1 = jobs->starts[1];
    m_pipelineFromOffset = std::numeric_limits<qint64>::max();  // the ranges take the other cores
    jobs->startHelpers();
    m_ranges = std::move(jobs);
}

bool TraceReader::reportProgress(qint64 done)
{
    return m_throttle.report(done);
}

bool TraceReader::joinRanges(io::ByteSource &source)
{
    std::unique_ptr<RangeJobs> jobs = std::move(m_ranges);
    const bool confirmed = m_scanner.atRootArrayElement() && m_root == Root::Object && m_inEventsArray && !m_inEvent &&
                           m_openCapture < 0 && m_lastTraceEventsGeneration == m_generation && !m_worker.joinable() &&
                           m_len == 0;
    if (!confirmed) {
        // Range 1 does not start at an element (an unusual layout): read on alone.
        jobs->stop();
        m_pipelineFromOffset = kPipelineAfterChunks * qint64(m_chunkBytes);
        return true;
    }
    const auto done = [&] {
        return std::min(source.fileSize(), source.rawBytesRead() + jobs->bytesDone.load());
    };
    while (jobs->runNext()) {
        if (!reportProgress(done())) {
            jobs->stop();
            return false;
        }
    }
    while (!jobs->waitAll(std::chrono::milliseconds(50))) {
        if (!reportProgress(done())) {
            jobs->stop();
            return false;
        }
    }
    jobs->stop();

    // Follow the confirmed cuts from range 1.
    JsonScanner::Resume resume;
    resume.line = m_scanner.line();
    resume.lineStart = m_scanner.lineStart();
    std::vector<TraceReader *> counted;
    for (size_t k = 1;;) {
        const RangeJobs::Job &job = jobs->jobs[k];
        if (!job.end.usable || !job.reader)
            break;
        counted.push_back(job.reader.get());
        const JsonScanner::Resume &r = job.end.resume;
        if (r.line > 1)
            resume.lineStart = r.lineStart;
        resume.line += r.line - 1;
        resume.offset = r.offset;
        resume.afterElement = r.afterElement;
        resume.escapes += r.escapes;
        resume.maxDepth = std::max(resume.maxDepth, r.maxDepth);
        if (job.end.nextIndex < 0)
            break;
        k = size_t(job.end.nextIndex);
    }
    // The ranges are read: their threads' buffers and simdjson parsers (tens of MB) go before the
    // events are merged, which is when the load's memory peaks.
    {
        std::lock_guard lock(jobs->mutex);
        jobs->spare.clear();
    }
    if (!counted.empty() && source.seek(resume.offset)) {
        for (TraceReader *range : counted)
            absorb(*range);
        m_out.parallelRanges = int(counted.size());
        m_bufBase = resume.offset;
        m_len = 0;
        m_utf8From = resume.offset;
        m_scanner.skipTo(resume);
    }
    m_pipelineFromOffset = kPipelineAfterChunks * qint64(m_chunkBytes);
    return true;
}

void TraceReader::absorb(TraceReader &range)
{
    m_events += range.m_events;
    m_nonObjectEvents += range.m_nonObjectEvents;
    m_unreadableEvents += range.m_unreadableEvents;
    // The range's consumers were made by the same makers, in the same order.
    for (size_t i = 0; i < m_consumers.size(); ++i)
        m_consumers[i]->absorb(*range.m_consumers[i], m_generation);
}

void TraceReader::releaseBuffers()
{
    m_len = 0;
    m_scratch.reset();
    m_scratchSize = 0;
}

void TraceReader::runRange(RangeJobs &jobs, size_t index, RangeEnd &end)
{
    const std::vector<qint64> &starts = jobs.starts;
    const qint64 begin = starts[index];
    io::ByteSource source;
    QString error;
    if (!source.open(m_origin, &error) || !source.seek(begin))
        return;
    m_rangeMode = true;
    m_root = Root::Object;
    m_generation = 0;
    m_lastTraceEventsGeneration = 0;
    m_traceEventsKeys = 1;
    m_inEventsArray = true;
    m_bufBase = begin;
    m_len = 0;
    m_utf8From = begin;
    m_pipelineFromOffset = std::numeric_limits<qint64>::max();
    m_scanner.startInsideRootArray(begin);
    RangeJobs::Buffers buffers = jobs.takeBuffers();
    if (buffers.buf) {
        m_buf = std::move(buffers.buf);
        m_capacity = buffers.capacity;
        m_parser = std::move(*buffers.parser);
        m_pending.swap(buffers.pending);
        m_fastFields.swap(buffers.fastFields);
    } else {
        buffers.parser = std::make_unique<simdjson::ondemand::parser>();
    }
    ensureCapacity(2 * m_chunkBytes + kPadding + 2);
    if (m_parser.capacity() < 2 * m_chunkBytes + 2 &&
        m_parser.allocate(2 * m_chunkBytes + 2, kSimdjsonMaxDepth) != simdjson::SUCCESS)
        return;
    m_deferDiagnostics = true;
    size_t next = index + 1;
    bool ended = false;
    while (!jobs.cancel) {
        const qint64 readFrom = m_bufBase + qint64(m_len);
        size_t want = m_chunkBytes;
        if (next < starts.size())  // stop exactly at the next cut
            want = size_t(std::min<qint64>(qint64(want), starts[next] - readFrom));
        ensureCapacity(1 + m_len + want + kPadding + 1);
        const size_t n = source.read(m_buf.get() + 1 + m_len, want);
        const bool eof = n < want;
        m_len += n;
        jobs.bytesDone += qint64(n);
        checkUtf8(eof);
        if (n > 0 && !m_scanner.failed())
            m_scanner.feed(at(readFrom), n);
        if (m_scanner.failed() && !m_rangeClosed)
            break;  // the main reader reports it
        endRound(eof || m_rangeClosed);
        if (m_rangeClosed) {
            end.resume = m_closeResume;
            end.nextIndex = -1;
            ended = true;
            break;
        }
        if (eof)
            break;  // the array never closed
        if (next < starts.size() && m_bufBase + qint64(m_len) == starts[next]) {
            if (m_scanner.atRootArrayElement() && !m_inEvent) {
                end.resume = {starts[next], m_scanner.line(), m_scanner.lineStart(), false, m_scanner.escapes(),
                              m_scanner.maxDepthSeen()};
                end.nextIndex = int(next);
                ended = true;
                break;
            }
            ++next;  // that cut is not between two elements: read on to the next one
        }
    }
    finishPipeline();
    bool consumersSafe = true;
    for (const std::unique_ptr<EventConsumer> &consumer : m_consumers) {
        consumer->finishRange();  // on this range's thread: less to hand over
        consumersSafe = consumersSafe && consumer->rangeSafe();
    }
    end.usable = ended && !jobs.cancel && consumersSafe && m_out.diagnostics.empty() && m_eventIssues.count() == 0 &&
                 m_invalidUtf8Bytes == 0 && m_unreadableEvents == 0 && m_scanner.nonStandardLiterals() == 0 &&
                 source.problem().isEmpty();  // (its lines count from the range)
    releaseBuffers();
    m_pending.clear();
    m_fastFields.clear();
    buffers.pending.swap(m_pending);
    buffers.fastFields.swap(m_fastFields);
    buffers.buf = std::move(m_buf);
    buffers.capacity = std::exchange(m_capacity, 0);
    *buffers.parser = std::move(m_parser);
    jobs.giveBack(std::move(buffers));
}

} // namespace goblin::kineto
