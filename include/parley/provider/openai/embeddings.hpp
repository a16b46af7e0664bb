// parley/provider/openai/embeddings.hpp: the body of an OpenAI embeddings request
// (/v1/embeddings) and the decoding of its reply, with vectors given as JSON numbers or as
// base64 float32 (`encoding_format: "base64"`).
#ifndef PARLEY_PROVIDER_OPENAI_EMBEDDINGS_HPP
#define PARLEY_PROVIDER_OPENAI_EMBEDDINGS_HPP

#include <parley/error.hpp>
#include <parley/provider/embeddings.hpp>
#include <parley/provider/openai/common.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::openai {

/// An embeddings request (the same type for every wire API).
using embedding_request = parley::embedding_request;
/// The reply to an embeddings request.
using embedding_reply = parley::embedding_reply;

/// The JSON body of an embeddings request. Throws parley::error (errc::invalid_argument) when
/// the model is empty, there is no input or an empty one, `dimensions` is below 1,
/// `encoding_format` is neither "float" nor "base64", or `task_type` is set (Gemini's).
inline boost::json::object encode_embedding_request(const embedding_request& r) {
    if (r.model.empty()) throw error(errc::invalid_argument, "the embeddings request has no model");
    if (r.input.empty()) throw error(errc::invalid_argument, "the embeddings request has no input");
    boost::json::array input;
    for (std::size_t i = 0; i < r.input.size(); ++i) {
        if (r.input[i].empty())
            throw error(errc::invalid_argument, "input " + std::to_string(i) + " of the embeddings request is empty");
        input.emplace_back(r.input[i]);
    }
    boost::json::object body{{"model", r.model}, {"input", std::move(input)}};
    if (r.dimensions) {
        if (*r.dimensions < 1)
            throw error(errc::invalid_argument,
                        "'dimensions' of an embeddings request is at least 1, found " + std::to_string(*r.dimensions));
        body["dimensions"] = *r.dimensions;
    }
    if (r.encoding_format) {
        if (*r.encoding_format != "float" && *r.encoding_format != "base64")
            throw error(errc::invalid_argument,
                        "'encoding_format' is \"float\" or \"base64\", found \"" + *r.encoding_format + "\"");
        body["encoding_format"] = *r.encoding_format;
    }
    if (r.user) body["user"] = *r.user;
    if (r.task_type) throw error(errc::invalid_argument, "'task_type' is not supported by the OpenAI embeddings API (it is Gemini's)");
    return body;
}

namespace detail {

// Little-endian float32 values from standard base64 (with or without padding).
inline std::vector<float> base64_floats(std::string_view s, const json_path& at, const reply_limits& limits) {
    while (!s.empty() && s.back() == '=') s.remove_suffix(1);
    const std::size_t bytes = s.size() / 4 * 3 + (s.size() % 4 == 0 ? 0 : s.size() % 4 - 1);
    if (s.size() % 4 == 1 || bytes % 4 != 0)
        throw wire_failure{at.str() + ": expected base64 of float32 values (a multiple of 4 bytes), found " +
                           std::to_string(s.size()) + " base64 characters"};
    if (bytes / 4 > limits.max_embedding_dimensions)
        throw wire_failure{at.str() + ": expected at most max_embedding_dimensions (" +
                           std::to_string(limits.max_embedding_dimensions) + ") numbers, found " + std::to_string(bytes / 4)};
    auto sextet = [&](char c) -> std::uint32_t {
        if (c >= 'A' && c <= 'Z') return static_cast<std::uint32_t>(c - 'A');
        if (c >= 'a' && c <= 'z') return static_cast<std::uint32_t>(c - 'a' + 26);
        if (c >= '0' && c <= '9') return static_cast<std::uint32_t>(c - '0' + 52);
        if (c == '+') return 62;
        if (c == '/') return 63;
        throw wire_failure{at.str() + ": expected base64, found the character '" + excerpt(std::string_view(&c, 1)) + "'"};
    };
    std::vector<unsigned char> raw;
    raw.reserve(bytes);
    std::uint32_t acc = 0;
    int bits = 0;
    for (char c : s) {
        acc = (acc << 6) | sextet(c);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            raw.push_back(static_cast<unsigned char>((acc >> bits) & 0xFF));
        }
    }
    std::vector<float> out(raw.size() / 4);
    for (std::size_t i = 0; i < out.size(); ++i) {
        const std::uint32_t u = std::uint32_t{raw[4 * i]} | std::uint32_t{raw[4 * i + 1]} << 8 |
                                std::uint32_t{raw[4 * i + 2]} << 16 | std::uint32_t{raw[4 * i + 3]} << 24;
        static_assert(sizeof(float) == 4);
        std::memcpy(&out[i], &u, 4);
    }
    return out;
}

}  // namespace detail

