# consumer-pkg-config: builds and runs two consumer programs with the flags of parley's installed
# pkg-config files alone, as a Makefile would:
#   c++ -std=c++20 -O0 yaml_consumer.cpp $(pkg-config --cflags --libs parley-yaml)  (parley.pc too)
#   c++ -std=c++20 -O0 net_consumer.cpp  $(pkg-config --cflags --libs parley-net)
#
#   cmake -DPKG_CONFIG=... -DCXX=... -DPREFIX=... -DSOURCE_DIR=... -DWORK_DIR=... -P pkg_config.cmake
foreach(var IN ITEMS PKG_CONFIG CXX PREFIX SOURCE_DIR WORK_DIR)
    if(NOT ${var})
        message(FATAL_ERROR "pkg_config.cmake: -D${var}=... is missing")
    endif()
endforeach()
file(MAKE_DIRECTORY "${WORK_DIR}")
set(ENV{PKG_CONFIG_PATH} "${PREFIX}/share/pkgconfig")
foreach(pair IN ITEMS yaml_consumer:parley-yaml net_consumer:parley-net)
    string(REPLACE ":" ";" pair "${pair}")
    list(GET pair 0 program)
    list(GET pair 1 package)
    execute_process(COMMAND "${PKG_CONFIG}" --cflags --libs "${package}"
        OUTPUT_VARIABLE flags ERROR_VARIABLE error RESULT_VARIABLE result OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT result EQUAL 0)
        message(FATAL_ERROR "pkg-config --cflags --libs ${package} failed: ${error}")
    endif()
    if(NOT flags MATCHES "-I${PREFIX}/share/pkgconfig/\\.\\./\\.\\./include")
        message(FATAL_ERROR "pkg-config ${package}: the include folder is not the installed one: ${flags}")
    endif()
    separate_arguments(flags UNIX_COMMAND "${flags}")
    execute_process(COMMAND "${CXX}" -std=c++20 -O0 -Wall -Wextra -Wpedantic -Werror
            "${SOURCE_DIR}/${program}.cpp" ${flags} -o "${WORK_DIR}/${program}"
        OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE result)
    if(NOT result EQUAL 0)
        message(FATAL_ERROR "${program}.cpp does not build with the flags of ${package}.pc:\n${out}")
    endif()
    execute_process(COMMAND "${WORK_DIR}/${program}" OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE result)
    if(NOT result EQUAL 0)
        message(FATAL_ERROR "${program} built with ${package}.pc failed:\n${out}")
    endif()
    message(STATUS "${package}.pc: ${out}")
endforeach()
