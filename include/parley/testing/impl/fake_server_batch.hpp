// parley/testing/impl/fake_server_batch.hpp: the fake server's batch APIs: OpenAI's files
// (/v1/files: a multipart upload, the object, its content) and batches (/v1/batches: create,
// retrieve, list, cancel; an output file and an error file of result lines), and Anthropic's
// Message Batches (/v1/messages/batches: create, retrieve, list, results, cancel). Each request
// of a batch is answered from the script as a chat request on its route would be (without
// streaming); a batch moves through its states one step per retrieval (fake_batch_options).
// Included by impl/fake_server.hpp, whose answer() hands these routes to batch_store::handle.
#ifndef PARLEY_TESTING_IMPL_FAKE_SERVER_BATCH_HPP
#define PARLEY_TESTING_IMPL_FAKE_SERVER_BATCH_HPP

#include <parley/testing/fake_server.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <cstdint>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::testing::detail {

/// The batch routes, told from the last segments of a path (the query left off), or nothing.
inline std::optional<fake_route> batch_route_of_path(std::string_view path) {
    std::vector<std::string_view> seg;
    while (!path.empty()) {
        const auto slash = path.rfind('/');
        if (slash == std::string_view::npos) {
            seg.push_back(path);
            break;
        }
        if (slash + 1 < path.size()) seg.push_back(path.substr(slash + 1));
        path = path.substr(0, slash);
        if (seg.size() == 4) break;
    }
    // seg[0] is the last segment
    auto at = [&](std::size_t i) { return i < seg.size() ? seg[i] : std::string_view(); };
    auto family = [&](std::size_t batches_at) -> std::optional<fake_route> {
        return at(batches_at + 1) == "messages" ? fake_route::message_batches : fake_route::batches;
    };
    if (at(0) == "files" || at(1) == "files" || (at(2) == "files" && at(0) == "content")) return fake_route::files;
    if (at(0) == "batches") return family(0);
    if (at(1) == "batches") return family(1);
    if (at(2) == "batches" && (at(0) == "cancel" || at(0) == "results")) return family(2);
    return std::nullopt;
}

/// One part of a multipart/form-data body.
struct form_part {
    std::string name;
    std::string filename;
    std::string content;
};

/// The parts of a multipart/form-data body with this boundary; nothing when it is not one.
inline std::optional<std::vector<form_part>> form_parts(std::string_view body, std::string_view boundary) {
    const std::string dash = "--" + std::string(boundary);
    std::vector<form_part> parts;
    std::size_t at = body.find(dash);
    if (at == std::string_view::npos) return std::nullopt;
    for (;;) {
        at += dash.size();
        if (body.substr(at, 2) == "--") return parts;  // the closing delimiter
        if (body.substr(at, 2) != "\r\n") return std::nullopt;
        at += 2;
        const std::size_t head_end = body.find("\r\n\r\n", at);
        if (head_end == std::string_view::npos) return std::nullopt;
        const std::string_view head = body.substr(at, head_end - at);
        const std::size_t next = body.find("\r\n" + dash, head_end + 4);
        if (next == std::string_view::npos) return std::nullopt;
        form_part p;
        p.content = std::string(body.substr(head_end + 4, next - head_end - 4));
        auto param = [&](std::string_view key) -> std::string {
            const std::string k = std::string(key) + "=\"";
            std::size_t from = 0;
            for (;;) {
                const std::size_t i = head.find(k, from);
                if (i == std::string_view::npos) return {};
                // a whole parameter name: `name=` is not the end of `filename=`
                if (i == 0 || head[i - 1] == ' ' || head[i - 1] == ';') {
                    const std::size_t end = head.find('"', i + k.size());
                    if (end == std::string_view::npos) return {};
                    return std::string(head.substr(i + k.size(), end - i - k.size()));
                }
                from = i + 1;
            }
        };
        p.name = param("name");
        p.filename = param("filename");
        parts.push_back(std::move(p));
        at = next + 2;
    }
}

/// The boundary parameter of a multipart/form-data content type; "" when it is not one.
inline std::string form_boundary(std::string_view content_type) {
    const auto semi = content_type.find(';');
    std::string_view type = content_type.substr(0, semi);
    while (!type.empty() && type.back() == ' ') type.remove_suffix(1);
    if (!iequals(type, "multipart/form-data") || semi == std::string_view::npos) return {};
    const auto b = content_type.find("boundary=", semi);
    if (b == std::string_view::npos) return {};
    std::string_view v = content_type.substr(b + 9);
    v = v.substr(0, v.find(';'));
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    return std::string(v);
}

