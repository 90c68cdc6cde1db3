# One compile-fail case of mpi_tests/cxx_misuse.cpp (cmake -P; see cxx.cmake): runs COMPILE (a
# list: the compiler and its arguments), which must fail with MESSAGE (a plain string, not a
# regular expression) in its output, in at most MAX_LINES lines of output.
execute_process(COMMAND ${COMPILE} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "compiled, but the misuse must not")
endif()
string(FIND "${out}" "${MESSAGE}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the compiler's output lacks \"${MESSAGE}\":\n${out}")
endif()
string(REGEX MATCHALL "\n" newlines "${out}")
list(LENGTH newlines lines)
if(lines GREATER MAX_LINES)
  message(FATAL_ERROR "the message drowns in ${lines} lines of output (at most ${MAX_LINES}):\n${out}")
endif()
message(STATUS "failed to compile as expected, with the message, in ${lines} lines")
