#pragma once
/// The run's time line as Perfetto and the TensorBoard trace viewer draw it: per host thread its
/// ranges stacked by depth (step, data loading, record_function and module ranges, CPU operators,
/// runtime calls), then each GPU's streams. Zoom and pan across the whole run (wheel at the
/// cursor, drag, W/A/S/D), select a slice to see its flow (a kernel to the runtime call that
/// launched it, and back), search by name, Shift+drag a range for its busy/idle budget.
///
/// Drawing never walks every event: within a lane (one depth of one thread, one GPU stream)
/// slices are sorted by start and their ends never decrease (a stream's by a prefix maximum), so
/// the first slice after a pixel is one binary search away; a pixel holding many slices is one
/// mark and the walk jumps to the next pixel. A repaint costs O(lanes × pixels × log n).

#include "results/hostlanes.h"
#include "timelinerange.h"

#include <QWidget>

#include <map>
#include <memory>
#include <optional>
#include <vector>

class QScrollBar;

namespace goblin {

struct RunAnalysis;
struct GpuTimeline;
struct GpuTimelineFile;
struct GpuDeviceTimeline;

class TraceLanesView : public QWidget
{
    Q_OBJECT
public:
    /// A slice: a host range (file, index into HostLanes::slices) or a GPU event (file, device
    /// index in the file, index into its events).
    struct SliceRef {
        int file = -1;
        int device = -1;  ///< -1: a host slice
        quint32 index = 0;
        bool valid() const { return file >= 0; }
        bool gpu() const { return device >= 0; }
        bool operator==(const SliceRef &o) const { return file == o.file && device == o.device && index == o.index; }
    };
    /// Host depths shown per thread until the user expands it or zooms in below kAllDepthsNs.
    static constexpr int kCollapsedDepths = 4;
    static constexpr qint64 kAllDepthsNs = 2'000'000;
    /// Arrows drawn for one selection (a step launches thousands of kernels: they are counted,
    /// and the first ones get arrows).
    static constexpr int kMaxFlowArrows = 256;
    /// Characters of a slice's name in selectionSummary() (longer ones are cut in the middle).
    static constexpr int kSummaryNameChars = 72;

    explicit TraceLanesView(QWidget *parent = nullptr);
    ~TraceLanesView() override;

    /// Shows the run's chrome traces (host lanes and their GPUs); a run with none shows its kernel
    /// trace's GPUs. The run must outlive the view or be replaced first; nullptr clears.
    void setRun(const RunAnalysis *run);
    /// How several files (ranks) share the time axis: each on its own clock as recorded; shifted
    /// so that every file's first step starts with the first file's; or (Automatic) shifted only
    /// when their spans do not overlap, i.e. each kept its own epoch.
    enum class RankAlignment { Automatic, AsRecorded, FirstStep };
    void setRankAlignment(RankAlignment alignment);
    RankAlignment rankAlignment() const { return m_rankAlignment; }
    /// The files are shown shifted (sliceStartNs() and the view are on the shifted clock).
    bool ranksAligned() const { return m_alignedRanks; }
    /// What is shown: "torch_profile.json · rank 0 · 2 GPUs (d2, d3) · 10 steps · 3 host threads".
    QString scopeText() const;
    /// The lanes show the torch traces (host and GPU, one clock); false: a kernel trace's GPUs.
    bool showsTorchTrace() const;
    /// The timeline shown (the torch traces' or the kernel trace's); null with none.
    const GpuTimeline *shownTimeline() const { return m_timeline; }

    qint64 originNs() const { return m_originNs; }  ///< the earliest time shown (the ruler's 0)
    qint64 runStartNs() const { return m_runStartNs; }
    qint64 runEndNs() const { return m_runEndNs; }
    double viewStartNs() const { return m_viewStartNs; }
    double viewEndNs() const { return m_viewStartNs + m_nsPerPx * trackWidthPx(); }
    void setViewRange(double startNs, double endNs);
    void showWholeRun();
    /// The step windows of the shown files (the first file's ProfilerSteps).
    const std::vector<TimeInterval> &steps() const { return m_steps; }

    /// Zoom by `factor` (> 1 zooms in) keeping the time under `x` (track pixels) in place.
    void zoomAt(double factor, double x);
    void panByPixels(double dx);