/// The answer to one request of a batch: its status and body.
struct line_answer {
    unsigned status = 200;
    std::string body;
};

/// What a batch route answers.
struct batch_reply {
    unsigned status = 200;
    std::string content_type = "application/json";
    std::string body;
};

/// The files and batches of the fake server, and the answers of their routes. Thread-safe.
class batch_store {
public:
    /// Answers one request of a batch (route, body, request id) from the script.
    using answerer = std::function<line_answer(fake_route, const std::string& body, const std::string& request_id)>;

    void configure(const fake_batch_options& options) {
        std::lock_guard lock(mutex_);
        options_ = options;
    }

    /// Answers a request on a batch route. `path` is the request's path without its query,
    /// `origin` "http://HOST" as the client reached the server (for results URLs).
    batch_reply handle(fake_route route, std::string_view method, std::string_view path, std::string_view content_type,
                       const std::string& body, const std::string& origin, const std::string& request_id, const answerer& answer) {
        std::lock_guard lock(mutex_);
        std::vector<std::string_view> seg;
        for (std::size_t i = 0; i < path.size();) {
            const std::size_t j = path.find('/', i);
            const std::size_t end = j == std::string_view::npos ? path.size() : j;
            if (end > i) seg.push_back(path.substr(i, end - i));
            i = end + 1;
        }
        const std::string_view family = route == fake_route::files ? "files" : "batches";
        std::size_t k = seg.size();
        while (k > 0 && seg[k - 1] != family) --k;
        const std::vector<std::string_view> rest(seg.begin() + static_cast<std::ptrdiff_t>(k), seg.end());
        const std::string prefix(path.substr(0, k ? static_cast<std::size_t>(seg[k - 1].data() - path.data()) + seg[k - 1].size() : 0));
        const bool post = method == "POST", get = method == "GET";
        if (route == fake_route::files) {
            if (rest.empty() && post) return upload(content_type, body, request_id);
            if (rest.empty() && get) return list_files();
            if (rest.size() == 1 && get) return file_object(std::string(rest[0]), request_id);
            if (rest.size() == 1 && method == "DELETE") return delete_file(std::string(rest[0]), request_id);
            if (rest.size() == 2 && rest[1] == "content" && get) return file_content(std::string(rest[0]), request_id);
        } else if (route == fake_route::batches) {
            if (rest.empty() && post) return create_openai(body, request_id);
            if (rest.empty() && get) return list_batches(false, origin, prefix);
            if (rest.size() == 1 && get) return retrieve(false, std::string(rest[0]), request_id, origin, prefix, answer);
            if (rest.size() == 2 && rest[1] == "cancel" && post) return cancel(false, std::string(rest[0]), request_id, origin, prefix);
        } else {
            if (rest.empty() && post) return create_anthropic(body, request_id);
            if (rest.empty() && get) return list_batches(true, origin, prefix);
            if (rest.size() == 1 && get) return retrieve(true, std::string(rest[0]), request_id, origin, prefix, answer);
            if (rest.size() == 2 && rest[1] == "results" && get) return results(std::string(rest[0]), request_id);
            if (rest.size() == 2 && rest[1] == "cancel" && post) return cancel(true, std::string(rest[0]), request_id, origin, prefix);
        }
        const fake_route shape = route == fake_route::message_batches ? fake_route::anthropic : fake_route::openai;
        // a path of the API with another method is 405, any other path 404
        const std::string_view last = rest.size() == 2 ? rest[1] : std::string_view();
        const bool known = rest.size() < 2 || (route == fake_route::files ? last == "content"
                                               : route == fake_route::batches ? last == "cancel"
                                                                              : last == "cancel" || last == "results");
        return error(shape, known ? 405 : 404, known ? "invalid_request_error" : "not_found_error",
                     known ? "Method " + std::string(method) + " is not allowed here" : "Invalid URL (" + std::string(method) + " " + std::string(path) + ")",
                     request_id);
    }

private:
    struct batch_limits_of_options {
        std::size_t requests = 0;
        std::size_t bytes = 0;
    };
    struct file {
        std::string id, filename, purpose, bytes;
        std::int64_t created = 0;
    };
    struct request {
        std::string custom_id;
        fake_route route = fake_route::openai;
        std::string body;
        bool answered = false;
        line_answer reply;
        std::string request_id;
    };
    enum class phase { validating, in_progress, finalizing, cancelling, ended };
    struct batch {
        bool anthropic = false;
        std::string id, endpoint, input_file_id, metadata = "null";
        std::vector<request> requests;
        std::string errors;  // OpenAI: the `errors.data` items of a file that does not validate
        phase at = phase::validating;
        std::string status;  // the final status once ended
        std::size_t seen = 0, answered = 0;
        std::int64_t created_at = 0, in_progress_at = 0, finalizing_at = 0, ended_at = 0, cancelling_at = 0;
        std::string output_file_id, error_file_id, results;
    };

