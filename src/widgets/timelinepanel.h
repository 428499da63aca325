#pragma once
/// \file The measured GPU timeline beside the budget (issue 13): a stacked bar per step and per
/// device (compute / exposed communication / other copies / idle with the host busy / idle with
/// nothing running), and a zoomable strip of one step's GPU events, one lane per stream.

#include "customplot.h"

#include "timelineanalysis.h"

#include <QPointer>
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

    explicit TimelinePanel(QWidget *parent = nullptr);

    /// Shows the run's timelines (the kernel trace's devices first, then the torch trace's);
    /// nullptr clears. The run must outlive the panel or be replaced first.
    void setRun(const RunAnalysis *run);
    /// The window's step field (--steps N): devices without step marks are shown cut into N
    /// equal steps of their kernel span; nullopt shows their span as one step.
    void setEqualSteps(std::optional<int> steps);
    /// Shows the GPU events of one step of one device (indices as in barCount order).
    void showStrip(int deviceIndex, int step);

    int deviceCount() const { return int(m_devices.size()); }
    /// Device `deviceIndex` (barCount order) named one way everywhere: its GPU index (as the
    /// Telemetry tab numbers GPUs) beside the trace's own number: "GPU 0 (trace device 2)", or
    /// "GPU 0 (d2)" under the bars.
    QString deviceLabel(int deviceIndex, bool shortForm = false) const;
    /// The GPU index of the trace's `device` in `file`: its position among the file's devices in
    /// device order; -1 when the file has no such device.
    static int gpuIndexOf(const GpuTimelineFile &file, qint64 device);
    int barCount() const;
    int stripDevice() const { return m_stripDevice; }
    int stripStep() const { return m_stripStep; }
    int stripEventCount() const { return m_stripEvents; }
    /// Seconds of `part` in bar `bar` (as drawn, for tests).
    double barValue(int bar, int part) const;
    QCPAxisRect *barsRect() const { return m_barsRect; }
    QCPAxisRect *stripRect() const { return m_stripRect; }
    /// What the tooltip says at a widget position (empty where nothing is).
    QString toolTipAt(const QPointF &pos) const;

protected:
    bool event(QEvent *e) override;
    void mouseDoubleClickEvent(QMouseEvent *e) override;

private:
    struct DeviceRef {
        const DeviceTimelineAnalysis *analysis = nullptr;
        const GpuTimeline *timeline = nullptr;
        const FileTimelineSummary *file = nullptr;
        std::vector<TimeInterval> windows;      ///< the steps shown: the device's own, or N equal ones
        std::vector<TimelineStepValues> steps;  ///< their values
    };
    struct BarRef {
        int device = 0, step = 0;
    };
    struct StripEvent {
        double start = 0, end = 0;  ///< seconds from the step start
        int lane = 0;
        QString name;
    };
    void rebuildBars();
    void applyEqualSteps();

    const RunAnalysis *m_run = nullptr;
    std::vector<DeviceRef> m_devices;
    std::vector<BarRef> m_bars;
    std::vector<StripEvent> m_strip;
    QCPAxisRect *m_barsRect = nullptr;
    QCPAxisRect *m_stripRect = nullptr;
    QCPBars *m_parts[PartCount] = {};
    std::vector<QCPGraph *> m_lanes;
    int m_stripDevice = -1, m_stripStep = -1, m_stripEvents = 0;
    std::optional<int> m_equalSteps;
};

} // namespace goblin
