#include "markdownreport.h"

#include "formatting.h"
#include "heuristics.h"

#include <QJsonArray>
#include <QStringList>
#include <algorithm>
#include <cmath>

namespace goblin {

namespace {

/// How much of each list and text goes in; halved until the page fits kMarkdownMaxBytes.
struct Detail {
    int advice = 3;
    int adviceChars = 600;
    int opsPerAdvice = 4;
    int kernels = 8;
    int ops = 8;
    int diagnostics = 8;
    int nameChars = 90;
    int diagnosticChars = 220;
};

/// `text` with its middle cut to `maxChars` characters (names keep both ends: a template's kernel
/// name says most at its start and end).
QString elideMiddle(const QString &text, int maxChars)
{
    if (text.size() <= maxChars || maxChars < 8)
        return text;
    const int head = (maxChars - 1) / 2, tail = maxChars - 1 - head;
    return text.left(head) + QStringLiteral("…") + text.right(tail);
}

QString elideEnd(const QString &text, int maxChars)
{
    return text.size() <= maxChars ? text : text.left(maxChars - 1) + QStringLiteral("…");
}

/// Markdown table cells and inline code must not break the table or the code span.
QString cell(const QString &text)
{
    QString out = text;
    out.replace(QLatin1Char('|'), QStringLiteral("\\|")).replace(QLatin1Char('\n'), QLatin1Char(' '));
    return out;
}

QString code(const QString &text)
{
    QString out = text;
    out.replace(QLatin1Char('`'), QLatin1Char('\''));
    return QStringLiteral("`%1`").arg(out);
}

QString secondsOrDash(const QJsonValue &v)
{
    return v.isDouble() ? formatSeconds(v.toDouble()) : QStringLiteral("—");
}

QString percentOrDash(const QJsonValue &share)
{
    return share.isDouble() ? formatPercent(share.toDouble() * 100.0) : QStringLiteral("—");
}

QString headline(const QJsonObject &report)
{
    QStringList out;
    const QString name = report[QLatin1String("run")][QLatin1String("name")].toString();
    out << QStringLiteral("# %1 — waste budget (%2 profile)\n")
               .arg(name, report[QLatin1String("profile")].toString());
    const QString verdict = report[QLatin1String("budget")][QLatin1String("verdict")].toString();
    if (!verdict.isEmpty())
        out << QStringLiteral("**%1**\n").arg(verdict);

    QStringList facts;
    const QJsonObject step = report[QLatin1String("quantities")][QLatin1String("step_time_s")].toObject();
    facts << QStringLiteral("step time %1 (%2: %3)")
                 .arg(secondsOrDash(step[QLatin1String("value")]), step[QLatin1String("state")].toString(),
                      step[QLatin1String("source")].toString());
    const QString kind = report[QLatin1String("run_kind")].toString();
    if (!kind.isEmpty())
        facts << QStringLiteral("program: %1 (%2)").arg(kind, report[QLatin1String("run_kind_reason")].toString());
    QStringList devices;
    for (const QJsonValue &d : report[QLatin1String("facts")][QLatin1String("devices")].toArray()) {
        const QString model = d[QLatin1String("model")].isString() ? d[QLatin1String("model")].toString()
                                                                   : d[QLatin1String("name")].toString();
        const QJsonValue gb = d[QLatin1String("memory_gb")];
        const QString text = gb.isDouble() ? QStringLiteral("%1: %2 GB (%3)")
                                                 .arg(model)
                                                 .arg(gb.toDouble(), 0, 'f', 1)
                                                 .arg(d[QLatin1String("memory_state")].toString())
                                           : QStringLiteral("%1: memory unknown").arg(model);
        if (!devices.contains(text))
            devices << text;
    }
    if (!devices.isEmpty())
        facts << QStringLiteral("devices: %1").arg(devices.join(QStringLiteral(", ")));
    const QJsonObject util = report[QLatin1String("quantities")][QLatin1String("gpu_util_pct")].toObject();
    facts << QStringLiteral("GPU util %1 (%2)")
                 .arg(util[QLatin1String("value")].isDouble() ? formatPercent(util[QLatin1String("value")].toDouble())
                                                               : QStringLiteral("—"),
                      util[QLatin1String("state")].toString());
    for (const QString &f : facts)
        out << QStringLiteral("- %1").arg(cell(f));
    return out.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QString budgetTable(const QJsonObject &report)
{
    const QJsonObject buckets = report[QLatin1String("budget")][QLatin1String("buckets")].toObject();
    QStringList out;
    out << QStringLiteral("## Budget per step\n") << QStringLiteral("| Bucket | Per step | % of step | State |")
        << QStringLiteral("|---|---:|---:|---|");
    const auto row = [&](const QString &label, const QJsonObject &b) {
        const bool unknown = b[QLatin1String("state")].toString() == QLatin1String("unknown");
        out << QStringLiteral("| %1 | %2 | %3 | %4 |")
                   .arg(label, unknown ? QStringLiteral("—") : secondsOrDash(b[QLatin1String("seconds_per_step")]),
                        unknown ? QStringLiteral("—") : percentOrDash(b[QLatin1String("share_of_step")]),
                        b[QLatin1String("state")].toString());
    };
    for (int i = 0; i < WasteBudget::BucketCount; ++i)
        row(WasteBudget::bucketLabel(i), buckets[WasteBudget::bucketKey(i)].toObject());
    if (buckets.contains(QLatin1String("unattributed")))
        row(QStringLiteral("Unattributed"), buckets[QLatin1String("unattributed")].toObject());
    const QJsonObject step = report[QLatin1String("quantities")][QLatin1String("step_time_s")].toObject();
    out << QStringLiteral("| Step time | %1 | 100 % | %2 |")
               .arg(secondsOrDash(step[QLatin1String("value")]), step[QLatin1String("state")].toString());
    out << QString() << QStringLiteral("measured: read from the trace · estimated: a formula or an assumption · "
                                       "unknown (—): nothing in the run measured it");
    return out.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QString adviceSection(const QJsonObject &report, const Detail &detail)
{
    const QJsonArray advice = report[QLatin1String("advice")].toArray();
    if (advice.isEmpty() || detail.advice <= 0)
        return {};
    QStringList out;
    out << QStringLiteral("## What to look at first\n");
    int n = 0;
    for (const QJsonValue &a : advice) {
        if (n >= detail.advice)
            break;
        ++n;
        out << QStringLiteral("%1. %2").arg(n).arg(cell(elideEnd(a[QLatin1String("text")].toString(), detail.adviceChars)));
        QStringList ops;
        for (const QJsonValue &op : a[QLatin1String("evidence")][QLatin1String("host_ops_in_gpu_idle")].toArray()) {
            if (ops.size() >= detail.opsPerAdvice)
                break;
            ops << QStringLiteral("%1 %2/step")
                       .arg(code(elideMiddle(op[QLatin1String("name")].toString(), detail.nameChars)),
                            secondsOrDash(op[QLatin1String("seconds_per_step")]));
        }
        if (!ops.isEmpty())
            out << QStringLiteral("   - host ops while the GPU was idle: %1").arg(ops.join(QStringLiteral(", ")));
    }
    if (advice.size() > n)
        out << QStringLiteral("\n(%1 more in the report's `advice`)").arg(advice.size() - n);
    return out.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QString kernelsSection(const QJsonObject &report, const Detail &detail)
{
    const QJsonArray kernels = report[QLatin1String("metrics")][QLatin1String("top_kernels")].toArray();
    if (kernels.isEmpty() || detail.kernels <= 0)
        return {};
    QStringList out;
    out << QStringLiteral("## Top kernels\n") << QStringLiteral("| % of GPU time | Kernel |") << QStringLiteral("|---:|---|");
    for (qsizetype i = 0; i < kernels.size() && i < detail.kernels; ++i) {
        const QJsonValue k = kernels.at(i);
        out << QStringLiteral("| %1 | %2 |")
                   .arg(k[QLatin1String("pct_time")].isDouble() ? formatPercent(k[QLatin1String("pct_time")].toDouble())
                                                                 : QStringLiteral("—"),
                        cell(code(elideMiddle(k[QLatin1String("name")].toString(), detail.nameChars))));
    }
    return out.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QString opsSection(const QJsonObject &report, const Detail &detail)
{
    QJsonArray ops = report[QLatin1String("ops")].toArray();
    if (ops.isEmpty() || detail.ops <= 0)
        return {};
    std::vector<QJsonObject> sorted;
    for (const QJsonValue &op : ops)
        sorted.push_back(op.toObject());
    std::stable_sort(sorted.begin(), sorted.end(), [](const QJsonObject &a, const QJsonObject &b) {
        return a[QLatin1String("device_self_s")].toDouble() > b[QLatin1String("device_self_s")].toDouble();
    });
    QStringList out;
    out << QStringLiteral("## Top ops (GPU time they launched, whole profile)\n")
        << QStringLiteral("| Op | Calls | Device self | Host self |") << QStringLiteral("|---|---:|---:|---:|");
    for (std::size_t i = 0; i < sorted.size() && int(i) < detail.ops; ++i) {
        const QJsonObject &op = sorted[i];
        out << QStringLiteral("| %1 | %2 | %3 | %4 |")
                   .arg(cell(code(elideMiddle(op[QLatin1String("name")].toString(), detail.nameChars))))
                   .arg(op[QLatin1String("calls")].toInteger())
                   .arg(secondsOrDash(op[QLatin1String("device_self_s")]), secondsOrDash(op[QLatin1String("host_self_s")]));
    }
    return out.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QString diagnosticsSection(const QJsonObject &report, const Detail &detail)
{
    const QJsonArray all = report[QLatin1String("diagnostics")].toArray();
    std::vector<QJsonObject> matter;  // errors first, then warnings; infos are only counted
    int infos = 0;
    for (const char *severity : {"error", "warning"})
        for (const QJsonValue &d : all)
            if (d[QLatin1String("severity")].toString() == QLatin1String(severity))
                matter.push_back(d.toObject());
    for (const QJsonValue &d : all)
        infos += d[QLatin1String("severity")].toString() == QLatin1String("info") ? 1 : 0;
    QStringList out;
    out << QStringLiteral("## Diagnostics\n");
    if (matter.empty())
        out << QStringLiteral("No errors or warnings.");
    for (std::size_t i = 0; i < matter.size() && int(i) < detail.diagnostics; ++i) {
        const QJsonObject &d = matter[i];
        const qint64 line = d[QLatin1String("line")].toInteger();
        const QString where = line > 0 ? QStringLiteral("%1:%2").arg(d[QLatin1String("file")].toString()).arg(line)
                                       : d[QLatin1String("file")].toString();
        out << QStringLiteral("- **%1** %2: %3")
                   .arg(d[QLatin1String("severity")].toString(), code(where),
                        cell(elideEnd(d[QLatin1String("message")].toString(), detail.diagnosticChars)));
    }
    const qsizetype hidden = qsizetype(matter.size()) - std::min<qsizetype>(qsizetype(matter.size()), detail.diagnostics);
    if (hidden > 0 || infos > 0)
        out << QStringLiteral("\n(%1 more error(s) and warning(s), %2 info(s) in the report's `diagnostics`)")
                   .arg(hidden)
                   .arg(infos);
    return out.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QString footer(const QJsonObject &report)
{
    QStringList argv;
    for (const QJsonValue &v : report[QLatin1String("command")].toArray())
        argv << v.toString();
    return QStringLiteral("_Made by %1 %2 from its report; every number as `report` gives it._\n")
        .arg(report[QLatin1String("generator")][QLatin1String("name")].toString(),
             report[QLatin1String("generator")][QLatin1String("version")].toString()) +
           (argv.isEmpty() ? QString() : QStringLiteral("Reproduce: %1\n").arg(code(elideEnd(argv.join(QLatin1Char(' ')), 600))));
}

QByteArray page(const QJsonObject &report, const Detail &detail)
{
    QStringList parts{headline(report), budgetTable(report), adviceSection(report, detail), kernelsSection(report, detail),
                      opsSection(report, detail), diagnosticsSection(report, detail), footer(report)};
    parts.removeAll(QString());
    return parts.join(QLatin1Char('\n')).toUtf8();
}

} // namespace

QByteArray markdownSummary(const QJsonObject &report)
{
    Detail detail;
    QByteArray out = page(report, detail);
    // Cut lists and texts until the page fits; the headline and the budget table always stay.
    for (int round = 0; out.size() > kMarkdownMaxBytes && round < 8; ++round) {
        detail.advice = std::max(1, detail.advice - 1);
        detail.adviceChars = std::max(160, detail.adviceChars * 2 / 3);
        detail.opsPerAdvice = std::max(1, detail.opsPerAdvice / 2);
        detail.kernels = std::max(round < 5 ? 3 : 0, detail.kernels / 2);
        detail.ops = std::max(round < 5 ? 3 : 0, detail.ops / 2);
        detail.diagnostics = std::max(round < 5 ? 2 : 0, detail.diagnostics / 2);
        detail.nameChars = std::max(40, detail.nameChars * 2 / 3);
        detail.diagnosticChars = std::max(80, detail.diagnosticChars * 2 / 3);
        out = page(report, detail);
    }
    if (out.size() > kMarkdownMaxBytes) {
        // A pathological headline (a run named with kilobytes): cut at a character boundary.
        QString text = QString::fromUtf8(out);
        while (text.toUtf8().size() > kMarkdownMaxBytes - 32)
            text.chop(std::max<qsizetype>(1, text.size() / 10));
        out = (text + QStringLiteral("\n\n(cut to fit 8 KB)\n")).toUtf8();
    }
    return out;
}

} // namespace goblin
