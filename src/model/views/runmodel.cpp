#include "runmodel.h"

#include "formatting.h"
#include "modelroles.h"

#include <cmath>
#include <limits>
#include <optional>

namespace goblin {

namespace {

// Run rows use internal id 0; kernel rows carry their run's stable id.
constexpr quintptr kRunRowId = 0;

const KernelReading &readingOf(const RunAnalysis &run, HeuristicsProfile profile)
{
    return profile == HeuristicsProfile::Reference ? run.kernels.reference : run.kernels.workbench;
}

bool isNumeric(int column)
{
    return column >= RunModel::CallsColumn && column < RunModel::ColumnCount;
}

bool isRoofline(int column)
{
    return column >= RunModel::FlopsColumn && column <= RunModel::RoofPercentColumn;
}

/// "4.81 GFLOP", "1.20 PFLOP": three significant digits with an SI prefix.
QString formatFlopCount(double flops)
{
    static const char *const prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
    int p = 0;
    double v = flops;
    while (std::abs(v) >= 1000.0 && p < 6) {
        v /= 1000.0;
        ++p;
    }
    return QStringLiteral("%1 %2FLOP").arg(QString::number(v, 'f', v < 10 ? 2 : v < 100 ? 1 : 0), QLatin1String(prefixes[p]));
}

/// GPUs × steps the trace covers (workbench reading, whichever profile is shown: the reference
/// divides by 1, which is no step); nullopt when the run gives no step count.
std::optional<double> perStepDivisor(const RunAnalysis &run)
{
    const ProfileAnalysis &w = run.workbench;
    if (w.gpuAgents <= 0 || !(w.traceStepsCovered > 0.0) || !(w.perStepPerGpuDivisor > 0.0))
        return std::nullopt;
    return w.perStepPerGpuDivisor;
}

/// A per-step cell: display text, or the raw value (NaN when unknown, so it sorts apart and no
/// one reads it as 0).
QVariant perStepCell(double traceValue, const std::optional<double> &divisor, bool display, bool isTime)
{
    if (!divisor)
        return display ? QVariant(QStringLiteral("—")) : QVariant(qQNaN());
    const double value = traceValue / *divisor;
    if (!display)
        return value;
    return isTime ? formatDurationNs(value) : QString::number(value, 'f', value < 10.0 ? 2 : 1);
}

} // namespace

RunModel::RunModel(QObject *parent)
    : QAbstractItemModel(parent)
{
}

RunModel::~RunModel() = default;

int RunModel::addRun(std::shared_ptr<const RunAnalysis> run)
{
    if (!run)
        return -1;
    const int existing = rowOfRunDir(run->runDir);
    const int row = existing >= 0 ? existing : runCount();
    if (existing >= 0)
        removeRun(existing);
    beginInsertRows({}, row, row);
    std::shared_ptr<const KernelRooflines> rooflines = rooflinesOf(*run);
    m_runs.insert(m_runs.begin() + row, Entry{m_nextId++, std::move(run), std::move(rooflines)});
    endInsertRows();
    return row;
}

void RunModel::removeRun(int row)
{
    if (row < 0 || row >= runCount())
        return;
    beginRemoveRows({}, row, row);
    m_runs.erase(m_runs.begin() + row);
    endRemoveRows();
}

std::shared_ptr<const RunModel::KernelRooflines> RunModel::rooflinesOf(const RunAnalysis &run)
{
    auto out = std::make_shared<KernelRooflines>();
    const KernelRooflineTable table = kernelRooflines(run.torch.attribution, decideGpuRoof(run.facts.devices));
    const KernelRoofline unlinked = kernelRooflineUnlinked(run.torch.attribution);
    out->perName.reserve(run.kernels.names.size());
    for (const std::string &name : run.kernels.names) {
        const auto it = table.constFind(QString::fromStdString(name));
        out->perName.push_back(it != table.cend() ? *it : unlinked);
    }
    return out;
}

std::shared_ptr<const RunAnalysis> RunModel::run(int row) const
{
    return row >= 0 && row < runCount() ? m_runs[std::size_t(row)].run : nullptr;
}

int RunModel::rowOfRunDir(const QString &runDir) const
{
    for (int row = 0; row < runCount(); ++row)
        if (m_runs[std::size_t(row)].run->runDir == runDir)
            return row;
    return -1;
}

QModelIndex RunModel::runIndex(int row, int column) const
{
    return index(row, column, {});
}

int RunModel::runRowOf(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != this)
        return -1;
    return index.internalId() == kRunRowId ? index.row() : rowOfId(index.internalId());
}

