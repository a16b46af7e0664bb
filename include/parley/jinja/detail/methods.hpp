// parley/jinja/detail/methods.hpp: attribute and item access, and the methods of str, list
// and dict that templates call (`s.strip()`, `d.items()`, `xs.append(x)`...).
#ifndef PARLEY_JINJA_DETAIL_METHODS_HPP
#define PARLEY_JINJA_DETAIL_METHODS_HPP

#include <parley/jinja/detail/format.hpp>
#include <parley/jinja/detail/json_view.hpp>
#include <parley/jinja/detail/lexer.hpp>
#include <parley/jinja/detail/ops.hpp>
#include <parley/jinja/environment.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace parley::jinja::detail {

inline void dict_set(dict_obj& d, value key, value v) {
    for (auto& [k, x] : d.items) {
        if (equals(k, key)) {
            x = std::move(v);
            return;
        }
    }
    d.items.emplace_back(std::move(key), std::move(v));
}

/// The built-in methods of str, list (a tuple has list's count and index) and dict, with Python's
/// parameters (for check_arguments).
struct method_entry {
    std::string_view name;
    builtin_params params;
};
inline constexpr method_entry str_methods[] = {
    {"capitalize", builtin_params::of("", 0)}, {"casefold", builtin_params::of("", 0)},
    {"center", builtin_params::of("width fillchar", 1, false)},
    {"count", builtin_params::of("sub start end", 1, false)},
    {"endswith", builtin_params::of("suffix start end", 1, false)}, {"expandtabs", builtin_params::of("tabsize", 0)},
    {"find", builtin_params::of("sub start end", 1, false)}, {"format", builtin_params::unchecked()},
    {"format_map", builtin_params::of("mapping", 1, false)},
    {"index", builtin_params::of("sub start end", 1, false)}, {"isalnum", builtin_params::of("", 0)},
    {"isalpha", builtin_params::of("", 0)}, {"isascii", builtin_params::of("", 0)},
    {"isdecimal", builtin_params::of("", 0)}, {"isdigit", builtin_params::of("", 0)},
    {"isidentifier", builtin_params::of("", 0)}, {"islower", builtin_params::of("", 0)}, {"isnumeric", builtin_params::of("", 0)},
    {"isspace", builtin_params::of("", 0)}, {"istitle", builtin_params::of("", 0)},
    {"isupper", builtin_params::of("", 0)}, {"join", builtin_params::of("iterable", 1, false)},
    {"ljust", builtin_params::of("width fillchar", 1, false)}, {"lower", builtin_params::of("", 0)},
    {"lstrip", builtin_params::of("chars", 0, false)}, {"partition", builtin_params::of("sep", 1, false)},
    {"removeprefix", builtin_params::of("prefix", 1, false)},
    {"removesuffix", builtin_params::of("suffix", 1, false)},
    {"replace", builtin_params::of("old new count", 2, false)},
    {"rfind", builtin_params::of("sub start end", 1, false)},
    {"rindex", builtin_params::of("sub start end", 1, false)},
    {"rjust", builtin_params::of("width fillchar", 1, false)}, {"rpartition", builtin_params::of("sep", 1, false)},
    {"rsplit", builtin_params::of("sep maxsplit", 0)}, {"rstrip", builtin_params::of("chars", 0, false)},
    {"split", builtin_params::of("sep maxsplit", 0)}, {"splitlines", builtin_params::of("keepends", 0)},
    {"startswith", builtin_params::of("prefix start end", 1, false)},
    {"strip", builtin_params::of("chars", 0, false)}, {"swapcase", builtin_params::of("", 0)},
    {"title", builtin_params::of("", 0)}, {"upper", builtin_params::of("", 0)},
    {"zfill", builtin_params::of("width", 1, false)},
};
/// Markup's methods that str does not have (markupsafe).
inline constexpr method_entry markup_methods[] = {
    {"escape", builtin_params::of("s", 1, false)}, {"striptags", builtin_params::of("", 0)},
    {"unescape", builtin_params::of("", 0)},
};
inline constexpr method_entry list_methods[] = {  // a tuple's count and index too
    {"append", builtin_params::of("object", 1, false)}, {"clear", builtin_params::of("", 0)},
    {"copy", builtin_params::of("", 0)}, {"count", builtin_params::of("value", 1, false)},
    {"extend", builtin_params::of("iterable", 1, false)}, {"index", builtin_params::of("value start stop", 1, false)},
    {"insert", builtin_params::of("index object", 2, false)}, {"pop", builtin_params::of("index", 0, false)},
    {"remove", builtin_params::of("value", 1, false)}, {"reverse", builtin_params::of("", 0)},
    {"sort", builtin_params::of("key reverse", 0, true, 2)},
};
inline constexpr method_entry dict_methods[] = {
    {"clear", builtin_params::of("", 0)}, {"copy", builtin_params::of("", 0)},
    {"fromkeys", builtin_params::of("iterable value", 1, false)},
    {"get", builtin_params::of("key default", 1, false)}, {"items", builtin_params::of("", 0)},
    {"keys", builtin_params::of("", 0)}, {"pop", builtin_params::of("key default", 1, false)},
    {"popitem", builtin_params::of("", 0)}, {"setdefault", builtin_params::of("key default", 1, false)},
    {"update", builtin_params::unchecked()}, {"values", builtin_params::of("", 0)},
};
template <std::size_t N>
constexpr const builtin_params* find_method(const method_entry (&table)[N], std::string_view name) {
    for (const method_entry& e : table)
        if (e.name == name) return &e.params;
    return nullptr;
}

