# yaml-cpp by the name of its target from yaml-cpp 0.8 on, yaml-cpp::yaml-cpp, which parley::yaml
# links: yaml-cpp 0.7 exports a bare `yaml-cpp` target instead, which an imported target of the
# new name then links. Included after find_package(yaml-cpp) by parley's CMakeLists.txt and by its
# installed package configuration; without yaml-cpp it defines nothing.
if(TARGET yaml-cpp AND NOT TARGET yaml-cpp::yaml-cpp)
    add_library(yaml-cpp::yaml-cpp INTERFACE IMPORTED)
    set_target_properties(yaml-cpp::yaml-cpp PROPERTIES INTERFACE_LINK_LIBRARIES yaml-cpp)
endif()
