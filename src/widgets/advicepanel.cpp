#include "advicepanel.h"

#include "formatting.h"
#include "liveanalysis.h"
#include "plotstyle.h"
#include "workbenchsession.h"

#include <QCoreApplication>
#include <QHeaderView>
#include <QLocale>
#include <QStyle>
#include <QStyledItemDelegate>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace goblin {

namespace {

QString bucketLabelOf(const QString &key)
{
    for (int b = 0; b < WasteBudget::BucketCount; ++b)
        if (WasteBudget::bucketKey(b) == key)
            return WasteBudget::bucketLabel(b);
    return key;
}

} // namespace

namespace {

/// How an evidence number reads.
enum class EvidenceKind {
    SecondsPerStep,  ///< "61.0 ms per step (35 % of the step)"
    Seconds,         ///< "1.23 s"
    StepFraction,    ///< 0.57 → "57 % of the step"
    Fraction,        ///< 0.12 → "12 %" followed by the entry's note
    Percent,         ///< already %: "48.5 %" followed by the note
    Gigabytes,       ///< "134.4 GB"
    Count,           ///< "12345"
    Number,          ///< "0.30" followed by the note
    Words,           ///< strings and booleans as they read
};

struct EvidenceEntry {
    const char *key;
    const char *label;
    EvidenceKind kind;
    const char *note;  ///< after the value ("of GEMM time"), may be empty
};

// The keys adviseRun (src/model/derived/advice.cpp) writes, in the order a reader wants them:
// the bucket's own numbers, what explains them, the thresholds, then the context.
const EvidenceEntry kEvidence[] = {
    {"bucket_seconds_per_step", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "this bucket"), EvidenceKind::SecondsPerStep, ""},
    {"idle_in_data_loading_seconds", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "GPU idle in data loading"),
     EvidenceKind::SecondsPerStep, ""},
    {"input_copy_seconds", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "input copies alone on the GPU"),
     EvidenceKind::SecondsPerStep, ""},
    {"idle_nothing_on_host_seconds", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "GPU idle, nothing on the host"),
     EvidenceKind::SecondsPerStep, ""},
    {"idle_during_host_work_seconds", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "GPU idle during host work"),
     EvidenceKind::SecondsPerStep, ""},
    {"exposed_comm_seconds_per_step", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "exposed communication"),
     EvidenceKind::SecondsPerStep, ""},
    {"collective_seconds_per_step", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "collective kernels"),
     EvidenceKind::SecondsPerStep, ""},
    {"copy_only_seconds", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "copies and memsets alone on the GPU"),
     EvidenceKind::SecondsPerStep, ""},
    {"gpu_util_pct", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "GPU utilisation"), EvidenceKind::Percent, ""},
    {"host_busy_fraction", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "host busy"), EvidenceKind::StepFraction, ""},
    {"gpu_util_below_pct", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "GPU-util threshold"), EvidenceKind::Percent,
     QT_TRANSLATE_NOOP("goblin::AdvicePanel", "(data wait needs utilisation below it)")},
    {"host_busy_above", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "host-busy threshold"), EvidenceKind::Number,
     QT_TRANSLATE_NOOP("goblin::AdvicePanel", "(data wait needs the host busier than it)")},
    {"collective_share_of_kernel_time", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "collectives"), EvidenceKind::Fraction,
     QT_TRANSLATE_NOOP("goblin::AdvicePanel", "of kernel time")},
    {"collective_calls", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "collective calls"), EvidenceKind::Count, ""},
    {"hbm_peak_gb", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "HBM peak"), EvidenceKind::Gigabytes, ""},
    {"hbm_capacity_gb", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "HBM capacity"), EvidenceKind::Gigabytes, ""},
    {"hbm_target_pct", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "HBM target"), EvidenceKind::Percent,
     QT_TRANSLATE_NOOP("goblin::AdvicePanel", "of capacity")},
    {"fp16_kernel_seconds", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "fp16 kernel time"), EvidenceKind::Seconds, ""},
    {"bf16_kernel_seconds", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "bf16 kernel time"), EvidenceKind::Seconds, ""},
    {"precision", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "workload precision"), EvidenceKind::Words, ""},
    {"precision_weight", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "precision weight"), EvidenceKind::Number,
     QT_TRANSLATE_NOOP("goblin::AdvicePanel", "(the share of fp16 time assumed saved by bf16)")},
    {"generic_gemm_share_of_gemm_time", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "untuned GEMMs"),
     EvidenceKind::Fraction, QT_TRANSLATE_NOOP("goblin::AdvicePanel", "of GEMM time")},
    {"generic_gemm_seconds", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "untuned GEMM time"), EvidenceKind::Seconds, ""},
    {"gemm_seconds", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "GEMM time"), EvidenceKind::Seconds, ""},
    {"untuned_kernels", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "untuned kernels"), EvidenceKind::Words, ""},
    {"kernel_calls", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "kernel calls"), EvidenceKind::Count, ""},
    {"host_ops_in_gpu_idle", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "host ops while the GPU was idle"),
     EvidenceKind::Words, ""},
    {"host_self_in_gpu_idle_seconds_per_step", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "host ops' self time in GPU idle"),
     EvidenceKind::SecondsPerStep, ""},
    {"generic_gemm_ops", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "ops launching untuned GEMMs"), EvidenceKind::Words, ""},
    {"generic_gemm_modules", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "modules launching untuned GEMMs"),
     EvidenceKind::Words, ""},
    {"generic_gemm_attributed_seconds_per_step", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "untuned GEMMs attributed to ops"),
     EvidenceKind::SecondsPerStep, ""},
    {"fp16_gemm_ops", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "ops launching fp16 GEMMs"), EvidenceKind::Words, ""},
    {"fp16_gemm_modules", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "modules launching fp16 GEMMs"), EvidenceKind::Words, ""},
    {"fp16_gemm_attributed_seconds_per_step", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "fp16 GEMMs attributed to ops"),
     EvidenceKind::SecondsPerStep, ""},
    {"fp32_gemm_ops", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "ops launching fp32 GEMMs"), EvidenceKind::Words, ""},
    {"fp32_gemm_modules", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "modules launching fp32 GEMMs"), EvidenceKind::Words, ""},
    {"fp32_gemm_attributed_seconds_per_step", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "fp32 GEMMs attributed to ops"),
     EvidenceKind::SecondsPerStep, ""},
    {"collective_ops", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "ops launching collectives"), EvidenceKind::Words, ""},
    {"collective_modules", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "modules launching collectives"), EvidenceKind::Words, ""},
    {"collective_attributed_seconds_per_step", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "collectives attributed to ops"),
     EvidenceKind::SecondsPerStep, ""},
    {"ops_scope", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "op figures"), EvidenceKind::Words, ""},
    {"gpu_agents", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "GPU agents"), EvidenceKind::Count, ""},
    {"host_traced", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "host activity traced"), EvidenceKind::Words, ""},
    {"utilisation_measured", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "GPU utilisation measured"), EvidenceKind::Words,
     ""},
    {"step_time_seconds", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "step time"), EvidenceKind::Seconds, ""},
    {"bucket_state", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "state"), EvidenceKind::Words, ""},
    {"run_kind", QT_TRANSLATE_NOOP("goblin::AdvicePanel", "run kind"), EvidenceKind::Words, ""},
};

