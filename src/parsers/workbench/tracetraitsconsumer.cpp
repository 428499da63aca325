// The traits of a Kineto trace (tracetraits.h): counted per event, cheaply, since this runs on
// every event of multi-GB traces. Most events are rejected on the first byte of their category,
// nothing is allocated per event and names are compared as bytes, never as QStrings.
#include "workbench/tracetraitsconsumer.h"

#include "kineto/gpuevents.h"
#include "syntax/bytesearch.h"
#include "syntax/jsonscanner.h"
#include "syntax/jsonskip.h"
#include "syntax/jsontoken.h"
#include "torchtraceparser.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <charconv>
#include <cstring>
#include <unordered_map>

namespace goblin::workbench {

using kineto::KinetoEvent;
using syntax::skipJsonNested;
using syntax::skipJsonString;
using syntax::startsWith;
using syntax::trimJson;

namespace {

constexpr quint64 kNoId = ~quint64(0);  // an event without a usable correlation

bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

const char *skipSpace(const char *p, const char *end)
{
    while (p < end && isSpace(*p))
        ++p;
    return p;
}

/// "-?[0-9]+" exactly.
std::optional<qint64> integerToken(std::string_view t)
{
    qint64 value = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), value);
    if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size())
        return std::nullopt;
    return value;
}

/// Is `rest` (a runtime call's name after its hip / cuda / cu prefix) `what`, alone or with a
/// suffix (_v2, _ptsz, _spt, WithFlags…)? `exact`: only an '_' suffix (GraphLaunch, not
/// GraphLaunchSomethingElse).
bool callIs(std::string_view rest, std::string_view what, bool exact)
{
    if (!startsWith(rest, what))
        return false;
    return !exact || rest.size() == what.size() || rest[what.size()] == '_';
}

/// "XBackward0", "XBackward1", "CompiledFunctionBackward" (2021: "AddmmBackward"): an autograd
/// node's op, read from the end of the name so that the test costs the same for every operator.
bool isBackwardName(std::string_view name)
{
    size_t n = name.size();
    while (n > 0 && name[n - 1] >= '0' && name[n - 1] <= '9')
        --n;
    constexpr std::string_view kBackward = "Backward";
    return n >= kBackward.size() && name.substr(n - kBackward.size(), kBackward.size()) == kBackward;
}

/// deviceProperties' name when it reads as a GPU model ("AMD Instinct MI300X", "NVIDIA H100 80GB
/// HBM3", "Tesla V100-SXM2-16GB", "AMD Radeon Graphics"), else empty: the name travels into reports
/// and the About box, and a trace is no place to trust with arbitrary text (a token pasted there
/// must not be copied out).
QString gpuModelName(const QString &raw)
{
    static const QRegularExpression model(
        QStringLiteral("^(?=.*\\b(AMD|Radeon|Instinct|MI\\d{2,3}X?|NVIDIA|Tesla|GeForce|Quadro|TITAN|RTX|GTX|"
                       "[ABHLTV]\\d{1,3}|GH\\d{3}|GB\\d{3}|gfx\\d{3,4}[a-z]?|Intel|Gaudi|Data Center GPU)\\b)[A-Za-z0-9 ()._/+-]{2,80}$"),
        QRegularExpression::CaseInsensitiveOption);
    const QString name = raw.simplified();
    return model.match(name).hasMatch() ? name : QString();
}

QString rangesText(const QJsonArray &ranks)
{
    // Consecutive runs compressed: [0..7] -> "0-7", [0,1,2,8] -> "0-2,8".
    QStringList parts;
    qsizetype i = 0;
    while (i < ranks.size()) {
        if (!ranks[i].isDouble())
            return {};
        const qint64 first = ranks[i].toInteger();
        qint64 last = first;
        qsizetype j = i + 1;
        while (j < ranks.size() && ranks[j].isDouble() && ranks[j].toInteger() == last + 1) {
            last = ranks[j].toInteger();
            ++j;
        }
        parts << (last > first ? QStringLiteral("%1-%2").arg(first).arg(last) : QString::number(first));
        i = j;
    }
    return parts.join(QLatin1Char(','));
}

