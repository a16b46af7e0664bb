// parley/net/proxy.hpp: the HTTP proxy for a target URL from the environment (HTTPS_PROXY,
// HTTP_PROXY, ALL_PROXY, NO_PROXY), as curl and Python requests read it, and the
// Proxy-Authorization header of a proxy URL.
#ifndef PARLEY_NET_PROXY_HPP
#define PARLEY_NET_PROXY_HPP

#include <parley/error.hpp>
#include <parley/net/url.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace parley::net {

namespace detail {

/// std::getenv, the default source of proxy settings.
inline const char* system_getenv(const char* name) { return std::getenv(name); }

/// An address of a NO_PROXY entry or a host: 4 bytes (IPv4) or 16 (IPv6).
struct ip_address {
    std::array<std::uint8_t, 16> bytes{};
    bool v6 = false;
};

inline std::optional<ip_address> parse_ip(std::string_view text) noexcept {
    ip_address a;
    std::array<std::uint8_t, 4> v4{};
    if (parse_ipv4(text, v4)) {
        for (std::size_t i = 0; i < 4; ++i) a.bytes[i] = v4[i];
        return a;
    }
    if (parse_ipv6(text, a.bytes)) {
        a.v6 = true;
        return a;
    }
    return std::nullopt;
}

/// Whether the first `bits` bits of `a` and `b` agree (same family only).
inline bool same_prefix(const ip_address& a, const ip_address& b, unsigned bits) noexcept {
    if (a.v6 != b.v6) return false;
    for (std::size_t i = 0; bits > 0; ++i, bits = bits >= 8 ? bits - 8 : 0) {
        const unsigned mask = bits >= 8 ? 0xffu : (0xffu << (8 - bits)) & 0xffu;
        if ((a.bytes[i] & mask) != (b.bytes[i] & mask)) return false;
    }
    return true;
}

/// `host` for comparisons: lower case, without brackets or a final '.'.
inline std::string normal_host(std::string_view host) {
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    while (!host.empty() && host.back() == '.') host.remove_suffix(1);
    return url_lower(host);
}

/// Whether one NO_PROXY entry (already trimmed, not empty) covers host:port. Malformed entries
/// (a bad port, a bad CIDR block) cover nothing.
inline bool no_proxy_entry_matches(std::string_view entry, const std::string& host,
                                   const std::optional<ip_address>& host_ip, std::uint16_t port) {
    if (entry == "*") return true;
    std::string_view name = entry;
    std::string_view entry_port;
    std::string_view prefix;
    bool has_prefix = false;
    if (name.front() == '[') {  // [v6], [v6]:port, [v6]/bits
        const std::size_t close = name.find(']');
        if (close == std::string_view::npos) return false;
        std::string_view after = name.substr(close + 1);
        name = name.substr(1, close - 1);
        if (!after.empty() && after.front() == ':') {
            entry_port = after.substr(1);
            if (entry_port.empty()) return false;
        } else if (!after.empty() && after.front() == '/') {
            prefix = after.substr(1);
            has_prefix = true;
        } else if (!after.empty()) {
            return false;
        }
    } else {
        if (const std::size_t slash = name.find('/'); slash != std::string_view::npos) {
            prefix = name.substr(slash + 1);
            has_prefix = true;
            name = name.substr(0, slash);
        }
        const std::size_t colon = name.find(':');
        if (colon != std::string_view::npos && name.find(':', colon + 1) == std::string_view::npos) {
            entry_port = name.substr(colon + 1);  // name:port or v4:port (two or more ':' is IPv6)
            name = name.substr(0, colon);
            if (entry_port.empty()) return false;
        }
    }
    if (!entry_port.empty()) {
        unsigned p = 0;
        if (entry_port.size() > 5) return false;
        for (char c : entry_port) {
            if (!url_is_digit(c)) return false;
            p = p * 10 + static_cast<unsigned>(c - '0');
        }
        if (p == 0 || p > 65535 || p != port) return false;
    }

    if (const auto entry_ip = parse_ip(name)) {
        unsigned bits = entry_ip->v6 ? 128 : 32;
        if (has_prefix) {
            if (prefix.empty() || prefix.size() > 3) return false;
            unsigned b = 0;
            for (char c : prefix) {
                if (!url_is_digit(c)) return false;
                b = b * 10 + static_cast<unsigned>(c - '0');
            }
            if (b > bits) return false;
            bits = b;
        }
        return host_ip && same_prefix(*entry_ip, *host_ip, bits);
    }
    if (has_prefix) return false;  // a CIDR block needs an address

    // A domain: "example.com", ".example.com" and "*.example.com" cover example.com and every
    // name under it, never "badexample.com".
    if (name.size() >= 2 && name[0] == '*' && name[1] == '.') name.remove_prefix(1);
    while (!name.empty() && name.front() == '.') name.remove_prefix(1);
    const std::string domain = normal_host(name);
    if (domain.empty() || host_ip) return false;
    if (host.size() == domain.size()) return host == domain;
    return host.size() > domain.size() && host.compare(host.size() - domain.size(), domain.size(), domain) == 0 &&
           host[host.size() - domain.size() - 1] == '.';
}

/// The lower-case variable when it is set (even to ""), else the upper-case one; nullptr when
/// neither is. An empty value counts as set: it shadows the other spelling, as with curl.
inline const char* proxy_variable(const std::function<const char*(const char*)>& getenv, const char* lower,
                                  const char* upper, std::string& chosen) {
    if (const char* v = getenv(lower)) {
        chosen = lower;
        return v;
    }
    if (const char* v = getenv(upper)) {
        chosen = upper;
        return v;
    }
    return nullptr;
}

inline std::string base64(std::string_view in) {
    static constexpr char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((in.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 3 <= in.size(); i += 3) {
        const unsigned v = static_cast<unsigned char>(in[i]) << 16 | static_cast<unsigned char>(in[i + 1]) << 8 |
                           static_cast<unsigned char>(in[i + 2]);
        out += digits[v >> 18 & 63];
        out += digits[v >> 12 & 63];
        out += digits[v >> 6 & 63];
        out += digits[v & 63];
    }
    if (i + 1 == in.size()) {
        const unsigned v = static_cast<unsigned char>(in[i]) << 16;
        out += digits[v >> 18 & 63];
        out += digits[v >> 12 & 63];
        out += "==";
    } else if (i + 2 == in.size()) {
        const unsigned v = static_cast<unsigned char>(in[i]) << 16 | static_cast<unsigned char>(in[i + 1]) << 8;
        out += digits[v >> 18 & 63];
        out += digits[v >> 12 & 63];
        out += digits[v >> 6 & 63];
        out += '=';
    }
    return out;
}

}  // namespace detail

/// Whether a NO_PROXY value excludes `host` (a name, an IPv4 address, or an IPv6 address with
/// or without brackets) on `port`. The rules of curl and Python requests: entries separated by
/// commas and/or white space; "*" (as the whole value or as an entry) covers every host;
/// "example.com", ".example.com" (and "*.example.com") cover example.com and its subdomains
/// but not "badexample.com"; an entry with ":port" ("example.com:8443", "10.0.0.1:80",
/// "[::1]:8080") covers that port only; an IP address covers exactly that address, written in
/// any form ("::1" and "0:0::1" are one address); a CIDR block ("10.0.0.0/8", "::1/128",
/// "[fd00::]/8") covers the addresses in it. Names are compared without regard to case, and a
/// final '.' is ignored. Names are not resolved: "localhost" does not cover 127.0.0.1, and
/// loopback addresses are not excluded unless listed. Malformed entries cover nothing.
inline bool no_proxy_matches(std::string_view no_proxy, std::string_view host, std::uint16_t port) {
    const std::string h = detail::normal_host(host);
    if (h.empty()) return false;
    const std::optional<detail::ip_address> host_ip = detail::parse_ip(h);
    std::size_t i = 0;
    while (i < no_proxy.size()) {
        const auto separator = [](char c) { return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
        while (i < no_proxy.size() && separator(no_proxy[i])) ++i;
        std::size_t end = i;
        while (end < no_proxy.size() && !separator(no_proxy[end])) ++end;
        if (end > i && detail::no_proxy_entry_matches(no_proxy.substr(i, end - i), h, host_ip, port)) return true;
        i = end;
    }
    return false;
}

/// The proxy to use for `target`, from the environment as read through `getenv`: https_proxy or
/// HTTPS_PROXY for https targets, http_proxy or HTTP_PROXY for http targets, and when that gives
/// nothing (unset or ""), all_proxy or ALL_PROXY; none when that gives nothing either, or when
/// no_proxy or NO_PROXY excludes the target's host and port (see `no_proxy_matches`). Of two
/// spellings of one variable the lower-case one wins when it is set, even to "" (as curl and
/// Python do: http_proxy="" hides HTTP_PROXY, then ALL_PROXY is asked); HTTP_PROXY in upper
/// case is ignored when REQUEST_METHOD is set, that is in a CGI program, where it can come from
/// a client's "Proxy:" header (curl never reads it; Python ignores it there). Loopback targets
/// (localhost, 127.0.0.1, ::1) go through the proxy too unless NO_PROXY lists them. A value
/// without a scheme is an http proxy ("proxy:3128"); the proxy's port defaults to its scheme's
/// (80, 443). Throws `parley::error` (`errc::invalid_argument`) naming the variable when its
/// value is not an http or https URL (a socks5:// proxy, for instance), with any password
/// shown as "***".
inline std::optional<url> proxy_for(const url& target,
                                    const std::function<const char*(const char*)>& getenv = detail::system_getenv) {
    std::string variable;
    const char* value = nullptr;
    if (target.tls()) {
        value = detail::proxy_variable(getenv, "https_proxy", "HTTPS_PROXY", variable);
    } else if (const char* v = getenv("http_proxy")) {
        value = v;
        variable = "http_proxy";
    } else if (getenv("REQUEST_METHOD") == nullptr) {
        if ((value = getenv("HTTP_PROXY"))) variable = "HTTP_PROXY";
    }
    if (value == nullptr || *value == '\0') value = detail::proxy_variable(getenv, "all_proxy", "ALL_PROXY", variable);
    if (value == nullptr || *value == '\0') return std::nullopt;

    std::string ignored;
    if (const char* no = detail::proxy_variable(getenv, "no_proxy", "NO_PROXY", ignored))
        if (no_proxy_matches(no, target.host, target.port)) return std::nullopt;

    try {
        return parse_url(value);
    } catch (const error& e) {
        throw error(errc::invalid_argument, "the proxy setting " + variable + " is not usable: " + e.what());
    }
}

/// The value of a Proxy-Authorization header for `proxy`: "Basic " and the base64 of
/// "user:password" when the proxy URL carries a user or a password; "" otherwise.
inline std::string proxy_authorization(const url& proxy) {
    if (proxy.user.empty() && proxy.password.empty()) return {};
    return "Basic " + detail::base64(proxy.user + ":" + proxy.password);
}

}  // namespace parley::net

#endif
