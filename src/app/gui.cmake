# The window: included by src/app/CMakeLists.txt when GOBLIN_BUILD_GUI is on. A static
# library so that goblin-workbench-gui and the tests (tst_mainwindow) build the same window.
add_library(goblin_window STATIC
    ${CMAKE_CURRENT_SOURCE_DIR}/guimain.cpp ${CMAKE_CURRENT_SOURCE_DIR}/guimain.h
    ${CMAKE_CURRENT_SOURCE_DIR}/mainwindow.cpp ${CMAKE_CURRENT_SOURCE_DIR}/mainwindow.h
    ${CMAKE_CURRENT_SOURCE_DIR}/tracehandoff.cpp ${CMAKE_CURRENT_SOURCE_DIR}/tracehandoff.h
    ${CMAKE_CURRENT_SOURCE_DIR}/panelwidth.cpp ${CMAKE_CURRENT_SOURCE_DIR}/panelwidth.h
)
target_include_directories(goblin_window PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(goblin_window PUBLIC goblin_widgets Qt6::Widgets PRIVATE goblin_warnings)
set_target_properties(goblin_window PROPERTIES AUTOMOC ON)