    static std::int64_t now() { return static_cast<std::int64_t>(std::time(nullptr)); }
    static std::string time_text(std::int64_t t) {
        return rfc3339(std::chrono::system_clock::time_point(std::chrono::seconds(t)));
    }
    static std::string at_or_null(std::int64_t t) { return t ? std::to_string(t) : std::string("null"); }
    static std::string time_or_null(std::int64_t t) { return t ? json_string(time_text(t)) : std::string("null"); }

    static batch_reply error(fake_route shape, unsigned status, const std::string& type, const std::string& message,
                             const std::string& request_id, const std::string& param = {}) {
        batch_reply r;
        r.status = status;
        if (shape == fake_route::anthropic)
            r.body = error_body(shape, type, message, request_id);
        else
            r.body = "{\"error\":{\"message\":" + json_string(message) + ",\"type\":" + json_string(type) +
                     ",\"param\":" + (param.empty() ? std::string("null") : json_string(param)) + ",\"code\":null}}";
        return r;
    }

    batch_limits_of_options limits(bool anthropic) const {
        batch_limits_of_options l;
        l.requests = options_.max_requests ? options_.max_requests : anthropic ? 100'000 : 50'000;
        l.bytes = options_.max_bytes ? options_.max_bytes : anthropic ? 256'000'000 : 200'000'000;
        return l;
    }

    std::string file_json(const file& f) const {
        return "{\"id\":" + json_string(f.id) + ",\"object\":\"file\",\"bytes\":" + std::to_string(f.bytes.size()) +
               ",\"created_at\":" + std::to_string(f.created) + ",\"filename\":" + json_string(f.filename) +
               ",\"purpose\":" + json_string(f.purpose) + ",\"status\":\"processed\",\"expires_at\":null,\"status_details\":null}";
    }

    std::string add_file(std::string filename, std::string purpose, std::string bytes) {
        file f;
        f.id = "file-fake-" + std::to_string(++files_made_);
        f.filename = std::move(filename);
        f.purpose = std::move(purpose);
        f.bytes = std::move(bytes);
        f.created = now();
        const std::string id = f.id;
        files_.emplace(id, std::move(f));
        return id;
    }

    batch_reply upload(std::string_view content_type, const std::string& body, const std::string& request_id) {
        const std::string boundary = form_boundary(content_type);
        if (boundary.empty())
            return error(fake_route::openai, 400, "invalid_request_error", "the body must be multipart/form-data with a boundary", request_id);
        const auto parts = form_parts(body, boundary);
        if (!parts) return error(fake_route::openai, 400, "invalid_request_error", "the multipart body does not parse", request_id);
        const form_part* purpose = nullptr;
        const form_part* content = nullptr;
        for (const auto& p : *parts) {
            if (p.name == "purpose") purpose = &p;
            if (p.name == "file") content = &p;
        }
        if (!purpose) return error(fake_route::openai, 400, "invalid_request_error", "Missing required parameter: 'purpose'.", request_id, "purpose");
        if (!content || content->filename.empty())
            return error(fake_route::openai, 400, "invalid_request_error", "Missing required parameter: 'file'.", request_id, "file");
        static const std::set<std::string> purposes{"assistants", "batch", "fine-tune", "vision", "user_data", "evals"};
        if (!purposes.count(purpose->content))
            return error(fake_route::openai, 400, "invalid_request_error", "'" + purpose->content + "' is not one of the purposes", request_id, "purpose");
        if (purpose->content == "batch" && !content->filename.ends_with(".jsonl"))
            return error(fake_route::openai, 400, "invalid_request_error", "Invalid file format for Batch API. Must be .jsonl", request_id, "file");
        const std::string id = add_file(content->filename, purpose->content, content->content);
        batch_reply r;
        r.body = file_json(files_.at(id));
        return r;
    }

    batch_reply list_files() const {
        std::string out = "{\"object\":\"list\",\"data\":[";
        bool first = true;
        for (const auto& [id, f] : files_) {
            out += (first ? "" : ",") + file_json(f);
            first = false;
        }
        batch_reply r;
        r.body = out + "],\"has_more\":false}";
        return r;
    }

