#include "compareplot.h"

#include "budgetformula.h"
#include "exportpainting.h"
#include "formatting.h"
#include "heuristics.h"
#include "plotstyle.h"

#include <QFontMetrics>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <functional>

namespace goblin {

namespace {

constexpr int kImageKernelRows = 16;

QString bucketLabelOf(const QString &key)
{
    for (int b = 0; b < WasteBudget::BucketCount; ++b)
        if (WasteBudget::bucketKey(b) == key)
            return WasteBudget::bucketLabel(b);
    if (key == QLatin1String("unattributed_s"))
        return budgetRowLabel(kUnattributedRow);
    return key;
}

QString signedSeconds(double s)
{
    if (!std::isfinite(s))
        return QStringLiteral("—");
    return (s > 0 ? QStringLiteral("+") : QString()) + formatSeconds(s);
}

QString maybeNumber(const QJsonValue &v, const std::function<QString(double)> &format)
{
    return v.isDouble() ? format(v.toDouble()) : QStringLiteral("—");
}

/// Paints a header row and `rows` as columns of the given widths; returns the height used.
int paintTable(QPainter &p, int x, int y, const std::vector<int> &widths, const QStringList &header,
               const std::vector<QStringList> &rows, const QPalette &palette)
{
    const QFont body = exportFont(13), bold = exportFont(13, true);
    const int line = QFontMetrics(body).height() + 3;
    const auto paintRow = [&](const QStringList &cells, const QFont &font, int top) {
        int cx = x;
        for (int c = 0; c < cells.size() && c < int(widths.size()); ++c) {
            // Names and words left, numbers right.
            const QString &title = header.at(c);
            const bool text = c == 0 || title == QLatin1String("Kernel") || title == QLatin1String("Change");
            drawExportLine(p, QRect(cx, top, widths[std::size_t(c)] - 8, 0), cells.at(c), font,
                           text ? Qt::AlignLeft : Qt::AlignRight, c == 1 ? Qt::ElideMiddle : Qt::ElideRight);
            cx += widths[std::size_t(c)];
        }
    };
    int top = y;
    paintRow(header, bold, top);
    top += line;
    p.setPen(QPen(palette.color(QPalette::Mid), 1));
    int total = 0;
    for (int w : widths)
        total += w;
    p.drawLine(x, top, x + total, top);
    p.setPen(palette.color(QPalette::Text));
    top += 3;
    for (const QStringList &r : rows) {
        paintRow(r, body, top);
        top += line;
    }
    return top - y;
}

} // namespace

QJsonArray compareDeltaList(const QJsonObject &compare)
{
    if (compare.contains(QLatin1String("delta")))
        return QJsonArray{compare[QLatin1String("delta")]};
    return compare[QLatin1String("deltas")].toArray();
}

QStringList compareBucketKeys(const QJsonObject &compare)
{
    QStringList keys;
    for (int b = 0; b < WasteBudget::BucketCount; ++b)
        keys << WasteBudget::bucketKey(b);
    for (const QJsonValue &d : compareDeltaList(compare))
        if (d[QLatin1String("waste_budget")].toObject().contains(QLatin1String("unattributed_s"))) {
            keys << QStringLiteral("unattributed_s");
            break;
        }
    return keys;
}

QString compareRunName(const QJsonObject &compare, int index)
{
    return compare[QLatin1String("runs")][index][QLatin1String("run")][QLatin1String("name")].toString();
}

double compareRunBucketSeconds(const QJsonObject &compare, int runIndex, const QString &key)
{
    const QJsonValue report = compare[QLatin1String("runs")][runIndex];
    const QString bucketsKey = key == QLatin1String("unattributed_s") ? QStringLiteral("unattributed") : key;
    const QJsonValue bucket = report[QLatin1String("budget")][QLatin1String("buckets")][bucketsKey];
    if (bucket[QLatin1String("state")].toString() == QLatin1String("unknown"))
        return qQNaN();
    const QJsonValue v = bucket[QLatin1String("seconds_per_step")];
    return v.isDouble() ? v.toDouble() : qQNaN();
}

double compareBarValue(const QJsonObject &compare, int deltaIndex, const QString &key, DeltaUnit unit)
{
    if (unit == DeltaUnit::EachRunSecondsPerStep)
        return compareRunBucketSeconds(compare, deltaIndex, key);
    const QJsonValue d = compareDeltaList(compare).at(deltaIndex);
    const QJsonValue v = unit == DeltaUnit::SecondsPerStep ? d[QLatin1String("waste_budget")][key]
                                                           : d[QLatin1String("share_of_step")][key];
    if (!v.isDouble())
        return qQNaN();
    return unit == DeltaUnit::SecondsPerStep ? v.toDouble() : 100.0 * v.toDouble();
}

void drawCompareDeltaPlot(QCustomPlot *plot, const QJsonObject &compare, DeltaUnit unit, const QPalette &palette)
{
    plot->clearPlottables();
    plot->clearItems();
    applyPalette(plot, palette);
    const QStringList keys = compareBucketKeys(compare);
    const QJsonArray deltas = compareDeltaList(compare);
    const int baseline = compare[QLatin1String("baseline")].toInt();

    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int k = 0; k < keys.size(); ++k)
        ticker->addTick(k + 1, bucketLabelOf(keys.at(k)));
    const bool eachRun = unit == DeltaUnit::EachRunSecondsPerStep;
    const int runCount = int(compare[QLatin1String("runs")].toArray().size());
    const int series = eachRun ? (deltas.isEmpty() ? 0 : runCount) : int(deltas.size());
    plot->xAxis->setTicker(ticker);
    plot->xAxis->setTickLabelRotation(series == 0 ? 0 : 20);
    plot->xAxis->setRange(0.4, keys.size() + 0.6);
    plot->xAxis->grid()->setVisible(false);
    plot->yAxis->setLabel(eachRun ? QStringLiteral("s/step, each run (no bar: unknown)")
                          : unit == DeltaUnit::SecondsPerStep
                              ? QStringLiteral("Δ s/step vs %1").arg(compareRunName(compare, baseline))
                              : QStringLiteral("Δ share of step (points) vs %1").arg(compareRunName(compare, baseline)));