/// Decodes the body of an embeddings reply (`{"object": "list", "data": [{"embedding": [...],
/// "index": 0}, ...], "model", "usage"}`); vectors are ordered by `index`, which must run over
/// 0 .. n-1 once each. A vector may be a JSON array of numbers or a base64 string of
/// little-endian float32 values. A status outside 200-299 or an error body gives decode_error's
/// error; a malformed body, too many vectors or dimensions give errc::protocol.
inline boost::system::result<embedding_reply, call_error> decode_embedding_reply(int status, http_headers headers,
                                                                                 std::string_view body,
                                                                                 const reply_limits& limits = {}) {
    if (status < 200 || status > 299) return decode_error(status, std::move(headers), body, limits);
    try {
        const boost::json::value v = detail::parse_bounded(body, limits.max_json_depth, "an embeddings list");
        const detail::json_path root{nullptr, "embeddings list", 0};
        const auto* o = v.if_object();
        if (!o) detail::fail_at(root, "an object", v);
        if (detail::member(*o, "error")) return decode_error(status, std::move(headers), body, limits);
        embedding_reply r;
        r.status = status;
        r.model = std::string(detail::opt_string(*o, "model", root).value_or(""));
        const auto* dv = o->if_contains("data");
        if (!dv || !dv->is_array()) detail::fail_at(root.member("data"), "an array", dv ? detail::found(*dv) : "nothing");
        const auto& data = dv->get_array();
        const auto dat = root.member("data");
        if (data.size() > limits.max_embeddings)
            throw detail::wire_failure{dat.str() + ": expected at most max_embeddings (" +
                                       std::to_string(limits.max_embeddings) + "), found " + std::to_string(data.size())};
        r.data.resize(data.size());
        std::vector<bool> seen(data.size(), false);
        for (std::size_t i = 0; i < data.size(); ++i) {
            const auto at = dat.element(i);
            const auto* e = data[i].if_object();
            if (!e) detail::fail_at(at, "an object", data[i]);
            std::size_t index = i;
            if (const auto* iv = detail::member(*e, "index")) {
                const auto n = detail::to_count(*iv, at.member("index"));
                if (n >= data.size())
                    throw detail::wire_failure{at.member("index").str() + ": expected an index below " +
                                               std::to_string(data.size()) + ", found " + std::to_string(n)};
                index = static_cast<std::size_t>(n);
            }
            if (seen[index])
                throw detail::wire_failure{at.member("index").str() + ": expected each index once, found " +
                                           std::to_string(index) + " twice"};
            seen[index] = true;
            const auto eat = at.member("embedding");
            const auto* ev = e->if_contains("embedding");
            if (ev && ev->is_string()) {
                r.data[index] = detail::base64_floats(ev->get_string(), eat, limits);
            } else if (ev && ev->is_array()) {
                const auto& a = ev->get_array();
                if (a.size() > limits.max_embedding_dimensions)
                    throw detail::wire_failure{eat.str() + ": expected at most max_embedding_dimensions (" +
                                               std::to_string(limits.max_embedding_dimensions) + ") numbers, found " +
                                               std::to_string(a.size())};
                auto& vec = r.data[index];
                vec.reserve(a.size());
                for (std::size_t k = 0; k < a.size(); ++k) {
                    if (a[k].is_double()) vec.push_back(static_cast<float>(a[k].get_double()));
                    else if (a[k].is_int64()) vec.push_back(static_cast<float>(a[k].get_int64()));
                    else if (a[k].is_uint64()) vec.push_back(static_cast<float>(a[k].get_uint64()));
                    else detail::fail_at(eat.element(k), "a number", a[k]);
                }
            } else {
                detail::fail_at(eat, "an array of numbers or a base64 string", ev ? detail::found(*ev) : "nothing");
            }
        }
        if (const auto* u = detail::opt_object(*o, "usage", root)) r.usage = detail::read_usage(*u, root.member("usage"));
        r.headers = std::move(headers);
        return r;
    } catch (const detail::wire_failure& f) {
        return detail::protocol_failure(status, headers, f.message);
    }
}

}  // namespace parley::openai

#endif