const EvidenceEntry *entryOf(const QString &key)
{
    for (const EvidenceEntry &e : kEvidence)
        if (key == QLatin1String(e.key))
            return &e;
    return nullptr;
}

QString tr(const char *text, const char *disambiguation = nullptr, int n = -1)
{
    return QCoreApplication::translate("goblin::AdvicePanel", text, disambiguation, n);
}

/// A key the table does not know: its kind from its suffix.
EvidenceKind kindOfUnknown(const QString &key, const QJsonValue &value)
{
    if (!value.isDouble())
        return EvidenceKind::Words;
    if (key.endsWith(QLatin1String("_seconds_per_step")))
        return EvidenceKind::SecondsPerStep;
    if (key.endsWith(QLatin1String("_seconds")))
        return EvidenceKind::Seconds;
    if (key.endsWith(QLatin1String("_pct")))
        return EvidenceKind::Percent;
    if (key.endsWith(QLatin1String("_fraction")) || key.contains(QLatin1String("share")))
        return EvidenceKind::Fraction;
    if (key.endsWith(QLatin1String("_gb")))
        return EvidenceKind::Gigabytes;
    return EvidenceKind::Number;
}

QString threeSignificant(double v)
{
    return QString::number(v, 'g', 3);
}

/// Plain words for a value that is no number: strings, yes/no, kernel lists.
QString wordsOf(const QJsonValue &value)
{
    if (value.isString())
        return value.toString();
    if (value.isBool())
        return value.toBool() ? tr("yes") : tr("no");
    if (value.isNull() || value.isUndefined())
        return QStringLiteral("—");
    if (value.isDouble())
        return threeSignificant(value.toDouble());
    if (value.isArray()) {
        QStringList lines;
        for (const QJsonValue &v : value.toArray()) {
            if (!v.isObject()) {
                lines << wordsOf(v);
                continue;
            }
            const QJsonObject o = v.toObject();
            QStringList fields;
            if (o.contains(QLatin1String("share_of_gemm_time")))
                fields << tr("%1 of GEMM time").arg(formatPercent(100.0 * o[QLatin1String("share_of_gemm_time")].toDouble()));
            if (o.contains(QLatin1String("calls")))
                fields << tr("%n call(s)", nullptr, int(o[QLatin1String("calls")].toDouble()));
            // An op or module behind the bucket (advice.cpp: culpritJson): time per step, events, shapes.
            if (o.contains(QLatin1String("seconds_per_step")))
                fields << tr("%1 per step").arg(formatSeconds(o[QLatin1String("seconds_per_step")].toDouble()));
            if (o.contains(QLatin1String("gpu_events")))
                fields << tr("%n event(s)", nullptr, int(o[QLatin1String("gpu_events")].toDouble()));
            if (o.value(QLatin1String("input_shapes")).isString())
                fields << tr("shapes %1").arg(o[QLatin1String("input_shapes")].toString());
            for (auto it = o.begin(); it != o.end(); ++it)
                if (it.key() != QLatin1String("name") && it.key() != QLatin1String("share_of_gemm_time")
                    && it.key() != QLatin1String("calls") && it.key() != QLatin1String("seconds_per_step")
                    && it.key() != QLatin1String("gpu_events") && it.key() != QLatin1String("input_shapes"))
                    fields << QStringLiteral("%1 %2").arg(AdvicePanel::evidenceLabel(it.key()), wordsOf(it.value()));
            const QString name = o[QLatin1String("name")].toString();
            lines << (name.isEmpty() ? fields.join(QStringLiteral(", "))
                                     : QStringLiteral("%1 (%2)").arg(name, fields.join(QStringLiteral(", "))));
        }
        return lines.isEmpty() ? tr("none") : lines.join(QLatin1Char('\n'));
    }
    return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
}