QString processGroupOf(const QJsonObject &pg)
{
    QString name = pg.value(QLatin1String("pg_desc")).toString();
    if (name.isEmpty()) {
        const QJsonValue pgName = pg.value(QLatin1String("pg_name"));
        if (pgName.isString() && !pgName.toString().isEmpty())
            name = QStringLiteral("pg %1").arg(pgName.toString());
        else if (pgName.isDouble())
            name = QStringLiteral("pg %1").arg(pgName.toInteger());
    }
    QStringList parts;
    if (!name.isEmpty())
        parts << name.left(80);
    const QJsonValue size = pg.value(QLatin1String("pg_size"));
    if (size.isDouble())
        parts << QStringLiteral("size %1").arg(size.toInteger());
    const QJsonValue ranks = pg.value(QLatin1String("ranks"));
    QString ranksText;
    if (ranks.isArray())
        ranksText = rangesText(ranks.toArray());
    else if (ranks.isString())
        ranksText = ranks.toString().simplified().left(200);  // as written ("all", "[0, 1]")
    if (!ranksText.isEmpty())
        parts << QStringLiteral("ranks %1").arg(ranksText);
    return parts.join(QLatin1Char(' '));
}

} // namespace

namespace {

enum class Found { Yes, No, Unsure };

/// A depth-1 member of an args object found by search instead of the walk: `quotedKey` (with
/// its quotes) is searched in the bytes. The search is exact when it finds nothing and the bytes
/// hold no backslash (No), or when no '{', '}' or backslash lies between the object's '{' and the
/// match and a ':' follows it (Yes): without escapes, the quotes before the match pair up, so it
/// opens a string outside every string; without braces it lies in the object itself, at depth 1
/// (arrays hold no keys); the ':' makes it a key. Anything else is Unsure: the caller walks.
Found searchMember(const char *p, const char *end, std::string_view quotedKey, std::optional<qint64> &value)
{
    const syntax::QuotedInObject found = syntax::findQuotedInObject(p, end, quotedKey);
    const char *m = found.at;
    if (!m)
        return found.escape ? Found::Unsure : Found::No;
    if (found.braceOrEscapeBefore)
        return Found::Unsure;
    const char *q = skipSpace(m + quotedKey.size(), end);
    if (q >= end || *q != ':')
        return Found::Unsure;  // a string value or an array element of that text
    q = skipSpace(q + 1, end);
    if (q < end && *q == '"') {
        const char *body = q + 1;
        bool escaped = false;
        const char *after = skipJsonString(body, end, &escaped);
        if (escaped)
            return Found::Unsure;
        value = integerToken(std::string_view(body, size_t(std::max<std::ptrdiff_t>(0, after - 1 - body))));
        return Found::Yes;
    }
    const char *start = q;
    while (q < end && *q != ',' && *q != '}' && *q != ']' && !isSpace(*q))
        ++q;
    value = integerToken(std::string_view(start, size_t(q - start)));
    return Found::Yes;
}

/// The walk: every member of the object in turn, depth 1 only, escapes resolved.
ArgIds walkArgIds(std::string_view args, bool wantGraphId)
{
    ArgIds out;
    const char *p = args.data();
    const char *const end = p + args.size();
    if (p == end || *p != '{')
        return out;
    ++p;
    for (;;) {
        p = skipSpace(p, end);
        if (p >= end || *p == '}')
            break;
        if (*p == ',') {
            ++p;
            continue;
        }
        if (*p != '"')
            break;  // not a key: the object was validated, so this is past its end
        const char *key = p + 1;
        bool escaped = false;
        p = skipJsonString(key, end, &escaped);
        std::string_view keyText(key, size_t(std::max<std::ptrdiff_t>(0, p - 1 - key)));
        std::string unescapedKey;
        if (escaped) {
            unescapedKey = JsonScanner::unescape(keyText);  // rare: a key with escapes
            keyText = unescapedKey;
        }
        const int which = keyText == "correlation" ? 0 : (wantGraphId && keyText == "graph id") ? 1 : -1;
        p = skipSpace(p, end);
        if (p < end && *p == ':')
            ++p;
        p = skipSpace(p, end);
        if (p >= end)
            break;
        std::optional<qint64> value;
        if (*p == '"') {
            const char *body = p + 1;
            bool valueEscaped = false;
            p = skipJsonString(body, end, &valueEscaped);
            if (which >= 0) {
                // Some writers quote the number ("correlation": "12").
                const std::string_view text(body, size_t(std::max<std::ptrdiff_t>(0, p - 1 - body)));
                value = valueEscaped ? integerToken(JsonScanner::unescape(text)) : integerToken(text);
            }
        } else if (*p == '{' || *p == '[') {
            p = skipJsonNested(p, end);
        } else {
            const char *start = p;
            while (p < end && *p != ',' && *p != '}' && *p != ']' && !isSpace(*p))
                ++p;
            if (which >= 0)
                value = integerToken(std::string_view(start, size_t(p - start)));
        }
        if (which == 0 && !out.correlation)
            out.correlation = value;
        else if (which == 1 && !out.graphId)
            out.graphId = value;
        if (out.correlation && (!wantGraphId || out.graphId))
            break;
    }
    return out;
}

} // namespace

