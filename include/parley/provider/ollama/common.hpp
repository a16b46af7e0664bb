// parley/provider/ollama/common.hpp: what the codec of Ollama's native API shares: the default
// base URL and OLLAMA_HOST, the server's error bodies, finish reasons (done_reason), token counts
// (prompt_eval_count, eval_count), times (created_at), and the ids given to tool calls that come
// without one.
#ifndef PARLEY_PROVIDER_OLLAMA_COMMON_HPP
#define PARLEY_PROVIDER_OLLAMA_COMMON_HPP

#include <parley/provider/ollama/options.hpp>
#include <parley/error.hpp>
#include <parley/net/headers.hpp>
#include <parley/provider/detail/wire.hpp>
#include <parley/provider/reply.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace parley::ollama {


/// The name of this API in messages.
inline constexpr std::string_view ollama_api_name = "Ollama's API";

/// The prefix of the ids parley gives tool calls that come without one (Ollama matches a tool's
/// result to its call by the function's name, `tool_name`). Such an id is not sent back.
inline constexpr std::string_view generated_id_prefix = "ollama-call-";

/// The base URL of an OLLAMA_HOST value, read as Ollama's own clients read it: `host:port`,
/// `host` (port 11434), `:port` (on 127.0.0.1), or a URL `http://host[:port][/path]` or
/// `https://...` (without a port: 80 or 443); IPv6 addresses in brackets. Empty (or only white
/// space): base_url. The result has no trailing '/'. Throws parley::error
/// (errc::invalid_argument) for another scheme or a port that is not a number from 1 to 65535.
inline std::string host_url(std::string_view host) {
    while (!host.empty() && (host.front() == ' ' || host.front() == '\t')) host.remove_prefix(1);
    while (!host.empty() && (host.back() == ' ' || host.back() == '\t' || host.back() == '/')) host.remove_suffix(1);
    if (host.empty()) return std::string(base_url);
    const std::string original(host);
    auto refuse = [&](std::string_view why) {
        throw error(errc::invalid_argument, "OLLAMA_HOST '" + parley::detail::wire::excerpt(original, 80) + "' " +
                                                std::string(why) + " (expected host:port or an http:// or https:// URL)");
    };
    std::string scheme = "http";
    std::string port = "11434";
    if (const auto sep = host.find("://"); sep != std::string_view::npos) {
        scheme = std::string(host.substr(0, sep));
        for (char& c : scheme) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        if (scheme == "http") port = "80";
        else if (scheme == "https") port = "443";
        else refuse("has the scheme '" + scheme + "'");
        host.remove_prefix(sep + 3);
    }
    std::string_view path;
    if (const auto slash = host.find('/'); slash != std::string_view::npos) {
        path = host.substr(slash);
        host = host.substr(0, slash);
    }
    std::string_view name = host;
    if (!host.empty() && host.front() == '[') {  // [IPv6] or [IPv6]:port
        const auto close = host.find(']');
        if (close == std::string_view::npos) refuse("has an IPv6 address without its ']'");
        name = host.substr(0, close + 1);
        const std::string_view rest = host.substr(close + 1);
        if (!rest.empty()) {
            if (rest.front() != ':') refuse("has text after its IPv6 address");
            port = std::string(rest.substr(1));
        }
    } else if (const auto colon = host.find(':'); colon != std::string_view::npos) {
        if (host.find(':', colon + 1) != std::string_view::npos)  // a bare IPv6 address
            return scheme + "://[" + std::string(host) + "]:" + port + std::string(path);
        name = host.substr(0, colon);
        port = std::string(host.substr(colon + 1));
    }
    if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
        std::stoul(port) < 1 || std::stoul(port) > 65535)
        refuse("has the port '" + port + "'");
    std::string out = scheme + "://" + (name.empty() ? std::string("127.0.0.1") : std::string(name)) + ":" + port;
    out += path;
    return out;
}

