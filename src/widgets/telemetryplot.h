#pragma once
/// \file GPU utilisation and HBM used over time (QCustomPlot) with draggable threshold lines;
/// without telemetry the trace's own busy fraction and memory, and a one-line note for a panel
/// with nothing to draw.

#include "customplot.h"
#include "thresholdeditor.h"

#include <optional>
#include <vector>

namespace goblin {

struct Derived;
struct RunAnalysis;
struct SmiTelemetry;

/// Two stacked panels sharing the time axis: GPU utilisation (%) and HBM used (GB), one line per
/// GPU. The GPU-util threshold and the HBM target are horizontal lines the user drags; the side
/// of each line that counts as waste is shaded. Samples are set once per run; the threshold
/// lines and shading live on their own buffered layer, so a drag repaints only that layer
/// (queued, at most once per event-loop pass). Wheel zooms and drag pans the time axis;
/// R, Home or 0 resets the zoom. Time starts at 0 at the run's first sample or event.
/// A panel whose every series has fewer than two samples (one telemetry row per GPU, one step
/// per device) is no time series: it draws one bar per GPU or rank instead of a dot or a flat
/// segment on a time axis. Each panel keeps kMinPanelHeightPx, so dragging a threshold moves
/// it at most 1 % per pixel; where the height is short the panels stand side by side.
class TelemetryPlot : public QCustomPlot
{
    Q_OBJECT
public:
    enum class Line { None, GpuUtil, HbmTarget };
    /// The least height of a panel's plot area: 105 % (the utilisation axis) or 108 % of the
    /// capacity (the HBM axis, to 1.05 × capacity) over at least this many pixels is ≤ 1 % per pixel.
    static constexpr int kMinPanelHeightPx = 106;

    explicit TelemetryPlot(QWidget *parent = nullptr);

    /// Sets the samples (nullptr clears) and no trace series. Rebuilds the graphs and replots everything.
    void setTelemetry(const SmiTelemetry *telemetry);
    /// Everything the run has to draw (nullptr clears): amd-smi telemetry when present; without
    /// it the trace's measured busy fraction per step and device (the GPU timeline's busy union
    /// over each step window, as the budget uses it: torch trace, else kernel trace) in the
    /// utilisation panel, and the trace's allocator memory (allocated solid, reserved dashed,
    /// per device) in the HBM panel. With telemetry, the trace's reserved peak is a level line in
    /// the HBM panel (the trace has no clock shared with telemetry). A panel with nothing to draw
    /// is left out and a one-line note says why; with neither panel the plot is that line alone.
    /// When the analysis placed the telemetry on the steps (SmiTelemetry::placement), each step's
    /// start is a thin vertical line in both panels and every other step is shaded.
    /// The allocator memory is chrome trace `rankIndex`'s (traceRankChoices(): 0 is the primary).
    void setRun(const RunAnalysis *run, int rankIndex = 0);

