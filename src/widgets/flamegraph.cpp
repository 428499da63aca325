#include "flamegraph.h"

#include "attributiontext.h"
#include "traceranks.h"
#include "formatting.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>

namespace goblin
{

namespace
{

constexpr FrameKind kLegendKinds[] = {FrameKind::Module, FrameKind::Annotation, FrameKind::PythonFunction,
                                      FrameKind::Op, FrameKind::RuntimeCall, FrameKind::GpuEvent};

/// The kinds a legend names, drawn as small swatches: the graph's colours are its own, so it
/// carries its own key.
class FlameLegend : public QWidget
{
public:
    using QWidget::QWidget;
    QSize sizeHint() const override
    {
        const QFontMetrics fm = fontMetrics();
        int width = 0;
        for (FrameKind kind : kLegendKinds)
            width += fm.height() + 4 + fm.horizontalAdvance(frameKindName(kind)) + 12;
        return {width, fm.height() + 4};
    }

protected:
    void paintEvent(QPaintEvent *) override
    {
        QPainter p(this);
        const QFontMetrics fm = fontMetrics();
        const int swatch = fm.height() - 4;
        int x = 0;
        const int y = (height() - fm.height()) / 2;
        for (FrameKind kind : kLegendKinds) {
            p.fillRect(QRect(x, y + 2, swatch, swatch), FlameGraph::kindColor(kind));
            p.setPen(palette().color(QPalette::Mid));
            p.drawRect(QRect(x, y + 2, swatch, swatch));
            x += swatch + 4;
            p.setPen(palette().color(QPalette::WindowText));
            const QString text = frameKindName(kind);
            p.drawText(QRect(x, y, fm.horizontalAdvance(text) + 2, fm.height()), Qt::AlignVCenter, text);
            x += fm.horizontalAdvance(text) + 12;
        }
    }
};

} // namespace

/// The drawing surface inside the scroll area: lays the frames out for its width and paints them.
class FlameCanvas : public QWidget
{
public:
    explicit FlameCanvas(FlameGraph *graph) : QWidget(graph), m_graph(graph)
    {
        setMouseTracking(true);
        setAttribute(Qt::WA_OpaquePaintEvent);
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    }

    int rowHeight() const { return fontMetrics().height() + 6; }

    void relayout()
    {
        m_boxes.clear();
        const LaunchTree *tree = m_graph->tree();
        if (tree && !tree->nodes.empty() && m_graph->weightOf(0) > 0) {
            // The chain root → zoomed frame as full-width bars, then the zoomed frame's subtree.
            std::vector<int> chain;
            for (int n = m_graph->m_zoomNode; n >= 0; n = tree->nodes[std::size_t(n)].parent)
                chain.push_back(n);
            std::reverse(chain.begin(), chain.end());
            const double width = double(this->width());
            for (std::size_t d = 0; d + 1 < chain.size(); ++d)
                addBox(chain[d], 0.0, width, int(d));
            layoutSubtree(*tree, chain.back(), 0.0, width, int(chain.size()) - 1);
        }
        int maxDepth = 0;
        for (const FlameGraph::Box &b : m_boxes)
            maxDepth = std::max(maxDepth, b.depth);
        const int needed = m_boxes.empty() ? 0 : (maxDepth + 1) * rowHeight() + 2;
        if (minimumHeight() != needed)
            setMinimumHeight(needed); // a taller canvas scrolls; resizeEvent lays out again
        // Root at the bottom, as in Hotspot: stacks grow upward.
        const double bottom = double(height());
        for (FlameGraph::Box &b : m_boxes)
            b.rect.moveTop(bottom - double((b.depth + 1) * rowHeight()));
        update();
    }

    const std::vector<FlameGraph::Box> &boxes() const { return m_boxes; }

    int nodeAt(QPointF pos) const
    {
        for (const FlameGraph::Box &b : m_boxes)
            if (b.rect.contains(pos))
                return b.node;
        return -1;
    }

protected:
    void resizeEvent(QResizeEvent *event) override
    {
        QWidget::resizeEvent(event);
        relayout();
    }

