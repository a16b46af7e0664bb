// parley/net/url.hpp: URLs of API endpoints and proxies: parsing, the authority of a Host header,
// joining a base path and an endpoint, and text that never shows a password.
#ifndef PARLEY_NET_URL_HPP
#define PARLEY_NET_URL_HPP

#include <parley/error.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace parley::net {

/// An http or https URL taken apart.
struct url {
    std::string scheme;  ///< "http" or "https"
    std::string user;  ///< user name, percent-decoded; "" when none
    std::string password;  ///< password, percent-decoded; "" when none. Never shown in messages
    std::string host;  ///< host name in lower case, an IPv4 address, or an IPv6 address without brackets
    std::uint16_t port = 0;  ///< the port written in the URL, else the scheme's default (80, 443)
    std::string path;  ///< path and query: "" or starting with '/'; the fragment is dropped

    /// True for https.
    bool tls() const noexcept { return scheme == "https"; }
    /// The scheme's default port: 443 for https, 80 otherwise.
    std::uint16_t default_port() const noexcept { return tls() ? 443 : 80; }
    /// `host[:port]` for a Host header: an IPv6 address in brackets, the port left out when it is
    /// the scheme's default (or 0).
    std::string authority() const {
        std::string a = host.find(':') != std::string::npos ? "[" + host + "]" : host;
        if (port != 0 && port != default_port()) {
            a += ':';
            a += std::to_string(port);
        }
        return a;
    }

    friend bool operator==(const url&, const url&) = default;
};

namespace detail {

constexpr bool url_is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
constexpr bool url_is_alpha(char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
constexpr int url_hex_value(char c) noexcept {
    return url_is_digit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
}

inline std::string url_lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

/// Where a URL's scheme ends ("://"), or npos when the text has no scheme: "://" must follow
/// scheme characters only (so "proxy:3128" and "u:p://x@h" have none).
inline std::size_t url_scheme_end(std::string_view text) noexcept {
    const std::size_t sep = text.find("://");
    if (sep == std::string_view::npos || sep == 0) return sep == 0 ? 0 : std::string_view::npos;
    if (!url_is_alpha(text[0])) return std::string_view::npos;
    for (std::size_t i = 1; i < sep; ++i) {
        const char c = text[i];
        if (!url_is_alpha(c) && !url_is_digit(c) && c != '+' && c != '-' && c != '.') return std::string_view::npos;
    }
    return sep;
}

/// A dotted-quad IPv4 address ("10.0.0.1"; no leading zeros, no shorter forms).
inline bool parse_ipv4(std::string_view s, std::array<std::uint8_t, 4>& out) noexcept {
    std::size_t part = 0;
    std::size_t i = 0;
    while (part < 4) {
        std::size_t digits = 0;
        unsigned value = 0;
        while (i < s.size() && url_is_digit(s[i]) && digits < 4) {
            value = value * 10 + static_cast<unsigned>(s[i] - '0');
            ++i;
            ++digits;
        }
        if (digits == 0 || digits > 3 || value > 255 || (digits > 1 && s[i - digits] == '0')) return false;
        out[part++] = static_cast<std::uint8_t>(value);
        if (part < 4) {
            if (i >= s.size() || s[i] != '.') return false;
            ++i;
        }
    }
    return i == s.size();
}

/// An IPv6 address in RFC 4291 text form ("::1", "2001:db8::8:800:200c:417a", "::ffff:10.0.0.1"),
/// without brackets or zone.
inline bool parse_ipv6(std::string_view s, std::array<std::uint8_t, 16>& out) noexcept {
    std::array<std::uint16_t, 8> words{};
    std::size_t n = 0;
    constexpr std::size_t none = static_cast<std::size_t>(-1);
    std::size_t gap = none;  // where "::" stands
    std::size_t i = 0;
    if (s.size() >= 2 && s[0] == ':' && s[1] == ':') {
        gap = 0;
        i = 2;
    } else if (s.empty() || s[0] == ':') {
        return false;
    }
    while (i < s.size()) {
        if (n == 8) return false;
        std::size_t end = s.find(':', i);
        if (end == std::string_view::npos) end = s.size();
        const std::string_view part = s.substr(i, end - i);
        if (part.find('.') != std::string_view::npos) {  // an IPv4 address in the last 32 bits
            std::array<std::uint8_t, 4> v4{};
            if (end != s.size() || n > 6 || !parse_ipv4(part, v4)) return false;
            words[n++] = static_cast<std::uint16_t>(v4[0] << 8 | v4[1]);
            words[n++] = static_cast<std::uint16_t>(v4[2] << 8 | v4[3]);
            i = end;
            break;
        }
        if (part.empty() || part.size() > 4) return false;
        unsigned value = 0;
        for (char c : part) {
            const int h = url_hex_value(c);
            if (h < 0) return false;
            value = value * 16 + static_cast<unsigned>(h);
        }
        words[n++] = static_cast<std::uint16_t>(value);
        i = end;
        if (i == s.size()) break;
        ++i;  // the ':'
        if (i < s.size() && s[i] == ':') {
            if (gap != none) return false;
            gap = n;
            ++i;
        } else if (i == s.size()) {
            return false;  // a single ':' at the end
        }
    }
    if (gap == none ? n != 8 : n == 8) return false;
    std::array<std::uint16_t, 8> full{};
    const std::size_t tail = gap == none ? 0 : n - gap;
    for (std::size_t k = 0; k < n - tail; ++k) full[k] = words[k];
    for (std::size_t k = 0; k < tail; ++k) full[8 - tail + k] = words[n - tail + k];
    for (std::size_t k = 0; k < 8; ++k) {
        out[2 * k] = static_cast<std::uint8_t>(full[k] >> 8);
        out[2 * k + 1] = static_cast<std::uint8_t>(full[k] & 0xff);
    }
    return true;
}

inline bool url_percent_decode(std::string_view in, std::string& out) {
    out.clear();
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (in[i] != '%') {
            out += in[i];
            continue;
        }
        if (in.size() - i < 3) return false;
        const int hi = url_hex_value(in[i + 1]);
        const int lo = url_hex_value(in[i + 2]);
        if (hi < 0 || lo < 0) return false;
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
    }
    return true;
}

}  // namespace detail

