// parley/net/src.hpp: the HTTP client's coroutines (parley/net/http_client.hpp), compiled once.
// Include it in exactly one translation unit of a program whose translation units all define
// PARLEY_SEPARATE_COMPILATION (see config.hpp); <parley/provider/src.hpp> and <parley/src.hpp>
// include it.
#ifndef PARLEY_NET_SRC_HPP
#define PARLEY_NET_SRC_HPP

#ifndef PARLEY_SEPARATE_COMPILATION
#error "<parley/net/src.hpp> is for PARLEY_SEPARATE_COMPILATION: define it in every translation unit, or include the headers alone for header-only use"
#endif

#include <parley/net/http_client.hpp>

#include <parley/net/impl/http_client.hpp>

#endif
