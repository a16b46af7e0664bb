// parley/tokens/detail/json_reader.hpp: a pull reader of JSON text that reports errors with their
// line and column, for the tokenizer files (the vocabulary and merges of a tokenizer.json are read
// straight into the tokenizer's tables, without a document tree).
#ifndef PARLEY_TOKENS_DETAIL_JSON_READER_HPP
#define PARLEY_TOKENS_DETAIL_JSON_READER_HPP

#include <parley/error.hpp>
#include <parley/tokens/detail/unicode.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::tokens::detail {

/// Line and column (1-based, columns in bytes) of byte `offset` of `text`.
inline std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t offset) {
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return {line, column};
}

/// Throws parley::error (errc::tokenizer_file): `name:line:column: message`.
[[noreturn]] inline void file_error(std::string_view name, std::string_view text, std::size_t offset, const std::string& message) {
    const auto [line, column] = line_column(text, offset);
    throw error(errc::tokenizer_file,
                std::string(name) + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message);
}

/// A JSON value read whole (the small parts of a tokenizer file: its components).
struct jvalue {
    enum class type : std::uint8_t { null, boolean, number, string, array, object };
    jvalue::type t = type::null;
    bool b = false;
    double n = 0;
    std::string s;
    std::vector<jvalue> a;  ///< an array's elements
    std::vector<std::string> keys;  ///< an object's member names
    std::vector<jvalue> members;  ///< an object's member values, in the order of keys
    std::size_t offset = 0;  ///< where the value starts in the file

    /// The member `key` of an object, or nullptr.
    const jvalue* get(std::string_view key) const noexcept {
        if (t != type::object) return nullptr;
        for (std::size_t i = 0; i < keys.size(); ++i)
            if (keys[i] == key) return &members[i];
        return nullptr;
    }
    bool is_null() const noexcept { return t == type::null; }
    /// The name of the value's type, for messages.
    const char* kind_name() const noexcept {
        switch (t) {
        case type::null: return "null";
        case type::boolean: return "a boolean";
        case type::number: return "a number";
        case type::string: return "a string";
        case type::array: return "an array";
        case type::object: return "an object";
        }
        return "?";
    }
};

/// Reads one JSON document value by value.
class json_reader {
public:
    enum class kind : std::uint8_t { object, array, string, number, boolean, null };

    json_reader(std::string_view text, std::string_view name) : text_(text), name_(name) {}

    /// The kind of the next value (after white space); an error at the end of the text or on a
    /// character that starts no value.
    kind peek() {
        skip_space();
        if (i_ >= text_.size()) fail("expected a value, found the end of the file");
        switch (text_[i_]) {
        case '{': return kind::object;
        case '[': return kind::array;
        case '"': return kind::string;
        case 't':
        case 'f': return kind::boolean;
        case 'n': return kind::null;
        default:
            if (text_[i_] == '-' || (text_[i_] >= '0' && text_[i_] <= '9')) return kind::number;
            fail(std::string("expected a value, found ") + describe(i_));
        }
    }

