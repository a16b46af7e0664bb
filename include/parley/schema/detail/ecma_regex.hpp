// parley/schema/detail/ecma_regex.hpp: the patterns of JSON Schema (`pattern`,
// `patternProperties`), a subset of ECMA-262 regular expressions compiled to an NFA and searched
// by following every state at once (Thompson's construction, Pike's simulation): the work is
// linear in the text times the pattern's size, whatever the pattern, with no backtracking.
//
// Supported: literals, `.`, classes `[...]` and `[^...]` with ranges, `\d \D \w \W \s \S`,
// `\t \n \v \f \r \0 \xHH \uHHHH` (surrogate pairs joined), identity escapes of characters that
// are not letters or digits, `^` and `$` (of the whole text: no multiline flag), `\b \B`, groups
// `(...)`, `(?:...)`, `(?<name>...)`, alternation, and the quantifiers `* + ? {n} {n,} {n,m}`
// (greedy or lazy, which a search for any match does not tell apart). Refused with an error that
// names the construct: backreferences, lookahead and lookbehind, `\p{...}`, `\cX`, octal escapes,
// `\u{...}`, inline flags and other `(?` forms, empty classes, and a `{` that does not begin a
// quantifier (engines read those differently). Text and pattern are matched as code points.
#ifndef PARLEY_SCHEMA_DETAIL_ECMA_REGEX_HPP
#define PARLEY_SCHEMA_DETAIL_ECMA_REGEX_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::detail::ecma_regex {

/// A pattern the engine refuses: the message names the construct and its offset.
class pattern_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// The next code point of UTF-8 text at `i` (advanced); a byte that does not begin a valid
/// sequence is read as itself plus 0xDC00 (it then matches only classes that hold it).
inline char32_t next_code_point(std::string_view s, std::size_t& i, bool* valid = nullptr) {
    const auto b = static_cast<unsigned char>(s[i]);
    auto cont = [&](std::size_t k) { return i + k < s.size() && (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80; };
    auto at = [&](std::size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(s[i + k]) & 0x3F); };
    if (b < 0x80) {
        ++i;
        return b;
    }
    char32_t c = 0;
    std::size_t n = 0;
    if (b >= 0xC2 && b <= 0xDF && cont(1)) {
        c = (static_cast<char32_t>(b & 0x1F) << 6) | at(1);
        n = 2;
    } else if (b >= 0xE0 && b <= 0xEF && cont(1) && cont(2)) {
        c = (static_cast<char32_t>(b & 0x0F) << 12) | (at(1) << 6) | at(2);
        n = (c >= 0x800 && (c < 0xD800 || c > 0xDFFF)) ? 3 : 0;
    } else if (b >= 0xF0 && b <= 0xF4 && cont(1) && cont(2) && cont(3)) {
        c = (static_cast<char32_t>(b & 0x07) << 18) | (at(1) << 12) | (at(2) << 6) | at(3);
        n = (c >= 0x10000 && c <= 0x10FFFF) ? 4 : 0;
    }
    if (n == 0) {
        if (valid) *valid = false;
        ++i;
        return 0xDC00 + b;
    }
    i += n;
    return c;
}

struct char_range {
    char32_t lo;
    char32_t hi;
};

/// A set of code points: sorted, disjoint ranges, and whether the set is their complement.
struct char_set {
    std::vector<char_range> ranges;
    bool negated = false;

    bool contains(char32_t c) const noexcept {
        auto it = std::upper_bound(ranges.begin(), ranges.end(), c, [](char32_t x, const char_range& r) { return x < r.lo; });
        const bool in = it != ranges.begin() && c <= std::prev(it)->hi;
        return in != negated;
    }

    void add(char32_t lo, char32_t hi) { ranges.push_back({lo, hi}); }

    /// Sorts and merges the ranges.
    void normalize() {
        std::sort(ranges.begin(), ranges.end(), [](const char_range& a, const char_range& b) { return a.lo < b.lo; });
        std::vector<char_range> merged;
        for (const char_range& r : ranges) {
            if (!merged.empty() && r.lo <= merged.back().hi + 1) merged.back().hi = std::max(merged.back().hi, r.hi);
            else merged.push_back(r);
        }
        ranges = std::move(merged);
    }
};

