// parley/jinja/environment.hpp: environments (options, filters, tests, globals) and parsed templates.
#ifndef PARLEY_JINJA_ENVIRONMENT_HPP
#define PARLEY_JINJA_ENVIRONMENT_HPP

#include <parley/error.hpp>
#include <parley/jinja/arguments.hpp>
#include <parley/jinja/detail/ast.hpp>
#include <parley/jinja/value.hpp>

#include <boost/json/value.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parley::jinja {

/// What using an undefined value does.
enum class undefined_behavior {
    lenient,  ///< Jinja's default Undefined: prints as empty, iterates as empty, fails on attribute access
    strict,  ///< StrictUndefined: every use except `is defined` / `default` fails
};

/// The default of limits::max_stack: 1 MiB, or 4 MiB in AddressSanitizer builds, whose stack
/// frames are several times larger (a render that fits in 1 MiB otherwise needs up to 4 there).
#if defined(__SANITIZE_ADDRESS__)
#define PARLEY_JINJA_DEFAULT_MAX_STACK (std::size_t(4) << 20)
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PARLEY_JINJA_DEFAULT_MAX_STACK (std::size_t(4) << 20)
#endif
#endif
#ifndef PARLEY_JINJA_DEFAULT_MAX_STACK
#define PARLEY_JINJA_DEFAULT_MAX_STACK (std::size_t(1) << 20)
#endif

/// Bounds for untrusted templates; exceeding one is a template_error with errc::template_limit.
struct limits {
    std::size_t max_output = std::size_t(64) << 20;  ///< bytes of output (also of any captured block or string)
    std::uint32_t max_call_depth = 200;  ///< nested macro calls and recursive loops
    /// Loop iterations and macro calls in one render, all together; also the number of values
    /// the checks that no list, dict or namespace holds itself may walk in one render.
    std::uint64_t max_loop_iterations = 10'000'000;
    std::int64_t max_range = 10'000'000;  ///< items a `range()` may produce (the hf sandbox uses 100000)
    /// Bytes of stack a render may use below the point where it starts, for its recursion:
    /// expressions and statements nested in each other, macro calls, and values nested in each
    /// other when they are printed, compared or searched. Lower it for threads with small stacks.
    /// (1 MiB; 4 MiB in AddressSanitizer builds).
    std::size_t max_stack = PARLEY_JINJA_DEFAULT_MAX_STACK;
};

/// How a template is parsed and rendered.
struct options {
    bool trim_blocks = false;  ///< remove the first newline after a block tag
    bool lstrip_blocks = false;  ///< strip whitespace before a block tag at the start of a line
    bool keep_trailing_newline = false;  ///< keep the final newline of the template
    bool loop_controls = false;  ///< enable `{% break %}` and `{% continue %}`
    bool autoescape = false;  ///< HTML-escape every `{{ }}` output that is not marked safe
    bool sandboxed = false;  ///< refuse methods that mutate lists and dicts (Jinja's immutable sandbox)
    bool hf_tojson = false;  ///< `tojson` as Hugging Face defines it (json.dumps, ensure_ascii=False, key order kept)
    undefined_behavior undefined = undefined_behavior::lenient;
    limits limit{};
    /// The clock behind `strftime_now`; the system clock when empty.
    std::function<std::chrono::system_clock::time_point()> clock;
};

/// A filter written in C++: receives the filtered value and the template's arguments.
using filter_function = std::function<value(const value& input, const arguments& args)>;
/// A test written in C++.
using test_function = std::function<bool(const value& input, const arguments& args)>;
/// A global function written in C++.
using global_function = std::function<value(const arguments& args)>;
/// A method written in C++, callable on template values: `{{ x.name(args) }}`. Receives the
/// receiver and the template's arguments; returns the result, or std::nullopt when `self` has
/// no such method (it accepts only the receivers it chooses).
using method_function = std::function<std::optional<value>(const value& self, const arguments& args)>;

