#pragma once
// Shared helpers for the Qt Test executables.

#include <QJsonValue>
#include <QString>

namespace goblin::test {

/// Absolute path of a file or folder under tests/data.
QString dataPath(const QString &relative);

QByteArray readAll(const QString &path);

/// Compares two JSON values: numbers to `relativeTolerance` (absolute 1e-15 near zero), all else
/// exactly. On mismatch `difference` names the first differing JSON path and both values.
bool jsonNearlyEqual(const QJsonValue &expected, const QJsonValue &actual, double relativeTolerance,
                     QString *difference, const QString &path = QStringLiteral("$"));

} // namespace goblin::test
