# The model's rooms include one way (docs/architecture.md, "src/model"): domain, analysis,
# derived, report, views, session — each file includes headers of its own room and the rooms
# before it only. Headers are included by bare name, so a header's room is looked up by name.
# Fails on the first offending #include.
#   include()d by src/model/CMakeLists.txt at configure time (GOBLIN_MODEL_DIR set), and run as the
#   ctest model_rooms_one_way: cmake -DGOBLIN_MODEL_DIR=<src/model> -P cmake/CheckModelRooms.cmake
if(NOT GOBLIN_MODEL_DIR)
    message(FATAL_ERROR "CheckModelRooms: set GOBLIN_MODEL_DIR to src/model")
endif()
set(goblin_rooms domain analysis derived report views session)
set(goblin_room_index 0)
foreach(room ${goblin_rooms})
    file(GLOB headers RELATIVE ${GOBLIN_MODEL_DIR}/${room} ${GOBLIN_MODEL_DIR}/${room}/*.h)
    foreach(header ${headers})
        if(DEFINED goblin_room_of_${header})
            message(FATAL_ERROR "src/model: two rooms hold ${header}; header names must be unique (they are "
                                "included by bare name)")
        endif()
        set(goblin_room_of_${header} ${goblin_room_index})
    endforeach()
    math(EXPR goblin_room_index "${goblin_room_index} + 1")
endforeach()
set(goblin_room_problems "")
set(goblin_room_index 0)
foreach(room ${goblin_rooms})
    file(GLOB sources RELATIVE ${GOBLIN_MODEL_DIR}/${room} ${GOBLIN_MODEL_DIR}/${room}/*.h
         ${GOBLIN_MODEL_DIR}/${room}/*.cpp)
    foreach(source ${sources})
        file(STRINGS ${GOBLIN_MODEL_DIR}/${room}/${source} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"[^\"]+\"")
        foreach(line ${lines})
            string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" included "${line}")
            if(DEFINED goblin_room_of_${included} AND goblin_room_of_${included} GREATER goblin_room_index)
                list(GET goblin_rooms ${goblin_room_of_${included}} later)
                list(APPEND goblin_room_problems "src/model/${room}/${source}: #include \"${included}\" (${later}/)")
            endif()
        endforeach()
    endforeach()
    math(EXPR goblin_room_index "${goblin_room_index} + 1")
endforeach()
if(goblin_room_problems)
    list(JOIN goblin_room_problems "\n  " text)
    message(FATAL_ERROR "A model room includes a room after it (domain, analysis, derived, report, views, "
                        "session):\n  ${text}")
endif()
