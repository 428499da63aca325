# Finds every build dependency and, when one is missing, stops with the Debian 12 package that
# provides it: CMake's own message ("Qt6Charts could not be found because dependency Qt6OpenGL
# could not be found") does not say what to install. scripts/install-deps.sh installs them all.

function(goblin_missing what packages)
    message(FATAL_ERROR "${what} was not found. On Debian 12 install it with:\n"
                        "    sudo apt-get install ${packages}\n"
                        "or run scripts/install-deps.sh, which installs everything the build needs.")
endfunction()

# Qt, one component at a time so that the message names the package of the one that is missing.
# Gui needs OpenGL headers (libgl-dev); Charts needs Qt6OpenGL's CMake package, which is only a
# Recommends of qt6-base-dev.
set(goblin_qt_packages_Core "qt6-base-dev")
set(goblin_qt_packages_Gui "qt6-base-dev libgl-dev")
set(goblin_qt_packages_Widgets "qt6-base-dev libgl-dev")
set(goblin_qt_packages_PrintSupport "qt6-base-dev")
set(goblin_qt_packages_Concurrent "qt6-base-dev")
set(goblin_qt_packages_Test "qt6-base-dev")
set(goblin_qt_packages_Charts "qt6-charts-dev libqt6opengl6-dev")

function(goblin_find_qt)
    foreach(component IN LISTS ARGN)
        find_package(Qt6 6.4 QUIET COMPONENTS ${component})
        if(NOT Qt6${component}_FOUND)
            goblin_missing("Qt 6.4 ${component} (CMake package Qt6${component})" "${goblin_qt_packages_${component}}")
        endif()
    endforeach()
    find_package(Qt6 6.4 REQUIRED COMPONENTS ${ARGN})
endfunction()

macro(goblin_find_package name packages)
    find_package(${name} ${ARGN} QUIET)
    if(NOT ${name}_FOUND)
        goblin_missing("${name}" "${packages}")
    endif()
endmacro()
