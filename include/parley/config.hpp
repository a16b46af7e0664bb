// parley/config.hpp: compiler and library checks shared by every parley header.
#ifndef PARLEY_CONFIG_HPP
#define PARLEY_CONFIG_HPP

#if __cplusplus < 202002L && !(defined(_MSVC_LANG) && _MSVC_LANG >= 202002L)
#error "parley needs C++20 (-std=c++20)"
#endif

#include <version>

#define PARLEY_VERSION_MAJOR 0
#define PARLEY_VERSION_MINOR 1
#define PARLEY_VERSION_PATCH 0

/// The library version as one number: major * 10000 + minor * 100 + patch.
#define PARLEY_VERSION (PARLEY_VERSION_MAJOR * 10000 + PARLEY_VERSION_MINOR * 100 + PARLEY_VERSION_PATCH)

#if defined(__GNUC__) || defined(__clang__)
#define PARLEY_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define PARLEY_LIKELY(x) __builtin_expect(!!(x), 1)
/// For the few small functions of the renderer's hot paths that compilers leave out of line.
#define PARLEY_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define PARLEY_UNLIKELY(x) (x)
#define PARLEY_LIKELY(x) (x)
#define PARLEY_ALWAYS_INLINE inline
#endif

/// parley is header-only by default. A program that defines PARLEY_SEPARATE_COMPILATION in every
/// translation unit compiles the run-time template engine (parley/jinja.hpp) and the chat
/// clients' coroutines (parley/net/http_client.hpp, parley/provider/chat_client.hpp) once, in the
/// one translation unit that includes <parley/src.hpp> (or only <parley/jinja/src.hpp>, for a
/// program without the chat clients); the other translation units see declarations only and
/// build faster. PARLEY_DECL marks the functions compiled there: `inline` when header-only.
#ifdef PARLEY_SEPARATE_COMPILATION
#define PARLEY_DECL
#else
#define PARLEY_DECL inline
#endif
/// The chat clients' functions (PARLEY_DECL).
#define PARLEY_NET_DECL PARLEY_DECL

#endif
