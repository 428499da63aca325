// The collective calls of a Kineto trace (tracecollectives.h). This runs on every event of
// multi-GB traces: an event is rejected on the first byte of its category and name; only
// collective records are kept whole (a few hundred per trace), and a runtime call costs 16 bytes.
#include "workbench/collectivesconsumer.h"

#include "kineto/gpuevents.h"
#include "results/tracecollectives.h"
#include "syntax/jsonskip.h"
#include "syntax/jsontoken.h"
#include "torchtraceparser.h"
#include "workbench/tracetraitsconsumer.h"

#include <QJsonDocument>
#include <QJsonObject>

#include "syntax/shallowmembers.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace goblin::workbench {

using kineto::KinetoEvent;
using syntax::skipJsonNested;
using syntax::skipJsonString;
using syntax::startsWith;
using syntax::trimJson;

namespace {

bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/// An integer token ("2873320", "2.87e6", or a string holding one); nullopt for anything else.
std::optional<qint64> integerToken(std::string_view t)
{
    if (t.size() >= 2 && t.front() == '"' && t.back() == '"')
        t = t.substr(1, t.size() - 2);
    qint64 value = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), value);
    if (!t.empty() && r.ec == std::errc() && r.ptr == t.data() + t.size())
        return value;
    double d = 0.0;
    const auto rd = std::from_chars(t.data(), t.data() + t.size(), d);
    if (!t.empty() && rd.ec == std::errc() && rd.ptr == t.data() + t.size() && std::isfinite(d) && std::fabs(d) < 9e18 &&
        d == std::floor(d))
        return qint64(d);
    return std::nullopt;
}

/// The summed elements of a list of shapes ("[[2873320]]", "[[4, 8], [16]]"); nullopt when it is
/// no list of integer lists or holds no tensor. A scalar's `[]` counts nothing.
std::optional<qint64> elementsOfDims(std::string_view dims)
{
    const char *p = dims.data();
    const char *const end = p + dims.size();
    if (p == end || *p != '[')
        return std::nullopt;
    ++p;
    qint64 total = 0;
    bool anyTensor = false;
    while (p < end) {
        while (p < end && (isSpace(*p) || *p == ','))
            ++p;
        if (p == end || *p == ']')
            break;
        if (*p != '[')
            return std::nullopt;  // a nested list of lists (TensorList) or a scalar: not a shape list
        ++p;
        qint64 product = 1;
        bool anyDim = false;
        while (p < end && *p != ']') {
            while (p < end && (isSpace(*p) || *p == ','))
                ++p;
            if (p == end || *p == ']')
                break;
            const char *b = p;
            while (p < end && *p != ',' && *p != ']' && !isSpace(*p))
                ++p;
            const std::optional<qint64> dim = integerToken(std::string_view(b, size_t(p - b)));
            if (!dim || *dim < 0)
                return std::nullopt;
            product = (product > 0 && *dim > std::numeric_limits<qint64>::max() / product) ? -1 : product * *dim;
            if (product < 0)
                return std::nullopt;
            anyDim = true;
        }
        if (p == end)
            return std::nullopt;
        ++p;  // ']'
        if (anyDim) {
            total += product;
            anyTensor = true;
        }
    }
    if (!anyTensor)
        return std::nullopt;
    return total;
}

std::string stringBody(std::string_view token)
{
    if (token.size() >= 2 && token.front() == '"' && token.back() == '"')
        return std::string(token.substr(1, token.size() - 2));
    return {};
}

/// The first string of a JSON list ("[\"float\", \"Scalar\"]" → "float"); empty when none.
std::string firstListString(std::string_view list)
{
    const char *p = list.data();
    const char *const end = p + list.size();
    if (p == end || *p != '[')
        return {};
    ++p;
    while (p < end && isSpace(*p))
        ++p;
    if (p == end || *p != '"')
        return {};
    const char *b = p + 1;
    p = skipJsonString(b, end);
    return std::string(b, size_t(p - 1 - b));
}

