#pragma once
/// \file The measured GPU timeline beside the budget: a
/// stacked bar per step and per device (compute / exposed communication / other copies / idle with
/// the host busy / idle with nothing running), and a zoomable strip of one step's GPU events, one
/// lane per stream.
///
/// Readable at any size: step labels thin out and device labels ("r3 · d7") elide to the room
/// their bars have, never overprinting; the bars are grouped by source (kernel trace / torch trace)
/// and by stepped / unstepped, each group on its own scale, so one unstepped 4.5 s span cannot
/// dwarf 641 ms steps; devices sorted by rank and device, streams by number; the timeline's colours
/// are its own (muted, dark) and never the budget buckets' bright ones; the bar whose events the
/// strip shows is outlined and named above the strip.

#include "customplot.h"

#include "timelineanalysis.h"
#include "timelinecut.h"

#include <QPointer>
#include <memory>
#include <optional>
#include <vector>

namespace goblin {

struct RunAnalysis;

class TimelinePanel : public QCustomPlot
{
    Q_OBJECT
public:
    /// The stacked parts of a bar, bottom to top; they add up to the step window.
    enum Part { Compute, ExposedComm, OtherBusy, IdleHostBusy, IdleNothing, PartCount };
    static QString partLabel(int part);
    static QString partDefinition(int part);  ///< tooltip text (docs/timeline.md)
    /// The timeline's own colours (bars and strip lanes), for the palette's light or dark side:
    /// muted and dark, so none can be read as a budget bucket (bucketColor()).
    static QColor partColor(int part, const QPalette &palette);

    explicit TimelinePanel(QWidget *parent = nullptr);

    /// Shows the run's timelines (the kernel trace's devices first, then the torch trace's);
    /// nullptr clears. The run must outlive the panel or be replaced first.
    void setRun(const RunAnalysis *run);
    /// The step plan's cut (Derived::timelineCut, for the window's step field --steps N): devices
    /// without step marks are shown cut into N equal steps of their kernel span; null shows their
    /// span as one step. The panel only draws it.
    void setTimelineCut(std::shared_ptr<const TimelineCut> cut);
    std::optional<int> equalSteps() const { return m_cut ? std::optional<int>(m_cut->steps) : std::nullopt; }
    /// Shows the GPU events of one step of one device (device indices as deviceLabel()'s: the
    /// kernel trace's devices, then the torch trace's, in analysis order).
    void showStrip(int deviceIndex, int step);

