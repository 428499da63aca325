#include "mcpcommand.h"

#include "chrometraceexport.h"
#include "compare.h"
#include "comparecommand.h"
#include "derived.h"
#include "redaction.h"
#include "regressiongate.h"
#include "report.h"
#include "reportcommand.h"
#include "run.h"
#include "runanalysis.h"
#include "sweep.h"
#include "sweepjson.h"
#include "thresholds.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace goblin {

namespace {

/// Protocol revisions this server speaks, newest first; a client asking for another gets the newest.
const QStringList kProtocolVersions{QStringLiteral("2025-11-25"), QStringLiteral("2025-06-18"),
                                    QStringLiteral("2025-03-26"), QStringLiteral("2024-11-05")};
/// No answer is larger than this (bytes of its JSON): lists are paged below it.
constexpr qsizetype kMaxAnswerBytes = 256 * 1024;
constexpr int kDefaultPage = 50;
constexpr int kMaxPage = 500;
/// Runs kept loaded between calls (the least recently used leaves first).
constexpr int kCachedRuns = 4;

enum JsonRpcError { ParseError = -32700, InvalidRequest = -32600, MethodNotFound = -32601, InvalidParams = -32602 };

/// A tool's failure the client should see as a result with isError (bad run, refused path, …).
struct ToolError {
    QString message;
};
/// A malformed call: a JSON-RPC error (-32602).
struct ParamsError {
    QString message;
};

QJsonObject typed(const QString &type, const QString &description)
{
    return {{QStringLiteral("type"), type}, {QStringLiteral("description"), description}};
}

QJsonObject thresholdProperties()
{
    QJsonObject props{
        {QStringLiteral("profile"), QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                                                {QStringLiteral("enum"), QJsonArray{QStringLiteral("workbench"), QStringLiteral("reference")}},
                                                {QStringLiteral("description"), QStringLiteral("heuristics profile (default workbench)")}}},
        {QStringLiteral("precision"), typed(QStringLiteral("string"), QStringLiteral("none, fp32, fp16, bf16 or fp8"))},
        {QStringLiteral("steps"), typed(QStringLiteral("integer"), QStringLiteral("cut a run without step marks into N steps"))},
    };
    for (const ThresholdDescriptor &d : thresholdDescriptors())
        props[QLatin1String(d.jsonKey)] =
            typed(QStringLiteral("number"), QStringLiteral("%1 (%2 to %3)").arg(QLatin1String(d.label)).arg(d.minimum).arg(d.maximum));
    return props;
}

QJsonObject toolSchema(const QJsonObject &own, bool withThresholds, const QStringList &required)
{
    QJsonObject props = own;
    if (withThresholds) {
        const QJsonObject t = thresholdProperties();
        for (auto it = t.begin(); it != t.end(); ++it)
            props[it.key()] = it.value();
    }
    QJsonObject out{{QStringLiteral("type"), QStringLiteral("object")}, {QStringLiteral("properties"), props}};
    if (!required.isEmpty())
        out[QStringLiteral("required")] = QJsonArray::fromStringList(required);
    return out;
}

