// libFuzzer target: one input = the whole content of a torch_profile.json file (plain JSON, or
// gzip by magic bytes), parsed from memory (parseTorchTraceBytes: no temp file, and buffers the
// size of the input). The oracle is the sanitizers (ASan, UBSan), libFuzzer's timeout and RSS
// limits, and a differential one: read in byte ranges on two threads, the input must read the
// same. Bad input must give diagnostics, never a crash, an overflow or a hang.

#include "fuzzinput.h"  // keepGoing
#include "torchtraceparser.h"

#include <QStringList>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <optional>

namespace {

bool sameNumber(const std::optional<double> &a, const std::optional<double> &b)
{
    if (a.has_value() != b.has_value())
        return false;
    if (!a)
        return true;
    if (std::isnan(*a) || std::isnan(*b))
        return std::isnan(*a) && std::isnan(*b);
    return *a == *b || std::fabs(*a - *b) <= 1e-9 * std::max(std::fabs(*a), std::fabs(*b));
}

/// What differs between two readings of the same file (empty: nothing). Diagnostics compare as
/// sets: rounds of another size may put a round's structural warnings before its events'.
QString differenceBetween(const goblin::TorchTrace &a, const goblin::TorchTrace &b)
{
    if (a.eventCount != b.eventCount)
        return QStringLiteral("events %1 / %2").arg(a.eventCount).arg(b.eventCount);
    if (a.file.rowsSkipped != b.file.rowsSkipped)
        return QStringLiteral("skipped %1 / %2").arg(a.file.rowsSkipped).arg(b.file.rowsSkipped);
    for (auto [x, y] : {std::pair{&a.reference, &b.reference}, std::pair{&a.workbench, &b.workbench}}) {
        if (x->readFailed != y->readFailed || x->readFailure != y->readFailure)
            return QStringLiteral("read failure '%1' / '%2'").arg(x->readFailure, y->readFailure);
        if (!sameNumber(x->stepTimeSeconds, y->stepTimeSeconds) || x->stepTimeSource != y->stepTimeSource)
            return QStringLiteral("step time (%1) / (%2)").arg(x->stepTimeSource, y->stepTimeSource);
        if (!sameNumber(x->hostBusyFraction, y->hostBusyFraction) || x->hostBusySource != y->hostBusySource)
            return QStringLiteral("host busy (%1) / (%2)").arg(x->hostBusySource, y->hostBusySource);
        if (!sameNumber(x->tokensPerSec, y->tokensPerSec) || !sameNumber(x->mfuPct, y->mfuPct) ||
            x->profilerSteps != y->profilerSteps)
            return QStringLiteral("tokens/s, MFU or steps");
    }
    auto lines = [](const goblin::TorchTrace &t) {
        QStringList out;
        for (const goblin::Diagnostic &d : t.diagnostics)
            out << QStringLiteral("%1:%2").arg(d.line).arg(d.message);
        out.sort();
        return out;
    };
    const QStringList x = lines(a), y = lines(b);
    if (x != y)
        return QStringLiteral("diagnostics\n  %1\n/\n  %2").arg(x.join(QStringLiteral("\n  ")), y.join(QStringLiteral("\n  ")));
    return {};
}

/// Whether the reader can cut this input into byte ranges at all (TraceReader::planRanges): gzip
/// (cut into segments of the inflated stream when it is long enough), or plain JSON with an
/// object at the root, at least one and a half ranges long. Otherwise a reading "in ranges" is the
/// one-pass reading again, and comparing the two checks nothing.
bool mayCutIntoRanges(const uint8_t *data, size_t size, qint64 rangeBytes)
{
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b)
        return true;
    if (qint64(size) < rangeBytes + rangeBytes / 2)
        return false;
    size_t i = 0;
    while (i < size && i < 16 && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t'))
        ++i;
    return i < size && i < 16 && data[i] == '{';
}

/// A damaged gzip stream (corrupt data, cut short) decodes to a prefix that depends on how much
/// output each read asks for: ISA-L notices the damage a few kB sooner or later (one pass with
/// 951-byte chunks: 951 bytes, with 2 MB chunks: 7,422 bytes of the same file). A reading in
/// segments asks in other sizes, so its events may end elsewhere; only intact streams compare.
bool damagedGzip(const goblin::TorchTrace &t)
{
    for (const goblin::Diagnostic &d : t.diagnostics)
        if (d.message.contains(QLatin1String("corrupt compressed data")) ||
            d.message.contains(QLatin1String("compressed stream ends early")))
            return true;
    return false;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // The reader streams the document in chunks; small chunks make events, strings, numbers and
    // UTF-8 sequences straddle chunk boundaries. The chunk size is picked from the input's last
    // byte, so a saved input replays the same way; the whole input is still the file's content.
    // Each round costs the reader a fixed amount (a hand-over, a UTF-8 check, a buffer move), so
    // the number of rounds is capped: at ~100 for the first choice (the second thread starts
    // after 64 chunks, so this is the plan that runs the pipeline; 5-byte chunks made a 64 kB
    // input cost 13,000 hand-overs), at ~16 for the second (boundaries still fall inside events,
    // every few hundred bytes; at 100 it was the first plan again on inputs over 6 kB).
    static constexpr size_t kChunkBytes[] = {5, 64, 4093, 65536};
    static constexpr size_t kMaxRounds[] = {100, 16, 100, 100};
    const size_t choice = size ? data[size - 1] % std::size(kChunkBytes) : 0;
    const size_t chunkBytes = std::max(kChunkBytes[choice], size / kMaxRounds[choice]);

    const QByteArrayView bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    const QString name = QStringLiteral("torch_profile.json");
    const goblin::TorchTrace result =
        goblin::parseTorchTraceBytes(bytes, name, goblin::fuzz::keepGoing, goblin::TorchReadPlan{chunkBytes, 0});
    // Differential: cut into byte ranges read on two threads (the reading of large traces), the
    // same file must read the same. The second-to-last byte picks the range size, or none: three
    // inputs in eight are read a second time (the second reading costs as much as the first and
    // more, with its helper thread and a reader per range), so the corpus as a whole is checked
    // with every range size while the fuzzer spends most of its time on new inputs. At most ~8
    // ranges (each range is a reader of its own, and a helper thread takes them one by one).
    static constexpr qint64 kRangeBytes[] = {0, 48, 300, 2000, 0, 0, 0, 0};
    const qint64 chosenRange = size >= 2 ? kRangeBytes[data[size - 2] % std::size(kRangeBytes)] : 0;
    const qint64 rangeBytes = chosenRange > 0 ? std::max(chosenRange, qint64(size / 8)) : 0;
    if (rangeBytes > 0 && mayCutIntoRanges(data, size, rangeBytes) && !damagedGzip(result)) {
        const goblin::TorchTrace ranged = goblin::parseTorchTraceBytes(bytes, name, goblin::fuzz::keepGoing,
                                                                       goblin::TorchReadPlan{chunkBytes, rangeBytes});
        const QString difference = differenceBetween(result, ranged);
        if (!difference.isEmpty()) {
            fprintf(stderr, "reading in %lld-byte ranges differs from one pass: %s\n", static_cast<long long>(rangeBytes),
                    qPrintable(difference));
            abort();
        }
    }
    // Touch the result so nothing is optimised away and the destructors run on real data.
    volatile size_t sink = result.diagnostics.size();
    (void)sink;
    return 0;
}
