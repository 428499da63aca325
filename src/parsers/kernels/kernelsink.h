#pragma once
/// \file Where a kernel reader's rows go: the run's name pool and the two readings' accumulators.
/// Every reader of kernel dispatches (rocpd, rpd and nsys databases, rocprofv3 JSON, pftrace)
/// fills one; the kernel-trace entry (kerneltraceparser.cpp) makes it per file, with the
/// reference's accumulator only for the formats the reference reads (formats/inputformat.h).

namespace goblin
{

namespace kernels
{
class NamePool;
struct Accumulator;
} // namespace kernels

/// Where one file's rows go.
struct KernelSink {
    kernels::NamePool &names;
    kernels::Accumulator *reference; ///< null: the reference reading does not read this file
    kernels::Accumulator &workbench;
    int host = 0; ///< agents of files in different host folders are different agents
    /// Keep the host side for the Timeline's lanes too (keepHostLanes(), torchtraceparser.h): the
    /// runtime calls and markers with their threads, names and correlation ids, and the kernels'
    /// correlation ids, as the file's GpuTimelineFile::hostLanes. Off: none of that is kept.
    bool keepHostLanes = false;
};

/// How one kernel file was read.
enum class ReadOutcome {
    Read,      ///< the format's file; its rows (if any) were used
    Unusable,  ///< not a file of the format, unsupported or unreadable (one diagnostic says why)
    Cancelled,
};

} // namespace goblin
