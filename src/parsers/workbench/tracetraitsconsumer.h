#pragma once
/// \file What one Kineto trace says about the job and the way it ran (tracetraits.h), as an event
/// consumer (kineto/eventconsumer.h): graph launches and captures, the GPU events that share a
/// graph launch's correlation id, backward / optimizer / DataLoader / nn.Module ranges while the
/// events stream past; distributedInfo and deviceProperties once the document ends. It finishes
/// after the workbench's consumer and writes the traits into the GPU timeline file that consumer
/// pushed (TorchTrace::timeline.files.back()).

#include "kineto/eventconsumer.h"

#include <QtGlobal>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace goblin::workbench {

/// args.correlation and args["graph id"] of an event, read from the bytes of its (already
/// validated) "args" object: `args` starts at its '{' and may run on past its '}'. Integers, or
/// strings holding one. The walk stops at the first "correlation" when `wantGraphId` is false,
/// else once both are read (Kineto writes each once; a later duplicate is not seen).
struct ArgIds {
    std::optional<qint64> correlation;
    std::optional<qint64> graphId;
};
ArgIds readArgIds(std::string_view args, bool wantGraphId);
/// readArgIds of the event's args, read once per event whichever consumer asks first.
ArgIds eventArgIds(const kineto::KinetoEvent &event, bool wantGraphId);

/// "default_pg size 8 ranks 0-7": the name, size and ranks of a process group as distributedInfo's
/// pg_config[0] writes it (JSON object text); empty when `json` is not such an object.
QString processGroupText(std::string_view json);

class TraceTraitsConsumer final : public kineto::EventConsumer
{
public:
    explicit TraceTraitsConsumer(const kineto::ConsumerContext &) {}

    static std::unique_ptr<kineto::EventConsumer> make(const kineto::ConsumerContext &context)
    {
        return std::make_unique<TraceTraitsConsumer>(context);
    }

    void onEvent(const kineto::KinetoEvent &event) override;
    void finishRange() override;
    void absorb(kineto::EventConsumer &laterRange, int generation) override;
    void finish(const kineto::KinetoDocument &document, TorchTrace &out) override;

private:
    void onCpuOp(std::string_view name);
    void onAnnotation(std::string_view name);
    void onRuntime(const kineto::KinetoEvent &event);
    void onGpuEvent(const kineto::KinetoEvent &event);

    // Counts are sums, and the two id lists are in document order, so byte ranges merge by
    // addition and concatenation (absorb() is called in range order): every read plan gives the
    // same traits.
    qint64 m_cpuOps = 0;
    qint64 m_profilerRanges = 0;
    qint64 m_backwardOps = 0;
    qint64 m_optimizerOps = 0;
    qint64 m_optimizerSteps = 0;
    qint64 m_dataLoaderOps = 0;
    qint64 m_moduleFrames = 0;
    qint64 m_captures = 0;
    qint64 m_hipCalls = 0;
    qint64 m_cudaCalls = 0;
    /// Graph launch calls, in document order: their correlation id, or kNoId without one.
    std::vector<quint64> m_launches;
    /// Every GPU event's correlation id. GPU events may come before or after their launch and in
    /// another byte range, so they are matched with the launches once the document ends. Kept
    /// delta-coded (CorrelationStream): ids rise by a few from one GPU event to the next, so most
    /// take a byte or two instead of eight (a million kernels: ~2 MB rather than 8).
    struct CorrelationStream {
        std::vector<std::uint8_t> bytes;
        quint64 last = 0;
        void add(quint64 id);
        template <typename F>
        void forEach(F &&f) const;
    };
    CorrelationStream m_gpuIds;
    std::vector<CorrelationStream> m_rangeGpuIds;  ///< those of the byte ranges, moved, not copied
    /// GPU events with a nonzero "graph id" (CUDA 12 builds of Kineto since 2026): their
    /// correlation id, or kNoId without one. Counted in a graph whether or not their launch is
    /// in the trace.
    std::vector<quint64> m_graphIdEvents;
    std::string m_launchName;  ///< the first launch's name (set once)
};

} // namespace goblin::workbench