    void paintEvent(QPaintEvent *) override
    {
        QPainter p(this);
        p.fillRect(rect(), palette().color(QPalette::Base));
        const LaunchTree *tree = m_graph->tree();
        if (!tree)
            return;
        const QFontMetrics fm = fontMetrics();
        const QColor highlight = palette().color(QPalette::Highlight);
        const QColor highlightText = palette().color(QPalette::HighlightedText);
        const QColor dimmedColor = palette().color(QPalette::Mid);
        for (const FlameGraph::Box &b : m_boxes) {
            const LaunchNode &node = tree->nodes[std::size_t(b.node)];
            // A one-pixel gap in the background colour separates neighbours at every width.
            const QRectF box = b.rect.adjusted(0, 0, b.rect.width() > 2 ? -1 : 0, -1);
            QColor fill = FlameGraph::kindColor(node.kind);
            QColor text = Qt::black; // the kind colours are light in both palettes
            if (b.match) {
                fill = highlight;
                text = highlightText;
            } else if (b.dimmed) {
                fill = dimmedColor;
                text = palette().color(QPalette::Base);
            }
            p.fillRect(box, fill);
            if (b.node == m_hovered) {
                p.setPen(QPen(palette().color(QPalette::Text), 1));
                p.drawRect(box.adjusted(0.5, 0.5, -0.5, -0.5));
            }
            const int margin = 3;
            const int textWidth = int(box.width()) - 2 * margin;
            if (textWidth < fm.averageCharWidth() * 4) // a lone "…" says nothing
                continue;
            const QString name = b.node == 0 ? m_graph->tr("all") : node.name;
            // Kernel names differ in their middle (Cijk_… tile sizes), op names at their end.
            const Qt::TextElideMode mode = node.kind == FrameKind::GpuEvent ? Qt::ElideMiddle : Qt::ElideRight;
            p.setPen(text);
            p.drawText(QRectF(box.left() + margin, box.top(), textWidth, box.height()),
                       Qt::AlignVCenter | Qt::AlignLeft, fm.elidedText(name, mode, textWidth));
        }
    }

    void mouseMoveEvent(QMouseEvent *event) override
    {
        const int node = nodeAt(event->position());
        if (node != m_hovered) {
            m_hovered = node;
            update();
        }
    }

    void leaveEvent(QEvent *) override
    {
        m_hovered = -1;
        update();
    }

    void mouseReleaseEvent(QMouseEvent *event) override
    {
        if (event->button() == Qt::BackButton) {
            m_graph->back();  // the mouse's back button, as in a browser
            return;
        }
        if (event->button() != Qt::LeftButton)
            return;
        const int node = nodeAt(event->position());
        if (node >= 0)
            m_graph->clicked(node);
    }

    bool event(QEvent *event) override
    {
        if (event->type() == QEvent::ToolTip) {
            auto *help = static_cast<QHelpEvent *>(event);
            const int node = nodeAt(help->pos());
            if (node >= 0)
                QToolTip::showText(help->globalPos(), m_graph->toolTipFor(node), this);
            else
                QToolTip::hideText();
            return true;
        }
        return QWidget::event(event);
    }

private:
    void addBox(int node, double x, double width, int depth)
    {
        const bool searching = !m_graph->m_searchText.isEmpty();
        FlameGraph::Box b;
        b.node = node;
        b.rect = QRectF(x, 0, width, rowHeight());
        b.depth = depth;
        b.match = searching && m_match[std::size_t(node)];
        b.dimmed = searching && !m_related[std::size_t(node)];
        m_boxes.push_back(b);
    }

