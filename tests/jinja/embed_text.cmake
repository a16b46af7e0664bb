# Writes a C++ header holding the bytes of a text file, for a compile-time template whose source
# is kept outside the repository (the shared corpus):
#   cmake -DINPUT=FILE -DOUTPUT=HEADER -DNAME=IDENTIFIER -P embed_text.cmake
# The header defines `struct NAME { static constexpr std::string_view value; }` (the source type
# of parley::jinja::compiled_template) and `NAME_found`, false with an empty value when FILE
# cannot be read: the test that uses it then fails rather than the build.
foreach(var INPUT OUTPUT NAME)
    if(NOT DEFINED ${var})
        message(FATAL_ERROR "embed_text.cmake: -D${var}=... is required")
    endif()
endforeach()

set(found false)
set(literal "\"\"")
set(size 0)
if(EXISTS "${INPUT}" AND NOT IS_DIRECTORY "${INPUT}")
    file(READ "${INPUT}" hex HEX)
    string(LENGTH "${hex}" digits)
    math(EXPR size "${digits} / 2")
    # every byte as \xNN, 16 bytes a line
    string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" escaped "${hex}")
    set(sixteen "")
    foreach(i RANGE 15)
        string(APPEND sixteen "\\\\x[0-9a-f][0-9a-f]")
    endforeach()
    string(REGEX REPLACE "(${sixteen})" "\\1\n" lines "${escaped}")
    string(REGEX REPLACE "\n$" "" lines "${lines}")
    string(REPLACE "\n" "\"\n    \"" literal "${lines}")
    set(literal "\"${literal}\"")
    set(found true)
endif()

string(MAKE_C_IDENTIFIER "${NAME}" guard)
string(TOUPPER "PARLEY_TESTS_EMBEDDED_${guard}_HPP" guard)
set(text "// Generated from ${INPUT} by tests/jinja/embed_text.cmake: do not edit.
#ifndef ${guard}
#define ${guard}

#include <string_view>

/// Whether ${INPUT} could be read when the header was generated.
inline constexpr bool ${NAME}_found = ${found};
/// Its path.
inline constexpr std::string_view ${NAME}_path = \"${INPUT}\";

/// Its bytes, as the source type of a compiled_template.
struct ${NAME} {
    static constexpr std::string_view value = std::string_view(
    ${literal},
        ${size});
};

#endif
")
file(WRITE "${OUTPUT}.tmp" "${text}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
