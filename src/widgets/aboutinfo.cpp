#include "aboutinfo.h"

#include "customplot.h"
#include "runanalysis.h"

#include <QCoreApplication>
#include <QHash>
#include <QtGlobal>
#include <simdjson.h>

namespace goblin {

QString simdjsonVersion()
{
    return QStringLiteral("%1.%2.%3")
        .arg(int(simdjson::SIMDJSON_VERSION_MAJOR))
        .arg(int(simdjson::SIMDJSON_VERSION_MINOR))
        .arg(int(simdjson::SIMDJSON_VERSION_REVISION));
}

QStringList runGpuNames(const RunAnalysis &run)
{
    // One rank's trace names its own devices; the ranks of a job each name theirs, so the counts
    // add over the files. Kept in the order first seen.
    QStringList order;
    QHash<QString, int> count;
    for (const GpuTimelineFile &file : run.torch.timeline.files)
        for (const QString &raw : file.traits.identity.deviceNames) {
            const QString name = raw.trimmed();
            if (name.isEmpty())
                continue;
            if (!count.contains(name))
                order << name;
            ++count[name];
        }
    QStringList out;
    for (const QString &name : std::as_const(order))
        out << (count.value(name) > 1 ? QStringLiteral("%1 ×%2").arg(name).arg(count.value(name)) : name);
    if (out.isEmpty() && run.smi.gpuCount > 0)
        out << (run.smi.gpuCount == 1
                    ? QCoreApplication::translate("About", "1 GPU in the telemetry (amd-smi names no model)")
                    : QCoreApplication::translate("About", "%1 GPUs in the telemetry (amd-smi names no model)")
                          .arg(run.smi.gpuCount));
    return out;
}

QString aboutText(const QString &appVersion, const RunAnalysis *run)
{
    QString gpus;
    if (!run) {
        gpus = QCoreApplication::translate("About", "no run open");
    } else {
        const QStringList names = runGpuNames(*run);
        gpus = names.isEmpty() ? QCoreApplication::translate("About", "not named in %1's files").arg(run->runName)
                               : names.join(QStringLiteral(", "));
    }
    return QStringLiteral("<h3>Goblin Workbench %1</h3>"
                          "<p>Waste-budget analyzer for training runs profiled on AMD GPUs: "
                          "kernel traces, torch.profiler traces and amd-smi telemetry.</p>"
                          "<table>"
                          "<tr><td>GPUs of the open run</td><td>%6</td></tr>"
                          "<tr><td>Qt</td><td>%2 (built with %3)</td></tr>"
                          "<tr><td>simdjson</td><td>%4</td></tr>"
                          "<tr><td>QCustomPlot</td><td>%5</td></tr>"
                          "</table>")
        .arg(appVersion.toHtmlEscaped(), QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR),
             simdjsonVersion(), QStringLiteral(QCUSTOMPLOT_VERSION_STR), gpus.toHtmlEscaped());
}

} // namespace goblin
