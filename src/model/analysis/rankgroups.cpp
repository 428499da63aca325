#include "rankgroups.h"

#include "runanalysis.h"

#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>
#include <limits>

namespace goblin {

namespace {

enum class PhaseKind { Unknown, Training, Inference };

/// Training when the trace shows backward or optimizer ops; inference when it shows CPU
/// operators but neither — and only when phases were counted at all (some trace of the set has
/// a phase count), since empty counts otherwise mean "not looked at", not "none".
PhaseKind phaseOf(const RankCandidate &t, bool phasesCounted)
{
    if (t.phases.backwardOps > 0 || t.phases.optimizerOps > 0)
        return PhaseKind::Training;
    if (phasesCounted && t.cpuActivity)
        return PhaseKind::Inference;
    return PhaseKind::Unknown;
}

/// The distinct device models a trace names, sorted: ranks on one node list the same devices,
/// ranks on other nodes of the same job the same models.
QStringList deviceModels(const RankCandidate &t)
{
    QStringList names;
    for (const QString &name : t.identity.deviceNames)
        if (!name.trimmed().isEmpty() && !names.contains(name.trimmed()))
            names << name.trimmed();
    names.sort();
    return names;
}

QString folderOf(const QString &file)
{
    const qsizetype slash = file.lastIndexOf(QLatin1Char('/'));
    return slash < 0 ? QString() : file.left(slash);
}

bool anchors(const RankCandidate &t)
{
    return t.file == QLatin1String("torch_profile.json") || t.file == QLatin1String("torch_profile.json.gz");
}

struct Grouper {
    const std::vector<RankCandidate> &traces;
    bool phasesCounted = false;

    /// Why `t` cannot be a rank of the job `m` is a rank of, or an empty string. Checked in the
    /// order that names the most telling difference first.
    QString conflict(const RankCandidate &t, const RankCandidate &m) const
    {
        const QStringList devT = deviceModels(t), devM = deviceModels(m);
        if (!devT.isEmpty() && !devM.isEmpty() && devT != devM)
            return QStringLiteral("GPU model %1 vs %2")
                .arg(devT.join(QStringLiteral(", ")), devM.join(QStringLiteral(", ")));
        const TraceIdentity &a = t.identity, &b = m.identity;
        if (a.worldSize && b.worldSize && *a.worldSize != *b.worldSize)
            return QStringLiteral("world size %1 vs %2").arg(*a.worldSize).arg(*b.worldSize);
        if (!a.processGroup.isEmpty() && !b.processGroup.isEmpty() && a.processGroup != b.processGroup)
            return QStringLiteral("process group %1 vs %2").arg(a.processGroup, b.processGroup);
        if (!a.backend.isEmpty() && !b.backend.isEmpty() && a.backend != b.backend)
            return QStringLiteral("backend %1 vs %2").arg(a.backend, b.backend);
        // The phase is read from the ops seen, the facts above from what the job wrote: they come first.
        const PhaseKind phaseT = phaseOf(t, phasesCounted), phaseM = phaseOf(m, phasesCounted);
        if (phaseT != PhaseKind::Unknown && phaseM != PhaseKind::Unknown && phaseT != phaseM)
            return phaseT == PhaseKind::Inference ? QStringLiteral("an inference trace beside training traces")
                                                  : QStringLiteral("a training trace beside inference traces");
        if (!t.rank)
            return QStringLiteral("no rank information (no distributedInfo, no rank in the file name)");
        if (!m.rank)
            return QStringLiteral("no rank information in %1, the run's trace").arg(m.file);
        if (*t.rank == *m.rank)
            return QStringLiteral("rank %1 again (%2 is rank %1)").arg(*t.rank).arg(m.file);
        return {};
    }