/// The collective a kernel's name says: "ncclKernel_AllReduce_RING_LL_Sum_float(…)" → "AllReduce",
/// "ncclDevKernel_Generic(…)" → "Generic"; an RCCL name without that shape → the name's prefix.
QString collectiveOfKernelName(std::string_view name)
{
    for (std::string_view prefix : {std::string_view("ncclDevKernel_"), std::string_view("ncclKernel_")}) {
        if (startsWith(name, prefix)) {
            std::string_view rest = name.substr(prefix.size());
            const size_t cut = rest.find_first_of("_(");
            return QString::fromUtf8(rest.data(), qsizetype(cut == std::string_view::npos ? rest.size() : cut));
        }
    }
    const size_t cut = name.find('(');
    return QString::fromUtf8(name.data(), qsizetype(cut == std::string_view::npos ? name.size() : cut));
}

QString qs(const std::string &s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

} // namespace

CollectiveArgs readCollectiveArgs(std::string_view args)
{
    CollectiveArgs out;
    // A later duplicate wins, as in a Python dict.
    syntax::forEachShallowMember(args, [&out](std::string_view key, std::string_view value) {
        if (key == "Collective name")
            out.collective = stringBody(value);
        else if (key == "dtype")
            out.dtype = stringBody(value);
        else if (key == "Process Group Name" || (key == "pg_name" && out.processGroup.empty()))
            out.processGroup = stringBody(value);
        else if (key == "Process Group Description")
            out.processGroupDescription = stringBody(value);
        else if (key == "In msg nelems")
            out.inElements = integerToken(value);
        else if (key == "Out msg nelems")
            out.outElements = integerToken(value);
        else if (key == "Group size")
            out.groupSize = integerToken(value);
        else if (key == "Seq")
            out.sequence = integerToken(value);
        else if (key == "Input Dims")
            out.inputDimsElements = elementsOfDims(value);
        else if (key == "Input type")
            out.firstInputType = firstListString(value);
    });
    return out;
}

bool isCollectiveKernelName(std::string_view name)
{
    return name.size() >= 4 && ((name[0] == 'n' && startsWith(name, "nccl")) || (name[0] == 'r' && startsWith(name, "rccl")));
}

// ------------------------------------------------------------------------------------------------

void CollectivesConsumer::onEvent(const KinetoEvent &event)
{
    if (event.phText.size() != 1 || event.phText[0] != 'X')
        return;
    const std::string_view cat = event.catText;
    if (cat.empty())
        return;
    const std::string_view name = event.nameText;
    switch (cat[0]) {
    case 'c':
        if (cat == "cpu_op") {
            if (!name.empty() && ((name[0] == 'r' && name == "record_param_comms") || (name[0] == 'n' && startsWith(name, "nccl:"))))
                onCpu(event, name[0] == 'r');
        } else if (cat == "cuda_runtime" || cat == "cuda_driver") {
            onRuntime(event);
        }
        return;
    case 'O':  // Kineto 2021
        if (cat == "Operator" && !name.empty() &&
            ((name[0] == 'r' && name == "record_param_comms") || (name[0] == 'n' && startsWith(name, "nccl:"))))
            onCpu(event, name[0] == 'r');
        return;
    case 'u':
        if (!name.empty() && name[0] == 'n' && cat == "user_annotation" && startsWith(name, "nccl:"))
            onCpu(event, false);
        return;
    case 'R':
        if (cat == "Runtime")
            onRuntime(event);
        return;
    case 'k':
    case 'K':
        if (isCollectiveKernelName(name) && (cat == "kernel" || cat == "Kernel"))
            onKernel(event);
        return;
    default:
        return;
    }
}

