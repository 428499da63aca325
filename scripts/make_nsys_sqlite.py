#!/usr/bin/env python3
"""Makes a small Nsight Systems SQLite export (`nsys export --type sqlite` layout) for the nsys
reader's tests: tests/data/nsys/generated-2gpu.sqlite.

The tables and columns are those of the documented export schema as Nsight Systems 2022.2 writes
it (compare tests/data/nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite.gz, a real export); only the
tables the reader looks at are made. What the real sample lacks and this file has on purpose:
two GPUs and two processes, rows not in time order, overlapping kernels on several streams, the
same streamId on both GPUs, two CUDA contexts on GPU 0, kernels launched from a CUDA graph
(graphNodeId set), a zero-length kernel, memsets, NVTX ranges named by text and by textId, NVTX
marks, an unfinished range (end NULL) and domain-create rows. Deterministic (seeded).

    python3 scripts/make_nsys_sqlite.py tests/data/nsys/generated-2gpu.sqlite
"""
import os
import random
import sqlite3
import sys

SCHEMA = """
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE EXPORT_META_DATA (name TEXT NOT NULL, value TEXT);
CREATE TABLE TARGET_INFO_GPU (id INTEGER NOT NULL, name TEXT, busLocation TEXT, isDiscrete INTEGER,
    l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER, smCount INTEGER,
    pwGpuId INTEGER, uuid TEXT, luid INTEGER, chipName TEXT, cuDevice INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
    demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER,
    cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL,
    gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
    staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL, localMemoryPerThread INTEGER NOT NULL,
    localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER,
    sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
    bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER,
    srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER,
    graphNodeId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
    value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
    globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL,
    callchainId INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
    category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
    domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
    int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT);
"""

KERNELS = [
    ("ampere_sgemm_128x64_nn", "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x64_32x3_nn_align4>(Params)"),
    ("elementwise_kernel", "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<at::native::AddFunctor<float>>>(int, Func)"),
    ("vectorized_elementwise_kernel", "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char *, 1>>(int, FillFunctor, Array)"),
    ("reduce_kernel", "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float>>>(ReduceOp)"),
    ("ncclKernel_AllReduce_RING_LL_Sum_float", "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"),
]
RUNTIME = ["cudaLaunchKernel", "cudaMemcpyAsync", "cudaMemsetAsync", "cudaStreamSynchronize", "cudaGraphLaunch"]


def global_id(pid, tid):
    # nsys serialises (hardware id, vm id, pid, tid); pid in bits 24..47, tid in bits 0..23.
    return (1 << 56) | (pid << 24) | tid


