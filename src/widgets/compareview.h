#pragma once
/// \file Runs side by side in the window, under the session's one set of thresholds: each run's
/// stacked budget (the budget chart's colours) beside the bucket deltas as bars (s/step or share
/// of step), top-kernel changes and telemetry per run, against a baseline the user picks. The numbers are compareRuns()'s, the same `compare --json` writes.

#include "compareplot.h"
#include "runanalysis.h"

#include <QJsonObject>
#include <QTimer>
#include <QWidget>
#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;
class QTableWidget;

namespace goblin {

class WorkbenchSession;

/// Lists the session's open runs, each with a check box (ticked when it is opened), and compares
/// the ticked ones. A threshold or profile change (a drag on any chart or slider) recomputes
/// every run, coalesced like LiveAnalysis (one recompute per kCoalesceMs).
class CompareView : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kCoalesceMs = 16;

    explicit CompareView(WorkbenchSession *session, QWidget *parent = nullptr);

    QListWidget *runList() const { return m_runList; }
    QComboBox *baselineBox() const { return m_baselineBox; }
    QComboBox *unitBox() const { return m_unitBox; }
    QCustomPlot *deltaPlot() const { return m_plot; }
    /// Every compared run's stacked budget side by side (drawCompareStackedBudgets), beside the deltas.
    QCustomPlot *budgetPlot() const { return m_budgetPlot; }
    /// The seconds per step of run `comparedIndex`'s segment `key` in budgetPlot(), as drawn.
    double drawnStackValue(int comparedIndex, const QString &key) const;
    QTableWidget *kernelTable() const { return m_kernelTable; }
    QTableWidget *telemetryTable() const { return m_telemetryTable; }
    QPushButton *addRunsButton() const { return m_addRuns; }
    QPushButton *exportPngButton() const { return m_exportPng; }

    /// compareRuns() of the ticked runs as of the last recompute (empty with fewer than two).
    const QJsonObject &result() const { return m_result; }
    /// The ticked runs, in session order: result()["runs"] are their reports.
    const std::vector<std::shared_ptr<const RunAnalysis>> &comparedRuns() const { return m_compared; }
    /// Index of the baseline among comparedRuns().
    int baseline() const { return m_baseline; }
    void setBaseline(int comparedIndex);
    /// Ticks or unticks the session's run `row`.
    void setRunChecked(int row, bool checked);
    DeltaUnit unit() const;
    /// The bar of delta `deltaIndex` (compareDeltaList order; with EachRunSecondsPerStep the
    /// run's index) at budget key `key`, as drawn (NaN where no bar is drawn).
    double drawnBarValue(int deltaIndex, const QString &key) const;
    /// The command that reproduces result() (`goblin-workbench compare …`).
    QStringList command() const;

    bool recomputePending() const { return m_timer.isActive(); }
    /// Runs a pending recompute now.
    void flush();
    quint64 recomputeCount() const { return m_recomputes; }

    /// Writes renderComparePng(result()) to `path`.
    bool exportPng(const QString &path, QString *error) const;

signals:
    /// "Add runs…": the window opens a folder dialog; runs it loads join the comparison.
    void addRunsRequested();

protected:
    void changeEvent(QEvent *event) override;  ///< a theme switch redraws the charts in its colours

private:
    void syncRunList();
    void schedule();
    void recompute();
    void redraw();
    void chooseExportPath();

    WorkbenchSession *m_session;
    QListWidget *m_runList;
    QComboBox *m_baselineBox;
    QComboBox *m_unitBox;
    QPushButton *m_addRuns;
    QPushButton *m_exportPng;
    QLabel *m_summary;
    QCustomPlot *m_plot;
    QCustomPlot *m_budgetPlot;
    QTableWidget *m_kernelTable;
    QTableWidget *m_telemetryTable;
    QTimer m_timer;
    /// Run folders the user unticked (new runs come ticked).
    QStringList m_unchecked;
    std::vector<std::shared_ptr<const RunAnalysis>> m_compared;
    QString m_baselineDir;
    int m_baseline = 0;
    QJsonObject m_result;
    quint64 m_recomputes = 0;
    bool m_syncing = false;
};

} // namespace goblin
