#include "io/workerthread.h"

#include <QThreadPool>

#include <utility>

namespace goblin::io {

namespace {

QThreadPool &pool()
{
    // Enough for the readers of one load (a range helper per core, a pipeline worker per trace);
    // idle threads end after 30 s, so an idle workbench holds none.
    static QThreadPool threads;
    static const bool configured = [] {
        threads.setMaxThreadCount(32);
        threads.setExpiryTimeout(30'000);
        return true;
    }();
    (void)configured;
    return threads;
}

} // namespace

void WorkerThread::start(std::function<void()> work)
{
    join();
    auto state = std::make_shared<State>();
    auto task = [state, work = std::move(work)] {
        work();
        std::lock_guard lock(state->mutex);
        state->done = true;
        state->finished.notify_all();
    };
    if (pool().tryStart(task)) {
        m_state = std::move(state);
        return;
    }
    m_ownThread = std::thread(std::move(task));
}

void WorkerThread::join()
{
    if (m_ownThread.joinable())
        m_ownThread.join();
    if (m_state) {
        std::unique_lock lock(m_state->mutex);
        m_state->finished.wait(lock, [&] { return m_state->done; });
        lock.unlock();
        m_state.reset();
    }
}

} // namespace goblin::io