inline bool is_str_method(std::string_view n) { return find_method(str_methods, n) != nullptr; }
inline bool is_list_method(std::string_view n) { return find_method(list_methods, n) != nullptr; }
inline bool is_dict_method(std::string_view n) {
    // the names of dict_methods, by first letter: attribute reads of JSON objects and structs ask
    // this on every `x.name` that was not settled when the template was linked
    if (n.size() < 3) return false;
    switch (n[0]) {
    case 'c': return n == "clear" || n == "copy";
    case 'f': return n == "fromkeys";
    case 'g': return n == "get";
    case 'i': return n == "items";
    case 'k': return n == "keys";
    case 'p': return n == "pop" || n == "popitem";
    case 's': return n == "setdefault";
    case 'u': return n == "update";
    case 'v': return n == "values";
    default: return false;
    }
}
inline bool is_mutating(const value& self, std::string_view n) {
    if (self.is_sequence_like() && !(self.is_list() && self.list().tuple))
        return n == "append" || n == "clear" || n == "extend" || n == "insert" || n == "pop" || n == "remove" ||
               n == "reverse" || n == "sort";
    if (self.is_mapping_like())
        return n == "clear" || n == "pop" || n == "popitem" || n == "setdefault" || n == "update";
    return false;
}
inline bool has_method(const value& self, std::string_view n) {
    if (self.is_string()) return is_str_method(n) || (self.is_markup() && find_method(markup_methods, n));
    if (self.is_list() && self.list().tuple) return n == "count" || n == "index";
    if (self.is_sequence_like()) return sequence_type(self) == seq_type::list && is_list_method(n);
    if (self.is_mapping_like()) return is_dict_method(n);
    return false;
}

/// The methods an environment adds (environment::add_method), by name.
using method_table = std::map<std::string, method_function, std::less<>>;

/// The method of one's own called `name`, or null.
inline const method_function* find_user_method(const method_table* user, std::string_view name) {
    if (!user || user->empty()) return nullptr;
    auto it = user->find(name);
    return it == user->end() ? nullptr : &it->second;
}

/// A method taken without calling it (`f = s.upper`, or a method of one's own).
struct bound_method_obj final : object_obj {
    value self;
    std::string name;
    const method_function* user = nullptr;  ///< a method of one's own (owned by the environment)
    const char* type_name() const noexcept override { return "builtin_function_or_method"; }
    bool callable() const noexcept override { return true; }
    inline value call(render_state& st, arguments& args) const override;
    void repr(std::string& out) const override { out += "<built-in method " + name + ">"; }
    void each_held(void (*fn)(void*, const value&), void* ctx) const override { fn(ctx, self); }
};

[[noreturn]] inline void unsafe(const value& self, std::string_view name) {
    raise(errc::template_security, "access to attribute " + single_quoted(name) + " of '" + type_name(self) +
                                       "' object is unsafe.");
}

/// A bound method of one's own.
inline value bind_user_method(const value& obj, std::string_view name, const method_function* f) {
    auto* b = new bound_method_obj();
    b->self = obj;
    b->name = std::string(name);
    b->user = f;
    return value::make_object(b);
}

/// Jinja's getattr: attribute first, then item; then the methods of one's own in `user`.
inline value get_attribute(const value& obj, std::string_view name, bool sandboxed, bool strict,
                           const method_table* user = nullptr) {
    if (obj.is_undefined()) fail_undefined(obj);
    auto missing = [&]() {
        value u = value::undefined(undefined_form::attribute, name, type_name(obj));
        return strict ? u.as_strict() : u;
    };
    // Python's private attributes are refused (the sandbox's rule); a mapping's keys are not attributes
    if (!name.empty() && name[0] == '_' && !obj.is_mapping_like()) return missing();
    if (obj.is_list() && obj.list().group && obj.list().items.size() == 2) {
        if (name == "grouper") return obj.list().items[0];
        if (name == "list") return obj.list().items[1];
    }
    if (obj.is_object()) {
        value r = obj.object().getattr(name);
        if (!r.is_undefined() || r.undefined_form() != undefined_form::plain) return r;
        if (obj.object().has_method(name)) {  // `loop.cycle`, `c.next`: the bound method
            auto* b = new bound_method_obj();
            b->self = obj;
            b->name = std::string(name);
            return value::make_object(b);
        }
        if (const method_function* f = find_user_method(user, name)) return bind_user_method(obj, name, f);
        return missing();
    }
    if (has_method(obj, name)) {
        if (sandboxed && is_mutating(obj, name)) {  // prints as nothing, fails when called
            value u = value::undefined_message("access to attribute " + single_quoted(name) + " of '" + type_name(obj) +
                                               "' object is unsafe.");
            return strict ? u.as_strict() : u;
        }
        auto* b = new bound_method_obj();
        b->self = obj;
        b->name = std::string(name);
        return value::make_object(b);
    }
    if (obj.is_mapping_like()) {
        value out;
        if (mapping_find(obj, value::view_of(name), out)) return out;
    }
    if (const method_function* f = find_user_method(user, name)) return bind_user_method(obj, name, f);
    return missing();
}