    batch_reply file_object(const std::string& id, const std::string& request_id) const {
        const auto it = files_.find(id);
        if (it == files_.end()) return error(fake_route::openai, 404, "invalid_request_error", "No such File object: " + id, request_id, "id");
        batch_reply r;
        r.body = file_json(it->second);
        return r;
    }

    batch_reply delete_file(const std::string& id, const std::string& request_id) {
        if (!files_.erase(id)) return error(fake_route::openai, 404, "invalid_request_error", "No such File object: " + id, request_id, "id");
        batch_reply r;
        r.body = "{\"id\":" + json_string(id) + ",\"object\":\"file\",\"deleted\":true}";
        return r;
    }

    batch_reply file_content(const std::string& id, const std::string& request_id) const {
        const auto it = files_.find(id);
        if (it == files_.end()) return error(fake_route::openai, 404, "invalid_request_error", "No such File object: " + id, request_id, "id");
        batch_reply r;
        r.content_type = "application/octet-stream";
        r.body = it->second.bytes;
        return r;
    }

    /// The route of an OpenAI batch endpoint, or nothing for one the server does not answer.
    static std::optional<fake_route> endpoint_route(std::string_view endpoint) {
        if (endpoint == "/v1/chat/completions") return fake_route::openai;
        if (endpoint == "/v1/responses") return fake_route::responses;
        if (endpoint == "/v1/embeddings") return fake_route::embeddings;
        return std::nullopt;
    }

    batch_reply create_openai(const std::string& body, const std::string& request_id) {
        boost::system::error_code ec;
        const boost::json::value v = boost::json::parse(body, ec);
        if (ec || !v.is_object()) return error(fake_route::openai, 400, "invalid_request_error", "the body must be a JSON object", request_id);
        const auto& o = v.get_object();
        const auto* file_id = o.if_contains("input_file_id");
        const auto* endpoint = o.if_contains("endpoint");
        const auto* window = o.if_contains("completion_window");
        if (!file_id || !file_id->is_string())
            return error(fake_route::openai, 400, "invalid_request_error", "Missing required parameter: 'input_file_id'.", request_id, "input_file_id");
        if (!endpoint || !endpoint->is_string())
            return error(fake_route::openai, 400, "invalid_request_error", "Missing required parameter: 'endpoint'.", request_id, "endpoint");
        if (!window || *window != "24h")
            return error(fake_route::openai, 400, "invalid_request_error", "'completion_window' must be '24h'.", request_id, "completion_window");
        const std::string endpoint_text(endpoint->get_string());
        const auto route = endpoint_route(endpoint_text);
        if (!route)
            return error(fake_route::openai, 400, "invalid_request_error",
                         "fake server: the endpoint " + endpoint_text + " is not served (/v1/chat/completions, /v1/responses, /v1/embeddings)",
                         request_id, "endpoint");
        const auto f = files_.find(std::string(file_id->get_string()));
        if (f == files_.end())
            return error(fake_route::openai, 400, "invalid_request_error", "No such File object: " + std::string(file_id->get_string()),
                         request_id, "input_file_id");
        if (f->second.purpose != "batch")
            return error(fake_route::openai, 400, "invalid_request_error", "The file's purpose must be 'batch'.", request_id, "input_file_id");
        batch b;
        b.id = "batch_fake_" + std::to_string(++batches_made_);
        b.endpoint = endpoint_text;
        b.input_file_id = f->first;
        b.created_at = now();
        if (const auto* m = o.if_contains("metadata"); m && m->is_object()) b.metadata = boost::json::serialize(*m);
        validate_file(b, f->second.bytes, *route);
        const std::string id = b.id;
        batches_.emplace(id, std::move(b));
        order_.push_back(id);
        batch_reply r;
        r.body = openai_json(batches_.at(id));
        return r;
    }

