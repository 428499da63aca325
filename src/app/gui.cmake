# The window (issue 3): included by src/app/CMakeLists.txt when GOBLIN_BUILD_GUI is on. The
# executable links goblin_widgets, which brings the models, charts, load controller and settings.
set(GOBLIN_APP_GUI_SOURCES
    ${CMAKE_CURRENT_SOURCE_DIR}/guimain.cpp ${CMAKE_CURRENT_SOURCE_DIR}/guimain.h
    ${CMAKE_CURRENT_SOURCE_DIR}/mainwindow.cpp ${CMAKE_CURRENT_SOURCE_DIR}/mainwindow.h
)
