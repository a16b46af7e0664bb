# pkg-config files for builds without CMake, installed beside the package configuration's folder
# (share/pkgconfig): parley.pc (the library: the headers and Boost.JSON), parley-net.pc (the chat
# clients and the fake model server: parley, OpenSSL and threads), parley-yaml.pc (the YAML loader:
# parley and yaml-cpp); each only where its dependencies were found. The prefix is found from the
# file's own place (${pcfiledir}), so an installed tree can be moved. Compile with -std=c++20 or
# later:
#
#   g++ -std=c++20 main.cpp $(pkg-config --cflags --libs parley-net)
#
# Included by CMakeLists.txt within if(PARLEY_INSTALL).

set(parley_pkgconfig_dir "${CMAKE_INSTALL_DATADIR}/pkgconfig")
file(RELATIVE_PATH parley_pkgconfig_to_prefix "/${parley_pkgconfig_dir}" "/")
string(REGEX REPLACE "/$" "" parley_pkgconfig_to_prefix "${parley_pkgconfig_to_prefix}")

# Boost.JSON, which has no pkg-config file of its own: its headers' folder unless the compiler
# searches it anyway, and its library by folder and name.
get_target_property(parley_boost_includes Boost::headers INTERFACE_INCLUDE_DIRECTORIES)
set(parley_pc_boost_cflags "")
foreach(dir IN LISTS parley_boost_includes)
    if(dir AND NOT dir IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
        string(APPEND parley_pc_boost_cflags " -I${dir}")
    endif()
endforeach()
get_target_property(parley_boost_json_file Boost::json LOCATION)
get_filename_component(parley_boost_json_dir "${parley_boost_json_file}" DIRECTORY)
get_filename_component(parley_boost_json_name "${parley_boost_json_file}" NAME_WE)
string(REGEX REPLACE "^lib" "" parley_boost_json_name "${parley_boost_json_name}")
set(parley_pc_boost_libs "-l${parley_boost_json_name}")
if(NOT parley_boost_json_dir IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
    set(parley_pc_boost_libs "-L${parley_boost_json_dir} ${parley_pc_boost_libs}")
endif()

set(parley_pc_head "prefix=\${pcfiledir}/${parley_pkgconfig_to_prefix}
includedir=\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}
")

file(WRITE "${PROJECT_BINARY_DIR}/pkgconfig/parley.pc" "${parley_pc_head}
Name: parley
Description: ${PROJECT_DESCRIPTION}
Version: ${PROJECT_VERSION}
Cflags: -I\${includedir}${parley_pc_boost_cflags}
Libs: ${parley_pc_boost_libs}
")
set(parley_pc_files "${PROJECT_BINARY_DIR}/pkgconfig/parley.pc")

if(TARGET parley_net)
    file(WRITE "${PROJECT_BINARY_DIR}/pkgconfig/parley-net.pc" "${parley_pc_head}
Name: parley-net
Description: parley's chat clients and fake model server (Boost.Beast over TCP and TLS)
Version: ${PROJECT_VERSION}
Requires: parley = ${PROJECT_VERSION}, openssl >= 3.0
Cflags: -pthread
Libs: -pthread
")
    list(APPEND parley_pc_files "${PROJECT_BINARY_DIR}/pkgconfig/parley-net.pc")
endif()

if(TARGET parley_yaml)
    file(WRITE "${PROJECT_BINARY_DIR}/pkgconfig/parley-yaml.pc" "${parley_pc_head}
Name: parley-yaml
Description: parley's YAML loader of conversation templates
Version: ${PROJECT_VERSION}
Requires: parley = ${PROJECT_VERSION}, yaml-cpp >= 0.7
")
    list(APPEND parley_pc_files "${PROJECT_BINARY_DIR}/pkgconfig/parley-yaml.pc")
endif()

install(FILES ${parley_pc_files} DESTINATION "${parley_pkgconfig_dir}")
