// parley/jinja/detail/ops/subscript.hpp: Python's subscription and slicing of template values.
#ifndef PARLEY_JINJA_DETAIL_OPS_SUBSCRIPT_HPP
#define PARLEY_JINJA_DETAIL_OPS_SUBSCRIPT_HPP

#include <parley/jinja/detail/ops/arithmetic.hpp>

namespace parley::jinja::detail {

// ---- subscription -------------------------------------------------------------------------------

/// Python slice bounds for a sequence of length n.
inline void slice_indices(std::int64_t n, const value& start, const value& stop, const value& step, std::int64_t& b,
                          std::int64_t& e, std::int64_t& st) {
    auto as_index = [](const value& v) -> std::int64_t {
        if (v.is_integer() || v.is_bool()) return v.as_integer();
        if (v.is_big_integer())  // clamped, as Python clamps a slice's bounds
            return v.big_integer().negative() ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
        type_error("slice indices must be integers or None or have an __index__ method");  // (an undefined one too)
    };
    st = step.is_none() ? 1 : as_index(step);
    if (st == std::numeric_limits<std::int64_t>::min()) st = -std::numeric_limits<std::int64_t>::max();
    if (st == 0) raise(errc::template_value, "slice step cannot be zero");
    const std::int64_t lo = st < 0 ? -1 : 0, hi = st < 0 ? n - 1 : n;
    auto clamp = [&](const value& v, std::int64_t def) {
        if (v.is_none()) return def;
        std::int64_t i = as_index(v);
        if (i < 0) {
            i += n;
            if (i < lo) i = lo;
        } else if (i > hi) {
            i = hi;
        }
        return i;
    };
    b = clamp(start, st < 0 ? hi : lo);
    e = clamp(stop, st < 0 ? lo : hi);
}

/// The positions of a slice, in order: count of them, the k-th at first + k * step.
struct slice_range {
    std::int64_t first = 0, step = 1;
    std::size_t count = 0;
    std::size_t operator[](std::size_t k) const noexcept {
        return static_cast<std::size_t>(first + static_cast<std::int64_t>(k) * step);
    }
};
inline slice_range slice_positions(std::int64_t n, const value& start, const value& stop, const value& step) {
    std::int64_t b, e, st;
    slice_indices(n, start, stop, step, b, e, st);
    // (the stride as unsigned: -st of the most negative step would overflow)
    const std::uint64_t stride = st < 0 ? 0 - static_cast<std::uint64_t>(st) : static_cast<std::uint64_t>(st);
    const std::int64_t span = st > 0 ? e - b : b - e;  // both ends within [-1, n]
    const std::size_t count = span > 0 ? static_cast<std::size_t>((static_cast<std::uint64_t>(span) - 1) / stride + 1) : 0;
    return {b, st, count};
}

/// v[start:stop:step] for strings (by code point) and sequences.
inline value slice(const value& v, const value& start, const value& stop, const value& step) {
    if (v.is_undefined()) fail_undefined(v);
    if (v.is_string()) {
        const std::string_view s = v.as_string();
        const bool ascii = is_ascii(s);
        const std::int64_t n = static_cast<std::int64_t>(ascii ? s.size() : utf8_length(s));
        std::int64_t b, e, st;
        slice_indices(n, start, stop, step, b, e, st);
        if (st == 1) {
            if (e <= b) return v.substr(0, 0);
            const std::size_t bo = ascii ? static_cast<std::size_t>(b) : utf8_offset(s, static_cast<std::size_t>(b));
            const std::size_t eo = ascii ? static_cast<std::size_t>(e) : utf8_offset(s, static_cast<std::size_t>(e));
            return v.substr(bo, eo - bo);
        }
        // general step: collect code points
        std::vector<std::pair<std::size_t, std::size_t>> cps;  // (offset, length)
        for (std::size_t i = 0; i < s.size();) {
            const std::size_t o = i;
            utf8_decode(s, i);
            cps.emplace_back(o, i - o);
        }
        std::string r;
        const slice_range at = slice_positions(static_cast<std::int64_t>(cps.size()), start, stop, step);
        for (std::size_t k = 0; k < at.count; ++k) r.append(s.substr(cps[at[k]].first, cps[at[k]].second));
        return v.is_markup() ? value::markup(std::move(r)) : value(std::move(r));
    }
    if (v.is_sequence_like() && sequence_type(v) != seq_type::other) {
        sequence items(v);
        const slice_range at = slice_positions(static_cast<std::int64_t>(items.size()), start, stop, step);
        std::vector<value> r;
        r.reserve(at.count);
        for (std::size_t k = 0; k < at.count; ++k) r.push_back(items[at[k]]);
        return value::make_list(std::move(r), v.is_list() && v.list().tuple);
    }
    type_error(std::string("'") + type_name(v) + "' object is not subscriptable");
}

/// v[key] for an integer or string key. Returns undefined (with a reason) when missing;
/// `found` tells whether the item existed.
inline value getitem_plain(const value& v, const value& key, bool& found) {
    found = true;
    if (v.is_mapping_like()) {
        value out;
        if (mapping_find(v, key, out)) return out;
        found = false;
        return {};
    }
    if (sequence_type(v) == seq_type::other) {  // Python's TypeError, which Jinja2 turns into an undefined
        found = false;
        return {};
    }
    if (v.is_sequence_like() || v.is_string()) {
        if (!key.is_integer() && !key.is_bool()) {
            found = false;
            return {};
        }
        std::int64_t i = key.as_integer();
        if (v.is_string()) {
            const std::string_view s = v.as_string();
            const bool ascii = is_ascii(s);
            const std::int64_t n = static_cast<std::int64_t>(ascii ? s.size() : utf8_length(s));
            if (i < 0) i += n;
            if (i < 0 || i >= n) {
                found = false;
                return {};
            }
            if (ascii) return v.substr(static_cast<std::size_t>(i), 1);
            const std::size_t b = utf8_offset(s, static_cast<std::size_t>(i));
            std::size_t e = b;
            utf8_decode(s, e);
            return v.substr(b, e - b);
        }
        const std::int64_t n = static_cast<std::int64_t>(length(v));
        if (i < 0) i += n;
        if (i < 0 || i >= n) {
            found = false;
            return {};
        }
        if (v.is_list()) return v.list().items[static_cast<std::size_t>(i)];
        return v.view_adapter()->at(v.view_object(), static_cast<std::size_t>(i));
    }
    if (v.is_object()) {
        value r = v.object().getitem(key);
        found = r.is_defined();
        return r;
    }
    found = false;
    return {};
}

}  // namespace parley::jinja::detail

#endif
