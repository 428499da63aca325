#include "operatorview.h"

#include "attributiontext.h"
#include "traceranks.h"
#include "kerneloplinkmodel.h"
#include "modelroles.h"
#include "opsmodel.h"
#include "percentbardelegate.h"
#include "tablecolumns.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

namespace goblin
{

namespace
{

constexpr int kFilterDebounceMs = 300;

QSortFilterProxyModel *sortingProxy(QAbstractItemModel *source, QObject *parent)
{
    auto *proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(source);
    proxy->setSortRole(SortRole);
    proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    return proxy;
}

/// One line per row, names elided in the middle (shapes and kernel names differ there), sorted
/// by `sortColumn`, a share drawn as a bar; the columns are fitted by fitLayout() once rows come.
void setUpView(QAbstractItemView *view, QHeaderView *header, int sortColumn, int shareColumn)
{
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setTextElideMode(Qt::ElideMiddle);
    view->setItemDelegateForColumn(shareColumn, new PercentBarDelegate(view));
    header->setStretchLastSection(false);
    header->setSortIndicatorShown(true);
    header->setSortIndicator(sortColumn, Qt::DescendingOrder);
}

void setUpTable(QTableView *table, QAbstractItemModel *model, int sortColumn, int shareColumn)
{
    table->setModel(model);
    table->setHorizontalHeader(new WrappingHeader(Qt::Horizontal, table, 2));
    table->setSortingEnabled(true);
    table->sortByColumn(sortColumn, Qt::DescendingOrder);
    table->verticalHeader()->hide();
    // One line per row: shapes and kernel names elide instead of doubling the row height.
    table->setWordWrap(false);
    setUpView(table, table->horizontalHeader(), sortColumn, shareColumn);
}

void setUpTree(QTreeView *tree, QAbstractItemModel *model, int sortColumn, int shareColumn)
{
    tree->setModel(model);
    tree->setHeader(new WrappingHeader(Qt::Horizontal, tree, 3));
    tree->setSortingEnabled(true);
    tree->sortByColumn(sortColumn, Qt::DescendingOrder);
    tree->setUniformRowHeights(true);
    tree->setAllColumnsShowFocus(true);
    tree->setWordWrap(false);
    setUpView(tree, tree->header(), sortColumn, shareColumn);
}

/// Fits `view`'s columns whenever its rows change (tablecolumns.h): the name takes the spare
/// width, a column all "—" on this run is hidden.
void fitOnChange(QAbstractItemView *view, QHeaderView *header, const NameColumnLayout &layout)
{
    const auto fit = [view, header, layout] {
        fitNameColumnLayout(view, header, layout);
        // Branch marks only where a name has shapes below it: a flat list keeps its indent.
        if (auto *tree = qobject_cast<QTreeView *>(view)) {
            const QAbstractItemModel *model = tree->model();
            bool children = false;
            for (int row = 0; row < model->rowCount() && !children; ++row)
                children = model->hasChildren(model->index(row, 0));
            tree->setRootIsDecorated(children);
        }
    };
    QAbstractItemModel *model = view->model();
    QObject::connect(model, &QAbstractItemModel::modelReset, view, fit);
    QObject::connect(model, &QAbstractItemModel::layoutChanged, view, fit);
    QObject::connect(model, &QAbstractItemModel::rowsInserted, view, fit);
    QObject::connect(model, &QAbstractItemModel::rowsRemoved, view, fit);
    fit();
}

/// A kernel name short enough for a title line: GEMM names keep both ends (the tooltip has it all).
QString shortName(const QString &name)
{
    constexpr int kKeep = 32;
    return name.size() <= 2 * kKeep + 1 ? name : name.left(kKeep) + QChar(0x2026) + name.right(kKeep);
}

QString selectedName(QAbstractItemView *table, int role)
{
    const QModelIndexList rows = table->selectionModel() ? table->selectionModel()->selectedRows() : QModelIndexList();
    return rows.isEmpty() ? QString() : rows.front().data(role).toString();
}

} // namespace

OperatorView::OperatorView(QWidget *parent)
    : QWidget(parent)
    , m_ops(new OpsModel(this))
    , m_opsProxy(sortingProxy(m_ops, this))
    , m_kernels(new KernelOpLinkModel(this))
    , m_kernelsProxy(sortingProxy(m_kernels, this))
    , m_launching(new KernelOpLinkModel(this))
    , m_launchingProxy(sortingProxy(m_launching, this))
    , m_scope(new QComboBox(this))
    , m_group(new QComboBox(this))
    , m_filter(new QLineEdit(this))
    , m_filterTimer(new QTimer(this))
    , m_summary(new QLabel(this))
    , m_opsTable(new QTreeView(this))
    , m_kernelsTitle(new QLabel(this))
    , m_kernelsTable(new QTableView(this))
    , m_launchingTitle(new QLabel(this))
    , m_launchingTable(new QTableView(this))
{
    m_opsProxy->setFilterKeyColumn(OpsModel::NameColumn);
    m_scope->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_scope->setToolTip(tr("All steps, or one ProfilerStep"));
    m_group->addItem(tr("Operator"));
    m_group->addItem(tr("Operator + input shapes"));
    m_group->setToolTip(tr("One row per op name summed over its input shapes (each shape a row under it), or "
                           "one row per op name and input shapes"));
    m_filter->setPlaceholderText(tr("Filter operators by name"));
    m_filter->setClearButtonEnabled(true);
    m_filterTimer->setSingleShot(true);
    m_filterTimer->setInterval(kFilterDebounceMs);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Titles name kernels: let them be cut at the splitter rather than widen it.
    m_kernelsTitle->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_launchingTitle->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);

