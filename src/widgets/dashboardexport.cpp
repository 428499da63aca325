#include "dashboardexport.h"

#include "budgetchart.h"
#include "budgetformula.h"
#include "chrometraceexport.h"
#include "commandline.h"
#include "exportpainting.h"
#include "formatting.h"
#include "plotstyle.h"
#include "redaction.h"
#include "report.h"
#include "telemetryplot.h"
#include "thresholds.h"
#include "wastebudgetmodel.h"

#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QPainter>
#include <cmath>
#include <functional>

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

/// A painter that also keeps every text it draws, in painting order (renderDashboardImage's `painted`,
/// which tests compare with what the image says); nullptr: none kept.
class RecordingPainter : public QPainter
{
public:
    RecordingPainter(QPaintDevice *device, QStringList *painted) : QPainter(device), m_painted(painted) {}
    void record(const QString &text)
    {
        if (m_painted && !text.isEmpty())
            m_painted->append(text);
    }

private:
    QStringList *m_painted;
};

/// Draws `text` in `rect` with `font`, elided to the width; returns the height used.
int drawLine(RecordingPainter &p, const QRect &rect, const QString &text, const QFont &font,
             Qt::Alignment align = Qt::AlignLeft, Qt::TextElideMode elide = Qt::ElideRight)
{
    p.setFont(font);
    const QFontMetrics fm(font);
    // Every string on the image passes the export redaction: run names, kernel names and the command
    // footer come from the user's files and paths.
    const QString shown = fm.elidedText(redactSecrets(text), elide, rect.width());
    p.drawText(rect.x(), rect.y(), rect.width(), fm.height(), int(align | Qt::AlignVCenter), shown);
    p.record(shown);
    return fm.height();
}

/// Draws `text` word-wrapped in `width` from `top`; returns the height used.
int drawWrapped(RecordingPainter &p, int x, int top, int width, const QString &rawText, const QFont &font)
{
    const QString text = redactSecrets(rawText);
    p.setFont(font);
    const QRect used = QFontMetrics(font).boundingRect(QRect(x, top, width, 10000), Qt::TextWordWrap, text);
    p.drawText(QRect(x, top, width, used.height()), int(Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap), text);
    p.record(text);
    return used.height();
}

/// A quantity for reading: its value in `format`, or "—" when unknown.
QString quantityText(const Quantity &q, const std::function<QString(double)> &format)
{
    return q.value ? format(*q.value) : QStringLiteral("—");
}

/// The note under a quantity: its scope and source, or why it is unknown.
QString quantityNote(const Quantity &q)
{
    if (!q.value)
        return QStringLiteral("unknown: %1").arg(q.source);
    return q.scope.isEmpty() ? q.source : QStringLiteral("%1 — %2").arg(q.scope, q.source);
}

void paintBudgetChart(QPainter &p, const QRect &target, const Derived &derived, const QPalette &palette)
{
    WasteBudgetModel model;  // declared before the scene, so it outlives the chart that views it
    model.setDerived(&derived);
    model.setResult(derived.metrics.wasteBudget, derived.profile);
    QGraphicsScene scene;
    auto *chart = new BudgetChart;  // owned by the scene
    scene.addItem(chart);
    chart->applyPalette(palette);
    chart->setTitleFont(pixelFont(16, true));
    chart->setAxisFonts(pixelFont(12), pixelFont(12));
    chart->setModel(&model);
    chart->setGeometry(QRectF(QPointF(0, 0), target.size()));
    if (chart->layout())
        chart->layout()->activate();
    scene.setSceneRect(QRectF(QPointF(0, 0), target.size()));
    scene.render(&p, QRectF(target), scene.sceneRect());
}

void paintTelemetry(QPainter &p, const QRect &target, TelemetryPlot &plot, double dpr)
{
    plot.setMaximumHeight(QWIDGETSIZE_MAX);  // the image decides the height, not the window's limits
    plot.resize(target.size());
    // Legend columns for the image's width: a hidden widget gets no resize event, and toPixmap()
    // lays out without the replot that fits them in the window.
    fitLegendToWidth(plot.legend, target.width());
    const QPixmap pixmap = plot.toPixmap(target.width(), target.height(), dpr);
    p.drawPixmap(QRectF(target), pixmap, QRectF(pixmap.rect()));
}

} // namespace