/// Word-wrapped cells whose height follows their column's width: the default delegate sizes a
/// row for one line, so a long sentence was cut at the column edge.
class WrappingDelegate : public QStyledItemDelegate
{
public:
    WrappingDelegate(QTreeWidget *tree)
        : QStyledItemDelegate(tree)
        , m_tree(tree)
    {
    }

    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QStyleOptionViewItem opt(option);
        initStyleOption(&opt, index);
        const QSize base = QStyledItemDelegate::sizeHint(option, index);
        int width = m_tree->header()->sectionSize(index.column());
        if (index.column() == 0) {
            int depth = 0;
            for (QModelIndex p = index.parent(); p.isValid(); p = p.parent())
                ++depth;
            width -= m_tree->indentation() * (depth + (m_tree->rootIsDecorated() ? 1 : 0));
        }
        // The style's text margins on both sides, as QCommonStyle lays a view item out.
        const int margin = m_tree->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, &opt, m_tree) + 1;
        const int textWidth = std::max(4 * opt.fontMetrics.averageCharWidth(), width - 2 * margin - 2);
        const QRect text = opt.fontMetrics.boundingRect(QRect(0, 0, textWidth, 1 << 20),
                                                        Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, opt.text);
        return QSize(base.width(), std::max(base.height(), text.height() + 4));
    }