    /// Reads an OpenAI batch's file into its requests; what does not validate goes to `errors`
    /// (the batch then fails after validating).
    void validate_file(batch& b, std::string_view bytes, fake_route route) {
        std::size_t number = 0;
        std::set<std::string> custom_ids;
        auto problem = [&](const std::string& code, const std::string& message, std::size_t line) {
            if (b.errors.size() > 64 * 1024) return;
            b.errors += (b.errors.empty() ? "" : ",") + std::string("{\"code\":") + json_string(code) +
                        ",\"message\":" + json_string(message) + ",\"param\":null,\"line\":" + (line ? std::to_string(line) : "null") + "}";
        };
        const auto l = limits(false);
        if (bytes.size() > l.bytes)
            problem("file_too_large", "fake server: the file has " + std::to_string(bytes.size()) + " bytes, more than " + std::to_string(l.bytes), 0);
        while (!bytes.empty()) {
            const std::size_t nl = bytes.find('\n');
            std::string_view line = bytes.substr(0, nl);
            bytes = nl == std::string_view::npos ? std::string_view() : bytes.substr(nl + 1);
            ++number;
            if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
            boost::system::error_code ec;
            const boost::json::value v = boost::json::parse(line, ec);
            if (ec || !v.is_object()) {
                problem("invalid_json_line", "This line is not parseable as valid JSON.", number);
                continue;
            }
            const auto& o = v.get_object();
            const auto* custom_id = o.if_contains("custom_id");
            const auto* method = o.if_contains("method");
            const auto* url = o.if_contains("url");
            const auto* body = o.if_contains("body");
            if (!custom_id || !custom_id->is_string()) {
                problem("missing_required_parameter", "The request is missing the required parameter 'custom_id'.", number);
                continue;
            }
            if (!custom_ids.insert(std::string(custom_id->get_string())).second) {
                problem("duplicate_custom_id",
                        "The custom_id for this request is a duplicate of another request. The custom_id parameter must be unique for each "
                        "request in a batch.",
                        number);
                continue;
            }
            if (!method || *method != "POST") {
                problem("invalid_method", "The method for this request must be 'POST'.", number);
                continue;
            }
            if (!url || !url->is_string() || url->get_string() != b.endpoint) {
                problem("invalid_url", "The URL provided for this request does not match the batch endpoint.", number);
                continue;
            }
            if (!body || !body->is_object()) {
                problem("invalid_body", "The body of this request must be a JSON object.", number);
                continue;
            }
            request r;
            r.custom_id = std::string(custom_id->get_string());
            r.route = route;
            r.body = boost::json::serialize(*body);
            b.requests.push_back(std::move(r));
        }
        if (b.requests.empty() && b.errors.empty()) problem("empty_file", "The batch input file is empty.", 0);
        if (b.requests.size() > l.requests)
            problem("too_many_requests",
                    "fake server: the file has " + std::to_string(b.requests.size()) + " requests, more than " + std::to_string(l.requests), 0);
    }

    batch_reply create_anthropic(const std::string& body, const std::string& request_id) {
        const auto l = limits(true);
        if (body.size() > l.bytes)
            return error(fake_route::anthropic, 413, "request_too_large",
                         "fake server: the batch has " + std::to_string(body.size()) + " bytes, more than " + std::to_string(l.bytes), request_id);
        boost::system::error_code ec;
        const boost::json::value v = boost::json::parse(body, ec);
        if (ec || !v.is_object()) return error(fake_route::anthropic, 400, "invalid_request_error", "the body must be a JSON object", request_id);
        const auto* list = v.get_object().if_contains("requests");
        if (!list || !list->is_array() || list->get_array().empty())
            return error(fake_route::anthropic, 400, "invalid_request_error", "requests: must be a non-empty array", request_id);
        if (list->get_array().size() > l.requests)
            return error(fake_route::anthropic, 400, "invalid_request_error",
                         "requests: at most " + std::to_string(l.requests) + " requests, found " + std::to_string(list->get_array().size()),
                         request_id);
        batch b;
        b.anthropic = true;
        b.id = "msgbatch_fake_" + std::to_string(++batches_made_);
        b.endpoint = "/v1/messages";
        b.created_at = now();
        b.at = phase::in_progress;
        b.in_progress_at = b.created_at;
        std::set<std::string> custom_ids;
        for (std::size_t i = 0; i < list->get_array().size(); ++i) {
            const auto& item = list->get_array()[i];
            const std::string at = "requests." + std::to_string(i);
            if (!item.is_object()) return error(fake_route::anthropic, 400, "invalid_request_error", at + ": must be an object", request_id);
            const auto* custom_id = item.get_object().if_contains("custom_id");
            const auto* params = item.get_object().if_contains("params");
            if (!custom_id || !custom_id->is_string())
                return error(fake_route::anthropic, 400, "invalid_request_error", at + ".custom_id: Field required", request_id);
            const std::string cid(custom_id->get_string());
            bool pattern = !cid.empty() && cid.size() <= 64;
            for (char c : cid)
                pattern = pattern && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-');
            if (!pattern)
                return error(fake_route::anthropic, 400, "invalid_request_error",
                             at + ".custom_id: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'", request_id);
            if (!custom_ids.insert(cid).second)
                return error(fake_route::anthropic, 400, "invalid_request_error",
                             "Found duplicate custom_id " + json_string(cid) + ": each request in a batch needs a unique custom_id", request_id);
            if (!params || !params->is_object())
                return error(fake_route::anthropic, 400, "invalid_request_error", at + ".params: Field required", request_id);
            if (const auto* s = params->get_object().if_contains("stream"); s && *s == true)
                return error(fake_route::anthropic, 400, "invalid_request_error", at + ".params.stream: streaming is not supported in a batch", request_id);
            request r;
            r.custom_id = cid;
            r.route = fake_route::anthropic;
            r.body = boost::json::serialize(*params);
            b.requests.push_back(std::move(r));
        }
        const std::string id = b.id;
        batches_.emplace(id, std::move(b));
        order_.push_back(id);
        batch_reply r;
        r.body = anthropic_json(batches_.at(id), "", "");
        return r;
    }

