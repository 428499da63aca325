#pragma once
// Shared helpers for the Qt Test executables.

#include "results/gputimeline.h"

#include <QJsonValue>
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace goblin::test {

/// Every fact of a GPU timeline file as text (names and streams resolved), to compare two readings.
QString timelineFileDigest(const GpuTimelineFile &f, bool withHostLanes = true);

/// Absolute path of a file or folder under tests/data.
QString dataPath(const QString &relative);

QByteArray readAll(const QString &path);

/// A file's bytes, gzip undone if it is gzip (zlib's gzread: plain files pass through).
QByteArray readGunzipped(const QString &path);

/// Compares two JSON values: numbers to `relativeTolerance` (absolute 1e-15 near zero), all else
/// exactly. On mismatch `difference` names the first differing JSON path and both values.
bool jsonNearlyEqual(const QJsonValue &expected, const QJsonValue &actual, double relativeTolerance,
                     QString *difference, const QString &path = QStringLiteral("$"));

/// Validates `instance` against the subset of JSON Schema 2020-12 that
/// resources/report.schema.json uses (type, enum, const, properties, required,
/// additionalProperties: false, items, $ref to #/$defs, minimum, maximum, maxItems, minLength).
/// Unknown keywords make it fail loudly, so the schema cannot silently outgrow the validator.
QStringList validateJsonSchema(const QJsonValue &instance, const QJsonObject &schema);

/// What a run of the goblin-workbench executable gave; exitCode -1 on a timeout, -2 on a crash.
struct AppRun {
    int exitCode = -1;
    QByteArray out, err;
};

/// Runs the goblin-workbench executable (GOBLIN_APP_BINARY) with no display at all, as a batch
/// job or CI would, and waits up to two minutes.
AppRun runApp(const QStringList &arguments);

} // namespace goblin::test