private:
    QTreeWidget *m_tree;
};

} // namespace

QString AdvicePanel::evidenceLabel(const QString &key)
{
    if (const EvidenceEntry *e = entryOf(key))
        return tr(e->label);
    QString words = key;
    for (const char *suffix : {"_seconds_per_step", "_seconds", "_pct", "_fraction", "_gb"})
        if (words.endsWith(QLatin1String(suffix)))
            words.chop(qsizetype(qstrlen(suffix)));
    return words.replace(QLatin1Char('_'), QLatin1Char(' '));
}

QString AdvicePanel::evidenceText(const QString &key, const QJsonObject &evidence)
{
    const QJsonValue value = evidence.value(key);
    const EvidenceEntry *entry = entryOf(key);
    const EvidenceKind kind = entry ? entry->kind : kindOfUnknown(key, value);
    const QString note = entry && *entry->note ? QLatin1Char(' ') + tr(entry->note) : QString();
    if (kind == EvidenceKind::Words || !value.isDouble())
        return wordsOf(value) + note;
    const double v = value.toDouble();
    if (!std::isfinite(v))
        return QStringLiteral("—");
    switch (kind) {
    case EvidenceKind::SecondsPerStep: {
        const double step = evidence.value(QLatin1String("step_time_seconds")).toDouble();
        return step > 0.0 ? tr("%1 per step (%2 of the step)").arg(formatSeconds(v), formatPercent(100.0 * v / step, 0))
                          : tr("%1 per step").arg(formatSeconds(v));
    }
    case EvidenceKind::Seconds:
        return formatSeconds(v) + note;
    case EvidenceKind::StepFraction:
        return tr("%1 of the step").arg(formatPercent(100.0 * v, 0));
    case EvidenceKind::Fraction:
        return formatPercent(100.0 * v) + note;
    case EvidenceKind::Percent:
        return formatPercent(v) + note;
    case EvidenceKind::Gigabytes:
        return formatGb(v) + note;
    case EvidenceKind::Count:
        return QLocale().toString(qint64(std::llround(v))) + note;
    case EvidenceKind::Number:
        return formatNumber(v, 2) + note;
    case EvidenceKind::Words:
        break;
    }
    return wordsOf(value) + note;
}

QString AdvicePanel::evidenceSentence(const QString &key, const QJsonObject &evidence)
{
    return QStringLiteral("%1 %2").arg(evidenceLabel(key), evidenceText(key, evidence));
}

QStringList AdvicePanel::evidenceOrder(const QJsonObject &evidence)
{
    QStringList out;
    for (const EvidenceEntry &e : kEvidence)
        if (evidence.contains(QLatin1String(e.key)))
            out << QString::fromLatin1(e.key);
    for (auto it = evidence.begin(); it != evidence.end(); ++it)
        if (!entryOf(it.key()))
            out << it.key();
    return out;
}

