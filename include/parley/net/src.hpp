// parley/net/src.hpp: the chat clients' coroutines, compiled once. Include it in exactly one
// translation unit of a program whose translation units all define PARLEY_SEPARATE_COMPILATION
// (see config.hpp); link that translation unit with the others.
#ifndef PARLEY_NET_SRC_HPP
#define PARLEY_NET_SRC_HPP

#ifndef PARLEY_SEPARATE_COMPILATION
#error "<parley/net/src.hpp> is for PARLEY_SEPARATE_COMPILATION: define it in every translation unit, or include the headers alone for header-only use"
#endif

#include <parley/net/http_client.hpp>
#include <parley/provider/chat_client.hpp>

#include <parley/net/impl/http_client.hpp>
#include <parley/provider/impl/chat_client.hpp>

#endif
