#pragma once
/// \file Loads runs (folders, or files alone) off the GUI thread, one at a time, with progress and
/// cancel.

#include "runanalysis.h"

#include <QFuture>
#include <QFutureWatcher>
#include <QObject>
#include <QStringList>
#include <QTimer>
#include <functional>
#include <memory>

namespace goblin {

/// Runs loadRun() on a QtConcurrent worker; the result comes back through a QFutureWatcher owned
/// by this object, so it is delivered on the GUI thread and dropped if the controller is gone.
/// (Not QFuture::then(context, ...): Qt 6.4 asserts in it when the context dies before the
/// future finishes.) Paths requested while one loads are queued. Progress from the worker threads is
/// stored in atomics and emitted from a GUI-thread timer (every 100 ms at most, only on change),
/// so no signal is emitted from a worker. Cancel is not an error: it emits cancelled() and
/// nothing else changes.
class LoadController : public QObject
{
    Q_OBJECT
public:
    using Loader = std::function<LoadResult(const QString &runDir, const LoadProgressCallback &progress)>;
    static constexpr int kProgressIntervalMs = 100;

    /// `loader` defaults to goblin::loadRun; tests inject a slow or failing one.
    explicit LoadController(QObject *parent = nullptr, Loader loader = {});
    ~LoadController() override;

    /// Queues `runDir` (as given: a folder, or a file to read alone); starts at once when idle. A
    /// path already queued or loading is not queued twice.
    void load(const QString &runDir);
    /// Cancels the load in progress and drops the queue.
    void cancel();
    bool isBusy() const { return !m_current.isEmpty(); }
    QString currentRunDir() const { return m_current; }
    QStringList queued() const { return m_queue; }

signals:
    void started(const QString &runDir);
    /// `fraction` 0..1, or -1 while unknown (indeterminate bar); `stage` is "Reading trace.csv"…
    void progressChanged(double fraction, const QString &stage);
    void loaded(std::shared_ptr<const goblin::RunAnalysis> run);
    void failed(const QString &runDir, const QString &message);
    void cancelled(const QString &runDir);
    /// Nothing loading and nothing queued.
    void idle();

private:
    struct Shared;
    void startNext();
    void finish(LoadResult result);
    void pollProgress();

    Loader m_loader;
    std::shared_ptr<Shared> m_shared;
    QFuture<LoadResult> m_worker;
    QFutureWatcher<LoadResult> m_watcher;
    QString m_current;
    QStringList m_queue;
    QTimer m_progressTimer;
    double m_lastFraction = -2.0;
    QString m_lastStage;
};

} // namespace goblin
