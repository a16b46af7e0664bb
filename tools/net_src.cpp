// The chat clients' coroutines, compiled once for parley's own programs (tests, the parley
// program, examples, benchmarks), which all define PARLEY_SEPARATE_COMPILATION.
#include <parley/provider/src.hpp>
