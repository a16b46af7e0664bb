// The source of the target parley::compiled (cmake/parleyCompiled.cmake): parley's run-time
// template engine and chat clients, compiled once for the program that links the target.
#include <parley/src.hpp>
