#include "loadcontroller.h"

#include <QMutex>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <atomic>

namespace goblin {

/// State shared with the worker; outlives the controller if the worker is still running.
struct LoadController::Shared {
    std::atomic<bool> cancel{false};
    std::atomic<int> permille{-1};  ///< -1 = unknown
    QMutex stageMutex;
    QString stage;
};

LoadController::LoadController(QObject *parent, Loader loader)
    : QObject(parent)
    , m_loader(loader ? std::move(loader)
                      : Loader([](const QString &path, const LoadProgressCallback &progress) {
                            return goblin::loadRun(path, progress);
                        }))
{
    m_progressTimer.setInterval(kProgressIntervalMs);
    connect(&m_progressTimer, &QTimer::timeout, this, &LoadController::pollProgress);
    // The watcher's finished() is always delivered through the event loop, never inside load(),
    // so load() is free of re-entrant finished/started signals.
    connect(&m_watcher, &QFutureWatcherBase::finished, this, [this] {
        if (!m_worker.isValid() || !m_worker.isResultReadyAt(0)) {
            LoadResult lost;
            lost.outcome = LoadOutcome::Failed;
            lost.error = tr("%1: the loader ended without a result").arg(m_current);
            finish(std::move(lost));
            return;
        }
        // A copy, not takeResult(): in Qt 6.4 a taken future never reports finished again, and
        // the destructor waits on it. Then drop the future so it holds no run.
        LoadResult result = m_worker.result();
        m_worker = QFuture<LoadResult>();
        finish(std::move(result));
    });
}

LoadController::~LoadController()
{
    // Do not leave a worker reading files after the window is gone. The watcher goes with this
    // object, so no result is delivered afterwards.
    m_watcher.disconnect(this);
    if (m_shared)
        m_shared->cancel = true;
    m_worker.waitForFinished();
}

void LoadController::load(const QString &runDir)
{
    if (runDir == m_current || m_queue.contains(runDir))
        return;
    m_queue.append(runDir);
    if (!isBusy())
        startNext();
}

void LoadController::cancel()
{
    m_queue.clear();
    if (m_shared)
        m_shared->cancel = true;
}

void LoadController::startNext()
{
    if (m_queue.isEmpty()) {
        emit idle();
        return;
    }
    m_current = m_queue.takeFirst();
    m_shared = std::make_shared<Shared>();
    m_lastFraction = -2.0;
    m_lastStage.clear();
    emit started(m_current);
    emit progressChanged(-1.0, tr("Opening %1").arg(m_current));

    const std::shared_ptr<Shared> shared = m_shared;
    const Loader loader = m_loader;
    const QString runDir = m_current;
    // May be called from several parser threads at once: atomics and a mutex only.
    const LoadProgressCallback progress = [shared](double fraction, const QString &stage) {
        shared->permille = fraction < 0.0 ? -1 : int(std::min(1.0, fraction) * 1000.0);
        {
            QMutexLocker lock(&shared->stageMutex);
            if (shared->stage != stage)
                shared->stage = stage;
        }
        return !shared->cancel.load();
    };
    m_progressTimer.start();
    m_worker = QtConcurrent::run([loader, runDir, progress] { return loader(runDir, progress); });
    m_watcher.setFuture(m_worker);
}

void LoadController::pollProgress()
{
    if (!m_shared)
        return;
    const int permille = m_shared->permille.load();
    const double fraction = permille < 0 ? -1.0 : permille / 1000.0;
    QString stage;
    {
        QMutexLocker lock(&m_shared->stageMutex);
        stage = m_shared->stage;
    }
    if (stage.isEmpty())
        return;
    if (fraction == m_lastFraction && stage == m_lastStage)
        return;
    m_lastFraction = fraction;
    m_lastStage = stage;
    emit progressChanged(fraction, stage);
}

void LoadController::finish(LoadResult result)
{
    m_progressTimer.stop();
    const QString runDir = m_current;
    const bool cancelRequested = m_shared && m_shared->cancel.load();
    m_current.clear();
    m_shared.reset();

    // A load that completed after Cancel was pressed is still a cancel: the app stays as it was.
    if (cancelRequested || result.outcome == LoadOutcome::Cancelled)
        emit cancelled(runDir);
    else if (result.outcome == LoadOutcome::Failed || !result.run)
        emit failed(runDir, result.error.isEmpty() ? tr("%1: could not be loaded").arg(runDir) : result.error);
    else
        emit loaded(std::move(result.run));
    startNext();
}

} // namespace goblin
