// parley/jinja/detail/methods/access.hpp: attribute and item access as Jinja2 reads them (getattr,
// getitem), the tables of the built-in methods of str, list and dict with their parameters, bound
// methods.
#ifndef PARLEY_JINJA_DETAIL_METHODS_ACCESS_HPP
#define PARLEY_JINJA_DETAIL_METHODS_ACCESS_HPP

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

}  // namespace parley::jinja::detail

#endif
