// parley/provider/gemini/embeddings.hpp: Gemini API embeddings: the body of an :embedContent
// request (one input) or a :batchEmbedContents request (several), and the decoding of either
// reply.
#ifndef PARLEY_PROVIDER_GEMINI_EMBEDDINGS_HPP
#define PARLEY_PROVIDER_GEMINI_EMBEDDINGS_HPP

#include <parley/error.hpp>
#include <parley/provider/embeddings.hpp>
#include <parley/provider/gemini/common.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::gemini {

/// The path under the base URL of an embeddings request: `/models/{model}:embedContent` for one
/// input, `/models/{model}:batchEmbedContents` for several (a model named `models/x` or
/// `tunedModels/x` as given). Throws parley::error (errc::invalid_argument) for an empty model or
/// one that cannot be a path segment.
inline std::string embed_path(const embedding_request& r) {
    if (r.model.empty()) throw error(errc::invalid_argument, "the embeddings request has no model");
    std::string resource;
    try {
        resource = model_resource(r.model);
    } catch (const error& e) {
        throw error(errc::invalid_argument, e.what());
    }
    return "/" + resource + (r.input.size() == 1 ? ":embedContent" : ":batchEmbedContents");
}

/// The JSON body of an embeddings request: for one input `{"content": {"parts": [{"text"}]},
/// "taskType", "outputDimensionality"}`; for several `{"requests": [{"model": "models/...",
/// "content", "taskType", "outputDimensionality"}, ...]}` (one request per input, in order).
/// `dimensions` becomes outputDimensionality, `task_type` taskType. Throws parley::error
/// (errc::invalid_argument) when the model is empty, there is no input or an empty one,
/// `dimensions` is below 1, for `encoding_format` "base64" and for `user` (the API has neither).
inline boost::json::object encode_embedding_request(const embedding_request& r) {
    const std::string path = embed_path(r);
    if (r.input.empty()) throw error(errc::invalid_argument, "the embeddings request has no input");
    if (r.dimensions && *r.dimensions < 1)
        throw error(errc::invalid_argument,
                    "'dimensions' of an embeddings request is at least 1, found " + std::to_string(*r.dimensions));
    if (r.encoding_format && *r.encoding_format != "float")
        throw error(errc::invalid_argument, "'encoding_format' \"" + *r.encoding_format +
                                                "\" is not supported by the Gemini API (its vectors are JSON numbers)");
    if (r.user) throw error(errc::invalid_argument, "'user' is not supported by the Gemini API's embeddings");
    auto one = [&](std::size_t i) {
        if (r.input[i].empty())
            throw error(errc::invalid_argument, "input " + std::to_string(i) + " of the embeddings request is empty");
        boost::json::object o{{"content", {{"parts", boost::json::array{boost::json::object{{"text", r.input[i]}}}}}}};
        if (r.task_type) o["taskType"] = *r.task_type;
        if (r.dimensions) o["outputDimensionality"] = *r.dimensions;
        return o;
    };
    if (r.input.size() == 1) return one(0);
    const std::string model = model_resource(r.model);
    boost::json::array requests;
    for (std::size_t i = 0; i < r.input.size(); ++i) {
        boost::json::object o{{"model", model}};
        for (auto& m : one(i)) o[m.key()] = std::move(m.value());
        requests.emplace_back(std::move(o));
    }
    return {{"requests", std::move(requests)}};
}

namespace detail {

inline std::vector<float> read_values(const boost::json::object& embedding, const json_path& at, const reply_limits& limits) {
    const auto& values = req_array(embedding, "values", at);
    const auto vat = at.member("values");
    if (values.size() > limits.max_embedding_dimensions)
        fail_with(vat, "expected at most max_embedding_dimensions (" + std::to_string(limits.max_embedding_dimensions) +
                           ") numbers, found " + std::to_string(values.size()));
    std::vector<float> out;
    out.reserve(values.size());
    for (std::size_t k = 0; k < values.size(); ++k) {
        const auto& x = values[k];
        if (x.is_double()) out.push_back(static_cast<float>(x.get_double()));
        else if (x.is_int64()) out.push_back(static_cast<float>(x.get_int64()));
        else if (x.is_uint64()) out.push_back(static_cast<float>(x.get_uint64()));
        else fail_at(vat.element(k), "a number", x);
    }
    return out;
}

}  // namespace detail

/// Decodes the body of an :embedContent reply (`{"embedding": {"values": [...]}}`) or of a
/// :batchEmbedContents reply (`{"embeddings": [{"values": [...]}, ...]}`, in the order of the
/// input). The reply names no model (`model` is left empty); a `usageMetadata` with
/// promptTokenCount gives the usage. A status outside 200-299 or a Google error body gives
/// decode_error's error; a malformed body, too many vectors or dimensions give errc::protocol.
inline boost::system::result<embedding_reply, call_error> decode_embedding_reply(int status, http_headers headers,
                                                                                 std::string_view body,
                                                                                 const reply_limits& limits = {}) {
    namespace dg = detail;
    if (status < 200 || status > 299) return decode_error(status, std::move(headers), body, limits);
    try {
        if (body.size() > limits.max_body_bytes)
            throw dg::wire_failure{"expected a reply body of at most max_body_bytes (" +
                                   std::to_string(limits.max_body_bytes) + " bytes), found " + std::to_string(body.size())};
        const boost::json::value v = dg::parse_bounded(body, limits.max_json_depth, "an embeddings reply");
        {
            call_error api;
            if (dg::read_google_error(v, api)) {
                api.status = status;
                api.headers = std::move(headers);
                return api;
            }
        }
        const dg::json_path root{nullptr, "embeddings reply", 0};
        const auto& o = dg::as_object(v, root);
        embedding_reply r;
        if (const auto* one = dg::opt_object(o, "embedding", root)) {
            r.data.push_back(dg::read_values(*one, root.member("embedding"), limits));
        } else {
            const auto* list = o.if_contains("embeddings");
            if (!list || !list->is_array())
                dg::fail_at(root, "an object with 'embedding' (embedContent) or 'embeddings' (batchEmbedContents)",
                            dg::found(list ? list : &v));
            const auto& a = list->get_array();
            const auto eat = root.member("embeddings");
            if (a.size() > limits.max_embeddings)
                dg::fail_with(eat, "expected at most max_embeddings (" + std::to_string(limits.max_embeddings) +
                                       "), found " + std::to_string(a.size()));
            for (std::size_t i = 0; i < a.size(); ++i)
                r.data.push_back(dg::read_values(dg::as_object(a[i], eat.element(i)), eat.element(i), limits));
        }
        if (const auto* u = dg::opt_object(o, "usageMetadata", root)) r.usage = dg::read_usage(*u, root.member("usageMetadata"));
        r.status = status;
        r.headers = std::move(headers);
        return r;
    } catch (const dg::wire_failure& f) {
        return dg::protocol_failure(status, headers, f.message);
    }
}

}  // namespace parley::gemini

#endif
