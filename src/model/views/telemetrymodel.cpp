#include "telemetrymodel.h"

#include "formatting.h"
#include "modelroles.h"

#include <cmath>
#include <limits>

namespace goblin {

TelemetryModel::TelemetryModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void TelemetryModel::setRun(std::shared_ptr<const RunAnalysis> run)
{
    beginResetModel();
    m_run = std::move(run);
    endResetModel();
}

int TelemetryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_run ? 0 : int(m_run->smi.samples.size());
}

int TelemetryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TelemetryModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const TelemetrySample &sample = m_run->smi.samples[std::size_t(index.row())];
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue((index.column() == JobWindowColumn ? Qt::AlignLeft : Qt::AlignRight)
                                   | Qt::AlignVCenter);
    const bool display = role == Qt::DisplayRole;
    if (!display && role != SortRole && role != RawValueRole)
        return {};
    // N/A readings sort first instead of poisoning the ordering with NaN.
    const auto sortable = [](double v) { return std::isnan(v) ? std::numeric_limits<double>::lowest() : v; };
    switch (index.column()) {
    case TimeColumn:
        return display ? QVariant(QString::number(sample.timeS, 'f', 3)) : QVariant(sample.timeS);
    case GpuColumn:
        return display ? QVariant(QString::number(sample.gpu)) : QVariant(sample.gpu);
    case UtilColumn:
        if (display)
            return std::isnan(sample.utilPct) ? tr("N/A") : formatPercent(sample.utilPct);
        return role == SortRole ? sortable(sample.utilPct) : sample.utilPct;
    case HbmUsedColumn:
        if (display)
            return std::isnan(sample.hbmUsedGb) ? tr("N/A") : formatGb(sample.hbmUsedGb);
        return role == SortRole ? sortable(sample.hbmUsedGb) : sample.hbmUsedGb;
    case JobWindowColumn:
        return display ? QVariant(sample.inJobWindow ? tr("job") : tr("idle (left out)"))
                       : QVariant(sample.inJobWindow);
    }
    return {};
}

QVariant TelemetryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section == GpuColumn)
        return tr("amd-smi's GPU index, from 0. The Timeline tab names the same GPU \"GPU n (trace device m)\": the "
                  "n-th device of the trace in device order, beside the number the trace gives it.");
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TimeColumn:
        return tr("Time (s)");
    case GpuColumn:
        return tr("GPU");
    case UtilColumn:
        return tr("Utilisation");
    case HbmUsedColumn:
        return tr("HBM used");
    case JobWindowColumn:
        return tr("Window");
    }
    return {};
}

} // namespace goblin
