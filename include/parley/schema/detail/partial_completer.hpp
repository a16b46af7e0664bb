// parley/schema/detail/partial_completer.hpp: the scanner behind parse_partial_json. It walks a
// JSON prefix once, checking its grammar, and writes the valid JSON text that completes it.
#ifndef PARLEY_SCHEMA_DETAIL_PARTIAL_COMPLETER_HPP
#define PARLEY_SCHEMA_DETAIL_PARTIAL_COMPLETER_HPP

#include <parley/config.hpp>
#include <parley/schema/json_text.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley {

namespace detail::partial {

inline constexpr std::size_t npos = std::string_view::npos;

// What an open array or object expects next.
enum class slot : std::uint8_t {
    value,  // after `,` in an array, after `:` in an object
    value_or_close,  // after `[`
    key,  // after `,` in an object
    key_or_close,  // after `{`
    colon,  // after a member name
    comma_or_close,  // after an item or a member's value
};

struct frame {
    bool object;
    slot next;
    std::size_t keep;  // the end of the last whole item, or just after the bracket
};

enum class token : std::uint8_t { none, string, number, literal };

// Number grammar states; `zero`, `integer`, `fraction` and `exponent` may end a number.
enum class num : std::uint8_t { minus, zero, integer, dot, fraction, e, e_sign, exponent };

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

inline int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Scans a JSON prefix and builds the text of its completion.
class completer {
public:
    completer(std::string_view text, const json_text_options& options) : s_(text), options_(options) {}

    // The completed JSON text, or the error of a prefix no JSON text starts with.
    std::optional<json_text_error> run() {
        std::size_t i = detail::json_text::skip_space(s_, 0);
        if (s_.substr(i, 3) == "```" || s_.substr(i, 3) == "~~~") {  // an opening code fence
            std::size_t eol = s_.find('\n', i);
            i = eol == npos ? s_.size() : eol + 1;
        }
        for (; i < s_.size() && !top_done_; ++i) {
            if (auto e = step(i)) return e;
        }
        if (!top_done_ && tok_ == token::number) {
            // The number may go on; it ends here as far as the prefix goes.
            std::size_t keep = num_valid_end_;
            tok_ = token::none;
            if (keep == npos) {
                drop();
            } else {
                value_done(keep);
                cut_ = keep;
                number_at_end_ = true;
            }
        }
        finish();
        return std::nullopt;
    }

    std::string completion;  // valid JSON text
    std::size_t begin = 0;  // where the value starts in the prefix
    std::size_t length = 0;  // how much of the prefix the completion keeps
    bool complete = false;  // the prefix held a whole value

    // Whether the kept text ends with a number that ran to the end of the prefix (more digits
    // may come), rather than one that something after it ended.
    bool open_number() const noexcept { return number_at_end_; }

private:
    std::optional<json_text_error> fail(std::size_t at, std::string reason) const {
        return detail::json_text::malformed(s_, at, std::move(reason));
    }

    void value_done(std::size_t end) {
        if (stack_.empty()) {
            top_done_ = true;
            top_end_ = end;
        } else {
            stack_.back().next = slot::comma_or_close;
            stack_.back().keep = end;
        }
    }

    // The value being read at the end is left out: its container keeps its whole items only.
    void drop() { cut_ = stack_.empty() ? npos : stack_.back().keep; }

    void unit_done(std::size_t end) { safe_end_ = end; }