    void layoutSubtree(const LaunchTree &tree, int node, double x, double width, int depth)
    {
        addBox(node, x, width, depth);
        const qint64 total = m_graph->weightOf(node);
        if (total <= 0)
            return;
        std::vector<int> children = tree.nodes[std::size_t(node)].children;
        // By name, as Hotspot does: a stable picture when the weight switches.
        std::stable_sort(children.begin(), children.end(), [&tree](int a, int b) {
            return tree.nodes[std::size_t(a)].name < tree.nodes[std::size_t(b)].name;
        });
        double childX = x;
        for (int child : children) {
            const double childWidth = width * double(m_graph->weightOf(child)) / double(total);
            if (childWidth < 1.0)
                continue; // under a pixel: invisible, and so is its subtree
            layoutSubtree(tree, child, childX, childWidth, depth + 1);
            childX += childWidth;
        }
    }

public:
    std::vector<char> m_match;   ///< per node: its name matches the search
    std::vector<char> m_related; ///< per node: it, a frame above it or a frame below it matches

private:
    FlameGraph *m_graph;
    std::vector<FlameGraph::Box> m_boxes;
    int m_hovered = -1;
};

FlameGraph::FlameGraph(QWidget *parent)
    : QWidget(parent)
    , m_scope(new QComboBox(this))
    , m_weightCombo(new QComboBox(this))
    , m_search(new QLineEdit(this))
    , m_back(new QToolButton(this))
    , m_reset(new QToolButton(this))
    , m_crumbs(new QLabel(this))
    , m_noteLabel(new QLabel(this))
    , m_searchLabel(new QLabel(this))
    , m_scroll(new QScrollArea(this))
    , m_canvas(new FlameCanvas(this))
{
    m_scope->setToolTip(tr("All steps, or one ProfilerStep"));
    m_scope->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_weightCombo->addItem(tr("GPU time"), int(Weight::GpuTime));
    m_weightCombo->addItem(tr("Host time"), int(Weight::HostTime));
    m_weightCombo->setToolTip(tr("Frame width: the GPU time of the events launched under the frame, or the host "
                                 "wall time of its ranges"));
    m_search->setPlaceholderText(tr("Search frames"));
    m_search->setClearButtonEnabled(true);
    m_back->setText(tr("Back"));
    m_back->setToolTip(tr("Back to the previous zoom"));
    m_reset->setText(tr("Reset zoom"));
    m_crumbs->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_noteLabel->setWordWrap(true);
    m_noteLabel->setAlignment(Qt::AlignCenter);
    m_noteLabel->setForegroundRole(QPalette::PlaceholderText);
    m_searchLabel->setForegroundRole(QPalette::PlaceholderText);
    m_scroll->setWidget(m_canvas);
    m_scroll->setWidgetResizable(true);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_scroll->setFrameShape(QFrame::NoFrame);

    auto *controls = new QHBoxLayout;
    controls->addWidget(m_scope);
    controls->addWidget(m_weightCombo);
    controls->addWidget(m_search, 1);
    controls->addWidget(m_back);
    controls->addWidget(m_reset);
    auto *info = new QHBoxLayout;
    info->addWidget(m_crumbs, 1);
    info->addWidget(m_searchLabel);
    info->addWidget(new FlameLegend(this));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addLayout(info);
    layout->addWidget(m_noteLabel);
    layout->addWidget(m_scroll, 1);

    connect(m_scope, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0)
            setScopeIndex(index);
    });
    connect(m_weightCombo, &QComboBox::currentIndexChanged, this,
            [this](int index) { setWeight(Weight(m_weightCombo->itemData(index).toInt())); });
    connect(m_search, &QLineEdit::textChanged, this, &FlameGraph::setSearchText);
    connect(m_back, &QToolButton::clicked, this, &FlameGraph::back);
    connect(m_reset, &QToolButton::clicked, this, &FlameGraph::resetZoom);
    setAttribution(nullptr, attributionEmptyNote(nullptr));
}

FlameGraph::~FlameGraph() = default;

QColor FlameGraph::kindColor(FrameKind kind)
{
    // Light, distinct hues with black text: readable on light and dark palettes alike.
    switch (kind) {
    case FrameKind::Root:
        return QColor(0xbd, 0xbd, 0xbd);
    case FrameKind::Module:
        return QColor(0x8e, 0xbc, 0xe6);
    case FrameKind::Annotation:
        return QColor(0xc9, 0xb1, 0xe4);
    case FrameKind::PythonFunction:
        return QColor(0xa6, 0xd8, 0x9d);
    case FrameKind::Op:
        return QColor(0xf4, 0xc0, 0x7a);
    case FrameKind::GpuEvent:
        return QColor(0xee, 0x93, 0x8c);
    case FrameKind::RuntimeCall:
        return QColor(0xe6, 0xd8, 0x6e);
    }
    return Qt::gray;
}

void FlameGraph::setRun(std::shared_ptr<const RunAnalysis> run, int rankIndex)
{
    const QString note = attributionEmptyNote(run.get(), rankIndex);
    setAttribution(note.isEmpty() ? attributionOfRank(run, rankIndex) : nullptr, note);
}

void FlameGraph::setAttribution(std::shared_ptr<const TraceAttribution> attribution, const QString &emptyNote)
{
    m_attribution = std::move(attribution);
    m_note = emptyNote;
    {
        const QSignalBlocker blocker(m_scope);
        m_scope->clear();
        if (m_attribution)
            for (int i = 0; i < attributionScopeCount(*m_attribution); ++i)
                m_scope->addItem(attributionScopeLabel(*m_attribution, i));
    }
    const bool has = bool(m_attribution);
    m_scope->setEnabled(has);
    m_weightCombo->setEnabled(has);
    m_search->setEnabled(has);
    setScopeIndex(0);
}

