#include "aboutinfo.h"

#include "customplot.h"

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

QString aboutText(const QString &appVersion)
{
    return QStringLiteral("<h3>Goblin Workbench %1</h3>"
                          "<p>Waste-budget analyzer for training runs profiled on AMD MI300X GPUs: "
                          "kernel traces, torch.profiler traces and amd-smi telemetry.</p>"
                          "<table>"
                          "<tr><td>Qt</td><td>%2 (built with %3)</td></tr>"
                          "<tr><td>simdjson</td><td>%4</td></tr>"
                          "<tr><td>QCustomPlot</td><td>%5</td></tr>"
                          "</table>")
        .arg(appVersion.toHtmlEscaped(), QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR),
             simdjsonVersion(), QStringLiteral(QCUSTOMPLOT_VERSION_STR));
}

} // namespace goblin