    // One group per plot, reused: clearPlottables() deleted its bars, not the group.
    auto *group = plot->findChild<QCPBarsGroup *>(QString(), Qt::FindDirectChildrenOnly);
    if (!group)
        group = new QCPBarsGroup(plot);
    double extent = 0.0;
    for (int i = 0; i < series; ++i) {
        auto *bars = new QCPBars(plot->xAxis, plot->yAxis);
        // Each run: the baseline in the first colour, the others as in the delta charts.
        const int run = eachRun ? i : deltas.at(i)[QLatin1String("other")].toInt();
        const int colourIndex = eachRun ? (i == baseline ? 7 : i - (i > baseline ? 1 : 0)) : i;
        bars->setName(eachRun && i == baseline ? QStringLiteral("%1 (baseline)").arg(compareRunName(compare, run))
                                               : compareRunName(compare, run));
        const QColor colour = seriesColor(colourIndex);
        bars->setPen(QPen(colour.darker(130)));
        bars->setBrush(colour);
        bars->setWidth(0.8 / std::max(1, series));
        bars->setBarsGroup(group);
        for (int k = 0; k < keys.size(); ++k) {
            const double v = compareBarValue(compare, i, keys.at(k), unit);
            if (std::isfinite(v)) {
                bars->addData(k + 1, v);
                extent = std::max(extent, std::abs(v));
            }
        }
    }
    if (eachRun)
        plot->yAxis->setRange(0.0, extent > 0 ? extent * 1.15 : 1.0);
    else
        plot->yAxis->setRange(extent > 0 ? -extent * 1.15 : -1.0, extent > 0 ? extent * 1.15 : 1.0);
    auto *zero = new QCPItemStraightLine(plot);
    zero->point1->setCoords(0, 0);
    zero->point2->setCoords(1, 0);
    zero->setPen(QPen(palette.color(QPalette::Text), 1));
    // Room right of the axis for the last rotated tick label ("Unattributed" was cut off).
    plot->axisRect()->setMinimumMargins(QMargins(0, 0, 48, 0));
    placeLegendAbove(plot, palette);
    plot->legend->setVisible(series > 0);
}

