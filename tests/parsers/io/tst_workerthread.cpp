// io::WorkerThread: the trace reader's pipeline worker and range helpers run on reused threads.
// What must hold: join() waits for the function; a thread is reused once free; and more workers
// at once than the pool holds never wait behind each other (a reader waits for its own worker,
// so a queued worker would deadlock the load).

#include "io/workerthread.h"

#include <QTest>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

class TestWorkerThread : public QObject
{
    Q_OBJECT

private slots:
    void joinWaitsForTheFunction()
    {
        std::atomic<bool> ran{false};
        goblin::io::WorkerThread worker;
        QVERIFY(!worker.joinable());
        worker.start([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            ran = true;
        });
        QVERIFY(worker.joinable());
        worker.join();
        QVERIFY(ran);
        QVERIFY(!worker.joinable());
        worker.join();  // a second join is harmless
    }

    void runsOnAnotherThread()
    {
        std::thread::id where;
        goblin::io::WorkerThread worker;
        worker.start([&] { where = std::this_thread::get_id(); });
        worker.join();
        QVERIFY(where != std::thread::id{});
        QVERIFY(where != std::this_thread::get_id());
    }

    void threadsAreReused()
    {
        // One worker after the other: the pool hands back the same few threads instead of
        // creating one per start (that was the cost the pool removes). A few, not one: a thread
        // that has signalled "done" may not be back in the pool when the next start comes.
        std::set<std::thread::id> threads;
        std::mutex mutex;
        for (int i = 0; i < 50; ++i) {
            goblin::io::WorkerThread worker;
            worker.start([&] {
                std::lock_guard lock(mutex);
                threads.insert(std::this_thread::get_id());
            });
        }  // the destructor joins
        QVERIFY2(threads.size() <= 8, qPrintable(QStringLiteral("%1 threads for 50 runs").arg(threads.size())));
    }

    void moreWorkersThanThePoolNeverQueue()
    {
        // 48 workers that can only finish once all 48 run at the same time: more than the pool's
        // 32 threads, so the rest must get threads of their own rather than wait in a queue.
        constexpr int kWorkers = 48;
        std::mutex mutex;
        std::condition_variable allStarted;
        int started = 0;
        bool timedOut = false;
        std::vector<goblin::io::WorkerThread> workers(kWorkers);
        for (goblin::io::WorkerThread &worker : workers)
            worker.start([&] {
                std::unique_lock lock(mutex);
                ++started;
                allStarted.notify_all();
                if (!allStarted.wait_for(lock, std::chrono::seconds(20), [&] { return started == kWorkers; }))
                    timedOut = true;
            });
        for (goblin::io::WorkerThread &worker : workers)
            worker.join();
        QVERIFY(!timedOut);
        QCOMPARE(started, kWorkers);
    }

    void startAfterJoinReusesTheObject()
    {
        goblin::io::WorkerThread worker;
        int count = 0;
        for (int i = 0; i < 5; ++i) {
            worker.start([&] { ++count; });
            worker.join();
        }
        QCOMPARE(count, 5);
    }
};

QTEST_GUILESS_MAIN(TestWorkerThread)
#include "tst_workerthread.moc"
