#include "welcomepage.h"

#include "budgetformula.h"
#include "heuristics.h"
#include "wastebudgetmodel.h"

#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

namespace goblin {

namespace {

/// One line per row of the budget, in WasteBudget order then unattributed: the short form of
/// docs/budget.md's table (the "?" and Help give the full definitions).
const char *const kBucketGist[] = {
    QT_TRANSLATE_NOOP("WelcomePage", "the GPU computing: busy kernel time, less the two carve-outs below"),
    QT_TRANSLATE_NOOP("WelcomePage", "the GPU idle while the input pipeline (DataLoader) runs, and input copies alone on the GPU"),
    QT_TRANSLATE_NOOP("WelcomePage", "the GPU idle while the host launches nothing: launch gaps, Python and framework overhead"),
    QT_TRANSLATE_NOOP("WelcomePage", "communication (all-reduce, all-gather…) that no compute hides"),
    QT_TRANSLATE_NOOP("WelcomePage", "an estimate: the idle a larger batch could fill, from HBM left unused below the target"),
    QT_TRANSLATE_NOOP("WelcomePage", "an estimate: the share of fp16 kernel time a bf16 path would save"),
    QT_TRANSLATE_NOOP("WelcomePage", "an estimate: time in untuned (generic or fallback) GEMM kernels"),
    QT_TRANSLATE_NOOP("WelcomePage", "time no bucket can claim, e.g. idle in a kernel trace alone, which cannot tell data wait from launch gaps"),
};

} // namespace

QString budgetPrimerHtml(bool withDefinitions)
{
    QString rows;
    for (int row = 0; row <= kUnattributedRow; ++row) {
        const QString name = row < WasteBudget::BucketCount ? WasteBudget::bucketLabel(row)
                                                            : WelcomePage::tr("Unattributed");
        QString text = WelcomePage::tr(kBucketGist[row]);
        if (withDefinitions)
            text += QStringLiteral("<br><small>%1</small>")
                        .arg(bucketDefinition(row, HeuristicsProfile::Workbench, true).toHtmlEscaped());
        rows += QStringLiteral("<tr><td style=\"padding-right:8px\"><b>%1</b></td><td>%2</td></tr>").arg(name, text);
    }
    return WelcomePage::tr(
               "<h3>The waste budget</h3>"
               "<p>Each training step is split into buckets; the useful GPU time and six kinds of waste, plus "
               "what no bucket can claim. They add up to the step.</p>"
               "<table cellspacing=\"2\">%1</table>"
               "<p>Every number says where it came from: <b>M measured</b> (read off the trace's GPU timeline, "
               "the CPU lane or the telemetry), <b>E estimated</b> (a heuristic, a weight or a name pattern), "
               "<b>? unknown</b> (nothing in the files says it: shown as —, never as 0).</p>"
               "<p>The thresholds (right panel, and the red lines on the charts) are judgement lines: dragging "
               "them moves time between waste buckets, never into useful GPU — except the precision weight, "
               "which says how much compute a faster precision would save.</p>")
        .arg(rows);
}

WelcomePage::WelcomePage(QWidget *parent)
    : QWidget(parent)
    , m_openFolder(new QPushButton(tr("Open Run &Folder…"), this))
    , m_openFile(new QPushButton(tr("Open &Trace File…"), this))
    , m_openExample(new QPushButton(tr("Open &Example Run"), this))
    , m_recentList(new QListWidget(this))
    , m_primer(new QLabel(this))
{
    const int em = fontMetrics().height();
    auto *title = new QLabel(tr("<h2>Goblin Workbench</h2>"), this);
    auto *intro = new QLabel(
        tr("Where the time of each training step goes: open a <b>run folder</b> — any of <tt>trace.csv</tt> "
           "(rocprofv3 kernel trace), <tt>torch_profile.json</tt> (torch.profiler trace) and <tt>amd_smi.csv</tt> "
           "(amd-smi telemetry) — or a single trace file (<tt>.json</tt>, <tt>.json.gz</tt>, <tt>.csv</tt>). "
           "You can also drop a folder or a file on the window."),
        this);
    intro->setWordWrap(true);
    m_openFolder->setToolTip(tr("A folder with trace.csv, torch_profile.json and/or amd_smi.csv (Ctrl+O)"));
    m_openFile->setToolTip(tr("One trace alone: a torch.profiler trace (.json, .json.gz) or a kernel-trace CSV"));
    m_openExample->setToolTip(tr("The small data-bound example run that comes with the workbench"));
    for (QPushButton *b : {m_openFolder, m_openFile, m_openExample})
        b->setMinimumHeight(2 * em);
    connect(m_openFolder, &QPushButton::clicked, this, &WelcomePage::openFolderRequested);
    connect(m_openFile, &QPushButton::clicked, this, &WelcomePage::openFileRequested);
    connect(m_openExample, &QPushButton::clicked, this, &WelcomePage::openExampleRequested);

    auto *recentTitle = new QLabel(tr("<b>Recent runs</b>"), this);
    m_recentList->setObjectName(QStringLiteral("RecentRuns"));
    m_recentList->setTextElideMode(Qt::ElideMiddle);
    m_recentList->setMinimumHeight(6 * em);
    // A click opens, as on a start page; Enter and double-click too. Where the style already
    // activates on a single click, the click is that activation (not a second open).
    const auto open = [this](QListWidgetItem *item) {
        const QString path = item ? item->data(Qt::UserRole).toString() : QString();
        if (!path.isEmpty())
            emit openRecentRequested(path);
    };
    connect(m_recentList, &QListWidget::itemActivated, this, open);
    connect(m_recentList, &QListWidget::itemClicked, this, [this, open](QListWidgetItem *item) {
        if (!style()->styleHint(QStyle::SH_ItemView_ActivateItemOnSingleClick, nullptr, m_recentList))
            open(item);
    });

    m_primer->setWordWrap(true);
    m_primer->setTextFormat(Qt::RichText);
    m_primer->setText(budgetPrimerHtml());
    m_primer->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *more = new QToolButton(this);
    more->setText(tr("Full definitions and keys (F1)"));
    connect(more, &QToolButton::clicked, this, &WelcomePage::helpRequested);

    auto *left = new QVBoxLayout;
    left->addWidget(title);
    left->addWidget(intro);
    left->addSpacing(em / 2);
    left->addWidget(m_openFolder);
    left->addWidget(m_openFile);
    left->addWidget(m_openExample);
    left->addSpacing(em / 2);
    left->addWidget(recentTitle);
    left->addWidget(m_recentList, 1);
    auto *right = new QVBoxLayout;
    right->addWidget(m_primer);
    right->addWidget(more, 0, Qt::AlignLeft);
    right->addStretch(1);

    auto *content = new QWidget(this);
    auto *columns = new QHBoxLayout(content);
    columns->setContentsMargins(2 * em, em, 2 * em, em);
    columns->setSpacing(2 * em);
    columns->addLayout(left, 2);
    columns->addLayout(right, 3);
    content->setMaximumWidth(80 * em);
    // Scrolls rather than squeezes on a short screen: nothing overlaps at 1366×768.
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setAlignment(Qt::AlignHCenter | Qt::AlignTop);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll);

    setRecentRuns({});
}

void WelcomePage::setRecentRuns(const QStringList &paths)
{
    m_recent = paths;
    m_recentList->clear();
    for (const QString &path : paths) {
        const QFileInfo info(path);
        auto *item = new QListWidgetItem(QStringLiteral("%1 — %2").arg(info.fileName(),
                                                                       QDir::toNativeSeparators(info.absolutePath())),
                                         m_recentList);
        item->setData(Qt::UserRole, path);
        item->setToolTip(QDir::toNativeSeparators(path));
    }
    if (paths.isEmpty()) {
        auto *item = new QListWidgetItem(tr("No recent runs"), m_recentList);
        item->setFlags(Qt::NoItemFlags);
    }
}

void WelcomePage::setExampleAvailable(bool available)
{
    m_openExample->setEnabled(available);
    if (!available)
        m_openExample->setToolTip(tr("The example run is not installed"));
}

} // namespace goblin