    batch_reply list_batches(bool anthropic, const std::string& origin, const std::string& prefix) const {
        std::string data, first_id, last_id;
        for (auto it = order_.rbegin(); it != order_.rend(); ++it) {  // the newest first
            const batch& b = batches_.at(*it);
            if (b.anthropic != anthropic) continue;
            if (!data.empty()) data += ',';
            data += anthropic ? anthropic_json(b, origin, prefix) : openai_json(b);
            if (first_id.empty()) first_id = b.id;
            last_id = b.id;
        }
        const std::string ends = "\"first_id\":" + (first_id.empty() ? std::string("null") : json_string(first_id)) +
                                 ",\"last_id\":" + (last_id.empty() ? std::string("null") : json_string(last_id)) + ",\"has_more\":false}";
        batch_reply r;
        r.body = (anthropic ? "{\"data\":[" : "{\"object\":\"list\",\"data\":[") + data + "]," + ends;
        return r;
    }

    batch* find(bool anthropic, const std::string& id) {
        const auto it = batches_.find(id);
        return it == batches_.end() || it->second.anthropic != anthropic ? nullptr : &it->second;
    }

    batch_reply not_found(bool anthropic, const std::string& id, const std::string& request_id) const {
        if (anthropic) return error(fake_route::anthropic, 404, "not_found_error", "No batch with id " + id, request_id);
        return error(fake_route::openai, 404, "invalid_request_error", "No batch found with id '" + id + "'.", request_id, "batch_id");
    }

    batch_reply retrieve(bool anthropic, const std::string& id, const std::string& request_id, const std::string& origin,
                         const std::string& prefix, const answerer& answer) {
        batch* b = find(anthropic, id);
        if (!b) return not_found(anthropic, id, request_id);
        advance(*b, answer);
        batch_reply r;
        r.body = anthropic ? anthropic_json(*b, origin, prefix) : openai_json(*b);
        return r;
    }

    batch_reply cancel(bool anthropic, const std::string& id, const std::string& request_id, const std::string& origin,
                       const std::string& prefix) {
        batch* b = find(anthropic, id);
        if (!b) return not_found(anthropic, id, request_id);
        if (b->at == phase::ended || b->at == phase::cancelling) {
            const std::string state = b->at == phase::ended ? (anthropic ? std::string("ended") : b->status) : std::string("cancelling");
            return error(anthropic ? fake_route::anthropic : fake_route::openai, 400, "invalid_request_error",
                         "Cannot cancel a batch with status '" + state + "'.", request_id);
        }
        b->at = phase::cancelling;
        b->seen = 0;
        b->cancelling_at = now();
        batch_reply r;
        r.body = anthropic ? anthropic_json(*b, origin, prefix) : openai_json(*b);
        return r;
    }

    batch_reply results(const std::string& id, const std::string& request_id) {
        batch* b = find(true, id);
        if (!b) return not_found(true, id, request_id);
        if (b->at != phase::ended)
            return error(fake_route::anthropic, 400, "invalid_request_error", "Batch " + id + " has not ended: no results yet", request_id);
        batch_reply r;
        r.content_type = "application/binary";
        r.body = b->results;
        return r;
    }