void RunModel::setProfile(HeuristicsProfile profile)
{
    if (profile == m_profile)
        return;
    m_profile = profile;
    for (int row = 0; row < runCount(); ++row) {
        const QModelIndex parent = runIndex(row);
        emit dataChanged(runIndex(row, CallsColumn), runIndex(row, ColumnCount - 1));
        const int kernels = rowCount(parent);
        if (kernels > 0)
            emit dataChanged(index(0, 0, parent), index(kernels - 1, ColumnCount - 1, parent));
    }
}

int RunModel::rowOfId(quintptr id) const
{
    for (int row = 0; row < runCount(); ++row)
        if (m_runs[std::size_t(row)].id == id)
            return row;
    return -1;
}

QModelIndex RunModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid())
        return row < runCount() ? createIndex(row, column, kRunRowId) : QModelIndex();
    if (parent.internalId() != kRunRowId || parent.model() != this)
        return {};  // kernels have no children
    if (parent.row() >= runCount() || row >= rowCount(parent))
        return {};
    return createIndex(row, column, m_runs[std::size_t(parent.row())].id);
}

QModelIndex RunModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == kRunRowId)
        return {};
    const int row = rowOfId(child.internalId());
    return row >= 0 ? createIndex(row, 0, kRunRowId) : QModelIndex();
}

int RunModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return runCount();
    if (parent.internalId() != kRunRowId || parent.column() != 0 || parent.row() >= runCount())
        return 0;
    return int(m_runs[std::size_t(parent.row())].run->kernels.names.size());
}

int RunModel::columnCount(const QModelIndex &parent) const
{
    Q_UNUSED(parent)
    return ColumnCount;
}

QVariant RunModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    if (index.internalId() == kRunRowId)
        return runData(*m_runs[std::size_t(index.row())].run, index.row(), index.column(), role);
    const int runRow = rowOfId(index.internalId());
    if (runRow < 0)
        return {};
    const bool rooflineRole = role == Qt::DisplayRole || role == Qt::ToolTipRole || role == SortRole ||
                              role == RawValueRole || role == StateRole || role == SourceRole;
    if (isRoofline(index.column()) && rooflineRole) {
        const KernelRooflines &rooflines = *m_runs[std::size_t(runRow)].rooflines;
        if (std::size_t(index.row()) >= rooflines.perName.size())
            return {};
        return rooflineData(rooflines.perName[std::size_t(index.row())], index.column(), role);
    }
    return kernelData(*m_runs[std::size_t(runRow)].run, runRow, std::size_t(index.row()), index.column(), role);
}