ArgIds readArgIds(std::string_view args, bool wantGraphId)
{
    // Most args are flat (Kineto's are): two searches read them at a fraction of the walk's cost
    // (a CUDA kernel's args run to a dozen members, and this runs for every GPU event).
    const char *p = args.data();
    const char *const end = p + args.size();
    if (p == end || *p != '{')
        return {};
    ArgIds out;
    const Found correlation = searchMember(p, end, "\"correlation\"", out.correlation);
    Found graphId = Found::No;
    // No 'g' and no escape that could spell one: no "graph id" (a ROCm kernel's args have no 'g').
    if (wantGraphId && (std::memchr(p, 'g', size_t(end - p)) || std::memchr(p, '\\', size_t(end - p))))
        graphId = searchMember(p, end, "\"graph id\"", out.graphId);
    if (correlation == Found::Unsure || graphId == Found::Unsure)
        return walkArgIds(args, wantGraphId);
    return out;
}

ArgIds eventArgIds(const KinetoEvent &event, bool wantGraphId)
{
    KinetoEvent::ArgIdsMemo &memo = event.argIds;
    if (!memo.read || (wantGraphId && !memo.withGraphId)) {
        const kineto::EventFields &fields = event.fields;
        ArgIds ids;
        if (fields.argsScanned) {  // located by the scanner: no search of the args
            if (fields.argHave & (1u << kineto::kArgCorrelation))
                ids.correlation = kineto::argInteger(fields.argToken[kineto::kArgCorrelation]);
            if (fields.argHave & (1u << kineto::kArgGraphId))
                ids.graphId = kineto::argInteger(fields.argToken[kineto::kArgGraphId]);
            wantGraphId = true;
        } else if (fields.have & (1u << kineto::kArgsKey)) {
            ids = readArgIds(trimJson(fields.token[kineto::kArgsKey]), wantGraphId);
        }
        memo = {true, wantGraphId, ids.correlation, ids.graphId};
    }
    return {memo.correlation, memo.withGraphId ? memo.graphId : std::nullopt};
}

QString processGroupText(std::string_view json)
{
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray(json.data(), qsizetype(json.size())));
    return doc.isObject() ? processGroupOf(doc.object()) : QString();
}

// ------------------------------------------------------------------------------------------------

void TraceTraitsConsumer::CorrelationStream::add(quint64 id)
{
    // The difference to the previous id, zigzagged (small negative steps stay small), as a LEB128
    // varint. Exact for every 64-bit id: the arithmetic wraps the same way both ways.
    const quint64 delta = id - last;
    last = id;
    quint64 zig = (delta << 1) ^ quint64(qint64(delta) >> 63);
    while (zig >= 0x80) {
        bytes.push_back(std::uint8_t(zig | 0x80));
        zig >>= 7;
    }
    bytes.push_back(std::uint8_t(zig));
}

template <typename F>
void TraceTraitsConsumer::CorrelationStream::forEach(F &&f) const
{
    quint64 id = 0;
    const std::uint8_t *p = bytes.data();
    const std::uint8_t *const end = p + bytes.size();
    while (p < end) {
        quint64 zig = 0;
        int shift = 0;
        while (p < end) {
            const std::uint8_t b = *p++;
            if (shift < 64)
                zig |= quint64(b & 0x7f) << shift;
            shift += 7;
            if (!(b & 0x80))
                break;
        }
        id += (zig >> 1) ^ (~(zig & 1) + 1);
        f(id);
    }
}

// ------------------------------------------------------------------------------------------------