void FlameGraph::setScopeIndex(int index)
{
    m_scopeIndex = index;
    m_scopeData = m_attribution ? attributionScope(*m_attribution, index) : nullptr;
    if (m_scope->currentIndex() != index && index < m_scope->count()) {
        const QSignalBlocker blocker(m_scope);
        m_scope->setCurrentIndex(index);
    }
    m_zoomNode = 0;
    m_history.clear();
    rebuild();
}

void FlameGraph::setWeight(Weight weight)
{
    m_weight = weight;
    const int comboIndex = m_weightCombo->findData(int(weight));
    if (m_weightCombo->currentIndex() != comboIndex) {
        const QSignalBlocker blocker(m_weightCombo);
        m_weightCombo->setCurrentIndex(comboIndex);
    }
    rebuild();
}

void FlameGraph::setSearchText(const QString &text)
{
    m_searchText = text.trimmed();
    if (m_search->text().trimmed() != m_searchText) {
        const QSignalBlocker blocker(m_search);
        m_search->setText(text);
    }
    rebuild();
}

void FlameGraph::zoomTo(int node)
{
    const LaunchTree *t = tree();
    if (!t || node < 0 || node >= int(t->nodes.size()) || node == m_zoomNode)
        return;
    m_history.push_back(m_zoomNode);
    m_zoomNode = node;
    rebuild();
}

void FlameGraph::back()
{
    if (m_history.empty())
        return;
    m_zoomNode = m_history.back();
    m_history.pop_back();
    rebuild();
}

void FlameGraph::resetZoom()
{
    if (m_zoomNode == 0)
        return;
    m_history.push_back(m_zoomNode);
    m_zoomNode = 0;
    rebuild();
}

const LaunchTree *FlameGraph::tree() const
{
    if (!m_scopeData || m_scopeData->launches.nodes.empty())
        return nullptr;
    return &m_scopeData->launches;
}

qint64 FlameGraph::weightOf(int node) const
{
    const LaunchTree *t = tree();
    if (!t || node < 0 || node >= int(t->nodes.size()))
        return 0;
    const LaunchNode &n = t->nodes[std::size_t(node)];
    qint64 own = m_weight == Weight::GpuTime ? n.gpuNs : n.hostNs;
    if (node == 0 && own <= 0) {
        // A root that carries no time of its own weighs what its frames weigh.
        for (int child : n.children)
            own += weightOf(child);
    }
    return own;
}

const std::vector<FlameGraph::Box> &FlameGraph::boxes() const
{
    return m_canvas->boxes();
}

int FlameGraph::nodeAt(QPointF pos) const
{
    return m_canvas->nodeAt(pos);
}

QWidget *FlameGraph::canvas() const
{
    return m_canvas;
}

QString FlameGraph::emptyNote() const
{
    return m_noteLabel->text();
}

QString FlameGraph::breadcrumb() const
{
    return m_crumbs->text();
}

QString FlameGraph::searchSummary() const
{
    return m_searchLabel->text();
}

QString FlameGraph::toolTipFor(int node) const
{
    const LaunchTree *t = tree();
    if (!t || node < 0 || node >= int(t->nodes.size()))
        return {};
    const LaunchNode &n = t->nodes[std::size_t(node)];
    const LaunchNode &root = t->nodes.front();
    qint64 rootGpu = root.gpuNs, rootHost = root.hostNs;
    if (rootGpu <= 0 || rootHost <= 0) {
        qint64 gpu = 0, host = 0;
        for (int child : root.children) {
            gpu += t->nodes[std::size_t(child)].gpuNs;
            host += t->nodes[std::size_t(child)].hostNs;
        }
        rootGpu = rootGpu > 0 ? rootGpu : gpu;
        rootHost = rootHost > 0 ? rootHost : host;
    }
    const auto pct = [](qint64 part, qint64 whole) {
        return whole > 0 ? formatPercent(100.0 * double(part) / double(whole)) : QStringLiteral("—");
    };
    const QString name = node == 0 ? tr("all frames of %1").arg(m_scope->currentText()) : n.name;
    return tr("<b>%1</b><br>%2<br>GPU time launched: %3 ms (%4 of the graph)<br>host time: %5 ms (%6 of the graph)")
        .arg(name.toHtmlEscaped(), frameKindName(n.kind), formatMs(n.gpuNs), pct(n.gpuNs, rootGpu), formatMs(n.hostNs),
             pct(n.hostNs, rootHost));
}

