// parley/jinja/src.hpp: the run-time template engine, compiled once. Include it in exactly one
// translation unit of a program whose translation units all define PARLEY_SEPARATE_COMPILATION
// (see config.hpp), or include <parley/src.hpp> there, which includes it.
#ifndef PARLEY_JINJA_SRC_HPP
#define PARLEY_JINJA_SRC_HPP

#ifndef PARLEY_SEPARATE_COMPILATION
#error "<parley/jinja/src.hpp> is for PARLEY_SEPARATE_COMPILATION: define it in every translation unit, or include the headers alone for header-only use"
#endif

#include <parley/jinja.hpp>

#include <parley/jinja/impl/environment.hpp>

#endif
