// parley/jinja/compiled.hpp: templates parsed while the program compiles, checked against the
// context type, and rendered by code generated for them.
//
//     using namespace parley::jinja::literals;
//     constexpr auto greet = "Hello {{ user.name }}!"_prompt;
//     std::string s = greet.render(ctx);      // ctx: a described struct (or boost::json::value)
//
// Long templates come through a type that carries the source, which keeps symbol names short:
//
//     struct system_prompt { static constexpr std::string_view value = R"(...)"; };
//     constexpr parley::jinja::compiled_template<system_prompt> sys;
//
// The source is parsed by the run-time engine's constexpr parser; a syntax error is a compile
// error naming the line and the column. Rendering with a described struct checks every name
// path against the struct while compiling (`'nme' is not a member of person (members: name,
// age)`), and, when every statement and expression of the template is in the compiled subset
// (see docs/template-language.md), renders through code generated for this template and this
// context type: members are read directly, strings appended without an intermediate value.
// Any other template (or a boost::json context) renders through the run-time engine, parsed
// once on first use from the same source: the output is the same either way.
// `compiled_template<S>::is_compiled_for<Ctx>` says which of the two a render uses.
#ifndef PARLEY_JINJA_COMPILED_HPP
#define PARLEY_JINJA_COMPILED_HPP

#include <parley/fixed_string.hpp>
#include <parley/jinja.hpp>
#include <parley/jinja/detail/ct/fallback.hpp>

#include <atomic>
#include <cstddef>
#include <string>
#include <string_view>

namespace parley::jinja {

/// A template parsed at compile time from `Source::value` (a `static constexpr
/// std::string_view`). An empty class: copy it freely, use it as a constant.
template <class Source, compile_options Options = compile_options{}>
class compiled_template {
    using parsed = detail::ct_parsed<Source, Options>;

    template <class Ctx>
    using scope = detail::ct::root_scope<Ctx>;

    // The size of the latest output of render() with a Ctx: a relaxed atomic, as it is only a hint.
    // A function's constant-initialised static (no guard) rather than a static data member
    // template, on which g++ 13 stops with an internal compiler error (in retrieve_specialization).
    template <class Ctx>
    static std::atomic<std::size_t>& size_hint() noexcept {
        static constinit std::atomic<std::size_t> hint{0};
        return hint;
    }

    template <class Ctx>
    static constexpr bool check() {
        return detail::ct::check_node<parsed, parsed::prog.root, scope<Ctx>>();
    }

public:
    /// Parses the template (at compile time when the object is a constant: a syntax error is
    /// then a compile error).
    constexpr compiled_template() noexcept {
        static_cast<void>(parsed::prog.root);
        static_assert(detail::ct::check_calls<parsed>());
    }

    /// True when rendering with a Ctx runs the code generated for this template (every
    /// statement and expression is in the compiled subset); false when it runs the run-time
    /// engine. Either way the output is the same.
    template <class Ctx>
    static constexpr bool is_compiled_for = [] {
        if constexpr (detail::is_described_struct<Ctx>) return detail::ct::body_ok<parsed, parsed::prog.root, scope<Ctx>>();
        else return false;
    }();

    /// The source as parsed (line ends normalised).
    static constexpr std::string_view source() noexcept { return parsed::prog.source_view(); }
    /// The source as written (`Source::value`).
    static constexpr std::string_view written_source() noexcept { return Source::value; }
    /// The options it is parsed with.
    static constexpr compile_options options = Options;
    /// True for Jinja2's default options, those of the conversation templates: the constexpr
    /// builders of parley/chat/builder.hpp take such a template as a message's text
    /// (`parley::user{greet}`, `parley::text_part{greet}`).
    static constexpr bool has_default_options = !Options.trim_blocks && !Options.lstrip_blocks &&
                                                !Options.keep_trailing_newline && !Options.loop_controls;

    /// The source as written, for the builders' text parts.
    constexpr operator std::string_view() const noexcept
        requires has_default_options
    {
        return Source::value;
    }

    /// Renders with a context: a described struct (checked at compile time), a
    /// boost::json::value or object, or anything the run-time engine accepts. Throws
    /// template_error on a render error.
    template <class Ctx>
    std::string render(const Ctx& ctx) const {
        std::string out;
        if constexpr (is_compiled_for<Ctx>) {
            // allocated once, at the size of the previous output with this context type (the
            // run-time engine keeps the same hint)
            out.reserve(size_hint<Ctx>().load(std::memory_order_relaxed));
            render_to(out, ctx);
            size_hint<Ctx>().store(out.size(), std::memory_order_relaxed);
        } else {
            render_to(out, ctx);
        }
        return out;
    }

    /// Appends the output to `out`; on an error, `out` is left as it was.
    template <class Ctx>
    void render_to(std::string& out, const Ctx& ctx) const {
        if constexpr (detail::is_described_struct<Ctx>) static_assert(check<Ctx>());
        if constexpr (is_compiled_for<Ctx>) {
            // The generated code raises the run-time engine's read past the end of a sequence
            // and tojson of what JSON cannot hold (the templates whose values could raise another
            // take the run-time engine); they and std::bad_alloc leave `out` as it was. A render
            // whose integers pass the 64-bit range is done again by the run-time engine.
            const std::size_t size = out.size();
            try {
                detail::ct::run_body<parsed, parsed::prog.root>(out, scope<Ctx>{ctx});
            } catch (const detail::ct::int_beyond_64_bits&) {
                out.resize(size);
                if constexpr (detail::ct::may_compute_big_int<parsed>()) runtime().render_to(out, ctx);
            } catch (...) {
                out.resize(size);
                throw;
            }
        } else {
            runtime().render_to(out, ctx);
        }
    }

    /// The same template parsed by the run-time engine (on first use), for the renders the
    /// generated code does not do.
    static const parsed_template& runtime() {
        static const parsed_template t = detail::ct::parse_at_run_time(Source::value, Options);
        return t;
    }
};

namespace detail::ct {
template <fixed_string S>
struct literal_source {
    static constexpr std::string_view value = S.view();
};
}  // namespace detail::ct

/// A compile-time template written inline: `parley::jinja::prompt<"Hello {{ name }}!">`.
template <fixed_string S, compile_options Options = compile_options{}>
inline constexpr compiled_template<detail::ct::literal_source<S>, Options> prompt{};

namespace literals {
/// `"Hello {{ name }}!"_prompt`: a compile-time template.
template <fixed_string S>
constexpr auto operator""_prompt() noexcept {
    return prompt<S>;
}
}  // namespace literals

}  // namespace parley::jinja

#endif