void TraceTraitsConsumer::onEvent(const KinetoEvent &event)
{
    // Complete events only ("X"): instants, flows and metadata carry none of the traits.
    if (event.phText.size() != 1 || event.phText[0] != 'X')
        return;
    const std::string_view cat = event.catText;
    if (cat.empty() || !event.name.isString())
        return;
    switch (cat[0]) {
    case 'c':  // cpu_op, cuda_runtime, cuda_driver (and cpu_instant_event, cuda_sync… which are none)
        if (cat.size() == 6 && cat == "cpu_op")
            onCpuOp(event.nameText);
        else if (cat == "cuda_runtime" || cat == "cuda_driver")
            onRuntime(event);
        else if (cat.size() == 19 && cat == "cuda_profiler_range")
            ++m_profilerRanges;  // CUPTI's range profiler: counters per range, no kernel timeline
        return;
    case 'O':  // Kineto 2021
        if (cat == "Operator")
            onCpuOp(event.nameText);
        return;
    case 'R':
        if (cat == "Runtime")
            onRuntime(event);
        return;
    case 'u':
        if (cat == "user_annotation")
            onAnnotation(event.nameText);
        return;
    case 'p':
        if (cat == "python_function" && startsWith(event.nameText, "nn.Module: "))
            ++m_moduleFrames;
        return;
    case 'k':
    case 'K':
    case 'g':
    case 'M':
        if (kineto::gpuEventKind(cat))
            onGpuEvent(event);
        return;
    default:
        return;
    }
}

void TraceTraitsConsumer::onCpuOp(std::string_view name)
{
    ++m_cpuOps;
    if (name.empty())
        return;
    // Tested from the first byte and the end of the name, so that an ordinary operator costs a
    // few compares: ATen ops ("aten::…", most of the lane) can only be a fused optimizer.
    switch (name[0]) {
    case 'a':
        if (startsWith(name, "aten::")) {
            // Fused optimizer kernels: called by torch.optim only. The aten::_foreach_* ops are not
            // counted: gradient clipping, AMP's unscale and user code call them too.
            if (name.size() > 13 && name[6] == '_' && startsWith(name.substr(6), "_fused_") &&
                (startsWith(name.substr(13), "adam") || startsWith(name.substr(13), "sgd") ||
                 startsWith(name.substr(13), "adagrad")))
                ++m_optimizerOps;
            return;
        }
        if (startsWith(name, "autograd::engine::evaluate_function:")) {
            ++m_backwardOps;  // AccumulateGrad too, whose name has no "Backward"
            return;
        }
        break;
    case 'e':
        if (startsWith(name, "enumerate(DataLoader)")) {
            ++m_dataLoaderOps;
            return;
        }
        break;
    case 'O':
        // Kineto 2021 writes torch.optim's ranges as operators.
        if (startsWith(name, "Optimizer.")) {
            onAnnotation(name);
            return;
        }
        break;
    default:
        break;
    }
    if (isBackwardName(name))
        ++m_backwardOps;
    else if (name.size() >= 10 && name.find("DataLoader") != std::string_view::npos)
        ++m_dataLoaderOps;  // Kineto 2021 writes record_function ranges as operators too
}

void TraceTraitsConsumer::onAnnotation(std::string_view name)
{
    if (name.empty())
        return;
    if (name[0] == 'O') {
        // torch.optim's profile hooks: "Optimizer.step#SGD.step", "Optimizer.zero_grad#SGD.zero_grad".
        if (startsWith(name, "Optimizer.step#")) {
            ++m_optimizerOps;
            ++m_optimizerSteps;
            return;
        }
        if (startsWith(name, "Optimizer.zero_grad#")) {
            ++m_optimizerOps;
            return;
        }
    }
    if (name.find("DataLoader") != std::string_view::npos)
        ++m_dataLoaderOps;  // "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", user ranges
}

void TraceTraitsConsumer::onRuntime(const KinetoEvent &event)
{
    const std::string_view name = event.nameText;
    if (name.size() < 4)
        return;
    std::string_view rest;
    if (name[0] == 'h' && name[1] == 'i' && name[2] == 'p') {
        ++m_hipCalls;
        rest = name.substr(3);
    } else if (name[0] == 'c' && name[1] == 'u') {
        ++m_cudaCalls;
        rest = name.substr(name[2] == 'd' && name[3] == 'a' ? 4 : 2);
    } else {
        return;
    }
    if (rest.empty())
        return;
    if (rest[0] == 'G') {
        if (callIs(rest, "GraphLaunch", true)) {
            quint64 id = kNoId;
            if (const std::optional<qint64> c = eventArgIds(event, false).correlation; c && *c >= 0)
                id = quint64(*c);
            m_launches.push_back(id);
            if (m_launchName.empty())
                m_launchName.assign(name);
        } else if (callIs(rest, "GraphInstantiate", false)) {
            ++m_captures;
        }
    } else if (rest[0] == 'S' && callIs(rest, "StreamBeginCapture", false)) {
        // Not StreamGetCaptureInfo / StreamIsCapturing: every eager PyTorch op asks those.
        ++m_captures;
    }
}

