#include "advicepanel.h"

#include "formatting.h"
#include "liveanalysis.h"
#include "workbenchsession.h"

#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

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

QString AdvicePanel::evidenceText(const QJsonValue &value)
{
    if (value.isDouble())
        return QString::number(value.toDouble(), 'g', 6);
    if (value.isString())
        return value.toString();
    if (value.isBool())
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (value.isNull())
        return QStringLiteral("—");
    if (value.isArray()) {
        QStringList lines;
        for (const QJsonValue &v : value.toArray()) {
            if (!v.isObject()) {
                lines << evidenceText(v);
                continue;
            }
            const QJsonObject o = v.toObject();
            QStringList fields;
            for (auto it = o.begin(); it != o.end(); ++it)
                if (it.key() != QLatin1String("name"))
                    fields << QStringLiteral("%1 %2").arg(it.key(), evidenceText(it.value()));
            lines << (o.contains(QLatin1String("name")) ? o[QLatin1String("name")].toString() + QStringLiteral(" (")
                                                              + fields.join(QStringLiteral(", ")) + QLatin1Char(')')
                                                        : fields.join(QStringLiteral(", ")));
        }
        return lines.join(QLatin1Char('\n'));
    }
    return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
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
    m_summary->setForegroundRole(QPalette::PlaceholderText);
    m_tree->setColumnCount(ColumnCount);
    m_tree->setHeaderLabels({tr("Bucket / evidence"), tr("s/step"), tr("Share"), tr("What to look at")});
    m_tree->setAlternatingRowColors(true);
    m_tree->setWordWrap(true);
    m_tree->setUniformRowHeights(false);
    m_tree->header()->setStretchLastSection(true);
    const int em = fontMetrics().height();
    m_tree->header()->resizeSection(BucketColumn, 14 * em);
    m_tree->header()->resizeSection(SecondsColumn, 6 * em);
    m_tree->header()->resizeSection(ShareColumn, 5 * em);
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
    m_advice = run ? adviseRun(*run, live->derived())
                   : std::vector<Advice>{};
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
        for (auto it = a.evidence.begin(); it != a.evidence.end(); ++it) {
            auto *child = new QTreeWidgetItem(item);
            child->setText(BucketColumn, it.key());
            child->setText(TextColumn, evidenceText(it.value()));
            child->setFirstColumnSpanned(false);
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