namespace detail {

class render_state;
using builtin_filter = value (*)(render_state&, const value&, arguments&);
using builtin_test = bool (*)(render_state&, const value&, arguments&);

/// Calls fn(word) for each word of `list` (separated by single spaces).
template <class F>
constexpr void for_each_word(std::string_view list, F&& fn) {
    while (!list.empty()) {
        const std::size_t end = std::min(list.find(' '), list.size());
        fn(list.substr(0, end));
        list.remove_prefix(std::min(end + 1, list.size()));
    }
}

/// The parameters a built-in filter, test, global function or method takes (a filter's and a
/// test's after their input), as Jinja2 and Python declare them. They are checked before each
/// call, so that an argument Python refuses (one too many, an unknown keyword, a missing required
/// one) is an error here too, not ignored.
struct builtin_params {
    std::array<std::string_view, 6> names{};
    std::uint8_t count = 0;  ///< how many of `names` are used
    std::uint8_t required = 0;  ///< the first `required` names have no default
    std::uint8_t keyword_only = 0;  ///< the last `keyword_only` names cannot be given by position
    bool keywords = true;  ///< false for Python's positional-only parameters (`str.strip(chars, /)`)
    bool any = false;  ///< `*args, **kwargs`: the callee checks its arguments itself

    /// Parameters named by `words` (separated by spaces), the first `required` of them required.
    static constexpr builtin_params of(std::string_view words, std::uint8_t required, bool keywords = true,
                                       std::uint8_t keyword_only = 0) {
        builtin_params p;
        for_each_word(words, [&](std::string_view w) { p.names[p.count++] = w; });
        p.required = required;
        p.keywords = keywords;
        p.keyword_only = keyword_only;
        return p;
    }
    /// `*args, **kwargs`.
    static constexpr builtin_params unchecked() {
        builtin_params p;
        p.any = true;
        return p;
    }
};

struct filter_entry {
    builtin_filter builtin = nullptr;
    builtin_params params;  ///< the built-in filter's
    filter_function user;
};
struct test_entry {
    builtin_test builtin = nullptr;
    builtin_params params;  ///< the built-in test's
    test_function user;
};

/// A global function object (range, dict, namespace, user functions...).
struct function_obj final : object_obj {
    std::string name;
    value (*builtin)(render_state&, arguments&) = nullptr;
    builtin_params params;  ///< the built-in function's
    global_function user;
    const char* type_name() const noexcept override { return "function"; }
    bool callable() const noexcept override { return true; }
    inline value call(render_state& st, arguments& args) const override;
    void repr(std::string& out) const override { out += "<function " + name + ">"; }
};

/// Everything a template needs from its environment; shared by the templates it parsed.
struct env_data {
    options opt;
    std::map<std::string, filter_entry, std::less<>> filters;
    std::map<std::string, test_entry, std::less<>> tests;
    std::map<std::string, std::unique_ptr<function_obj>, std::less<>> functions;
    std::map<std::string, boost::json::value, std::less<>> globals;
    std::map<std::string, method_function, std::less<>> methods;
};

void install_builtins(env_data& e);

}  // namespace detail

class parsed_template;

/// Options plus the filters, tests and globals templates can use. Cheap to copy; templates
/// keep the state they were parsed with.
class environment {
public:
    /// Jinja2's defaults (no trimming, lenient undefined, built-in filters and tests).
    explicit environment(options opt = {});

    /// `jinja2.Environment()`: Python Jinja2's defaults; `tojson` sorts keys and escapes `<>&'`.
    static environment plain() { return environment(options{}); }
    /// The Hugging Face chat-template environment: trim_blocks, lstrip_blocks, loop controls, an
    /// immutable sandbox, `tojson` as json.dumps(ensure_ascii=False), `raise_exception` and
    /// `strftime_now` globals.
    static environment hf();
    /// `plain` or `hf`; throws parley::error for another name.
    static environment named(std::string_view name);