    QString conflictWithGroup(std::size_t i, const std::vector<std::size_t> &group) const
    {
        for (std::size_t j : group)
            if (j != i)
                if (QString why = conflict(traces[i], traces[j]); !why.isEmpty())
                    return why;
        return {};
    }
};

} // namespace

std::vector<RankCandidate> rankCandidates(const std::vector<GpuTimelineFile> &files)
{
    std::vector<RankCandidate> out;
    out.reserve(files.size());
    for (const GpuTimelineFile &f : files) {
        RankCandidate c;
        c.file = f.file;
        c.rank = f.traits.identity.rank ? f.traits.identity.rank : f.rank;
        c.identity = f.traits.identity;
        c.phases = f.traits.phases;
        c.cpuActivity = !f.hostBusy.empty();
        out.push_back(std::move(c));
    }
    return out;
}

RankGrouping groupRanks(const std::vector<RankCandidate> &traces)
{
    RankGrouping out;
    if (traces.empty())
        return out;
    Grouper g{traces};
    g.phasesCounted = std::any_of(traces.begin(), traces.end(), [](const RankCandidate &t) {
        return t.phases.backwardOps > 0 || t.phases.optimizerOps > 0 || t.phases.dataLoaderOps > 0
               || t.phases.forwardModules > 0;
    });

    // First fit, in input order: a trace joins the first group it agrees with entirely, groups
    // whose first trace lies in the same sub-folder tried first (two jobs copied into two
    // sub-folders must not interleave).
    std::vector<std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < traces.size(); ++i) {
        std::vector<std::size_t> order(groups.size());
        for (std::size_t k = 0; k < order.size(); ++k)
            order[k] = k;
        const QString folder = folderOf(traces[i].file);
        std::stable_partition(order.begin(), order.end(),
                              [&](std::size_t k) { return folderOf(traces[groups[k].front()].file) == folder; });
        bool placed = false;
        for (std::size_t k : order)
            if (g.conflictWithGroup(i, groups[k]).isEmpty()) {
                groups[k].push_back(i);
                placed = true;
                break;
            }
        if (!placed)
            groups.push_back({i});
    }

    // The run: the group holding torch_profile.json, else the largest, else the first.
    std::size_t runGroup = 0;
    const auto anchor = std::find_if(traces.begin(), traces.end(), anchors);
    if (anchor != traces.end()) {
        const std::size_t a = std::size_t(anchor - traces.begin());
        for (std::size_t k = 0; k < groups.size(); ++k)
            if (std::find(groups[k].begin(), groups[k].end(), a) != groups[k].end())
                runGroup = k;
    } else {
        for (std::size_t k = 1; k < groups.size(); ++k)
            if (groups[k].size() > groups[runGroup].size())
                runGroup = k;
    }
    std::vector<std::size_t> run = groups[runGroup];
    // A trace another group took first may agree with the whole run too.
    for (std::size_t i = 0; i < traces.size(); ++i)
        if (std::find(run.begin(), run.end(), i) == run.end() && g.conflictWithGroup(i, run).isEmpty())
            run.push_back(i);
    std::sort(run.begin(), run.end());

    out.runTraces = run;
    for (std::size_t i = 0; i < traces.size(); ++i) {
        if (std::binary_search(run.begin(), run.end(), i))
            continue;
        const RankCandidate &t = traces[i];
        QString why = g.conflictWithGroup(i, run);
        if (why.isEmpty())
            why = QStringLiteral("not a rank of the same job as %1").arg(traces[run.front()].file);
        out.separateTraces.push_back(i);
        out.separate.push_back({t.file, why, t.rank, deviceModels(t).join(QStringLiteral(", "))});
    }
    return out;
}

