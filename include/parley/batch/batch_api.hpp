// parley/batch/batch_api.hpp: the wire formats of the providers' batch APIs, without networking:
// OpenAI's Batch API (a JSONL file of `{custom_id, method, url, body}` lines uploaded to
// /v1/files, a batch made with /v1/batches, an output file and an error file of result lines)
// and Anthropic's Message Batches API (`{requests: [{custom_id, params}]}` to /v1/messages/batches,
// a results file of `{custom_id, result}` lines). Everything read here comes from a server: every
// problem is a message saying where, what was expected and what was found.
#ifndef PARLEY_BATCH_BATCH_API_HPP
#define PARLEY_BATCH_BATCH_API_HPP

#include <parley/detail/json_kind.hpp>
#include <parley/error.hpp>
#include <parley/net/call_error.hpp>
#include <parley/net/headers.hpp>

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley {

/// A provider's batch API.
enum class batch_api : std::uint8_t {
    openai,  ///< OpenAI's Batch API: a JSONL file uploaded to /v1/files, a batch made by /v1/batches
    anthropic,  ///< Anthropic's Message Batches API: /v1/messages/batches
};

/// "openai-batch" or "anthropic-batch" (the names of `parley batch --via`).
constexpr std::string_view batch_api_name(batch_api a) noexcept {
    return a == batch_api::openai ? "openai-batch" : "anthropic-batch";
}

/// The batch API named `name` ("openai-batch", "anthropic-batch"); empty for another name.
constexpr std::optional<batch_api> batch_api_from_name(std::string_view name) noexcept {
    if (name == "openai-batch") return batch_api::openai;
    if (name == "anthropic-batch") return batch_api::anthropic;
    return std::nullopt;
}

/// The bounds of one batch: its requests, and its bytes (OpenAI: the JSONL file; Anthropic: the
/// body of the request that creates it). 0: the provider's.
struct batch_limits {
    std::size_t max_requests = 0;
    std::size_t max_bytes = 0;
};

/// The provider's bounds of one batch: OpenAI 50,000 requests and a file of 200 MB, Anthropic
/// 100,000 requests and 256 MB.
constexpr batch_limits provider_batch_limits(batch_api a) noexcept {
    if (a == batch_api::openai) return {50'000, 200'000'000};
    return {100'000, 256'000'000};
}

/// One request of a batch: its custom_id (1 to 64 characters of [a-zA-Z0-9_-], unique in its
/// batch) and its body, the JSON text of the request as the endpoint takes it (a chat
/// completion's body, a Messages body...).
struct provider_batch_request {
    std::string custom_id;
    std::string body;
};

/// A batch as its API describes it.
struct provider_batch_status {
    std::string id;
    /// The API's word: OpenAI's validating, in_progress, finalizing, completed, failed, expired,
    /// cancelling or cancelled; Anthropic's in_progress, canceling or ended.
    std::string status;
    bool ended = false;  ///< no request will change any more: the results can be read
    std::size_t total = 0;  ///< requests in the batch
    std::size_t succeeded = 0;  ///< OpenAI's `completed`, Anthropic's `succeeded`
    std::size_t errored = 0;  ///< OpenAI's `failed`, Anthropic's `errored`
    std::size_t processing = 0;  ///< Anthropic's requests not done yet
    std::size_t canceled = 0;  ///< Anthropic
    std::size_t expired = 0;  ///< Anthropic
    std::string input_file_id;  ///< OpenAI: the uploaded file of requests
    std::string output_file_id;  ///< OpenAI: the results of the requests that got a 2xx reply ("" when none)
    std::string error_file_id;  ///< OpenAI: the results of the others ("" when none)
    std::string results_url;  ///< Anthropic: where the results are, once ended
    std::string errors;  ///< OpenAI: why a failed batch failed (its `errors`, in words)

    /// Whether the batch ended because it was cancelled (OpenAI's cancelled, an Anthropic batch
    /// whose end followed a cancellation is `ended`: its results say which requests were canceled).
    bool cancelled() const noexcept { return status == "cancelled"; }
};

/// The result of one request of an ended batch.
struct provider_batch_result {
    enum class kind : std::uint8_t {
        succeeded,  ///< the request got its reply (`body`)
        errored,  ///< it failed: an error reply (`body`, with `status` for OpenAI) or an error of the batch (`error_code`)
        expired,  ///< the batch expired before the request ran
        canceled,  ///< the batch was cancelled before the request ran
    };
    std::string custom_id;
    kind outcome = kind::errored;
    int status = 0;  ///< OpenAI: the request's HTTP status; Anthropic: 200 for a success, 0 otherwise
    std::string request_id;  ///< the request's id, when the API gives one
    std::string body;  ///< the JSON text of the reply, or of the API's error object ("" when none)
    std::string error_code;  ///< an error without a reply: OpenAI's `error.code`, Anthropic's error type
    std::string error_message;  ///< its message
};

/// Whether `id` can be a custom_id of both APIs: 1 to 64 characters of [a-zA-Z0-9_-].
constexpr bool valid_custom_id(std::string_view id) noexcept {
    if (id.empty() || id.size() > 64) return false;
    for (char c : id)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
    return true;
}

namespace detail::batch_wire {

/// The depth of JSON a batch object or a result line may have (a reply inside a result line
/// included).
inline constexpr unsigned max_depth = 128;

/// An id a server gives (a batch, a file): it goes into request paths, so only 1 to 256
/// characters of [a-zA-Z0-9_.:-].
inline bool valid_object_id(std::string_view id) noexcept {
    if (id.empty() || id.size() > 256) return false;
    for (char c : id)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' ||
              c == ':'))
            return false;
    return true;
}

/// `text` as JSON for a message, at most `n` bytes of it.
inline std::string json_excerpt(std::string_view text, std::size_t n = 80) {
    if (text.size() > n) {
        while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
        return boost::json::serialize(boost::json::value(text.substr(0, n))) + "...";
    }
    return boost::json::serialize(boost::json::value(text));
}

/// A malformed object: thrown by the readers below, caught at the public functions.
struct bad_shape {
    std::string message;
};

[[noreturn]] inline void bad(const std::string& where, std::string_view expected, const boost::json::value* found) {
    throw bad_shape{where + ": expected " + std::string(expected) + ", found " +
                    (found ? std::string(parley::detail::json_kind_name(*found)) : std::string("nothing"))};
}

/// `v` as an object; anything else is malformed, named `where` followed by `member` (as
/// "batch.errors"). The names are an lvalue and a pointer rather than one concatenated temporary:
/// g++ 13 and 14 take a reference returned by a call with a temporary argument for one into it
/// (-Wdangling-reference).
inline const boost::json::object& object_of(const boost::json::value& v, const std::string& where,
                                            const char* member = nullptr) {
    if (!v.is_object()) bad(member ? where + member : where, "an object", &v);
    return v.get_object();
}

/// The string member `key` ("" when it is absent or null); anything else is malformed.
inline std::string string_member(const boost::json::object& o, std::string_view key, const std::string& where,
                                 bool required = false) {
    const boost::json::value* v = o.if_contains(key);
    if ((!v || v->is_null()) && !required) return {};
    if (!v || !v->is_string()) bad(where + "." + std::string(key), "a string", v);
    return std::string(v->get_string());
}

/// The count `key` of a request_counts object (0 when absent).
inline std::size_t count_member(const boost::json::object& o, std::string_view key, const std::string& where) {
    const boost::json::value* v = o.if_contains(key);
    if (!v || v->is_null()) return 0;
    if (const auto* i = v->if_int64(); i && *i >= 0) return static_cast<std::size_t>(*i);
    if (const auto* u = v->if_uint64()) return static_cast<std::size_t>(*u);
    bad(where + "." + std::string(key), "a count (an integer, 0 or more)", v);
}

inline boost::json::value parse(std::string_view text, const std::string& what) {
    boost::json::parse_options po;
    po.max_depth = max_depth;
    boost::system::error_code ec;
    boost::json::value v = boost::json::parse(text, ec, {}, po);
    if (ec) throw bad_shape{what + " is not JSON (" + ec.message() + "): " + json_excerpt(text)};
    return v;
}

/// The object id of `key`, which must be one (valid_object_id) when present.
inline std::string id_member(const boost::json::object& o, std::string_view key, const std::string& where, bool required) {
    std::string id = string_member(o, key, where, required);
    if ((required || !id.empty()) && !valid_object_id(id))
        throw bad_shape{where + "." + std::string(key) + ": expected an id of 1 to 256 letters, digits and _.:-, found " + json_excerpt(id)};
    return id;
}

inline provider_batch_status read_status(batch_api api, const boost::json::value& v) {
    const std::string where = api == batch_api::openai ? "batch" : "message_batch";
    const auto& o = object_of(v, where);
    provider_batch_status s;
    s.id = id_member(o, "id", where, true);
    if (api == batch_api::openai) {
        s.status = string_member(o, "status", where, true);
        s.ended = s.status == "completed" || s.status == "failed" || s.status == "expired" || s.status == "cancelled";
        s.input_file_id = id_member(o, "input_file_id", where, false);
        s.output_file_id = id_member(o, "output_file_id", where, false);
        s.error_file_id = id_member(o, "error_file_id", where, false);
        if (const auto* c = o.if_contains("request_counts"); c && !c->is_null()) {
            const auto& co = object_of(*c, where, ".request_counts");
            s.total = count_member(co, "total", where + ".request_counts");
            s.succeeded = count_member(co, "completed", where + ".request_counts");
            s.errored = count_member(co, "failed", where + ".request_counts");
        }
        if (const auto* e = o.if_contains("errors"); e && !e->is_null()) {
            const auto& eo = object_of(*e, where, ".errors");
            if (const auto* data = eo.if_contains("data"); data && data->is_array()) {
                for (const auto& item : data->get_array()) {
                    if (!item.is_object()) continue;
                    const auto& io = item.get_object();
                    std::string one;
                    if (const auto* line = io.if_contains("line"); line && line->is_int64()) one += "line " + std::to_string(line->get_int64()) + ": ";
                    if (const auto* m = io.if_contains("message"); m && m->is_string()) one += std::string(m->get_string());
                    if (const auto* c = io.if_contains("code"); c && c->is_string()) one += " (" + std::string(c->get_string()) + ")";
                    if (s.errors.size() < 4096) s.errors += (s.errors.empty() ? "" : "; ") + one;
                }
            }
        }
    } else {
        s.status = string_member(o, "processing_status", where, true);
        s.ended = s.status == "ended";
        s.results_url = string_member(o, "results_url", where, false);
        if (const auto* c = o.if_contains("request_counts"); c && !c->is_null()) {
            const auto& co = object_of(*c, where, ".request_counts");
            s.processing = count_member(co, "processing", where + ".request_counts");
            s.succeeded = count_member(co, "succeeded", where + ".request_counts");
            s.errored = count_member(co, "errored", where + ".request_counts");
            s.canceled = count_member(co, "canceled", where + ".request_counts");
            s.expired = count_member(co, "expired", where + ".request_counts");
            s.total = s.processing + s.succeeded + s.errored + s.canceled + s.expired;
        }
        if (s.ended && s.results_url.empty()) throw bad_shape{where + ".results_url: expected a URL once the batch has ended, found nothing"};
    }
    return s;
}

inline provider_batch_result read_result(batch_api api, const boost::json::value& v, const std::string& where) {
    const auto& o = object_of(v, where);
    provider_batch_result r;
    r.custom_id = string_member(o, "custom_id", where, true);
    if (api == batch_api::openai) {
        const boost::json::value* response = o.if_contains("response");
        const boost::json::value* error = o.if_contains("error");
        if (response && !response->is_null()) {
            const auto& ro = object_of(*response, where, ".response");
            const boost::json::value* status = ro.if_contains("status_code");
            if (!status || !status->is_int64() || status->get_int64() < 100 || status->get_int64() > 599)
                bad(where + ".response.status_code", "an HTTP status", status);
            r.status = static_cast<int>(status->get_int64());
            r.request_id = string_member(ro, "request_id", where + ".response");
            const boost::json::value* body = ro.if_contains("body");
            if (!body || body->is_null()) bad(where + ".response.body", "the reply's body", body);
            r.body = body->is_string() ? std::string(body->get_string()) : boost::json::serialize(*body);
            r.outcome = r.status >= 200 && r.status <= 299 ? provider_batch_result::kind::succeeded : provider_batch_result::kind::errored;
        } else if (error && !error->is_null()) {
            const auto& eo = object_of(*error, where, ".error");
            r.error_code = string_member(eo, "code", where + ".error");
            r.error_message = string_member(eo, "message", where + ".error");
            if (r.error_code == "batch_expired") r.outcome = provider_batch_result::kind::expired;
            else if (r.error_code == "batch_cancelled") r.outcome = provider_batch_result::kind::canceled;
            else r.outcome = provider_batch_result::kind::errored;
        } else {
            throw bad_shape{where + ": expected a \"response\" or an \"error\", found neither"};
        }
        return r;
    }
    const boost::json::value* result = o.if_contains("result");
    if (!result) bad(where + ".result", "an object", result);
    const auto& ro = object_of(*result, where, ".result");
    const std::string type = string_member(ro, "type", where + ".result", true);
    if (type == "succeeded") {
        const boost::json::value* message = ro.if_contains("message");
        if (!message || !message->is_object()) bad(where + ".result.message", "a message object", message);
        r.outcome = provider_batch_result::kind::succeeded;
        r.status = 200;
        r.body = boost::json::serialize(*message);
    } else if (type == "errored") {
        const boost::json::value* err = ro.if_contains("error");
        if (!err || !err->is_object()) bad(where + ".result.error", "an error object", err);
        r.outcome = provider_batch_result::kind::errored;
        r.body = boost::json::serialize(*err);
        r.request_id = string_member(err->get_object(), "request_id", where + ".result.error");
    } else if (type == "expired") {
        r.outcome = provider_batch_result::kind::expired;
    } else if (type == "canceled") {
        r.outcome = provider_batch_result::kind::canceled;
    } else {
        throw bad_shape{where + ".result.type: expected \"succeeded\", \"errored\", \"expired\" or \"canceled\", found " + json_excerpt(type)};
    }
    return r;
}

}  // namespace detail::batch_wire

/// The JSONL line (with its line break) of a request of an OpenAI batch to `endpoint`
/// ("/v1/chat/completions", "/v1/responses", "/v1/embeddings"): `{"custom_id", "method": "POST",
/// "url", "body"}`. The body is written as it is: it must be a JSON object's text.
inline std::string openai_batch_line(const provider_batch_request& r, std::string_view endpoint) {
    std::string out = "{\"custom_id\":";
    out += boost::json::serialize(boost::json::value(r.custom_id));
    out += ",\"method\":\"POST\",\"url\":";
    out += boost::json::serialize(boost::json::value(endpoint));
    out += ",\"body\":";
    out += r.body;
    out += "}\n";
    return out;
}

/// One element of the `requests` of an Anthropic batch: `{"custom_id", "params"}`, the body as
/// the params.
inline std::string anthropic_batch_entry(const provider_batch_request& r) {
    std::string out = "{\"custom_id\":";
    out += boost::json::serialize(boost::json::value(r.custom_id));
    out += ",\"params\":";
    out += r.body;
    out += '}';
    return out;
}

/// A batch object of `api` (OpenAI's `batch`, Anthropic's `message_batch`) from its JSON text;
/// errc::protocol with what was expected and found when it is not one.
inline boost::system::result<provider_batch_status, call_error> read_batch_status(batch_api api, std::string_view body) {
    try {
        return detail::batch_wire::read_status(api, detail::batch_wire::parse(body, "the batch object"));
    } catch (const detail::batch_wire::bad_shape& b) {
        call_error e;
        e.code = make_error_code(errc::protocol);
        e.message = b.message;
        return e;
    }
}

/// The result lines of a results file of `api` (OpenAI's output or error file, Anthropic's
/// results), appended to `out` (blank lines are skipped); errc::protocol naming the line when
/// one is not a result line.
inline boost::system::result<void, call_error> read_batch_results(batch_api api, std::string_view file,
                                                                  std::vector<provider_batch_result>& out) {
    std::size_t number = 0;
    try {
        while (!file.empty()) {
            const std::size_t nl = file.find('\n');
            std::string_view line = file.substr(0, nl);
            file = nl == std::string_view::npos ? std::string_view() : file.substr(nl + 1);
            ++number;
            if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
            if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
            const std::string where = "results line " + std::to_string(number);
            out.push_back(detail::batch_wire::read_result(api, detail::batch_wire::parse(line, where), where));
        }
    } catch (const detail::batch_wire::bad_shape& b) {
        call_error e;
        e.code = make_error_code(errc::protocol);
        e.message = b.message;
        return e;
    }
    return {};
}

}  // namespace parley

#endif
