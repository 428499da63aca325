// The Timeline's host and GPU lanes on a large run: time to first paint and to redraw after a
// zoom (targets on a 1 GB trace: first paint within 1 s, a redraw within 100 ms).
//
//   goblin-bench-timeline RUN_DIR [--repeat N] [--size WxH] [--png FILE]
//
// Loads RUN_DIR (the load is timed apart: it is the loader's cost, not the Timeline's), then
//   first paint: TimelineView::setRun (the bars, the lanes' per-stream indexes) and one render of
//                the whole view into an image, as the window's first frame after the run opens;
//   redraw:      for each of N zoom steps (W pressed at the centre, then back out, then a pan) one
//                render of the lanes alone — the median and the worst are printed.
// Renders go through QWidget::render into a QImage, so no display is needed (QT_QPA_PLATFORM
// defaults to offscreen). CPU time of the process is printed beside the wall clock.

#include "runanalysis.h"
#include "timelinepanel.h"
#include "results/hostlanes.h"
#include "timelineview.h"
#include "torchtraceparser.h"
#include "tracelanesview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <QTextStream>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <vector>

namespace {

double processCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

double median(std::vector<double> v)
{
    if (v.empty())
        return 0.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double renderMs(QWidget *w)
{
    QImage image(w->size(), QImage::Format_ARGB32_Premultiplied);
    QElapsedTimer t;
    t.start();
    w->render(&image);
    return double(t.nsecsElapsed()) / 1e6;
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    goblin::setKeepHostLanes(true);  // as the window does
    QStringList args = app.arguments();
    args.removeFirst();
    QString runDir;
    int repeat = 9;
    QSize size(1920, 1080);
    QString png;
    for (int i = 0; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--repeat") && i + 1 < args.size())
            repeat = std::max(1, args[++i].toInt());
        else if (args[i] == QLatin1String("--size") && i + 1 < args.size()) {
            const QStringList wh = args[++i].split(QLatin1Char('x'));
            if (wh.size() == 2)
                size = QSize(wh[0].toInt(), wh[1].toInt());
        } else if (args[i] == QLatin1String("--png") && i + 1 < args.size()) {
            png = args[++i];
        } else
            runDir = args[i];
    }
    QTextStream out(stdout);
    if (runDir.isEmpty()) {
        QTextStream(stderr) << "usage: goblin-bench-timeline RUN_DIR [--repeat N] [--size WxH]\n";
        return 2;
    }
    QElapsedTimer loadTimer;
    loadTimer.start();
    const double loadCpu0 = processCpuMs();
    const goblin::LoadResult loaded = goblin::loadRun(runDir);
    if (loaded.outcome != goblin::LoadOutcome::Finished || !loaded.run) {
        QTextStream(stderr) << "goblin-bench-timeline: cannot load " << runDir << ": " << loaded.error << "\n";
        return 1;
    }
    const double loadS = double(loadTimer.nsecsElapsed()) / 1e9, loadCpuS = (processCpuMs() - loadCpu0) / 1e3;
    qint64 hostSlices = 0, gpuEvents = 0;
    for (const goblin::GpuTimelineFile &f : loaded.run->torch.timeline.files) {
        if (f.hostLanes)
            hostSlices += qint64(f.hostLanes->slices.size());
        for (const goblin::GpuDeviceTimeline &d : f.devices)
            gpuEvents += qint64(d.events.size());
    }
    out << "run: " << runDir << ", loaded in " << QString::number(loadS, 'f', 2) << " s (CPU "
        << QString::number(loadCpuS, 'f', 2) << " s); " << hostSlices << " host slices, " << gpuEvents
        << " torch-trace GPU events\n";

    auto *panel = new goblin::TimelinePanel;
    goblin::TimelineView view(panel);
    view.resize(size);
    view.show();
    QCoreApplication::processEvents();

    QElapsedTimer first;
    first.start();
    const double firstCpu0 = processCpuMs();
    view.setRun(loaded.run.get());
    view.panel()->replot();  // the bars' replot is queued; the first frame draws it
    QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
    view.render(&image);
    const double firstMs = double(first.nsecsElapsed()) / 1e6, firstCpuMs = processCpuMs() - firstCpu0;
    out << "first paint (setRun + render of the whole view, " << size.width() << "x" << size.height()
        << "): " << QString::number(firstMs, 'f', 1) << " ms (CPU " << QString::number(firstCpuMs, 'f', 1) << " ms)\n";
    out << "scope: " << view.scopeText() << "\n";
    if (!png.isEmpty()) {
        image.save(png);
        view.panel()->showStrip(0, 0);  // a picked bar zooms the lanes to its step
        view.panel()->replot();
        QImage step(view.size(), QImage::Format_ARGB32_Premultiplied);
        view.render(&step);
        step.save(QString(png).replace(QLatin1String(".png"), QLatin1String("-step.png")));
    }

    goblin::TraceLanesView *lanes = view.lanes();
    std::vector<double> zoomIn, zoomOut, pan;
    const double centre = lanes->trackWidthPx() / 2.0;
    for (int i = 0; i < repeat; ++i) {
        lanes->showWholeRun();
        lanes->zoomAt(1.25, centre);
        zoomIn.push_back(renderMs(lanes));
        lanes->zoomAt(1.0 / 1.25, centre);
        zoomOut.push_back(renderMs(lanes));
        lanes->zoomAt(std::pow(1.25, 10 + i), centre);  // a step or so, deeper each round
        lanes->panByPixels(-lanes->trackWidthPx() * 0.1);
        pan.push_back(renderMs(lanes));
    }
    const auto line = [&](const char *what, const std::vector<double> &v) {
        out << what << ": median " << QString::number(median(v), 'f', 1) << " ms, worst "
            << QString::number(*std::max_element(v.begin(), v.end()), 'f', 1) << " ms over " << v.size() << "\n";
    };
    line("redraw after zoom in (whole run)", zoomIn);
    line("redraw after zoom out", zoomOut);
    line("redraw after zoom to a step and pan", pan);

    // Selecting the busiest host range there is: the first ProfilerStep, whose flows are every
    // kernel of the step (found through its runtime calls), then the redraw with the arrows.
    if (const goblin::HostLanes *hl = lanes->hostLanes(0)) {
        const auto step = std::find_if(hl->slices.begin(), hl->slices.end(),
                                       [](const goblin::HostSlice &s) { return s.kind == goblin::HostSliceKind::Step; });
        if (step != hl->slices.end()) {
            std::vector<double> selectMs;
            for (int i = 0; i < repeat; ++i) {
                lanes->select({});
                QElapsedTimer t;
                t.start();
                lanes->select({0, -1, quint32(step - hl->slices.begin())});
                const double ms = double(t.nsecsElapsed()) / 1e6;
                selectMs.push_back(ms + renderMs(lanes));
            }
            out << "first step selected: " << lanes->selectedKernelCount() << " GPU events launched, "
                << std::min<int>(lanes->selectedKernelCount(), goblin::TraceLanesView::kMaxFlowArrows) << " arrows\n";
            line("select a step (its flows) and redraw", selectMs);
        }
    }
    return 0;
}