/// The ranges of the complement of sorted, disjoint ranges (over every code point).
inline std::vector<char_range> complement(const std::vector<char_range>& in) {
    std::vector<char_range> out;
    char32_t next = 0;
    for (const char_range& r : in) {
        if (r.lo > next) out.push_back({next, r.lo - 1});
        next = r.hi + 1;
    }
    if (next <= 0x10FFFF) out.push_back({next, 0x10FFFF});
    return out;
}

/// ECMA-262's `\d`, `\w` and `\s` (WhiteSpace and LineTerminator), as sorted ranges.
inline std::vector<char_range> class_escape_ranges(char32_t letter) {
    switch (letter) {
    case 'd': return {{'0', '9'}};
    case 'w': return {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
    default:
        return {{0x09, 0x0D}, {0x20, 0x20}, {0xA0, 0xA0}, {0x1680, 0x1680}, {0x2000, 0x200A}, {0x2028, 0x2029},
                {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000}, {0xFEFF, 0xFEFF}};
    }
}

inline bool is_word(char32_t c) noexcept {
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

inline bool is_line_terminator(char32_t c) noexcept { return c == '\n' || c == '\r' || c == 0x2028 || c == 0x2029; }

/// The instructions of the NFA.
enum class op : std::uint8_t {
    set,  ///< consumes a code point of sets[a]
    any,  ///< consumes a code point that is not a line terminator
    split,  ///< goes on at a and at b
    jump,  ///< goes on at a
    text_start,  ///< `^`
    text_end,  ///< `$`
    word_boundary,  ///< `\b`
    not_word_boundary,  ///< `\B`
    match,
};

struct instruction {
    op code = op::match;
    std::uint32_t a = 0;
    std::uint32_t b = 0;
};

/// The parsed pattern.
struct node {
    enum class kind : std::uint8_t { empty, set, any, text_start, text_end, word_boundary, not_word_boundary, concat, alternation, repeat };
    kind k = kind::empty;
    std::uint32_t set = 0;
    std::uint32_t min = 0;
    std::uint32_t max = 0;  ///< unbounded when `unbounded` is set
    bool unbounded = false;
    std::vector<node> kids;
};

/// Reads a pattern (code points) into nodes, collecting the character sets.
class parser {
public:
    parser(std::string_view source, std::vector<char_set>& sets) : source_(source), sets_(sets) {
        bool valid = true;
        for (std::size_t i = 0; i < source.size();) p_.push_back(next_code_point(source, i, &valid));
        if (!valid) fail("the pattern is not valid UTF-8", 0);
    }

    node parse() {
        node n = alternation(0);
        if (i_ < p_.size()) fail("unmatched )", i_);  // alternation stops only at ')' or the end
        return n;
    }

private:
    static constexpr std::size_t max_nesting = 100;
    static constexpr std::uint32_t max_count = 100000;

    [[noreturn]] void fail(const std::string& what, std::size_t at) const {
        throw pattern_error(what + " at offset " + std::to_string(at));
    }
    bool more() const noexcept { return i_ < p_.size(); }
    char32_t peek(std::size_t ahead = 0) const noexcept { return i_ + ahead < p_.size() ? p_[i_ + ahead] : 0xFFFFFFFF; }

    std::uint32_t add_set(char_set s) {
        s.normalize();
        sets_.push_back(std::move(s));
        return static_cast<std::uint32_t>(sets_.size() - 1);
    }
    node literal(char32_t c) {
        char_set s;
        s.add(c, c);
        node n;
        n.k = node::kind::set;
        n.set = add_set(std::move(s));
        return n;
    }
    node escape_set(char32_t letter) {
        char_set s;
        const char32_t lower = letter | 0x20;
        s.ranges = class_escape_ranges(lower);
        s.negated = letter != lower;
        node n;
        n.k = node::kind::set;
        n.set = add_set(std::move(s));
        return n;
    }

    node alternation(std::size_t depth) {
        if (depth > max_nesting) fail("groups nested deeper than " + std::to_string(max_nesting), i_);
        node first = sequence(depth);
        if (!more() || peek() != '|') return first;
        node alt;
        alt.k = node::kind::alternation;
        alt.kids.push_back(std::move(first));
        while (more() && peek() == '|') {
            ++i_;
            alt.kids.push_back(sequence(depth));
        }
        return alt;
    }

    node sequence(std::size_t depth) {
        node seq;
        seq.k = node::kind::concat;
        while (more() && peek() != '|' && peek() != ')') {
            const std::size_t start = i_;
            node a = atom(depth);
            const bool assertion = a.k == node::kind::text_start || a.k == node::kind::text_end ||
                                   a.k == node::kind::word_boundary || a.k == node::kind::not_word_boundary;
            std::uint32_t min = 0, max = 0;
            bool unbounded = false;
            if (quantifier(min, max, unbounded)) {
                if (assertion) fail("an assertion (^, $, \\b, \\B) cannot be repeated", start);
                if (more() && peek() == '?') ++i_;  // lazy: the same set of matches
                std::uint32_t m2 = 0, x2 = 0;
                bool u2 = false;
                const std::size_t at = i_;
                if (quantifier(m2, x2, u2)) fail("nothing to repeat (a quantifier after a quantifier)", at);
                node r;
                r.k = node::kind::repeat;
                r.min = min;
                r.max = max;
                r.unbounded = unbounded;
                r.kids.push_back(std::move(a));
                seq.kids.push_back(std::move(r));
            } else {
                seq.kids.push_back(std::move(a));
            }
        }
        if (seq.kids.size() == 1) return std::move(seq.kids.front());
        if (seq.kids.empty()) return node{};
        return seq;
    }

    /// Reads `{n}`, `{n,}` or `{n,m}` at i_ without moving when there is none.
    bool braces(std::uint32_t& min, std::uint32_t& max, bool& unbounded) {
        std::size_t j = i_ + 1;
        auto number = [&](std::uint32_t& out) {
            const std::size_t from = j;
            std::uint64_t v = 0;
            while (j < p_.size() && p_[j] >= '0' && p_[j] <= '9') {
                v = std::min<std::uint64_t>(v * 10 + (p_[j] - '0'), std::uint64_t{1} << 40);
                ++j;
            }
            if (j == from) return false;
            if (v > max_count) fail("a repetition count above " + std::to_string(max_count), from);
            out = static_cast<std::uint32_t>(v);
            return true;
        };
        if (!number(min)) return false;
        unbounded = false;
        max = min;
        if (j < p_.size() && p_[j] == ',') {
            ++j;
            if (j < p_.size() && p_[j] == '}') unbounded = true;
            else if (!number(max)) return false;
        }
        if (j >= p_.size() || p_[j] != '}') return false;
        if (!unbounded && max < min) fail("numbers out of order in a {n,m} quantifier", i_);
        i_ = j + 1;
        return true;
    }

    bool quantifier(std::uint32_t& min, std::uint32_t& max, bool& unbounded) {
        if (!more()) return false;
        switch (peek()) {
        case '*': min = 0, unbounded = true; break;
        case '+': min = 1, unbounded = true; break;
        case '?': min = 0, max = 1, unbounded = false; break;
        case '{':
            if (braces(min, max, unbounded)) return true;
            fail("a '{' that does not begin a quantifier {n}, {n,} or {n,m} (write \\{ for the character)", i_);
        default: return false;
        }
        ++i_;
        return true;
    }

    node atom(std::size_t depth) {
        const std::size_t start = i_;
        const char32_t c = p_[i_++];
        switch (c) {
        case '(': return group(depth, start);
        case '[': return char_class(start);
        case '.': {
            node n;
            n.k = node::kind::any;
            return n;
        }
        case '^': {
            node n;
            n.k = node::kind::text_start;
            return n;
        }
        case '$': {
            node n;
            n.k = node::kind::text_end;
            return n;
        }
        case '\\': return escape(start);
        case '*':
        case '+':
        case '?': fail("nothing to repeat", start);
        case '{': {
            --i_;
            std::uint32_t a = 0, b = 0;
            bool u = false;
            if (braces(a, b, u)) fail("nothing to repeat", start);
            fail("a '{' that does not begin a quantifier {n}, {n,} or {n,m} (write \\{ for the character)", start);
        }
        default: return literal(c);
        }
    }

    node group(std::size_t depth, std::size_t start) {
        if (more() && peek() == '?') {
            const char32_t k = peek(1);
            if (k == ':') {
                i_ += 2;
            } else if (k == '=' || k == '!') {
                fail(std::string("lookahead (?") + static_cast<char>(k) + "...) is not supported", start);
            } else if (k == '<' && (peek(2) == '=' || peek(2) == '!')) {
                fail(std::string("lookbehind (?<") + static_cast<char>(peek(2)) + "...) is not supported", start);
            } else if (k == '<') {
                std::size_t j = i_ + 2;
                auto name_char = [](char32_t ch, bool first) {
                    return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch == '_' || ch == '$' || (!first && ch >= '0' && ch <= '9');
                };
                while (j < p_.size() && name_char(p_[j], j == i_ + 2)) ++j;
                if (j == i_ + 2 || j >= p_.size() || p_[j] != '>') fail("a group name (?<name>...) that is not an identifier", start);
                i_ = j + 1;
            } else {
                fail("\"(?\" not followed by \":\" or \"<name>\": inline flags, comments and other engines' group syntax are "
                     "not ECMA-262 patterns",
                     start);
            }
        }
        node group;  // a concatenation of one: a group of an assertion may be repeated
        group.k = node::kind::concat;
        group.kids.push_back(alternation(depth + 1));
        if (!more() || peek() != ')') fail("missing ) of the group that begins", start);
        ++i_;
        return group;
    }

    /// A hexadecimal number of exactly `digits` digits at i_.
    char32_t hex(std::size_t digits, std::size_t start, const char* what) {
        char32_t v = 0;
        for (std::size_t k = 0; k < digits; ++k) {
            const char32_t h = peek();
            int d = -1;
            if (h >= '0' && h <= '9') d = static_cast<int>(h - '0');
            else if (h >= 'a' && h <= 'f') d = static_cast<int>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') d = static_cast<int>(h - 'A' + 10);
            if (d < 0) fail(what, start);
            v = v * 16 + static_cast<char32_t>(d);
            ++i_;
        }
        return v;
    }

    /// The character of an escape that stands for one character (after the backslash and its
    /// letter), or a failure naming what is not supported. `in_class`: inside [...].
    char32_t escaped_char(char32_t e, std::size_t start, bool in_class) {
        switch (e) {
        case 't': return '\t';
        case 'n': return '\n';
        case 'v': return 0x0B;
        case 'f': return 0x0C;
        case 'r': return '\r';
        case '0':
            if (more() && peek() >= '0' && peek() <= '9') fail("octal escapes (\\0N) are not supported", start);
            return 0;
        case 'x': return hex(2, start, "\\x takes two hexadecimal digits");
        case 'u': {
            if (more() && peek() == '{') fail("\\u{...} (an escape of the u flag) is not supported: write \\uHHHH", start);
            char32_t v = hex(4, start, "\\u takes four hexadecimal digits");
            if (v >= 0xD800 && v <= 0xDBFF && peek() == '\\' && peek(1) == 'u') {
                const std::size_t save = i_;
                i_ += 2;
                const char32_t low = hex(4, start, "\\u takes four hexadecimal digits");
                if (low >= 0xDC00 && low <= 0xDFFF) return 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00);
                i_ = save;
            }
            return v;
        }
        case 'b':
            if (in_class) return 0x08;
            break;
        case '-':
            return '-';
        default: break;
        }
        if (e >= '1' && e <= '9')
            fail(in_class ? "octal escapes (\\N) are not supported" : "backreferences (\\N) are not supported", start);
        if (e == 'c') fail("control escapes (\\cX) are not supported", start);
        if (e == 'k') fail("named backreferences (\\k<name>) are not supported", start);
        if (e == 'p' || e == 'P') fail("Unicode property escapes (\\p{...}) are not supported", start);
        if ((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9'))
            fail(std::string("unknown escape \\") + static_cast<char>(e), start);
        return e;  // an identity escape: \. \* \\ \/ ...
    }

    node escape(std::size_t start) {
        if (!more()) fail("the pattern ends with a lone backslash", start);
        const char32_t e = p_[i_++];
        switch (e) {
        case 'd':
        case 'D':
        case 'w':
        case 'W':
        case 's':
        case 'S': return escape_set(e);
        case 'b': {
            node n;
            n.k = node::kind::word_boundary;
            return n;
        }
        case 'B': {
            node n;
            n.k = node::kind::not_word_boundary;
            return n;
        }
        default: return literal(escaped_char(e, start, false));
        }
    }

    /// One member of a class: a character (true) or a class escape added to `s` (false).
    bool class_atom(char_set& s, char32_t& c, std::size_t start) {
        c = p_[i_++];
        if (c != '\\') return true;
        if (!more()) fail("the pattern ends with a lone backslash", start);
        const char32_t e = p_[i_++];
        if (e == 'd' || e == 'D' || e == 'w' || e == 'W' || e == 's' || e == 'S') {
            const char32_t lower = e | 0x20;
            std::vector<char_range> r = class_escape_ranges(lower);
            if (e != lower) r = complement(r);
            for (const char_range& x : r) s.add(x.lo, x.hi);
            return false;
        }
        if (e == 'B') fail("\\B inside a class is not supported", start);
        c = escaped_char(e, start, true);
        return true;
    }

    node char_class(std::size_t start) {
        char_set s;
        if (more() && peek() == '^') {
            s.negated = true;
            ++i_;
        }
        if (more() && peek() == ']')
            fail(s.negated ? "the class [^] is not supported (other engines read it differently)"
                           : "the empty class [] is not supported (other engines read it differently)",
                 start);
        for (;;) {
            if (!more()) fail("missing ] of the class that begins", start);
            if (peek() == ']') {
                ++i_;
                break;
            }
            const std::size_t at = i_;
            char32_t lo = 0;
            const bool single = class_atom(s, lo, at);
            if (more() && peek() == '-' && peek(1) != ']' && i_ + 1 < p_.size()) {
                ++i_;
                char32_t hi = 0;
                const bool single_hi = class_atom(s, hi, at);
                if (!single || !single_hi) fail("a range in a class with a class escape (\\d, \\w, \\s...) as an end", at);
                if (hi < lo) fail("a range out of order in a class", at);
                s.add(lo, hi);
            } else if (single) {
                s.add(lo, lo);
            }
        }
        node n;
        n.k = node::kind::set;
        n.set = add_set(std::move(s));
        return n;
    }

    std::string_view source_;
    std::vector<char_set>& sets_;
    std::u32string p_;
    std::size_t i_ = 0;
};

/// A compiled pattern. `search` tells whether the pattern matches anywhere in a text.
class regex {
public:
    regex() = default;

    /// Compiles `pattern`. Throws pattern_error for what is not supported, and when the NFA
    /// would have more than `max_states` instructions.
    static regex compile(std::string_view pattern, std::size_t max_states) {
        regex r;
        parser ps(pattern, r.sets_);
        const node root = ps.parse();
        r.max_states_ = max_states;
        r.emit(root);
        r.push({op::match, 0, 0});
        return r;
    }

    /// The number of instructions.
    std::size_t size() const noexcept { return code_.size(); }

    /// Whether the pattern matches a part of `text` (UTF-8), as ECMA-262's RegExp.prototype.test.
    bool search(std::string_view text) const {
        const std::size_t n = code_.size();
        std::vector<std::uint32_t> current, next, stack;
        std::vector<std::size_t> mark(n, 0);
        std::size_t generation = 0;
        bool found = false;
        bool have_prev = false;
        char32_t prev = 0;
        std::size_t pos = 0;
        char32_t here = 0;
        bool have_here = false;
        auto read_here = [&] {
            have_here = pos < text.size();
            if (have_here) {
                std::size_t j = pos;
                here = next_code_point(text, j);
            }
        };
        auto add = [&](std::vector<std::uint32_t>& list, std::uint32_t pc) {
            stack.push_back(pc);
            while (!stack.empty()) {
                const std::uint32_t at = stack.back();
                stack.pop_back();
                if (mark[at] == generation) continue;
                mark[at] = generation;
                const instruction& in = code_[at];
                switch (in.code) {
                case op::jump: stack.push_back(in.a); break;
                case op::split:
                    stack.push_back(in.b);
                    stack.push_back(in.a);
                    break;
                case op::text_start:
                    if (!have_prev) stack.push_back(at + 1);
                    break;
                case op::text_end:
                    if (!have_here) stack.push_back(at + 1);
                    break;
                case op::word_boundary:
                case op::not_word_boundary: {
                    const bool boundary = (have_prev && is_word(prev)) != (have_here && is_word(here));
                    if (boundary == (in.code == op::word_boundary)) stack.push_back(at + 1);
                    break;
                }
                case op::match: found = true; break;
                case op::set:
                case op::any: list.push_back(at); break;
                }
            }
        };
        read_here();
        ++generation;
        add(current, 0);
        while (!found && have_here) {
            const char32_t c = here;
            std::size_t j = pos;
            next_code_point(text, j);
            pos = j;
            prev = c;
            have_prev = true;
            read_here();
            ++generation;
            next.clear();
            for (const std::uint32_t pc : current) {
                const instruction& in = code_[pc];
                const bool takes = in.code == op::any ? !is_line_terminator(c) : sets_[in.a].contains(c);
                if (takes) add(next, pc + 1);
                if (found) return true;
            }
            add(next, 0);  // a match may begin here
            current.swap(next);
        }
        return found;
    }

private:
    void push(instruction in) {
        if (code_.size() >= max_states_)
            throw pattern_error("the pattern needs more than " + std::to_string(max_states_) +
                                " states (its repetition counts are too large)");
        code_.push_back(in);
    }
    std::uint32_t here() const noexcept { return static_cast<std::uint32_t>(code_.size()); }

    void emit(const node& n) {
        switch (n.k) {
        case node::kind::empty: return;
        case node::kind::set: push({op::set, n.set, 0}); return;
        case node::kind::any: push({op::any, 0, 0}); return;
        case node::kind::text_start: push({op::text_start, 0, 0}); return;
        case node::kind::text_end: push({op::text_end, 0, 0}); return;
        case node::kind::word_boundary: push({op::word_boundary, 0, 0}); return;
        case node::kind::not_word_boundary: push({op::not_word_boundary, 0, 0}); return;
        case node::kind::concat:
            for (const node& k : n.kids) emit(k);
            return;
        case node::kind::alternation: {
            std::vector<std::uint32_t> jumps;
            for (std::size_t k = 0; k < n.kids.size(); ++k) {
                if (k + 1 < n.kids.size()) {
                    const std::uint32_t split = here();
                    push({op::split, split + 1, 0});
                    emit(n.kids[k]);
                    jumps.push_back(here());
                    push({op::jump, 0, 0});
                    code_[split].b = here();
                } else {
                    emit(n.kids[k]);
                }
            }
            for (const std::uint32_t j : jumps) code_[j].a = here();
            return;
        }
        case node::kind::repeat: {
            const node& body = n.kids.front();
            for (std::uint32_t k = 0; k < n.min; ++k) emit(body);
            if (n.unbounded) {
                const std::uint32_t loop = here();
                push({op::split, loop + 1, 0});
                emit(body);
                push({op::jump, loop, 0});
                code_[loop].b = here();
            } else {
                std::vector<std::uint32_t> splits;
                for (std::uint32_t k = n.min; k < n.max; ++k) {
                    splits.push_back(here());
                    push({op::split, here() + 1, 0});
                    emit(body);
                }
                for (const std::uint32_t s : splits) code_[s].b = here();
            }
            return;
        }
        }
    }

    std::vector<instruction> code_;
    std::vector<char_set> sets_;
    std::size_t max_states_ = 0;
};

}  // namespace parley::detail::ecma_regex

#endif