void TraceTraitsConsumer::onGpuEvent(const KinetoEvent &event)
{
    if (!(event.fields.have & (1u << kineto::kArgsKey)))
        return;
    const ArgIds ids = eventArgIds(event, true);
    const bool usable = ids.correlation && *ids.correlation >= 0;
    if (ids.graphId && *ids.graphId != 0)
        m_graphIdEvents.push_back(usable ? quint64(*ids.correlation) : kNoId);
    else if (usable)
        m_gpuIds.add(quint64(*ids.correlation));
}

void TraceTraitsConsumer::finishRange()
{
    m_gpuIds.bytes.shrink_to_fit();  // held until the range is absorbed
}

void TraceTraitsConsumer::absorb(kineto::EventConsumer &laterRange, int)
{
    TraceTraitsConsumer &range = static_cast<TraceTraitsConsumer &>(laterRange);
    m_cpuOps += range.m_cpuOps;
    m_profilerRanges += range.m_profilerRanges;
    m_backwardOps += range.m_backwardOps;
    m_optimizerOps += range.m_optimizerOps;
    m_optimizerSteps += range.m_optimizerSteps;
    m_dataLoaderOps += range.m_dataLoaderOps;
    m_moduleFrames += range.m_moduleFrames;
    m_captures += range.m_captures;
    m_hipCalls += range.m_hipCalls;
    m_cudaCalls += range.m_cudaCalls;
    m_launches.insert(m_launches.end(), range.m_launches.begin(), range.m_launches.end());
    m_rangeGpuIds.push_back(std::move(range.m_gpuIds));
    for (CorrelationStream &s : range.m_rangeGpuIds)
        m_rangeGpuIds.push_back(std::move(s));
    m_graphIdEvents.insert(m_graphIdEvents.end(), range.m_graphIdEvents.begin(), range.m_graphIdEvents.end());
    if (m_launchName.empty())
        m_launchName = range.m_launchName;
}

