// parley/provider/azure/common.hpp: what Azure OpenAI adds to the OpenAI APIs: the options of a
// client (API version, deployment), the paths of deployments and the api-version query, and the
// errors of Azure's content filter.
#ifndef PARLEY_PROVIDER_AZURE_COMMON_HPP
#define PARLEY_PROVIDER_AZURE_COMMON_HPP

#include <parley/provider/azure/options.hpp>
#include <parley/error.hpp>
#include <parley/net/headers.hpp>
#include <parley/provider/detail/wire.hpp>
#include <parley/provider/reply.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <string_view>
#include <utility>

namespace parley::azure {


/// The name of this API in messages.
inline constexpr std::string_view azure_api_name = "Azure OpenAI";

/// `?api-version=VERSION`. Throws parley::error (errc::invalid_argument) for an empty version or
/// one with a character other than letters, digits and -._ (it goes into the query unescaped).
inline std::string api_version_query(std::string_view version) {
    if (version.empty())
        throw error(errc::invalid_argument, "Azure OpenAI needs an API version (the api-version query): set "
                                            "client_config::azure.api_version or OPENAI_API_VERSION, for instance "
                                            "2024-10-21");
    for (char c : version) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                        c == '.' || c == '_';
        if (!ok)
            throw error(errc::invalid_argument, "the Azure OpenAI API version '" +
                                                    parley::detail::wire::excerpt(version, 80) +
                                                    "' has a character other than letters, digits and -._");
    }
    return "?api-version=" + std::string(version);
}

/// `/deployments/{name}` for a deployment name (`options.deployment`, else `model`). Throws
/// parley::error (`code`) for an empty name or one with a character other than letters, digits
/// and -._ (it is a segment of the request's path).
inline std::string deployment_path(const options& o, std::string_view model, errc code = errc::chat_invalid) {
    const std::string_view name = o.deployment.empty() ? model : std::string_view(o.deployment);
    if (name.empty())
        throw error(code, "the request has no model: with Azure OpenAI the model names the deployment (set 'model', or "
                          "client_config::azure.deployment)");
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                        c == '.' || c == '_';
        if (!ok || name == "." || name == "..")
            throw error(code, "the Azure OpenAI deployment name '" + parley::detail::wire::excerpt(name, 80) +
                                  "' has a character other than letters, digits and -._ (it is part of the request path)");
    }
    return "/deployments/" + std::string(name);
}

/// The call_error of a failed call: an OpenAI-style error body (`{"error": {"message", "type",
/// "param", "code"}}`) gives errc::api_error with its fields, as for OpenAI. A request Azure's
/// content filter refused (`"code": "content_filter"`, HTTP 400) has an `innererror` whose
/// `content_filter_result` says which categories were filtered: the message ends with them,
/// "(Azure content filter: violence (medium), jailbreak (detected); ResponsibleAIPolicyViolation)",
/// and `type` is "content_filter" when the body gives none. Any other body gives
/// errc::http_status with a short excerpt of the body.
inline call_error decode_error(int status, http_headers headers, std::string_view body, const reply_limits& limits = {}) {
    namespace dw = parley::detail::wire;
    call_error e = dw::decode_openai_error(status, std::move(headers), body, limits);
    if (e.api_code != "content_filter" || body.size() > limits.max_body_bytes) return e;
    try {
        const boost::json::value v = dw::parse_bounded(body, limits.max_json_depth, "an error object");
        const auto* err = v.is_object() ? dw::member(v.get_object(), "error") : nullptr;
        const auto* inner = err && err->is_object() ? dw::member(err->get_object(), "innererror") : nullptr;
        std::string filtered;
        std::string inner_code;
        if (inner && inner->is_object()) {
            const auto& io = inner->get_object();
            if (const auto* c = dw::member(io, "code"); c && c->is_string()) inner_code = dw::bounded_text(c->get_string(), 256);
            if (const auto* r = dw::member(io, "content_filter_result"); r && r->is_object())
                for (const auto& category : r->get_object()) {
                    const auto* co = category.value().if_object();
                    if (!co) continue;
                    const auto* f = dw::member(*co, "filtered");
                    if (!f || !f->is_bool() || !f->get_bool()) continue;
                    if (!filtered.empty()) filtered += ", ";
                    filtered += dw::bounded_text(category.key(), 64);
                    if (const auto* s = dw::member(*co, "severity"); s && s->is_string())
                        filtered += " (" + dw::bounded_text(s->get_string(), 32) + ")";
                    else if (const auto* d = dw::member(*co, "detected"); d && d->is_bool() && d->get_bool())
                        filtered += " (detected)";
                }
        }
        std::string note = "Azure content filter";
        if (!filtered.empty()) note += ": " + filtered;
        if (!inner_code.empty()) note += "; " + inner_code;
        e.message += (e.message.empty() ? "(" : " (") + note + ")";
        if (e.type.empty()) e.type = "content_filter";
    } catch (const dw::wire_failure&) {
    }
    return e;
}

}  // namespace parley::azure

#endif
