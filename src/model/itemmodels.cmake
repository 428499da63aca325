# Item models, proxies and the live-recompute state the views share (window issue 3).
# Included by src/model/CMakeLists.txt before goblin_model is defined.
list(APPEND GOBLIN_ITEMMODEL_SOURCES
    ${CMAKE_CURRENT_SOURCE_DIR}/modelroles.h
    ${CMAKE_CURRENT_SOURCE_DIR}/formatting.cpp ${CMAKE_CURRENT_SOURCE_DIR}/formatting.h
    ${CMAKE_CURRENT_SOURCE_DIR}/budgetformula.cpp ${CMAKE_CURRENT_SOURCE_DIR}/budgetformula.h
    ${CMAKE_CURRENT_SOURCE_DIR}/runmodel.cpp ${CMAKE_CURRENT_SOURCE_DIR}/runmodel.h
    ${CMAKE_CURRENT_SOURCE_DIR}/kernelfilterproxy.cpp ${CMAKE_CURRENT_SOURCE_DIR}/kernelfilterproxy.h
    ${CMAKE_CURRENT_SOURCE_DIR}/telemetrymodel.cpp ${CMAKE_CURRENT_SOURCE_DIR}/telemetrymodel.h
    ${CMAKE_CURRENT_SOURCE_DIR}/diagnosticsmodel.cpp ${CMAKE_CURRENT_SOURCE_DIR}/diagnosticsmodel.h
    ${CMAKE_CURRENT_SOURCE_DIR}/wastebudgetmodel.cpp ${CMAKE_CURRENT_SOURCE_DIR}/wastebudgetmodel.h
    ${CMAKE_CURRENT_SOURCE_DIR}/liveanalysis.cpp ${CMAKE_CURRENT_SOURCE_DIR}/liveanalysis.h
    ${CMAKE_CURRENT_SOURCE_DIR}/thresholdeditor.cpp ${CMAKE_CURRENT_SOURCE_DIR}/thresholdeditor.h
    ${CMAKE_CURRENT_SOURCE_DIR}/workbenchsession.cpp ${CMAKE_CURRENT_SOURCE_DIR}/workbenchsession.h
)