    const options& opts() const noexcept { return data_->opt; }

    /// Adds or replaces a filter: `{{ x | name(args) }}`.
    void add_filter(std::string name, filter_function f);
    /// Adds or replaces a test: `{% if x is name(args) %}`.
    void add_test(std::string name, test_function t);
    /// Adds or replaces a global function.
    void add_function(std::string name, global_function f);
    /// Adds or replaces a method of one's own: `{{ x.name(args) }}`, or `f = x.name` and `f()`.
    /// It is consulted after the built-in methods of str, list and dict and after the
    /// receiver's own attributes and keys, which win. Throws parley::error
    /// (errc::invalid_argument) when `name` is not an identifier or begins with `_`.
    void add_method(std::string name, method_function f);
    /// Sets the clock `strftime_now` reads (the system clock by default).
    void set_clock(std::function<std::chrono::system_clock::time_point()> clock);
    /// Sets the limits of every render of the templates it parses from now on (see `limits`),
    /// keeping the rest of the environment: `environment::hf()` with tighter bounds, for example.
    void set_limits(const limits& l);
    /// Adds or replaces a global variable (read in place by every render).
    void add_global(std::string name, boost::json::value v);

    /// Parses a template. Throws template_error (with line, column and the source line) on a
    /// syntax error, or an unknown filter or test outside an `if` (inside one, as in Jinja2, the
    /// name fails only when it is used).
    parsed_template parse(std::string_view source, std::string name = {}) const;

private:
    detail::env_data& mutate();
    std::shared_ptr<detail::env_data> data_;
};

/// A parsed template: parse once, render many times (also concurrently from several threads).
class parsed_template {
public:
    /// Renders with a context: a boost::json object or value, a described struct, or a map
    /// with string keys. Throws template_error on a render error. The string is allocated once
    /// at the size of the template's previous output.
    template <class Context>
    std::string render(const Context& ctx) const {
        std::string out;
        render_to(out, ctx);
        return out;
    }
    /// Renders with an empty context.
    std::string render() const;
    /// Appends the output to `out`; on an error, `out` is left as it was.
    template <class Context>
    void render_to(std::string& out, const Context& ctx) const;

    /// The template's name (used in error messages).
    const std::string& name() const noexcept { return name_; }
    /// The source as parsed (line ends normalised).
    std::string_view source() const noexcept { return source_; }

private:
    friend class environment;
    friend class detail::render_state;
    void render_value(std::string& out, const value& root) const;
    [[noreturn]] void throw_error(errc code, std::string msg, std::uint32_t pos) const;

    std::string name_;
    std::string source_;
    detail::program prog_;
    std::shared_ptr<const detail::env_data> env_;
    std::vector<const detail::filter_entry*> filters_;  // by symbol
    std::vector<const detail::test_entry*> tests_;  // by symbol
    /// By symbol, the environment's global function or value of that name (null when none).
    struct global_entry {
        const detail::function_obj* function = nullptr;
        const boost::json::value* value = nullptr;
    };
    std::vector<global_entry> globals_;
    /// Symbols of the names with a meaning of their own (`none` when the template never uses one).
    struct special_symbols {
        std::uint32_t loop = detail::none, caller = detail::none, varargs = detail::none, kwargs = detail::none;
    } special_;

    /// The size of the latest output, to allocate the next one at once (shared by the threads
    /// that render the template; a relaxed atomic, as it is only a hint).
    struct size_hint {
        std::atomic<std::size_t> bytes{0};
        size_hint() = default;
        size_hint(const size_hint& o) noexcept : bytes(o.bytes.load(std::memory_order_relaxed)) {}
        size_hint& operator=(const size_hint& o) noexcept {
            bytes.store(o.bytes.load(std::memory_order_relaxed), std::memory_order_relaxed);
            return *this;
        }
    };
    mutable size_hint size_hint_;
};

}  // namespace parley::jinja

#endif
