#include "rankspanel.h"

#include "liveanalysis.h"
#include "ranksmodel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace goblin {

RanksPanel::RanksPanel(LiveAnalysis *live, QWidget *parent)
    : QWidget(parent)
    , m_live(live)
    , m_model(new RanksModel(this))
    , m_spread(new QLabel(this))
    , m_table(new QTableView(this))
{
    m_spread->setWordWrap(true);
    m_spread->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->setAlternatingRowColors(true);
    m_table->horizontalHeader()->setHighlightSections(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setToolTip(tr("One budget per rank, each from that rank's own kernels, step time and host busy; "
                           "the workbench budget of a run with several ranks is their mean"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_spread);
    layout->addWidget(m_table, 1);

    connect(live, &LiveAnalysis::runChanged, this, &RanksPanel::onRunChanged);
    connect(live, &LiveAnalysis::metricsChanged, this, &RanksPanel::onMetricsChanged);
    onRunChanged();
}

QString RanksPanel::spreadText() const
{
    return m_spread->text();
}

void RanksPanel::onRunChanged()
{
    m_model->setRun(m_live->run(), m_live->derived());
    m_spread->setText(m_live->run() ? m_model->spreadText() : tr("Open a run folder to compare its ranks."));
    m_table->resizeColumnsToContents();
}

void RanksPanel::onMetricsChanged()
{
    m_model->setDerived(m_live->derived());
    if (m_live->run())
        m_spread->setText(m_model->spreadText());
}

} // namespace goblin
