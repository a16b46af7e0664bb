// parley/jinja/detail/ops.hpp: Python semantics of values: str/repr, truth, comparison, arithmetic,
// length, iteration and subscription, in parley/jinja/detail/ops/ (values, repr, sequence, compare,
// arithmetic, subscript), each file including the one before.
#ifndef PARLEY_JINJA_DETAIL_OPS_HPP
#define PARLEY_JINJA_DETAIL_OPS_HPP

#include <parley/jinja/detail/ops/subscript.hpp>

#endif
