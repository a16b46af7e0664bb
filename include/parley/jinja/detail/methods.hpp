// parley/jinja/detail/methods.hpp: attribute and item access, and the methods of str, list and dict
// that templates call (`s.strip()`, `d.items()`, `xs.append(x)`...), in
// parley/jinja/detail/methods/ (access, arguments, format, str, containers), each file including
// the one before.
#ifndef PARLEY_JINJA_DETAIL_METHODS_HPP
#define PARLEY_JINJA_DETAIL_METHODS_HPP

#include <parley/jinja/detail/methods/containers.hpp>

#endif