void CollectivesConsumer::onRuntime(const KinetoEvent &event)
{
    // Every kernel launch (cudaLaunchKernel, cuLaunchKernelEx, hipExtLaunchKernel …): the launch
    // of an NCCL kernel may come before or after the kernel in the document, and a byte range sees
    // neither the other ranges' kernels nor their collective ranges. The name test keeps the
    // memcpy, sync and event calls out; the correlation is the one the attribution decoded (memo).
    const std::string_view name = event.nameText;
    if (name.size() < 12 || name.find("Launch") == std::string_view::npos)
        return;
    const std::optional<qint64> beginNs = event.timesNs().tsNs;
    if (!beginNs)
        return;
    const ArgIds ids = eventArgIds(event, false);
    if (ids.correlation && *ids.correlation >= 0)
        m_runtime.push_back({*ids.correlation, *beginNs});
}

void CollectivesConsumer::onCpu(const KinetoEvent &event, bool paramComms)
{
    const std::optional<qint64> beginNs = event.timesNs().tsNs;
    const std::optional<qint64> durNs = event.timesNs().durNs;
    if (!beginNs || !durNs || *durNs < 0)
        return;  // the workbench's consumer reports unusable times
    CpuRecord record;
    const std::string_view pid =
        (event.fields.have & (1u << kineto::kPidKey)) ? trimJson(event.fields.token[kineto::kPidKey]) : std::string_view();
    const std::string_view tid =
        (event.fields.have & (1u << kineto::kTidKey)) ? trimJson(event.fields.token[kineto::kTidKey]) : std::string_view();
    record.thread.assign(pid);
    record.thread.push_back('\x1f');
    record.thread.append(tid);
    record.beginNs = *beginNs;
    record.endNs = *beginNs + *durNs;
    record.paramComms = paramComms;
    record.name.assign(event.nameText);
    if (event.fields.have & (1u << kineto::kArgsKey))
        record.args = readCollectiveArgs(trimJson(event.fields.token[kineto::kArgsKey]));
    m_cpu.push_back(std::move(record));
}

void CollectivesConsumer::onKernel(const KinetoEvent &event)
{
    const std::optional<qint64> beginNs = event.timesNs().tsNs;
    const std::optional<qint64> durNs = event.timesNs().durNs;
    if (!beginNs || !durNs || *durNs < 0)
        return;
    KernelRecord kernel{std::string(event.nameText), *beginNs, *durNs, -1, -1, {}};
    const ArgIds ids = eventArgIds(event, true);
    if (ids.correlation && *ids.correlation >= 0)
        kernel.correlation = *ids.correlation;
    if (event.fields.have & (1u << kineto::kArgsKey)) {
        const std::string_view args = trimJson(event.fields.token[kineto::kArgsKey]);
        kernel.args = readCollectiveArgs(args);
        // "device": the only other member read, searched in the kernel's (short) args.
        const size_t at = args.find("\"device\"");
        if (at != std::string_view::npos) {
            size_t v = at + 8;
            while (v < args.size() && (isSpace(args[v]) || args[v] == ':'))
                ++v;
            size_t e = v;
            while (e < args.size() && args[e] != ',' && args[e] != '}' && !isSpace(args[e]))
                ++e;
            if (const std::optional<qint64> device = integerToken(args.substr(v, e - v)))
                kernel.device = *device;
        }
    }
    m_kernels.push_back(std::move(kernel));
}

void CollectivesConsumer::absorb(kineto::EventConsumer &laterRange, int)
{
    auto &later = static_cast<CollectivesConsumer &>(laterRange);
    std::move(later.m_cpu.begin(), later.m_cpu.end(), std::back_inserter(m_cpu));
    std::move(later.m_kernels.begin(), later.m_kernels.end(), std::back_inserter(m_kernels));
    m_runtime.insert(m_runtime.end(), later.m_runtime.begin(), later.m_runtime.end());
    later.m_cpu.clear();
    later.m_kernels.clear();
    later.m_runtime = {};
}

