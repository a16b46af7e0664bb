// parley/jinja/detail/methods/arguments.hpp: the argument checks of built-in filters, tests,
// functions and methods (Python's TypeError), and the readers of their arguments.
#ifndef PARLEY_JINJA_DETAIL_METHODS_ARGUMENTS_HPP
#define PARLEY_JINJA_DETAIL_METHODS_ARGUMENTS_HPP

#include <parley/jinja/detail/methods/access.hpp>

namespace parley::jinja::detail {

// ---- argument helpers -------------------------------------------------------------------------

inline bool has_keyword(const arguments& a, std::string_view key) {
    for (const auto& kv : a.keywords())
        if (kv.first == key) return true;
    return false;
}

/// Raises Python's TypeError (errc::template_type) when `args` do not fit the parameters of
/// a built-in filter, test, function or method (`kind` says which, and `owner` names a method's
/// type, for the message): more positional arguments than parameters, a keyword where the
/// parameters take none, one that names none of them or one already given by position, or a
/// required parameter left out.
/// (The common call without arguments is told apart inline; check_given_arguments does the rest.)
inline void check_given_arguments(const builtin_params& p, std::string_view kind, std::string_view name,
                                  const arguments& a, std::string_view owner);
PARLEY_ALWAYS_INLINE void check_arguments(const builtin_params& p, std::string_view kind, std::string_view name,
                                          const arguments& a, std::string_view owner = {}) {
    if (a.positional().empty() && a.keywords().empty() && p.required == 0) return;
    check_given_arguments(p, kind, name, a, owner);
}
inline void check_given_arguments(const builtin_params& p, std::string_view kind, std::string_view name,
                                  const arguments& a, std::string_view owner) {
    const auto& pos = a.positional();
    const auto fn = [&] {  // (built only for the message)
        return std::string(kind) + " " +
               single_quoted(owner.empty() ? std::string(name) : std::string(owner) + "." + std::string(name));
    };
    const std::size_t positional = p.count - p.keyword_only;
    if (pos.size() > positional)
        raise(errc::template_type, fn() + " takes " +
                                         (positional == 0 ? std::string(p.count == 0 ? "no arguments" : "no positional arguments")
                                                          : "at most " + std::to_string(positional) + " argument(s)") +
                                         " (" + std::to_string(pos.size()) + " given)");
    if (!p.keywords && !a.keywords().empty()) raise(errc::template_type, fn() + " takes no keyword arguments");
    for (const auto& [key, v] : a.keywords()) {
        std::size_t j = 0;
        while (j < p.count && p.names[j] != key) ++j;
        if (j == p.count) raise(errc::template_type, fn() + " got an unexpected keyword argument " + single_quoted(key));
        if (j < pos.size()) raise(errc::template_type, fn() + " got multiple values for argument " + single_quoted(key));
    }
    for (std::size_t j = pos.size(); j < p.required; ++j)
        if (!has_keyword(a, p.names[j]))
            raise(errc::template_type, fn() + " is missing its required argument " + single_quoted(p.names[j]));
}

/// Python's hash() accepts the value (it is not a list, a dict or a tuple holding one).
inline bool hashable(const value& v) {
    switch (v.kind()) {
    case value_kind::undefined: check_strict(v); return true;
    case value_kind::list: {
        const auto& l = v.list();
        if (l.generator) return true;
        if (l.view_name) return std::string_view(l.view_name) == "dict_values";  // keys and items views are not
        if (!l.tuple) return false;
        check_stack();
        for (auto& x : l.items)
            if (!hashable(x)) return false;
        return true;
    }
    case value_kind::dict:
    case value_kind::view: return false;
    default: return true;
    }
}

/// Python's parameters of the built-in method `name` of `self` (a str, list, tuple or dict), for
/// check_arguments; null when `self` has no such method. All but a few are positional-only.
inline const builtin_params* method_params(const value& self, std::string_view name) {
    if (self.is_string()) {
        const builtin_params* p = find_method(str_methods, name);
        return p || !self.is_markup() ? p : find_method(markup_methods, name);
    }
    if (self.is_sequence_like()) return find_method(list_methods, name);
    if (self.is_mapping_like()) return find_method(dict_methods, name);
    return nullptr;
}

/// Python's OverflowError for an int beyond 64 bits where a size or an index is expected.
[[noreturn]] inline void int_too_large_for_size() {
    raise(errc::template_value, "Python int too large to convert to C ssize_t");
}

/// An integer argument that was given, as Python's __index__ takes it: an int or a bool.
inline long long index_arg(const value& v) {
    if (v.is_big_integer()) int_too_large_for_size();
    if (!v.is_integer() && !v.is_bool())
        type_error(std::string("'") + type_name(v) + "' object cannot be interpreted as an integer");
    return v.as_integer();
}

inline std::optional<std::string_view> opt_str(const value& v, std::string_view fn) {
    if (v.is_undefined() || v.is_none()) return std::nullopt;
    if (!v.is_string()) type_error(std::string(fn) + " arg must be None or str");
    return v.as_string();
}
inline std::optional<long> opt_index(const value& v) {
    if (v.is_undefined() || v.is_none()) return std::nullopt;
    if (v.is_big_integer())  // clamped, as Python clamps slice indices
        return v.big_integer().negative() ? std::numeric_limits<long>::min() : std::numeric_limits<long>::max();
    if (!v.is_integer() && !v.is_bool()) type_error("slice indices must be integers or None");
    return static_cast<long>(v.as_integer());
}
inline long int_arg(const value& v, long def, const char* what) {
    if (v.is_undefined()) return def;
    if (v.is_big_integer()) int_too_large_for_size();
    if (!v.is_integer() && !v.is_bool())
        type_error(std::string("'") + type_name(v) + "' object cannot be interpreted as an integer (" + what + ")");
    return static_cast<long>(v.as_integer());
}
/// An integer argument that Python only compares or adds (never turns into a size or an
/// index): a big integer is as large, or as small, as a long can be, which such uses cannot
/// tell apart from it.
inline long saturated_int_arg(const value& v, long def, const char* what) {
    if (v.is_big_integer()) return v.big_integer().negative() ? std::numeric_limits<long>::min() : std::numeric_limits<long>::max();
    return int_arg(v, def, what);
}
inline char32_t fill_arg(const value& v) {
    if (v.is_undefined()) return U' ';
    if (!v.is_string() || utf8_length(v.as_string()) != 1)
        type_error("The fill character must be exactly one character long");
    std::size_t i = 0;
    return utf8_decode(v.as_string(), i);
}

inline value str_list(const value& owner, const std::vector<std::string_view>& parts) {
    std::vector<value> r;
    r.reserve(parts.size());
    const std::string_view s = owner.as_string();
    for (auto p : parts) {
        // parts view the owner's characters: share its storage
        if (p.data() >= s.data() && p.data() + p.size() <= s.data() + s.size())
            r.push_back(owner.substr(static_cast<std::size_t>(p.data() - s.data()), p.size()).with_markup(false));
        else
            r.push_back(value(std::string(p)));
    }
    return value::make_list(std::move(r));
}

template <class F>
value build_str(F&& f) {
    std::string out;
    f(out);
    return value(std::move(out));
}

}  // namespace parley::jinja::detail

#endif