    int rowCount() const { return int(m_rows.size()); }
    QString rowLabel(int row) const;
    /// Row of host lane (file, thread, depth) / GPU stream (file, device index, stream index); -1
    /// when not shown.
    int hostRow(int file, int thread, int depth) const;
    int gpuRow(int file, int device, int stream) const;
    void setThreadExpanded(int file, int thread, bool expanded);

    const GpuTimelineFile *file(int index) const;
    const HostLanes *hostLanes(int file) const;
    QString sliceName(const SliceRef &s) const;
    /// On the view's clock: the file's own plus its alignment shift (0 unless ranksAligned()).
    qint64 sliceStartNs(const SliceRef &s) const;
    qint64 sliceEndNs(const SliceRef &s) const;
    /// The row a slice is drawn on (its thread's deepest shown row when its depth is hidden).
    int sliceRow(const SliceRef &s) const;
    /// A point inside the slice's drawn rectangle, widget coordinates (for tests and arrows).
    QPointF slicePoint(const SliceRef &s) const;
    SliceRef sliceAt(const QPointF &pos) const;
    /// The host slices (file, index) at time `ns` (the file's own clock) on thread `thread`, outermost first.
    std::vector<SliceRef> hostSlicesAt(int file, int thread, qint64 ns) const;
    /// The GPU events of `device` in [startNs, endNs) (the file's own clock).
    int gpuEventCount(int file, int device, qint64 startNs, qint64 endNs) const;

    SliceRef selected() const { return m_selected; }
    void select(const SliceRef &s);
    /// Where the selection's flows go: a GPU event's launching runtime call(s); a runtime call's
    /// GPU events; any other host range's GPU events, launched by the runtime calls inside it.
    const std::vector<SliceRef> &flowTargets() const { return m_flows; }
    /// The CPU operator that made a runtime call (the deepest one around it); invalid when none.
    SliceRef launchingOp(const SliceRef &runtimeCall) const;
    /// The selected GPU event's launching CPU operator (outlined on its lane); invalid otherwise.
    SliceRef selectedLaunchingOp() const { return m_launchOp; }
    /// GPU events the selected host range launched and their summed GPU time (all of them, also
    /// past the arrows drawn).
    int selectedKernelCount() const { return m_flowGpuEvents; }
    qint64 selectedGpuTimeNs() const { return m_flowGpuNs; }
    /// One line on the selection: what, how long, where, and what launched it or what it launched.
    QString selectionSummary() const;

    /// Highlights every slice whose name contains `text` (case-insensitive); the match count.
    int setSearchText(const QString &text);
    int searchMatchCount() const { return int(m_matches.size()); }
    int currentMatch() const { return m_currentMatch; }
    void nextMatch();
    void previousMatch();
    SliceRef match(int i) const;

    std::optional<TimeInterval> selectedRange() const { return m_range; }
    void setSelectedRange(qint64 startNs, qint64 endNs);
    void clearSelectedRange();
    /// The GPU devices shown (file, device index), in row order.
    std::vector<std::pair<int, int>> shownDevices() const;
    /// The budget of [startNs, endNs) on the file's own clock.
    TimelineRangeValues rangeValues(int file, int device, qint64 startNs, qint64 endNs) const;
    /// One line per shown GPU: the selected range's budget (empty without a range).
    QString rangeSummary() const;

