// parley/testing/src.hpp: the fake model server (parley/testing/fake_server.hpp), compiled once.
// Include it in exactly one translation unit of a program whose translation units all define
// PARLEY_SEPARATE_COMPILATION (see config.hpp), next to <parley/src.hpp> (or the layers' src.hpp
// the program uses), which do not include it: the fake server is for tests, and a program without
// it does not compile it.
#ifndef PARLEY_TESTING_SRC_HPP
#define PARLEY_TESTING_SRC_HPP

#ifndef PARLEY_SEPARATE_COMPILATION
#error "<parley/testing/src.hpp> is for PARLEY_SEPARATE_COMPILATION: define it in every translation unit, or include the headers alone for header-only use"
#endif

#include <parley/testing/fake_server.hpp>

#include <parley/testing/impl/fake_server.hpp>

#endif
