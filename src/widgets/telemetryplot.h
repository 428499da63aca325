#pragma once
/// \file GPU utilisation and HBM used over time (QCustomPlot) with draggable threshold lines.

#include "customplot.h"
#include "thresholdeditor.h"

#include <optional>

namespace goblin {

struct SmiTelemetry;

/// Two stacked panels sharing the time axis: GPU utilisation (%) and HBM used (GB), one line per
/// GPU. The GPU-util threshold and the HBM target are horizontal lines the user drags; the side
/// of each line that counts as waste is shaded. Samples are set once per run; the threshold
/// lines and shading live on their own buffered layer, so a drag repaints only that layer
/// (queued, at most once per event-loop pass). Wheel zooms and drag pans the time axis;
/// R, Home or 0 resets the zoom.
class TelemetryPlot : public QCustomPlot
{
    Q_OBJECT
public:
    enum class Line { None, GpuUtil, HbmTarget };

    explicit TelemetryPlot(QWidget *parent = nullptr);

    /// Sets the samples (nullptr clears). Rebuilds the graphs and replots everything.
    void setTelemetry(const SmiTelemetry *telemetry);
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

private:
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

    QCPAxisRect *m_utilRect;
    QCPAxisRect *m_hbmRect;
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
