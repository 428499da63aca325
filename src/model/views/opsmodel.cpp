#include "opsmodel.h"

#include "attributiontext.h"
#include "formatting.h"
#include "modelroles.h"

#include <QHash>

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

void OpsModel::regroup()
{
    m_byName.clear();
    m_variantsOf.clear();
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
    }
    return {};
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
    }
    return {};
}

} // namespace goblin