QJsonArray toolList(bool canExport)
{
    const QJsonObject run = typed(QStringLiteral("string"), QStringLiteral("a run id from open_run, or a path under an allowed folder"));
    const QJsonObject limit = typed(QStringLiteral("integer"), QStringLiteral("page size (default 50, at most 500)"));
    const QJsonObject cursor = typed(QStringLiteral("string"), QStringLiteral("nextCursor of the previous page"));
    const QJsonObject filter = typed(QStringLiteral("string"), QStringLiteral("only names containing this text (case-insensitive)"));
    struct Tool {
        const char *name, *title, *description;
        QJsonObject schema;
    };
    std::vector<Tool> tools{
        {"open_run", "Open a run",
         "Loads a run folder or a single trace file (under an allowed folder) and returns its id and facts: job, "
         "devices and capacity, program kind, step plan and step time, each with state and source.",
         toolSchema({{QStringLiteral("path"), typed(QStringLiteral("string"), QStringLiteral("run folder or file"))}}, false,
                    {QStringLiteral("path")})},
        {"budget", "Waste budget",
         "The waste budget per step (useful GPU, data wait, host gap, collective comm, memory headroom, precision "
         "path, kernel shape, unattributed) under the thresholds given, each bucket with seconds per step, share, "
         "state, source and formula; and the run's quantities.",
         toolSchema({{QStringLiteral("run"), run}}, true, {QStringLiteral("run")})},
        {"steps", "Steps", "The step plan's windows with each step's duration, utilisation, host busy and budget; paged.",
         toolSchema({{QStringLiteral("run"), run}, {QStringLiteral("limit"), limit}, {QStringLiteral("cursor"), cursor}}, true,
                    {QStringLiteral("run")})},
        {"ops", "Operators",
         "Operators (CPU ops with the GPU time their kernels took), sorted and filtered, paged.",
         toolSchema({{QStringLiteral("run"), run},
                     {QStringLiteral("sort_by"), typed(QStringLiteral("string"), QStringLiteral("device_self_s (default), device_total_s, host_self_s, calls or name"))},
                     {QStringLiteral("filter"), filter}, {QStringLiteral("limit"), limit}, {QStringLiteral("cursor"), cursor}},
                    false, {QStringLiteral("run")})},
        {"kernels", "Kernels", "Kernels by name with calls and total, mean, min and max duration, sorted and filtered, paged.",
         toolSchema({{QStringLiteral("run"), run},
                     {QStringLiteral("sort_by"), typed(QStringLiteral("string"), QStringLiteral("total_s (default), calls, mean_s or name"))},
                     {QStringLiteral("filter"), filter}, {QStringLiteral("limit"), limit}, {QStringLiteral("cursor"), cursor}},
                    false, {QStringLiteral("run")})},
        {"timeline", "One step on the GPU timeline",
         "One step's per-device summary: busy, compute, communication (exposed), copies, idle and why.",
         toolSchema({{QStringLiteral("run"), run}, {QStringLiteral("step"), typed(QStringLiteral("integer"), QStringLiteral("0-based step index"))}},
                    false, {QStringLiteral("run"), QStringLiteral("step")})},
        {"advice", "Advice", "What to look at first, largest waste first, each with its bucket, seconds per step and evidence.",
         toolSchema({{QStringLiteral("run"), run}}, true, {QStringLiteral("run")})},
        {"compare", "Compare two runs",
         "Bucket and top-kernel deltas of `other` against `baseline` under one set of thresholds; with fail_if rules "
         "(e.g. data_wait>+10%) the regression gate's verdict against the steps' noise.",
         toolSchema({{QStringLiteral("baseline"), run}, {QStringLiteral("other"), run},
                     {QStringLiteral("fail_if"), QJsonObject{{QStringLiteral("type"), QStringLiteral("array")},
                                                             {QStringLiteral("items"), QJsonObject{{QStringLiteral("type"), QStringLiteral("string")}}}}}},
                    true, {QStringLiteral("baseline"), QStringLiteral("other")})},
        {"sweep", "Sweep a threshold",
         "Each bucket along one threshold (gpu-util-below, host-busy-above or hbm-target) from `from` to `to` by "
         "`by`, and the values where a bucket switches on or off.",
         toolSchema({{QStringLiteral("run"), run},
                     {QStringLiteral("threshold"), typed(QStringLiteral("string"), QStringLiteral("gpu-util-below, host-busy-above or hbm-target"))},
                     {QStringLiteral("from"), typed(QStringLiteral("number"), QStringLiteral("first value"))},
                     {QStringLiteral("to"), typed(QStringLiteral("number"), QStringLiteral("last value"))},
                     {QStringLiteral("by"), typed(QStringLiteral("number"), QStringLiteral("step between values"))}},
                    true, {QStringLiteral("run"), QStringLiteral("threshold"), QStringLiteral("from"), QStringLiteral("to"), QStringLiteral("by")})},
    };
    if (canExport)
        tools.push_back({"export_trace", "Export a step as a Chrome trace",
                         "Writes one step (or the whole run) as a Chrome trace (Perfetto) into the server's export folder; "
                         "returns the file's path.",
                         toolSchema({{QStringLiteral("run"), run},
                                     {QStringLiteral("step"), typed(QStringLiteral("integer"), QStringLiteral("0-based step; omit for the whole run"))}},
                                    false, {QStringLiteral("run")})});
    QJsonArray out;
    for (const Tool &t : tools)
        out.append(QJsonObject{{QStringLiteral("name"), QLatin1String(t.name)},
                               {QStringLiteral("title"), QLatin1String(t.title)},
                               {QStringLiteral("description"), QLatin1String(t.description)},
                               {QStringLiteral("inputSchema"), t.schema},
                               {QStringLiteral("annotations"), QJsonObject{{QStringLiteral("readOnlyHint"), std::string(t.name) != "export_trace"},
                                                                          {QStringLiteral("openWorldHint"), false}}}});
    return out;
}

/// One request a worker handles: the message, and its cancellation flag.
struct Pending {
    QJsonObject message;
    std::shared_ptr<std::atomic<bool>> cancelled;
};

class McpServer
{
public:
    McpServer(QStringList allowed, QString exportDir) : m_allowed(std::move(allowed)), m_exportDir(std::move(exportDir)) {}

