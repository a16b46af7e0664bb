// parley/testing/impl/fake_server_gemini.hpp: the Google Gemini API's routes of the fake server
// (generateContent, streamGenerateContent with alt=sse, embedContent, batchEmbedContents, the
// models list): reading a request, encoding a scripted reply, Google's error bodies. Included by
// impl/fake_server.hpp after the encoders' shared helpers (request_info, encoded_body, pieces_of,
// usage_of, embedding_of); like the rest of the fake server it shares no code with parley's
// clients.
#ifndef PARLEY_TESTING_IMPL_FAKE_SERVER_GEMINI_HPP
#define PARLEY_TESTING_IMPL_FAKE_SERVER_GEMINI_HPP

#include <parley/testing/fake_server.hpp>

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace parley::testing::detail {

/// True for the Gemini API's routes.
inline bool gemini_route(fake_route route) { return route == fake_route::gemini || route == fake_route::gemini_embeddings; }

/// The Gemini route of a path (its query already removed), matched on the method's suffix.
inline std::optional<fake_route> gemini_route_of_path(std::string_view path) {
    auto ends = [&](std::string_view s) { return path.size() >= s.size() && path.substr(path.size() - s.size()) == s; };
    if (ends(":generateContent") || ends(":streamGenerateContent")) return fake_route::gemini;
    if (ends(":embedContent") || ends(":batchEmbedContents")) return fake_route::gemini_embeddings;
    return std::nullopt;
}

/// The value of `name` in the query of a request target ("" when absent; not percent-decoded).
inline std::string query_value(std::string_view target, std::string_view name) {
    const auto q = target.find('?');
    if (q == std::string_view::npos) return {};
    std::string_view rest = target.substr(q + 1);
    while (!rest.empty()) {
        const auto amp = rest.find('&');
        const std::string_view pair = rest.substr(0, amp);
        if (pair.size() > name.size() && pair.substr(0, name.size()) == name && pair[name.size()] == '=')
            return std::string(pair.substr(name.size() + 1));
        if (amp == std::string_view::npos) break;
        rest = rest.substr(amp + 1);
    }
    return {};
}

/// The model of a Gemini path (`.../models/NAME:method` or `.../tunedModels/NAME:method`).
inline std::string gemini_model_of_path(std::string_view path) {
    const auto colon = path.rfind(':');
    std::string_view resource = path.substr(0, colon);
    for (std::string_view prefix : {"/models/", "/tunedModels/"})
        if (const auto at = resource.rfind(prefix); at != std::string_view::npos) return std::string(resource.substr(at + prefix.size()));
    return std::string(resource);
}

/// Google's status word for an HTTP status, as the API gives it.
inline std::string gemini_status_word(unsigned status) {
    switch (status) {
    case 400: return "INVALID_ARGUMENT";
    case 401: return "UNAUTHENTICATED";
    case 403: return "PERMISSION_DENIED";
    case 404: return "NOT_FOUND";
    case 409: return "ABORTED";
    case 429: return "RESOURCE_EXHAUSTED";
    case 499: return "CANCELLED";
    case 501: return "NOT_IMPLEMENTED";
    case 503: return "UNAVAILABLE";
    case 504: return "DEADLINE_EXCEEDED";
    default: return status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT";
    }
}

/// The HTTP status of a Google status word (for an error body whose word was scripted).
inline unsigned gemini_status_code(std::string_view word) {
    static const std::pair<std::string_view, unsigned> codes[] = {
        {"INVALID_ARGUMENT", 400}, {"FAILED_PRECONDITION", 400}, {"OUT_OF_RANGE", 400}, {"UNAUTHENTICATED", 401},
        {"PERMISSION_DENIED", 403}, {"NOT_FOUND", 404}, {"ABORTED", 409}, {"ALREADY_EXISTS", 409},
        {"RESOURCE_EXHAUSTED", 429}, {"CANCELLED", 499}, {"INTERNAL", 500}, {"UNKNOWN", 500}, {"DATA_LOSS", 500},
        {"NOT_IMPLEMENTED", 501}, {"UNAVAILABLE", 503}, {"DEADLINE_EXCEEDED", 504}};
    for (const auto& [w, c] : codes)
        if (w == word) return c;
    return 500;
}

/// The API's message for a status (where it is known), else "fake server: STATUS".
inline std::string gemini_default_message(unsigned status) {
    switch (status) {
    case 429: return "Resource has been exhausted (e.g. check quota).";
    case 500: return "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting";
    case 503: return "The model is overloaded. Please try again later.";
    default: return "fake server: " + std::to_string(status);
    }
}

/// Google's error body: {"error": {"code", "message", "status"}}, with an ErrorInfo detail when
/// `reason` is given; `code` 0: the HTTP status of the status word.
inline std::string gemini_error_body(const std::string& word, const std::string& message, std::string_view reason = {},
                                     unsigned code = 0) {
    std::string out = "{\"error\":{\"code\":" + std::to_string(code ? code : gemini_status_code(word)) +
                      ",\"message\":" + json_string(message) +
                      ",\"status\":" + json_string(word);
    if (!reason.empty())
        out += ",\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.ErrorInfo\",\"reason\":" + json_string(reason) +
               ",\"domain\":\"googleapis.com\",\"metadata\":{\"service\":\"generativelanguage.googleapis.com\"}}]";
    return out + "}}";
}

/// The finishReason of a scripted choice: STOP (also with tool calls, as the API says it), or
/// the scripted word in any API's terms (length/max_tokens -> MAX_TOKENS, content_filter/refusal
/// -> SAFETY), or a Gemini word as given.
inline std::string gemini_finish(const fake_choice& c) {
    const std::string& f = c.finish;
    if (f.empty() || f == "stop" || f == "end_turn" || f == "stop_sequence" || f == "tool_calls" || f == "tool_use") return "STOP";
    if (f == "length" || f == "max_tokens") return "MAX_TOKENS";
    if (f == "content_filter" || f == "refusal") return "SAFETY";
    return f;
}

/// A usageMetadata object: promptTokenCount, candidatesTokenCount (output tokens without the
/// thoughts), thoughtsTokenCount and cachedContentTokenCount when not 0, totalTokenCount.
inline std::string gemini_usage(const fake_usage& u) {
    const std::size_t thoughts = std::min(u.reasoning, u.completion);
    std::string out = "{\"promptTokenCount\":" + std::to_string(u.prompt) +
                      ",\"candidatesTokenCount\":" + std::to_string(u.completion - thoughts);
    if (thoughts) out += ",\"thoughtsTokenCount\":" + std::to_string(thoughts);
    if (u.cached) out += ",\"cachedContentTokenCount\":" + std::to_string(u.cached);
    return out + ",\"totalTokenCount\":" + std::to_string(u.prompt + u.completion) + "}";
}

/// The `args` of a functionCall: the arguments when they are a JSON object, else {} for an empty
/// text, else {"value": text} (a fake may be scripted with what a model would not send).
inline std::string gemini_args(const std::string& arguments) {
    if (arguments.empty()) return "{}";
    boost::system::error_code ec;
    const boost::json::value v = boost::json::parse(arguments, ec);
    if (!ec && v.is_object()) return boost::json::serialize(v);
    return "{\"value\":" + json_string(arguments) + "}";
}

/// A functionCall part; the id only when the script gives one (the API often sends none).
inline std::string gemini_call_part(const fake_tool_call& t) {
    std::string out = "{\"functionCall\":{\"name\":" + json_string(t.name) + ",\"args\":" + gemini_args(t.arguments);
    if (!t.id.empty()) out += ",\"id\":" + json_string(t.id);
    return out + "}}";
}

/// The signature the fake gives a choice's thoughts.
inline std::string gemini_signature(const reply_names& names, std::size_t choice) {
    return base64("sig:" + names.id + ":" + std::to_string(choice));
}

/// A GenerateContentResponse for a whole reply: one candidate per choice (thought part with
/// its signature, text part, functionCall parts), or for a reply scripted with `block_reason`
/// a promptFeedback without candidates.
inline std::string gemini_response(const fake_reply& r, const reply_names& names, const request_info& info) {
    const fake_usage u = usage_of(r, info);
    std::string tail = "\"usageMetadata\":" + gemini_usage(u) + ",\"modelVersion\":" + json_string(names.model) +
                       ",\"responseId\":" + json_string(names.id) + "}";
    if (!r.block_reason.empty())
        return "{\"promptFeedback\":{\"blockReason\":" + json_string(r.block_reason) +
               ",\"safetyRatings\":[{\"category\":\"HARM_CATEGORY_DANGEROUS_CONTENT\",\"probability\":\"HIGH\"}]}," +
               "\"usageMetadata\":{\"promptTokenCount\":" + std::to_string(u.prompt) +
               ",\"totalTokenCount\":" + std::to_string(u.prompt) + "},\"modelVersion\":" + json_string(names.model) +
               ",\"responseId\":" + json_string(names.id) + "}";
    std::string out = "{\"candidates\":[";
    for (std::size_t i = 0; i < r.choices.size(); ++i) {
        const fake_choice& c = r.choices[i];
        if (i) out += ',';
        out += "{\"content\":{\"parts\":[";
        bool first = true;
        auto part = [&](const std::string& p) {
            if (!first) out += ',';
            first = false;
            out += p;
        };
        if (!c.reasoning.empty())
            part("{\"text\":" + json_string(c.reasoning) + ",\"thought\":true,\"thoughtSignature\":" +
                 json_string(gemini_signature(names, i)) + "}");
        if (!c.text.empty() || (c.tool_calls.empty() && c.reasoning.empty())) part("{\"text\":" + json_string(c.text) + "}");
        for (const auto& t : c.tool_calls) part(gemini_call_part(t));
        out += "],\"role\":\"model\"},\"finishReason\":" + json_string(gemini_finish(c)) + ",\"index\":" + std::to_string(i) + "}";
    }
    return out + "]," + tail;
}

/// The SSE chunks of a streamed reply (`data: {...}` and CRLF CRLF, as the API sends them): per
/// choice its thoughts in pieces (the signature on the last), its text in pieces, its function
/// calls whole in one chunk, then a chunk with its finishReason; the choices interleaved; every
/// chunk carries the running usage, the last ones the whole usage. A reply scripted with
/// `block_reason` is one chunk with the promptFeedback.
inline encoded_body gemini_stream(const fake_reply& r, const reply_names& names, const request_info& info) {
    encoded_body body;
    const fake_usage u = usage_of(r, info);
    const std::string running = "{\"promptTokenCount\":" + std::to_string(u.prompt) + ",\"totalTokenCount\":" + std::to_string(u.prompt) + "}";
    const std::string tail = ",\"modelVersion\":" + json_string(names.model) + ",\"responseId\":" + json_string(names.id) + "}\r\n\r\n";
    if (!r.block_reason.empty()) {
        body.bytes = "data: " + gemini_response(r, names, info) + "\r\n\r\n";
        body.event_ends.push_back(body.bytes.size());
        return body;
    }
    std::vector<std::vector<std::string>> chunks(r.choices.size());  // each: a candidate's JSON
    for (std::size_t i = 0; i < r.choices.size(); ++i) {
        const fake_choice& c = r.choices[i];
        auto& d = chunks[i];
        const std::string index = ",\"index\":" + std::to_string(i) + "}";
        const auto thoughts = pieces_of(c.reasoning, r.delta_size);
        for (std::size_t k = 0; k < thoughts.size(); ++k)
            d.push_back("{\"content\":{\"parts\":[{\"text\":" + json_string(thoughts[k]) + ",\"thought\":true" +
                        (k + 1 == thoughts.size() ? ",\"thoughtSignature\":" + json_string(gemini_signature(names, i)) : std::string()) +
                        "}],\"role\":\"model\"}" + index);
        for (auto p : pieces_of(c.text, r.delta_size))
            d.push_back("{\"content\":{\"parts\":[{\"text\":" + json_string(p) + "}],\"role\":\"model\"}" + index);
        if (!c.tool_calls.empty()) {
            std::string parts;
            for (const auto& t : c.tool_calls) parts += (parts.empty() ? "" : ",") + gemini_call_part(t);
            d.push_back("{\"content\":{\"parts\":[" + parts + "],\"role\":\"model\"}" + index);
        }
        d.push_back("{\"content\":{\"parts\":[{\"text\":\"\"}],\"role\":\"model\"},\"finishReason\":" +
                    json_string(gemini_finish(c)) + index);
    }
    for (std::size_t step = 0;; ++step) {
        bool any = false;
        for (std::size_t i = 0; i < chunks.size(); ++i) {
            if (step >= chunks[i].size()) continue;
            any = true;
            const bool last = step + 1 == chunks[i].size();
            body.bytes += "data: {\"candidates\":[" + chunks[i][step] + "],\"usageMetadata\":" + (last ? gemini_usage(u) : running) + tail;
            body.event_ends.push_back(body.bytes.size());
        }
        if (!any) break;
    }
    return body;
}

/// The reply of an embeddings route: {"embedding": {"values"}} for :embedContent, {"embeddings":
/// [{"values"}, ...]} for :batchEmbedContents; the scripted vectors, else one per input.
inline std::string gemini_embeddings(const fake_reply* r, const request_info& info, bool batch) {
    std::vector<std::vector<double>> vectors;
    if (r && !r->embeddings.empty()) {
        vectors = r->embeddings;
    } else {
        const std::size_t dims = r && r->dimensions ? r->dimensions : info.dimensions ? info.dimensions : 16;
        for (const auto& in : info.inputs) vectors.push_back(embedding_of(in, dims));
    }
    auto values = [](const std::vector<double>& v) {
        std::string out = "{\"values\":[";
        for (std::size_t k = 0; k < v.size(); ++k) {
            char num[32];
            std::snprintf(num, sizeof num, "%.8g", v[k]);
            out += (k ? "," : "") + std::string(num);
        }
        return out + "]}";
    };
    if (!batch) return "{\"embedding\":" + (vectors.empty() ? std::string("{\"values\":[]}") : values(vectors.front())) + "}";
    std::string out = "{\"embeddings\":[";
    for (std::size_t i = 0; i < vectors.size(); ++i) out += (i ? "," : "") + values(vectors[i]);
    return out + "]}";
}

/// The models list for a Gemini client: {"models": [{"name", "version", "displayName",
/// "inputTokenLimit", "outputTokenLimit", "supportedGenerationMethods"}]}.
inline std::string gemini_models_list() {
    static const char* const models[][3] = {{"gemini-2.5-flash", "Gemini 2.5 Flash", "generateContent"},
                                            {"gemini-2.5-pro", "Gemini 2.5 Pro", "generateContent"},
                                            {"gemini-embedding-001", "Gemini Embedding 001", "embedContent"}};
    std::string out = "{\"models\":[";
    for (std::size_t i = 0; i < std::size(models); ++i) {
        const bool embed = std::string_view(models[i][2]) == "embedContent";
        out += std::string(i ? "," : "") + "{\"name\":" + json_string(std::string("models/") + models[i][0]) +
               ",\"version\":\"001\",\"displayName\":" + json_string(models[i][1]) +
               ",\"inputTokenLimit\":" + (embed ? "2048" : "1048576") + ",\"outputTokenLimit\":" + (embed ? "1" : "65536") +
               ",\"supportedGenerationMethods\":" +
               (embed ? "[\"embedContent\",\"batchEmbedContents\"]" : "[\"generateContent\",\"countTokens\"]") + "}";
    }
    return out + "]}";
}

/// The text of a Gemini content's text parts.
inline std::string gemini_text_of(const boost::json::object& content) {
    std::string out;
    if (const auto* parts = content.if_contains("parts"); parts && parts->is_array())
        for (const auto& p : parts->get_array())
            if (const auto* o = p.if_object())
                if (const auto* t = o->if_contains("text"); t && t->is_string()) out += std::string_view(t->get_string());
    return out;
}

/// Checks a content's parts as the API does (an array of objects, each with one kind of data);
/// an error message, or empty.
inline std::string gemini_check_parts(const boost::json::object& content, const std::string& at) {
    const auto* parts = content.if_contains("parts");
    if (!parts || !parts->is_array() || parts->get_array().empty()) return at + ".parts must be a non-empty array";
    const auto& list = parts->get_array();
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string where = at + ".parts[" + std::to_string(i) + "]";
        const auto* p = list[i].if_object();
        if (!p) return where + " must be an object";
        int data = 0;
        for (std::string_view k : {"text", "inlineData", "fileData", "functionCall", "functionResponse", "executableCode",
                                   "codeExecutionResult"})
            if (p->contains(k)) ++data;
        if (data != 1) return where + " must have exactly one of text, inlineData, fileData, functionCall, functionResponse";
        if (const auto* t = p->if_contains("text"); t && !t->is_string()) return where + ".text must be a string";
        if (const auto* d = p->if_contains("inlineData")) {
            const auto* o = d->if_object();
            if (!o || !o->contains("mimeType") || !o->contains("data")) return where + ".inlineData needs mimeType and data";
        }
        if (const auto* f = p->if_contains("functionCall")) {
            const auto* o = f->if_object();
            if (!o || !o->contains("name") || (o->contains("args") && !o->at("args").is_object()))
                return where + ".functionCall needs a name and object args";
        }
        if (const auto* f = p->if_contains("functionResponse")) {
            const auto* o = f->if_object();
            if (!o || !o->contains("name") || !o->contains("response") || !o->at("response").is_object())
                return where + ".functionResponse needs a name and an object response";
        }
    }
    return {};
}

