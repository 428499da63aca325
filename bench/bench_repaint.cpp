// Window repaint while a threshold is dragged (issue 4, target: within one frame, 16 ms).
//
//   goblin-bench-repaint [RUN_DIR] [--moves N] [--size WxH]
//
// Loads RUN_DIR (default $GOBLIN_BENCH_RUN_DIR, else resources/example-run), shows the dashboard
// (WorkbenchView) beside the ThresholdPanel, as the window lays them out, and then drags
//   1. the GPU-utilisation threshold line of the telemetry plot with real mouse events, and
//   2. the GPU-utilisation slider of the threshold panel,
// up and down over their whole range. One frame = one mouse move (or slider step), then the
// live recompute that LiveAnalysis would run on its 16 ms coalescing timer (flushed at once so
// the frame measures work, not the wait), then every queued replot and paint event. The time of
// each frame is taken with QElapsedTimer; paint events are counted to show that repainting did
// happen. Runs on any QPA platform; QT_QPA_PLATFORM defaults to offscreen here.
// No timing is asserted: the numbers are printed (median, 95th percentile, worst).

#include "liveanalysis.h"
#include "runanalysis.h"
#include "telemetryplot.h"
#include "thresholdpanel.h"
#include "workbenchsession.h"
#include "workbenchview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QMouseEvent>
#include <QPointingDevice>
#include <QSlider>
#include <QTextStream>
#include <algorithm>
#include <cmath>
#include <ctime>
#include <functional>
#include <map>
#include <vector>

namespace
{

QTextStream &out()
{
    static QTextStream s(stdout);
    return s;
}

/// Counts paint events per widget class during a frame.
class PaintCounter : public QObject
{
public:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Paint) {
            ++m_total;
            // Views paint on a plain QWidget viewport: name it after its view.
            QString name = QString::fromLatin1(watched->metaObject()->className());
            if (name == QLatin1String("QWidget") && watched->parent())
                name = QString::fromLatin1(watched->parent()->metaObject()->className()) + QLatin1String(">viewport");
            ++m_byClass[name];
        }
        return false;
    }
    qint64 total() const { return m_total; }
    const std::map<QString, qint64> &byClass() const { return m_byClass; }

private:
    qint64 m_total = 0;
    std::map<QString, qint64> m_byClass;
};

/// CPU time of the whole process (all threads), ms: unlike the wall clock it does not grow when
/// other processes share the cores.
double processCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

/// Delivers everything a frame queued: the coalesced recompute, queued replots, update requests.
void finishFrame(goblin::LiveAnalysis *live)
{
    live->flush();
    for (int pass = 0; pass < 3; ++pass)
        QCoreApplication::processEvents(QEventLoop::ExcludeUserInputEvents);
}

struct Stats {
    double medianMs = 0, p95Ms = 0, maxMs = 0, meanMs = 0;
};

Stats statsOf(std::vector<double> ms)
{
    Stats s;
    if (ms.empty())
        return s;
    std::sort(ms.begin(), ms.end());
    s.medianMs = ms[ms.size() / 2];
    s.p95Ms = ms[std::min(ms.size() - 1, std::size_t(std::ceil(0.95 * double(ms.size()))) - 1)];
    s.maxMs = ms.back();
    double sum = 0;
    for (double v : ms)
        sum += v;
    s.meanMs = sum / double(ms.size());
    return s;
}

