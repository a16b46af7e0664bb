// The fake model server, compiled once for parley's own programs (tests, the parley program, the
// examples that run offline), which all define PARLEY_SEPARATE_COMPILATION.
#include <parley/testing/src.hpp>
