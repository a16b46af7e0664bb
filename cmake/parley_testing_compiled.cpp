// The source of the target parley::testing_compiled (cmake/parleyCompiled.cmake): the fake model
// server compiled once for the program that links the target.
#include <parley/testing/src.hpp>
