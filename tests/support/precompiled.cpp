// The file the tests' shared precompiled header is built with (tests/CMakeLists.txt,
// goblin_test_pch): every test executable reuses that header instead of parsing QTest, QtWidgets
// and QCustomPlot again.
