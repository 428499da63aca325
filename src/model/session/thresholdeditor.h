#pragma once
/// \file Undoable threshold changes shared by the panel's sliders and the charts' draggable lines.

#include "thresholds.h"

#include <QObject>
#include <QString>
#include <QUndoStack>

namespace goblin {

class LiveAnalysis;

struct ThresholdFieldInfo {
    QString label;
    QString unit;     ///< "%", "GB" or empty
    double minimum = 0.0;
    double maximum = 1.0;
    int decimals = 2;
    QString toolTip;  ///< where the knob enters the budget
};
/// Numeric fields read thresholdDescriptors(); Precision and Steps are described here.
ThresholdFieldInfo thresholdFieldInfo(ThresholdField field);

/// The value of a numeric field (GpuUtilBelow … HeadroomWeight).
double thresholdValue(const Thresholds &thresholds, ThresholdField field);
Thresholds withThresholdValue(Thresholds thresholds, ThresholdField field, double value);

/// Applies threshold changes to a LiveAnalysis through a QUndoStack. Consecutive changes of the
/// same field merge into one undo step until endGesture() (mouse release, editing finished) or
/// a change of another field, so one drag is one undo step however many frames it spans.
class ThresholdEditor : public QObject
{
    Q_OBJECT
public:
    explicit ThresholdEditor(LiveAnalysis *live, QObject *parent = nullptr);
    ~ThresholdEditor() override;

    QUndoStack *undoStack() { return &m_stack; }
    LiveAnalysis *live() const { return m_live; }

    void change(const Thresholds &thresholds, ThresholdField field);
    /// change() of one numeric field, clamped to its range: the only clamp between a control or
    /// a dragged line and the thresholds.
    void changeValue(ThresholdField field, double value);
    void endGesture();
    void resetToDefaults();
    /// Sets thresholds that are not an edit (restored settings): clears the undo history.
    void replaceWithoutUndo(const Thresholds &thresholds);

private:
    LiveAnalysis *m_live;
    QUndoStack m_stack;
    int m_gesture = 0;
    ThresholdField m_lastField = ThresholdField::All;
    bool m_pushing = false;
};

} // namespace goblin