void drawCompareStackedBudgets(QCustomPlot *plot, const QJsonObject &compare, const QPalette &palette)
{
    plot->clearPlottables();
    plot->clearItems();
    applyPalette(plot, palette);
    const QStringList keys = compareBucketKeys(compare);
    const QJsonArray runs = compare[QLatin1String("runs")].toArray();
    const int baseline = compare[QLatin1String("baseline")].toInt();
    const int runCount = compare.isEmpty() ? 0 : int(runs.size());

    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int i = 0; i < runCount; ++i)
        ticker->addTick(i, i == baseline ? QStringLiteral("%1\n(baseline)").arg(compareRunName(compare, i))
                                         : compareRunName(compare, i));
    plot->xAxis->setTicker(ticker);
    plot->xAxis->setTickLabelRotation(0);
    plot->xAxis->grid()->setVisible(false);
    plot->xAxis->setRange(-0.6, std::max(0.6, runCount - 0.4));
    plot->yAxis->setLabel(QStringLiteral("s/step, each run's budget (no segment: unknown)"));

    double top = 0.0;
    QCPBars *below = nullptr;
    for (int k = 0; k < keys.size(); ++k) {
        const QString &key = keys.at(k);
        const int row = key == QLatin1String("unattributed_s") ? kUnattributedRow : k;
        auto *bars = new QCPBars(plot->xAxis, plot->yAxis);
        bars->setName(bucketLabelOf(key));
        bars->setProperty("bucketKey", key);
        bars->setWidth(0.55);
        const QColor c = bucketColor(row, palette);
        bars->setBrush(row == kUnattributedRow ? QBrush(c, Qt::BDiagPattern) : QBrush(c));
        bars->setPen(QPen(c.darker(130), 1));
        if (below)
            bars->moveAbove(below);
        below = bars;
        for (int i = 0; i < runCount; ++i) {
            const double v = compareRunBucketSeconds(compare, i, key);
            // An unknown bucket gets no visible segment (no height): QCPBars stacks on the bar
            // below only where it has a point at the key, so every key needs one.
            bars->addData(i, std::isfinite(v) ? std::max(0.0, v) : 0.0);
        }
    }
    for (int i = 0; i < runCount; ++i) {
        double sum = 0.0;
        for (const QString &key : keys) {
            const double v = compareRunBucketSeconds(compare, i, key);
            sum += std::isfinite(v) ? std::max(0.0, v) : 0.0;
        }
        top = std::max(top, sum);
        const QJsonValue step = runs.at(i)[QLatin1String("quantities")][QLatin1String("step_time_s")][QLatin1String("value")];
        if (step.isDouble()) {
            top = std::max(top, step.toDouble());
            auto *line = new QCPItemLine(plot);
            line->start->setCoords(i - 0.38, step.toDouble());
            line->end->setCoords(i + 0.38, step.toDouble());
            line->setPen(QPen(palette.color(QPalette::Text), 1.5, Qt::DashLine));
            auto *label = new QCPItemText(plot);
            label->position->setCoords(i, step.toDouble());
            label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
            label->setText(QStringLiteral("step %1").arg(formatSeconds(step.toDouble())));
            label->setColor(palette.color(QPalette::Text));
            label->setFont(plot->xAxis->tickLabelFont());
        }
    }
    plot->yAxis->setRange(0.0, top > 0.0 ? top * 1.15 : 1.0);
    placeLegendAbove(plot, palette);
    // Two columns (three clipped "Memory headroom" and its peers); the items are already placed,
    // so they are laid out again.
    plot->legend->setWrap(2);
    plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    plot->legend->setVisible(runCount > 0);
}

double compareStackedValue(const QCustomPlot *plot, int runIndex, const QString &key)
{
    for (int i = 0; i < plot->plottableCount(); ++i) {
        auto *bars = qobject_cast<QCPBars *>(const_cast<QCustomPlot *>(plot)->plottable(i));
        if (!bars || bars->property("bucketKey").toString() != key)
            continue;
        for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
            if (int(std::lround(it->key)) == runIndex)
                return it->value;
    }
    return qQNaN();
}

