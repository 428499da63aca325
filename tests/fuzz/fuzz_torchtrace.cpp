// libFuzzer target: one input = the whole content of a torch_profile.json file (plain JSON, or
// gzip by magic bytes). The oracle is the sanitizers (ASan, UBSan) and libFuzzer's timeout and
// RSS limits: bad input must give diagnostics, never a crash, an overflow or a hang.

#include "fuzzinput.h"
#include "torchtraceparser.h"

#include <iterator>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // The reader streams the document in chunks; small chunks make events, strings, numbers and
    // UTF-8 sequences straddle chunk boundaries (and keep the per-input buffers small, which
    // under ASan is most of the speed). The chunk size is picked from the input's last byte, so
    // a saved input replays the same way; the whole input is still the file's content.
    static constexpr size_t kChunkBytes[] = {5, 64, 4093, 65536};
    const size_t chunkBytes = size ? kChunkBytes[data[size - 1] % std::size(kChunkBytes)] : kChunkBytes[0];

    const QString &path = goblin::fuzz::inputFile().write(data, size);
    const goblin::TorchTrace result = goblin::parseTorchTraceFile(path, QStringLiteral("torch_profile.json"),
                                                                  goblin::fuzz::keepGoing, chunkBytes);
    // Touch the result so nothing is optimised away and the destructors run on real data.
    volatile size_t sink = result.diagnostics.size();
    (void)sink;
    return 0;
}