    enum class Source { None, Telemetry, Trace };
    Source utilSource() const { return m_utilSource; }
    Source memorySource() const { return m_memorySource; }
    bool utilPanelShown() const { return m_utilSource != Source::None; }
    bool hbmPanelShown() const { return m_memorySource != Source::None; }
    /// Nothing to draw at all: the plot is one line of text (with a run open, its maximum height
    /// says so too).
    bool collapsed() const { return !utilPanelShown() && !hbmPanelShown(); }
    /// The note for the panels left out ("No telemetry and no memory events in this trace"),
    /// empty when both are drawn.
    QString noteText() const;
    /// Panels drawn as one bar per GPU or rank (fewer than two samples in every series).
    bool utilAsBars() const { return m_utilBars; }
    bool hbmAsBars() const { return m_hbmBars; }
    /// The bars of a panel drawn as bars: one per GPU, rank or device, in legend order.
    QList<QCPBars *> barsOf(Line panel) const { return panel == Line::HbmTarget ? m_hbmBarItems : m_utilBarItems; }
    /// The panels stand side by side (the plot is too short to stack them at kMinPanelHeightPx).
    bool panelsSideBySide() const { return m_sideBySide; }
    /// The threshold values at which this run's budget changes (sweepBreakpoints(), in the
    /// line's unit: %); `gatesOnly` as thresholdSpanAround() takes it. A drag that crosses none
    /// of them says "no effect on this run" and the next switch beside the line.
    void setSwitchValues(Line line, std::vector<double> valuesPct, bool gatesOnly);
    /// Both lines' switches for `run` at `derived`'s thresholds (none without a run).
    void setSwitchesFrom(const RunAnalysis *run, const Derived &derived);
    /// The note beside a line while it is dragged ("no effect on this run — next switch 72.40 % up"),
    /// empty when the drag changes the budget or no drag is under way.
    QString dragEffectText(Line line) const;
    int traceBusyGraphCount() const { return int(m_traceBusyGraphs.size()); }
    QCPGraph *traceBusyGraph(int index) const { return m_traceBusyGraphs.value(index); }
    /// The trace allocator's peak (reserved or allocated, GB = 1e9 bytes) over its devices; 0 without.
    double traceMemoryPeakGb() const { return m_traceMemoryPeakGb; }
    bool traceMemoryPeakShown() const;
    int traceMemoryGraphCount() const { return int(m_traceMemoryGraphs.size()); }
    QCPGraph *traceMemoryGraph(int index) const { return m_traceMemoryGraphs.value(index); }
    /// Steps marked on the time axis (telemetry placed on the steps): lines drawn, and the time
    /// (s, on the telemetry axis) where step `index` starts.
    int stepMarkCount() const { return int(m_stepLines.size()); }
    double stepMarkTimeS(int index) const;
    int stepShadeCount() const { return int(m_stepShades.size()); }
    /// The label items that sit over the curves (tests: each has an opaque enough background).
    QList<QCPItemText *> levelLabels() const;
    /// The run's levels the budget uses: mean utilisation and HBM peak (dashed reference lines).
    /// NaN utilisation: nothing measured it: no line, the label reads "budget util —". `utilNote`
    /// is the level's scope (or, when unknown, why), in the label and its tooltip.
    void setRunLevels(double meanUtilPct, std::optional<double> hbmPeakGb, const QString &utilNote = QString());
    /// The budget-util label as drawn, and its tooltip (tests).
    QString meanUtilText() const;
    QString meanUtilToolTip() const;
    bool meanUtilLineShown() const { return m_meanUtilLine->visible(); }
    /// Moves the threshold lines; only the threshold layer is replotted unless the capacity
    /// (and with it the HBM axis) changed.
    void setThresholds(double gpuUtilBelowPct, double hbmTargetPct, double hbmCapacityGb);
    void resetZoom();
    /// "(drag)" after the threshold labels; off for exported images.
    void setInteractiveHints(bool show);
    void applyPalette(const QPalette &palette);

    /// The drag the mouse handlers perform, callable directly (tests, keyboard).
    Line lineAt(const QPointF &pos) const;
    bool beginLineDrag(const QPointF &pos);
    void dragLineTo(const QPointF &pos);
    void endLineDrag();
    Line draggedLine() const { return m_drag; }
    /// A widget position on `line` (horizontal middle of its panel).
    QPointF linePosition(Line line) const;
    /// The threshold value (in its field's unit: % for both lines) a drag to `pos` sets.
    double valueAt(Line line, const QPointF &pos) const;

    double gpuUtilLinePct() const { return m_utilPct; }
    double hbmTargetLineGb() const { return m_hbmTargetPct / 100.0 * m_capacityGb; }
    QCPAxisRect *utilRect() const { return m_utilRect; }
    QCPAxisRect *hbmRect() const { return m_hbmRect; }
    QCPLayer *thresholdLayer() const { return m_thresholdLayer; }
    QCPItemStraightLine *utilLineItem() const { return m_utilLine; }
    QCPItemStraightLine *hbmLineItem() const { return m_hbmLine; }
    int gpuCount() const { return int(m_utilGraphs.size()); }
    QCPGraph *utilGraph(int gpu) const { return m_utilGraphs.value(gpu); }
    QCPGraph *hbmGraph(int gpu) const { return m_hbmGraphs.value(gpu); }
    /// Overlay replots done so far (tests check that a drag does not replot everything).
    int overlayReplots() const { return m_overlayReplots; }

signals:
    /// `value` is in the field's unit (%); emitted on every mouse move of a drag.
    void thresholdDragged(goblin::ThresholdField field, double value);
    void dragFinished(goblin::ThresholdField field);

protected:
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    bool event(QEvent *event) override;
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    /// Collapsed to its note: the height of that line, so a layout gives the rest of its room to
    /// the other widgets instead of leaving a blank band under the note.
    QSize sizeHint() const override;

private:
    void rebuild(const SmiTelemetry *telemetry, const RunAnalysis *run, int rankIndex = 0);
    /// Moves every series and step mark so the time axis starts at 0 (m_timeMin).
    void shiftTimeToZero();
    /// Bars per series for the panels whose series are too short to be a curve.
    void buildBars();
    void clearBars();
    int minimumPlotHeight(bool sideBySide) const;
    void linkTimeAxes();
    void addTraceBusy(const RunAnalysis &run);
    void addTraceMemory(const RunAnalysis &run, bool asCurves, int rankIndex);
    void addStepMarks(const RunAnalysis &run);
    void clearStepMarks();
    /// Lays out the panels that have something to draw and the note, hides the items of the others.
    void relayoutPanels();
    void applyItemVisibility();
    void updateAxisLabels();
    void createThresholdItems(QCPAxisRect *rect, QCPItemStraightLine *&line, QCPItemRect *&shade,
                              QCPItemText *&label);
    QCPItemStraightLine *createLevelLine(QCPAxisRect *rect, QCPItemText *&label);
    void placeThresholdItems();
    void updateHbmRange();
    void scheduleOverlayReplot();
    void styleItems();
    QColor graphColor(int index) const;
    static void setHorizontal(QCPItemStraightLine *line, double y);
    static void anchorLabel(QCPItemText *label, QCPAxisRect *rect, double xRatio, double y, Qt::Alignment horizontal);
    static void fitLabel(QCPItemText *label, QCPAxisRect *rect);

