// libFuzzer target: one input = the whole content of a trace.csv file, parsed from memory
// (parseKernelTraceBytes: the same reading as from a file, with a buffer no larger than the input).
// The oracle is the sanitizers (ASan, UBSan) and libFuzzer's timeout and RSS limits: bad input
// must give diagnostics, never a crash, an overflow or a hang.

#include "fuzzinput.h"
#include "kerneltraceparser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const goblin::KernelTrace result =
        goblin::parseKernelTraceBytes(QByteArrayView(data, qsizetype(size)), QStringLiteral("trace.csv"),
                                      goblin::fuzz::keepGoing);
    // Touch the result so nothing is optimised away and the destructors run on real data.
    volatile size_t sink = result.diagnostics.size();
    (void)sink;
    return 0;
}
