// parley/chat/detail/builder_json.hpp: a JSON syntax check that runs in constant evaluation,
// for the JSON texts of the builders (response_format, function parameters).
#ifndef PARLEY_CHAT_DETAIL_BUILDER_JSON_HPP
#define PARLEY_CHAT_DETAIL_BUILDER_JSON_HPP

#include <cstddef>
#include <string_view>

namespace parley::detail {

/// What a constexpr reading of a JSON text found: whether it is one JSON object, and the value
/// of its top-level "type" member when that is a string. `escaped` is set when a top-level key or
/// the type has escapes, which this reading does not decode (the type is then not known).
struct json_object_scan {
    bool is_object = false;
    bool has_type = false;
    bool escaped = false;
    std::string_view type;
};

/// A JSON syntax check (RFC 8259) that runs in constant evaluation; nesting beyond 64 levels
/// counts as invalid.
class json_checker {
public:
    constexpr explicit json_checker(std::string_view s) : s_(s) {}

    constexpr json_object_scan run() {
        json_object_scan out;
        space();
        if (i_ >= s_.size() || s_[i_] != '{') return out;
        if (!value(0, &out)) return {};
        space();
        if (i_ != s_.size()) return {};
        out.is_object = true;
        return out;
    }

private:
    static constexpr unsigned max_depth = 64;

    constexpr void space() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
    }
    constexpr bool literal(std::string_view word) {
        if (s_.substr(i_, word.size()) != word) return false;
        i_ += word.size();
        return true;
    }
    static constexpr bool hex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }
    // a string at i_; its raw text (without the quotes) in *raw, and whether it had escapes
    constexpr bool string(std::string_view* raw, bool* escaped) {
        ++i_;  // the opening quote
        const std::size_t start = i_;
        bool esc = false;
        while (i_ < s_.size()) {
            const char c = s_[i_];
            if (c == '"') {
                if (raw) *raw = s_.substr(start, i_ - start);
                if (escaped) *escaped = esc;
                ++i_;
                return true;
            }
            if (static_cast<unsigned char>(c) < 0x20) return false;
            if (c == '\\') {
                esc = true;
                if (++i_ >= s_.size()) return false;
                const char e = s_[i_];
                if (e == 'u') {
                    for (int k = 1; k <= 4; ++k)
                        if (i_ + k >= s_.size() || !hex(s_[i_ + k])) return false;
                    i_ += 4;
                } else if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r' &&
                           e != 't') {
                    return false;
                }
            }
            ++i_;
        }
        return false;
    }
    constexpr bool digits() {
        const std::size_t start = i_;
        while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
        return i_ > start;
    }
    constexpr bool number() {
        if (s_[i_] == '-') ++i_;
        if (i_ < s_.size() && s_[i_] == '0') ++i_;
        else if (!digits()) return false;
        if (i_ < s_.size() && s_[i_] == '.') {
            ++i_;
            if (!digits()) return false;
        }
        if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
            ++i_;
            if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
            if (!digits()) return false;
        }
        return true;
    }
    // a value at i_ (after spaces); `top` receives the top-level object's "type"
    constexpr bool value(unsigned depth, json_object_scan* top) {
        if (i_ >= s_.size() || depth > max_depth) return false;
        const char c = s_[i_];
        if (c == '"') return string(nullptr, nullptr);
        if (c == 't') return literal("true");
        if (c == 'f') return literal("false");
        if (c == 'n') return literal("null");
        if (c == '-' || (c >= '0' && c <= '9')) return number();
        if (c == '[') {
            ++i_;
            space();
            if (i_ < s_.size() && s_[i_] == ']') return ++i_, true;
            for (;;) {
                space();
                if (!value(depth + 1, nullptr)) return false;
                space();
                if (i_ < s_.size() && s_[i_] == ',') {
                    ++i_;
                    continue;
                }
                if (i_ < s_.size() && s_[i_] == ']') return ++i_, true;
                return false;
            }
        }
        if (c != '{') return false;
        ++i_;
        space();
        if (i_ < s_.size() && s_[i_] == '}') return ++i_, true;
        for (;;) {
            space();
            std::string_view key;
            bool key_escaped = false;
            if (i_ >= s_.size() || s_[i_] != '"' || !string(&key, &key_escaped)) return false;
            if (top && key_escaped) top->escaped = true;
            space();
            if (i_ >= s_.size() || s_[i_] != ':') return false;
            ++i_;
            space();
            if (top && !key_escaped && key == "type" && i_ < s_.size() && s_[i_] == '"') {
                std::string_view type;
                bool escaped = false;
                if (!string(&type, &escaped)) return false;
                top->has_type = true;
                top->escaped = top->escaped || escaped;
                top->type = type;
            } else if (!value(depth + 1, nullptr)) {
                return false;
            }
            space();
            if (i_ < s_.size() && s_[i_] == ',') {
                ++i_;
                continue;
            }
            if (i_ < s_.size() && s_[i_] == '}') return ++i_, true;
            return false;
        }
    }

    std::string_view s_;
    std::size_t i_ = 0;
};

constexpr json_object_scan scan_json_object(std::string_view text) { return json_checker(text).run(); }

}  // namespace parley::detail

#endif
