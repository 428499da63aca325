#pragma once
/// \file Every threshold and weight as a slider with a spin box, the precision, the step count,
/// the heuristics profile and Reset to defaults.

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
        QSlider *slider = nullptr;
        QDoubleSpinBox *spin = nullptr;
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