/// Whether `obj` has an attribute or key `name` of its own (which hides a method of one's own).
inline bool has_own_attribute(const value& obj, std::string_view name) {
    if (obj.is_object()) return obj.object().getattr(name).is_defined();
    if (obj.is_list() && obj.list().group && obj.list().items.size() == 2) return name == "grouper" || name == "list";
    value out;
    return obj.is_mapping_like() && mapping_find(obj, value::view_of(name), out);
}

/// Jinja's getitem: item first, then attribute for string keys (including the methods of one's
/// own in `user`).
inline value get_item(const value& obj, const value& key, bool sandboxed, bool strict,
                      const method_table* user = nullptr) {
    if (obj.is_undefined()) fail_undefined(obj);
    bool found = false;
    value r = getitem_plain(obj, key, found);
    if (found) return r;
    value u;
    if (key.is_string()) {
        if (obj.is_object()) {
            value a = obj.object().getattr(key.as_string());
            if (a.is_defined()) return a;
        }
        if (obj.is_list() && has_own_attribute(obj, key.as_string()))  // groupby's grouper and list
            return get_attribute(obj, key.as_string(), sandboxed, strict, user);
        if (has_method(obj, key.as_string()) || find_user_method(user, key.as_string()))
            return get_attribute(obj, key.as_string(), sandboxed, strict, user);
        // Jinja2 words a missing string key as a missing attribute. A key viewed in place (from
        // the template or the context) outlives the undefined value; a computed one is copied.
        if (key.owns_text())
            u = value::undefined_message("'" + std::string(type_name(obj)) + " object' has no attribute " +
                                         single_quoted(key.as_string()));
        else
            u = value::undefined(undefined_form::attribute, key.as_string(), type_name(obj));
    } else if (key.is_integer()) {
        u = value::undefined_item(key.as_integer(), type_name(obj));
    } else if (key.is_big_integer()) {
        u = value::undefined_message(std::string(type_name(obj)) + " object has no element " + to_str(key));
    } else {
        std::string m = std::string(type_name(obj)) + " object has no element ";
        append_repr(m, key);
        u = value::undefined_message(std::move(m));
    }
    return strict ? u.as_strict() : u;
}

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

/// A field's `.name` or `[key]` in str.format outside the sandbox: Python's getattr (the methods
/// of str, list and dict, and the attributes of objects such as namespaces) and __getitem__.
inline value format_field_part(const value& v, std::string_view name, const value* key) {
    if (key) {
        bool found = false;
        value r = getitem_plain(v, *key, found);
        if (!found) raise(errc::template_value, "no item " + to_repr(*key) + " in " + std::string(type_name(v)) + " object");
        return r;
    }
    if (v.is_object()) {
        value r = v.object().getattr(name);
        if (r.is_defined()) return r;
    } else if (has_method(v, name)) {
        return get_attribute(v, name, false, false);
    }
    raise(errc::template_value, "'" + std::string(type_name(v)) + "' object has no attribute " + single_quoted(name));
}

/// The arguments of `s.format_map(mapping)`: format(**mapping), the fields looked up by name.
inline arguments format_map_arguments(const value& mapping) {
    if (!mapping.is_mapping_like()) type_error(std::string("'") + type_name(mapping) + "' object is not a mapping");
    arguments by_name;
    by_name.keep_alive(mapping);  // the names view its keys
    sequence keys(mapping);
    for (std::size_t k = 0; k < keys.size(); ++k) {
        const value key = keys[k];
        if (!key.is_string()) continue;
        value v;
        mapping_find(mapping, key, v);
        by_name.keep_alive(key);
        by_name.push_keyword(key.as_string(), v);
    }
    return by_name;
}