def main(path):
    if os.path.exists(path):
        os.remove(path)
    rng = random.Random(25)
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    strings = {}

    def sid(text):
        if text not in strings:
            strings[text] = len(strings) + 1
            db.execute("INSERT INTO StringIds VALUES (?, ?)", (strings[text], text))
        return strings[text]

    for name, value in [("EXPORT_PRODUCT_NAME", "NVIDIA Nsight Systems"), ("EXPORT_PRODUCT_VERSION", "2022.2.1.31"),
                        ("EXPORT_SCHEMA_VERSION", "2.9.1"), ("EXPORT_INPUT_FILE", "generated.nsys-rep")]:
        db.execute("INSERT INTO EXPORT_META_DATA VALUES (?, ?)", (name, value))
    for dev, bus in [(0, "0000:07:00.0"), (1, "0000:0f:00.0")]:
        db.execute("INSERT INTO TARGET_INFO_GPU VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   (dev, "NVIDIA A100-SXM4-80GB", bus, 1, 41943040, 85899345920, 2039040000000, 1410000000, 108,
                    dev, "uuid-%d" % dev, 0, "GA100", dev))

    # (deviceId, contextId, pid, streams): GPU 0 is shared by two contexts of process 4242
    lanes = [(0, 1, 4242, [7, 13]), (0, 3, 4242, [21]), (1, 2, 4243, [7, 14])]
    kernels, copies, memsets, runtime = [], [], [], []
    correlation = 100
    t0 = 1_000_000_000
    for step in range(6):
        base = t0 + step * 20_000_000
        for dev, ctx, pid, streams in lanes:
            clock = {s: base + rng.randrange(0, 50_000) for s in streams}
            for i in range(12):
                stream = streams[i % len(streams)]
                short, long = KERNELS[rng.randrange(len(KERNELS))]
                duration = rng.randrange(2_000, 900_000)
                if step == 2 and i == 3 and dev == 1:
                    duration = 0  # a zero-length kernel: kept on the timeline, not summed
                start = clock[stream] + rng.randrange(500, 40_000)
                clock[stream] = start + duration
                correlation += 1
                graph = 9000 + i if (step == 4 and ctx == 3) else None
                kernels.append((start, start + duration, dev, ctx, stream, correlation, global_id(pid, 0) >> 24 << 24,
                                sid(long), sid(short), None, 0, 0, 32, 128, 1, 1, 256, 1, 1, 0, 0, 0, 0,
                                correlation, 0, graph, 0))
                tid = pid if ctx != 3 else pid + 7
                runtime.append((start - rng.randrange(3_000, 9_000), start - rng.randrange(500, 2_000), 1,
                                global_id(pid, tid), correlation, sid(RUNTIME[4] if graph else RUNTIME[0]), 0, None))
            # copies in and out, one memset
            dev_stream = streams[0]
            for kind in (1, 2, 8):
                start = base + rng.randrange(15_000_000, 18_000_000)
                correlation += 1
                copies.append((start, start + rng.randrange(1_000, 400_000), dev, ctx, dev_stream, correlation,
                               global_id(pid, 0) >> 24 << 24, 1 << 20, kind, None, 0, 0, dev, ctx, dev, ctx, None, None))
                runtime.append((start - 4_000, start + 2_000, 1, global_id(pid, pid), correlation, sid(RUNTIME[1]), 0, None))
            start = base + rng.randrange(18_000_000, 19_000_000)
            correlation += 1
            memsets.append((start, start + rng.randrange(1_000, 20_000), dev, ctx, dev_stream, correlation,
                            global_id(pid, 0) >> 24 << 24, 0, 4096, None, 0))
            runtime.append((start - 3_000, start + 1_000, 1, global_id(pid, pid), correlation, sid(RUNTIME[2]), 0, None))
            runtime.append((base + 19_500_000, base + 19_900_000, 1, global_id(pid, pid), 0, sid(RUNTIME[3]), 0, None))

    # Stored out of time order, as a multi-process export's tables are.
    for rows in (kernels, copies, memsets, runtime):
        rng.shuffle(rows)
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (%s)" % ",".join("?" * 27), kernels)
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (%s)" % ",".join("?" * 18), copies)
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (%s)" % ",".join("?" * 11), memsets)
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (%s)" % ",".join("?" * 8), runtime)

    nvtx = []
    for pid in (4242, 4243):
        tid = global_id(pid, pid)
        nvtx.append((t0 - 5_000_000, None, 75, None, None, None, "PyTorch", tid, None, None, 1))      # domain create
        for step in range(6):
            base = t0 + step * 20_000_000
            if pid == 4242:  # registered string: textId
                nvtx.append((base, base + 19_950_000, 59, None, None, None, None, tid, None, sid("ProfilerStep#%d" % step), 0))
            else:            # plain text
                nvtx.append((base, base + 19_950_000, 59, None, None, None, "ProfilerStep#%d" % step, tid, None, None, 0))
            nvtx.append((base + 100_000, base + 9_000_000, 60, step, None, None, "forward", tid, tid, None, 0))
            nvtx.append((base + 12_000_000, None, 34, None, None, None, "checkpoint", tid, None, None, 0))  # mark
        nvtx.append((t0 + 130_000_000, None, 59, None, None, None, "unfinished", tid, None, None, 0))      # no end
    rng.shuffle(nvtx)
    db.executemany("INSERT INTO NVTX_EVENTS (start, end, eventType, rangeId, category, color, text, globalTid, "
                   "endGlobalTid, textId, domainId) VALUES (?,?,?,?,?,?,?,?,?,?,?)", nvtx)
    db.commit()
    db.execute("VACUUM")
    db.close()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/nsys/generated-2gpu.sqlite")