namespace {

/// One call as the CPU side describes it: a record_param_comms op and/or an nccl: range inside
/// (or around) it on the same thread.
struct Site {
    std::string thread;
    qint64 beginNs = 0, endNs = 0;
    bool haveParamComms = false, haveAnnotation = false;
    CollectiveCall call;
};

void mergeInto(Site &site, const std::string &name, bool paramComms, const CollectiveArgs &args)
{
    CollectiveCall &c = site.call;
    if (paramComms) {
        site.haveParamComms = true;
        if (!args.collective.empty()) {
            c.source = CollectiveSource::ParamComms;
            c.collective = qs(args.collective);
            c.dtype = qs(args.dtype);
            c.inElements = args.inElements;
            c.outElements = args.outElements;
            c.groupSize = args.groupSize;
            c.sequence = args.sequence;
            c.processGroup = qs(args.processGroup);
            c.processGroupDescription = qs(args.processGroupDescription);
        }
        return;
    }
    site.haveAnnotation = true;
    if (c.source == CollectiveSource::ParamComms && !c.collective.isEmpty())
        return;  // the param-comms args say more
    c.source = CollectiveSource::Annotation;
    c.collective = qs(name.substr(5));  // after "nccl:"
    c.inElements = args.inputDimsElements;
    c.dtype = qs(args.firstInputType);
}

} // namespace