/// `text` with the password of a URL (or of a proxy setting such as "user:pw@proxy:3128")
/// replaced by "***": what messages and logs may show. Also safe on text that is not a valid
/// URL: everything between the first ':' after the scheme and the last '@' is hidden.
inline std::string redact_url_text(std::string_view text) {
    std::string s(text);
    const std::size_t sep = detail::url_scheme_end(text);
    const std::size_t start = sep == std::string_view::npos ? 0 : sep + 3;
    const std::size_t at = s.rfind('@');
    if (at == std::string::npos || at < start) return s;
    const std::size_t colon = s.find(':', start);
    if (colon == std::string::npos || colon > at) return s;
    s.replace(colon + 1, at - colon - 1, "***");
    return s;
}

/// The URL as text with the password shown as "***" (and the port always written).
inline std::string redacted(const url& u) {
    std::string s = u.scheme + "://";
    if (!u.user.empty() || !u.password.empty()) {
        s += u.user;
        if (!u.password.empty()) s += ":***";
        s += '@';
    }
    s += u.host.find(':') != std::string::npos ? "[" + u.host + "]" : u.host;
    s += ':';
    s += std::to_string(u.port);
    s += u.path;
    return s;
}

/// Parses "http(s)://[user[:password]@]host[:port][/path][?query][#fragment]": the scheme in
/// any case (http or https only; none at all means http, as in a proxy setting "proxy:3128"),
/// user and password percent-decoded, the host lower-cased (a name of letters, digits, '-', '.',
/// '_'; a dotted-quad IPv4 address; or an IPv6 address in brackets, kept without them), the port
/// from 1 to 65535 (empty or absent: 80 for http, 443 for https), the path with its query ("?q"
/// alone becomes "/?q"), the fragment dropped. Spaces, control characters and non-ASCII bytes
/// are refused (percent-encode them). Throws `parley::error` (`errc::invalid_argument`) whose
/// message quotes the text with any password replaced by "***".
inline url parse_url(std::string_view text) {
    // Parts of the URL are named in messages only when the text has no '@', hence no password.
    const bool secret = text.find('@') != std::string_view::npos;
    auto bad = [&](const std::string& why) {
        return error(errc::invalid_argument, "invalid URL '" + redact_url_text(text) + "': " + why);
    };
    if (text.empty()) throw error(errc::invalid_argument, "invalid URL '': the text is empty");
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == ' ') throw bad("a space at offset " + std::to_string(i) + " (write it as %20)");
        if (c < 0x21 || c > 0x7e)
            throw bad("a control character or non-ASCII byte at offset " + std::to_string(i) +
                      " (percent-encode it; write a host name in its ASCII form)");
    }

    url u;
    std::string_view rest = text;
    if (const std::size_t sep = detail::url_scheme_end(text); sep != std::string_view::npos) {
        u.scheme = detail::url_lower(text.substr(0, sep));
        if (u.scheme != "http" && u.scheme != "https")
            throw bad("unknown scheme '" + u.scheme + "' (expected http or https)");
        rest = text.substr(sep + 3);
    } else {
        u.scheme = "http";
    }

    const std::size_t authority_end = std::min(rest.find_first_of("/?#"), rest.size());
    std::string_view authority = rest.substr(0, authority_end);
    std::string_view tail = rest.substr(authority_end);

    if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
        const std::string_view userinfo = authority.substr(0, at);
        const std::size_t colon = userinfo.find(':');
        if (!detail::url_percent_decode(userinfo.substr(0, colon), u.user) ||
            (colon != std::string_view::npos && !detail::url_percent_decode(userinfo.substr(colon + 1), u.password)))
            throw bad("a bad percent-encoding in the user name or password (expected % and two hex digits)");
        authority.remove_prefix(at + 1);
    }

    std::string_view host = authority;
    std::string_view port;
    bool has_port = false;
    if (!authority.empty() && authority.front() == '[') {
        const std::size_t close = authority.find(']');
        if (close == std::string_view::npos) throw bad("an IPv6 address without its closing ']'");
        host = authority.substr(1, close - 1);
        std::array<std::uint8_t, 16> ip{};
        if (!detail::parse_ipv6(host, ip))
            throw bad(secret ? std::string("the IPv6 address in brackets is not valid")
                             : "'" + std::string(host) + "' is not a valid IPv6 address");
        const std::string_view after = authority.substr(close + 1);
        if (!after.empty()) {
            if (after.front() != ':') throw bad("text after the IPv6 address (expected ':port')");
            port = after.substr(1);
            has_port = true;
        }
    } else {
        const std::size_t colon = authority.find(':');
        if (colon != std::string_view::npos) {
            if (authority.find(':', colon + 1) != std::string_view::npos)
                throw bad("more than one ':' in the host (write an IPv6 address in brackets: [::1])");
            host = authority.substr(0, colon);
            port = authority.substr(colon + 1);
            has_port = true;
        }
        if (host.empty()) throw bad("the host is empty");
        bool dotted_digits = true;
        for (char c : host) {
            if (!detail::url_is_alpha(c) && !detail::url_is_digit(c) && c != '-' && c != '.' && c != '_')
                throw bad(secret ? std::string("a character that is not allowed in a host name")
                                 : "'" + std::string(1, c) + "' is not allowed in a host name (letters, digits, '-', '.', '_')");
            if (!detail::url_is_digit(c) && c != '.') dotted_digits = false;
        }
        std::array<std::uint8_t, 4> ip{};
        if (dotted_digits && !detail::parse_ipv4(host, ip))
            throw bad(secret ? std::string("the host is not a valid IPv4 address")
                             : "'" + std::string(host) + "' is not a valid IPv4 address (four numbers from 0 to 255)");
    }
    if (host.empty()) throw bad("the host is empty");
    u.host = detail::url_lower(host);

    u.port = u.default_port();
    if (has_port && !port.empty()) {
        unsigned value = 0;
        bool digits = port.size() <= 5;
        for (char c : port) {
            if (!detail::url_is_digit(c)) digits = false;
            if (digits) value = value * 10 + static_cast<unsigned>(c - '0');
        }
        if (!digits || value == 0 || value > 65535)
            throw bad(secret ? std::string("the port is not a number from 1 to 65535")
                             : "the port '" + std::string(port) + "' is not a number from 1 to 65535");
        u.port = static_cast<std::uint16_t>(value);
    }

    tail = tail.substr(0, std::min(tail.find('#'), tail.size()));
    if (!tail.empty() && tail.front() == '?') u.path = "/";
    u.path += tail;
    return u;
}