QVariant RunModel::rooflineData(const KernelRoofline &r, int column, int role) const
{
    const std::optional<double> value = column == FlopsColumn          ? r.flops
                                        : column == AchievedTflopsColumn ? r.achievedTflops
                                                                         : r.efficiencyPct;
    const QString &reason = column == FlopsColumn ? r.costReason : column == AchievedTflopsColumn ? r.rateReason : r.roofReason;
    switch (role) {
    case StateRole:
        return int(value ? ValueState::Estimated : ValueState::Unknown);
    case SourceRole:
        return value ? r.source : reason;
    case Qt::ToolTipRole: {
        if (!value)
            return tr("Unknown: %1").arg(reason);
        QStringList lines;
        lines << tr("%1 over %2 launches by ops, %3 of device time (the primary trace)")
                     .arg(formatFlopCount(*r.flops))
                     .arg(r.launches)
                     .arg(formatDurationNs(double(r.deviceNs)));
        lines << tr("from %1 (docs/roofline.md)").arg(r.source);
        if (r.achievedTflops)
            lines << tr("achieved %1 TFLOP/s").arg(QString::number(*r.achievedTflops, 'g', 4));
        if (r.roofTflops)
            lines << tr("roof at its intensity %1 TFLOP/s (%2)").arg(QString::number(*r.roofTflops, 'g', 4), r.dtypeName);
        if (r.timeAtRoofS)
            lines << tr("time at the roof %1").arg(formatDurationNs(*r.timeAtRoofS * 1e9));
        if (!r.efficiencyPct && !r.roofReason.isEmpty())
            lines << tr("no %% of roof: %1").arg(r.roofReason);
        return lines.join(QLatin1Char('\n'));
    }
    case Qt::DisplayRole:
        if (!value)
            return QStringLiteral("—");
        if (column == FlopsColumn)
            return formatFlopCount(*value);
        return column == AchievedTflopsColumn ? QString::number(*value, 'g', 4) : formatPercent(*value, 1);
    case SortRole:  // unknown below every number (a NaN would leave the sort's order undefined)
        return value ? *value : std::numeric_limits<double>::lowest();
    case RawValueRole:
        return value ? *value : qQNaN();  // unknown, never 0
    default:
        return {};
    }
}

QVariant RunModel::runData(const RunAnalysis &run, int row, int column, int role) const
{
    const KernelReading &reading = readingOf(run, m_profile);
    if (role == RunRowRole)
        return row;
    if (role == Qt::ToolTipRole)
        return run.runDir;
    if (role == Qt::TextAlignmentRole && isNumeric(column))
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    const bool display = role == Qt::DisplayRole;
    const bool raw = role == SortRole || role == RawValueRole;
    if (!display && !raw)
        return {};
    switch (column) {
    case NameColumn:
        return run.runName;
    case CallsColumn:
        return raw ? QVariant(qlonglong(reading.rowsUsed)) : QVariant(QString::number(reading.rowsUsed));
    case TotalTimeColumn:
        return raw ? QVariant(qlonglong(reading.totalNs)) : QVariant(formatDurationNs(double(reading.totalNs)));
    case CallsPerStepColumn:
        return perStepCell(double(reading.rowsUsed), perStepDivisor(run), display, false);
    case TimePerStepColumn:
        return perStepCell(double(reading.totalNs), perStepDivisor(run), display, true);
    default:
        return {};
    }
}

