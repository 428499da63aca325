// One trace event: its seven members collected (from simdjson, or located by JsonScanner), typed
// once as json.loads types them, and handed to every consumer in document order.
#include "kineto/gpuevents.h"
#include "kineto/tracereader.h"

#include "syntax/jsontoken.h"

#include <cstring>

namespace goblin::kineto {

using syntax::classify;
using syntax::PyValue;

namespace {

/// Does the raw key (bytes after the opening quote, no escapes in this event) equal `key`?
template <size_t N>
inline bool rawKeyIs(const char *raw, const char (&key)[N])
{
    return std::memcmp(raw, key, N - 1) == 0 && raw[N - 1] == '"';
}

} // namespace

bool TraceReader::collectFields(simdjson::ondemand::object object, bool escapes, const char *eventEnd,
                                EventFields &fields)
{
    for (auto fieldResult : object) {
        simdjson::ondemand::field field;
        if (std::move(fieldResult).get(field) != simdjson::SUCCESS)
            return false;
        int which = -1;  // 0 ph, 1 cat, 2 name, 3 ts, 4 dur, 5 args, 6 pid, 7 tid
        if (!escapes) {
            const char *raw = field.key().raw();
            switch (raw[0]) {
            case 'p': which = rawKeyIs(raw, "ph") ? 0 : rawKeyIs(raw, "pid") ? kPidKey : -1; break;
            case 'a': which = rawKeyIs(raw, "args") ? kArgsKey : -1; break;
            case 'c': which = rawKeyIs(raw, "cat") ? 1 : -1; break;
            case 'n': which = rawKeyIs(raw, "name") ? 2 : -1; break;
            case 't': which = rawKeyIs(raw, "ts") ? 3 : rawKeyIs(raw, "tid") ? kTidKey : -1; break;
            case 'd': which = rawKeyIs(raw, "dur") ? 4 : -1; break;
            default: break;
            }
        } else {
            // Resolved by hand: simdjson rejects lone surrogates (\ud800) that Python keeps.
            const char *raw = field.key().raw();
            size_t length = 0;
            while (raw[length] != '"')
                length += raw[length] == '\\' ? 2 : 1;
            const std::string key = JsonScanner::unescape(std::string_view(raw, length));
            which = key == "ph" ? 0 : key == "cat" ? 1 : key == "name" ? 2 : key == "ts" ? 3 : key == "dur" ? 4
                  : key == "args" ? kArgsKey : key == "pid" ? kPidKey : key == "tid" ? kTidKey : -1;
        }
        if (which >= 0) {
            // Later duplicates win, as in a Python dict; that there was one is said once per file.
            fields.token[which] = field.value().raw_json_token();
            fields.duplicated |= quint8(fields.have & (1u << which));
            fields.have |= quint8(1u << which);
            if (which == kArgsKey && !fields.token[which].empty() && fields.token[which][0] == '{')
                fields.token[which] = std::string_view(fields.token[which].data(),
                                                       size_t(eventEnd - fields.token[which].data()));
        }
        // The value is skipped by the next iteration.
    }
    return true;
}

void TraceReader::handleEvent(simdjson::ondemand::object object, const EventSpan &span, const char *eventEnd)
{
    EventFields &fields = m_fields;
    fields.have = 0;
    fields.argsScanned = false;  // the readers search the args themselves
    fields.argHave = 0;
    fields.duplicated = 0;
    if (!collectFields(object, span.escapes, eventEnd, fields)) {
        m_batchError = true;
        return;
    }
    applyEvent(fields, span);
}

void TraceReader::applyEvent(const EventFields &fields, const EventSpan &span)
{
    const std::string_view phToken = fields.token[0], catToken = fields.token[1], nameToken = fields.token[2],
                           tsToken = fields.token[3], durToken = fields.token[4];
    const bool havePh = fields.have & 1u, haveCat = fields.have & 2u, haveName = fields.have & 4u,
               haveTs = fields.have & 8u, haveDur = fields.have & 16u;
    // Typed in place: the event is built once, on the stack, and read by every consumer.
    KinetoEvent event{fields,
                      span,
                      havePh ? classify(phToken) : PyValue{},
                      haveCat ? classify(catToken) : PyValue{},
                      haveName ? classify(nameToken) : PyValue{},
                      haveTs ? classify(tsToken) : PyValue{},
                      haveDur ? classify(durToken) : PyValue{},
                      {},
                      {},
                      {},
                      {}};
    // Strings stay views into the buffer unless this event has escapes to resolve.
    if (event.name.isString()) {
        if (span.escapes) {
            m_nameText = syntax::stringValue(event.name);
            event.nameText = m_nameText;
        } else {
            event.nameText = event.name.rawBody();
        }
    }
    if (event.cat.isString()) {
        if (span.escapes) {
            m_catText = syntax::stringValue(event.cat);
            event.catText = m_catText;
        } else {
            event.catText = event.cat.rawBody();
        }
    }
    if (event.ph.isString()) {
        if (span.escapes) {
            m_phText = syntax::stringValue(event.ph);
            event.phText = m_phText;
        } else {
            event.phText = event.ph.rawBody();
        }
    }

    ++m_events;
    if (fields.duplicated != 0) [[unlikely]]
        noteDuplicatedMember(fields, span);
    // Args the scanner did not locate members in (or met a repeated one in: see kArgKeys) are
    // searched here for a repeated member, which the readers resolve to the first.
    if (!fields.argsScanned && (fields.have & (1u << kArgsKey))) {
        const std::string_view args = fields.token[kArgsKey];
        if (!args.empty() && args[0] == '{') {
            if (const quint8 repeated = repeatedArgKeys(args)) [[unlikely]]
                noteDuplicatedArg(repeated, span);
        }
    }
    for (const std::unique_ptr<EventConsumer> &consumer : m_consumers)
        consumer->onEvent(event);
}

void TraceReader::noteDuplicatedMember(const EventFields &fields, const EventSpan &span)
{
    if (m_duplicatedEvents++ > 0)
        return;
    const std::string_view key = kEventKeys[__builtin_ctz(fields.duplicated)];
    // Pushed at once, like the event issues: a byte range with it is then not counted, and the
    // main reader reads it again and reports it with the document's own line.
    m_duplicateWarning = m_out.diagnostics.size();
    m_out.diagnostics.push_back({Severity::Warning, m_name, span.line,
                                 QStringLiteral("the event at line %1 (byte %2) has the member \"%3\" more than "
                                                "once: the last value is used, as Python's json does (both readings)")
                                     .arg(span.line)
                                     .arg(span.begin)
                                     .arg(QLatin1String(key.data(), qsizetype(key.size())))});
}

void TraceReader::noteDuplicatedArg(quint8 repeated, const EventSpan &span)
{
    if (m_duplicatedArgEvents++ > 0)
        return;
    const std::string_view key = kArgKeys[__builtin_ctz(repeated)];
    m_duplicateArgWarning = m_out.diagnostics.size();
    m_out.diagnostics.push_back(
        {Severity::Warning, m_name, span.line,
         QStringLiteral("the event at line %1 (byte %2) has the args member \"%3\" more than once: the workbench "
                        "reads the first value (its readers stop at the member, which Kineto writes once), where "
                        "Python's json would keep the last; the reference profile reads no args")
             .arg(span.line)
             .arg(span.begin)
             .arg(QLatin1String(key.data(), qsizetype(key.size())))});
}

void TraceReader::finishDuplicatedMembers()
{
    if (m_duplicatedArgEvents > 1 && m_duplicateArgWarning >= 0 &&
        size_t(m_duplicateArgWarning) < m_out.diagnostics.size())
        m_out.diagnostics[m_duplicateArgWarning].message +=
            QStringLiteral("; %1 events in all repeat an args member").arg(m_duplicatedArgEvents);
    if (m_duplicatedEvents > 1 && m_duplicateWarning >= 0 && size_t(m_duplicateWarning) < m_out.diagnostics.size())
        m_out.diagnostics[m_duplicateWarning].message +=
            QStringLiteral("; %1 events in all have a member more than once").arg(m_duplicatedEvents);
}

} // namespace goblin::kineto
