// parley/detail/warnings_push.hpp: included (with warnings_pop.hpp at the end) by the headers that
// define Asio coroutines: g++ 12 reports a false -Wmismatched-new-delete where it inlines the
// allocation and the release of a coroutine frame, which both go through Asio's aligned
// allocator. No include guard: each header that includes it pushes once and pops once.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
