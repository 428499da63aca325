#pragma once
/// \file The launch flame graph: the stacks (module → op → sub-op → GPU event) that launched the
/// GPU time of a scope, as stacked boxes whose width is their GPU time (or host time).

#include "run.h"
#include "results/traceattribution.h"

#include <QRectF>
#include <QWidget>
#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QScrollArea;
class QToolButton;

namespace goblin
{

class FlameCanvas;

/// Drawn with QPainter, as Hotspot's flame graph: the root at the bottom, each frame's children
/// above it side by side (sorted by name, so the picture does not reorder when the weight
/// switches), width ∝ weight, frames under a pixel left out. Colours say the frame kind (legend
/// beside the controls). Click a frame to zoom into it (its ancestors stay as full-width bars
/// below; click one to zoom out to it, Back / Reset undo); every click also emits frameSelected.
/// The search highlights matching frames and greys out those with no match above or below.
/// Thread affinity: GUI thread.
class FlameGraph : public QWidget
{
    Q_OBJECT
public:
    enum class Weight { GpuTime, HostTime };
    /// One laid-out frame, in canvas coordinates.
    struct Box {
        int node = -1; ///< index into LaunchTree::nodes
        QRectF rect;
        int depth = 0;       ///< 0 = the root row
        bool match = false;  ///< its name matches the search
        bool dimmed = false; ///< a search runs and neither it nor anything above/below matches
    };

    explicit FlameGraph(QWidget *parent = nullptr);
    ~FlameGraph() override;

    /// Null, a run without attribution or without GPU time: an empty graph with a one-line note.
    /// The run's chrome trace `rankIndex` (traceRankChoices(): 0 is the primary trace).
    void setRun(std::shared_ptr<const RunAnalysis> run, int rankIndex = 0);
    /// As setRun, for an attribution on its own; `emptyNote` is shown when it has nothing to draw.
    void setAttribution(std::shared_ptr<const TraceAttribution> attribution, const QString &emptyNote = {});
    /// 0 = whole trace, i >= 1 = step i (attributiontext.h). Resets the zoom.
    void setScopeIndex(int index);
    int scopeIndex() const { return m_scopeIndex; }
    void setWeight(Weight weight);
    Weight weight() const { return m_weight; }
    /// Case-insensitive substring of the frame name; empty ends the search.
    void setSearchText(const QString &text);
    /// Makes `node` the full-width frame (the root: no zoom); remembered for back().
    void zoomTo(int node);
    void back();
    void resetZoom();
    int zoomNode() const { return m_zoomNode; }

    const LaunchTree *tree() const;
    qint64 weightOf(int node) const;
    /// The frames as drawn at the canvas's current size.
    const std::vector<Box> &boxes() const;
    /// The frame under `pos` (canvas coordinates), -1 if none.
    int nodeAt(QPointF pos) const;
    QString toolTipFor(int node) const;
    QWidget *canvas() const;
    QString emptyNote() const;
    QString breadcrumb() const;
    QString searchSummary() const;
    QLineEdit *searchEdit() const { return m_search; }
    QComboBox *scopeCombo() const { return m_scope; }
    QComboBox *weightCombo() const { return m_weightCombo; }

    static QColor kindColor(FrameKind kind);

signals:
    /// A frame was clicked (not the root): the op and kernel views can filter on it.
    void frameSelected(const QString &name, goblin::FrameKind kind);

private:
    friend class FlameCanvas;
    void rebuild();
    void updateLabels();
    void clicked(int node);

    std::shared_ptr<const TraceAttribution> m_attribution;
    const AttributionScope *m_scopeData = nullptr;
    int m_scopeIndex = 0;
    Weight m_weight = Weight::GpuTime;
    QString m_searchText;
    int m_zoomNode = 0;
    std::vector<int> m_history;
    QString m_note;

    QComboBox *m_scope;
    QComboBox *m_weightCombo;
    QLineEdit *m_search;
    QToolButton *m_back;
    QToolButton *m_reset;
    QLabel *m_crumbs;
    QLabel *m_noteLabel;
    QLabel *m_searchLabel;
    QScrollArea *m_scroll;
    FlameCanvas *m_canvas;
};

} // namespace goblin
