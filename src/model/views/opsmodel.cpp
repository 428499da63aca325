#include "opsmodel.h"

#include "attributiontext.h"
#include "formatting.h"
#include "modelroles.h"

#include <QHash>

#include <cmath>

namespace goblin
{

namespace
{

constexpr auto kMissing = u"—";

bool isNumeric(int column)
{
    return column >= OpsModel::CallsColumn && column < OpsModel::ColumnCount;
}

qint64 nsOf(const OpStats &op, int column)
{
    switch (column) {
    case OpsModel::HostSelfColumn:
        return op.hostSelfNs;
    case OpsModel::HostTotalColumn:
        return op.hostTotalNs;
    case OpsModel::HostSelfGpuIdleColumn:
        return op.hostSelfGpuIdleNs;
    case OpsModel::DeviceSelfColumn:
        return op.deviceSelfNs;
    case OpsModel::DeviceTotalColumn:
        return op.deviceTotalNs;
    }
    return 0;
}

} // namespace

OpsModel::OpsModel(QObject *parent) : QAbstractItemModel(parent) {}

void OpsModel::setAttribution(std::shared_ptr<const TraceAttribution> attribution)
{
    beginResetModel();
    m_attribution = std::move(attribution);
    m_scopeIndex = 0;
    m_scope = m_attribution ? attributionScope(*m_attribution, 0) : nullptr;
    regroup();
    endResetModel();
}

void OpsModel::setScopeIndex(int index)
{
    beginResetModel();
    m_scopeIndex = index;
    m_scope = m_attribution ? attributionScope(*m_attribution, index) : nullptr;
    regroup();
    endResetModel();
}

void OpsModel::setGroupByShapes(bool byShapes)
{
    if (byShapes == m_byShapes)
        return;
    beginResetModel();
    m_byShapes = byShapes;
    regroup();
    endResetModel();
}

void OpsModel::setGpuRoof(const GpuRoof &roof)
{
    beginResetModel();
    m_roof = roof;
    regroup();
    endResetModel();
}

const OpRoofline *OpsModel::roofline(int row) const
{
    return row >= 0 && std::size_t(row) < m_rooflines.size() ? &m_rooflines[std::size_t(row)] : nullptr;
}

void OpsModel::regroup()
{
    m_byName.clear();
    m_variantsOf.clear();
    m_rooflines.clear();
    m_childRooflines.clear();
    groupByName();
    // Each row against the roof, once per set of rows; a name summed over several shapes has none
    // of its own (its child rows, one per shape, have theirs).
    const int rows = rowCount();
    m_rooflines.reserve(std::size_t(rows));
    for (int row = 0; row < rows; ++row) {
        const std::size_t variants = m_byShapes ? 1 : m_variantsOf[std::size_t(row)].size();
        if (variants > 1) {
            OpRoofline summed;
            summed.costReason = summed.rateReason = summed.roofReason =
                tr("summed over %n input shapes: each shape's row has its own", nullptr, int(variants));
            m_rooflines.push_back(summed);
            std::vector<OpRoofline> children;
            children.reserve(variants);
            for (const int i : m_variantsOf[std::size_t(row)])
                children.push_back(opRoofline(m_scope->ops[std::size_t(i)], m_roof));
            m_childRooflines.push_back(std::move(children));
            continue;
        }
        m_rooflines.push_back(opRoofline(*op(row), m_roof));
        m_childRooflines.emplace_back();
    }
}

const OpRoofline *OpsModel::rooflineAt(const QModelIndex &index) const
{
    if (!index.isValid())
        return nullptr;
    if (index.internalId() == 0)
        return roofline(index.row());
    const std::size_t parentRow = std::size_t(index.internalId() - 1);
    if (parentRow >= m_childRooflines.size() || std::size_t(index.row()) >= m_childRooflines[parentRow].size())
        return nullptr;
    return &m_childRooflines[parentRow][std::size_t(index.row())];
}

void OpsModel::groupByName()
{
    if (m_byShapes || !m_scope)
        return;
    QHash<QString, std::size_t> rowOfName;
    for (std::size_t i = 0; i < m_scope->ops.size(); ++i) {
        const OpStats &o = m_scope->ops[i];
        const auto it = rowOfName.constFind(o.name);
        if (it == rowOfName.constEnd()) {
            rowOfName.insert(o.name, m_byName.size());
            m_byName.push_back(o);
            m_variantsOf.push_back({int(i)});
            continue;
        }
        // Calls of different shapes are different calls: every figure adds up.
        OpStats &sum = m_byName[it.value()];
        sum.calls += o.calls;
        sum.hostSelfNs += o.hostSelfNs;
        sum.hostTotalNs += o.hostTotalNs;
        sum.hostSelfGpuIdleNs += o.hostSelfGpuIdleNs;
        sum.deviceSelfNs += o.deviceSelfNs;
        sum.deviceTotalNs += o.deviceTotalNs;
        sum.kernels += o.kernels;
        if (sum.inputShapes != o.inputShapes)
            sum.inputShapes.reset();
        m_variantsOf[it.value()].push_back(int(i));
    }
}

const OpStats *OpsModel::op(int row) const
{
    if (!m_scope || row < 0 || row >= rowCount())
        return nullptr;
    return m_byShapes ? &m_scope->ops[std::size_t(row)] : &m_byName[std::size_t(row)];
}

const OpStats *OpsModel::opAt(const QModelIndex &index) const
{
    if (!index.isValid() || !m_scope)
        return nullptr;
    if (index.internalId() == 0)
        return op(index.row());
    const std::size_t parentRow = std::size_t(index.internalId() - 1);
    if (m_byShapes || parentRow >= m_variantsOf.size() || index.row() >= int(m_variantsOf[parentRow].size()))
        return nullptr;
    return &m_scope->ops[std::size_t(m_variantsOf[parentRow][std::size_t(index.row())])];
}

int OpsModel::variantsAt(const QModelIndex &index) const
{
    if (m_byShapes || index.internalId() != 0 || std::size_t(index.row()) >= m_variantsOf.size())
        return 1;
    return int(m_variantsOf[std::size_t(index.row())].size());
}

QModelIndex OpsModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount || row >= rowCount(parent))
        return {};
    // Only top-level rows have children: a child's id is its parent's row + 1, 0 a top-level row.
    return createIndex(row, column, parent.isValid() ? quintptr(parent.row() + 1) : quintptr(0));
}

