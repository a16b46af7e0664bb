# parley::compiled: parley's run-time template engine and chat clients compiled once, in a static
# library of the project that links it (from cmake/parley_compiled.cpp, which includes
# <parley/src.hpp>), with PARLEY_SEPARATE_COMPILATION for every target that links it: their
# translation units see declarations only (parley/config.hpp). Built only when something links it.
# Used by parley's CMakeLists.txt and by its package configuration, after parley::net and
# parley::testing exist; without them (no OpenSSL), it defines nothing.
if(NOT TARGET parley::net OR NOT TARGET parley::testing)
    return()
endif()
if(NOT TARGET parley::compiled)
    add_library(parley_compiled STATIC EXCLUDE_FROM_ALL "${CMAKE_CURRENT_LIST_DIR}/parley_compiled.cpp")
    target_link_libraries(parley_compiled PUBLIC parley::net)
    target_compile_definitions(parley_compiled PUBLIC PARLEY_SEPARATE_COMPILATION)
    add_library(parley::compiled ALIAS parley_compiled)
endif()

# parley::testing_compiled: the fake model server (parley::testing) compiled once as well (from
# cmake/parley_testing_compiled.cpp, which includes <parley/testing/src.hpp>), for the tests of a
# program that links parley::compiled: PARLEY_SEPARATE_COMPILATION leaves the fake server's header
# with declarations only too. It links parley::compiled; parley::compiled does not compile the fake
# server, which a program that does not test with it would pay for. Built only when linked.
if(NOT TARGET parley::testing_compiled)
    add_library(parley_testing_compiled STATIC EXCLUDE_FROM_ALL "${CMAKE_CURRENT_LIST_DIR}/parley_testing_compiled.cpp")
    target_link_libraries(parley_testing_compiled PUBLIC parley::compiled parley::testing)
    add_library(parley::testing_compiled ALIAS parley_testing_compiled)
endif()