    std::optional<json_text_error> step(std::size_t i) {
        char c = s_[i];
        auto u = static_cast<unsigned char>(c);
        switch (tok_) {
        case token::string: return string_char(i, c, u);
        case token::literal:
            if (c != literal_[matched_]) return fail(i, "invalid literal");
            if (++matched_ == literal_.size()) {
                tok_ = token::none;
                value_done(i + 1);
            }
            return std::nullopt;
        case token::number:
            if (number_char(c)) {
                if (num_ == num::zero || num_ == num::integer || num_ == num::fraction || num_ == num::exponent)
                    num_valid_end_ = i + 1;
                return std::nullopt;
            }
            if (num_valid_end_ != i) return fail(i, "invalid number");
            tok_ = token::none;
            value_done(i);
            break;  // c is the next token's
        case token::none: break;
        }
        if (detail::json_text::is_space(c)) return std::nullopt;
        if (top_done_) return std::nullopt;
        if (begin_ == npos) begin_ = i;
        slot next = stack_.empty() ? slot::value : stack_.back().next;
        switch (next) {
        case slot::value:
        case slot::value_or_close:
            if (c == ']' && next == slot::value_or_close) return close(i);
            return start_value(i, c);
        case slot::key:
        case slot::key_or_close:
            if (c == '}' && next == slot::key_or_close) return close(i);
            if (c != '"') return fail(i, "expected a member name in double quotes");
            start_string(i, true);
            return std::nullopt;
        case slot::colon:
            if (c != ':') return fail(i, "expected ':' after a member name");
            stack_.back().next = slot::value;
            return std::nullopt;
        case slot::comma_or_close:
            if (c == ',') {
                stack_.back().next = stack_.back().object ? slot::key : slot::value;
                return std::nullopt;
            }
            if (c == (stack_.back().object ? '}' : ']')) return close(i);
            return fail(i, stack_.back().object ? "expected ',' or '}'" : "expected ',' or ']'");
        }
        return std::nullopt;
    }

    std::optional<json_text_error> start_value(std::size_t i, char c) {
        if (c == '{' || c == '[') {
            if (stack_.size() >= options_.max_depth)
                return detail::json_text::too_deep(s_, i, options_.max_depth);
            stack_.push_back({c == '{', c == '{' ? slot::key_or_close : slot::value_or_close, i + 1});
            return std::nullopt;
        }
        if (c == '"') {
            start_string(i, false);
            return std::nullopt;
        }
        if (c == '-' || is_digit(c)) {
            tok_ = token::number;
            num_ = c == '-' ? num::minus : c == '0' ? num::zero : num::integer;
            num_valid_end_ = c == '-' ? npos : i + 1;
            return std::nullopt;
        }
        if (c == 't' || c == 'f' || c == 'n') {
            tok_ = token::literal;
            literal_ = c == 't' ? "true" : c == 'f' ? "false" : "null";
            matched_ = 1;
            return std::nullopt;
        }
        return fail(i, "expected a JSON value");
    }

    std::optional<json_text_error> close(std::size_t i) {
        stack_.pop_back();
        value_done(i + 1);
        return std::nullopt;
    }

    void start_string(std::size_t i, bool key) {
        tok_ = token::string;
        key_ = key;
        escape_ = 0;
        utf8_left_ = 0;
        high_surrogate_ = npos;
        safe_end_ = i + 1;
    }

    // One byte of a string. escape_: 0 none, 1 after '\', 2..5 reading the 4 hex digits of \u.
    std::optional<json_text_error> string_char(std::size_t i, char c, unsigned char u) {
        if (escape_ == 1) {
            if (c == 'u') {
                escape_ = 2;
                code_unit_ = 0;
                return std::nullopt;
            }
            if (high_surrogate_ != npos) return fail(high_surrogate_, "a UTF-16 high surrogate without its low half");
            if (c != '"' && c != '\\' && c != '/' && c != 'b' && c != 'f' && c != 'n' && c != 'r' && c != 't')
                return fail(i, "invalid escape sequence");
            escape_ = 0;
            unit_done(i + 1);
            return std::nullopt;
        }
        if (escape_ >= 2) {
            int h = hex_digit(c);
            if (h < 0) return fail(i, "expected 4 hexadecimal digits after \\u");
            code_unit_ = code_unit_ * 16 + static_cast<unsigned>(h);
            if (++escape_ < 6) return std::nullopt;
            escape_ = 0;
            bool high = code_unit_ >= 0xD800 && code_unit_ <= 0xDBFF;
            bool low = code_unit_ >= 0xDC00 && code_unit_ <= 0xDFFF;
            if (high_surrogate_ != npos) {
                if (!low) return fail(high_surrogate_, "a UTF-16 high surrogate without its low half");
                high_surrogate_ = npos;
                unit_done(i + 1);
            } else if (high) {
                high_surrogate_ = escape_start_;  // the character is whole with its low half only
            } else if (low) {
                return fail(escape_start_, "a UTF-16 low surrogate without its high half");
            } else {
                unit_done(i + 1);
            }
            return std::nullopt;
        }
        if (high_surrogate_ != npos && c != '\\')
            return fail(high_surrogate_, "a UTF-16 high surrogate without its low half");
        if (c == '\\') {
            escape_ = 1;
            escape_start_ = i;
        } else if (c == '"') {
            tok_ = token::none;
            if (key_)
                stack_.back().next = slot::colon;
            else
                value_done(i + 1);
        } else if (u < 0x20) {
            return fail(i, "control character in a string");
        } else if (u < 0x80) {
            unit_done(i + 1);
        } else if ((u & 0xC0) == 0x80) {
            // A continuation byte; a stray one is left for the parser to refuse.
            if (utf8_left_ == 0 || --utf8_left_ == 0) unit_done(i + 1);
        } else {
            utf8_left_ = u >= 0xF0 ? 3 : u >= 0xE0 ? 2 : 1;
        }
        return std::nullopt;
    }

