#pragma once
/// \file The Roofline view (docs/roofline.md): each op and input shapes of the whole trace as a
/// point at its arithmetic intensity (FLOP/byte) and achieved TFLOP/s, log–log, its area
/// proportional to its device self time; the GPU's roofs drawn per datatype (memory bandwidth
/// slope, then each dtype's data-sheet peak). Clicking a point selects the op in Operators.

#include "gpuroofs.h"
#include "oproofline.h"
#include "run.h"

#include <QWidget>

#include <memory>
#include <vector>

class QCPAbstractPlottable;
class QCustomPlot;
class QLabel;
class QMouseEvent;

namespace goblin
{

/// Thread affinity: GUI thread. The points are set once per run (the rows are the run's).
class RooflineView : public QWidget
{
    Q_OBJECT
public:
    explicit RooflineView(QWidget *parent = nullptr);

    /// Null: an empty plot and a note.
    void setRun(const std::shared_ptr<const RunAnalysis> &run);

    /// One point: a row of the whole trace's ops with an intensity and an achieved rate.
    struct Point {
        QString name;
        QString shapes;
        double intensity = 0;       ///< FLOP/byte
        double achievedTflops = 0;
        double deviceSelfS = 0;
        std::optional<double> efficiencyPct;
        RoofDtype dtype = RoofDtype::Fp32;
    };
    const std::vector<Point> &points() const { return m_points; }
    const GpuRoof &roof() const { return m_roof; }
    /// The roof lines drawn (one per datatype with a peak, plus the bandwidth slope).
    int roofLineCount() const { return m_roofLines; }
    QCustomPlot *plot() const { return m_plot; }
    QLabel *noteLabel() const { return m_note; }
    /// Selects point `index` as a click would (emits opActivated).
    void activatePoint(int index);

signals:
    /// A point was clicked: the op's name and input shapes.
    void opActivated(const QString &name, const QString &shapes);

private:
    void rebuild();
    void onPlottableClick(QCPAbstractPlottable *plottable, int dataIndex, QMouseEvent *event);

    QCustomPlot *m_plot;
    QLabel *m_note;
    GpuRoof m_roof;
    std::vector<Point> m_points;
    std::vector<QCPAbstractPlottable *> m_pointGraphs;  ///< m_pointGraphs[i] draws m_points[i]
    int m_roofLines = 0;
};

} // namespace goblin