/// `'...'.format(*args, **kwargs)`; with `escape_fields` (Markup.format), each field's text is
/// HTML-escaped unless the field's value is Markup, which takes no format specification. In the
/// sandbox a field's `.name` and `[key]` are read as the template reads them (attribute then item,
/// a missing one undefined, `strict` or not), as Jinja2's sandboxed formatter does; outside it as
/// Python's str.format reads them.
inline value str_format(const value& fmt, const arguments& args, bool sandboxed, bool escape_fields = false,
                        bool strict = false) {
    const std::string_view f = fmt.as_string();
    std::string out;
    std::size_t auto_index = 0;
    char numbering = 0;  // 'a': {} fields, 'm': {0} fields (Python refuses a mix)
    for (std::size_t i = 0; i < f.size(); ++i) {
        const char c = f[i];
        if (c == '}') {
            if (i + 1 < f.size() && f[i + 1] == '}') {
                out += '}';
                ++i;
                continue;
            }
            raise(errc::template_value, "Single '}' encountered in format string");
        }
        if (c != '{') {
            out += c;
            continue;
        }
        if (i + 1 < f.size() && f[i + 1] == '{') {
            out += '{';
            ++i;
            continue;
        }
        // find the matching '}' (nested {} in the spec are not supported)
        const std::size_t close = f.find('}', i);
        if (close == std::string_view::npos) raise(errc::template_value, "Single '{' encountered in format string");
        std::string_view field = f.substr(i + 1, close - i - 1);
        i = close;
        std::string_view spec, conv;
        if (auto colon = field.find(':'); colon != std::string_view::npos) {
            spec = field.substr(colon + 1);
            field = field.substr(0, colon);
        }
        if (auto bang = field.find('!'); bang != std::string_view::npos) {
            conv = field.substr(bang + 1);
            field = field.substr(0, bang);
        }
        // first part: index or name
        std::size_t e = 0;
        while (e < field.size() && field[e] != '.' && field[e] != '[') ++e;
        const std::string_view head = field.substr(0, e);
        value v;
        if (head.empty()) {
            if (numbering == 'm')
                raise(errc::template_value, "cannot switch from manual field specification to automatic field numbering");
            numbering = 'a';
            if (auto_index >= args.size()) raise(errc::template_value, "Replacement index " + std::to_string(auto_index) + " out of range for positional args tuple");
            v = args[auto_index++];
        } else if (head.find_first_not_of("0123456789") == std::string_view::npos) {
            if (numbering == 'a')
                raise(errc::template_value, "cannot switch from automatic field numbering to manual field specification");
            numbering = 'm';
            const std::size_t k = std::stoul(std::string(head));
            if (k >= args.size()) raise(errc::template_value, "Replacement index " + std::to_string(k) + " out of range for positional args tuple");
            v = args[k];
        } else {
            v = args.keyword(head);
            if (v.is_undefined()) raise(errc::template_value, "KeyError: " + single_quoted(head));
        }
        // .attr and [key] chains
        while (e < field.size()) {
            if (v.is_undefined()) fail_undefined(v);  // a part of a missing part
            if (field[e] == '.') {
                std::size_t b = ++e;
                while (e < field.size() && field[e] != '.' && field[e] != '[') ++e;
                const std::string_view name = field.substr(b, e - b);
                v = sandboxed ? get_attribute(v, name, true, strict) : format_field_part(v, name, nullptr);
            } else {
                const std::size_t b = ++e;
                while (e < field.size() && field[e] != ']') ++e;
                const std::string_view key = field.substr(b, e - b);
                ++e;
                const value k = !key.empty() && key.find_first_not_of("0123456789") == std::string_view::npos
                                    ? value(static_cast<long long>(std::stoll(std::string(key))))
                                    : value(std::string(key));
                v = sandboxed ? get_item(v, k, true, strict) : format_field_part(v, {}, &k);
            }
        }
        if (conv == "r" || conv == "a") v = value(to_repr(v));
        else if (conv == "s") v = value(to_str(v));
        else if (!conv.empty()) raise(errc::template_value, "Unknown conversion specifier " + std::string(conv));
        if (!escape_fields) {
            format_value(out, v, spec);
        } else if (v.is_markup()) {
            if (!spec.empty()) raise(errc::template_value, "Unsupported format specification for Markup.");
            out += v.as_string();
        } else {
            std::string text;
            format_value(text, v, spec);
            html_escape(out, text);
        }
    }
    return value(std::move(out));
}

