#include "dashboardexport.h"

#include "budgetchart.h"
#include "budgetformula.h"
#include "commandline.h"
#include "exportpainting.h"
#include "formatting.h"
#include "plotstyle.h"
#include "report.h"
#include "telemetryplot.h"
#include "thresholds.h"
#include "wastebudgetmodel.h"

#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QPainter>
#include <cmath>

namespace goblin {

namespace {

constexpr int kMargin = 24;
constexpr int kTopKernels = 10;

QFont pixelFont(int pixelSize, bool bold = false)
{
    QFont font;
    font.setPixelSize(pixelSize);
    font.setBold(bold);
    return font;
}

/// Draws `text` in `rect` with `font`, elided to the width; returns the height used.
int drawLine(QPainter &p, const QRect &rect, const QString &text, const QFont &font,
             Qt::Alignment align = Qt::AlignLeft, Qt::TextElideMode elide = Qt::ElideRight)
{
    p.setFont(font);
    const QFontMetrics fm(font);
    p.drawText(rect.x(), rect.y(), rect.width(), fm.height(), int(align | Qt::AlignVCenter),
               fm.elidedText(text, elide, rect.width()));
    return fm.height();
}

void paintBudgetChart(QPainter &p, const QRect &target, HeuristicsProfile profile, const RunMetrics &metrics,
                      const QPalette &palette)
{
    WasteBudgetModel model;  // declared before the scene, so it outlives the chart that views it
    model.setResult(metrics.wasteBudget, profile);
    QGraphicsScene scene;
    auto *chart = new BudgetChart;  // owned by the scene
    scene.addItem(chart);
    chart->applyPalette(palette);
    chart->setTitleFont(pixelFont(16, true));
    for (QAbstractAxis *axis : chart->axes()) {
        axis->setLabelsFont(pixelFont(12));
        axis->setTitleFont(pixelFont(12));
    }
    chart->setModel(&model);
    chart->setGeometry(QRectF(QPointF(0, 0), target.size()));
    if (chart->layout())
        chart->layout()->activate();
    scene.setSceneRect(QRectF(QPointF(0, 0), target.size()));
    scene.render(&p, QRectF(target), scene.sceneRect());
}

void paintTelemetry(QPainter &p, const QRect &target, const RunAnalysis &run, const ProfileAnalysis &analysis,
                    const Thresholds &thresholds, const QPalette &palette, double dpr)
{
    TelemetryPlot plot;
    plot.setPalette(palette);
    plot.setFont(pixelFont(12));
    plot.setInteractiveHints(false);
    plot.resize(target.size());
    plot.setTelemetry(&run.smi);
    plot.setRunLevels(analysis.budgetInputs.gpuUtilPct, analysis.budgetInputs.hbmPeakGb);
    plot.setThresholds(thresholds.gpuUtilBelowPct, thresholds.hbmTargetPct, thresholds.hbmCapacityGb);
    const QPixmap pixmap = plot.toPixmap(target.width(), target.height(), dpr);
    p.drawPixmap(QRectF(target), pixmap, QRectF(pixmap.rect()));
}

} // namespace

QImage renderDashboardImage(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &thresholds,
                            double dpr)
{
    return renderDashboardImage(run, deriveResults(run, profile, thresholds), dpr);
}

QImage renderDashboardImage(const RunAnalysis &run, const Derived &derived, double dpr)
{
    const HeuristicsProfile profile = derived.profile;
    const Thresholds &thresholds = derived.thresholds;
    const RunMetrics &metrics = derived.metrics;
    const QPalette palette = exportPalette();
    const ProfileAnalysis &analysis = run.profile(profile);
    const BudgetInputs &in = analysis.budgetInputs;
    const WasteBudget &budget = metrics.wasteBudget;

    const QSize logical = kDashboardLogicalSize;
    QImage image(logical * dpr, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(dpr);
    image.fill(palette.color(QPalette::Base));

    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::TextAntialiasing);
    p.setPen(palette.color(QPalette::Text));

    // Header: run name, where it came from, the profile and the verdict.
    const int width = logical.width() - 2 * kMargin;
    int y = kMargin;
    y += drawLine(p, QRect(kMargin, y, width, 0), QStringLiteral("Goblin Workbench — %1").arg(run.runName),
                  pixelFont(26, true));
    p.setPen(palette.color(QPalette::PlaceholderText));
    y += drawLine(p, QRect(kMargin, y + 2, width, 0),
                  QStringLiteral("%1   ·   %2 profile   ·   step time %3   ·   %4 steps")
                      .arg(run.runDir, profileName(profile), formatSeconds(budget.terms.stepS))
                      .arg(metrics.steps),
                  pixelFont(14), Qt::AlignLeft, Qt::ElideMiddle) + 8;
    p.setPen(palette.color(QPalette::Text));
    y += drawLine(p, QRect(kMargin, y, width, 0), runVerdict(derived), pixelFont(16, true)) + 12;

    // Left column: budget chart over telemetry. Right column: numbers.
    const int rightWidth = 520;
    const int leftWidth = width - rightWidth - kMargin;
    // The command that reproduces this image, in small print above the footer line (issue 14).
    const QStringList command = reproducingCommand(QStringLiteral("report"), {run.runDir}, profile, thresholds);
    const int commandHeight = heightOfCommandFooter(width, command);
    const int bottom = logical.height() - kMargin - 18 - commandHeight - 6;
    const int chartHeight = 360;
    paintBudgetChart(p, QRect(kMargin, y, leftWidth, chartHeight), profile, metrics, palette);
    paintTelemetry(p, QRect(kMargin, y + chartHeight + 12, leftWidth, bottom - (y + chartHeight + 12)), run,
                   analysis, thresholds, palette, dpr);

    const int x = kMargin + leftWidth + kMargin;
    int ry = y;
    const QFont heading = pixelFont(16, true);
    const QFont body = pixelFont(13);
    const QFontMetrics bodyMetrics(body);
    const int numberWidth = 90;
    const auto row = [&](const QString &label, const QString &value, const QString &extra = QString(),
                         int indent = 0) {
        // Two number columns (value, share) or one wide value column flush right.
        const int valueWidth = extra.isEmpty() ? 2 * numberWidth + 40 : numberWidth;
        const int valueRight = extra.isEmpty() ? rightWidth : rightWidth - numberWidth;
        drawLine(p, QRect(x + indent, ry, valueRight - valueWidth - indent, 0), label, body);
        drawLine(p, QRect(x + valueRight - valueWidth, ry, valueWidth, 0), value, body, Qt::AlignRight);
        if (!extra.isEmpty())
            drawLine(p, QRect(x + rightWidth - numberWidth, ry, numberWidth, 0), extra, body, Qt::AlignRight);
        ry += bodyMetrics.height() + 3;
    };
    const auto rule = [&] {
        p.setPen(QPen(palette.color(QPalette::Mid), 1));
        p.drawLine(x, ry + 2, x + rightWidth, ry + 2);
        p.setPen(palette.color(QPalette::Text));
        ry += 8;
    };

    ry += drawLine(p, QRect(x, ry, rightWidth, 0), QStringLiteral("Waste budget per step"), heading) + 4;
    rule();
    for (int i = 0; i <= kStepTimeRow; ++i) {
        if (i == kUnattributedRow && !budget.hasUnattributed())
            continue;
        const double seconds = budgetRowSeconds(budget, i);
        const double pct = budget.terms.stepS > 0.0 ? 100.0 * seconds / budget.terms.stepS : 0.0;
        if (i == kStepTimeRow)
            rule();
        if (i < kStepTimeRow)
            p.fillRect(QRect(x, ry + bodyMetrics.height() / 2 - 5, 10, 10),
                       i == kUnattributedRow ? QBrush(bucketColor(i, palette), Qt::BDiagPattern)
                                             : QBrush(bucketColor(i, palette)));
        row(budgetRowLabel(i), formatSeconds(seconds), formatPercent(pct), 16);
    }
    ry += 14;

    ry += drawLine(p, QRect(x, ry, rightWidth, 0), QStringLiteral("Top kernels (% of GPU time)"), heading) + 4;
    rule();
    const int topCount = std::min<int>(kTopKernels, int(analysis.topKernels.size()));
    for (int i = 0; i < topCount; ++i) {
        const TopKernel &k = analysis.topKernels[std::size_t(i)];
        drawLine(p, QRect(x, ry, 70, 0), formatPercent(k.pctTime), body, Qt::AlignRight);
        drawLine(p, QRect(x + 82, ry, rightWidth - 82, 0), k.name, body, Qt::AlignLeft, Qt::ElideMiddle);
        ry += bodyMetrics.height() + 3;
    }
    if (topCount == 0)
        row(QStringLiteral("no kernels"), QString());
    ry += 14;

    ry += drawLine(p, QRect(x, ry, rightWidth, 0),
                   QStringLiteral("Thresholds (%1 profile)").arg(profileName(profile)), heading) + 4;
    rule();
    for (const ThresholdDescriptor &d : thresholdDescriptors()) {
        const QString value = formatNumber(thresholds.*(d.member), d.decimals)
            + (d.unitText().isEmpty() ? QString() : QLatin1Char(' ') + d.unitText());
        row(d.labelText(), value);
    }
    row(QStringLiteral("Precision"), precisionName(thresholds.precision));
    row(QStringLiteral("Steps"), QString::number(metrics.steps));
    ry += 14;

    // What the budget was computed from, with where each number came from.
    ry += drawLine(p, QRect(x, ry, rightWidth, 0), QStringLiteral("Run"), heading) + 4;
    rule();
    const QFont note = pixelFont(11);
    const auto sourced = [&](const QString &label, const QString &value, const QString &source) {
        row(label, value);
        if (!source.isEmpty()) {
            p.setPen(palette.color(QPalette::PlaceholderText));
            ry += drawLine(p, QRect(x + 16, ry - 2, rightWidth - 16, 0), source, note) + 2;
            p.setPen(palette.color(QPalette::Text));
        }
    };
    sourced(QStringLiteral("Step time"), formatSeconds(analysis.stepTimeS), analysis.stepTimeSource);
    if (budget.hasUnattributed())
        sourced(QStringLiteral("GPU utilisation"), QStringLiteral("not measured"),
                QStringLiteral("no telemetry and no kernel timeline in this run"));
    else
        sourced(QStringLiteral("GPU utilisation"), formatPercent(in.gpuUtilPct), analysis.gpuUtilSource);
    sourced(QStringLiteral("Host busy"), formatNumber(in.hostBusyFraction, 2), analysis.hostBusySource);
    row(QStringLiteral("HBM peak"), in.hbmPeakGb ? formatGb(*in.hbmPeakGb) : QStringLiteral("—"));
    row(QStringLiteral("Tokens per second"), formatNumber(analysis.tokensPerSec, 0));
    row(QStringLiteral("MFU"), formatPercent(analysis.mfuPct));
    int warnings = 0;
    for (const Diagnostic &d : run.diagnostics)
        warnings += d.severity != Severity::Info ? 1 : 0;
    row(QStringLiteral("Diagnostics"), QStringLiteral("%1 (%2 warnings or errors)").arg(run.diagnostics.size()).arg(warnings));

    // Footer.
    p.setPen(palette.color(QPalette::PlaceholderText));
    drawCommandFooter(p, kMargin, logical.height() - kMargin - 4 - commandHeight - 4, width, command);
    drawLine(p, QRect(kMargin, logical.height() - kMargin - 4, width, 0),
             QStringLiteral("Generated by %1. Budget buckets are heuristics, not measurements.").arg(
                 QStringLiteral("goblin-workbench")),
             pixelFont(11));
    p.end();
    return image;
}

bool renderDashboardPng(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &thresholds,
                        const QString &path, QString *error)
{
    return renderDashboardPng(run, deriveResults(run, profile, thresholds), path, error);
}

bool renderDashboardPng(const RunAnalysis &run, const Derived &derived, const QString &path, QString *error)
{
    return writePngImage(renderDashboardImage(run, derived, kDashboardPixelRatio), path, error);
}

bool exportReportJson(const RunAnalysis &run, const Derived &derived, const QString &path, QString *error)
{
    return writeReportJson(buildReport(run, derived), path, error);
}

bool exportReportJson(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &thresholds,
                      const QString &path, QString *error)
{
    return writeReportJson(buildReport(run, profile, thresholds), path, error);
}

} // namespace goblin