    int labelWidthPx() const { return m_labelWidthPx; }
    int rulerHeightPx() const { return m_rulerPx; }
    int rowHeightPx() const { return m_rowPx; }
    int trackWidthPx() const;

signals:
    void viewRangeChanged();
    void selectionChanged();
    void rangeChanged();
    void searchChanged();

protected:
    void paintEvent(QPaintEvent *e) override;
    void resizeEvent(QResizeEvent *e) override;
    void wheelEvent(QWheelEvent *e) override;
    void mousePressEvent(QMouseEvent *e) override;
    void mouseMoveEvent(QMouseEvent *e) override;
    void mouseReleaseEvent(QMouseEvent *e) override;
    void keyPressEvent(QKeyEvent *e) override;
    bool event(QEvent *e) override;

private:
    struct StreamIndex {
        std::vector<quint32> order;  ///< event indices by start
        std::vector<qint64> maxEnd;  ///< prefix maximum of their ends
    };
    struct DeviceLanes {
        int file = 0, device = 0;
        std::vector<StreamIndex> streams;  ///< by stream index of the device
        std::vector<int> streamOrder;      ///< stream indices by stream number
        std::vector<std::uint8_t> nameClass;  ///< per file name: 0 compute, 1 collective, 2 copy
    };
    struct FileRef {
        const GpuTimelineFile *file = nullptr;
        qint64 firstNs = 0, lastNs = -1;  ///< the file's span on its own clock (empty: last < first)
        qint64 anchorNs = 0;              ///< its first CPU-lane step's start, else firstNs
        qint64 offsetNs = 0;              ///< added to its times to place them on the view's clock
        std::vector<bool> expanded;  ///< per host thread
        std::vector<bool> hostMatch, gpuMatch;  ///< per name: matches the search
    };
    struct Row {
        enum Kind { FileHeader, Host, Gpu } kind = Host;
        int file = 0;
        int thread = 0, depth = 0, lane = -1;   ///< Host
        int deviceLanes = -1, stream = -1;      ///< Gpu: index into m_devices, stream index
        bool lastShownDepth = false;            ///< Host: deeper depths are hidden
    };

    void rebuildRows();
    /// Sets each file's offsetNs from m_rankAlignment; true when any file is shifted.
    bool alignRanks();
    int visibleDepths(int file, int thread) const;
    double toX(double ns) const { return (ns - m_viewStartNs) / m_nsPerPx + m_labelWidthPx; }
    double toNs(double x) const { return m_viewStartNs + (x - m_labelWidthPx) * m_nsPerPx; }
    int rowTop(int row) const { return m_rulerPx + row * m_rowPx - m_scrollY; }
    int rowAtY(double y) const;
    void clampView();
    void updateScrollBar();
    void computeFlows();
    void drawRuler(class QPainter &p);
    void drawHostRow(class QPainter &p, const Row &row, int top);
    void drawGpuRow(class QPainter &p, const Row &row, int top);
    void drawFlows(class QPainter &p);
    /// The GPU events of the runtime calls `calls` (slice indices of file `fileIndex`, sorted):
    /// appended to m_flows and m_flowArrows, counted in m_flowGpuEvents and m_flowGpuNs.
    void addKernelsOf(int fileIndex, const std::vector<quint32> &calls);
    const DeviceLanes *deviceLanes(int file, int device) const;
    QString toolTipAt(const QPointF &pos) const;
    void goToMatch(int i);

    const RunAnalysis *m_run = nullptr;
    const GpuTimeline *m_timeline = nullptr;
    std::vector<FileRef> m_files;
    std::vector<DeviceLanes> m_devices;
    std::vector<Row> m_rows;
    std::vector<TimeInterval> m_steps;
    qint64 m_originNs = 0, m_runStartNs = 0, m_runEndNs = 1;
    double m_viewStartNs = 0, m_nsPerPx = 1;
    bool m_allDepths = false;  ///< zoomed in below kAllDepthsNs
    RankAlignment m_rankAlignment = RankAlignment::Automatic;
    bool m_alignedRanks = false;
    int m_labelWidthPx = 170, m_rulerPx = 22, m_rowPx = 18, m_scrollY = 0;
    QScrollBar *m_scroll = nullptr;

    SliceRef m_selected;
    std::vector<SliceRef> m_flows;
    /// The arrows drawn: runtime call → GPU event (at most kMaxFlowArrows).
    std::vector<std::pair<SliceRef, SliceRef>> m_flowArrows;
    SliceRef m_launchOp;
    int m_flowGpuEvents = 0;
    qint64 m_flowGpuNs = 0;
    std::vector<SliceRef> m_matches;
    int m_currentMatch = -1;
    QString m_searchText;
    std::optional<TimeInterval> m_range;
    mutable std::map<std::pair<int, int>, std::unique_ptr<TimelineRangeIndex>> m_rangeIndex;

    enum class Drag { None, Pan, Range } m_drag = Drag::None;
    QPointF m_pressPos;
    double m_pressViewStartNs = 0;
    qint64 m_rangeAnchorNs = 0;
    bool m_moved = false;
};

} // namespace goblin
