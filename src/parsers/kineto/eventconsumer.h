#pragma once
/// \file The seam between the Kineto reader core (kineto/) and the readings of its events: an
/// ordered fan-out. The reader hands every event, in document order, to each consumer in turn,
/// then the end of the document. The reference's reading (reference/torchconsumer) and the
/// workbench's (workbench/kinetoconsumer) are consumers; they live in separate libraries and
/// know nothing of each other. A new reading of the trace's events is one more consumer: a class
/// here's interface, a maker function, and its place in the entry's list of makers.

#include "diagnostic.h"
#include "kineto/batch.h"
#include "syntax/jsontoken.h"

#include <QStringList>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace goblin {
struct TorchTrace;
class JsonScanner;
}

namespace goblin::kineto {

/// A top-level value kept as text (metadata, distributedInfo, …), read once the document ends.
struct Capture {
    std::string key;
    qint64 begin = 0;
    qint64 end = -1;
    qint64 line = 0;
    std::string text;
    bool overflow = false;
};

enum class ReferenceMode {
    AsJson,        ///< the reference reads these (decompressed) bytes as torch_profile.json
    CrashesOnGzip, ///< the file is torch_profile.json itself: gzip bytes make read_text() fail
};

enum class DocumentRoot { Unknown, Object, Array, Scalar };

/// One trace event as the core read it: its members' raw tokens, typed once as json.loads types
/// them (both readings share the typing), and the texts of the string members (views into the
/// reader's buffer, escapes resolved). Valid during onEvent() only.
struct KinetoEvent {
    const EventFields &fields;
    const EventSpan &span;
    syntax::PyValue ph, cat, name, ts, dur;  ///< Missing where the event has no such member
    std::string_view phText, catText, nameText;  ///< set where the member is a string

    /// What several consumers read from the args, decoded by the first that asks and kept for the
    /// others (workbench/tracetraitsconsumer.h eventArgIds): GPU events' correlation and graph id.
    struct ArgIdsMemo {
        bool read = false;
        bool withGraphId = false;
        std::optional<qint64> correlation;
        std::optional<qint64> graphId;
    };
    mutable ArgIdsMemo argIds{};

    /// ts and dur in ns (syntax::microsToNs), converted once for every consumer that asks.
    struct TimesMemo {
        bool read = false;
        std::optional<qint64> tsNs;
        std::optional<qint64> durNs;
    };
    mutable TimesMemo times{};
    const TimesMemo &timesNs() const
    {
        if (!times.read)
            times = {true, syntax::microsToNs(ts), syntax::microsToNs(dur)};
        return times;
    }
};

/// What the document was, once the reader has reached its end (or stopped).
struct KinetoDocument {
    QString name;  ///< the file as the diagnostics name it
    ReferenceMode mode = ReferenceMode::AsJson;
    bool bom = false;
    bool compressed = false;
    qint64 invalidUtf8Bytes = 0;
    QString utf8Reason;  ///< Python's UnicodeDecodeError text for the first bad byte
    const JsonScanner *scanner = nullptr;  ///< depth, syntax error
    DocumentRoot root = DocumentRoot::Unknown;
    QStringList rootKeys;  ///< the first 200
    bool lastTraceEventsIsList = false;
    int lastTraceEventsGeneration = -1;  ///< the "traceEvents" the reference keeps (-1: none)
    qint64 events = 0;                   ///< every element of "traceEvents" met
    qint64 nonObjectEvents = 0;
    qint64 scalarEvents = 0;  ///< of the non-object entries, the scalars (numbers, strings, true/false/null)
    qint64 unreadableEvents = 0;
    const std::vector<Capture> *captures = nullptr;

    /// The last complete capture of `key` (a Python dict keeps the last duplicate).
    const Capture *lastCapture(std::string_view key) const
    {
        for (auto it = captures->rbegin(); it != captures->rend(); ++it)
            if (it->key == key && it->end >= 0)
                return &*it;
        return nullptr;
    }
};

/// What a consumer may use while events stream past.
struct ConsumerContext {
    QString name;                    ///< the file as the diagnostics name it
    DiagnosticLimiter &eventIssues;  ///< per-event problems; a byte range with any does not count
};

class EventConsumer
{
public:
    virtual ~EventConsumer() = default;
    /// Called once per event, in document order, on the pipeline's thread. No allocation per event.
    virtual void onEvent(const KinetoEvent &event) = 0;
    /// A byte range read on a helper thread is done (on that thread): compact what it holds.
    virtual void finishRange() {}
    /// May this range's events be merged (absorb()) into the reader before it? False when their
    /// order matters to this consumer beyond what a merge keeps.
    virtual bool rangeSafe() const { return true; }
    /// Adds the events of the next confirmed byte range, read by a consumer made by the same maker
    /// (so of the same type). Ranges are absorbed in range order; `generation` is the main reader's
    /// current "traceEvents" generation, the one the range's events belong to.
    virtual void absorb(EventConsumer &laterRange, int generation) = 0;
    /// The end of the document: the consumer writes its reading into `out` (diagnostics name
    /// document.name). Consumers finish in the order of their makers.
    virtual void finish(const KinetoDocument &document, TorchTrace &out) = 0;
};

/// Makes one consumer for one reader (the main reader and each byte range's reader get their own).
using ConsumerMaker = std::unique_ptr<EventConsumer> (*)(const ConsumerContext &context);

} // namespace goblin::kineto
