// parley/chat/detail/yaml_scalar.hpp: positions in a YAML text, and where each byte of a scalar's
// value comes from in the text (for placing the errors of a template written in a scalar).
#ifndef PARLEY_CHAT_DETAIL_YAML_SCALAR_HPP
#define PARLEY_CHAT_DETAIL_YAML_SCALAR_HPP

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parley::detail {

/// A line and column (both from 1, the column in code points) and the text of that line.
struct yaml_position {
    std::uint32_t line = 1;
    std::uint32_t column = 1;
    std::string_view line_text;
};

/// Length of the line break at `i` (`\r\n` is 2, `\n` and `\r` are 1), 0 when there is none.
constexpr std::size_t yaml_break_at(std::string_view s, std::size_t i) noexcept {
    if (i >= s.size()) return 0;
    if (s[i] == '\n') return 1;
    if (s[i] == '\r') return i + 1 < s.size() && s[i + 1] == '\n' ? 2 : 1;
    return 0;
}

/// The position of byte `offset` of `text` (line breaks as YAML counts them: LF, CRLF, CR).
inline yaml_position yaml_position_at(std::string_view text, std::size_t offset) {
    if (offset > text.size()) offset = text.size();
    yaml_position p;
    std::size_t start = 0;
    for (std::size_t i = 0; i < offset;) {
        if (const std::size_t b = yaml_break_at(text, i)) {
            i += b;
            if (i <= offset) {
                ++p.line;
                start = i;
            }
        } else {
            ++i;
        }
    }
    std::uint32_t column = 1;
    for (std::size_t i = start; i < offset; ++i)
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++column;
    p.column = column;
    std::size_t end = start;
    while (end < text.size() && text[end] != '\n' && text[end] != '\r') ++end;
    p.line_text = text.substr(start, end - start);
    return p;
}

/// The offset in `value` of line `line`, column `column` (from 1, code points), as the prompt
/// language counts them (LF, CRLF and CR end a line). Clamped to the end of that line.
inline std::size_t offset_in_text(std::string_view value, std::uint32_t line, std::uint32_t column) {
    std::size_t i = 0;
    for (std::uint32_t l = 1; l < line && i < value.size();) {
        if (const std::size_t b = yaml_break_at(value, i)) {
            i += b;
            ++l;
        } else {
            ++i;
        }
    }
    for (std::uint32_t c = 1; c < column && i < value.size() && !yaml_break_at(value, i); ++c) {
        ++i;
        while (i < value.size() && (static_cast<unsigned char>(value[i]) & 0xC0) == 0x80) ++i;
    }
    return i;
}

/// Decodes the scalar that starts at byte `start` of a YAML text and records, for each byte of
/// its value, the offset of the text it comes from (one more entry for the end of the value).
/// Handles plain, single-quoted, double-quoted, literal (`|`) and folded (`>`) scalars with their
/// line folding, escapes, indentation and chomping indicators. The result is checked against
/// `expected` (the value the YAML parser read): on any difference the map is empty, and the
/// caller falls back to the start of the scalar.
class yaml_scalar_mapper {
public:
    yaml_scalar_mapper(std::string_view text, std::size_t start, std::string_view expected)
        : s_(text), i_(start), want_(expected) {}

    std::optional<std::vector<std::size_t>> run() {
        skip_properties();
        if (i_ >= s_.size()) return finish();
        const char c = s_[i_];
        if (c == '"') double_quoted();
        else if (c == '\'') single_quoted();
        else if (c == '|' || c == '>') return block(c == '>');
        else plain();
        return finish();
    }

private:
    static bool blank(char c) noexcept { return c == ' ' || c == '\t'; }

    void emit(char c, std::size_t at) {
        out_ += c;
        map_.push_back(at);
    }
    void emit_utf8(std::uint32_t cp, std::size_t at) {
        if (cp < 0x80) {
            emit(static_cast<char>(cp), at);
        } else if (cp < 0x800) {
            emit(static_cast<char>(0xC0 | (cp >> 6)), at);
            emit(static_cast<char>(0x80 | (cp & 0x3F)), at);
        } else if (cp < 0x10000) {
            emit(static_cast<char>(0xE0 | (cp >> 12)), at);
            emit(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)), at);
            emit(static_cast<char>(0x80 | (cp & 0x3F)), at);
        } else {
            emit(static_cast<char>(0xF0 | (cp >> 18)), at);
            emit(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)), at);
            emit(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)), at);
            emit(static_cast<char>(0x80 | (cp & 0x3F)), at);
        }
    }
    std::optional<std::vector<std::size_t>> finish() {
        if (out_ != want_) return std::nullopt;
        map_.push_back(i_);
        return std::move(map_);
    }

    // A tag (`!!str`) or an anchor (`&a`) before the scalar.
    void skip_properties() {
        while (i_ < s_.size() && (s_[i_] == '!' || s_[i_] == '&')) {
            while (i_ < s_.size() && !blank(s_[i_]) && !yaml_break_at(s_, i_)) ++i_;
            while (i_ < s_.size() && (blank(s_[i_]) || yaml_break_at(s_, i_))) ++i_;
        }
    }

    // Flow scalars: white space before a line break is dropped, and so is the indentation of the
    // next line; one break becomes a space, n breaks become n-1 newlines.
    void fold_breaks() {
        pending_.clear();
        std::vector<std::size_t> breaks;
        while (const std::size_t b = yaml_break_at(s_, i_)) {
            breaks.push_back(i_);
            i_ += b;
            while (i_ < s_.size() && blank(s_[i_])) ++i_;
        }
        if (breaks.size() == 1) emit(' ', breaks[0]);
        else
            for (std::size_t k = 1; k < breaks.size(); ++k) emit('\n', breaks[k]);
    }
    void flush_pending() {
        for (std::size_t at : pending_) emit(s_[at], at);
        pending_.clear();
    }
    bool done() const { return out_.size() >= want_.size(); }

    void plain() {
        while (i_ < s_.size() && !done()) {
            const char c = s_[i_];
            if (yaml_break_at(s_, i_)) {
                fold_breaks();
            } else if (blank(c)) {
                pending_.push_back(i_++);
            } else {
                flush_pending();
                emit(c, i_++);
            }
        }
    }

    void single_quoted() {
        ++i_;
        while (i_ < s_.size()) {
            const char c = s_[i_];
            if (c == '\'') {
                if (i_ + 1 < s_.size() && s_[i_ + 1] == '\'') {
                    flush_pending();
                    emit('\'', i_);
                    i_ += 2;
                    continue;
                }
                flush_pending();
                ++i_;
                return;
            }
            if (yaml_break_at(s_, i_)) fold_breaks();
            else if (blank(c)) pending_.push_back(i_++);
            else {
                flush_pending();
                emit(c, i_++);
            }
        }
    }

    static int hex(char c) noexcept {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }

    void double_quoted() {
        ++i_;
        while (i_ < s_.size()) {
            const char c = s_[i_];
            if (c == '"') {
                flush_pending();
                ++i_;
                return;
            }
            if (c == '\\' && i_ + 1 < s_.size()) {
                const std::size_t at = i_;
                const char e = s_[i_ + 1];
                if (const std::size_t b = yaml_break_at(s_, i_ + 1)) {
                    // an escaped line break: the white space before it stays, the break and
                    // the next line's indentation go; further empty lines are newlines
                    flush_pending();
                    i_ += 1 + b;
                    while (i_ < s_.size() && blank(s_[i_])) ++i_;
                    while (const std::size_t b2 = yaml_break_at(s_, i_)) {
                        emit('\n', i_);
                        i_ += b2;
                        while (i_ < s_.size() && blank(s_[i_])) ++i_;
                    }
                    continue;
                }
                flush_pending();
                i_ += 2;
                std::uint32_t cp = 0;
                int digits = 0;
                switch (e) {
                case '0': cp = 0; break;
                case 'a': cp = 7; break;
                case 'b': cp = 8; break;
                case 't':
                case '\t': cp = 9; break;
                case 'n': cp = 10; break;
                case 'v': cp = 11; break;
                case 'f': cp = 12; break;
                case 'r': cp = 13; break;
                case 'e': cp = 27; break;
                case ' ': cp = ' '; break;
                case '"': cp = '"'; break;
                case '/': cp = '/'; break;
                case '\\': cp = '\\'; break;
                // the YAML parser writes these two as single bytes; do the same so that the
                // decoded value can be compared with its
                case 'N': emit('\x85', at); continue;
                case '_': emit('\xA0', at); continue;
                case 'L': cp = 0x2028; break;
                case 'P': cp = 0x2029; break;
                case 'x': digits = 2; break;
                case 'u': digits = 4; break;
                case 'U': digits = 8; break;
                default: return;  // not an escape the parser accepts: the check against the value fails
                }
                for (int d = 0; d < digits; ++d) {
                    if (i_ >= s_.size() || hex(s_[i_]) < 0) return;
                    cp = cp * 16 + static_cast<std::uint32_t>(hex(s_[i_++]));
                }
                emit_utf8(cp, at);
                continue;
            }
            if (yaml_break_at(s_, i_)) fold_breaks();
            else if (blank(c)) pending_.push_back(i_++);
            else {
                flush_pending();
                emit(c, i_++);
            }
        }
    }

    struct line {
        std::size_t begin, end;  // the line's text, without its break
        std::size_t next;  // where the next line begins
        std::size_t spaces;  // leading spaces
        bool all_spaces;
    };

    line line_at(std::size_t p) const {
        line l{p, p, p, 0, true};
        while (l.end < s_.size() && !yaml_break_at(s_, l.end)) ++l.end;
        l.next = l.end + yaml_break_at(s_, l.end);
        while (l.begin + l.spaces < l.end && s_[l.begin + l.spaces] == ' ') ++l.spaces;
        l.all_spaces = l.begin + l.spaces == l.end;
        return l;
    }

    // Block scalars: `|` or `>`, then an indentation indicator (1-9) and a chomping indicator
    // (`-` strip, `+` keep, none clip) in either order, then a comment, then the lines.
    std::optional<std::vector<std::size_t>> block(bool folded) {
        const std::size_t header = i_;
        ++i_;
        std::size_t indicator = 0;
        char chomp = ' ';
        for (int k = 0; k < 2 && i_ < s_.size(); ++k) {
            if (s_[i_] >= '1' && s_[i_] <= '9') indicator = static_cast<std::size_t>(s_[i_++] - '0');
            else if (s_[i_] == '-' || s_[i_] == '+') chomp = s_[i_++];
        }
        while (i_ < s_.size() && !yaml_break_at(s_, i_)) ++i_;  // blanks and a comment
        i_ += yaml_break_at(s_, i_);
        const std::size_t body = i_;

        // the parent's indentation: that of the key (or `- `) the scalar follows
        std::size_t ls = header;
        while (ls > 0 && s_[ls - 1] != '\n' && s_[ls - 1] != '\r') --ls;
        std::size_t col = ls;
        while (col < header &&
               (s_[col] == ' ' || ((s_[col] == '-' || s_[col] == '?') && col + 1 < header && s_[col + 1] == ' ')))
            ++col;
        const std::size_t parent = col - ls;
        std::vector<std::size_t> candidates;
        if (indicator) {
            candidates.push_back(parent + indicator);
            for (std::size_t n = indicator; n < indicator + 64; ++n) candidates.push_back(n);
        } else {
            // the first line with text sets the indentation; when it is not deeper than the
            // parent, the scalar has no text and ends there
            std::size_t p = body, most = 0;
            while (p < s_.size()) {
                const line l = line_at(p);
                if (!l.all_spaces) {
                    if (l.spaces > parent) candidates.push_back(l.spaces);
                    break;
                }
                most = l.spaces > most ? l.spaces : most;
                if (l.next == l.end) break;
                p = l.next;
            }
            if (candidates.empty()) candidates.push_back(std::max(most, parent + 1));
        }
        for (std::size_t indent : candidates) {
            out_.clear();
            map_.clear();
            i_ = body;
            const std::size_t end = decode_block(folded, indent, chomp);
            if (out_ == want_) {
                map_.push_back(end);
                return std::move(map_);
            }
        }
        return std::nullopt;
    }

    // Decodes the lines of a block scalar with content indentation `indent`; returns the offset
    // just past the last content byte.
    std::size_t decode_block(bool folded, std::size_t indent, char chomp) {
        enum class kind { none, normal, more };
        kind prev = kind::none;
        std::vector<std::size_t> pending;  // the line breaks since the last content line
        std::size_t end = i_;
        std::size_t p = i_;
        while (p < s_.size()) {
            const line l = line_at(p);
            const bool empty = l.all_spaces && l.spaces <= indent;
            if (!empty && l.spaces < indent) break;  // less indented: the scalar has ended
            if (empty) {
                pending.push_back(l.end);
            } else {
                const std::size_t from = l.begin + indent;
                const kind k = (s_[from] == ' ' || s_[from] == '\t') ? kind::more : kind::normal;
                if (folded && prev == kind::normal && k == kind::normal) {
                    if (pending.size() == 1) emit(' ', pending[0]);
                    else
                        for (std::size_t b = 1; b < pending.size(); ++b) emit('\n', pending[b]);
                } else {
                    for (std::size_t b : pending) emit('\n', b);
                }
                for (std::size_t q = from; q < l.end; ++q) emit(s_[q], q);
                end = l.end;
                pending.clear();
                // a last line without a line break adds none
                if (l.next != l.end) pending.push_back(l.end);
                prev = k;
            }
            if (l.next == l.end) break;
            p = l.next;
        }
        if (chomp == '+') {
            // the YAML parser folds the last line's break into the empty lines after it
            const std::size_t skip = folded && prev == kind::normal && pending.size() > 1 ? 1 : 0;
            for (std::size_t b = skip; b < pending.size(); ++b) emit('\n', pending[b]);
            if (!pending.empty()) end = pending.back();
        } else if (chomp == ' ' && prev != kind::none && !pending.empty()) {
            emit('\n', pending[0]);
        }
        return end;
    }

    std::string_view s_;
    std::size_t i_;
    std::string_view want_;
    std::string out_;
    std::vector<std::size_t> map_;
    std::vector<std::size_t> pending_;  // blanks seen on a line, kept if more text follows
};

/// Where each byte of the value of the scalar at `start` comes from (see yaml_scalar_mapper);
/// empty when the value cannot be traced exactly.
inline std::optional<std::vector<std::size_t>> map_yaml_scalar(std::string_view text, std::size_t start,
                                                              std::string_view value) {
    return yaml_scalar_mapper(text, start, value).run();
}

}  // namespace parley::detail

#endif
