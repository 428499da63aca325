// libFuzzer target: one input = the whole content of a Perfetto trace (`rocprofv3 --output-format
// pftrace`), read from memory (readPftraceBytes: the same decoding as from a file).
// The oracle is the sanitizers (ASan, UBSan) and libFuzzer's timeout and RSS limits: a damaged or
// crafted trace (varint and length tricks, unbalanced slices, huge names) must give diagnostics,
// never a crash, an overflow or a hang.

#include "fuzzinput.h"
#include "kernels/accumulator.h"
#include "kernels/namepool.h"
#include "pftrace/pftracereader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace goblin;
    KernelTrace trace;
    kernels::NamePool names;
    kernels::Accumulator workbench;
    workbench.reading = &trace.workbench;
    KernelSink sink{names, nullptr, workbench, 0};
    readPftraceBytes(QByteArrayView(data, qsizetype(size)), QStringLiteral("fuzz.pftrace"), sink, trace,
                     fuzz::keepGoing);
    // Touch the result so nothing is optimised away and the destructors run on real data.
    volatile size_t kept = trace.diagnostics.size() + names.size();
    (void)kept;
    return 0;
}