    /// Answers the next `n` requests of a batch from the script.
    void answer_next(batch& b, std::size_t n, const answerer& answer) {
        for (; n > 0 && b.answered < b.requests.size(); --n, ++b.answered) {
            request& r = b.requests[b.answered];
            r.request_id = "req_fake_batch_" + std::to_string(++lines_answered_);
            r.reply = answer(r.route, r.body, r.request_id);
            r.answered = true;
        }
    }

    /// One step of a batch's life, at a retrieval.
    void advance(batch& b, const answerer& answer) {
        const std::size_t polls = options_.polls;
        for (;;) {
            switch (b.at) {
            case phase::validating:
                if (b.seen < polls) {
                    ++b.seen;
                    return;
                }
                if (!b.errors.empty()) {
                    finish(b, "failed");
                    return;
                }
                b.at = phase::in_progress;
                b.seen = 0;
                b.in_progress_at = now();
                continue;
            case phase::in_progress:
                if (options_.per_poll == 0 && !options_.expire) answer_next(b, b.requests.size(), answer);
                if (options_.expire ? b.seen < polls : (b.seen < polls || b.answered < b.requests.size())) {
                    ++b.seen;
                    answer_next(b, options_.per_poll, answer);
                    return;
                }
                if (b.answered < b.requests.size()) {
                    finish(b, "expired");
                    return;
                }
                if (b.anthropic) {
                    finish(b, "ended");
                    return;
                }
                b.at = phase::finalizing;
                b.seen = 0;
                b.finalizing_at = now();
                continue;
            case phase::finalizing:
                if (b.seen < polls) {
                    ++b.seen;
                    return;
                }
                finish(b, "completed");
                return;
            case phase::cancelling:
                if (b.seen < polls) {
                    ++b.seen;
                    return;
                }
                finish(b, "cancelled");
                return;
            case phase::ended: return;
            }
        }
    }

    /// Ends a batch with `status`: its result files (OpenAI) or results (Anthropic).
    void finish(batch& b, const std::string& status) {
        b.at = phase::ended;
        b.status = status;
        b.ended_at = now();
        if (status == "failed") return;
        const bool expired = status == "expired";
        std::string output, errors, results;
        std::size_t n = 0;
        for (const request& r : b.requests) {
            ++n;
            const std::string line_id = "batch_req_fake_" + b.id.substr(b.id.rfind('_') + 1) + "_" + std::to_string(n);
            if (b.anthropic) {
                results += "{\"custom_id\":" + json_string(r.custom_id) + ",\"result\":";
                if (!r.answered)
                    results += expired ? "{\"type\":\"expired\"}" : "{\"type\":\"canceled\"}";
                else if (r.reply.status >= 200 && r.reply.status <= 299)
                    results += "{\"type\":\"succeeded\",\"message\":" + json_object_text(r.reply.body, "api_error", true) + "}";
                else
                    results += "{\"type\":\"errored\",\"error\":" + json_object_text(r.reply.body, "api_error", true) + "}";
                results += "}\n";
                continue;
            }
            std::string line = "{\"id\":" + json_string(line_id) + ",\"custom_id\":" + json_string(r.custom_id) + ",\"response\":";
            if (!r.answered) {
                line += expired ? "null,\"error\":{\"code\":\"batch_expired\",\"message\":\"This request could not be executed before the "
                                  "completion window expired.\"}}\n"
                                : "null,\"error\":{\"code\":\"batch_cancelled\",\"message\":\"This request was not executed because the "
                                  "batch was cancelled.\"}}\n";
                errors += line;
                continue;
            }
            line += "{\"status_code\":" + std::to_string(r.reply.status) + ",\"request_id\":" + json_string(r.request_id) +
                    ",\"body\":" + json_object_text(r.reply.body, "server_error", false) + "},\"error\":null}\n";
            (r.reply.status >= 200 && r.reply.status <= 299 ? output : errors) += line;
        }
        if (b.anthropic) {
            b.results = std::move(results);
            return;
        }
        if (!output.empty()) b.output_file_id = add_file("batch_" + b.id + "_output.jsonl", "batch_output", std::move(output));
        if (!errors.empty()) b.error_file_id = add_file("batch_" + b.id + "_error.jsonl", "batch_output", std::move(errors));
    }

    /// `body` when it is a JSON object's text; else an error object holding it as its message.
    static std::string json_object_text(const std::string& body, const char* type, bool anthropic) {
        boost::system::error_code ec;
        const boost::json::value v = boost::json::parse(body, ec);
        if (!ec && v.is_object()) return body;
        if (anthropic) return "{\"type\":\"error\",\"error\":{\"type\":" + json_string(type) + ",\"message\":" + json_string(body) + "}}";
        return "{\"error\":{\"message\":" + json_string(body) + ",\"type\":" + json_string(type) + ",\"param\":null,\"code\":null}}";
    }

