// libFuzzer target: one input = the bytes of an SQLite file, read as the kernel-trace stage reads a
// database in a run folder: its tables choose the reader (dbread::recognise: rpd, Nsight Systems,
// else rocpd), which reads it through the one untrusted-database opener. SQLite opens files by
// name, so the input is written to a private temporary file first (one per fuzzer process).
// The oracle is the sanitizers (ASan, UBSan) and libFuzzer's timeout and RSS limits: a damaged or
// crafted database must give diagnostics, never a crash, an overflow, a hang or a huge allocation.

#include "fuzzinput.h"
#include "kernels/accumulator.h"
#include "kernels/namepool.h"
#include "nsys/nsysreader.h"
#include "rocpdreader.h"
#include "rpd/dbcommon.h"
#include "rpd/rpdreader.h"

#include <QDir>
#include <QFile>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace
{

/// The temporary file's path, made once (mkstemp) and removed at exit.
const std::string &scratchPath()
{
    static const std::string path = [] {
        std::string pattern = QDir::tempPath().toStdString() + "/goblin-fuzz-database-XXXXXX";
        const int fd = mkstemp(pattern.data());
        if (fd < 0)
            std::abort();
        ::close(fd);
        std::atexit([] { std::remove(scratchPath().c_str()); });
        return pattern;
    }();
    return path;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace goblin;
    const std::string &path = scratchPath();
    FILE *f = std::fopen(path.c_str(), "wb");
    if (!f)
        std::abort();
    if (size > 0 && std::fwrite(data, 1, size, f) != size)
        std::abort();
    std::fclose(f);

    const QString file = QString::fromStdString(path);
    KernelTrace trace;
    kernels::NamePool names;
    kernels::Accumulator reference, workbench;
    reference.reading = &trace.reference;
    workbench.reading = &trace.workbench;
    switch (dbread::recognise(file).kind) {
    case dbread::DatabaseKind::Rpd: {
        KernelSink sink{names, nullptr, workbench, 0};
        readRpdDatabase(file, QStringLiteral("fuzz.rpd"), sink, trace, fuzz::keepGoing);
        break;
    }
    case dbread::DatabaseKind::Nsys: {
        KernelSink sink{names, nullptr, workbench, 0};
        readNsysDatabase(file, QStringLiteral("fuzz.sqlite"), sink, trace, fuzz::keepGoing);
        break;
    }
    case dbread::DatabaseKind::Other: {
        KernelSink sink{names, &reference, workbench, 0};
        readRocpdDatabase(file, QStringLiteral("fuzz.db"), sink, trace, fuzz::keepGoing);
        break;
    }
    }
    // Touch the result so nothing is optimised away and the destructors run on real data.
    volatile size_t sink = trace.diagnostics.size() + names.size();
    (void)sink;
    return 0;
}
