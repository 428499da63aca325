#pragma once
/// The Timeline view: the per-step bars (TimelinePanel) above the run's lanes (TraceLanesView:
/// host threads, then GPU streams), with the line naming what the lanes show, a search field with
/// next/previous, and the budget of the range selected on the lanes. A bar picked zooms the
/// lanes to its step.

#include <QWidget>

class QLabel;
class QLineEdit;
class QSplitter;
class QTimer;
class QToolButton;

namespace goblin {

struct RunAnalysis;
class TimelinePanel;
class TraceLanesView;

class TimelineView : public QWidget
{
    Q_OBJECT
public:
    /// Takes `panel` (the bars) into its splitter; its strip is hidden (the lanes show the events).
    explicit TimelineView(TimelinePanel *panel, QWidget *parent = nullptr);

    /// The run must outlive the view or be replaced first; nullptr clears.
    void setRun(const RunAnalysis *run);

    TimelinePanel *panel() const { return m_panel; }
    TraceLanesView *lanes() const { return m_lanes; }
    QLineEdit *searchField() const { return m_search; }
    /// "Align ranks": checked while the ranks' files are shifted to a common first step.
    QToolButton *alignRanksButton() const { return m_align; }
    QString scopeText() const;
    QString matchText() const;
    QString rangeText() const;
    QString selectionText() const;

private:
    void updateScope();
    void updateMatches();
    void updateRange();
    void updateSelection();
    void zoomToStep(int deviceIndex, int step);

    TimelinePanel *m_panel;
    TraceLanesView *m_lanes;
    QSplitter *m_splitter;
    QLabel *m_scope, *m_matches, *m_range, *m_selection;
    QLineEdit *m_search;
    QToolButton *m_previous, *m_next, *m_whole, *m_align;
    QTimer *m_searchDelay;
    bool m_settingRun = false;
};

} // namespace goblin