    std::string openai_json(const batch& b) const {
        std::string status;
        switch (b.at) {
        case phase::validating: status = "validating"; break;
        case phase::in_progress: status = "in_progress"; break;
        case phase::finalizing: status = "finalizing"; break;
        case phase::cancelling: status = "cancelling"; break;
        case phase::ended: status = b.status; break;
        }
        std::size_t completed = 0, failed = 0;
        for (const request& r : b.requests) {
            if (r.answered) ++(r.reply.status >= 200 && r.reply.status <= 299 ? completed : failed);
            else if (b.at == phase::ended && b.status != "failed") ++failed;
        }
        const bool ended = b.at == phase::ended;
        return "{\"id\":" + json_string(b.id) + ",\"object\":\"batch\",\"endpoint\":" + json_string(b.endpoint) +
               ",\"errors\":" + (b.errors.empty() || !(ended && b.status == "failed") ? std::string("null") : "{\"object\":\"list\",\"data\":[" + b.errors + "]}") +
               ",\"input_file_id\":" + json_string(b.input_file_id) + ",\"completion_window\":\"24h\",\"status\":" + json_string(status) +
               ",\"output_file_id\":" + (b.output_file_id.empty() ? std::string("null") : json_string(b.output_file_id)) +
               ",\"error_file_id\":" + (b.error_file_id.empty() ? std::string("null") : json_string(b.error_file_id)) +
               ",\"created_at\":" + std::to_string(b.created_at) + ",\"in_progress_at\":" + at_or_null(b.in_progress_at) +
               ",\"expires_at\":" + std::to_string(b.created_at + 86400) + ",\"finalizing_at\":" + at_or_null(b.finalizing_at) +
               ",\"completed_at\":" + at_or_null(ended && b.status == "completed" ? b.ended_at : 0) +
               ",\"failed_at\":" + at_or_null(ended && b.status == "failed" ? b.ended_at : 0) +
               ",\"expired_at\":" + at_or_null(ended && b.status == "expired" ? b.ended_at : 0) +
               ",\"cancelling_at\":" + at_or_null(b.cancelling_at) +
               ",\"cancelled_at\":" + at_or_null(ended && b.status == "cancelled" ? b.ended_at : 0) +
               ",\"request_counts\":{\"total\":" + std::to_string(b.requests.size()) + ",\"completed\":" + std::to_string(completed) +
               ",\"failed\":" + std::to_string(failed) + "},\"metadata\":" + b.metadata + "}";
    }

    std::string anthropic_json(const batch& b, const std::string& origin, const std::string& prefix) const {
        const bool ended = b.at == phase::ended;
        std::size_t processing = 0, succeeded = 0, errored = 0, canceled = 0, expired = 0;
        for (const request& r : b.requests) {
            if (r.answered) ++(r.reply.status >= 200 && r.reply.status <= 299 ? succeeded : errored);
            else if (!ended) ++processing;
            else ++(b.status == "expired" ? expired : canceled);
        }
        const std::string status = ended ? "ended" : b.at == phase::cancelling ? "canceling" : "in_progress";
        std::string url = "null";
        if (ended) url = json_string(origin + prefix + "/" + b.id + "/results");
        return "{\"id\":" + json_string(b.id) + ",\"type\":\"message_batch\",\"processing_status\":" + json_string(status) +
               ",\"request_counts\":{\"processing\":" + std::to_string(processing) + ",\"succeeded\":" + std::to_string(succeeded) +
               ",\"errored\":" + std::to_string(errored) + ",\"canceled\":" + std::to_string(canceled) +
               ",\"expired\":" + std::to_string(expired) + "},\"ended_at\":" + time_or_null(ended ? b.ended_at : 0) +
               ",\"created_at\":" + json_string(time_text(b.created_at)) + ",\"expires_at\":" + json_string(time_text(b.created_at + 86400)) +
               ",\"archived_at\":null,\"cancel_initiated_at\":" + time_or_null(b.cancelling_at) + ",\"results_url\":" + url + "}";
    }

    std::mutex mutex_;
    fake_batch_options options_;
    std::map<std::string, file> files_;
    std::map<std::string, batch> batches_;
    std::vector<std::string> order_;
    std::size_t files_made_ = 0, batches_made_ = 0, lines_answered_ = 0;
};

}  // namespace parley::testing::detail

#endif
