// parley/jinja.hpp: the prompt language (Jinja2-compatible templates).
#ifndef PARLEY_JINJA_HPP
#define PARLEY_JINJA_HPP

#include <parley/jinja/arguments.hpp>
#include <parley/jinja/environment.hpp>
#include <parley/jinja/value.hpp>

#include <parley/jinja/detail/cpp_view.hpp>

#ifndef PARLEY_SEPARATE_COMPILATION
#include <parley/jinja/impl/environment.hpp>
#endif

namespace parley::jinja {

template <class Context>
void parsed_template::render_to(std::string& out, const Context& ctx) const {
    render_value(out, detail::cpp_view(ctx));
}

/// Parses and renders `source` once with `ctx` in `env` (Jinja2's defaults unless given).
template <class Context>
std::string render(std::string_view source, const Context& ctx, const environment& env = environment::plain()) {
    return env.parse(source).render(ctx);
}

}  // namespace parley::jinja

#endif
