// parley/src.hpp: everything parley compiles once under PARLEY_SEPARATE_COMPILATION (see
// config.hpp), the run-time template engine and the chat clients. Include it in exactly one
// translation unit of a program whose translation units all define the macro. A program without
// the chat clients (and without OpenSSL) includes <parley/jinja/src.hpp> there instead.
#ifndef PARLEY_SRC_HPP
#define PARLEY_SRC_HPP

#ifndef PARLEY_SEPARATE_COMPILATION
#error "<parley/src.hpp> is for PARLEY_SEPARATE_COMPILATION: define it in every translation unit, or include the headers alone for header-only use"
#endif

#include <parley/jinja/src.hpp>
#include <parley/provider/src.hpp>

#endif
