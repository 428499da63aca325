#pragma once
/// \file Versions for the About box.

#include <QString>

namespace goblin {

/// "3.0.1": the simdjson the JSON parser was built against.
QString simdjsonVersion();
/// Rich text for the About box: the app version (the caller passes GOBLIN_VERSION, which only
/// the application target defines), the Qt it runs on and was built with, simdjson and
/// QCustomPlot.
QString aboutText(const QString &appVersion);

} // namespace goblin