inline value str_method(const value& self, std::string_view name, const arguments& args, bool sandboxed,
                        bool strict = false) {
    const std::string_view s = self.as_string();
    auto arg = [&](std::size_t i) -> value { return i < args.size() ? args[i] : value(); };
    // every parameter but format's and join's is a str, an int or None: Python refuses an Undefined
    if (name != "format" && name != "join") {
        for (const value& v : args.positional())
            if (v.is_undefined()) type_error("an undefined value is not a valid argument of str." + std::string(name) + "()");
        for (const auto& kv : args.keywords())
            if (kv.second.is_undefined()) type_error("an undefined value is not a valid argument of str." + std::string(name) + "()");
    }
    auto str_arg = [&](std::size_t i) -> std::string_view {
        const value v = arg(i);
        if (!v.is_string()) type_error(std::string("must be str, not ") + type_name(v));
        return v.as_string();
    };
    if (name == "strip" || name == "lstrip" || name == "rstrip") {
        const std::string_view r = py_strip(s, opt_str(arg(0), name), name != "rstrip", name != "lstrip");
        return self.substr(static_cast<std::size_t>(r.data() - s.data()), r.size()).with_markup(false);
    }
    if (name == "split" || name == "rsplit") {
        const std::string_view params[] = {"sep", "maxsplit"};
        bound_args<2> b(args, name, params);
        const auto sep = opt_str(b[0], "split");
        const long maxsplit = int_arg(b[1], -1, "maxsplit");
        if (sep && sep->empty()) raise(errc::template_value, "empty separator");
        return str_list(self, name == "split" ? py_split(s, sep, maxsplit) : py_rsplit(s, sep, maxsplit));
    }
    if (name == "splitlines") {
        const std::string_view params[] = {"keepends"};
        bound_args<1> b(args, name, params);
        return str_list(self, py_splitlines(s, b.has(0) && index_arg(b[0]) != 0));
    }
    if (name == "startswith" || name == "endswith") {
        const value prefix = arg(0);
        // Python slices the string first, then compares
        const std::int64_t n = static_cast<std::int64_t>(utf8_length(s));
        std::int64_t b, e, st;
        slice_indices(n, arg(1).is_undefined() ? value(nullptr) : arg(1), arg(2).is_undefined() ? value(nullptr) : arg(2), value(nullptr), b, e, st);
        std::string_view sub;
        if (b <= n && b <= e) sub = s.substr(utf8_offset(s, static_cast<std::size_t>(b)), utf8_offset(s, static_cast<std::size_t>(e)) - utf8_offset(s, static_cast<std::size_t>(b)));
        else if (b <= n && e < b) sub = s.substr(utf8_offset(s, static_cast<std::size_t>(b)), 0);
        else return value(false);
        auto test = [&](const value& p) {
            if (!p.is_string())
                type_error(std::string(name) + " first arg must be str or a tuple of str, not " + type_name(p));
            const std::string_view x = p.as_string();
            return name == "startswith" ? sub.substr(0, x.size()) == x
                                        : sub.size() >= x.size() && sub.substr(sub.size() - x.size()) == x;
        };
        if (prefix.is_list() && prefix.list().tuple) {
            for (auto& p : prefix.list().items)
                if (test(p)) return value(true);
            return value(false);
        }
        return value(test(prefix));
    }
    if (name == "upper") return build_str([&](std::string& o) { py_upper(o, s); });
    if (name == "lower") return build_str([&](std::string& o) { py_lower(o, s); });
    if (name == "title") return build_str([&](std::string& o) { py_title(o, s); });
    if (name == "capitalize") return build_str([&](std::string& o) { py_capitalize(o, s); });
    if (name == "swapcase") return build_str([&](std::string& o) { py_swapcase(o, s); });
    if (name == "casefold") return build_str([&](std::string& o) { py_casefold(o, s); });
    if (name == "replace") {
        const long count = int_arg(arg(2), -1, "count");
        return build_str([&](std::string& o) { py_replace(o, s, str_arg(0), str_arg(1), count); });
    }
    if (name == "find" || name == "rfind" || name == "index" || name == "rindex" || name == "count") {
        const std::string_view sub = str_arg(0);
        const auto b = opt_index(arg(1)), e = opt_index(arg(2));
        if (name == "count") return value(static_cast<long long>(py_count(s, sub, b, e)));
        const long r = (name == "find" || name == "index") ? py_find(s, sub, b, e) : py_rfind(s, sub, b, e);
        if (r < 0 && (name == "index" || name == "rindex")) raise(errc::template_value, "substring not found");
        return value(static_cast<long long>(r));
    }
    if (name == "format") return str_format(self, args, sandboxed, false, strict);
    if (name == "format_map") return str_format(self, format_map_arguments(args[0]), sandboxed, false, strict);
    if (name == "join") {
        sequence items(arg(0));
        std::string o;
        for (std::size_t i = 0; i < items.size(); ++i) {
            const value it = items[i];
            if (!it.is_string())
                type_error("sequence item " + std::to_string(i) + ": expected str instance, " + type_name(it) + " found");
            if (i) o += s;
            o += it.as_string();
            if (o.size() > std::size_t(1) << 30) raise(errc::template_limit, "joined string too large");
        }
        return value(std::move(o));
    }
    if (name == "center" || name == "ljust" || name == "rjust") {
        const long w = int_arg(arg(0), 0, "width");
        if (w > 100000000) raise(errc::template_limit, "padding width too large");
        const char32_t fill = fill_arg(arg(1));
        return build_str([&](std::string& o) {
            if (name == "center") py_center(o, s, w, fill);
            else if (name == "ljust") py_ljust(o, s, w, fill);
            else py_rjust(o, s, w, fill);
        });
    }
    if (name == "zfill") {
        const long w = int_arg(arg(0), 0, "width");
        if (w > 100000000) raise(errc::template_limit, "padding width too large");
        return build_str([&](std::string& o) { py_zfill(o, s, w); });
    }
    if (name == "expandtabs") {
        const std::string_view params[] = {"tabsize"};
        bound_args<1> b(args, name, params);
        const long tabsize = int_arg(b[0], 8, "tabsize");
        // counted first: a huge tab size fails here rather than in the allocator
        if (py_expandtabs_size(s, tabsize) > text_limit)
            raise(errc::template_limit, "the result of method 'expandtabs' exceeds the output size limit (" +
                                            std::to_string(text_limit) + " bytes)");
        return build_str([&](std::string& o) { py_expandtabs(o, s, tabsize); });
    }
    if (name == "isascii") {
        return value(std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }));
    }
    if (name == "isalnum") return value(py_str_isalnum(s));
    if (name == "isalpha") return value(py_str_isalpha(s));
    if (name == "isdecimal") return value(py_str_isdecimal(s));
    if (name == "isdigit") return value(py_str_isdigit(s));
    if (name == "isidentifier") {  // XID_Start or '_', then XID_Continue (the lexer's tables)
        for (std::size_t i = 0; i < s.size();) {
            const utf8_char u = utf8_at(s, i);
            if (!(ident_flags(u.cp) & (i == 0 ? tables::ident_start : tables::ident_continue))) return value(false);
            i += u.len;
        }
        return value(!s.empty());
    }
    if (name == "islower") return value(py_str_islower(s));
    if (name == "isnumeric") return value(py_str_isnumeric(s));
    if (name == "isspace") return value(py_str_isspace(s));
    if (name == "istitle") return value(py_str_istitle(s));
    if (name == "isupper") return value(py_str_isupper(s));
    if (name == "partition" || name == "rpartition") {
        const std::string_view sep = str_arg(0);
        if (sep.empty()) raise(errc::template_value, "empty separator");
        const std::size_t p = name == "partition" ? s.find(sep) : s.rfind(sep);
        std::vector<value> r;
        if (p == std::string_view::npos) {
            if (name == "partition") r = {self.with_markup(false), value::view_of(""), value::view_of("")};
            else r = {value::view_of(""), value::view_of(""), self.with_markup(false)};
        } else {
            r = {self.substr(0, p).with_markup(false), self.substr(p, sep.size()).with_markup(false),
                 self.substr(p + sep.size(), s.size() - p - sep.size()).with_markup(false)};
        }
        return value::make_list(std::move(r), true);
    }
    if (name == "removeprefix") {
        const std::string_view x = str_arg(0);
        if (s.substr(0, x.size()) == x) return self.substr(x.size(), s.size() - x.size()).with_markup(false);
        return self.with_markup(false);
    }
    if (name == "removesuffix") {
        const std::string_view x = str_arg(0);
        if (!x.empty() && s.size() >= x.size() && s.substr(s.size() - x.size()) == x)
            return self.substr(0, s.size() - x.size()).with_markup(false);
        return self.with_markup(false);
    }
    type_error("'str' object has no attribute " + single_quoted(name));
}