QModelIndex OpsModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == 0)
        return {};
    return createIndex(int(child.internalId() - 1), 0, quintptr(0));
}

int OpsModel::rowCount(const QModelIndex &parent) const
{
    if (!m_scope)
        return 0;
    if (!parent.isValid())
        return int(m_byShapes ? m_scope->ops.size() : m_byName.size());
    if (parent.column() != 0 || parent.internalId() != 0 || m_byShapes)
        return 0;
    // A name of several shapes lists them; a name of one shape is that shape already.
    const int variants = variantsAt(parent);
    return variants > 1 ? variants : 0;
}

int OpsModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant OpsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const OpStats *found = opAt(index);
    if (!found)
        return {};
    const OpStats &o = *found;
    const int column = index.column();
    const double gpuNs = double(m_scope->gpuTimeNs);
    const bool shareKnown = gpuNs > 0.0;
    const double share = shareKnown ? double(o.deviceSelfNs) / gpuNs : 0.0;

    switch (role) {
    case OpNameRole:
        return o.name;
    case Qt::TextAlignmentRole:
        return QVariant::fromValue((isNumeric(column) ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (column == AchievedTflopsColumn || column == EfficiencyColumn) {
            if (const OpRoofline *r = rooflineAt(index))
                return rooflineToolTip(*r);
            return {};
        }
        if (column == NameColumn || column == ShapesColumn) {
            if (o.runtimeCall)
                return tr("%1\na runtime call outside every CPU op (a graph replay or a bare launch): the GPU "
                          "events it launched are its own; its host times are not recorded")
                    .arg(o.name);
            if (o.inputShapes)
                return tr("%1\ninput shapes %2").arg(o.name, *o.inputShapes);
            if (variantsAt(index) > 1)
                return tr("%1\nsummed over %2 input shapes").arg(o.name).arg(variantsAt(index));
            return tr("%1\ninput shapes not recorded").arg(o.name);
        }
        if (column == GpuShareColumn && !shareKnown)
            return tr("This scope holds no GPU time");
        return {};
    case FractionRole:
        if (column != GpuShareColumn || !shareKnown)
            return {};
        return share;
    case Qt::DisplayRole:
    case SortRole:
    case RawValueRole:
        break;
    default:
        return {};
    }
    const bool display = role == Qt::DisplayRole;

    switch (column) {
    case NameColumn:
        return o.name;
    case ShapesColumn:
        if (o.runtimeCall)
            return display ? QVariant(tr("runtime call outside any op")) : QVariant(QString());
        if (o.inputShapes)
            return *o.inputShapes;
        if (variantsAt(index) > 1)
            return display ? QVariant(tr("%n shapes", nullptr, variantsAt(index))) : QVariant(QString());
        return display ? QVariant(QString::fromUtf16(kMissing)) : QVariant(QString());
    case CallsColumn:
        return display ? QVariant(QString::number(o.calls)) : QVariant(qlonglong(o.calls));
    case KernelsColumn:
        return display ? QVariant(QString::number(o.kernels)) : QVariant(qlonglong(o.kernels));
    case HostSelfGpuIdleColumn:
        if (!m_attribution || !m_attribution->gpuIdleMeasured)  // no GPU events: idle is unknown, not 0
            return display ? QVariant(QString::fromUtf16(kMissing)) : QVariant();
        [[fallthrough]];
    case HostSelfColumn:
    case HostTotalColumn:
    case DeviceSelfColumn:
    case DeviceTotalColumn: {
        const qint64 ns = nsOf(o, column);
        return display ? QVariant(formatMs(ns)) : QVariant(qlonglong(ns));
    }
    case GpuShareColumn:
        if (display)
            return shareKnown ? formatPercent(100.0 * share, 2) : QString::fromUtf16(kMissing);
        return shareKnown ? 100.0 * share : qQNaN();
    case AchievedTflopsColumn:
    case EfficiencyColumn: {
        const OpRoofline *placed = rooflineAt(index);
        if (!placed)
            return {};
        const OpRoofline &r = *placed;
        const std::optional<double> v = column == AchievedTflopsColumn ? r.achievedTflops : r.efficiencyPct;
        if (!v)
            return display ? QVariant(QString::fromUtf16(kMissing)) : QVariant(qQNaN());
        if (!display)
            return *v;
        return column == AchievedTflopsColumn ? QString::number(*v, 'g', 4) : formatPercent(*v, 1);
    }
    }
    return {};
}

namespace
{

/// "2.15e+09" as "2.15 G": FLOP and byte counts of a tooltip.
QString formatCount(double v)
{
    static const char *const units[] = {"", " k", " M", " G", " T", " P", " E"};
    int u = 0;
    while (std::abs(v) >= 1000.0 && u < 6) {
        v /= 1000.0;
        ++u;
    }
    return QString::number(v, 'g', 4) + QLatin1String(units[u]);
}

} // namespace

QString OpsModel::rooflineToolTip(const OpRoofline &r) const
{
    if (!r.flops)
        return tr("No roofline: %1").arg(r.costReason);
    QStringList lines;
    lines << tr("%1 per call (%2)").arg(formatCount(r.cost.flops), r.cost.formula)
          << tr("FLOPs %1, bytes %2 over all calls").arg(formatCount(*r.flops), formatCount(*r.bytes));
    if (r.intensity)
        lines << tr("arithmetic intensity %1 FLOP/byte").arg(QString::number(*r.intensity, 'g', 4));
    if (r.achievedTflops)
        lines << tr("achieved %1 TFLOP/s, %2 TB/s over its device self time")
                     .arg(QString::number(*r.achievedTflops, 'g', 4), QString::number(*r.achievedTbps, 'g', 4));
    else
        lines << tr("no achieved rate: %1").arg(r.rateReason);
    if (r.timeAtRoofS) {
        if (r.roofTflops)
            lines << tr("roof at its intensity %1 TFLOP/s (%2, %3)")
                         .arg(QString::number(*r.roofTflops, 'g', 4), m_roof.model, r.cost.dtypeName);
        lines << tr("time at the roof %1").arg(formatDurationNs(*r.timeAtRoofS * 1e9));
    }
    if (!r.efficiencyPct)
        lines << tr("no efficiency: %1").arg(r.roofReason);
    return lines.join(QLatin1Char('\n'));
}

QVariant OpsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue((isNumeric(section) ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case NameColumn:
            return tr("CPU op (cpu_op events; record_function ranges are in the module tree)");
        case ShapesColumn:
            return tr("Input shapes as the trace writes them (\"Input Dims\"); — when record_shapes was off");
        case CallsColumn:
            return tr("Calls of the op in this scope");
        case HostSelfColumn:
            return tr("Wall time on its thread minus the CPU ops nested directly inside, summed over calls");
        case HostTotalColumn:
            return tr("Wall time of its calls on its thread (a recursive call counted once)");
        case HostSelfGpuIdleColumn:
            return tr("The part of host self time during which no GPU event ran (every GPU idle): the host "
                      "work the GPU waited behind; — when the trace has no GPU events");
        case DeviceSelfColumn:
            return tr("Summed durations of the GPU events (kernels, copies, sets) the op launched itself");
        case DeviceTotalColumn:
            return tr("Device self time of the op and of every op nested inside it, each GPU event once");
        case KernelsColumn:
            return tr("GPU events (kernels, copies, sets) the op launched itself");
        case GpuShareColumn:
            return tr("Device self time / all GPU time of this scope (attributed or not)");
        case AchievedTflopsColumn:
            return tr("FLOPs of its calls (from input shapes and dtypes) / device self time; — without "
                      "shapes, a cost model, or GPU time of its own (docs/roofline.md)");
        case EfficiencyColumn:
            return tr("Time its calls would take at the GPU's roof (data sheet peak for its dtype, or memory "
                      "bandwidth) / device self time; — when the GPU or the op has no roof");
        }
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Operator");
    case ShapesColumn:
        return tr("Input shapes");
    case CallsColumn:
        return tr("Calls");
    case HostSelfColumn:
        return tr("Host self (ms)");
    case HostTotalColumn:
        return tr("Host total (ms)");
    case HostSelfGpuIdleColumn:
        return tr("Self in GPU idle (ms)");
    case DeviceSelfColumn:
        return tr("Device self (ms)");
    case DeviceTotalColumn:
        return tr("Device total (ms)");
    case KernelsColumn:
        return tr("Kernels");
    case GpuShareColumn:
        return tr("% GPU time");
    case AchievedTflopsColumn:
        return tr("TFLOP/s");
    case EfficiencyColumn:
        return tr("% of roof");
    }
    return {};
}

} // namespace goblin