namespace {

/// How many names two sorted name lists share.
std::size_t sharedNames(const std::vector<std::string> &a, const std::vector<std::string> &b)
{
    std::size_t shared = 0;
    for (auto i = a.begin(), j = b.begin(); i != a.end() && j != b.end();) {
        const int c = i->compare(*j);
        if (c == 0) {
            ++shared;
            ++i;
            ++j;
        } else if (c < 0) {
            ++i;
        } else {
            ++j;
        }
    }
    return shared;
}

QString durationWords(qint64 ns)
{
    const double s = double(ns) / 1e9;
    if (s >= 2 * 3600.0)
        return QStringLiteral("%1 h").arg(s / 3600.0, 0, 'f', 1);
    if (s >= 120.0)
        return QStringLiteral("%1 min").arg(s / 60.0, 0, 'f', 1);
    return QStringLiteral("%1 s").arg(s, 0, 'f', 2);
}

/// Why two kernel-trace files are not ranks of one job, or an empty string.
QString kernelFileConflict(const KernelFileCandidate &t, const KernelFileCandidate &m)
{
    const std::size_t fewer = std::min(t.names.size(), m.names.size());
    const std::size_t shared = sharedNames(t.names, m.names);
    if (2 * shared < fewer)
        return QStringLiteral("another program: %1 of its %2 kernel names are among the %3 of %4")
            .arg(shared)
            .arg(t.names.size())
            .arg(m.names.size())
            .arg(m.file);
    const qint64 gapNs = std::max(t.firstNs, m.firstNs) - std::min(t.lastNs, m.lastNs);
    const qint64 longerNs = std::max(t.lastNs - t.firstNs, m.lastNs - m.firstNs);
    if (gapNs > std::max<qint64>(1'000'000'000, longerNs / 10))
        return QStringLiteral("captured at another time: %1 %2 %3 (the ranks of one job run together)")
            .arg(durationWords(gapNs), t.firstNs > m.firstNs ? QStringLiteral("after") : QStringLiteral("before"),
                 m.file);
    return {};
}

} // namespace

std::vector<KernelFileCandidate> kernelFileCandidates(const GpuTimeline &timeline)
{
    std::vector<KernelFileCandidate> out;
    for (const GpuTimelineFile &f : timeline.files) {
        KernelFileCandidate c;
        c.file = f.file;
        c.firstNs = std::numeric_limits<qint64>::max();
        c.lastNs = std::numeric_limits<qint64>::min();
        std::vector<char> used(f.names.size(), 0);
        for (const GpuDeviceTimeline &dev : f.devices)
            for (const GpuEvent &e : dev.events) {
                if (e.kind != GpuEventKind::Kernel || e.nameId >= f.names.size())
                    continue;
                used[e.nameId] = 1;
                ++c.kernels;
                c.firstNs = std::min(c.firstNs, e.startNs);
                c.lastNs = std::max(c.lastNs, e.endNs);
            }
        if (c.kernels == 0)
            continue;
        for (std::size_t i = 0; i < used.size(); ++i)
            if (used[i] && !f.names[i].empty())
                c.names.push_back(f.names[i]);
        std::sort(c.names.begin(), c.names.end());
        out.push_back(std::move(c));
    }
    return out;
}

RankGrouping groupKernelFiles(const std::vector<KernelFileCandidate> &files)
{
    RankGrouping out;
    if (files.empty())
        return out;
    const auto conflictWithGroup = [&](std::size_t i, const std::vector<std::size_t> &group) {
        for (std::size_t j : group)
            if (j != i)
                if (QString why = kernelFileConflict(files[i], files[j]); !why.isEmpty())
                    return why;
        return QString();
    };
    std::vector<std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < files.size(); ++i) {
        bool placed = false;
        for (auto &g : groups)
            if (conflictWithGroup(i, g).isEmpty()) {
                g.push_back(i);
                placed = true;
                break;
            }
        if (!placed)
            groups.push_back({i});
    }
    std::size_t runGroup = 0;
    for (std::size_t k = 1; k < groups.size(); ++k)
        if (groups[k].size() > groups[runGroup].size())
            runGroup = k;
    out.runTraces = groups[runGroup];
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (std::find(out.runTraces.begin(), out.runTraces.end(), i) != out.runTraces.end())
            continue;
        QString why = conflictWithGroup(i, out.runTraces);
        if (why.isEmpty())
            why = QStringLiteral("not a rank of the same job as %1").arg(files[out.runTraces.front()].file);
        out.separateTraces.push_back(i);
        out.separate.push_back({files[i].file, why, std::nullopt, QString()});
    }
    return out;
}

} // namespace goblin