void prepareDashboardTelemetry(TelemetryPlot &plot, const RunAnalysis &run, const Derived &derived)
{
    const Thresholds &thresholds = derived.thresholds;
    const QPalette palette = exportPalette();
    plot.setPalette(palette);
    plot.setFont(pixelFont(12));
    plot.setInteractiveHints(false);
    plot.setRun(&run);
    // The run's quantities, as the window's levels: no line where nothing measured utilisation.
    const Quantity &util = derived.quantities[QuantityKey::GpuUtilPct];
    plot.setRunLevels(util.value ? *util.value : double(NAN), derived.quantities[QuantityKey::HbmPeakGb].value,
                      util.value ? util.scope : QString());
    plot.setThresholds(thresholds.gpuUtilBelowPct, thresholds.hbmTargetPct, thresholds.hbmCapacityGb);
}

QImage renderDashboardImage(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &thresholds,
                            double dpr, QStringList *painted)
{
    return renderDashboardImage(run, deriveResults(run, profile, thresholds), dpr, painted);
}

QImage renderDashboardImage(const RunAnalysis &run, const Derived &derived, double dpr, QStringList *painted)
{
    const HeuristicsProfile profile = derived.profile;
    const Thresholds &thresholds = derived.thresholds;
    const RunMetrics &metrics = derived.metrics;
    const QPalette palette = exportPalette();
    const ProfileAnalysis &analysis = run.profile(profile);
    const WasteBudget &budget = metrics.wasteBudget;
    const Quantities &q = derived.quantities;
    const QString stepText = dashboardStepTimeText(derived);

    const QSize logical = kDashboardLogicalSize;
    QImage image(logical * dpr, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(dpr);
    image.fill(palette.color(QPalette::Base));

    RecordingPainter p(&image, painted);
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::TextAntialiasing);
    p.setPen(palette.color(QPalette::Text));

    // Header: run name, the profile, the step time (the Run section's, with its scope), where it
    // came from, and the verdict with the run's caveat.
    const int width = logical.width() - 2 * kMargin;
    int y = kMargin;
    y += drawLine(p, QRect(kMargin, y, width, 0), QStringLiteral("Goblin Workbench — %1").arg(run.runName),
                  pixelFont(26, true));
    p.setPen(palette.color(QPalette::PlaceholderText));
    y += drawLine(p, QRect(kMargin, y + 2, width, 0),
                  QStringLiteral("%1 profile   ·   step time %2   ·   %3 steps   ·   %4")
                      .arg(profileName(profile), stepText)
                      .arg(metrics.steps)
                      .arg(run.runDir),
                  pixelFont(14)) + 8;
    p.setPen(palette.color(QPalette::Text));
    // Two lines at most: the caveat and the verdict must both be read, not elided.
    y += drawWrapped(p, kMargin, y, width, runVerdict(derived), pixelFont(16, true)) + 10;

    // Left column: budget chart over telemetry. Right column: numbers.
    const int rightWidth = 520;
    const int leftWidth = width - rightWidth - kMargin;
    // The command that reproduces this image, in small print above the footer line.
    const QStringList command = reproducingCommand(QStringLiteral("report"), {run.runDir}, profile, thresholds);
    const int commandHeight = heightOfCommandFooter(width, command);
    const int bottom = logical.height() - kMargin - 18 - commandHeight - 6;
    // A telemetry chart with nothing to draw (no telemetry, no GPU events, no memory events) is
    // one line of text under the budget chart, which takes the freed height.
    TelemetryPlot telemetry;
    prepareDashboardTelemetry(telemetry, run, derived);
    if (telemetry.collapsed()) {
        const QFont noteFont = pixelFont(13);
        const int noteHeight = QFontMetrics(noteFont).height();
        paintBudgetChart(p, QRect(kMargin, y, leftWidth, bottom - y - noteHeight - 12), derived, palette);
        p.setPen(secondaryTextColor(palette));
        drawLine(p, QRect(kMargin, bottom - noteHeight, leftWidth, 0), telemetry.noteText(), noteFont);
        p.setPen(palette.color(QPalette::Text));
    } else {
        const int chartHeight = 360;
        paintBudgetChart(p, QRect(kMargin, y, leftWidth, chartHeight), derived, palette);
        paintTelemetry(p, QRect(kMargin, y + chartHeight + 12, leftWidth, bottom - (y + chartHeight + 12)), telemetry,
                       dpr);
    }

    const int x = kMargin + leftWidth + kMargin;
    int ry = y;
    const QFont heading = pixelFont(16, true);
    const QFont body = pixelFont(13);
    const QFont bold = pixelFont(13, true);
    const QFontMetrics bodyMetrics(body);
    const int numberWidth = 90;
    const int markWidth = 26;
    const auto row = [&](const QString &label, const QString &value, const QString &extra = QString(),
                         int indent = 0, const QString &mark = QString()) {
        // Two number columns (value, share) or one wide value column flush right; the state mark
        // in a narrow column before the value.
        const int valueWidth = extra.isEmpty() ? 2 * numberWidth + 40 : numberWidth;
        const int valueRight = extra.isEmpty() ? rightWidth : rightWidth - numberWidth;
        const int labelRight = valueRight - valueWidth - (mark.isEmpty() ? 0 : markWidth);
        drawLine(p, QRect(x + indent, ry, labelRight - indent, 0), label, body);
        if (!mark.isEmpty())
            drawLine(p, QRect(x + labelRight, ry, markWidth, 0), mark, bold, Qt::AlignHCenter);
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
    for (int i = 0; i < kStepTimeRow; ++i) {
        if (i == kUnattributedRow && !budget.hasUnattributed())
            continue;
        const bool unknown = budget.state(i) == ValueState::Unknown;
        const double seconds = budgetRowSeconds(budget, i);
        const double pct = budget.terms.stepS > 0.0 ? 100.0 * seconds / budget.terms.stepS : 0.0;
        p.fillRect(QRect(x, ry + bodyMetrics.height() / 2 - 5, 10, 10),
                   i == kUnattributedRow ? QBrush(bucketColor(i, palette), Qt::BDiagPattern)
                                         : QBrush(bucketColor(i, palette)));
        row(budgetRowLabel(i), formatBucketSeconds(budget, i), unknown ? QStringLiteral("—") : formatPercent(pct), 16,
            valueStateMark(budget.state(i)));
    }
    rule();
    const Quantity &step = q[QuantityKey::StepTimeS];
    row(budgetRowLabel(kStepTimeRow), step.value ? formatSeconds(*step.value) : QStringLiteral("—"),
        step.value ? formatPercent(100.0) : QStringLiteral("—"), 16, valueStateMark(step.state));
    p.setPen(palette.color(QPalette::PlaceholderText));
    ry += drawLine(p, QRect(x, ry, rightWidth, 0),
                   QStringLiteral("M measured · E estimated (heuristic or stand-in) · ? unknown, shown as —"),
                   pixelFont(11)) + 2;
    p.setPen(palette.color(QPalette::Text));
    ry += 10;

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

    // What the budget was computed from: the run's quantities (the report's `quantities`), each
    // with its state mark, value, scope and source; "—" and the reason where unknown.
    ry += drawLine(p, QRect(x, ry, rightWidth, 0), QStringLiteral("Run"), heading) + 4;
    rule();
    const QFont note = pixelFont(11);
    for (const DashboardRunLine &line : dashboardRunLines(derived)) {
        row(line.label, line.value, QString(), 0, line.mark);
        if (!line.note.isEmpty()) {
            p.setPen(palette.color(QPalette::PlaceholderText));
            ry += drawLine(p, QRect(x + 16, ry - 2, rightWidth - 16, 0), line.note, note) + 2;
            p.setPen(palette.color(QPalette::Text));
        }
    }
    int warnings = 0;
    for (const Diagnostic &d : run.diagnostics)
        warnings += d.severity != Severity::Info ? 1 : 0;
    row(QStringLiteral("Diagnostics"), QStringLiteral("%1 (%2 warnings or errors)").arg(run.diagnostics.size()).arg(warnings));

    // Footer.
    p.setPen(palette.color(QPalette::PlaceholderText));
    drawCommandFooter(p, kMargin, logical.height() - kMargin - 4 - commandHeight - 4, width, command);
    drawLine(p, QRect(kMargin, logical.height() - kMargin - 4, width, 0),
             QStringLiteral("Generated by goblin-workbench. %1")
                 .arg(profile == HeuristicsProfile::Reference ? QStringLiteral("Budget: the gpu-goblin reference's formulas.")
                      : derived.budgetMeasured ? QStringLiteral("Budget measured on the GPU timeline; E marks estimates.")
                                               : QStringLiteral("No GPU timeline covers the steps: the buckets are "
                                                                "estimates from the seed's formulas.")),
             pixelFont(11));
    p.end();
    return image;
}

QString dashboardStepTimeText(const Derived &derived)
{
    const Quantity &step = derived.quantities[QuantityKey::StepTimeS];
    if (!step.value)
        return QStringLiteral("—");
    return step.scope.isEmpty() ? formatSeconds(*step.value)
                                : QStringLiteral("%1 (%2)").arg(formatSeconds(*step.value), step.scope);
}

std::vector<DashboardRunLine> dashboardRunLines(const Derived &derived)
{
    const Quantities &q = derived.quantities;
    const auto line = [&](QuantityKey key, const std::function<QString(double)> &format) {
        const Quantity &x = q[key];
        return DashboardRunLine{Quantities::label(key), quantityText(x, format), valueStateMark(x.state), quantityNote(x)};
    };
    std::vector<DashboardRunLine> lines;
    // The step time exactly as the header prints it: one value per quantity.
    DashboardRunLine step = line(QuantityKey::StepTimeS, [](double v) { return formatSeconds(v); });
    step.value = q[QuantityKey::StepTimeS].value ? formatSeconds(*q[QuantityKey::StepTimeS].value) : QStringLiteral("—");
    lines.push_back(step);
    lines.push_back(line(QuantityKey::GpuUtilPct, [](double v) { return formatPercent(v); }));
    lines.push_back(line(QuantityKey::HostBusyFraction, [](double v) { return formatNumber(v, 2); }));
    lines.push_back(line(QuantityKey::HbmPeakGb, [](double v) { return formatGb(v); }));
    lines.push_back(line(QuantityKey::HbmCapacityGb, [](double v) { return formatGb(v); }));
    lines.push_back(line(QuantityKey::TokensPerSec, [](double v) { return formatNumber(v, 0); }));
    lines.push_back(line(QuantityKey::MfuPct, [](double v) { return formatPercent(v); }));
    return lines;
}

bool renderDashboardPng(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &thresholds,
                        const QString &path, QString *error)
{
    return renderDashboardPng(run, deriveResults(run, profile, thresholds), path, error);
}

/// The workbench never writes into a run folder, whichever window or command asks.
static bool refuseRunFolderPath(const RunAnalysis &run, const QString &path, QString *error)
{
    if (!isInsideRunFolder(path, run.runDir))
        return false;
    if (error)
        *error = QStringLiteral("%1 is inside the run folder %2; the workbench never writes into a run folder, "
                                "choose another place")
                     .arg(path, run.runDir);
    return true;
}

bool renderDashboardPng(const RunAnalysis &run, const Derived &derived, const QString &path, QString *error)
{
    if (refuseRunFolderPath(run, path, error))
        return false;
    return writePngImage(renderDashboardImage(run, derived, kDashboardPixelRatio), path, error);
}

bool exportReportJson(const RunAnalysis &run, const Derived &derived, const QString &path, QString *error)
{
    if (refuseRunFolderPath(run, path, error))
        return false;
    return writeReportJson(buildReport(run, derived), path, error);
}

bool exportReportJson(const RunAnalysis &run, HeuristicsProfile profile, const Thresholds &thresholds,
                      const QString &path, QString *error)
{
    if (refuseRunFolderPath(run, path, error))
        return false;
    return writeReportJson(buildReport(run, profile, thresholds), path, error);
}

} // namespace goblin
