// parley/provider/ollama/embeddings.hpp: embeddings through Ollama's POST /api/embed: the body
// of a request (`input` a string or an array) and the decoding of its reply (`embeddings`).
#ifndef PARLEY_PROVIDER_OLLAMA_EMBEDDINGS_HPP
#define PARLEY_PROVIDER_OLLAMA_EMBEDDINGS_HPP

#include <parley/error.hpp>
#include <parley/provider/embeddings.hpp>
#include <parley/provider/ollama/common.hpp>
#include <parley/provider/ollama/request.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::ollama {

/// The JSON body of an /api/embed request: `{"model", "input"}`, `input` the text for one input
/// and an array of the texts for several; `dimensions` when set (models that allow fewer); and
/// from `options`, `keep_alive` and `options.num_ctx`. Throws parley::error
/// (errc::invalid_argument) when the model is empty, there is no input or an empty one,
/// `dimensions` is below 1, and for `encoding_format` "base64", `user` and `task_type` (Ollama
/// has none of them).
inline boost::json::object encode_embedding_request(const embedding_request& r, const encode_options& options = {}) {
    if (r.model.empty()) throw error(errc::invalid_argument, "the embeddings request has no model");
    if (r.input.empty()) throw error(errc::invalid_argument, "the embeddings request has no input");
    if (r.encoding_format && *r.encoding_format != "float")
        throw error(errc::invalid_argument, "'encoding_format' \"" + *r.encoding_format +
                                                "\" is not supported by Ollama's /api/embed (its vectors are JSON numbers)");
    if (r.user) throw error(errc::invalid_argument, "'user' is not supported by Ollama's /api/embed");
    if (r.task_type) throw error(errc::invalid_argument, "'task_type' is not supported by Ollama's /api/embed (it is Gemini's)");
    boost::json::array input;
    for (std::size_t i = 0; i < r.input.size(); ++i) {
        if (r.input[i].empty())
            throw error(errc::invalid_argument, "input " + std::to_string(i) + " of the embeddings request is empty");
        input.emplace_back(r.input[i]);
    }
    boost::json::object body{{"model", r.model}};
    if (input.size() == 1) body["input"] = std::move(input[0]);
    else body["input"] = std::move(input);
    if (r.dimensions) {
        if (*r.dimensions < 1)
            throw error(errc::invalid_argument,
                        "'dimensions' of an embeddings request is at least 1, found " + std::to_string(*r.dimensions));
        body["dimensions"] = *r.dimensions;
    }
    if (options.keep_alive) body["keep_alive"] = *options.keep_alive;
    if (options.num_ctx) body["options"] = {{"num_ctx", *options.num_ctx}};
    return body;
}

/// Decodes the body of an /api/embed reply (`{"model", "embeddings": [[...], ...],
/// "prompt_eval_count"}`, the vectors in the order of the input). The usage: prompt tokens =
/// prompt_eval_count, total the same, details the counts and durations. A status outside
/// 200-299 or an error body gives decode_error's error; a malformed body, too many vectors or
/// dimensions give errc::protocol.
inline boost::system::result<embedding_reply, call_error> decode_embedding_reply(int status, http_headers headers,
                                                                                 std::string_view body,
                                                                                 const reply_limits& limits = {}) {
    namespace dl = detail;
    if (status < 200 || status > 299) return decode_error(status, std::move(headers), body, limits);
    try {
        if (body.size() > limits.max_body_bytes)
            throw dl::wire_failure{"expected a reply body of at most max_body_bytes (" +
                                   std::to_string(limits.max_body_bytes) + " bytes), found " + std::to_string(body.size())};
        const boost::json::value v = dl::parse_bounded(body, limits.max_json_depth, "an embeddings reply");
        {
            call_error api;
            if (dl::read_error(v, api)) {
                api.status = status;
                api.headers = std::move(headers);
                return api;
            }
        }
        const dl::json_path root{nullptr, "embeddings reply", 0};
        const auto& o = dl::as_object(v, root);
        embedding_reply r;
        r.model = std::string(dl::opt_string(o, "model", root).value_or(""));
        const auto& list = dl::req_array(o, "embeddings", root);
        const auto eat = root.member("embeddings");
        if (list.size() > limits.max_embeddings)
            dl::fail_with(eat, "expected at most max_embeddings (" + std::to_string(limits.max_embeddings) + "), found " +
                                   std::to_string(list.size()));
        for (std::size_t i = 0; i < list.size(); ++i) {
            const auto vat = eat.element(i);
            if (!list[i].is_array()) dl::fail_at(vat, "an array of numbers", list[i]);
            const auto& values = list[i].get_array();
            if (values.size() > limits.max_embedding_dimensions)
                dl::fail_with(vat, "expected at most max_embedding_dimensions (" +
                                       std::to_string(limits.max_embedding_dimensions) + ") numbers, found " +
                                       std::to_string(values.size()));
            std::vector<float> out;
            out.reserve(values.size());
            for (std::size_t k = 0; k < values.size(); ++k) {
                const auto& x = values[k];
                if (x.is_double()) out.push_back(static_cast<float>(x.get_double()));
                else if (x.is_int64()) out.push_back(static_cast<float>(x.get_int64()));
                else if (x.is_uint64()) out.push_back(static_cast<float>(x.get_uint64()));
                else dl::fail_at(vat.element(k), "a number", x);
            }
            r.data.push_back(std::move(out));
        }
        if (o.contains("prompt_eval_count")) {
            token_usage u = dl::read_usage(o, root);
            u.completion_tokens = 0;
            u.total_tokens = u.prompt_tokens;
            r.usage = std::move(u);
        }
        r.status = status;
        r.headers = std::move(headers);
        return r;
    } catch (const dl::wire_failure& f) {
        return dl::protocol_failure(status, headers, f.message);
    }
}

}  // namespace parley::ollama

#endif