    QCPAxisRect *m_utilRect;
    QCPAxisRect *m_hbmRect;
    QCPLayoutGrid *m_panelGrid;  ///< the two panels, stacked or side by side
    QCPMarginGroup *m_marginGroup;
    QSharedPointer<QCPAxisTicker> m_utilTimeTicker;
    QSharedPointer<QCPAxisTicker> m_hbmTimeTicker;
    QList<QCPBars *> m_utilBarItems;
    QList<QCPBars *> m_hbmBarItems;
    bool m_utilBars = false;
    bool m_hbmBars = false;
    bool m_sideBySide = false;
    std::vector<double> m_utilSwitches;
    std::vector<double> m_hbmSwitches;
    bool m_utilGatesOnly = true;
    bool m_hbmGatesOnly = false;
    double m_dragStartPct = 0.0;
    QCPLayer *m_thresholdLayer;
    QVector<QCPGraph *> m_utilGraphs;
    QVector<QCPGraph *> m_hbmGraphs;
    QCPItemStraightLine *m_utilLine = nullptr;
    QCPItemRect *m_utilShade = nullptr;
    QCPItemText *m_utilLabel = nullptr;
    QCPItemStraightLine *m_hbmLine = nullptr;
    QCPItemRect *m_hbmShade = nullptr;
    QCPItemText *m_hbmLabel = nullptr;
    QCPItemStraightLine *m_meanUtilLine = nullptr;
    QCPItemText *m_meanUtilLabel = nullptr;
    QString m_meanUtilNote;
    QCPItemStraightLine *m_hbmPeakLine = nullptr;
    QCPItemText *m_hbmPeakLabel = nullptr;
    QCPItemStraightLine *m_capacityLine = nullptr;
    QCPItemText *m_capacityLabel = nullptr;
    QCPItemText *m_emptyText = nullptr;
    QVector<QCPGraph *> m_traceBusyGraphs;
    QVector<QCPGraph *> m_traceMemoryGraphs;
    QCPItemStraightLine *m_traceMemoryPeakLine = nullptr;
    QCPItemText *m_traceMemoryPeakLabel = nullptr;
    QCPTextElement *m_note = nullptr;
    QCPLayer *m_stepLayer = nullptr;                ///< under the curves, over the grid
    QVector<QCPItemLine *> m_stepLines;             ///< a step's start, in each panel (2 per step)
    QVector<double> m_stepTimes;                    ///< the start of each marked step (s)
    QVector<QCPItemRect *> m_stepShades;            ///< every other step, in each panel
    QString m_telemetryTool = QStringLiteral("amd-smi");
    Source m_utilSource = Source::None;
    Source m_memorySource = Source::None;
    bool m_meanUtilKnown = false;
    bool m_hasRun = false;
    bool m_traceKnown = false;
    bool m_hbmPeakKnown = false;
    double m_traceMemoryPeakGb = 0.0;

    double m_utilPct = 30.0;
    double m_hbmTargetPct = 70.0;
    double m_capacityGb = 192.0;
    double m_maxHbmUsedGb = 0.0;
    double m_timeMin = 0.0;
    double m_timeMax = 1.0;
    Line m_drag = Line::None;
    bool m_overlayPending = false;
    bool m_interactiveHints = true;
    int m_overlayReplots = 0;
};

} // namespace goblin
