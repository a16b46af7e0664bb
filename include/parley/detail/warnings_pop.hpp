// parley/detail/warnings_pop.hpp: ends what parley/detail/warnings_push.hpp began. No include guard.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