    setUpTree(m_opsTable, m_opsProxy, OpsModel::DeviceSelfColumn, OpsModel::GpuShareColumn);
    setUpTable(m_kernelsTable, m_kernelsProxy, KernelOpLinkModel::DeviceTimeColumn, KernelOpLinkModel::ShareColumn);
    setUpTable(m_launchingTable, m_launchingProxy, KernelOpLinkModel::DeviceTimeColumn, KernelOpLinkModel::ShareColumn);
    // Input shapes are text that can run to hundreds of characters: capped, elided, the tooltip whole.
    fitOnChange(m_opsTable, m_opsTable->header(),
                {OpsModel::NameColumn, OpsModel::GpuShareColumn, OpsModel::ShapesColumn, 3, 3});
    fitOnChange(m_kernelsTable, m_kernelsTable->horizontalHeader(),
                {KernelOpLinkModel::NameColumn, KernelOpLinkModel::ShareColumn, -1, 3, 2});
    fitOnChange(m_launchingTable, m_launchingTable->horizontalHeader(),
                {KernelOpLinkModel::NameColumn, KernelOpLinkModel::ShareColumn, -1, 3, 2});
    m_launchingTable->setToolTip(tr("Double-click an op to select it above"));

    auto *top = new QHBoxLayout;
    top->addWidget(m_scope);
    top->addWidget(m_group);
    top->addWidget(m_filter, 1);
    auto *kernelsBox = new QWidget(this);
    auto *kernelsLayout = new QVBoxLayout(kernelsBox);
    kernelsLayout->setContentsMargins(0, 0, 0, 0);
    kernelsLayout->addWidget(m_kernelsTitle);
    kernelsLayout->addWidget(m_kernelsTable, 1);
    auto *launchingBox = new QWidget(this);
    auto *launchingLayout = new QVBoxLayout(launchingBox);
    launchingLayout->setContentsMargins(0, 0, 0, 0);
    launchingLayout->addWidget(m_launchingTitle);
    launchingLayout->addWidget(m_launchingTable, 1);
    auto *below = new QSplitter(Qt::Horizontal, this);
    below->addWidget(kernelsBox);
    below->addWidget(launchingBox);
    below->setStretchFactor(0, 3);
    below->setStretchFactor(1, 2);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_opsTable);
    split->addWidget(below);
    // The operators are what is read; the links below are a detail of one selection.
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);

    connect(m_scope, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0)
            setScopeIndex(index);
    });
    connect(m_group, &QComboBox::currentIndexChanged, this, [this](int index) {
        const QString op = selectedName(m_opsTable, OpsModel::OpNameRole);
        m_ops->setGroupByShapes(index == 1);
        if (!op.isEmpty())
            selectOp(op);
        opSelected();
    });
    connect(m_filter, &QLineEdit::textChanged, m_filterTimer, qOverload<>(&QTimer::start));
    connect(m_filterTimer, &QTimer::timeout, this, [this] { m_opsProxy->setFilterFixedString(m_filter->text()); });
    connect(m_opsTable->selectionModel(), &QItemSelectionModel::selectionChanged, this, &OperatorView::opSelected);
    connect(m_kernelsTable->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &OperatorView::kernelSelected);
    connect(m_launchingTable, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex &index) {
        const QString op = index.data(KernelOpLinkModel::LinkNameRole).toString();
        if (!selectOp(op)) {
            setFilterText(QString());
            selectOp(op);
        }
    });
    setAttribution(nullptr, attributionEmptyNote(nullptr));
}

OperatorView::~OperatorView() = default;

void OperatorView::setRun(std::shared_ptr<const RunAnalysis> run, int rankIndex)
{
    const QString note = attributionEmptyNote(run.get(), rankIndex);
    m_ops->setGpuRoof(run ? decideGpuRoof(run->facts.devices) : GpuRoof{});
    setAttribution(note.isEmpty() ? attributionOfRank(run, rankIndex) : nullptr, note);
}

