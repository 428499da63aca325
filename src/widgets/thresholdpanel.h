#pragma once
/// \file Every threshold and weight as a slider with a spin box, the precision, the step count,
/// the heuristics profile and Reset to defaults.

#include "derived.h"
#include "thresholdeditor.h"

#include <QWidget>
#include <array>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;

namespace goblin {

class WorkbenchSession;

/// Edits go through the session's ThresholdEditor (undoable, one undo step per drag); the
/// controls follow LiveAnalysis::thresholdsChanged, so chart drags, undo and redo move them too.
class ThresholdPanel : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kSliderSteps = 1000;

    explicit ThresholdPanel(WorkbenchSession *session, QWidget *parent = nullptr);

    QSlider *slider(ThresholdField field) const { return m_rows[std::size_t(field)].slider; }
    QDoubleSpinBox *spinBox(ThresholdField field) const { return m_rows[std::size_t(field)].spin; }
    /// The run's value beside a threshold ("run: 48.5 %", "run: —"), its scope and source in the tooltip.
    QLabel *runValueLabel(ThresholdField field) const { return m_rows[std::size_t(field)].runValue; }
    /// The run value's state after it ("measured", "estimated"; empty when unknown).
    QLabel *runStateLabel(ThresholdField field) const { return m_rows[std::size_t(field)].state; }
    /// Under each slider: what crosses when the line passes the run's values, with the live count.
    QLabel *crossingLabel(ThresholdField field) const { return m_rows[std::size_t(field)].crossing; }

    /// What `field` does to this run at `derived`'s thresholds, in words, with the live numbers
    /// from `derived` (docs/budget.md, "What the thresholds move"): "Below 30.0 %: steps under it
    /// book host-busy idle as data wait — 3 of 8 step(s) now; next switch 48.53 % up, 12.00 % down."
    /// Empty without a run.
    static QString crossingText(ThresholdField field, const RunAnalysis *run, const Derived &derived);
    QComboBox *precisionBox() const { return m_precision; }
    QSpinBox *stepsBox() const { return m_steps; }
    QComboBox *profileBox() const { return m_profile; }
    QPushButton *resetButton() const { return m_reset; }

    static int sliderPosition(ThresholdField field, double value);
    static double sliderValue(ThresholdField field, int position);

private:
    struct Row {
        QLabel *label = nullptr;
        QLabel *runValue = nullptr;
        QLabel *crossing = nullptr;
        QLabel *state = nullptr;
        QSlider *slider = nullptr;
        QDoubleSpinBox *spin = nullptr;
        double dragStart = 0.0;  ///< the value when the slider was taken (the "no effect" note)
    };
    void syncThresholds(const Thresholds &thresholds);
    void syncRunValues();
    void syncProfile();

    WorkbenchSession *m_session;
    std::array<Row, kNumericThresholdFieldCount> m_rows;
    QComboBox *m_precision;
    QSpinBox *m_steps;
    QComboBox *m_profile;
    QPushButton *m_reset;
};

} // namespace goblin