void report(const QString &scenario, const std::vector<double> &frames, const std::vector<double> &cpu, qint64 paints,
            quint64 recomputes, const PaintCounter &counter)
{
    const Stats s = statsOf(frames);
    const Stats c = statsOf(cpu);
    out() << QStringLiteral("%1: %2 frames\n  wall: median %3 ms, p95 %4 ms, worst %5 ms, mean %6 ms\n"
                            "  CPU:  median %10 ms, p95 %11 ms, worst %12 ms, mean %13 ms\n"
                            "  %7 paint events (%8 per frame), %9 recomputes\n")
                 .arg(scenario)
                 .arg(frames.size())
                 .arg(s.medianMs, 0, 'f', 2)
                 .arg(s.p95Ms, 0, 'f', 2)
                 .arg(s.maxMs, 0, 'f', 2)
                 .arg(s.meanMs, 0, 'f', 2)
                 .arg(paints)
                 .arg(frames.empty() ? 0.0 : double(paints) / double(frames.size()), 0, 'f', 1)
                 .arg(recomputes)
                 .arg(c.medianMs, 0, 'f', 2)
                 .arg(c.p95Ms, 0, 'f', 2)
                 .arg(c.maxMs, 0, 'f', 2)
                 .arg(c.meanMs, 0, 'f', 2);
    QStringList classes;
    for (const auto &[name, n] : counter.byClass())
        classes << QStringLiteral("%1 %2").arg(name).arg(n);
    out() << "  painted: " << classes.join(QStringLiteral(", ")) << "\n";
    out().flush();
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);

    QString runDir = qEnvironmentVariable("GOBLIN_BENCH_RUN_DIR");
    int moves = 200;
    QSize size(1600, 1000);
    const QStringList args = app.arguments().mid(1);
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args[i];
        bool ok = true;
        if (a == QLatin1String("--moves") && i + 1 < args.size()) {
            moves = args[++i].toInt(&ok);
            ok = ok && moves > 0;
        } else if (a == QLatin1String("--size") && i + 1 < args.size()) {
            const QStringList wh = args[++i].split(QLatin1Char('x'));
            ok = wh.size() == 2;
            if (ok)
                size = QSize(wh[0].toInt(&ok), wh[1].toInt());
            ok = ok && size.width() > 0 && size.height() > 0;
        } else if (!a.startsWith(QLatin1Char('-'))) {
            runDir = a;
        } else {
            ok = false;
        }
        if (!ok) {
            QTextStream(stderr) << "usage: goblin-bench-repaint [RUN_DIR] [--moves N] [--size WxH]\n";
            return 2;
        }
    }
    if (runDir.isEmpty())
        runDir = QStringLiteral(GOBLIN_SOURCE_DIR "/resources/example-run");

    QElapsedTimer loadTimer;
    loadTimer.start();
    const goblin::LoadResult loaded = goblin::loadRun(runDir);
    if (loaded.outcome != goblin::LoadOutcome::Finished || !loaded.run) {
        QTextStream(stderr) << "goblin-bench-repaint: cannot load " << runDir << ": " << loaded.error << "\n";
        return 1;
    }
    const double loadS = double(loadTimer.nsecsElapsed()) / 1e9;

    goblin::WorkbenchSession session;
    QWidget window;
    auto *layout = new QHBoxLayout(&window);
    auto *panel = new goblin::ThresholdPanel(&session, &window);
    auto *view = new goblin::WorkbenchView(&session, &window);
    layout->addWidget(panel);
    layout->addWidget(view, 1);
    window.resize(size);
    window.show();

    QElapsedTimer openTimer;
    openTimer.start();
    session.openRun(loaded.run);
    finishFrame(session.live());
    const double openMs = double(openTimer.nsecsElapsed()) / 1e6;

    out() << "run: " << runDir << " (" << loaded.run->kernels.workbench.rowsUsed << " kernel rows, "
          << loaded.run->kernels.names.size() << " names, " << loaded.run->smi.samples.size()
          << " telemetry samples), loaded in " << QString::number(loadS, 'f', 2) << " s\n"
          << "platform: " << QGuiApplication::platformName() << ", window " << size.width() << "x" << size.height()
          << ", first show of the run " << QString::number(openMs, 'f', 1) << " ms\n";

    PaintCounter counter;
    app.installEventFilter(&counter);
    goblin::LiveAnalysis *live = session.live();

    // 1. Drag the GPU-utilisation line of the telemetry plot with mouse events.
    goblin::TelemetryPlot *plot = view->telemetryPlot();
    const QRect utilRect = plot->utilRect()->rect();
    const auto *mouse = QPointingDevice::primaryPointingDevice();
    auto send = [&](QEvent::Type type, const QPointF &pos, Qt::MouseButton button, Qt::MouseButtons buttons) {
        QMouseEvent event(type, pos, plot->mapToGlobal(pos), button, buttons, Qt::NoModifier, mouse);
        QApplication::sendEvent(plot, &event);
    };
    const QPointF start = plot->linePosition(goblin::TelemetryPlot::Line::GpuUtil);
    send(QEvent::MouseButtonPress, start, Qt::LeftButton, Qt::LeftButton);
    finishFrame(live);
    const bool dragging = plot->draggedLine() == goblin::TelemetryPlot::Line::GpuUtil;

    std::vector<double> frames, cpu;
    frames.reserve(std::size_t(moves));
    cpu.reserve(std::size_t(moves));
    const qint64 paintsBefore = counter.total();
    const quint64 recomputesBefore = live->recomputeCount();
    QElapsedTimer frame;
    for (int i = 0; i < moves; ++i) {
        // A triangle wave over the panel's height: every frame moves the line.
        const double phase = double(i % 100) / 50.0;
        const double f = phase <= 1.0 ? phase : 2.0 - phase;
        const QPointF pos(start.x(), utilRect.top() + 2 + f * (utilRect.height() - 4));
        const double cpu0 = processCpuMs();
        frame.start();
        send(QEvent::MouseMove, pos, Qt::NoButton, Qt::LeftButton);
        finishFrame(live);
        frames.push_back(double(frame.nsecsElapsed()) / 1e6);
        cpu.push_back(processCpuMs() - cpu0);
    }
    send(QEvent::MouseButtonRelease, QPointF(start.x(), utilRect.center().y()), Qt::LeftButton, Qt::NoButton);
    finishFrame(live);
    if (!dragging)
        out() << "WARNING: the mouse press did not start a line drag; the frames below moved nothing\n";
    report(QStringLiteral("telemetry line drag"), frames, cpu, counter.total() - paintsBefore,
           live->recomputeCount() - recomputesBefore, counter);

    // 2. Drag the panel's GPU-utilisation slider.
    QSlider *slider = panel->slider(goblin::ThresholdField::GpuUtilBelow);
    PaintCounter sliderCounter;
    app.removeEventFilter(&counter);
    app.installEventFilter(&sliderCounter);
    frames.clear();
    cpu.clear();
    const quint64 recomputes2 = live->recomputeCount();
    slider->setSliderDown(true);
    for (int i = 0; i < moves; ++i) {
        const double phase = double(i % 100) / 50.0;
        const double f = phase <= 1.0 ? phase : 2.0 - phase;
        const double cpu0 = processCpuMs();
        frame.start();
        slider->setValue(slider->minimum() + int(std::lround(f * (slider->maximum() - slider->minimum()))));
        finishFrame(live);
        frames.push_back(double(frame.nsecsElapsed()) / 1e6);
        cpu.push_back(processCpuMs() - cpu0);
    }
    slider->setSliderDown(false);
    finishFrame(live);
    report(QStringLiteral("threshold slider drag"), frames, cpu, sliderCounter.total(),
           live->recomputeCount() - recomputes2, sliderCounter);
    return 0;
}
