#pragma once
/// \file The threshold sweep in the window and as a PNG: each waste bucket (seconds per step) as a
/// function of one threshold, the current value marked and the points where a bucket switches on
/// or off. Every point is sweepRun()'s, i.e. exactly what `report` gives at that value.

#include "customplot.h"
#include "sweep.h"

#include <QStringList>
#include <QWidget>
#include <memory>
#include <optional>

class QComboBox;
class QLabel;

namespace goblin {

class WorkbenchSession;

/// Points the window sweeps: the threshold's whole range in this many steps (Derived's curve).
inline constexpr int kSweepChartSteps = kSweepCurveSteps;

/// The values the window sweeps for `which`: its whole range, kSweepChartSteps steps.
std::vector<double> sweepChartValues(SweepThreshold which);

/// Draws the sweep into `plot` (clears it first): one line per bucket that is above zero at
/// some value, a vertical line at `current` (when set) and a dashed one at each switch point.
/// `points` is a sweepCurve(): a switch is drawn as a vertical step at its exact value.
void drawSweepPlot(QCustomPlot *plot, SweepThreshold which, const std::vector<SweepPoint> &points,
                   std::optional<double> current, const QPalette &palette);

/// The sweep as an image: title, the chart, the switch points and `command` in small print.
/// `painted`, when given, receives the switch-point lines as printed (switchPointText()).
QImage renderSweepImage(const QString &runName, SweepThreshold which, const std::vector<SweepPoint> &points,
                        std::optional<double> current, const QStringList &command,
                        double devicePixelRatio = 2.0, QStringList *painted = nullptr);
/// "data wait on at 48.5312": a switch point as the window's summary, the chart's label and the
/// image's list print it (one formatting, so they agree to the digit).
QString switchPointText(const SwitchPoint &s);
bool renderSweepPng(const QString &runName, SweepThreshold which, const std::vector<SweepPoint> &points,
                    std::optional<double> current, const QStringList &command, const QString &path,
                    QString *error);

/// The window's sweep: pick a threshold; the chart follows the current run, the profile and every
/// threshold live (the other thresholds shape the curves too). Clicking or dragging on the chart
/// sets the swept threshold through the session's ThresholdEditor, as the panel's slider does.
class SweepChart : public QWidget
{
    Q_OBJECT
public:
    explicit SweepChart(WorkbenchSession *session, QWidget *parent = nullptr);

    SweepThreshold threshold() const { return m_which; }
    void setThreshold(SweepThreshold which);
    QComboBox *thresholdBox() const { return m_box; }
    QCustomPlot *plot() const { return m_plot; }

    /// As drawn: Derived's sweep curve (sweepCurve() over sweepChartValues() for the live run,
    /// profile and thresholds: the sampled points and both sides of every switch).
    const std::vector<SweepPoint> &points() const { return m_points; }
    /// The exact switch points (the same values `sweep` writes for any range that holds them).
    std::vector<SwitchPoint> switches() const { return switchPoints(m_points); }
    /// The swept threshold's live value (the marked line).
    double currentValue() const;
    /// The value a click at widget x position `x` of the plot sets.
    double valueAtPlotX(double x) const;
    quint64 refreshCount() const { return m_refreshes; }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    /// A theme switch redraws the chart in the new palette (its colours are set when drawn).
    void changeEvent(QEvent *event) override;

private:
    void refresh();  ///< takes Derived's curve and redraws
    void redraw();   ///< the curve held, the current value and the summary

    WorkbenchSession *m_session;
    SweepThreshold m_which = SweepThreshold::GpuUtilBelow;
    QComboBox *m_box;
    QLabel *m_summary;
    QCustomPlot *m_plot;
    std::vector<SweepPoint> m_points;
    bool m_dragging = false;
    quint64 m_refreshes = 0;
};

} // namespace goblin