void placeLegendAbove(QCustomPlot *plot, const QPalette &palette)
{
    // Inside the axis rect the legend hid the tallest bar or line.
    if (plot->legend->layout() == plot->axisRect()->insetLayout()) {
        plot->axisRect()->insetLayout()->take(plot->legend);
        plot->plotLayout()->insertRow(0);
        plot->plotLayout()->addElement(0, 0, plot->legend);
        plot->plotLayout()->setRowStretchFactor(0, 0.001);
        plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
        plot->legend->setBorderPen(Qt::NoPen);
        // An empty legend's maximum width would otherwise cap the axis rect's column.
        plot->legend->setMaximumSize(100000, QWIDGETSIZE_MAX);
    }
    plot->legend->setBrush(palette.color(QPalette::Base));
    plot->legend->setTextColor(palette.color(QPalette::Text));
}

QStringList compareKernelHeader()
{
    return {QStringLiteral("Run"), QStringLiteral("Kernel"), QStringLiteral("Baseline (s/step)"),
            QStringLiteral("Other (s/step)"), QStringLiteral("Δ (s/step)"), QStringLiteral("Change")};
}

std::vector<QStringList> compareKernelRows(const QJsonObject &compare)
{
    std::vector<QStringList> rows;
    for (const QJsonValue &d : compareDeltaList(compare)) {
        const QString run = compareRunName(compare, d[QLatin1String("other")].toInt());
        for (const QJsonValue &k : d[QLatin1String("kernels")].toArray())
            rows.push_back({run, k[QLatin1String("name")].toString(),
                            formatSeconds(k[QLatin1String("baseline_s_per_step")].toDouble()),
                            formatSeconds(k[QLatin1String("other_s_per_step")].toDouble()),
                            signedSeconds(k[QLatin1String("delta_s_per_step")].toDouble()),
                            k[QLatin1String("change")].toString()});
    }
    return rows;
}

QStringList compareTelemetryHeader()
{
    return {QStringLiteral("Run"), QStringLiteral("Step time"), QStringLiteral("GPU util"), QStringLiteral("Host busy"),
            QStringLiteral("HBM peak"), QStringLiteral("HBM mean"), QStringLiteral("Tokens/s"), QStringLiteral("MFU")};
}

std::vector<QStringList> compareTelemetryRows(const QJsonObject &compare)
{
    std::vector<QStringList> rows;
    const QJsonArray runs = compare[QLatin1String("runs")].toArray();
    const int baseline = compare[QLatin1String("baseline")].toInt();
    for (int i = 0; i < runs.size(); ++i) {
        const QJsonObject r = runs.at(i).toObject();
        const QJsonObject m = r[QLatin1String("metrics")].toObject();
        const QJsonObject q = r[QLatin1String("quantities")].toObject();
        // One value per quantity: the report's quantities (null = unknown, "—"), never the seed
        // schema's 0 for a run without telemetry.
        const auto value = [&](const char *key) { return q[QLatin1String(key)][QLatin1String("value")]; };
        const auto pct = [](double v) { return formatPercent(v); };
        const auto gb = [](double v) { return formatGb(v); };
        const QJsonValue peak = value("hbm_peak_gb");
        rows.push_back({compareRunName(compare, i) + (i == baseline ? QStringLiteral(" (baseline)") : QString()),
                        maybeNumber(value("step_time_s"), [](double v) { return formatSeconds(v); }),
                        maybeNumber(value("gpu_util_pct"), pct),
                        maybeNumber(value("host_busy_fraction"), [](double v) { return formatNumber(v, 2); }),
                        maybeNumber(peak, gb),
                        peak.isDouble() ? maybeNumber(m[QLatin1String("hbm_avg_gb")], gb) : QStringLiteral("—"),
                        maybeNumber(value("tokens_per_sec"), [](double v) { return formatNumber(v, 0); }),
                        maybeNumber(value("mfu_pct"), pct)});
    }
    return rows;
}