    int deviceCount() const { return int(m_devices.size()); }
    /// Device `deviceIndex` named one way everywhere: its GPU index (as the Telemetry tab numbers
    /// GPUs) beside the trace's own number: "GPU 0 (trace device 2)", or "GPU 0 (d2)" short.
    QString deviceLabel(int deviceIndex, bool shortForm = false) const;
    /// The label over a device's bars: "r3 · GPU 0 (d7)", or "r3 · d7" when that does not fit.
    QString deviceGroupLabel(int deviceIndex, bool compact) const;
    /// The GPU index of the trace's `device` in `file`: its position among the file's devices in
    /// device order; -1 when the file has no such device.
    static int gpuIndexOf(const GpuTimelineFile &file, qint64 device);
    /// Bars in display order: group by group (source, then stepped before unstepped), within a
    /// group devices by rank and device, then steps.
    int barCount() const;
    int stripDevice() const { return m_stripDevice; }
    int stripStep() const { return m_stripStep; }
    int stripEventCount() const { return m_stripEvents; }
    /// Seconds of `part` in bar `bar` (as drawn, for tests).
    double barValue(int bar, int part) const;
    /// The device (deviceLabel() index) and step of bar `bar`.
    int barDevice(int bar) const;
    int barStep(int bar) const;
    /// The bar the strip shows (outlined), -1 when none.
    int selectedBar() const { return m_selectedBar; }
    /// The bar groups drawn: each its own axis rect and value scale.
    int groupCount() const { return int(m_groups.size()); }
    QCPAxisRect *groupRect(int group) const;
    QString groupTitle(int group) const;
    /// The group bar `bar` is drawn in.
    int groupOfBar(int bar) const;
    QCPAxisRect *barsRect() const { return groupRect(0); }
    QCPAxisRect *stripRect() const { return m_stripRect; }
    /// The line above the strip: which step of which device it shows.
    QString stripTitle() const;
    /// The labels drawn now (after the last layout): the step labels under and the device labels
    /// over the bars of `group`, as (key, text) with empty texts left out; and the stream labels
    /// of the strip's lanes, bottom to top.
    QVector<QPair<double, QString>> stepLabels(int group) const;
    QVector<QPair<double, QString>> deviceLabels(int group) const;
    QStringList laneLabels() const;
    /// What the tooltip says at a widget position (empty where nothing is).
    QString toolTipAt(const QPointF &pos) const;
    /// The step window bar (device, step) stands for, on its trace's clock; and whether the device
    /// comes from the torch trace (the clock of the host lanes) or a kernel trace.
    std::optional<TimeInterval> stepWindow(int deviceIndex, int step) const;
    bool fromTorchTrace(int deviceIndex) const;
    /// Shows or hides the strip of one step's GPU events (the Timeline's lanes show them when the
    /// panel sits above them); the bars take its room.
    void setStripShown(bool shown);
    bool stripShown() const { return m_stripShown; }

signals:
    /// A bar was picked (a click, or showStrip() from outside): its device and step.
    void stepPicked(int deviceIndex, int step);

protected:
    bool event(QEvent *e) override;
    void mousePressEvent(QMouseEvent *e) override;
    void mouseReleaseEvent(QMouseEvent *e) override;
    void mouseDoubleClickEvent(QMouseEvent *e) override;
    void changeEvent(QEvent *e) override;

private:
    struct DeviceRef {
        const DeviceTimelineAnalysis *analysis = nullptr;
        const GpuTimeline *timeline = nullptr;
        const FileTimelineSummary *file = nullptr;
        int source = 0;                         ///< 0 kernel trace, 1 torch trace
        std::size_t index = 0;                  ///< in its timeline analysis' devices
        std::vector<TimeInterval> windows;      ///< the steps shown: the device's own, or N equal ones
        std::vector<TimelineStepValues> steps;  ///< their values
    };
    struct BarRef {
        int device = 0, step = 0, group = 0;
        double key = 0.0;  ///< in its group's rect
        double values[PartCount] = {};  ///< ms
    };
    struct Group {
        QCPAxisRect *rect = nullptr;
        QCPBars *parts[PartCount] = {};
        QString title;
        int firstBar = 0, bars = 0;
        struct DeviceSpan {
            int device = 0;
            double firstKey = 0, lastKey = 0;
        };
        std::vector<DeviceSpan> devices;
    };
    struct StripEvent {
        double start = 0, end = 0;  ///< seconds from the step start
        int lane = 0;
        QString name;
    };
    void rebuildBars();
    void clearGroups();
    Group &addGroup(const QString &title);
    void applyEqualSteps();
    void applyColours();
    /// Fits the step, device and lane labels and the lane thickness to the current sizes; true
    /// when anything changed (then another replot shows it).
    bool relabel();
    int barAt(const QPointF &pos) const;
    void markSelection();

    const RunAnalysis *m_run = nullptr;
    std::vector<DeviceRef> m_devices;
    std::vector<BarRef> m_bars;
    std::vector<Group> m_groups;
    std::vector<StripEvent> m_strip;
    QCPLayoutGrid *m_groupsGrid = nullptr;
    QCPTextElement *m_stripTitle = nullptr;
    QCPAxisRect *m_stripRect = nullptr;
    QCPItemRect *m_selection = nullptr;
    std::vector<QCPGraph *> m_lanes;
    QStringList m_laneNames;
    int m_stripDevice = -1, m_stripStep = -1, m_stripEvents = 0, m_selectedBar = -1;
    std::shared_ptr<const TimelineCut> m_cut;
    QString m_labelState;  ///< what relabel() drew last, to know when it changed
    QPoint m_pressPos;
    bool m_stripShown = true;
    bool m_quietPick = false;  ///< showStrip() from applyEqualSteps(): no stepPicked
};

} // namespace goblin
