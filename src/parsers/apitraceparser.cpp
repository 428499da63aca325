#include "apitraceparser.h"

#include "columnresolver.h"
#include "io/runinventory.h"
#include "kernels/hostlanesbuilder.h"
#include "syntax/csvreader.h"

#include <QFile>
#include <QHash>

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>

namespace goblin {

namespace {

constexpr int kMaxRowDiagnostics = 5;

std::optional<qint64> integerCell(std::string_view cell)
{
    while (!cell.empty() && cell.front() == ' ')
        cell.remove_prefix(1);
    while (!cell.empty() && cell.back() == ' ')
        cell.remove_suffix(1);
    qint64 value = 0;
    const auto r = std::from_chars(cell.data(), cell.data() + cell.size(), value);
    if (cell.empty() || r.ec != std::errc() || r.ptr != cell.data() + cell.size())
        return std::nullopt;
    return value;
}

bool startsWith(std::string_view text, std::string_view prefix)
{
    return text.size() >= prefix.size() && text.substr(0, prefix.size()) == prefix;
}

struct Columns {
    int domain = -1, function = -1, process = -1, thread = -1, correlation = -1, start = -1, end = -1;
    bool complete() const { return domain >= 0 && function >= 0 && start >= 0 && end >= 0; }
};

Columns columnsOf(const std::vector<std::string_view> &header)
{
    Columns c;
    for (std::size_t i = 0; i < header.size(); ++i) {
        QString name = QString::fromUtf8(header[i].data(), qsizetype(header[i].size())).trimmed().toLower();
        const int index = int(i);
        if (name == QLatin1String("domain"))
            c.domain = index;
        else if (name == QLatin1String("function"))
            c.function = index;
        else if (name == QLatin1String("process_id"))
            c.process = index;
        else if (name == QLatin1String("thread_id"))
            c.thread = index;
        else if (name == QLatin1String("correlation_id"))
            c.correlation = index;
        else if (name == QLatin1String("start_timestamp"))
            c.start = index;
        else if (name == QLatin1String("end_timestamp"))
            c.end = index;
    }
    return c;
}

std::vector<TimeInterval> unionOf(std::vector<TimeInterval> intervals)
{
    std::sort(intervals.begin(), intervals.end(),
              [](const TimeInterval &a, const TimeInterval &b) { return a.startNs < b.startNs; });
    std::vector<TimeInterval> out;
    for (const TimeInterval &i : intervals) {
        if (i.endNs <= i.startNs)
            continue;
        if (!out.empty() && i.startNs <= out.back().endNs)
            out.back().endNs = std::max(out.back().endNs, i.endNs);
        else
            out.push_back(i);
    }
    return out;
}

/// The steps among the step-named ranges: the thread with the most of them, by start, a range
/// nested in another ("train_step" inside "step 3") left out.
std::vector<StepWindow> chooseSteps(const std::map<std::pair<qint64, qint64>, std::vector<StepWindow>> &stepsByThread)
{
    const std::vector<StepWindow> *chosen = nullptr;
    for (const auto &entry : stepsByThread)
        if (!chosen || entry.second.size() > chosen->size())
            chosen = &entry.second;
    std::vector<StepWindow> out;
    if (!chosen)
        return out;
    std::vector<StepWindow> steps = *chosen;
    std::sort(steps.begin(), steps.end(), [](const StepWindow &a, const StepWindow &b) { return a.startNs < b.startNs; });
    for (const StepWindow &s : steps)
        if (out.empty() || s.startNs >= out.back().endNs)
            out.push_back(s);
    return out;
}

/// The step pattern, compiled; an invalid one gives an error diagnostic and no steps.
std::optional<QRegularExpression> stepRegex(ApiTraces &out, const QString &stepPattern)
{
    out.stepPattern = stepPattern.isEmpty() ? defaultStepRangePattern() : stepPattern;
    QRegularExpression pattern(QRegularExpression::anchoredPattern(out.stepPattern),
                               QRegularExpression::CaseInsensitiveOption);
    if (pattern.isValid())
        return pattern;
    out.diagnostics.push_back({Severity::Error, QString(), 0,
                               QStringLiteral("the step range pattern '%1' is not a valid regular expression: %2")
                                   .arg(out.stepPattern, pattern.errorString())});
    return std::nullopt;
}

} // namespace

QString defaultStepRangePattern()
{
    return QStringLiteral("ProfilerStep#\\d+|(train[_ ]?)?step([ _#:-]*\\d+)?|iter(ation)?([ _#:-]*\\d+)?");
}

ApiTraces parseApiTraces(const RunInventory &inventory, const QString &stepPattern, const ProgressCallback &progress,
                         kernels::HostLanesBuilder *hostLanes)
{
    ApiTraces out;
    const std::optional<QRegularExpression> compiled = stepRegex(out, stepPattern);
    if (!compiled)
        return out;
    const QRegularExpression &pattern = *compiled;
    // Step ranges per (process, thread): the steps are the thread with the most of them.
    std::map<std::pair<qint64, qint64>, std::vector<StepWindow>> stepsByThread;
    std::vector<TimeInterval> hipCalls, dataLoading;
    qint64 bytesBefore = 0;
    for (const InputRow *row : inventory.apiTraces()) {
        QFile file(inventory.filePath(*row));
        if (!file.open(QIODevice::ReadOnly)) {
            out.diagnostics.push_back({Severity::Warning, row->relativePath, 0,
                                       QStringLiteral("cannot be opened: %1").arg(file.errorString())});
            continue;
        }
        out.files << row->relativePath;
        CsvReader reader(&file);
        std::vector<std::string_view> fields;
        if (!reader.readRecord(fields)) {
            out.diagnostics.push_back({Severity::Warning, row->relativePath, 1, QStringLiteral("no header row")});
            continue;
        }
        const Columns c = columnsOf(fields);
        if (!c.complete()) {
            out.diagnostics.push_back(
                {Severity::Warning, row->relativePath, 1,
                 QStringLiteral("not an API trace: the header lacks Domain, Function, Start_Timestamp or "
                                "End_Timestamp")});
            continue;
        }
        {
            // columnsOf() keeps the last of a repeated name, as csv.DictReader does: said once.
            QStringList header;
            for (std::string_view f : fields)
                header << QString::fromUtf8(f.data(), qsizetype(f.size()));
            for (const RepeatedColumn &column : repeatedColumns(header))
                out.diagnostics.push_back(
                    {Severity::Warning, row->relativePath, 1, repeatedColumnMessage(column, 1)});
        }
        const int needed = std::max({c.domain, c.function, c.process, c.thread, c.start, c.end}) + 1;
        qint64 badRows = 0, lastReport = 0;
        if (hostLanes && (c.process < 0 || c.thread < 0))
            out.diagnostics.push_back({Severity::Info, row->relativePath, 1,
                                       QStringLiteral("the header has no %1 column: the Timeline's host lanes show "
                                                      "its calls and ranges as if all ran in %2 0")
                                           .arg(c.process < 0 ? QStringLiteral("Process_Id") : QStringLiteral("Thread_Id"),
                                                c.process < 0 ? QStringLiteral("process") : QStringLiteral("thread"))});
        if (hostLanes && c.correlation < 0)
            out.diagnostics.push_back({Severity::Info, row->relativePath, 1,
                                       QStringLiteral("the header has no Correlation_Id column: the Timeline cannot "
                                                      "join its calls to the kernels they launched")});
        while (reader.readRecord(fields)) {
            if (progress && reader.bytesConsumed() - lastReport >= kProgressStepBytes) {
                lastReport = reader.bytesConsumed();
                if (!progress(bytesBefore + lastReport)) {
                    out.cancelled = true;
                    return out;
                }
            }
            if (fields.size() == 1 && fields.front().empty())
                continue;  // a blank line
            const std::optional<qint64> start =
                int(fields.size()) >= needed ? integerCell(fields[std::size_t(c.start)]) : std::nullopt;
            const std::optional<qint64> end =
                int(fields.size()) >= needed ? integerCell(fields[std::size_t(c.end)]) : std::nullopt;
            if (!start || !end || *end < *start) {
                if (++badRows <= kMaxRowDiagnostics)
                    out.diagnostics.push_back(
                        {Severity::Warning, row->relativePath, reader.recordStartLine(),
                         int(fields.size()) < needed
                             ? QStringLiteral("row has %1 fields, the header %2: left out").arg(fields.size()).arg(needed)
                             : QStringLiteral("Start_Timestamp / End_Timestamp are not integer ns with end >= start: "
                                              "row left out")});
                continue;
            }
            const std::string_view domain = fields[std::size_t(c.domain)];
            const bool marker = startsWith(domain, "MARKER");
            if (!marker && !startsWith(domain, "HIP_"))
                continue;
            const std::string_view fn = fields[std::size_t(c.function)];
            const auto lane = [&] {
                const qint64 pid = c.process >= 0 ? integerCell(fields[std::size_t(c.process)]).value_or(0) : 0;
                const qint64 tid = c.thread >= 0 ? integerCell(fields[std::size_t(c.thread)]).value_or(0) : 0;
                return std::pair(pid, tid);
            };
            if (marker) {
                ++out.markerRanges;
                if (*end <= *start)
                    continue;  // roctxMarkA: an instant, no range
                const QString name = QString::fromUtf8(fn.data(), qsizetype(fn.size()));
                const bool step = pattern.match(name).hasMatch();
                if (!step && kernels::markerKind(fn) == HostSliceKind::DataLoading) {
                    ++out.dataLoadingRanges;
                    dataLoading.push_back({*start, *end});
                }
                const auto [pid, tid] = lane();
                if (hostLanes)
                    hostLanes->add(step ? HostSliceKind::Step : kernels::markerKind(fn), fn,
                                   hostLanes->threadOf(pid, tid), *start, *end);
                if (!step)
                    continue;
                ++out.stepRanges;
                stepsByThread[{pid, tid}].push_back({name, *start, *end, false, false});
            } else {
                ++out.hipCalls;
                hipCalls.push_back({*start, *end});
                if (hostLanes) {
                    const auto [pid, tid] = lane();
                    const std::uint16_t thread = hostLanes->threadOf(pid, tid);
                    const std::optional<qint64> correlation =
                        c.correlation >= 0 && c.correlation < int(fields.size())
                            ? integerCell(fields[std::size_t(c.correlation)])
                            : std::nullopt;
                    if (correlation)
                        hostLanes->addRuntime(fn, thread, *start, *end, *correlation);
                    else
                        hostLanes->add(HostSliceKind::Runtime, fn, thread, *start, *end);
                }
            }
        }
        if (badRows > kMaxRowDiagnostics)
            out.diagnostics.push_back({Severity::Warning, row->relativePath, 0,
                                       QStringLiteral("%1 rows in all left out for bad timestamps").arg(badRows)});
        bytesBefore += reader.bytesConsumed();
    }
    out.steps = chooseSteps(stepsByThread);
    out.hostApiBusy = unionOf(std::move(hipCalls));
    out.dataLoading = unionOf(std::move(dataLoading));
    if (progress)
        progress(bytesBefore);
    return out;
}

ApiTraces apiTracesFrom(const HostActivity &host, const QString &stepPattern)
{
    ApiTraces out;
    out.files = host.files;
    out.runtimeName = host.runtimeName;
    const std::optional<QRegularExpression> compiled = stepRegex(out, stepPattern);
    if (!compiled)
        return out;
    std::map<std::pair<qint64, qint64>, std::vector<StepWindow>> stepsByThread;
    std::vector<TimeInterval> dataLoading;
    for (const MarkerRange &r : host.ranges) {
        ++out.markerRanges;
        if (r.endNs <= r.startNs)
            continue;
        if (!compiled->match(r.name).hasMatch()) {
            if (r.name.contains(QLatin1String("DataLoader"))) {  // kernels::markerKind's rule
                ++out.dataLoadingRanges;
                dataLoading.push_back({r.startNs, r.endNs});
            }
            continue;
        }
        ++out.stepRanges;
        stepsByThread[{r.process, r.thread}].push_back({r.name, r.startNs, r.endNs, false, false});
    }
    out.steps = chooseSteps(stepsByThread);
    out.hipCalls = qint64(host.runtimeCalls.size());
    out.hostApiBusy = unionOf(host.runtimeCalls);
    out.dataLoading = unionOf(std::move(dataLoading));
    return out;
}

namespace {

/// [first start, last end] of a file's GPU events; false when it has none.
bool kernelSpan(const GpuTimelineFile &file, qint64 &firstNs, qint64 &lastNs)
{
    bool any = false;
    for (const GpuDeviceTimeline &d : file.devices)
        for (const GpuEvent &e : d.events) {
            firstNs = any ? std::min(firstNs, e.startNs) : e.startNs;
            lastNs = any ? std::max(lastNs, e.endNs) : e.endNs;
            any = true;
        }
    return any;
}

} // namespace

bool applyApiTraces(GpuTimeline &kernelTrace, const ApiTraces &api, Diagnostics &diagnostics)
{
    if (api.empty())
        return false;
    const QString files = api.files.join(QStringLiteral(", "));
    const QString first = api.files.front();
    if (api.steps.empty() && api.markerRanges > 0)
        diagnostics.push_back({Severity::Info, first, 0,
                               QStringLiteral("%1 marker range(s), none named like a step (pattern '%2'): no steps "
                                              "from markers")
                                   .arg(api.markerRanges)
                                   .arg(api.stepPattern)});
    bool given = false;
    for (GpuTimelineFile &file : kernelTrace.files) {
        qint64 firstNs = 0, lastNs = 0;
        if (!kernelSpan(file, firstNs, lastNs))
            continue;
        const auto overlaps = [&](qint64 s, qint64 e) { return s < lastNs && e > firstNs; };
        if (!api.steps.empty() && file.steps.empty()) {
            const bool inSpan = std::any_of(api.steps.begin(), api.steps.end(),
                                            [&](const StepWindow &w) { return overlaps(w.startNs, w.endNs); });
            if (inSpan) {
                file.steps = api.steps;
                given = true;
                diagnostics.push_back(
                    {Severity::Info, file.file, 0,
                     QStringLiteral("steps from the marker ranges of %1: %2 range(s) named like a step (pattern '%3'), "
                                    "%4 on the thread with most of them")
                         .arg(files)
                         .arg(api.stepRanges)
                         .arg(api.stepPattern)
                         .arg(api.steps.size())});
            } else {
                diagnostics.push_back({Severity::Warning, file.file, 0,
                                       QStringLiteral("the roctx step ranges of %1 lie outside this kernel trace's "
                                                      "span (another clock or another run): not used as its steps")
                                           .arg(files)});
            }
        }
        // Intervals the file lacks, given when some lie in its span (else another clock or run).
        const auto giveInSpan = [&](const std::vector<TimeInterval> &from, std::vector<TimeInterval> &to, const QString &what) {
            if (from.empty() || !to.empty()
                || !std::any_of(from.begin(), from.end(), [&](const TimeInterval &i) { return overlaps(i.startNs, i.endNs); }))
                return;
            to = from;
            given = true;
            diagnostics.push_back({Severity::Info, file.file, 0, what});
        };
        giveInSpan(api.dataLoading, file.dataLoading,
                   QStringLiteral("data loading from the marker ranges of %1 that name a DataLoader (%2 ranges): GPU idle "
                                  "inside them is data wait")
                       .arg(files)
                       .arg(api.dataLoadingRanges));
        giveInSpan(api.hostApiBusy, file.hostBusy,
                   QStringLiteral("host activity from the %3 calls of %1 (%2 calls): the host is busy while it runs a %3 "
                                  "runtime call")
                       .arg(files)
                       .arg(api.hipCalls)
                       .arg(api.runtimeName));
    }
    return given;
}

void attachHostLanes(GpuTimeline &kernelTrace, kernels::HostLanesBuilder &hostLanes, const QStringList &files,
                     Diagnostics &diagnostics)
{
    if (hostLanes.rangeCount() == 0 || files.isEmpty())
        return;
    const QString fileList = files.join(QStringLiteral(", "));
    for (GpuTimelineFile &file : kernelTrace.files) {
        qint64 firstNs = 0, lastNs = 0;
        if (!kernelSpan(file, firstNs, lastNs) || (file.hostLanes && !file.hostLanes->empty()))
            continue;  // no kernels, or lanes of its own (a database's)
        // A per-process kernel trace (<pid>_kernel_trace.csv) gets its process's threads.
        const qint64 pid = file.devices.empty() ? -1 : file.devices.front().pid;
        std::vector<bool> keep;
        if (pid >= 0 && kernelTrace.files.size() > 1) {
            keep.resize(hostLanes.threadCount());
            for (std::size_t t = 0; t < keep.size(); ++t)
                keep[t] = hostLanes.pidOf(std::uint16_t(t)) == pid;
            if (std::find(keep.begin(), keep.end(), true) == keep.end())
                continue;
        }
        auto lanes = std::make_shared<HostLanes>(hostLanes.build(keep));
        const bool inSpan = std::any_of(lanes->slices.begin(), lanes->slices.end(),
                                        [&](const HostSlice &h) { return h.startNs < lastNs && h.endNs > firstNs; });
        if (!inSpan) {
            diagnostics.push_back({Severity::Warning, file.file, 0,
                                   QStringLiteral("the host calls and ranges of %1 lie outside this kernel trace's "
                                                  "span (another clock or another run): no host lanes on the Timeline")
                                       .arg(fileList)});
            continue;
        }
        if (file.hostLanes)  // the kernels' correlation ids, as the kernel reader kept them
            lanes->gpuByPlace = file.hostLanes->gpuByPlace;
        kernels::hostLanesSummary(*lanes, hostLanes.threadOverflow(), file.file, fileList, diagnostics);
        file.hostLanes = std::move(lanes);
    }
}

void finishHostLanes(GpuTimeline &kernelTrace, const QString &stepPattern)
{
    std::optional<QRegularExpression> pattern;
    for (GpuTimelineFile &file : kernelTrace.files) {
        if (!file.hostLanes)
            continue;
        if (file.hostLanes->empty()) {
            file.hostLanes.reset();  // only the kernels' correlation ids: nothing to draw
            continue;
        }
        const HostLanes &lanes = *file.hostLanes;
        if (!std::any_of(lanes.slices.begin(), lanes.slices.end(),
                         [](const HostSlice &h) { return h.kind == HostSliceKind::Annotation; }))
            continue;
        if (!pattern) {
            pattern.emplace(QRegularExpression::anchoredPattern(stepPattern.isEmpty() ? defaultStepRangePattern()
                                                                                      : stepPattern),
                            QRegularExpression::CaseInsensitiveOption);
            if (!pattern->isValid())
                return;  // parseApiTraces / apiTracesFrom say so
        }
        // The pattern once per distinct name; the lanes were made by a reader of this load and
        // are not shared yet (use_count 1), so their kinds can still change in place.
        std::vector<bool> isStep(lanes.names.size());
        bool any = false;
        for (std::size_t i = 0; i < isStep.size(); ++i) {
            const bool step = pattern->match(QString::fromStdString(lanes.names[i])).hasMatch();
            isStep[i] = step;
            any = any || step;
        }
        if (!any)
            continue;
        std::shared_ptr<HostLanes> copy;
        if (file.hostLanes.use_count() != 1)
            copy = std::make_shared<HostLanes>(lanes);
        HostLanes &own = copy ? *copy : const_cast<HostLanes &>(lanes);
        for (HostSlice &h : own.slices)
            if (h.kind == HostSliceKind::Annotation && isStep[h.nameId])
                h.kind = HostSliceKind::Step;
        if (copy)
            file.hostLanes = std::move(copy);
    }
}

} // namespace goblin