    bool number_char(char c) {
        bool digit = is_digit(c);
        switch (num_) {
        case num::minus:
            if (!digit) return false;
            num_ = c == '0' ? num::zero : num::integer;
            return true;
        case num::zero:
            if (c == '.') num_ = num::dot;
            else if (c == 'e' || c == 'E') num_ = num::e;
            else return false;
            return true;
        case num::integer:
            if (c == '.') num_ = num::dot;
            else if (c == 'e' || c == 'E') num_ = num::e;
            else if (!digit) return false;
            return true;
        case num::dot:
            if (!digit) return false;
            num_ = num::fraction;
            return true;
        case num::fraction:
            if (c == 'e' || c == 'E') num_ = num::e;
            else if (!digit) return false;
            return true;
        case num::e:
            if (c == '+' || c == '-') num_ = num::e_sign;
            else if (digit) num_ = num::exponent;
            else return false;
            return true;
        case num::e_sign:
            if (!digit) return false;
            num_ = num::exponent;
            return true;
        case num::exponent: return digit;
        }
        return false;
    }

    // Builds the completion from the state at the end of the prefix.
    void finish() {
        std::string tail;
        std::size_t end = s_.size();  // how much of the prefix is kept
        if (top_done_) {
            complete = !number_at_end_;
            end = top_end_;
        } else if (tok_ == token::string) {
            if (key_) {
                drop();
            } else {
                end = safe_end_;
                tail = "\"";
            }
        } else if (tok_ == token::literal) {
            tail = literal_.substr(matched_);
        } else if (!stack_.empty()) {
            slot next = stack_.back().next;
            if (next == slot::value || next == slot::key || next == slot::colon) drop();
        }
        if (cut_ != npos) end = cut_;
        if (begin_ == npos || (stack_.empty() && !top_done_ && tok_ == token::none)) {
            completion = "null";  // nothing of a value yet
            begin = begin_ == npos ? s_.size() : begin_;
            length = 0;
            return;
        }
        begin = begin_;
        length = end - begin_;
        completion.reserve(length + tail.size() + stack_.size());
        completion.append(s_.substr(begin_, length));
        completion += tail;
        for (std::size_t k = stack_.size(); k-- > 0;) completion += stack_[k].object ? '}' : ']';
    }

    std::string_view s_;
    const json_text_options& options_;
    std::vector<frame> stack_;
    std::size_t begin_ = npos;
    bool top_done_ = false;
    std::size_t top_end_ = 0;
    std::size_t cut_ = npos;
    bool number_at_end_ = false;  // more digits may follow
    token tok_ = token::none;
    // strings
    bool key_ = false;
    int escape_ = 0;
    std::size_t escape_start_ = 0;
    unsigned code_unit_ = 0;
    int utf8_left_ = 0;
    std::size_t high_surrogate_ = npos;
    std::size_t safe_end_ = 0;
    // numbers
    num num_ = num::integer;
    std::size_t num_valid_end_ = npos;
    // literals
    std::string_view literal_;
    std::size_t matched_ = 0;
};

}  // namespace detail::partial

}  // namespace parley

#endif
