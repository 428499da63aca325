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

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // The reader streams the document in chunks; small chunks make events, strings, numbers and
    // UTF-8 sequences straddle chunk boundaries. The chunk size is picked from the input's last
    // byte, so a saved input replays the same way; the whole input is still the file's content.
    // Large inputs get at most ~100 rounds (each round of a tiny chunk hands a batch to the
    // second thread, which starts after 64 chunks: 5-byte chunks made a 64 kB input cost
    // 13,000 hand-overs and seconds under ASan). The first choice still runs the pipeline.
    static constexpr size_t kChunkBytes[] = {5, 64, 4093, 65536};
    const size_t chosenChunk = size ? kChunkBytes[data[size - 1] % std::size(kChunkBytes)] : kChunkBytes[0];
    const size_t chunkBytes = std::max(chosenChunk, size / 100);

    const QByteArrayView bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    const QString name = QStringLiteral("torch_profile.json");
    const goblin::TorchTrace result =
        goblin::parseTorchTraceBytes(bytes, name, goblin::fuzz::keepGoing, goblin::TorchReadPlan{chunkBytes, 0});
    // Differential: cut into byte ranges read on two threads (the reading of large traces), the
    // same file must read the same. The range size comes from the second-to-last byte.
    static constexpr qint64 kRangeBytes[] = {0, 48, 300, 2000};
    // At most ~8 ranges (each range is a reader of its own, and a helper thread takes them one by one).
    const qint64 chosenRange = size >= 2 ? kRangeBytes[data[size - 2] % std::size(kRangeBytes)] : 0;
    const qint64 rangeBytes = chosenRange > 0 ? std::max(chosenRange, qint64(size / 8)) : 0;
    if (rangeBytes > 0) {
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
