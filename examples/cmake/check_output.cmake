# Runs a program and compares its standard output with a file, byte for byte.
#
#   cmake -DPROGRAM=path [-DARG1=... -DARG2=... -DARG3=...] -DEXPECTED=file -DACTUAL=file
#         -P check_output.cmake
#
# The test fails when the program exits with a status other than 0 or when its output differs
# from EXPECTED; the output is then kept in ACTUAL and the difference is printed (diff -u).
foreach(required PROGRAM EXPECTED ACTUAL)
    if(NOT DEFINED ${required})
        message(FATAL_ERROR "check_output.cmake: -D${required}=... is missing")
    endif()
endforeach()
set(arguments "")
foreach(n 1 2 3)
    if(DEFINED ARG${n})
        list(APPEND arguments "${ARG${n}}")
    endif()
endforeach()

execute_process(COMMAND "${PROGRAM}" ${arguments}
    OUTPUT_VARIABLE output ERROR_VARIABLE errors RESULT_VARIABLE status)
file(WRITE "${ACTUAL}" "${output}")
if(NOT status STREQUAL "0")
    message(FATAL_ERROR "${PROGRAM} exited with ${status}\nstandard error:\n${errors}\nstandard output:\n${output}")
endif()
file(READ "${EXPECTED}" expected)
if(NOT output STREQUAL expected)
    find_program(diff_program diff)
    if(diff_program)
        execute_process(COMMAND "${diff_program}" -u "${EXPECTED}" "${ACTUAL}")
    endif()
    message(FATAL_ERROR "the output of ${PROGRAM} (kept in ${ACTUAL}) differs from ${EXPECTED}")
endif()
message(STATUS "the output matches ${EXPECTED}")
