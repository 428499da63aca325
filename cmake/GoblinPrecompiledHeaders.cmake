# Precompiled headers. Most of a file's compile time here is Qt's headers, parsed again by every
# file: QTest with QtWidgets and QCustomPlot costs a test file about half of its compile, and the
# ~100 test executables are one file each. So the tests share one precompiled header (built once,
# REUSE_FROM), and the model, session and widget libraries have one each. The parsers keep none:
# their files include little of Qt, and the clang fuzz build compiles them too.
# GOBLIN_PRECOMPILED_HEADERS=OFF builds without (each file then proves it includes what it uses).
# With ccache, add pch_defines and time_macros to its sloppiness (ccache's manual, "Precompiled
# headers"), or every file with a precompiled header misses the cache.

# The standard library and QtCore headers most files of every library include.
set(GOBLIN_PCH_CORE
    <algorithm> <cmath> <functional> <map> <memory> <optional> <string> <vector>
    <QByteArray> <QDir> <QFile> <QFileInfo> <QHash> <QJsonArray> <QJsonDocument> <QJsonObject>
    <QString> <QStringList> <QVector>)

# target_precompile_headers(PRIVATE headers…) when precompiled headers are on.
function(goblin_precompile_headers target)
    if(GOBLIN_PRECOMPILED_HEADERS)
        target_precompile_headers(${target} PRIVATE ${ARGN})
    endif()
endfunction()
