# The parser folders include one way (docs/architecture.md, "The include fence"):
#   results/   the result types (the leaf): includes no reader — nothing of another folder, no entry
#              header (kerneltraceparser.h …), only results/ and the top-level basics (diagnostic.h);
#   io/, syntax/  bytes and grammars: include no format folder and no formats/ descriptor but
#              through the registry (io/runinventory asks formats/registry.h);
#   format folders (kineto/ rpd/ nsys/ rocpd/ rocprofjson/ pftrace/ telemetry/ amdsmi/): none
#              includes another, but for the SQLite layer the database readers share
#              (rocpd/rocpdfile.h, rpd/dbcommon.h);
#   formats/   the descriptors and the one list: may include every reader; no reader includes it
#              but the entries (the top-level .cpp files) and io/runinventory.
# Fails on the first configure with any offending #include. include()d by CheckParserWings.cmake,
# so it runs at configure time and as the ctest parsers_wings_separate.
if(NOT GOBLIN_PARSERS_DIR)
    message(FATAL_ERROR "CheckParserFolders: set GOBLIN_PARSERS_DIR to src/parsers")
endif()
set(goblin_format_folders kineto rpd nsys rocpd rocprofjson pftrace telemetry amdsmi)
set(goblin_shared_database_headers "rocpd/rocpdfile.h" "rpd/dbcommon.h")
set(goblin_entry_headers kerneltraceparser.h torchtraceparser.h amdsmiparser.h apitraceparser.h rocpdreader.h)
list(JOIN goblin_format_folders "|" goblin_format_alternatives)
file(GLOB_RECURSE goblin_folder_files RELATIVE ${GOBLIN_PARSERS_DIR}
     ${GOBLIN_PARSERS_DIR}/*.h ${GOBLIN_PARSERS_DIR}/*.cpp)
set(goblin_folder_problems "")
foreach(file ${goblin_folder_files})
    string(REGEX MATCH "^[^/]+/" folder "${file}")
    string(REGEX REPLACE "/$" "" folder "${folder}")
    file(STRINGS ${GOBLIN_PARSERS_DIR}/${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(line ${lines})
        string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" included "${line}")
        string(REGEX MATCH "^[^/]+/" included_folder "${included}")
        string(REGEX REPLACE "/$" "" included_folder "${included_folder}")
        list(FIND goblin_entry_headers "${included}" entry)
        if(folder STREQUAL "results")
            if(included_folder STREQUAL "results" OR (included_folder STREQUAL "" AND entry EQUAL -1))
                continue()
            endif()
        elseif(included_folder STREQUAL "" OR included_folder STREQUAL folder)
            continue()
        endif()
        list(FIND goblin_shared_database_headers "${included}" shared)
        set(problem "")
        if(folder STREQUAL "results")
            set(problem "the result types include no reader")
        elseif(folder MATCHES "^(io|syntax)$" AND included_folder MATCHES "^(${goblin_format_alternatives})$")
            set(problem "io/ and syntax/ include no format folder")
        elseif(NOT folder STREQUAL "formats" AND NOT folder STREQUAL "" AND NOT file MATCHES "^io/runinventory\\.(h|cpp)$"
               AND included_folder STREQUAL "formats")
            set(problem "only the entries and io/runinventory include formats/")
        elseif(folder MATCHES "^(${goblin_format_alternatives})$"
               AND included_folder MATCHES "^(${goblin_format_alternatives})$"
               AND shared EQUAL -1)
            set(problem "a format folder includes another")
        endif()
        if(problem)
            string(STRIP "${line}" line)
            list(APPEND goblin_folder_problems "src/parsers/${file}: ${line} (${problem})")
        endif()
    endforeach()
endforeach()
if(goblin_folder_problems)
    list(JOIN goblin_folder_problems "\n  " text)
    message(FATAL_ERROR "The parser folders include one way (docs/architecture.md, \"The include fence\"):\n  ${text}")
endif()