/// markupsafe's escape(): a Markup value as it is, anything else as its escaped text.
inline value markup_escape(const value& v) {
    if (v.is_markup()) return v;
    std::string s;
    html_escape(s, to_str(v));
    return value::markup(std::move(s));
}

/// A method of a Markup string, as markupsafe 3 defines them: the methods that return text
/// return Markup (`replace` escapes its new text first, `center`, `ljust` and `rjust` their
/// padding character), `join` escapes the items and `format` each field, and the parts of
/// `split`, `rsplit`, `splitlines`, `partition` and `rpartition` are Markup. The others (`find`,
/// `startswith`, `isupper`...) answer as for str.
inline value markup_method(const value& self, std::string_view name, const arguments& args, bool sandboxed,
                           bool strict = false) {
    if (name == "unescape") {  // html.unescape: a str
        std::string o;
        markup_unescape(o, self.as_string());
        return value(std::move(o));
    }
    if (name == "striptags") {  // Markup(tags and comments removed, spaces collapsed).unescape(): a str
        std::string o;
        jinja_striptags(o, self.as_string());
        return value(std::move(o));
    }
    if (name == "escape") return markup_escape(args[0]);  // the class method
    if (name == "join") {
        sequence items(args[0]);
        std::string o;
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (i) o += self.as_string();
            o += markup_escape(items[i]).as_string();
            if (o.size() > std::size_t(1) << 30) raise(errc::template_limit, "joined string too large");
        }
        return value::markup(std::move(o));
    }
    if (name == "format") return str_format(self, args, sandboxed, true, strict).with_markup(true);
    if (name == "format_map") return str_format(self, format_map_arguments(args[0]), sandboxed, true, strict).with_markup(true);
    if (name == "split" || name == "rsplit" || name == "splitlines" || name == "partition" || name == "rpartition") {
        value parts = str_method(self, name, args, sandboxed);
        for (value& p : parts.list().items) p = p.with_markup(true);
        return parts;
    }
    static constexpr std::string_view text_methods[] = {
        "capitalize", "casefold", "center", "expandtabs", "ljust", "lower", "lstrip", "removeprefix", "removesuffix",
        "replace", "rjust", "rstrip", "strip", "swapcase", "title", "upper", "zfill"};
    if (std::find(std::begin(text_methods), std::end(text_methods), name) == std::end(text_methods))
        return str_method(self, name, args, sandboxed);
    const bool escapes_arg1 = name == "replace" || name == "center" || name == "ljust" || name == "rjust";
    if (!escapes_arg1 || args.size() < 2) return str_method(self, name, args, sandboxed).with_markup(true);
    arguments escaped = args;
    escaped.positional_mut()[1] = markup_escape(args[1]);
    return str_method(self, name, escaped, sandboxed).with_markup(true);
}

