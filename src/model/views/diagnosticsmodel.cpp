#include "diagnosticsmodel.h"

#include "modelroles.h"

namespace goblin {

DiagnosticsModel::DiagnosticsModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void DiagnosticsModel::setRun(std::shared_ptr<const RunAnalysis> run)
{
    beginResetModel();
    m_rows.clear();
    if (run) {
        m_rows.reserve(run->diagnostics.size() + std::size_t(run->workbench.warnings.size())
                       + std::size_t(run->reference.warnings.size()));
        for (const Diagnostic &d : run->diagnostics)
            m_rows.push_back({d, tr("input")});
        // The profiles' RunMetrics.warnings concern the whole run; they name no line.
        for (HeuristicsProfile profile : {HeuristicsProfile::Workbench, HeuristicsProfile::Reference})
            for (const QString &warning : run->profile(profile).warnings)
                m_rows.push_back({Diagnostic{Severity::Warning, QString(), 0, warning},
                                  tr("%1 profile").arg(profileName(profile))});
    }
    endResetModel();
}

int DiagnosticsModel::countAtLeast(Severity severity) const
{
    int count = 0;
    for (const Row &row : m_rows)
        count += int(row.diagnostic.severity) >= int(severity) ? 1 : 0;
    return count;
}

int DiagnosticsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int DiagnosticsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DiagnosticsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = m_rows[std::size_t(index.row())];
    const Diagnostic &d = row.diagnostic;
    switch (role) {
    case SeverityRole:
        return int(d.severity);
    case FileRole:
        return d.file;
    case LineRole:
        return qlonglong(d.line);
    case Qt::ToolTipRole:
        return index.column() == MessageColumn ? QVariant(d.message) : QVariant();
    case Qt::TextAlignmentRole:
        return index.column() == LineColumn ? QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::DisplayRole:
    case SortRole:
        break;
    default:
        return {};
    }
    const bool display = role == Qt::DisplayRole;
    switch (index.column()) {
    case SeverityColumn:
        return display ? QVariant(severityName(d.severity)) : QVariant(int(d.severity));
    case SourceColumn:
        return row.source;
    case FileColumn:
        return d.file;
    case LineColumn:
        if (display)
            return d.line > 0 ? QString::number(d.line) : QString();
        return qlonglong(d.line);
    case MessageColumn:
        return d.message;
    }
    return {};
}

QVariant DiagnosticsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case SeverityColumn:
        return tr("Severity");
    case SourceColumn:
        return tr("Source");
    case FileColumn:
        return tr("File");
    case LineColumn:
        return tr("Line");
    case MessageColumn:
        return tr("Message");
    }
    return {};
}

} // namespace goblin
