// parley/jinja/detail/py/split.hpp: str's stripping, splitting, searching (code point indexes,
// slice semantics), replacing and padding.
// Part of the Python 3.11 str algorithms of parley/jinja/detail/pystr.hpp.
#ifndef PARLEY_JINJA_DETAIL_PY_SPLIT_HPP
#define PARLEY_JINJA_DETAIL_PY_SPLIT_HPP

#include <parley/jinja/detail/py/repr.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parley::jinja::detail {

// =============================================================================================
// Stripping and splitting

/// str.strip/lstrip/rstrip: chars is the set of code points to remove (UTF-8), or nullopt
/// for whitespace; left/right choose the ends.
inline std::string_view py_strip(std::string_view s, std::optional<std::string_view> chars, bool left,
                                 bool right) {
    using namespace pystr_impl;
    std::size_t b = 0;
    std::size_t e = s.size();
    if (!chars) {
        if (left) {
            while (b < e) {
                const unit u = decode_unit(s, b);
                if (!u.valid || !is_space(u.cp)) break;
                b += u.len;
            }
        }
        if (right) {
            while (e > b) {
                const std::size_t q = prev_unit_start(s, e);
                const unit u = decode_unit(s, q);
                if (!u.valid || !is_space(u.cp)) break;
                e = q;
            }
        }
        return s.substr(b, e - b);
    }
    const unit_set set(*chars);
    if (left) {
        while (b < e) {
            const std::size_t n = decode_unit(s, b).len;
            if (!set.contains(s, b, n)) break;
            b += n;
        }
    }
    if (right) {
        while (e > b) {
            const std::size_t q = prev_unit_start(s, e);
            if (!set.contains(s, q, e - q)) break;
            e = q;
        }
    }
    return s.substr(b, e - b);
}

/// str.split(sep, maxsplit); maxsplit < 0 means no limit. Throws std::invalid_argument
/// ("empty separator") when sep is empty.
inline std::vector<std::string_view> py_split(std::string_view s, std::optional<std::string_view> sep,
                                              long maxsplit) {
    using namespace pystr_impl;
    std::vector<std::string_view> parts;
    long remaining = maxsplit < 0 ? std::numeric_limits<long>::max() : maxsplit;
    if (sep) {
        if (sep->empty()) throw std::invalid_argument("empty separator");
        const bool valid = is_valid_utf8(*sep);
        std::size_t i = 0;
        while (remaining-- > 0) {
            const std::size_t p = find_units(s, *sep, i, valid);
            if (p == std::string_view::npos) break;
            parts.push_back(s.substr(i, p - i));
            i = p + sep->size();
        }
        parts.push_back(s.substr(i));
        return parts;
    }
    auto space_at = [&](std::size_t i, std::size_t& len) {
        if (bytes(s)[i] < 0x80) {
            len = 1;
            return (latin1_flags[bytes(s)[i]] & tables::flag_space) != 0;
        }
        const unit u = decode_unit(s, i);
        len = u.len;
        return u.valid && is_space(u.cp);
    };
    std::size_t i = 0;
    std::size_t len = 0;
    const std::size_t n = s.size();
    while (remaining-- > 0) {
        while (i < n && space_at(i, len)) i += len;
        if (i == n) break;
        const std::size_t j = i;
        while (i < n && !space_at(i, len)) i += len;
        parts.push_back(s.substr(j, i - j));
    }
    if (i < n) {
        while (i < n && space_at(i, len)) i += len;
        if (i != n) parts.push_back(s.substr(i));
    }
    return parts;
}

/// str.rsplit(sep, maxsplit); maxsplit < 0 means no limit. Throws std::invalid_argument
/// ("empty separator") when sep is empty.
inline std::vector<std::string_view> py_rsplit(std::string_view s, std::optional<std::string_view> sep,
                                               long maxsplit) {
    using namespace pystr_impl;
    std::vector<std::string_view> parts;
    long remaining = maxsplit < 0 ? std::numeric_limits<long>::max() : maxsplit;
    if (sep) {
        if (sep->empty()) throw std::invalid_argument("empty separator");
        const bool valid = is_valid_utf8(*sep);
        std::size_t j = s.size();
        while (remaining-- > 0) {
            const std::size_t p = rfind_units(s.substr(0, j), *sep, valid);
            if (p == std::string_view::npos) break;
            parts.push_back(s.substr(p + sep->size(), j - p - sep->size()));
            j = p;
        }
        parts.push_back(s.substr(0, j));
        std::reverse(parts.begin(), parts.end());
        return parts;
    }
    // Walk units backwards; e is the end of the part being looked at.
    auto space_before = [&](std::size_t e, std::size_t& start) {
        start = prev_unit_start(s, e);
        const unit u = decode_unit(s, start);
        return u.valid && is_space(u.cp);
    };
    std::size_t e = s.size();
    std::size_t q = 0;
    while (remaining-- > 0) {
        while (e > 0 && space_before(e, q)) e = q;
        if (e == 0) break;
        const std::size_t j = e;
        while (e > 0 && !space_before(e, q)) e = q;
        parts.push_back(s.substr(e, j - e));
    }
    if (e > 0) {
        while (e > 0 && space_before(e, q)) e = q;
        if (e > 0) parts.push_back(s.substr(0, e));
    }
    std::reverse(parts.begin(), parts.end());
    return parts;
}