inline value list_method(render_state& st, const value& self, std::string_view name, arguments& args, bool sandboxed) {
    if (sandboxed && is_mutating(self, name)) unsafe(self, name);
    auto arg = [&](std::size_t i) -> value { return i < args.size() ? args[i] : value(); };
    if (name == "count") {
        sequence items(self);
        long long c = 0;
        for (std::size_t i = 0; i < items.size(); ++i) c += equals(items[i], arg(0));
        return value(c);
    }
    if (name == "index") {
        sequence items(self);
        const long long n = static_cast<long long>(items.size());
        const auto bound = [&](std::size_t i, long long def) {  // clamped as a slice's
            long long x = i < args.size() ? (args[i].is_big_integer() ? *opt_index(args[i]) : index_arg(args[i])) : def;
            if (x < 0) x = std::max(0ll, x + n);
            return std::min(x, n);
        };
        for (long long i = bound(1, 0), end = bound(2, n); i < end; ++i)
            if (equals(items[static_cast<std::size_t>(i)], arg(0))) return value(i);
        raise(errc::template_value, to_repr(arg(0)) + " is not in list");
    }
    if (name == "copy") return value::make_list(sequence(self).to_vector());
    if (!self.is_list()) raise(errc::template_type, "a list read from the context cannot be changed by the template");
    auto& items = self.list().items;
    if (name == "append") {
        hold_check(arg(0), &self.list(), "list");
        items.push_back(arg(0));
        return value(nullptr);
    }
    if (name == "extend") {
        sequence more(arg(0));
        auto add = more.to_vector();
        for (const value& x : add) hold_check(x, &self.list(), "list");
        items.insert(items.end(), add.begin(), add.end());
        return value(nullptr);
    }
    if (name == "insert") {
        long long i = index_arg(arg(0));
        const long long n = static_cast<long long>(items.size());
        if (i < 0) i = std::max(0ll, i + n);
        if (i > n) i = n;
        hold_check(arg(1), &self.list(), "list");
        items.insert(items.begin() + i, arg(1));
        return value(nullptr);
    }
    if (name == "pop") {
        long long i = args.size() ? index_arg(args[0]) : -1;
        if (items.empty()) raise(errc::template_value, "pop from empty list");
        const long long n = static_cast<long long>(items.size());
        if (i < 0) i += n;
        if (i < 0 || i >= n) raise(errc::template_value, "pop index out of range");
        value r = items[static_cast<std::size_t>(i)];
        items.erase(items.begin() + i);
        return r;
    }
    if (name == "remove") {
        for (auto it = items.begin(); it != items.end(); ++it)
            if (equals(*it, arg(0))) {
                items.erase(it);
                return value(nullptr);
            }
        raise(errc::template_value, "list.remove(x): x not in list");
    }
    if (name == "clear") {
        items.clear();
        return value(nullptr);
    }
    if (name == "reverse") {
        std::reverse(items.begin(), items.end());
        return value(nullptr);
    }
    if (name == "sort") {
        const bool rev = has_keyword(args, "reverse") && index_arg(args.keyword("reverse")) != 0;
        const value key = has_keyword(args, "key") ? args.keyword("key") : value(nullptr);
        if (key.is_none()) {
            std::stable_sort(items.begin(), items.end(), [&](const value& a, const value& b) {
                return rev ? compare(b, a) < 0 : compare(a, b) < 0;
            });
            return value(nullptr);
        }
        if (!key.is_object() || !key.object().callable())
            type_error(std::string("'") + type_name(key) + "' object is not callable");
        std::vector<std::pair<value, value>> keyed;  // (key, item)
        for (const value& x : items) {
            arguments one;
            one.push(x);
            keyed.emplace_back(key.object().call(st, one), x);
        }
        std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
            return rev ? compare(b.first, a.first) < 0 : compare(a.first, b.first) < 0;
        });
        for (std::size_t i = 0; i < items.size(); ++i) items[i] = std::move(keyed[i].second);
        return value(nullptr);
    }
    type_error(std::string("'") + type_name(self) + "' object has no attribute " + single_quoted(name));
}