namespace detail {

using namespace parley::detail::wire;

/// The finish reason of a done_reason: "stop" is `stop` (`tool_calls` when the reply calls
/// tools), "length" is `length`; any other word ("load", "unload", words added later) is `other`;
/// none or "" is `none`.
inline finish_reason finish_of(std::string_view word, bool calls_tools) noexcept {
    if (word == "stop") return calls_tools ? finish_reason::tool_calls : finish_reason::stop;
    if (word == "length") return finish_reason::length;
    if (word.empty()) return finish_reason::none;
    return finish_reason::other;
}

/// The members of a reply that count tokens and time, kept as the usage's details.
inline constexpr std::string_view metric_names[] = {"total_duration", "load_duration", "prompt_eval_count",
                                                     "prompt_eval_duration", "eval_count", "eval_duration"};

/// Token counts of a reply's last object: prompt tokens are prompt_eval_count, completion tokens
/// eval_count (thinking included: Ollama counts every generated token), the total their sum;
/// `details` holds the counts and the durations (nanoseconds) as received. A missing count is 0
/// (Ollama leaves prompt_eval_count out when the whole prompt came from its cache); a count that
/// is not an integer from 0 to max_token_count throws wire_failure.
inline token_usage read_usage(const boost::json::object& o, const json_path& at) {
    token_usage u;
    u.prompt_tokens = token_count(o, "prompt_eval_count", at);
    u.completion_tokens = token_count(o, "eval_count", at);
    u.total_tokens = u.prompt_tokens + u.completion_tokens;
    for (std::string_view name : metric_names)
        if (const auto* v = member(o, name)) u.details[name] = *v;
    return u;
}

/// Fills `e` from an Ollama error object (`{"error": "text"}`; an OpenAI-style error object is
/// read too) and returns true; false when `v` is not one.
inline bool read_error(const boost::json::value& v, call_error& e) {
    const auto* o = v.if_object();
    if (!o) return false;
    const auto* err = member(*o, "error");
    return err && read_error_member(*err, e);
}

/// The Unix time of an RFC 3339 time as Ollama writes `created_at` ("2025-06-01T12:30:45.123Z",
/// "2025-06-01T14:30:45.123456789+02:00"); 0 for a text that is not one.
inline std::int64_t unix_time(std::string_view t) noexcept {
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
    auto digits = [&](std::size_t at, std::size_t n, int& out) {
        if (at + n > t.size()) return false;
        out = 0;
        for (std::size_t i = at; i < at + n; ++i) {
            if (t[i] < '0' || t[i] > '9') return false;
            out = out * 10 + (t[i] - '0');
        }
        return true;
    };
    if (!digits(0, 4, y) || t.size() < 19 || t[4] != '-' || !digits(5, 2, mo) || t[7] != '-' || !digits(8, 2, d) ||
        (t[10] != 'T' && t[10] != 't' && t[10] != ' ') || !digits(11, 2, h) || t[13] != ':' || !digits(14, 2, mi) ||
        t[16] != ':' || !digits(17, 2, s))
        return 0;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return 0;
    std::size_t i = 19;
    if (i < t.size() && t[i] == '.') {
        ++i;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    }
    std::int64_t offset = 0;
    if (i < t.size() && (t[i] == 'Z' || t[i] == 'z')) {
        ++i;
    } else if (i < t.size() && (t[i] == '+' || t[i] == '-')) {
        int oh = 0, om = 0;
        if (!digits(i + 1, 2, oh) || i + 3 >= t.size() || t[i + 3] != ':' || !digits(i + 4, 2, om)) return 0;
        offset = (t[i] == '-' ? -1 : 1) * (static_cast<std::int64_t>(oh) * 3600 + om * 60);
        i += 6;
    } else {
        return 0;
    }
    if (i != t.size()) return 0;
    // days from 1970-01-01 of the civil date (Howard Hinnant's algorithm)
    const int yy = y - (mo <= 2 ? 1 : 0);
    const int era = (yy >= 0 ? yy : yy - 399) / 400;
    const int yoe = yy - era * 400;
    const int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    const std::int64_t days = static_cast<std::int64_t>(era) * 146097 + doe - 719468;
    return days * 86400 + h * 3600 + mi * 60 + s - offset;
}

/// The id given to tool call `k` of a reply that came without one: `ollama-call-` and a hash of
/// the reply's created_at, the call's position, name and arguments (the same call of the same
/// reply gets the same id, whether it was streamed or not; calls of other replies other ids).
inline std::string generated_call_id(std::string_view created_at, std::size_t k, std::string_view name,
                                     std::string_view arguments) {
    std::uint64_t h = 1469598103934665603ull;
    auto mix = [&](std::string_view s) {
        for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
        h = (h ^ 0xFFu) * 1099511628211ull;
    };
    mix(created_at);
    mix(std::to_string(k));
    mix(name);
    mix(arguments);
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return std::string(generated_id_prefix) + std::to_string(k) + "-" + hex;
}

}  // namespace detail

/// The call_error of a failed call: Ollama's error body `{"error": "model \"x\" not found, try
/// pulling it first"}` gives errc::api_error with the message (bounded, what looks like a key
/// redacted; Ollama's errors have no type or code: the HTTP status tells them apart: 400 for a
/// request it refuses, 404 for a model it does not have, 500 for a model that fails to load or
/// run, 503 when its queue is full); any other body gives errc::http_status with a short excerpt
/// of the body. `status` and `headers` are kept.
inline call_error decode_error(int status, http_headers headers, std::string_view body, const reply_limits& limits = {}) {
    return parley::detail::wire::decode_openai_error(status, std::move(headers), body, limits);
}

}  // namespace parley::ollama

#endif