void OperatorView::setAttribution(std::shared_ptr<const TraceAttribution> attribution, const QString &emptyNote)
{
    m_attribution = std::move(attribution);
    m_note = emptyNote;
    m_ops->setAttribution(m_attribution);
    m_kernels->setAttribution(m_attribution);
    m_launching->setAttribution(m_attribution);
    {
        const QSignalBlocker blocker(m_scope);
        m_scope->clear();
        if (m_attribution)
            for (int i = 0; i < attributionScopeCount(*m_attribution); ++i)
                m_scope->addItem(attributionScopeLabel(*m_attribution, i));
        m_scope->setCurrentIndex(m_attribution ? 0 : -1);
    }
    m_scope->setEnabled(bool(m_attribution));
    m_filter->setEnabled(bool(m_attribution));
    // Without recorded shapes every row is one name already.
    m_group->setEnabled(m_attribution && m_attribution->shapesRecorded);
    opSelected();
    updateSummary();
}

void OperatorView::setScopeIndex(int index)
{
    // Keep the selected op and kernel across the switch when the new scope has them.
    const QString op = selectedName(m_opsTable, OpsModel::OpNameRole);
    const QString kernel = m_launching->selectedName();
    m_ops->setScopeIndex(index);
    m_kernels->setScopeIndex(index);
    m_launching->setScopeIndex(index);
    if (m_scope->currentIndex() != index) {
        const QSignalBlocker blocker(m_scope);
        m_scope->setCurrentIndex(index);
    }
    if (!op.isEmpty())
        selectOp(op);
    opSelected();
    if (!kernel.isEmpty())
        showOpsOfKernel(kernel);
    updateSummary();
}

void OperatorView::setFilterText(const QString &text)
{
    m_filterTimer->stop();
    if (m_filter->text() != text) {
        const QSignalBlocker blocker(m_filter);
        m_filter->setText(text);
    }
    m_opsProxy->setFilterFixedString(text);
}

bool OperatorView::selectOp(const QString &name)
{
    for (int row = 0; row < m_opsProxy->rowCount(); ++row) {
        const QModelIndex index = m_opsProxy->index(row, OpsModel::NameColumn);
        if (index.data(OpsModel::OpNameRole).toString() == name) {
            m_opsTable->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                                     QItemSelectionModel::Rows);
            m_opsTable->scrollTo(index);
            return true;
        }
    }
    return false;
}

void OperatorView::showOpsOfKernel(const QString &kernelName)
{
    m_launching->setSelection(KernelOpLinkModel::Side::ByKernel, kernelName);
    if (kernelName.isEmpty())
        m_launchingTitle->setText(tr("Select a kernel to list the ops that launched it."));
    else if (m_launching->rowCount() == 0)
        m_launchingTitle->setText(tr("No op of this scope launched %1.").arg(shortName(kernelName)));
    else
        m_launchingTitle->setText(
            tr("Ops that launched %1 (%2 ms)").arg(shortName(kernelName), formatMs(m_launching->totalDeviceNs())));
    m_launchingTitle->setToolTip(kernelName);
}

void OperatorView::showFrame(const QString &name, FrameKind kind)
{
    switch (kind) {
    case FrameKind::Op:
    case FrameKind::RuntimeCall:  // a launch outside every op is a row of its own
        setFilterText(name);
        selectOp(name);
        break;
    case FrameKind::GpuEvent:
        showOpsOfKernel(name);
        break;
    default:
        setFilterText(QString());
        break;
    }
}

void OperatorView::opSelected()
{
    const QString op = selectedName(m_opsTable, OpsModel::OpNameRole);
    m_kernels->setSelection(KernelOpLinkModel::Side::ByOp, op);
    if (op.isEmpty())
        m_kernelsTitle->setText(tr("Select an operator to list the kernels it launched."));
    else if (m_kernels->rowCount() == 0)
        m_kernelsTitle->setText(
            tr("%1 launched no GPU event itself (see device total for the ops inside it).").arg(op));
    else
        m_kernelsTitle->setText(
            tr("Kernels %1 launched, all input shapes (%2 ms)").arg(op, formatMs(m_kernels->totalDeviceNs())));
    if (m_launching->selectedName().isEmpty())
        showOpsOfKernel(QString());
}

void OperatorView::kernelSelected()
{
    const QString kernel = selectedName(m_kernelsTable, KernelOpLinkModel::LinkNameRole);
    if (!kernel.isEmpty())
        showOpsOfKernel(kernel);
}

void OperatorView::updateSummary()
{
    const AttributionScope *scope = m_ops->scope();
    if (!m_attribution || !scope) {
        m_summary->setText(m_note.isEmpty() ? tr("Nothing to show.") : m_note);
        return;
    }
    QString text = attributionSummary(*m_attribution, *scope);
    if (text.isEmpty())
        text = tr("This scope holds no GPU time.");
    if (!m_attribution->shapesRecorded)
        text += tr(" Input shapes were not recorded (record_shapes off).");
    m_summary->setText(text);
}

} // namespace goblin
