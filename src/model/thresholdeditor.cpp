#include "thresholdeditor.h"

#include "liveanalysis.h"

#include <QUndoCommand>
#include <algorithm>

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
    switch (field) {
    case ThresholdField::GpuUtilBelow:
        return {QObject::tr("GPU util below"), QStringLiteral("%"), 0.0, 100.0, 1,
                QObject::tr("Data wait counts only when mean GPU utilisation is below this")};
    case ThresholdField::HostBusyAbove:
        return {QObject::tr("Host busy above"), QString(), 0.0, 1.0, 2,
                QObject::tr("Data wait counts only when the host is busier than this fraction of the step")};
    case ThresholdField::HbmTarget:
        return {QObject::tr("HBM target"), QStringLiteral("%"), 0.0, 100.0, 1,
                QObject::tr("HBM peak below this share of capacity counts as memory headroom")};
    case ThresholdField::HbmCapacity:
        return {QObject::tr("HBM capacity"), QStringLiteral("GB"), 1.0, 1024.0, 1,
                QObject::tr("Memory per GPU (MI300X: 192 GB)")};
    case ThresholdField::PrecisionWeight:
        return {QObject::tr("Precision weight"), QString(), 0.0, 1.0, 3,
                QObject::tr("Share of fp16 kernel time recoverable by moving to bf16")};
    case ThresholdField::HeadroomWeight:
        return {QObject::tr("Headroom weight"), QString(), 0.0, 1.0, 3,
                QObject::tr("Step-time share per unit of HBM slack")};
    case ThresholdField::Precision:
        return {QObject::tr("Precision"), QString(), 0.0, 0.0, 0,
                QObject::tr("Workload precision: bf16 and fp8 skip the precision-path bucket")};
    case ThresholdField::Steps:
        return {QObject::tr("Steps"), QString(), 0.0, 1e6, 0,
                QObject::tr("Labels the report; enters no bucket")};
    case ThresholdField::All:
        break;
    }
    return {QObject::tr("Thresholds"), QString(), 0.0, 0.0, 0, QString()};
}

double thresholdValue(const Thresholds &t, ThresholdField field)
{
    switch (field) {
    case ThresholdField::GpuUtilBelow:
        return t.gpuUtilBelowPct;
    case ThresholdField::HostBusyAbove:
        return t.hostBusyAbove;
    case ThresholdField::HbmTarget:
        return t.hbmTargetPct;
    case ThresholdField::HbmCapacity:
        return t.hbmCapacityGb;
    case ThresholdField::PrecisionWeight:
        return t.precisionWeight;
    case ThresholdField::HeadroomWeight:
        return t.headroomWeight;
    case ThresholdField::Steps:
        return t.steps ? double(*t.steps) : 0.0;
    default:
        return 0.0;
    }
}

Thresholds withThresholdValue(Thresholds t, ThresholdField field, double value)
{
    switch (field) {
    case ThresholdField::GpuUtilBelow:
        t.gpuUtilBelowPct = value;
        break;
    case ThresholdField::HostBusyAbove:
        t.hostBusyAbove = value;
        break;
    case ThresholdField::HbmTarget:
        t.hbmTargetPct = value;
        break;
    case ThresholdField::HbmCapacity:
        t.hbmCapacityGb = value;
        break;
    case ThresholdField::PrecisionWeight:
        t.precisionWeight = value;
        break;
    case ThresholdField::HeadroomWeight:
        t.headroomWeight = value;
        break;
    case ThresholdField::Steps:
        if (value >= 1.0)
            t.steps = int(value);
        else
            t.steps.reset();
        break;
    default:
        break;
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
