#include "accumulator.h"

#include <QSet>

namespace goblin::kernels
{

void AgentSet::addSlow(int host, std::string_view label)
{
    for (size_t i = 0; i < agents.size(); ++i)
        if (agents[i].host == host && agents[i].label == label) {
            last = int(i);
            return;
        }
    if (int(agents.size()) >= kMaxAgents) {
        overflow = true;
        return;
    }
    agents.push_back({host, std::string(label)});
    last = int(agents.size()) - 1;
}

void Accumulator::clearStats()
{
    reading->perName.clear();
    reading->rowsUsed = 0;
    reading->totalNs = 0;
    anySpan = false;
    minStart = LLONG_MAX;
    maxEnd = LLONG_MIN;
    agents = AgentSet();
}

void Accumulator::finish(size_t nameCount, const QStringList &hosts)
{
    reading->perName.resize(nameCount);
    reading->hasTimestamps = anySpan;
    reading->firstStartNs = anySpan ? minStart : 0;
    reading->lastEndNs = anySpan ? maxEnd : 0;
    QSet<int> hostsUsed;
    for (const AgentSet::Agent &a : agents.agents)
        hostsUsed.insert(a.host);
    reading->agents.clear();
    for (const AgentSet::Agent &a : agents.agents) {
        const QString label = QString::fromUtf8(a.label.data(), qsizetype(a.label.size()));
        if (hostsUsed.size() > 1) {
            const QString host = hosts.value(a.host);
            reading->agents << (host.isEmpty() ? QStringLiteral("./") : host + QLatin1Char('/')) + label;
        } else {
            reading->agents << label;
        }
    }
    reading->agentCount = int(reading->agents.size());
}

std::vector<std::size_t> namesInFirstUseOrder(const KernelReading &reading)
{
    std::vector<std::size_t> ids;
    for (std::size_t id = 0; id < reading.perName.size(); ++id)
        if (reading.perName[id].calls > 0)
            ids.push_back(id);
    std::sort(ids.begin(), ids.end(),
              [&](std::size_t a, std::size_t b) { return reading.perName[a].firstRow < reading.perName[b].firstRow; });
    return ids;
}

} // namespace goblin::kernels