/// Reads a generateContent request body into `info` (model and stream from the path); an error
/// message when the API would refuse it.
inline std::string gemini_inspect(std::string_view path, const boost::json::object& o, request_info& info) {
    const auto query = path.find('?');
    const std::string_view query_text = query == std::string_view::npos ? std::string_view() : path.substr(query + 1);
    path = path.substr(0, query);
    info.model = gemini_model_of_path(path);
    info.stream = path.size() >= 22 && path.substr(path.size() - 22) == ":streamGenerateContent";
    if (info.stream && query_text.find("alt=sse") == std::string_view::npos)
        return "fake server: streamGenerateContent is served as server-sent events only (add ?alt=sse)";
    const auto* contents = o.if_contains("contents");
    if (!contents || !contents->is_array() || contents->get_array().empty()) return "contents must be a non-empty array";
    const auto& list = contents->get_array();
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string at = "contents[" + std::to_string(i) + "]";
        const auto* c = list[i].if_object();
        if (!c) return at + " must be an object";
        const auto* role = c->if_contains("role");
        if (role && !(role->is_string() && (role->get_string() == "user" || role->get_string() == "model")))
            return "Please use a valid role: user, model.";
        if (std::string problem = gemini_check_parts(*c, at); !problem.empty()) return problem;
        if (!role || role->get_string() == "user") info.echo_text = gemini_text_of(*c);
    }
    if (const auto* s = o.if_contains("systemInstruction")) {
        if (!s->is_object()) return "systemInstruction must be a content object";
        if (std::string problem = gemini_check_parts(s->get_object(), "systemInstruction"); !problem.empty()) return problem;
    }
    if (const auto* t = o.if_contains("tools"); t && !t->is_array()) return "tools must be an array";
    if (const auto* g = o.if_contains("generationConfig")) {
        if (!g->is_object()) return "generationConfig must be an object";
        if (const auto* n = g->get_object().if_contains("candidateCount"); n && n->is_int64() && n->get_int64() > 1)
            info.n = static_cast<std::size_t>(std::min<std::int64_t>(n->get_int64(), 8));
    }
    return {};
}

