#pragma once
/// \file A function run on another thread and joined, on a thread that is reused across reads.

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace goblin::io {

/// Runs one function on another thread; join() (or the destructor) waits until it has returned.
/// Like a std::thread, except that the thread comes from a private pool and goes back to it:
/// creating and ending a thread costs a clone, a fresh 8 MB stack that faults in page by page, and
/// a cross-CPU TLB flush when it is unmapped, which a run folder of many small rank traces (and the
/// fuzzer, thousands of times a second) would pay per trace. The pool never queues: when none of
/// its threads is free at once, the function gets a std::thread of its own, so a reader waiting for
/// its worker can never wait behind other readers.
class WorkerThread
{
public:
    WorkerThread() = default;
    WorkerThread(const WorkerThread &) = delete;
    WorkerThread &operator=(const WorkerThread &) = delete;
    ~WorkerThread() { join(); }

    /// Starts `work`, after waiting for the previous function, if any.
    void start(std::function<void()> work);
    /// True from start() until join() returned.
    bool joinable() const { return m_state != nullptr || m_ownThread.joinable(); }
    /// Waits for the function to return. Safe to call more than once.
    void join();

private:
    struct State {
        std::mutex mutex;
        std::condition_variable finished;
        bool done = false;
    };
    std::shared_ptr<State> m_state;  // shared with the pool's task, which may outlive a wait by a moment
    std::thread m_ownThread;         // when the pool had no free thread
};

} // namespace goblin::io