void TraceTraitsConsumer::finish(const kineto::KinetoDocument &document, TorchTrace &out)
{
    if (out.timeline.files.empty())
        return;  // (the workbench's consumer always pushes one; nothing to describe otherwise)
    TraceTraits &traits = out.timeline.files.back().traits;
    auto diag = [&](qint64 line, const QString &message) {
        out.diagnostics.push_back({Severity::Warning, document.name, line, message});
    };

    // Graphs: each GPU event against the launches' correlation ids. Correlation ids are the
    // tracer's, per process; a file normally holds one process's GPU work (GPU events carry the
    // device as their pid, so they cannot be told apart by process anyway).
    TraceGraphs &graphs = traits.graphs;
    graphs.launches = qint64(m_launches.size());
    graphs.captures = m_captures;
    graphs.launchName = QString::fromUtf8(m_launchName.data(), qsizetype(m_launchName.size()));
    std::vector<std::uint32_t> perLaunch(m_launches.size(), 0);
    std::unordered_map<quint64, size_t> launchOf;
    launchOf.reserve(m_launches.size());
    for (size_t i = 0; i < m_launches.size(); ++i)
        if (m_launches[i] != kNoId)
            launchOf.emplace(m_launches[i], i);  // a repeated id keeps its first launch
    auto launchOfId = [&](quint64 id) -> std::uint32_t * {
        if (launchOf.empty() || id == kNoId)
            return nullptr;
        const auto it = launchOf.find(id);
        return it == launchOf.end() ? nullptr : &perLaunch[it->second];
    };
    if (!launchOf.empty()) {
        m_rangeGpuIds.push_back(std::move(m_gpuIds));
        for (const CorrelationStream &stream : m_rangeGpuIds)
            stream.forEach([&](quint64 id) {
                if (std::uint32_t *n = launchOfId(id)) {
                    ++*n;
                    ++graphs.gpuEventsInGraphs;
                }
            });
    }
    for (const quint64 id : m_graphIdEvents) {
        if (std::uint32_t *n = launchOfId(id))
            ++*n;
        ++graphs.gpuEventsInGraphs;  // a graph's node whether or not its launch is in the trace
    }
    for (const std::uint32_t n : perLaunch)
        if (n > 0) {
            ++graphs.launchesWithGpuEvents;
            graphs.gpuEventsPerLaunch.push_back(n);
        }
    m_gpuIds = {};
    m_rangeGpuIds = {};
    m_graphIdEvents = {};

    TracePhases &phases = traits.phases;
    phases.backwardOps = m_backwardOps;
    phases.optimizerOps = m_optimizerOps;
    phases.optimizerSteps = m_optimizerSteps;
    phases.dataLoaderOps = m_dataLoaderOps;
    phases.forwardModules = m_moduleFrames;
    phases.cpuOps = m_cpuOps;
    phases.profilerRanges = m_profilerRanges;

    // Identity: the top-level values the reader kept.
    TraceIdentity &identity = traits.identity;
    if (const kineto::Capture *info = document.lastCapture("distributedInfo"); info && !info->overflow) {
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray(info->text.data(), qsizetype(info->text.size())));
        if (!doc.isObject()) {
            diag(info->line, QStringLiteral("top-level \"distributedInfo\" is not a JSON object; the rank, world size "
                                            "and process group are unknown"));
        } else {
            const QJsonObject o = doc.object();
            auto intMember = [&](const char *key, std::optional<int> &to) {
                const QJsonValue v = o.value(QLatin1String(key));
                if (v.isUndefined() || v.isNull())
                    return;
                const double d = v.toDouble(-1.0);
                if (v.isDouble() && d >= 0 && d <= 1e9 && d == double(qint64(d)))
                    to = int(d);
                else
                    diag(info->line, QStringLiteral("distributedInfo.%1 is not a non-negative integer; unknown")
                                         .arg(QLatin1String(key)));
            };
            intMember("rank", identity.rank);
            intMember("world_size", identity.worldSize);
            identity.backend = o.value(QLatin1String("backend")).toString().left(40);
            const QJsonValue pg = o.value(QLatin1String("pg_config"));
            QJsonValue first;
            if (pg.isArray() && !pg.toArray().isEmpty())
                first = pg.toArray().first();
            else if (pg.isObject())
                first = pg;
            if (first.isObject())
                identity.processGroup = processGroupOf(first.toObject());
        }
    }
    if (const kineto::Capture *base = document.lastCapture("baseTimeNanoseconds"); base && !base->overflow) {
        // An integer as Kineto writes it; a float (a rewriter's) is read as one when exact.
        const QByteArray text = QByteArray(base->text.data(), qsizetype(base->text.size())).trimmed();
        bool ok = false;
        qint64 ns = text.toLongLong(&ok);
        if (!ok) {
            const double d = text.toDouble(&ok);
            ok = ok && d >= 0 && d < 9e18 && d == std::floor(d);
            ns = ok ? qint64(d) : 0;
        }
        if (ok && ns >= 0)
            identity.baseTimeNs = ns;
        else
            diag(base->line, QStringLiteral("top-level \"baseTimeNanoseconds\" is not a non-negative integer; the trace's "
                                            "clock cannot be put beside other ranks'"));
    }
    if (const kineto::Capture *props = document.lastCapture("deviceProperties"); props && !props->overflow) {
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray(props->text.data(), qsizetype(props->text.size())));
        if (!doc.isArray()) {
            diag(props->line, QStringLiteral("top-level \"deviceProperties\" is not a JSON array; the device model is "
                                             "unknown"));
        } else {
            for (const QJsonValue &d : doc.array()) {
                const QJsonObject o = d.toObject();
                identity.deviceNames << gpuModelName(o.value(QLatin1String("name")).toString());
                const double memory = o.value(QLatin1String("totalGlobalMem")).toDouble(0.0);
                identity.deviceMemoryBytes.push_back(memory > 0 && memory < 9e18 ? qint64(memory) : 0);
                QJsonValue units = o.value(QLatin1String("numSms"));
                if (!units.isDouble())
                    units = o.value(QLatin1String("maxComputeUnits"));  // XPU
                const double n = units.toDouble(0.0);
                identity.deviceComputeUnits.push_back(n > 0 && n < 1e9 ? int(n) : 0);
            }
        }
    }
    if (m_hipCalls > 0 || m_cudaCalls > 0) {
        identity.runtimeApi = m_hipCalls >= m_cudaCalls ? QStringLiteral("HIP") : QStringLiteral("CUDA");
    } else {
        for (const QString &key : document.rootKeys) {
            if (key == QLatin1String("roctracer_version") || key == QLatin1String("rocprofiler-sdk_version") ||
                key == QLatin1String("hip_runtime_version")) {
                identity.runtimeApi = QStringLiteral("HIP");
                break;
            }
            if (key == QLatin1String("cupti_version") || key == QLatin1String("cuda_runtime_version")) {
                identity.runtimeApi = QStringLiteral("CUDA");
                break;
            }
        }
    }
}

} // namespace goblin::workbench