/// str.splitlines(keepends): breaks at \n, \r, \r\n, \v, \f, \x1c-\x1e, \x85, U+2028, U+2029.
inline std::vector<std::string_view> py_splitlines(std::string_view s, bool keepends) {
    std::vector<std::string_view> lines;
    const unsigned char* d = pystr_impl::bytes(s);
    const std::size_t n = s.size();
    std::size_t i = 0;
    while (i < n) {
        const std::size_t j = i;
        std::size_t brk = 0;  // length of the line break found at i
        for (; i < n; ++i) {
            const unsigned char b = d[i];
            if (b == '\n' || b == '\r' || b == 0x0B || b == 0x0C || (b >= 0x1C && b <= 0x1E)) {
                brk = (b == '\r' && i + 1 < n && d[i + 1] == '\n') ? 2 : 1;
                break;
            }
            if (b == 0xC2 && i + 1 < n && d[i + 1] == 0x85) {
                brk = 2;
                break;
            }
            if (b == 0xE2 && i + 2 < n && d[i + 1] == 0x80 && (d[i + 2] == 0xA8 || d[i + 2] == 0xA9)) {
                brk = 3;
                break;
            }
        }
        const std::size_t eol = i;
        i += brk;
        lines.push_back(s.substr(j, (keepends ? i : eol) - j));
    }
    return lines;
}

// =============================================================================================
// Searching (code point indexes, Python slice semantics for start/end)

namespace pystr_impl {
/// Resolves s[start:end] to byte offsets; returns false when the slice is shorter than sub_len.
struct slice {
    std::string_view text;  // the slice itself
    long start;             // code point index of its start
    long end;               // code point index of its end
    bool ascii;
};

inline bool resolve_slice(std::string_view s, std::optional<long> start, std::optional<long> end,
                          long sub_len, slice& out) {
    const bool ascii = is_ascii(s);
    const long len = static_cast<long>(ascii ? s.size() : utf8_length(s));
    long b = start.value_or(0);
    long e = end.value_or(len);
    adjust_indices(b, e, len);
    if (e - b < sub_len) return false;
    std::size_t bb;
    std::size_t eb;
    if (ascii) {
        bb = static_cast<std::size_t>(b);
        eb = static_cast<std::size_t>(e);
    } else {
        bb = utf8_offset(s, static_cast<std::size_t>(b));
        eb = bb + utf8_offset(s.substr(bb), static_cast<std::size_t>(e - b));
    }
    out = {s.substr(bb, eb - bb), b, e, ascii};
    return true;
}

inline long cp_index(const slice& sl, std::size_t byte_pos) {
    return sl.start + static_cast<long>(sl.ascii ? byte_pos : utf8_length(sl.text.substr(0, byte_pos)));
}
} // namespace pystr_impl

/// str.find(sub, start, end): code point index of the first match, or -1.
inline long py_find(std::string_view s, std::string_view sub, std::optional<long> start, std::optional<long> end) {
    using namespace pystr_impl;
    slice sl;
    if (!resolve_slice(s, start, end, static_cast<long>(utf8_length(sub)), sl)) return -1;
    if (sub.empty()) return sl.start;
    const std::size_t p = find_units(sl.text, sub, 0, is_valid_utf8(sub));
    return p == std::string_view::npos ? -1 : cp_index(sl, p);
}

/// str.rfind(sub, start, end): code point index of the last match, or -1.
inline long py_rfind(std::string_view s, std::string_view sub, std::optional<long> start,
                     std::optional<long> end) {
    using namespace pystr_impl;
    slice sl;
    if (!resolve_slice(s, start, end, static_cast<long>(utf8_length(sub)), sl)) return -1;
    if (sub.empty()) return sl.end;
    const std::size_t p = rfind_units(sl.text, sub, is_valid_utf8(sub));
    return p == std::string_view::npos ? -1 : cp_index(sl, p);
}

