// parley/jinja/detail/methods/str.hpp: the methods of str and of MarkupSafe's Markup.
#ifndef PARLEY_JINJA_DETAIL_METHODS_STR_HPP
#define PARLEY_JINJA_DETAIL_METHODS_STR_HPP

#include <parley/jinja/detail/methods/format.hpp>

namespace parley::jinja::detail {

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

}  // namespace parley::jinja::detail

#endif