/// Reads an embedContent or batchEmbedContents body into `info`; an error message when the API
/// would refuse it.
inline std::string gemini_inspect_embeddings(std::string_view path, const boost::json::object& o, request_info& info) {
    path = path.substr(0, path.find('?'));
    info.model = gemini_model_of_path(path);
    auto read = [&](const boost::json::object& request, const std::string& at) -> std::string {
        const auto* content = request.if_contains("content");
        if (!content || !content->is_object()) return at + "content must be a content object";
        if (std::string problem = gemini_check_parts(content->get_object(), at + "content"); !problem.empty()) return problem;
        info.inputs.push_back(gemini_text_of(content->get_object()));
        if (const auto* d = request.if_contains("outputDimensionality"); d && d->is_int64() && d->get_int64() > 0)
            info.dimensions = static_cast<std::size_t>(d->get_int64());
        return {};
    };
    if (path.size() >= 19 && path.substr(path.size() - 19) == ":batchEmbedContents") {
        const auto* requests = o.if_contains("requests");
        if (!requests || !requests->is_array() || requests->get_array().empty()) return "requests must be a non-empty array";
        const auto& list = requests->get_array();
        for (std::size_t i = 0; i < list.size(); ++i) {
            const std::string at = "requests[" + std::to_string(i) + "].";
            const auto* r = list[i].if_object();
            if (!r) return at + " must be an object";
            const auto* model = r->if_contains("model");
            if (!model || !model->is_string() || model->get_string() != "models/" + info.model)
                return at + "model must be \"models/" + info.model + "\" (the model of the path)";
            if (std::string problem = read(*r, at); !problem.empty()) return problem;
        }
        return {};
    }
    return read(o, "");
}

}  // namespace parley::testing::detail

#endif