    /// Reads `{`; then call next_member (with a flag that starts true) until it returns false.
    void begin_object() { expect('{', "an object"); }
    /// Reads the next member's key into `key` (and the colon), or the closing brace (false).
    bool next_member(std::string& key, bool& first) {
        skip_space();
        if (i_ < text_.size() && text_[i_] == '}') {
            ++i_;
            return false;
        }
        if (!first) {
            if (i_ >= text_.size() || text_[i_] != ',') fail("expected ',' or '}' after an object member, found " + describe(i_));
            ++i_;
            skip_space();
        }
        first = false;
        if (i_ >= text_.size() || text_[i_] != '"') fail("expected a member name in quotes, found " + describe(i_));
        key = string();
        skip_space();
        if (i_ >= text_.size() || text_[i_] != ':') fail("expected ':' after a member name, found " + describe(i_));
        ++i_;
        return true;
    }
    /// Reads `[`; then call next_element (with a flag that starts true) until it returns false.
    void begin_array() { expect('[', "an array"); }
    /// Moves to the next element, or reads the closing bracket (false).
    bool next_element(bool& first) {
        skip_space();
        if (i_ < text_.size() && text_[i_] == ']') {
            ++i_;
            return false;
        }
        if (!first) {
            if (i_ >= text_.size() || text_[i_] != ',') fail("expected ',' or ']' after an array element, found " + describe(i_));
            ++i_;
        }
        first = false;
        return true;
    }
    /// Reads a string value (unescaped; an error for invalid UTF-8, control characters or lone
    /// surrogates, as serde_json has).
    std::string string() {
        std::string out;
        string_into(out);
        return out;
    }
    void string_into(std::string& out) {
        out.clear();
        skip_space();
        if (i_ >= text_.size() || text_[i_] != '"') fail("expected a string, found " + describe(i_));
        ++i_;
        for (;;) {
            // the plain run up to a quote, backslash or control character
            std::size_t j = i_;
            while (j < text_.size()) {
                const unsigned char c = static_cast<unsigned char>(text_[j]);
                if (c == '"' || c == '\\' || c < 0x20) break;
                if (c < 0x80) {
                    ++j;
                    continue;
                }
                const unsigned n = valid_utf8_length(reinterpret_cast<const unsigned char*>(text_.data()) + j,
                                                     reinterpret_cast<const unsigned char*>(text_.data()) + text_.size());
                if (n == 0) fail_at(j, "invalid UTF-8 in a string");
                j += n;
            }
            out.append(text_.data() + i_, j - i_);
            i_ = j;
            if (i_ >= text_.size()) fail("a string is not closed before the end of the file");
            const char c = text_[i_];
            if (c == '"') {
                ++i_;
                return;
            }
            if (c != '\\') fail("a control character (U+00" + hex2(static_cast<unsigned char>(c)) + ") in a string must be escaped");
            if (i_ + 1 >= text_.size()) fail("a string is not closed before the end of the file");
            const char e = text_[i_ + 1];
            i_ += 2;
            switch (e) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                char32_t cp = hex4(i_ - 2);
                if (cp >= 0xD800 && cp < 0xDC00) {
                    if (i_ + 1 < text_.size() && text_[i_] == '\\' && text_[i_ + 1] == 'u') {
                        i_ += 2;
                        const char32_t low = hex4(i_ - 2);
                        if (low < 0xDC00 || low >= 0xE000) fail_at(i_ - 6, "a high surrogate \\u escape is not followed by a low one");
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                    } else {
                        fail_at(i_ - 6, "a lone surrogate in a \\u escape");
                    }
                } else if (cp >= 0xDC00 && cp < 0xE000) {
                    fail_at(i_ - 6, "a lone surrogate in a \\u escape");
                }
                append_utf8(out, cp);
                break;
            }
            default: fail_at(i_ - 2, std::string("an unknown escape \\") + describe_char(e) + " in a string");
            }
        }
    }

    /// Reads a non-negative integer of at most `max`.
    std::uint64_t unsigned_integer(std::uint64_t max) {
        skip_space();
        const std::size_t at = i_;
        std::uint64_t v = 0;
        std::size_t j = i_;
        while (j < text_.size() && text_[j] >= '0' && text_[j] <= '9') {
            if (v > (max - static_cast<unsigned>(text_[j] - '0')) / 10) fail_at(at, "expected an integer of at most " + std::to_string(max) + ", found a larger one");
            v = v * 10 + static_cast<unsigned>(text_[j] - '0');
            ++j;
        }
        if (j == i_ || (j < text_.size() && (text_[j] == '.' || text_[j] == 'e' || text_[j] == 'E')))
            fail_at(at, "expected a non-negative integer, found " + describe(at));
        i_ = j;
        return v;
    }

    /// Reads a number (as a double).
    double number() {
        skip_space();
        const std::size_t at = i_;
        std::size_t j = i_;
        if (j < text_.size() && text_[j] == '-') ++j;
        while (j < text_.size() && ((text_[j] >= '0' && text_[j] <= '9') || text_[j] == '.' || text_[j] == 'e' ||
                                    text_[j] == 'E' || text_[j] == '+' || text_[j] == '-'))
            ++j;
        const std::string s(text_.substr(at, j - at));
        std::size_t used = 0;
        double v = 0;
        try {
            v = std::stod(s, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != s.size() || s.empty()) fail_at(at, "expected a number, found " + describe(at));
        i_ = j;
        return v;
    }

    bool boolean() {
        skip_space();
        if (text_.substr(i_, 4) == "true") {
            i_ += 4;
            return true;
        }
        if (text_.substr(i_, 5) == "false") {
            i_ += 5;
            return false;
        }
        fail("expected true or false, found " + describe(i_));
    }

    void null() {
        skip_space();
        if (text_.substr(i_, 4) != "null") fail("expected null, found " + describe(i_));
        i_ += 4;
    }

    /// Skips one value of any kind, checking its syntax; nesting deeper than 256 is an error.
    void skip(int depth = 0) {
        if (depth > 256) fail("values nested more than 256 deep");
        bool first = true;
        switch (peek()) {
        case kind::object: {
            begin_object();
            std::string key;
            while (next_member(key, first)) skip(depth + 1);
            break;
        }
        case kind::array:
            begin_array();
            while (next_element(first)) skip(depth + 1);
            break;
        case kind::string: {
            std::string ignored;
            string_into(ignored);
            break;
        }
        case kind::number: number(); break;
        case kind::boolean: boolean(); break;
        case kind::null: null(); break;
        }
    }

    /// Reads a whole value; nesting deeper than 256 is an error.
    jvalue value(int depth = 0) {
        if (depth > 256) fail("values nested more than 256 deep");
        jvalue v;
        v.offset = offset();
        bool first = true;
        switch (peek()) {
        case kind::object: {
            v.t = jvalue::type::object;
            begin_object();
            std::string key;
            while (next_member(key, first)) {
                v.members.push_back(value(depth + 1));
                v.keys.push_back(std::move(key));
            }
            break;
        }
        case kind::array:
            v.t = jvalue::type::array;
            begin_array();
            while (next_element(first)) v.a.push_back(value(depth + 1));
            break;
        case kind::string:
            v.t = jvalue::type::string;
            string_into(v.s);
            break;
        case kind::number:
            v.t = jvalue::type::number;
            v.n = number();
            break;
        case kind::boolean:
            v.t = jvalue::type::boolean;
            v.b = boolean();
            break;
        case kind::null: null(); break;
        }
        return v;
    }

    /// Checks that only white space follows.
    void end() {
        skip_space();
        if (i_ < text_.size()) fail("expected the end of the file after the top-level value, found " + describe(i_));
    }

    /// The offset of the next value (after white space).
    std::size_t offset() {
        skip_space();
        return i_;
    }

    [[noreturn]] void fail(const std::string& message) { fail_at(i_, message); }
    [[noreturn]] void fail_at(std::size_t offset, const std::string& message) { file_error(name_, text_, offset, message); }

    /// A short description of the text at `offset`, for messages.
    std::string describe(std::size_t offset) const {
        if (offset >= text_.size()) return "the end of the file";
        const char c = text_[offset];
        if (c == '{') return "an object";
        if (c == '[') return "an array";
        if (c == '"') return "a string";
        if (c == '-' || (c >= '0' && c <= '9')) return "a number";
        if (text_.substr(offset, 4) == "true" || text_.substr(offset, 5) == "false") return "a boolean";
        if (text_.substr(offset, 4) == "null") return "null";
        return std::string("'") + describe_char(c) + "'";
    }

private:
    static std::string hex2(unsigned char c) {
        const char* digits = "0123456789ABCDEF";
        return {digits[c >> 4], digits[c & 15]};
    }
    static std::string describe_char(char c) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u >= 0x7f) return "\\x" + hex2(u);
        return std::string(1, c);
    }
    char32_t hex4(std::size_t escape_at) {
        if (i_ + 4 > text_.size()) fail_at(escape_at, "a \\u escape needs four hexadecimal digits");
        char32_t v = 0;
        for (int k = 0; k < 4; ++k) {
            const char c = text_[i_ + k];
            v <<= 4;
            if (c >= '0' && c <= '9') v |= static_cast<char32_t>(c - '0');
            else if (c >= 'a' && c <= 'f') v |= static_cast<char32_t>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') v |= static_cast<char32_t>(c - 'A' + 10);
            else fail_at(escape_at, "a \\u escape needs four hexadecimal digits");
        }
        i_ += 4;
        return v;
    }
    void skip_space() noexcept {
        while (i_ < text_.size() && (text_[i_] == ' ' || text_[i_] == '\n' || text_[i_] == '\r' || text_[i_] == '\t')) ++i_;
    }
    void expect(char c, const char* what) {
        skip_space();
        if (i_ >= text_.size() || text_[i_] != c) fail(std::string("expected ") + what + ", found " + describe(i_));
        ++i_;
    }

    std::string_view text_;
    std::string_view name_;
    std::size_t i_ = 0;
};

}  // namespace parley::tokens::detail

#endif
