#include "thresholdeditor.h"

#include "liveanalysis.h"

#include <QUndoCommand>
#include <algorithm>
#include <cmath>

namespace goblin {

namespace {

constexpr int kSetThresholdsCommandId = 0x7468;

class SetThresholdsCommand : public QUndoCommand
{
public:
    SetThresholdsCommand(LiveAnalysis *live, const Thresholds &before, const Thresholds &after, ThresholdField field,
                         int gesture)
        : m_live(live)
        , m_before(before)
        , m_after(after)
        , m_field(field)
        , m_gesture(gesture)
    {
        setText(field == ThresholdField::All ? QObject::tr("Reset thresholds")
                                             : QObject::tr("Change %1").arg(thresholdFieldInfo(field).label));
    }

    void undo() override { m_live->setThresholds(m_before); }
    void redo() override { m_live->setThresholds(m_after); }
    int id() const override { return kSetThresholdsCommandId; }

    bool mergeWith(const QUndoCommand *other) override
    {
        const auto *next = static_cast<const SetThresholdsCommand *>(other);
        if (m_field == ThresholdField::All || next->m_field != m_field || next->m_gesture != m_gesture)
            return false;
        m_after = next->m_after;
        setObsolete(m_after == m_before);
        return true;
    }

private:
    LiveAnalysis *m_live;
    Thresholds m_before;
    Thresholds m_after;
    ThresholdField m_field;
    int m_gesture;
};

} // namespace

ThresholdFieldInfo thresholdFieldInfo(ThresholdField field)
{
    if (const ThresholdDescriptor *d = thresholdDescriptor(field))
        return {d->labelText(), d->unitText(), d->minimum, d->maximum, d->decimals, d->toolTipText()};
    switch (field) {
    case ThresholdField::Precision:
        return {QObject::tr("Precision"), QString(), 0.0, 0.0, 0,
                QObject::tr("Workload precision: bf16 and fp8 skip the precision-path bucket")};
    case ThresholdField::Steps:
        return {QObject::tr("Steps"), QString(), 0.0, 1e6, 0,
                QObject::tr("Labels the report; enters no bucket")};
    default:
        break;
    }
    return {QObject::tr("Thresholds"), QString(), 0.0, 0.0, 0, QString()};
}

double thresholdValue(const Thresholds &t, ThresholdField field)
{
    if (const ThresholdDescriptor *d = thresholdDescriptor(field))
        return t.*(d->member);
    if (field == ThresholdField::Steps)
        return t.steps ? double(*t.steps) : 0.0;
    return 0.0;
}

Thresholds withThresholdValue(Thresholds t, ThresholdField field, double value)
{
    if (const ThresholdDescriptor *d = thresholdDescriptor(field)) {
        t.*(d->member) = value;
    } else if (field == ThresholdField::Steps) {
        if (value >= 1.0)
            t.steps = int(value);
        else
            t.steps.reset();
    }
    return t;
}

ThresholdEditor::ThresholdEditor(LiveAnalysis *live, QObject *parent)
    : QObject(parent)
    , m_live(live)
{
    // Undo/redo ends the gesture, so a drag after an undo never merges into the undone step.
    connect(&m_stack, &QUndoStack::indexChanged, this, [this] {
        if (!m_pushing)
            endGesture();
    });
}

ThresholdEditor::~ThresholdEditor() = default;

void ThresholdEditor::change(const Thresholds &thresholds, ThresholdField field)
{
    const Thresholds before = m_live->thresholds();
    if (thresholds == before)
        return;
    if (field != m_lastField)
        ++m_gesture;
    m_lastField = field;
    m_pushing = true;
    m_stack.push(new SetThresholdsCommand(m_live, before, thresholds, field, m_gesture));
    m_pushing = false;
}

void ThresholdEditor::changeValue(ThresholdField field, double value)
{
    if (std::isnan(value))
        return;  // no position on any scale: not an edit
    const ThresholdFieldInfo info = thresholdFieldInfo(field);
    change(withThresholdValue(m_live->thresholds(), field, std::clamp(value, info.minimum, info.maximum)), field);
}

void ThresholdEditor::endGesture()
{
    ++m_gesture;
    m_lastField = ThresholdField::All;
}

void ThresholdEditor::resetToDefaults()
{
    endGesture();
    change(Thresholds{}, ThresholdField::All);
    endGesture();
}

void ThresholdEditor::replaceWithoutUndo(const Thresholds &thresholds)
{
    m_stack.clear();
    endGesture();
    m_live->setThresholds(thresholds);
}

} // namespace goblin
