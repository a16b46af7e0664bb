# parley::compiled: parley's run-time template engine and chat clients compiled once, in a static
# library of the project that links it (from cmake/parley_compiled.cpp, which includes
# <parley/src.hpp>), with PARLEY_SEPARATE_COMPILATION for every target that links it: their
# translation units see declarations only (parley/config.hpp). Built only when something links it.
# Used by parley's CMakeLists.txt and by its package configuration, after parley::net exists.
if(NOT TARGET parley::compiled)
    add_library(parley_compiled STATIC EXCLUDE_FROM_ALL "${CMAKE_CURRENT_LIST_DIR}/parley_compiled.cpp")
    target_link_libraries(parley_compiled PUBLIC parley::net)
    target_compile_definitions(parley_compiled PUBLIC PARLEY_SEPARATE_COMPILATION)
    add_library(parley::compiled ALIAS parley_compiled)
endif()
