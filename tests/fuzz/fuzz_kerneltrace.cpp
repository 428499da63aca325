// libFuzzer target: one input = the whole content of a trace.csv file.
// The oracle is the sanitizers (ASan, UBSan) and libFuzzer's timeout and RSS limits: bad input
// must give diagnostics, never a crash, an overflow or a hang.

#include "fuzzinput.h"
#include "kerneltraceparser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString &path = goblin::fuzz::inputFile().write(data, size);
    const goblin::KernelTrace result =
        goblin::parseKernelTraceFile(path, QStringLiteral("trace.csv"), goblin::fuzz::keepGoing);
    // Touch the result so nothing is optimised away and the destructors run on real data.
    volatile size_t sink = result.diagnostics.size();
    (void)sink;
    return 0;
}