QVariant RunModel::kernelData(const RunAnalysis &run, int runRow, std::size_t nameId, int column, int role) const
{
    const KernelReading &reading = readingOf(run, m_profile);
    static const KernelNameStats kUnused;
    const KernelNameStats &stats = nameId < reading.perName.size() ? reading.perName[nameId] : kUnused;
    const bool used = stats.calls > 0;

    switch (role) {
    case NameIdRole:
        return qulonglong(nameId);
    case RunRowRole:
        return runRow;
    case Qt::TextAlignmentRole:
        return isNumeric(column) ? QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ToolTipRole:
        // The full name: the cell elides it, and GEMM kernels differ only in their middle.
        if (column == NameColumn)
            return QString::fromStdString(run.kernels.names[nameId]);
        if ((column == CallsPerStepColumn || column == TimePerStepColumn) && !perStepDivisor(run))
            return tr("Unknown: the run gives no step count to divide the trace-wide sum by");
        return {};
    case FractionRole:
        if (column != PercentGpuColumn)
            return {};
        return reading.totalNs > 0 ? double(stats.totalNs) / double(reading.totalNs) : 0.0;
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
        return QString::fromStdString(run.kernels.names[nameId]);
    case ClassColumn: {
        const ProfileAnalysis &analysis = run.profile(m_profile);
        const KernelClass kind =
            nameId < analysis.classes.flags.size() ? analysis.classes.displayClass(nameId) : KernelClass::Other;
        return display || role == SortRole ? QVariant(kernelClassName(kind)) : QVariant(int(kind));
    }
    case CallsColumn:
        return display ? QVariant(QString::number(stats.calls)) : QVariant(qulonglong(stats.calls));
    case TotalTimeColumn:
        return display ? QVariant(formatDurationNs(double(stats.totalNs))) : QVariant(qlonglong(stats.totalNs));
    case CallsPerStepColumn:
        return perStepCell(double(stats.calls), perStepDivisor(run), display, false);
    case TimePerStepColumn:
        return perStepCell(double(stats.totalNs), perStepDivisor(run), display, true);
    case MeanColumn: {
        const double meanNs = used ? double(stats.totalNs) / double(stats.calls) : 0.0;
        return display ? QVariant(used ? formatDurationNs(meanNs) : QString()) : QVariant(meanNs);
    }
    case MinColumn:
        if (display)
            return used ? formatDurationNs(double(stats.minNs)) : QString();
        return qlonglong(used ? stats.minNs : 0);
    case MaxColumn:
        if (display)
            return used ? formatDurationNs(double(stats.maxNs)) : QString();
        return qlonglong(used ? stats.maxNs : 0);
    case PercentGpuColumn: {
        const double pct = reading.totalNs > 0 ? 100.0 * double(stats.totalNs) / double(reading.totalNs) : 0.0;
        return display ? QVariant(formatPercent(pct, 2)) : QVariant(pct);
    }
    }
    return {};
}

QVariant RunModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue((isNumeric(section) ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case PercentGpuColumn:
            return tr("Share of all kernel time in the trace (current profile's reading)");
        case ClassColumn:
            return tr("Class from the current profile's name patterns");
        case CallsColumn:
            return tr("Calls in the whole trace, summed over all GPUs and steps");
        case TotalTimeColumn:
            return tr("Kernel time in the whole trace, summed over all GPUs and steps");
        case CallsPerStepColumn:
        case TimePerStepColumn:
            return tr("The whole-trace sum divided by GPUs × steps the trace covers: the mean per step on "
                      "one GPU (the divisor the budget uses); — when the run gives no step count");
        case FlopsColumn:
            return tr("FLOPs of a matrix kernel (GEMM, convolution, attention) from the recorded shapes of the op "
                      "calls that launched it, one kernel per call (kernel names carry the tile, not the problem "
                      "size); — when unknown, the tooltip says why (docs/roofline.md)");
        case AchievedTflopsColumn:
            return tr("FLOPs / the device time of its launches by ops (the primary trace), TFLOP/s");
        case RoofPercentColumn:
            return tr("Time its launches would take at the GPU's roof (data sheet peak for its dtype, or memory "
                      "bandwidth at its intensity) / their device time; — when the GPU or the kernel has no roof");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Kernel");
    case ClassColumn:
        return tr("Class");
    case CallsColumn:
        return tr("Calls\nwhole trace");
    case CallsPerStepColumn:
        return tr("Calls\nper step");
    case TotalTimeColumn:
        return tr("Total\nwhole trace, all GPUs");
    case TimePerStepColumn:
        return tr("Time\nper step, per GPU");
    case MeanColumn:
        return tr("Mean");
    case MinColumn:
        return tr("Min");
    case MaxColumn:
        return tr("Max");
    case PercentGpuColumn:
        return tr("% GPU time");
    case FlopsColumn:
        return tr("FLOPs");
    case AchievedTflopsColumn:
        return tr("Achieved\nTFLOP/s");
    case RoofPercentColumn:
        return tr("% of roof");
    }
    return {};
}

} // namespace goblin
