// parley/provider/detail/utf16.hpp: streamed texts split in the middle of a UTF-16 surrogate
// pair, joined as the official SDKs join them.
//
// Some OpenAI-compatible servers cut a character outside the Basic Multilingual Plane between two
// stream events: one event's JSON string ends with "\ud83d" and the next one's begins with
// "\ude00". The official SDKs parse each event into a JavaScript (UTF-16) string and concatenate
// them, which gives the character back. A strict JSON parser refuses the lone surrogates instead.
// Here an event whose text does not parse is read again with every lone surrogate escape written
// as the three bytes that UTF-8's scheme gives the surrogate's code point (the "WTF-8" form);
// the decoders append streamed text with append_piece, which joins a high surrogate left at the
// end of what was assembled with a low surrogate at the start of the next piece. What remains
// lone at the end of the stream becomes U+FFFD (seal), as a UTF-16 string that is encoded to
// UTF-8 does.
#ifndef PARLEY_PROVIDER_DETAIL_UTF16_HPP
#define PARLEY_PROVIDER_DETAIL_UTF16_HPP

#include <parley/provider/detail/wire.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/parse_options.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace parley::detail::wire {

/// The value of four hexadecimal digits at s[i], or -1.
inline int hex4(std::string_view s, std::size_t i) noexcept {
    if (i + 4 > s.size()) return -1;
    int v = 0;
    for (std::size_t k = i; k < i + 4; ++k) {
        const char c = s[k];
        int d = -1;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

/// Appends the three bytes of surrogate `u` (0xD800 to 0xDFFF) in UTF-8's scheme.
inline void append_wtf8_surrogate(std::string& out, unsigned u) {
    out += static_cast<char>(0xE0 | (u >> 12));
    out += static_cast<char>(0x80 | ((u >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (u & 0x3F));
}

/// `text` with each lone UTF-16 surrogate escape of its strings written as the surrogate's WTF-8
/// bytes (pairs are left as they are), or nothing when there is none to repair, or when the text
/// holds bytes that are not UTF-8 (then it is not a text this repair is for).
inline std::optional<std::string> repair_lone_surrogates(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = utf8_sequence(text, i);
        if (n == 0) return std::nullopt;
        i += n;
    }
    std::string out;
    bool repaired = false;
    bool in_string = false;
    std::size_t copied = 0;
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (!in_string) {
            if (c == '"') in_string = true;
            ++i;
            continue;
        }
        if (c == '"') {
            in_string = false;
            ++i;
            continue;
        }
        if (c != '\\') {
            ++i;
            continue;
        }
        if (i + 1 >= text.size() || text[i + 1] != 'u') {
            i += 2;
            continue;
        }
        const int u = hex4(text, i + 2);
        if (u < 0xD800 || u > 0xDFFF) {
            i += 6;
            continue;
        }
        if (u <= 0xDBFF && i + 12 <= text.size() && text[i + 6] == '\\' && text[i + 7] == 'u') {
            const int low = hex4(text, i + 8);
            if (low >= 0xDC00 && low <= 0xDFFF) {
                i += 12;  // a pair: left as it is
                continue;
            }
        }
        out.append(text, copied, i - copied);
        append_wtf8_surrogate(out, static_cast<unsigned>(u));
        i += 6;
        copied = i;
        repaired = true;
    }
    if (!repaired) return std::nullopt;
    out.append(text, copied, std::string_view::npos);
    return out;
}

/// Parses an event's JSON text as parse_bounded does; a text that fails only for lone UTF-16
/// surrogates is read again after repair_lone_surrogates, and `repaired` is set. Throws
/// wire_failure as parse_bounded does when the text does not parse either way.
inline boost::json::value parse_event(std::string_view text, std::size_t max_depth, std::string_view what,
                                      boost::json::storage_ptr sp, bool& repaired) {
    boost::json::parse_options opt;
    opt.max_depth = max_depth;
    std::error_code ec;
    boost::json::value v = boost::json::parse(boost::json::string_view(text.data(), text.size()), ec, sp, opt);
    if (!ec) return v;
    if (ec != boost::json::error::too_deep)
        if (const auto fixed = repair_lone_surrogates(text)) {
            opt.allow_invalid_utf8 = true;
            std::error_code again;
            v = boost::json::parse(boost::json::string_view(fixed->data(), fixed->size()), again, sp, opt);
            if (!again) {
                repaired = true;
                return v;
            }
        }
    return parse_bounded(text, max_depth, what, std::move(sp));  // throws, saying why
}

/// The surrogate encoded in WTF-8 at s[i] (0 when there is none): 0xD800 to 0xDFFF.
inline unsigned surrogate_at(std::string_view s, std::size_t i) noexcept {
    if (i + 3 > s.size() || static_cast<unsigned char>(s[i]) != 0xED) return 0;
    const auto b1 = static_cast<unsigned char>(s[i + 1]);
    const auto b2 = static_cast<unsigned char>(s[i + 2]);
    if (b1 < 0xA0 || b1 > 0xBF || (b2 & 0xC0) != 0x80) return 0;
    return 0xD000u | (static_cast<unsigned>(b1 & 0x3F) << 6) | (b2 & 0x3Fu);
}

/// Appends code point `cp` in UTF-8.
inline void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

/// `s` with every WTF-8 surrogate made U+FFFD: valid UTF-8 again.
inline void seal(std::string& s) {
    if (s.find('\xED') == std::string::npos) return;
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        if (surrogate_at(s, i)) {
            out += "\xEF\xBF\xBD";
            i += 3;
        } else {
            out += s[i++];
        }
    }
    s = std::move(out);
}

/// Appends a streamed piece of text to `to`, joining a high surrogate left at the end of `to`
/// with a low surrogate at the start of `piece` into one character, as concatenating UTF-16
/// strings does. Returns the text this piece adds for a stream event: valid UTF-8, without a
/// high surrogate at its end (it stays in `to`, and the event of the next piece carries the
/// joined character), any other lone surrogate made U+FFFD.
inline std::string append_piece(std::string& to, std::string_view piece) {
    std::string joined;
    if (to.size() >= 3 && !piece.empty() && static_cast<unsigned char>(piece[0]) == 0xED) {
        const unsigned high = surrogate_at(to, to.size() - 3);
        const unsigned low = surrogate_at(piece, 0);
        if (high >= 0xD800 && high <= 0xDBFF && low >= 0xDC00) {
            to.resize(to.size() - 3);
            append_utf8(joined, ((high - 0xD800) << 10) + (low - 0xDC00) + 0x10000);
            to += joined;
            piece.remove_prefix(3);
        }
    }
    to.append(piece);
    if (piece.find('\xED') == std::string_view::npos) return joined.empty() ? std::string(piece) : joined + std::string(piece);
    std::string event = joined + std::string(piece);
    if (event.size() >= 3) {
        const unsigned last = surrogate_at(event, event.size() - 3);
        if (last >= 0xD800 && last <= 0xDBFF) event.resize(event.size() - 3);
    }
    seal(event);
    return event;
}

}  // namespace parley::detail::wire

#endif
