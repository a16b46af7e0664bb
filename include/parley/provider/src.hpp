// parley/provider/src.hpp: the chat clients' coroutines (parley/provider/chat_client.hpp, and the
// HTTP client under them), compiled once. Include it in exactly one translation unit of a program
// whose translation units all define PARLEY_SEPARATE_COMPILATION (see config.hpp), or include
// <parley/src.hpp> there, which includes it.
#ifndef PARLEY_PROVIDER_SRC_HPP
#define PARLEY_PROVIDER_SRC_HPP

#ifndef PARLEY_SEPARATE_COMPILATION
#error "<parley/provider/src.hpp> is for PARLEY_SEPARATE_COMPILATION: define it in every translation unit, or include the headers alone for header-only use"
#endif

#include <parley/net/src.hpp>
#include <parley/provider/chat_client.hpp>

#include <parley/provider/impl/chat_client.hpp>

#endif
