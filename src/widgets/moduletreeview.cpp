#include "moduletreeview.h"

#include "attributiontext.h"
#include "traceranks.h"
#include "modelroles.h"
#include "moduletreemodel.h"
#include "percentbardelegate.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTreeView>
#include <QVBoxLayout>

namespace goblin
{

ModuleTreeView::ModuleTreeView(QWidget *parent)
    : QWidget(parent)
    , m_model(new ModuleTreeModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_scope(new QComboBox(this))
    , m_note(new QLabel(this))
    , m_tree(new QTreeView(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(SortRole);
    m_scope->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_scope->setToolTip(tr("All steps, or one ProfilerStep"));
    m_note->setWordWrap(true);
    m_note->setForegroundRole(QPalette::PlaceholderText);
    m_tree->setModel(m_proxy);
    m_tree->setSortingEnabled(true);
    m_tree->sortByColumn(ModuleTreeModel::DeviceTimeColumn, Qt::DescendingOrder);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->setTextElideMode(Qt::ElideMiddle);  // module paths differ at both ends
    m_tree->setItemDelegateForColumn(ModuleTreeModel::DeviceTimeColumn, new PercentBarDelegate(m_tree));
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(ModuleTreeModel::NameColumn, QHeaderView::Stretch);

    auto *top = new QHBoxLayout;
    top->addWidget(m_scope);
    top->addWidget(m_note, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_tree, 1);

    connect(m_scope, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0)
            setScopeIndex(index);
    });
    setAttribution(nullptr, attributionEmptyNote(nullptr));
}

ModuleTreeView::~ModuleTreeView() = default;

void ModuleTreeView::setRun(std::shared_ptr<const RunAnalysis> run, int rankIndex)
{
    const QString note = attributionEmptyNote(run.get(), rankIndex);
    setAttribution(note.isEmpty() ? attributionOfRank(run, rankIndex) : nullptr, note);
}

void ModuleTreeView::setAttribution(std::shared_ptr<const TraceAttribution> attribution, const QString &emptyNote)
{
    m_attribution = std::move(attribution);
    m_emptyNote = emptyNote;
    m_model->setAttribution(m_attribution);
    {
        const QSignalBlocker blocker(m_scope);
        m_scope->clear();
        if (m_attribution)
            for (int i = 0; i < attributionScopeCount(*m_attribution); ++i)
                m_scope->addItem(attributionScopeLabel(*m_attribution, i));
        m_scope->setCurrentIndex(m_attribution ? 0 : -1);
    }
    m_scope->setEnabled(bool(m_attribution));
    m_tree->expandToDepth(1);
    updateNote();
}

void ModuleTreeView::setScopeIndex(int index)
{
    m_model->setScopeIndex(index);
    if (m_scope->currentIndex() != index) {
        const QSignalBlocker blocker(m_scope);
        m_scope->setCurrentIndex(index);
    }
    m_tree->expandToDepth(1);
    updateNote();
}

void ModuleTreeView::updateNote()
{
    if (!m_attribution) {
        m_note->setText(m_emptyNote.isEmpty() ? tr("Nothing to show.") : m_emptyNote);
        return;
    }
    if (m_model->rowCount() == 0) {
        m_note->setText(tr("No nn.Module frames or record_function ranges in this scope (profile with "
                           "with_modules=True or with_stack=True, or add record_function ranges)."));
        return;
    }
    m_note->setText(tr("Host: wall time of the ranges. Device: GPU time launched inside them, each event once; "
                       "the bar is its share of the scope's GPU time."));
}

} // namespace goblin