AdvicePanel::AdvicePanel(WorkbenchSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_caveat(new QLabel(this))
    , m_summary(new QLabel(this))
    , m_tree(new QTreeWidget(this))
{
    // What the trace could not measure comes first: the advice below is read in its light.
    m_caveat->setWordWrap(true);
    m_caveat->setTextFormat(Qt::PlainText);
    m_caveat->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont caveatFont = m_caveat->font();
    caveatFont.setBold(true);
    m_caveat->setFont(caveatFont);
    m_caveat->hide();
    m_summary->setWordWrap(true);
    useSecondaryText(m_summary);
    m_tree->setColumnCount(ColumnCount);
    m_tree->setItemDelegate(new WrappingDelegate(m_tree));
    m_tree->setHeaderLabels({tr("Bucket / evidence"), tr("s/step"), tr("Share"), tr("What to look at")});
    m_tree->setAlternatingRowColors(true);
    m_tree->setWordWrap(true);
    m_tree->setUniformRowHeights(false);
    m_tree->header()->setStretchLastSection(true);
    const int em = fontMetrics().height();
    m_tree->header()->resizeSection(BucketColumn, 14 * em);
    m_tree->header()->resizeSection(SecondsColumn, 6 * em);
    m_tree->header()->resizeSection(ShareColumn, 5 * em);
    // Wrapped rows are as tall as their column is narrow: lay them out again when a column moves.
    // The tree itself is captured, not `this`: the header also resizes while the panel is torn down.
    connect(m_tree->header(), &QHeaderView::sectionResized, m_tree, [tree = m_tree] { tree->doItemsLayout(); });
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(m_caveat);
    layout->addWidget(m_summary);
    layout->addWidget(m_tree, 1);

    // metricsChanged comes after each (coalesced) recompute, so the advice reads the budget the
    // chart shows; runChanged and profileChanged recompute at once and emit it too.
    connect(session->live(), &LiveAnalysis::metricsChanged, this, &AdvicePanel::refresh);
    refresh();
}

void AdvicePanel::refresh()
{
    LiveAnalysis *live = m_session->live();
    const auto &run = live->run();
    m_advice = run ? live->derived().advice : std::vector<Advice>{};  // Derived's: the report's words
    m_tree->clear();
    for (const Advice &a : m_advice) {
        auto *item = new QTreeWidgetItem(m_tree);
        item->setText(BucketColumn, bucketLabelOf(a.bucket));
        item->setText(SecondsColumn, formatSeconds(a.secondsPerStep));
        item->setText(ShareColumn, formatPercent(100.0 * a.shareOfStep));
        item->setText(TextColumn, a.text);
        item->setToolTip(TextColumn, a.text);
        item->setToolTip(BucketColumn, a.rule);
        item->setData(BucketColumn, Qt::UserRole, a.rule);
        item->setData(SecondsColumn, Qt::UserRole, a.secondsPerStep);
        item->setData(ShareColumn, Qt::UserRole, a.shareOfStep);
        item->setTextAlignment(SecondsColumn, Qt::AlignRight | Qt::AlignVCenter);
        item->setTextAlignment(ShareColumn, Qt::AlignRight | Qt::AlignVCenter);
        for (const QString &key : evidenceOrder(a.evidence)) {
            auto *child = new QTreeWidgetItem(item);
            child->setText(BucketColumn, evidenceLabel(key));
            child->setData(BucketColumn, Qt::UserRole, key);  // the report's key, for tools and tests
            child->setText(TextColumn, evidenceText(key, a.evidence));
            child->setToolTip(BucketColumn, key);
            child->setToolTip(TextColumn, evidenceSentence(key, a.evidence));
        }
        item->setExpanded(m_tree->topLevelItemCount() == 1);  // the largest one open
    }
    const Derived &derived = live->derived();
    m_caveat->setText(run && !derived.caveat.isEmpty() ? tr("Caveat: %1.").arg(derived.caveat) : QString());
    m_caveat->setVisible(!m_caveat->text().isEmpty());
    int unknown = 0;
    for (int b = 1; b < WasteBudget::BucketCount; ++b)
        unknown += derived.metrics.wasteBudget.state(b) == ValueState::Unknown ? 1 : 0;
    if (!run)
        m_summary->setText(tr("Open a run to see what to look at first."));
    else if (m_advice.empty() && !(derived.stepTimeS() > 0.0))
        m_summary->setText(tr("No budget (no step time): no advice."));
    else if (m_advice.empty() && unknown > 0)
        m_summary->setText(tr("No measured or estimated waste bucket is above zero at these thresholds; %n "
                              "bucket(s) are unknown (—) and give no advice.",
                              nullptr, unknown));
    else if (m_advice.empty())
        m_summary->setText(tr("No waste bucket is above zero at these thresholds: no advice."));
    else
        m_summary->setText(tr("%n piece(s) of advice, largest bucket first; expand a row for the numbers behind it.",
                              nullptr, int(m_advice.size())));
}

} // namespace goblin