inline value dict_method(const value& self, std::string_view name, arguments& args, bool sandboxed) {
    if (sandboxed && is_mutating(self, name)) unsafe(self, name);
    auto arg = [&](std::size_t i) -> value { return i < args.size() ? args[i] : value(); };
    if (name == "items" || name == "keys" || name == "values") {
        std::vector<value> r;
        for_each_item(self, [&](const value& k, const value& v) {
            if (name == "items") r.push_back(value::make_list({k, v}, true));
            else r.push_back(name == "keys" ? k : v);
        });
        value view = value::make_list(std::move(r));
        view.list().view_name = name == "items" ? "dict_items" : name == "keys" ? "dict_keys" : "dict_values";
        return view;
    }
    if ((name == "get" || name == "pop" || name == "setdefault") && !hashable(arg(0)))
        type_error(std::string("unhashable type: '") + type_name(arg(0)) + "'");
    if (name == "get") {
        value out;
        if (mapping_find(self, arg(0), out)) return out;
        return args.size() > 1 ? arg(1) : value(nullptr);
    }
    if (name == "copy") {
        value d = value::make_dict();
        for_each_item(self, [&](const value& k, const value& v) { d.dict().items.emplace_back(k, v); });
        return d;
    }
    if (name == "fromkeys") {
        value d = value::make_dict();
        sequence keys(arg(0));
        for (std::size_t i = 0; i < keys.size(); ++i) {
            const value k = keys[i];
            if (!hashable(k)) type_error(std::string("unhashable type: '") + type_name(k) + "'");
            dict_set(d.dict(), k, args.size() > 1 ? arg(1) : value(nullptr));
        }
        return d;
    }
    if (!self.is_dict()) raise(errc::template_type, "a mapping read from the context cannot be changed by the template");
    auto& items = self.dict().items;
    if (name == "update") {
        // what goes in is the keys and values, not the mapping they come from: d.update(d) is fine
        const auto set = [&](const value& k, const value& v) {
            hold_check(k, &self.dict(), "dict");
            hold_check(v, &self.dict(), "dict");
            dict_set(self.dict(), k, v);
        };
        if (args.size() > 1) type_error("update expected at most 1 argument, got " + std::to_string(args.size()));
        if (args.size() == 1) {
            const value o = arg(0);
            if (o.is_undefined()) fail_undefined(o);  // Python asks it for keys()
            if (o.is_mapping_like()) for_each_item(o, [&](const value& k, const value& v) { set(k, v); });
            else {
                sequence pairs(o);
                for (std::size_t i = 0; i < pairs.size(); ++i) {
                    sequence kv(pairs[i]);
                    if (kv.size() != 2) raise(errc::template_value, "dictionary update sequence element has wrong length");
                    set(kv[0], kv[1]);
                }
            }
        }
        for (auto& [k, v] : args.keywords()) set(value(std::string(k)), v);
        return value(nullptr);
    }
    if (name == "pop" || name == "setdefault") {
        for (auto it = items.begin(); it != items.end(); ++it) {
            if (equals(it->first, arg(0))) {
                value r = it->second;
                if (name == "pop") items.erase(it);
                return r;
            }
        }
        if (name == "setdefault") {
            value d = args.size() > 1 ? arg(1) : value(nullptr);
            hold_check(arg(0), &self.dict(), "dict");
            hold_check(d, &self.dict(), "dict");
            items.emplace_back(arg(0), d);
            return d;
        }
        if (args.size() > 1) return arg(1);
        raise(errc::template_value, "KeyError: " + to_repr(arg(0)));
    }
    if (name == "popitem") {
        if (items.empty()) raise(errc::template_value, "popitem(): dictionary is empty");
        value r = value::make_list({items.back().first, items.back().second}, true);
        items.pop_back();
        return r;
    }
    if (name == "clear") {
        items.clear();
        return value(nullptr);
    }
    type_error("'dict' object has no attribute " + single_quoted(name));
}

/// Calls `self.name(args)` when self has such a built-in method; returns false otherwise.
/// (`strict`: whether the environment's undefined values are strict, for format's missing fields)
inline bool call_method(render_state& st, const value& self, std::string_view name, arguments& args, value& result,
                        bool sandboxed, bool strict = false) {
    if (self.is_object()) return self.object().method(st, name, args, result);
    if (!has_method(self, name)) return false;
    if (const builtin_params* p = method_params(self, name); p && !p->any) check_arguments(*p, "method", name, args, type_name(self));
    if (self.is_string())
        result = self.is_markup() ? markup_method(self, name, args, sandboxed, strict) : str_method(self, name, args, sandboxed, strict);
    else if (self.is_sequence_like()) result = list_method(st, self, name, args, sandboxed);
    else result = dict_method(self, name, args, sandboxed);
    return true;
}

/// Calls the method of one's own `name` on `self` when there is one, `self` has no attribute or
/// key of that name, and the method accepts `self`; returns false otherwise. (Defined with the
/// renderer, which runs C++ callbacks.)
inline bool call_user_method(render_state& st, const value& self, std::string_view name, const arguments& args,
                             value& result, const method_table* user);

}  // namespace parley::jinja::detail

#endif