void CollectivesConsumer::finish(const kineto::KinetoDocument &document, TorchTrace &out)
{
    auto result = std::make_shared<TraceCollectives>();
    if (const kineto::Capture *info = document.lastCapture("distributedInfo")) {
        const QJsonObject o =
            QJsonDocument::fromJson(QByteArray(info->text.data(), qsizetype(info->text.size()))).object();
        if (o.value(QLatin1String("world_size")).isDouble())
            result->worldSize = qint64(o.value(QLatin1String("world_size")).toDouble());
        if (o.value(QLatin1String("rank")).isDouble())
            result->rank = qint64(o.value(QLatin1String("rank")).toDouble());
    }
    result->commKernels = qint64(m_kernels.size());
    if (m_cpu.empty() && m_kernels.empty()) {
        m_runtime = {};
        out.collectives = std::move(result);
        return;
    }

    // 1. The CPU side: records in begin order (the outer of two with one begin first), an nccl:
    // range merged with the record_param_comms it nests in (or around) on the same thread.
    std::stable_sort(m_cpu.begin(), m_cpu.end(), [](const CpuRecord &a, const CpuRecord &b) {
        return a.beginNs != b.beginNs ? a.beginNs < b.beginNs : a.endNs > b.endNs;
    });
    std::vector<Site> sites;
    for (const CpuRecord &r : m_cpu) {
        if (r.paramComms && r.args.collective == "wait") {
            ++result->waitRecords;  // the wait on a work handle: no transfer of its own
            continue;
        }
        Site *into = nullptr;
        for (size_t back = 0; back < std::min<size_t>(sites.size(), 16) && !into; ++back) {
            Site &s = sites[sites.size() - 1 - back];
            if (s.thread == r.thread && s.beginNs <= r.beginNs && r.endNs <= s.endNs &&
                (r.paramComms ? !s.haveParamComms : !s.haveAnnotation))
                into = &s;
        }
        if (!into) {
            sites.push_back({});
            into = &sites.back();
            into->thread = r.thread;
            into->beginNs = r.beginNs;
            into->endNs = r.endNs;
            into->call.haveCpu = true;
            into->call.cpuBeginNs = r.beginNs;
            into->call.cpuEndNs = r.endNs;
        }
        mergeInto(*into, r.name, r.paramComms, r.args);
    }

    // 2. Kernel → its runtime call's start, by correlation (kernels are few: a sorted index).
    std::vector<qint64> launchNs(m_kernels.size(), -1);
    {
        std::vector<std::pair<qint64, size_t>> byCorrelation;
        for (size_t k = 0; k < m_kernels.size(); ++k)
            if (m_kernels[k].correlation >= 0)
                byCorrelation.push_back({m_kernels[k].correlation, k});
        std::sort(byCorrelation.begin(), byCorrelation.end());
        if (!byCorrelation.empty())
            for (const RuntimeCall &call : m_runtime) {
                auto it = std::lower_bound(byCorrelation.begin(), byCorrelation.end(), std::make_pair(call.correlation, size_t(0)));
                for (; it != byCorrelation.end() && it->first == call.correlation; ++it)
                    if (launchNs[it->second] < 0)
                        launchNs[it->second] = call.beginNs;
            }
    }
    m_runtime = {};

    // 3. Kernel → the site around its launch (the latest-begun one that contains it), else a
    // call of its own.
    std::vector<size_t> kernelOrder(m_kernels.size());
    for (size_t k = 0; k < kernelOrder.size(); ++k)
        kernelOrder[k] = k;
    std::stable_sort(kernelOrder.begin(), kernelOrder.end(),
                     [&](size_t a, size_t b) { return m_kernels[a].beginNs < m_kernels[b].beginNs; });
    std::vector<CollectiveCall> orphans;
    for (size_t k : kernelOrder) {
        const KernelRecord &kernel = m_kernels[k];
        CollectiveCall *call = nullptr;
        if (launchNs[k] >= 0) {
            auto it = std::upper_bound(sites.begin(), sites.end(), launchNs[k],
                                       [](qint64 t, const Site &s) { return t < s.beginNs; });
            for (int back = 0; it != sites.begin() && back < 64 && !call; ++back) {
                --it;
                if (it->beginNs <= launchNs[k] && launchNs[k] <= it->endNs)
                    call = &it->call;
            }
            if (call)
                ++result->kernelsLinked;
        }
        if (!call) {
            orphans.push_back({});
            call = &orphans.back();
            if (!kernel.args.collective.empty()) {
                call->source = CollectiveSource::KernelArgs;
                call->collective = qs(kernel.args.collective);
                call->dtype = qs(kernel.args.dtype);
                call->inElements = kernel.args.inElements;
                call->outElements = kernel.args.outElements;
                call->groupSize = kernel.args.groupSize;
                call->sequence = kernel.args.sequence;
                call->processGroup = qs(kernel.args.processGroup);
                call->processGroupDescription = qs(kernel.args.processGroupDescription);
            } else {
                call->source = CollectiveSource::KernelName;
                call->collective = collectiveOfKernelName(kernel.name);
            }
        }
        if (call->kernels == 0) {
            call->kernelName = QString::fromStdString(kernel.name);
            call->kernelBeginNs = kernel.beginNs;
            call->device = int(kernel.device);
        }
        call->kernelBeginNs = std::min(call->kernelBeginNs, kernel.beginNs);
        call->kernelEndNs = std::max(call->kernelEndNs, kernel.beginNs + kernel.durationNs);
        call->kernelTimeNs += kernel.durationNs;
        ++call->kernels;
    }

    // 4. The calls: a site that says which collective (or launched a kernel that does), and every
    // kernel left over, in order of arrival.
    for (Site &site : sites) {
        CollectiveCall &c = site.call;
        if (c.collective.isEmpty() && c.kernels > 0)
            c.collective = collectiveOfKernelName(c.kernelName.toStdString());
        if (c.collective.isEmpty())
            continue;  // a record_param_comms without args and without a kernel: nothing known
        result->calls.push_back(std::move(c));
    }
    for (CollectiveCall &c : orphans)
        result->calls.push_back(std::move(c));
    std::stable_sort(result->calls.begin(), result->calls.end(), [](const CollectiveCall &a, const CollectiveCall &b) {
        return (a.haveCpu ? a.cpuBeginNs : a.kernelBeginNs) < (b.haveCpu ? b.cpuBeginNs : b.kernelBeginNs);
    });
    m_cpu = {};
    m_kernels = {};
    out.collectives = std::move(result);
}

} // namespace goblin::workbench
