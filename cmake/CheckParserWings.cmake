# The parser wings stay apart (docs/architecture.md, "The two wings"): reference/ includes nothing of
# workbench/, workbench/ nothing of reference/, and the core (everything else in src/parsers but the
# entries' .cpp files) neither. Fails on the first offending #include.
#   include()d by src/parsers/CMakeLists.txt at configure time (GOBLIN_PARSERS_DIR set), and run as the
#   ctest parsers_wings_separate: cmake -DGOBLIN_PARSERS_DIR=<src/parsers> -P cmake/CheckParserWings.cmake
if(NOT GOBLIN_PARSERS_DIR)
    message(FATAL_ERROR "CheckParserWings: set GOBLIN_PARSERS_DIR to src/parsers")
endif()
set(goblin_wing_entries kerneltraceparser.cpp rocpdreader.cpp torchtraceparser.cpp amdsmiparser.cpp)
file(GLOB_RECURSE goblin_wing_files RELATIVE ${GOBLIN_PARSERS_DIR}
     ${GOBLIN_PARSERS_DIR}/*.h ${GOBLIN_PARSERS_DIR}/*.cpp)
set(goblin_wing_problems "")
foreach(file ${goblin_wing_files})
    list(FIND goblin_wing_entries "${file}" entry)
    if(file MATCHES "^reference/")
        set(forbidden "workbench/")
    elseif(file MATCHES "^workbench/")
        set(forbidden "reference/")
    elseif(entry GREATER -1)
        continue()   # the entries feed both wings
    else()
        set(forbidden "reference/|workbench/")
    endif()
    file(STRINGS ${GOBLIN_PARSERS_DIR}/${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<](${forbidden})")
    foreach(line ${lines})
        string(STRIP "${line}" line)
        list(APPEND goblin_wing_problems "src/parsers/${file}: ${line}")
    endforeach()
endforeach()
if(goblin_wing_problems)
    list(JOIN goblin_wing_problems "\n  " text)
    message(FATAL_ERROR "The parser wings must not include each other (and the core neither wing):\n  ${text}")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/CheckParserFolders.cmake)
