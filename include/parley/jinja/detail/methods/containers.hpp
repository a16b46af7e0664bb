// parley/jinja/detail/methods/containers.hpp: the methods of list, tuple and dict, and the call of
// a built-in method by name.
#ifndef PARLEY_JINJA_DETAIL_METHODS_CONTAINERS_HPP
#define PARLEY_JINJA_DETAIL_METHODS_CONTAINERS_HPP

#include <parley/jinja/detail/methods/str.hpp>

namespace parley::jinja::detail {

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