void FlameGraph::clicked(int node)
{
    const LaunchTree *t = tree();
    if (!t)
        return;
    zoomTo(node);
    const LaunchNode &n = t->nodes[std::size_t(node)];
    if (node != 0)
        emit frameSelected(n.name, n.kind);
}

void FlameGraph::rebuild()
{
    const LaunchTree *t = tree();
    const std::size_t count = t ? t->nodes.size() : 0;
    m_canvas->m_match.assign(count, 0);
    m_canvas->m_related.assign(count, 0);
    if (t && !m_searchText.isEmpty()) {
        // The tree promises no order of parents and children, so the walks follow the links.
        for (std::size_t n = 0; n < count; ++n)
            m_canvas->m_match[n] = t->nodes[n].name.contains(m_searchText, Qt::CaseInsensitive) ? 1 : 0;
        for (std::size_t n = 0; n < count; ++n) {
            if (!m_canvas->m_match[n])
                continue;
            // Everything below a match (its callers) and above it (what it launched) stays lit.
            for (int up = int(n); up >= 0; up = t->nodes[std::size_t(up)].parent)
                m_canvas->m_related[std::size_t(up)] = 1;
            std::vector<int> stack(t->nodes[n].children);
            while (!stack.empty()) {
                const int c = stack.back();
                stack.pop_back();
                m_canvas->m_related[std::size_t(c)] = 1;
                for (int g : t->nodes[std::size_t(c)].children)
                    stack.push_back(g);
            }
        }
    }
    if (m_zoomNode < 0 || std::size_t(m_zoomNode) >= count)
        m_zoomNode = 0;
    updateLabels();
    m_canvas->relayout();
}

void FlameGraph::updateLabels()
{
    const LaunchTree *t = tree();
    const bool hasData = t && weightOf(0) > 0;
    QString note = m_note;
    if (note.isEmpty() && !hasData)
        note = m_weight == Weight::GpuTime ? tr("No GPU time was launched from a CPU op in this scope.")
                                           : tr("No host time was recorded for the frames of this scope.");
    m_noteLabel->setText(hasData ? QString() : note);
    m_noteLabel->setVisible(!hasData);
    m_back->setEnabled(!m_history.empty());
    m_reset->setEnabled(m_zoomNode != 0);

    QStringList crumbs;
    if (t) {
        for (int n = m_zoomNode; n > 0; n = t->nodes[std::size_t(n)].parent)
            crumbs.prepend(t->nodes[std::size_t(n)].name);
        crumbs.prepend(tr("all"));
    }
    const QString total = hasData ? tr("%1 ms %2")
                                        .arg(formatMs(weightOf(m_zoomNode)),
                                             m_weight == Weight::GpuTime ? tr("GPU time") : tr("host time"))
                                  : QString();
    m_crumbs->setText(crumbs.isEmpty() ? QString()
                                       : crumbs.join(QStringLiteral(" › ")) + QStringLiteral("  —  ") + total);

    if (!t || m_searchText.isEmpty()) {
        m_searchLabel->clear();
        return;
    }
    // The matched weight counts each stack once: a match inside another match adds nothing.
    int matches = 0;
    qint64 matchedNs = 0;
    for (std::size_t n = 0; n < t->nodes.size(); ++n) {
        if (!m_canvas->m_match[n])
            continue;
        ++matches;
        bool nested = false;
        for (int up = t->nodes[n].parent; up >= 0 && !nested; up = t->nodes[std::size_t(up)].parent)
            nested = m_canvas->m_match[std::size_t(up)];
        if (!nested)
            matchedNs += weightOf(int(n));
    }
    const qint64 rootNs = weightOf(0);
    m_searchLabel->setText(
        matches == 0
            ? tr("no frame matches")
            : tr("%n frame(s) match: %1 ms (%2)", nullptr, matches)
                  .arg(formatMs(matchedNs),
                       rootNs > 0 ? formatPercent(100.0 * double(matchedNs) / double(rootNs)) : QStringLiteral("—")));
}

} // namespace goblin