QImage renderCompareImage(const QJsonObject &compare, double dpr)
{
    const QPalette palette = exportPalette();
    constexpr int margin = 24;
    const int width = kExportWidth - 2 * margin;
    const int chartHeight = 420;
    QStringList command;
    for (const QJsonValue &a : compare[QLatin1String("command")].toArray())
        command << a.toString();
    const std::vector<QStringList> telemetry = compareTelemetryRows(compare);
    std::vector<QStringList> kernels = compareKernelRows(compare);
    const int hiddenKernels = std::max(0, int(kernels.size()) - kImageKernelRows);
    if (hiddenKernels > 0)
        kernels.resize(kImageKernelRows);
    const int line = QFontMetrics(exportFont(13)).height() + 3;
    const int height = margin + 34 + 22 + 12 + chartHeight + 20 + 24 + (int(telemetry.size()) + 1) * line + 30 + 24
        + (int(kernels.size()) + 2) * line + 20 + heightOfCommandFooter(width, command) + margin;

    QImage image(QSize(kExportWidth, height) * dpr, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(dpr);
    image.fill(palette.color(QPalette::Base));
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::TextAntialiasing);
    p.setPen(palette.color(QPalette::Text));

    const QJsonArray runs = compare[QLatin1String("runs")].toArray();
    const int baseline = compare[QLatin1String("baseline")].toInt();
    QStringList names;
    for (int i = 0; i < runs.size(); ++i)
        names << compareRunName(compare, i);
    int y = margin;
    y += drawExportLine(p, QRect(margin, y, width, 0),
                        QStringLiteral("Goblin Workbench — %1 against %2")
                            .arg(QStringList(names.mid(0, baseline) + names.mid(baseline + 1)).join(QStringLiteral(", ")),
                                 names.value(baseline)),
                        exportFont(26, true));
    p.setPen(palette.color(QPalette::PlaceholderText));
    const QJsonObject first = runs.isEmpty() ? QJsonObject() : runs.first().toObject();
    const QJsonObject t = first[QLatin1String("thresholds")].toObject();
    QStringList knobs;
    for (auto it = t.begin(); it != t.end(); ++it)
        if (it.value().isDouble() || it.value().isString())
            knobs << QStringLiteral("%1 %2").arg(it.key(), it.value().isDouble()
                                                                ? QString::number(it.value().toDouble(), 'g', 6)
                                                                : it.value().toString());
    y += drawExportLine(p, QRect(margin, y + 2, width, 0),
                        QStringLiteral("%1 runs under one set of thresholds   ·   %2 profile   ·   %3")
                            .arg(runs.size())
                            .arg(first[QLatin1String("profile")].toString(), knobs.join(QStringLiteral(", "))),
                        exportFont(14)) + 12;
    p.setPen(palette.color(QPalette::Text));

    // Each run's stacked budget, then the deltas in both units.
    const int third = (width - 2 * margin) / 3;
    int x = margin;
    for (int chart = 0; chart < 3; ++chart) {
        QCustomPlot plot;
        plot.setPalette(palette);
        plot.setFont(exportFont(12));
        plot.resize(third, chartHeight);
        if (chart == 0)
            drawCompareStackedBudgets(&plot, compare, palette);
        else
            drawCompareDeltaPlot(&plot, compare, chart == 1 ? DeltaUnit::SecondsPerStep : DeltaUnit::ShareOfStep, palette);
        const QPixmap pixmap = plot.toPixmap(third, chartHeight, dpr);
        p.drawPixmap(QRectF(x, y, third, chartHeight), pixmap, QRectF(pixmap.rect()));
        x += third + margin;
    }
    y += chartHeight + 20;

    y += drawExportLine(p, QRect(margin, y, width, 0), QStringLiteral("Telemetry side by side"), exportFont(16, true)) + 4;
    y += paintTable(p, margin, y, {460, 150, 130, 130, 150, 150, 170, 130}, compareTelemetryHeader(), telemetry, palette);
    y += 24;
    y += drawExportLine(p, QRect(margin, y, width, 0), QStringLiteral("Top-kernel changes"), exportFont(16, true)) + 4;
    y += paintTable(p, margin, y, {260, 640, 170, 170, 170, 130}, compareKernelHeader(), kernels, palette);
    if (hiddenKernels > 0)
        y += drawExportLine(p, QRect(margin, y, width, 0),
                            QStringLiteral("… and %1 more kernel rows (in compare --json)").arg(hiddenKernels),
                            exportFont(13));
    if (kernels.empty())
        y += drawExportLine(p, QRect(margin, y, width, 0), QStringLiteral("no top kernels in these runs"), exportFont(13));
    y += 20;
    p.setPen(palette.color(QPalette::PlaceholderText));
    drawCommandFooter(p, margin, y, width, command);
    p.end();
    return image;
}

bool renderComparePng(const QJsonObject &compare, const QString &path, QString *error)
{
    return writePngImage(renderCompareImage(compare, kExportPixelRatio), path, error);
}

} // namespace goblin
