#include "timelineview.h"

#include "runanalysis.h"
#include "timelinepanel.h"
#include "tracelanesview.h"

#include <QGuiApplication>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QShortcut>
#include <QSplitter>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace goblin {

TimelineView::TimelineView(TimelinePanel *panel, QWidget *parent)
    : QWidget(parent)
    , m_panel(panel)
    , m_lanes(new TraceLanesView(this))
    , m_splitter(new QSplitter(Qt::Vertical, this))
    , m_scope(new QLabel(this))
    , m_matches(new QLabel(this))
    , m_range(new QLabel(this))
    , m_selection(new QLabel(this))
    , m_search(new QLineEdit(this))
    , m_previous(new QToolButton(this))
    , m_next(new QToolButton(this))
    , m_whole(new QToolButton(this))
    , m_align(new QToolButton(this))
    , m_searchDelay(new QTimer(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_scope->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_scope->setWordWrap(false);
    layout->addWidget(m_scope);

    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(4, 0, 4, 0);
    m_search->setPlaceholderText(tr("Search slices by name (Enter: next)"));
    m_search->setClearButtonEnabled(true);
    m_search->setMinimumWidth(200);
    m_search->setMaximumWidth(320);
    m_previous->setText(tr("◀"));
    m_previous->setToolTip(tr("Previous match (Shift+Enter)"));
    m_next->setText(tr("▶"));
    m_next->setToolTip(tr("Next match (Enter)"));
    m_whole->setText(tr("Whole run"));
    m_whole->setToolTip(tr("Show the whole run (F with nothing selected)"));
    m_align->setText(tr("Align ranks"));
    m_align->setCheckable(true);
    m_align->setToolTip(tr("Shift each rank's file so that its first step starts with the first file's "
                           "(on by itself when the files' clocks do not overlap)"));
    auto *keys = new QLabel(tr("W/S zoom · A/D pan · wheel zooms at the cursor · drag pans · Shift+drag: a range's budget · "
                               "click a slice: its flow"),
                            this);
    keys->setForegroundRole(QPalette::PlaceholderText);
    // Long lines never widen the window: they are cut at its edge (the scope line's full text is
    // also its tooltip).
    for (QLabel *label : {keys, m_scope, m_range, m_selection})
        label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    bar->addWidget(m_search);
    bar->addWidget(m_previous);
    bar->addWidget(m_next);
    bar->addWidget(m_matches);
    bar->addSpacing(8);
    bar->addWidget(m_whole);
    bar->addWidget(m_align);
    bar->addSpacing(8);
    bar->addWidget(keys, 1);
    layout->addLayout(bar);

    m_panel->setParent(nullptr);
    m_panel->setStripShown(false);
    m_splitter->addWidget(m_panel);
    m_splitter->addWidget(m_lanes);
    m_splitter->setStretchFactor(0, 1);
    m_splitter->setStretchFactor(1, 3);
    m_splitter->setChildrenCollapsible(false);
    layout->addWidget(m_splitter, 1);
    m_selection->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_selection->setContentsMargins(4, 0, 4, 0);
    layout->addWidget(m_selection);
    m_range->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_range->setContentsMargins(4, 0, 4, 2);
    layout->addWidget(m_range);

    m_searchDelay->setSingleShot(true);
    m_searchDelay->setInterval(300);  // a text filter waits for the typing to pause
    connect(m_search, &QLineEdit::textChanged, m_searchDelay, qOverload<>(&QTimer::start));
    connect(m_searchDelay, &QTimer::timeout, this, [this] { m_lanes->setSearchText(m_search->text()); });
    connect(m_search, &QLineEdit::returnPressed, this, [this] {
        if (m_searchDelay->isActive()) {
            m_searchDelay->stop();
            m_lanes->setSearchText(m_search->text());
        }
        if (QGuiApplication::keyboardModifiers() & Qt::ShiftModifier)
            m_lanes->previousMatch();
        else
            m_lanes->nextMatch();
    });
    connect(m_next, &QToolButton::clicked, m_lanes, &TraceLanesView::nextMatch);
    connect(m_previous, &QToolButton::clicked, m_lanes, &TraceLanesView::previousMatch);
    connect(m_whole, &QToolButton::clicked, m_lanes, &TraceLanesView::showWholeRun);
    connect(m_align, &QToolButton::clicked, this, [this](bool align) {
        m_lanes->setRankAlignment(align ? TraceLanesView::RankAlignment::FirstStep : TraceLanesView::RankAlignment::AsRecorded);
        if (!m_search->text().isEmpty())
            m_lanes->setSearchText(m_search->text());
        updateScope();
        updateMatches();
    });
    connect(m_lanes, &TraceLanesView::searchChanged, this, &TimelineView::updateMatches);
    connect(m_lanes, &TraceLanesView::rangeChanged, this, &TimelineView::updateRange);
    connect(m_lanes, &TraceLanesView::selectionChanged, this, &TimelineView::updateSelection);
    connect(m_panel, &TimelinePanel::stepPicked, this, &TimelineView::zoomToStep);
    auto *find = new QShortcut(QKeySequence::Find, this);
    find->setContext(Qt::WidgetWithChildrenShortcut);
    connect(find, &QShortcut::activated, this, [this] {
        m_search->setFocus(Qt::ShortcutFocusReason);
        m_search->selectAll();
    });
    setRun(nullptr);
}

void TimelineView::setRun(const RunAnalysis *run)
{
    // The lanes first (the panel's first bar is picked as it fills, and a pick zooms the lanes,
    // which must not read the previous run); the lanes open on the whole run.
    m_lanes->setRun(run);
    m_settingRun = true;
    m_panel->setRun(run);
    m_settingRun = false;
    if (!m_search->text().isEmpty())
        m_lanes->setSearchText(m_search->text());
    updateScope();
    updateMatches();
    updateRange();
    updateSelection();
}

QString TimelineView::scopeText() const { return m_scope->text(); }
QString TimelineView::matchText() const { return m_matches->text(); }
QString TimelineView::rangeText() const { return m_range->text(); }
QString TimelineView::selectionText() const { return m_selection->text(); }

void TimelineView::updateScope()
{
    m_scope->setText(m_lanes->scopeText());
    m_scope->setToolTip(m_scope->text());
    const GpuTimeline *shown = m_lanes->shownTimeline();
    m_align->setVisible(shown && shown->files.size() > 1);
    m_align->setChecked(m_lanes->ranksAligned());
    updateSelection();
    updateRange();
}

void TimelineView::updateMatches()
{
    const int n = m_lanes->searchMatchCount();
    if (m_search->text().trimmed().isEmpty())
        m_matches->clear();
    else if (n == 0)
        m_matches->setText(tr("no match"));
    else if (m_lanes->currentMatch() < 0)
        m_matches->setText(n == 1 ? tr("1 match") : tr("%1 matches").arg(n));
    else
        m_matches->setText(tr("%1 of %2").arg(m_lanes->currentMatch() + 1).arg(n));
    m_previous->setEnabled(n > 0);
    m_next->setEnabled(n > 0);
}

void TimelineView::updateRange()
{
    const QString summary = m_lanes->rangeSummary();
    m_range->setText(summary.isEmpty() ? tr("Shift+drag on the lanes (or drag on their time ruler) to see a range's GPU busy, "
                                            "idle, host-busy and data-wait time")
                                       : summary);
}

void TimelineView::updateSelection()
{
    const QString summary = m_lanes->selectionSummary();
    m_selection->setText(summary.isEmpty() ? tr("Click a slice: a kernel shows the call and operator that launched it, an "
                                                "operator or range the kernels it launched")
                                           : summary);
    m_selection->setToolTip(m_lanes->selected().valid() ? m_lanes->sliceName(m_lanes->selected()) + QLatin1Char('\n') + summary : summary);
}

void TimelineView::zoomToStep(int deviceIndex, int step)
{
    if (m_settingRun)
        return;
    // The lanes run on the torch trace's clock when it has events; a kernel trace's step is on
    // its own clock, so the lanes show the torch trace's step of that number instead.
    std::optional<TimeInterval> window = m_panel->stepWindow(deviceIndex, step);
    const bool sameClock = m_panel->fromTorchTrace(deviceIndex) == m_lanes->showsTorchTrace();
    if (!sameClock)
        window = step >= 0 && step < int(m_lanes->steps().size()) ? std::optional(m_lanes->steps()[std::size_t(step)]) : std::nullopt;
    if (!window || window->endNs <= window->startNs)
        return;
    const double pad = double(window->endNs - window->startNs) * 0.02;
    m_lanes->setViewRange(double(window->startNs) - pad, double(window->endNs) + pad);
}

} // namespace goblin