    int run()
    {
        std::thread worker([this] { work(); });
        std::string line;
        while (std::getline(std::cin, line)) {
            if (line.empty() || line == "\r")
                continue;
            handleLine(QByteArray::fromStdString(line));
        }
        // The client went away: stop what runs, answer nothing more.
        {
            std::lock_guard lock(m_queueMutex);
            m_closing = true;
            for (auto &[id, flag] : m_cancelFlags)
                flag->store(true);
        }
        m_queueReady.notify_all();
        worker.join();
        return 0;
    }

private:
    void send(const QJsonObject &message)
    {
        const QByteArray bytes = QJsonDocument(message).toJson(QJsonDocument::Compact) + '\n';
        std::lock_guard lock(m_outMutex);
        std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
        std::fflush(stdout);
    }
    void sendError(const QJsonValue &id, int code, const QString &message)
    {
        send({{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
              {QStringLiteral("id"), id},
              {QStringLiteral("error"), QJsonObject{{QStringLiteral("code"), code}, {QStringLiteral("message"), message}}}});
    }
    void sendResult(const QJsonValue &id, const QJsonObject &result)
    {
        send({{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("id"), id}, {QStringLiteral("result"), result}});
    }

    static QString idKey(const QJsonValue &id)
    {
        return id.isString() ? QStringLiteral("s:") + id.toString() : QStringLiteral("n:") + QString::number(id.toDouble(), 'g', 17);
    }

    void handleLine(const QByteArray &line)
    {
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(line, &parseError);
        if (parseError.error != QJsonParseError::NoError) {
            sendError(QJsonValue::Null, ParseError, QStringLiteral("parse error: %1 at byte %2").arg(parseError.errorString()).arg(parseError.offset));
            return;
        }
        if (!doc.isObject()) {
            sendError(QJsonValue::Null, InvalidRequest, QStringLiteral("a JSON-RPC message is an object (batches are not part of this protocol revision)"));
            return;
        }
        const QJsonObject message = doc.object();
        const QJsonValue id = message[QLatin1String("id")];
        const bool hasId = message.contains(QLatin1String("id"));
        const QString method = message[QLatin1String("method")].toString();
        if (message[QLatin1String("jsonrpc")].toString() != QLatin1String("2.0") ||
            (hasId && !id.isString() && !id.isDouble())) {
            if (hasId || !message.contains(QLatin1String("method")))
                sendError(hasId && (id.isString() || id.isDouble()) ? id : QJsonValue(QJsonValue::Null), InvalidRequest,
                          QStringLiteral("not a JSON-RPC 2.0 request (\"jsonrpc\": \"2.0\", a string or number id, a method)"));
            return;
        }
        if (!message.contains(QLatin1String("method")))
            return;  // a response to nothing we asked: ignored
        if (!hasId) {
            // Notifications: a cancellation stops a running or queued call; others need nothing.
            if (method == QLatin1String("notifications/cancelled")) {
                const QJsonValue target = message[QLatin1String("params")][QLatin1String("requestId")];
                std::lock_guard lock(m_queueMutex);
                if (auto it = m_cancelFlags.find(idKey(target)); it != m_cancelFlags.end())
                    it->second->store(true);
            }
            return;
        }
        if (method == QLatin1String("initialize")) {
            const QString asked = message[QLatin1String("params")][QLatin1String("protocolVersion")].toString();
            sendResult(id, {{QStringLiteral("protocolVersion"), kProtocolVersions.contains(asked) ? asked : kProtocolVersions.front()},
                            {QStringLiteral("capabilities"), QJsonObject{{QStringLiteral("tools"), QJsonObject{{QStringLiteral("listChanged"), false}}}}},
                            {QStringLiteral("serverInfo"), QJsonObject{{QStringLiteral("name"), QStringLiteral("goblin-workbench")},
                                                                       {QStringLiteral("title"), QStringLiteral("Goblin Workbench")},
                                                                       {QStringLiteral("version"), QCoreApplication::applicationVersion()}}},
                            {QStringLiteral("instructions"),
                             QStringLiteral("Read-only access to GPU training-run profiles: open_run a folder under the allowed "
                                            "folders, then budget, steps, ops, kernels, timeline, advice, compare, sweep. Every "
                                            "number carries a state (measured, estimated, unknown) and a source: act on measured "
                                            "numbers, treat estimated ones as hints.")}});
            return;
        }
        if (method == QLatin1String("ping")) {
            sendResult(id, {});
            return;
        }
        if (method == QLatin1String("tools/list")) {
            sendResult(id, {{QStringLiteral("tools"), toolList(!m_exportDir.isEmpty())}});
            return;
        }
        if (method != QLatin1String("tools/call")) {
            sendError(id, MethodNotFound, QStringLiteral("method not found: %1").arg(method));
            return;
        }
        // Tool calls run on the worker, so a cancellation can arrive while a run loads.
        auto flag = std::make_shared<std::atomic<bool>>(false);
        {
            std::lock_guard lock(m_queueMutex);
            m_cancelFlags[idKey(id)] = flag;
            m_queue.push_back({message, flag});
        }
        m_queueReady.notify_one();
    }

    void work()
    {
        for (;;) {
            Pending next;
            {
                std::unique_lock lock(m_queueMutex);
                m_queueReady.wait(lock, [this] { return m_closing || !m_queue.empty(); });
                if (m_closing)
                    return;
                next = std::move(m_queue.front());
                m_queue.pop_front();
            }
            const QJsonValue id = next.message[QLatin1String("id")];
            if (!next.cancelled->load())  // a cancelled request gets no answer
                callTool(id, next.message[QLatin1String("params")].toObject(), *next.cancelled);
            std::lock_guard lock(m_queueMutex);
            m_cancelFlags.erase(idKey(id));
        }
    }

    void callTool(const QJsonValue &id, const QJsonObject &params, std::atomic<bool> &cancelled)
    {
        const QString name = params[QLatin1String("name")].toString();
        const QJsonValue arguments = params[QLatin1String("arguments")];
        if (!arguments.isUndefined() && !arguments.isObject()) {
            sendError(id, InvalidParams, QStringLiteral("arguments must be an object"));
            return;
        }
        m_progressToken = params[QLatin1String("_meta")][QLatin1String("progressToken")];
        try {
            const QJsonObject result = dispatch(name, arguments.toObject(), cancelled);
            if (cancelled.load())
                return;
            QByteArray text = QJsonDocument(result).toJson(QJsonDocument::Compact);
            if (text.size() > kMaxAnswerBytes)
                throw ToolError{QStringLiteral("the answer would be %1 KB, over the %2 KB cap: ask for a smaller page (limit)")
                                    .arg(text.size() / 1024)
                                    .arg(kMaxAnswerBytes / 1024)};
            sendResult(id, {{QStringLiteral("content"), QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("text")},
                                                                              {QStringLiteral("text"), QString::fromUtf8(text)}}}},
                            {QStringLiteral("structuredContent"), result},
                            {QStringLiteral("isError"), false}});
        } catch (const ParamsError &e) {
            sendError(id, InvalidParams, e.message);
        } catch (const ToolError &e) {
            if (cancelled.load())
                return;
            sendResult(id, {{QStringLiteral("content"), QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("text")},
                                                                              {QStringLiteral("text"), redactSecrets(e.message)}}}},
                            {QStringLiteral("isError"), true}});
        }
    }

    // --- arguments ---------------------------------------------------------------------------

    static QString stringArg(const QJsonObject &args, const char *key, bool required = true)
    {
        const QJsonValue v = args[QLatin1String(key)];
        if (v.isUndefined() || v.isNull()) {
            if (required)
                throw ParamsError{QStringLiteral("missing argument '%1'").arg(QLatin1String(key))};
            return {};
        }
        if (!v.isString())
            throw ParamsError{QStringLiteral("argument '%1' must be a string").arg(QLatin1String(key))};
        return v.toString();
    }
    static std::optional<double> numberArg(const QJsonObject &args, const char *key)
    {
        const QJsonValue v = args[QLatin1String(key)];
        if (v.isUndefined() || v.isNull())
            return std::nullopt;
        if (!v.isDouble() || !std::isfinite(v.toDouble()))
            throw ParamsError{QStringLiteral("argument '%1' must be a number").arg(QLatin1String(key))};
        return v.toDouble();
    }
    static std::optional<int> integerArg(const QJsonObject &args, const char *key, int minimum)
    {
        const auto v = numberArg(args, key);
        if (!v)
            return std::nullopt;
        if (*v != std::floor(*v) || *v < minimum || *v > 1e9)
            throw ParamsError{QStringLiteral("argument '%1' must be a whole number from %2").arg(QLatin1String(key)).arg(minimum)};
        return int(*v);
    }
    static void thresholdsArg(const QJsonObject &args, HeuristicsProfile *profile, Thresholds *thresholds)
    {
        *profile = HeuristicsProfile::Workbench;
        if (const QString p = stringArg(args, "profile", false); !p.isEmpty()) {
            const auto choice = profileFromName(p);
            if (!choice)
                throw ParamsError{QStringLiteral("profile must be workbench or reference, not '%1'").arg(p)};
            *profile = *choice;
        }
        if (const QString p = stringArg(args, "precision", false); !p.isEmpty()) {
            const auto choice = precisionFromName(p);
            if (!choice)
                throw ParamsError{QStringLiteral("precision must be none, fp32, fp16, bf16 or fp8, not '%1'").arg(p)};
            thresholds->precision = *choice;
        }
        if (const auto steps = integerArg(args, "steps", 1))
            thresholds->steps = *steps;
        for (const ThresholdDescriptor &d : thresholdDescriptors())
            if (const auto v = numberArg(args, d.jsonKey)) {
                if (!d.contains(*v))
                    throw ParamsError{QStringLiteral("%1 must be from %2 to %3").arg(QLatin1String(d.jsonKey)).arg(d.minimum).arg(d.maximum)};
                thresholds->*(d.member) = *v;
            }
    }

    /// The canonical path of `path` when it lies under an allowed folder (links resolved), else a ToolError.
    QString confined(const QString &path) const
    {
        const QString canonical = QFileInfo(path).canonicalFilePath();
        if (canonical.isEmpty())
            throw ToolError{QStringLiteral("%1 does not exist").arg(path)};
        for (const QString &allowed : m_allowed)
            if (canonical == allowed || canonical.startsWith(allowed + QLatin1Char('/')))
                return canonical;
        throw ToolError{QStringLiteral("%1 is outside the folders this server may read (--allow)").arg(path)};
    }

    // --- runs ---------------------------------------------------------------------------------

    struct Loaded {
        QString id;
        QString path;
        std::shared_ptr<const RunAnalysis> run;
    };

    Loaded runArg(const QJsonObject &args, const char *key, std::atomic<bool> &cancelled)
    {
        const QString given = stringArg(args, key);
        QString path;
        for (const Loaded &l : m_runs)
            if (l.id == given)
                path = l.path;
        if (path.isEmpty())
            path = confined(given);
        for (auto it = m_runs.begin(); it != m_runs.end(); ++it)
            if (it->path == path) {
                Loaded hit = *it;
                m_runs.erase(it);
                m_runs.push_back(hit);  // most recently used last
                return hit;
            }
        int lastPercent = -1;
        const LoadResult loaded = loadRun(path, [&](double fraction, const QString &stage) {
            const int percent = std::isfinite(fraction) ? int(std::clamp(fraction, 0.0, 1.0) * 100.0) : 0;
            if (!m_progressToken.isUndefined() && !m_progressToken.isNull() && percent >= lastPercent + 5) {
                lastPercent = percent;
                send({{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                      {QStringLiteral("method"), QStringLiteral("notifications/progress")},
                      {QStringLiteral("params"), QJsonObject{{QStringLiteral("progressToken"), m_progressToken},
                                                             {QStringLiteral("progress"), percent},
                                                             {QStringLiteral("total"), 100},
                                                             {QStringLiteral("message"), stage}}}});
            }
            return !cancelled.load();
        });
        if (cancelled.load())
            throw ToolError{QStringLiteral("cancelled")};
        if (loaded.outcome != LoadOutcome::Finished || !loaded.run)
            throw ToolError{QStringLiteral("cannot read %1").arg(loaded.error.isEmpty() ? path : loaded.error)};
        Loaded l{QStringLiteral("run-%1").arg(++m_runCounter), path, loaded.run};
        m_runs.push_back(l);
        while (int(m_runs.size()) > kCachedRuns)
            m_runs.erase(m_runs.begin());
        return l;
    }

    static QJsonObject page(const std::vector<QJsonObject> &rows, const QJsonObject &args, const char *listKey)
    {
        const int limit = std::min(integerArg(args, "limit", 1).value_or(kDefaultPage), kMaxPage);
        qsizetype offset = 0;
        if (const QString cursor = stringArg(args, "cursor", false); !cursor.isEmpty()) {
            bool ok = false;
            offset = cursor.toLongLong(&ok);
            if (!ok || offset < 0 || offset > qsizetype(rows.size()))
                throw ParamsError{QStringLiteral("cursor '%1' is not one this server gave").arg(cursor)};
        }
        QJsonArray out;
        for (qsizetype i = offset; i < qsizetype(rows.size()) && i < offset + limit; ++i)
            out.append(rows[size_t(i)]);
        QJsonObject result{{QLatin1String(listKey), out}, {QStringLiteral("total"), double(rows.size())},
                           {QStringLiteral("offset"), double(offset)}};
        if (offset + limit < qsizetype(rows.size()))
            result[QStringLiteral("nextCursor")] = QString::number(offset + limit);
        return result;
    }

    static std::vector<QJsonObject> sortedFiltered(const QJsonArray &rows, const QString &sortBy, const QString &filter)
    {
        std::vector<QJsonObject> out;
        for (const QJsonValue &r : rows)
            if (filter.isEmpty() || r[QLatin1String("name")].toString().contains(filter, Qt::CaseInsensitive))
                out.push_back(r.toObject());
        const bool byName = sortBy == QLatin1String("name");
        std::stable_sort(out.begin(), out.end(), [&](const QJsonObject &a, const QJsonObject &b) {
            return byName ? a[QLatin1String("name")].toString() < b[QLatin1String("name")].toString()
                          : a[sortBy].toDouble() > b[sortBy].toDouble();
        });
        return out;
    }

    // --- tools --------------------------------------------------------------------------------

    QJsonObject dispatch(const QString &name, const QJsonObject &args, std::atomic<bool> &cancelled)
    {
        if (name == QLatin1String("open_run")) {
            const Loaded l = runArg(args, "path", cancelled);
            const QJsonObject report = buildReport(*l.run, HeuristicsProfile::Workbench, Thresholds{});
            return {{QStringLiteral("run_id"), l.id},
                    {QStringLiteral("path"), redactSecrets(l.path)},
                    {QStringLiteral("name"), report[QLatin1String("run")][QLatin1String("name")]},
                    {QStringLiteral("facts"), report[QLatin1String("facts")]},
                    {QStringLiteral("job"), report[QLatin1String("job")]},
                    {QStringLiteral("run_kind"), report[QLatin1String("run_kind")]},
                    {QStringLiteral("run_kind_reason"), report[QLatin1String("run_kind_reason")]},
                    {QStringLiteral("step_plan"), report[QLatin1String("step_plan")]},
                    {QStringLiteral("quantities"), report[QLatin1String("quantities")]},
                    {QStringLiteral("separate_runs"), report[QLatin1String("separate_runs")]},
                    {QStringLiteral("diagnostics_count"), double(report[QLatin1String("diagnostics")].toArray().size())}};
        }
        if (name == QLatin1String("budget") || name == QLatin1String("advice") || name == QLatin1String("steps")) {
            HeuristicsProfile profile;
            Thresholds thresholds;
            thresholdsArg(args, &profile, &thresholds);
            const Loaded l = runArg(args, "run", cancelled);
            const QJsonObject report = buildReport(*l.run, deriveResults(*l.run, profile, thresholds));
            if (name == QLatin1String("budget"))
                return {{QStringLiteral("run_id"), l.id}, {QStringLiteral("profile"), report[QLatin1String("profile")]},
                        {QStringLiteral("thresholds"), report[QLatin1String("thresholds")]},
                        {QStringLiteral("budget"), report[QLatin1String("budget")]},
                        {QStringLiteral("quantities"), report[QLatin1String("quantities")]}};
            if (name == QLatin1String("advice"))
                return {{QStringLiteral("run_id"), l.id}, {QStringLiteral("advice"), report[QLatin1String("advice")]},
                        {QStringLiteral("verdict"), report[QLatin1String("budget")][QLatin1String("verdict")]}};
            std::vector<QJsonObject> steps;
            for (const QJsonValue &s : report[QLatin1String("per_step")].toArray())
                steps.push_back(s.toObject());
            QJsonObject out = page(steps, args, "steps");
            out[QStringLiteral("run_id")] = l.id;
            out[QStringLiteral("step_plan")] = report[QLatin1String("step_plan")];
            out[QStringLiteral("source")] = report[QLatin1String("per_step_source")];
            return out;
        }
        if (name == QLatin1String("ops")) {
            const QString sortBy = stringArg(args, "sort_by", false);
            static const QStringList sorts{QStringLiteral("device_self_s"), QStringLiteral("device_total_s"),
                                           QStringLiteral("host_self_s"), QStringLiteral("calls"), QStringLiteral("name")};
            if (!sortBy.isEmpty() && !sorts.contains(sortBy))
                throw ParamsError{QStringLiteral("sort_by must be one of %1").arg(sorts.join(QStringLiteral(", ")))};
            const Loaded l = runArg(args, "run", cancelled);
            const QJsonObject report = buildReport(*l.run, HeuristicsProfile::Workbench, Thresholds{});
            QJsonObject out = page(sortedFiltered(report[QLatin1String("ops")].toArray(),
                                                  sortBy.isEmpty() ? sorts.front() : sortBy, stringArg(args, "filter", false)),
                                   args, "ops");
            out[QStringLiteral("run_id")] = l.id;
            out[QStringLiteral("state")] = QStringLiteral("measured");
            out[QStringLiteral("source")] = QStringLiteral("the chrome trace's CPU ops and the GPU events they launched "
                                                           "(correlation), whole profile");
            return out;
        }
        if (name == QLatin1String("kernels")) {
            const QString sortBy = stringArg(args, "sort_by", false);
            static const QStringList sorts{QStringLiteral("total_s"), QStringLiteral("calls"), QStringLiteral("mean_s"), QStringLiteral("name")};
            if (!sortBy.isEmpty() && !sorts.contains(sortBy))
                throw ParamsError{QStringLiteral("sort_by must be one of %1").arg(sorts.join(QStringLiteral(", ")))};
            const Loaded l = runArg(args, "run", cancelled);
            const KernelReading &reading = l.run->kernels.workbench;
            QJsonArray rows;
            for (std::size_t i = 0; i < reading.perName.size() && i < l.run->kernels.names.size(); ++i) {
                const KernelNameStats &k = reading.perName[i];
                if (k.calls == 0)
                    continue;
                rows.append(QJsonObject{{QStringLiteral("name"), redactSecrets(QString::fromStdString(l.run->kernels.names[i]))},
                                        {QStringLiteral("calls"), double(k.calls)},
                                        {QStringLiteral("total_s"), double(k.totalNs) * 1e-9},
                                        {QStringLiteral("mean_s"), double(k.totalNs) * 1e-9 / double(k.calls)},
                                        {QStringLiteral("min_s"), double(k.minNs) * 1e-9},
                                        {QStringLiteral("max_s"), double(k.maxNs) * 1e-9}});
            }
            QJsonObject out = page(sortedFiltered(rows, sortBy.isEmpty() ? sorts.front() : sortBy, stringArg(args, "filter", false)),
                                   args, "kernels");
            out[QStringLiteral("run_id")] = l.id;
            out[QStringLiteral("state")] = QStringLiteral("measured");
            out[QStringLiteral("source")] = QStringLiteral("the kernel trace's rows (or the chrome trace's GPU kernels), by name");
            return out;
        }
        if (name == QLatin1String("timeline")) {
            const int step = integerArg(args, "step", 0).value_or(-1);
            if (step < 0)
                throw ParamsError{QStringLiteral("missing argument 'step'")};
            const Loaded l = runArg(args, "run", cancelled);
            const QJsonObject report = buildReport(*l.run, HeuristicsProfile::Workbench, Thresholds{});
            QJsonArray devices;
            for (const QJsonValue &d : report[QLatin1String("timeline")][QLatin1String("devices")].toArray()) {
                const QJsonArray perStep = d[QLatin1String("per_step")].toArray();
                if (step >= perStep.size())
                    continue;
                devices.append(QJsonObject{{QStringLiteral("file"), d[QLatin1String("file")]},
                                           {QStringLiteral("device"), d[QLatin1String("device")]},
                                           {QStringLiteral("rank"), d[QLatin1String("rank")]},
                                           {QStringLiteral("steps_source"), d[QLatin1String("steps_source")]},
                                           {QStringLiteral("step"), perStep.at(step)}});
            }
            if (devices.isEmpty())
                throw ToolError{QStringLiteral("no device of this run has a step %1 on its GPU timeline").arg(step)};
            return {{QStringLiteral("run_id"), l.id}, {QStringLiteral("step"), step}, {QStringLiteral("devices"), devices},
                    {QStringLiteral("state"), QStringLiteral("measured")},
                    {QStringLiteral("source"), QStringLiteral("the GPU timeline of each device inside the step window")}};
        }
        if (name == QLatin1String("compare")) {
            HeuristicsProfile profile;
            Thresholds thresholds;
            thresholdsArg(args, &profile, &thresholds);
            std::vector<FailIfRule> rules;
            const QJsonValue failIf = args[QLatin1String("fail_if")];
            if (!failIf.isUndefined() && !failIf.isArray())
                throw ParamsError{QStringLiteral("fail_if must be an array of rules such as \"data_wait>+10%\"")};
            for (const QJsonValue &r : failIf.toArray()) {
                QString problem;
                const auto rule = parseFailIfRule(r.toString(), &problem);
                if (!rule)
                    throw ParamsError{problem};
                rules.push_back(*rule);
            }
            const Loaded a = runArg(args, "baseline", cancelled);
            const Loaded b = runArg(args, "other", cancelled);
            const QJsonObject compare = compareRuns({a.run.get(), b.run.get()}, profile, thresholds, 0, {});
            QJsonObject out{{QStringLiteral("baseline"), a.id}, {QStringLiteral("other"), b.id},
                            {QStringLiteral("delta"), compare[QLatin1String("delta")]}};
            if (!rules.empty()) {
                const QJsonArray reports = compare[QLatin1String("runs")].toArray();
                out[QStringLiteral("gate")] = judgeRegression(reports.at(0).toObject(), reports.at(1).toObject(), rules);
            }
            return out;
        }
        if (name == QLatin1String("sweep")) {
            HeuristicsProfile profile;
            Thresholds thresholds;
            thresholdsArg(args, &profile, &thresholds);
            const auto which = sweepThresholdFromName(stringArg(args, "threshold"));
            if (!which)
                throw ParamsError{QStringLiteral("threshold must be gpu-util-below, host-busy-above or hbm-target")};
            const auto from = numberArg(args, "from"), to = numberArg(args, "to"), by = numberArg(args, "by");
            if (!from || !to || !by)
                throw ParamsError{QStringLiteral("sweep needs from, to and by")};
            const std::vector<double> values = sweepValues(*from, *to, *by, 1000);
            if (values.empty())
                throw ParamsError{QStringLiteral("from, to and by give no values (by > 0, to >= from, at most 1000 points)")};
            const Loaded l = runArg(args, "run", cancelled);
            QJsonObject out = sweepJson(*which, sweepCurve(*l.run, profile, thresholds, *which, values), {});
            out[QStringLiteral("run_id")] = l.id;
            return out;
        }
        if (name == QLatin1String("export_trace") && !m_exportDir.isEmpty()) {
            const Loaded l = runArg(args, "run", cancelled);
            ChromeTraceOptions options;
            options.step = integerArg(args, "step", 0);
            const QString path = QDir(m_exportDir).filePath(chromeTraceFileName(*l.run, options.step));
            QString error;
            ChromeTraceExport written;
            if (!writeChromeTrace(*l.run, options, path, &error, &written))
                throw ToolError{error};
            return {{QStringLiteral("run_id"), l.id}, {QStringLiteral("path"), path},
                    {QStringLiteral("events"), written.sliceCount}, {QStringLiteral("gpu_events"), written.gpuEventCount}};
        }
        throw ParamsError{QStringLiteral("unknown tool '%1'").arg(name)};
    }

    QStringList m_allowed;
    QString m_exportDir;
    std::mutex m_outMutex;
    std::mutex m_queueMutex;
    std::condition_variable m_queueReady;
    std::deque<Pending> m_queue;
    std::map<QString, std::shared_ptr<std::atomic<bool>>> m_cancelFlags;
    bool m_closing = false;
    // Worker-thread state.
    std::vector<Loaded> m_runs;
    int m_runCounter = 0;
    QJsonValue m_progressToken;
};

} // namespace