/// str.count(sub, start, end): non-overlapping matches.
inline long py_count(std::string_view s, std::string_view sub, std::optional<long> start,
                     std::optional<long> end) {
    using namespace pystr_impl;
    slice sl;
    if (!resolve_slice(s, start, end, static_cast<long>(utf8_length(sub)), sl)) return 0;
    if (sub.empty()) return sl.end - sl.start + 1;
    const bool valid = is_valid_utf8(sub);
    long count = 0;
    for (std::size_t p = 0; (p = find_units(sl.text, sub, p, valid)) != std::string_view::npos; p += sub.size())
        ++count;
    return count;
}

/// str.replace(old, repl, count); count < 0 replaces all. An empty old inserts repl before
/// every code point and at the end (at most count times).
inline void py_replace(std::string& out, std::string_view s, std::string_view old, std::string_view repl,
                       long count) {
    using namespace pystr_impl;
    if (count < 0) count = std::numeric_limits<long>::max();
    out.reserve(out.size() + s.size());
    if (old.empty()) {
        std::size_t i = 0;
        while (count > 0 && i < s.size()) {
            out += repl;
            const std::size_t n = decode_unit(s, i).len;
            out.append(s.data() + i, n);
            i += n;
            --count;
        }
        if (count > 0) out += repl;
        out.append(s.data() + i, s.size() - i);
        return;
    }
    const bool valid = is_valid_utf8(old);
    std::size_t i = 0;
    while (count-- > 0) {
        const std::size_t p = find_units(s, old, i, valid);
        if (p == std::string_view::npos) break;
        out.append(s.data() + i, p - i);
        out += repl;
        i = p + old.size();
    }
    out.append(s.data() + i, s.size() - i);
}

// =============================================================================================
// Padding

/// str.center(width, fill), with CPython's placement of the odd fill character.
inline void py_center(std::string& out, std::string_view s, long width, char32_t fill) {
    const long len = static_cast<long>(utf8_length(s));
    if (len >= width) {
        out += s;
        return;
    }
    const long marg = width - len;
    const long left = marg / 2 + (marg & width & 1);
    pystr_impl::append_repeated(out, fill, left);
    out += s;
    pystr_impl::append_repeated(out, fill, marg - left);
}

/// str.ljust(width, fill).
inline void py_ljust(std::string& out, std::string_view s, long width, char32_t fill) {
    const long len = static_cast<long>(utf8_length(s));
    out += s;
    if (len < width) pystr_impl::append_repeated(out, fill, width - len);
}

/// str.rjust(width, fill).
inline void py_rjust(std::string& out, std::string_view s, long width, char32_t fill) {
    const long len = static_cast<long>(utf8_length(s));
    if (len < width) pystr_impl::append_repeated(out, fill, width - len);
    out += s;
}

/// str.zfill(width): zeros on the left, after a leading '+' or '-'.
/// Python's str.expandtabs(tabsize), piece by piece: `emit(n, c)` for n copies of c. A tab
/// becomes the spaces up to the next multiple of `tabsize` columns (code points counted from the
/// last line break, '\n' or '\r'); a tabsize of 0 or less removes tabs.
template <class Emit>
void expandtabs_walk(std::string_view s, long tabsize, Emit&& emit) {
    std::uint64_t column = 0;
    for (const char c : s) {
        if (c == '\t') {
            if (tabsize <= 0) continue;
            const std::uint64_t pad = static_cast<std::uint64_t>(tabsize) - column % static_cast<std::uint64_t>(tabsize);
            column += pad;
            emit(pad, ' ');
            continue;
        }
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++column;  // a code point's first byte
        if (c == '\n' || c == '\r') column = 0;
        emit(std::uint64_t{1}, c);
    }
}
/// The length in bytes of s.expandtabs(tabsize), without building it.
inline std::uint64_t py_expandtabs_size(std::string_view s, long tabsize) {
    std::uint64_t size = 0;
    expandtabs_walk(s, tabsize, [&](std::uint64_t n, char) { size += n; });
    return size;
}
inline void py_expandtabs(std::string& out, std::string_view s, long tabsize) {
    out.reserve(out.size() + static_cast<std::size_t>(py_expandtabs_size(s, tabsize)));
    expandtabs_walk(s, tabsize, [&](std::uint64_t n, char c) { out.append(static_cast<std::size_t>(n), c); });
}

inline void py_zfill(std::string& out, std::string_view s, long width) {
    const long len = static_cast<long>(utf8_length(s));
    if (len >= width) {
        out += s;
        return;
    }
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
        out += s[0];
        s.remove_prefix(1);
    }
    out.append(static_cast<std::size_t>(width - len), '0');
    out += s;
}

} // namespace parley::jinja::detail

#endif