/// `parse_url`, with no value instead of an exception.
inline std::optional<url> try_parse_url(std::string_view text) noexcept {
    try {
        return parse_url(text);
    } catch (...) {
        return std::nullopt;
    }
}

/// The path of `endpoint` under `base_path`, as the OpenAI and Anthropic SDKs join them: exactly
/// one '/' between ("/v1" or "/v1/" with "/chat/completions" or "chat/completions" give
/// "/v1/chat/completions"; "" gives "/chat/completions"). A query on the base path moves after
/// the endpoint ("/d?api-version=1" gives "/d/chat/completions?api-version=1").
inline std::string join_path(std::string_view base_path, std::string_view endpoint) {
    std::string_view query;
    if (const std::size_t q = base_path.find('?'); q != std::string_view::npos) {
        query = base_path.substr(q + 1);
        base_path = base_path.substr(0, q);
    }
    while (!base_path.empty() && base_path.back() == '/') base_path.remove_suffix(1);
    while (!endpoint.empty() && endpoint.front() == '/') endpoint.remove_prefix(1);
    std::string out;
    out.reserve(base_path.size() + endpoint.size() + query.size() + 2);
    out += base_path;
    out += '/';
    out += endpoint;
    if (!query.empty()) {
        out += endpoint.find('?') == std::string_view::npos ? '?' : '&';
        out += query;
    }
    return out;
}

}  // namespace parley::net

#endif