int runMcpCommand(const QStringList &arguments)
{
    const QString name = QStringLiteral("mcp");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "A Model Context Protocol server on standard input and output (JSON-RPC 2.0, one message per line): "
        "read-only tools over the runs under the allowed folders (open_run, budget, steps, ops, kernels, timeline, "
        "advice, compare, sweep, export_trace). Every number carries its state and source. See docs/mcp.md."));
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("allow"),
         QStringLiteral("A folder whose runs the server may read (repeatable); any other path is refused, after "
                        "resolving links."),
         QStringLiteral("DIR")},
        {QStringLiteral("export-dir"),
         QStringLiteral("The folder export_trace writes into (without it the tool is not offered)."), QStringLiteral("DIR")},
    });
    if (!parser.parse(QStringList{QStringLiteral("goblin-workbench mcp")} + arguments))
        return commandUsageError(name, parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << helpTextNamed(parser, QStringLiteral("goblin-workbench mcp"));
        return CommandOk;
    }
    if (!parser.positionalArguments().isEmpty())
        return commandUsageError(name, QStringLiteral("takes no RUN_DIR: runs are opened with the open_run tool"));
    QStringList allowed;
    for (const QString &dir : parser.values(QStringLiteral("allow"))) {
        const QString canonical = QFileInfo(dir).canonicalFilePath();
        if (canonical.isEmpty() || !QFileInfo(canonical).isDir())
            return commandUsageError(name, QStringLiteral("--allow '%1' is not a folder").arg(dir));
        allowed << canonical;
    }
    if (allowed.isEmpty())
        return commandUsageError(name, QStringLiteral("needs at least one --allow DIR (the folders the server may read)"));
    QString exportDir;
    if (parser.isSet(QStringLiteral("export-dir"))) {
        exportDir = QFileInfo(parser.value(QStringLiteral("export-dir"))).canonicalFilePath();
        if (exportDir.isEmpty() || !QFileInfo(exportDir).isDir())
            return commandUsageError(name, QStringLiteral("--export-dir '%1' is not a folder").arg(parser.value(QStringLiteral("export-dir"))));
    }
    McpServer server(allowed, exportDir);
    return server.run();
}

} // namespace goblin
