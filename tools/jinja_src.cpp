// The run-time template engine, compiled once for parley's own programs (tests, the parley
// program, the examples with a chat client), which all define PARLEY_SEPARATE_COMPILATION.
#include <parley/jinja/src.hpp>
