// libFuzzer target: one input = the whole content of a amd_smi.csv file, parsed from memory
// (parseAmdSmiBytes: the same readings as from a file, without a temp file).
// The oracle is the sanitizers (ASan, UBSan) and libFuzzer's timeout and RSS limits: bad input
// must give diagnostics, never a crash, an overflow or a hang.

#include "fuzzinput.h"
#include "amdsmiparser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const goblin::SmiTelemetry result = goblin::parseAmdSmiBytes(
        QByteArrayView(data, qsizetype(size)), QStringLiteral("amd_smi.csv"), goblin::fuzz::keepGoing);
    // Touch the result so nothing is optimised away and the destructors run on real data.
    volatile size_t sink = result.diagnostics.size();
    (void)sink;
    return 0;
}
