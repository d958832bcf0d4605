// The anchor of the unit tests' precompiled header (hotkv_test_pch in CMakeLists.txt):
// CMake builds the header's .gch with this file's flags, and every test executable
// reuses it.
