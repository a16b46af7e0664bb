// parley/testing/impl/fake_server_ollama.hpp: Ollama's native routes of the fake server (POST
// /api/chat, JSON or JSON lines; POST /api/embed; GET /api/tags): reading a request as Ollama
// checks it, encoding a scripted reply, Ollama's error bodies. Included by impl/fake_server.hpp
// after the encoders' shared helpers (request_info, encoded_body, pieces_of, usage_of,
// embedding_of); like the rest of the fake server it shares no code with parley's clients.
#ifndef PARLEY_TESTING_IMPL_FAKE_SERVER_OLLAMA_HPP
#define PARLEY_TESTING_IMPL_FAKE_SERVER_OLLAMA_HPP

#include <parley/testing/fake_server.hpp>

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdio>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

namespace parley::testing::detail {

/// True for Ollama's routes.
inline bool ollama_route(fake_route route) { return route == fake_route::ollama || route == fake_route::ollama_embeddings; }

/// `created_at` as Ollama writes it (RFC 3339 in UTC with nanoseconds) for a Unix time.
inline std::string ollama_time(std::int64_t unix_seconds) {
    const std::time_t t = static_cast<std::time_t>(unix_seconds);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[48];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.123456789Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec);
    return buf;
}

/// The done_reason of a scripted choice: "stop" (also with tool calls, as Ollama says it),
/// "length" for a length finish in any API's terms, or the scripted word as given ("load").
inline std::string ollama_done_reason(const fake_choice& c) {
    const std::string& f = c.finish;
    if (f.empty() || f == "stop" || f == "end_turn" || f == "stop_sequence" || f == "tool_calls" || f == "tool_use") return "stop";
    if (f == "length" || f == "max_tokens") return "length";
    return f;
}

/// The `arguments` of a tool call: the scripted arguments when they are a JSON object, else {}
/// for an empty text, else {"value": text}.
inline std::string ollama_arguments(const std::string& arguments) {
    if (arguments.empty()) return "{}";
    boost::system::error_code ec;
    const boost::json::value v = boost::json::parse(arguments, ec);
    if (!ec && v.is_object()) return boost::json::serialize(v);
    return "{\"value\":" + json_string(arguments) + "}";
}

/// The tool_calls of a choice: `{"function": {"index", "name", "arguments"}}`, with an `id` only
/// when the script gives one (Ollama's older versions send none).
inline std::string ollama_tool_calls(const fake_choice& c) {
    std::string out = "[";
    for (std::size_t k = 0; k < c.tool_calls.size(); ++k) {
        const auto& t = c.tool_calls[k];
        out += k ? ",{" : "{";
        if (!t.id.empty()) out += "\"id\":" + json_string(t.id) + ",";
        out += "\"function\":{\"index\":" + std::to_string(k) + ",\"name\":" + json_string(t.name) +
               ",\"arguments\":" + ollama_arguments(t.arguments) + "}}";
    }
    return out + "]";
}

/// The members after `done` in a reply's last object: done_reason and the metrics (durations in
/// nanoseconds, made up; the counts from the usage).
inline std::string ollama_metrics(const fake_choice& c, const fake_usage& u) {
    return ",\"done_reason\":" + json_string(ollama_done_reason(c)) +
           ",\"total_duration\":1234567890,\"load_duration\":12345678,\"prompt_eval_count\":" + std::to_string(u.prompt) +
           ",\"prompt_eval_duration\":23456789,\"eval_count\":" + std::to_string(u.completion) + ",\"eval_duration\":987654321";
}

/// A ChatResponse for a whole reply (the first choice only: Ollama gives one).
inline std::string ollama_response(const fake_reply& r, const reply_names& names, const request_info& info) {
    static const fake_choice none{};
    const fake_choice& c = r.choices.empty() ? none : r.choices.front();
    std::string out = "{\"model\":" + json_string(names.model) + ",\"created_at\":" + json_string(ollama_time(names.created)) +
                      ",\"message\":{\"role\":\"assistant\",\"content\":" + json_string(c.text);
    if (!c.reasoning.empty()) out += ",\"thinking\":" + json_string(c.reasoning);
    if (!c.tool_calls.empty()) out += ",\"tool_calls\":" + ollama_tool_calls(c);
    return out + "},\"done\":true" + ollama_metrics(c, usage_of(r, info)) + "}";
}

/// The JSON lines of a streamed reply, as Ollama writes them: the thinking in pieces (content
/// ""), the text in pieces, the tool calls whole in one line, then a last line with an empty
/// message, `"done": true`, done_reason and the metrics; every line ends with "\n".
inline encoded_body ollama_stream(const fake_reply& r, const reply_names& names, const request_info& info) {
    static const fake_choice none{};
    const fake_choice& c = r.choices.empty() ? none : r.choices.front();
    encoded_body body;
    const std::string head = "{\"model\":" + json_string(names.model) + ",\"created_at\":" +
                             json_string(ollama_time(names.created)) + ",\"message\":{\"role\":\"assistant\",\"content\":";
    auto line = [&](const std::string& rest) {
        body.bytes += head + rest + "\n";
        body.event_ends.push_back(body.bytes.size());
    };
    for (auto p : pieces_of(c.reasoning, r.delta_size)) line("\"\",\"thinking\":" + json_string(p) + "},\"done\":false}");
    for (auto p : pieces_of(c.text, r.delta_size)) line(json_string(p) + "},\"done\":false}");
    if (!c.tool_calls.empty()) line("\"\",\"tool_calls\":" + ollama_tool_calls(c) + "},\"done\":false}");
    line("\"\"},\"done\":true" + ollama_metrics(c, usage_of(r, info)) + "}");
    return body;
}

/// Ollama's error body: {"error": message}.
inline std::string ollama_error_body(const std::string& message) { return "{\"error\":" + json_string(message) + "}"; }

/// Ollama's message for a status (where the fake knows it), else "fake server: STATUS".
inline std::string ollama_default_message(unsigned status, const std::string& model) {
    switch (status) {
    case 404: return "model \"" + model + "\" not found, try pulling it first";
    case 503: return "server busy, please try again.  maximum pending requests exceeded";
    default: return {};
    }
}

/// The reply of /api/embed: {"model", "embeddings": [...], "total_duration", "load_duration",
/// "prompt_eval_count"}; the scripted vectors, else one per input.
inline std::string ollama_embeddings(const fake_reply* r, const request_info& info) {
    std::vector<std::vector<double>> vectors;
    if (r && !r->embeddings.empty()) {
        vectors = r->embeddings;
    } else {
        const std::size_t dims = r && r->dimensions ? r->dimensions : info.dimensions ? info.dimensions : 16;
        for (const auto& in : info.inputs) vectors.push_back(embedding_of(in, dims));
    }
    std::string out = "{\"model\":" + json_string(r && !r->model.empty() ? r->model : info.model) + ",\"embeddings\":[";
    for (std::size_t i = 0; i < vectors.size(); ++i) {
        out += i ? ",[" : "[";
        for (std::size_t k = 0; k < vectors[i].size(); ++k) {
            char num[32];
            std::snprintf(num, sizeof num, "%.8g", vectors[i][k]);
            out += (k ? "," : "") + std::string(num);
        }
        out += "]";
    }
    const std::size_t tokens = r && r->usage ? r->usage->prompt : info.prompt_tokens;
    return out + "],\"total_duration\":14143917,\"load_duration\":1019500,\"prompt_eval_count\":" + std::to_string(tokens) + "}";
}

/// The models of GET /api/tags.
inline std::string ollama_tags() {
    static const char* const models[][4] = {{"llama3.2:latest", "llama", "3.2B", "Q4_K_M"},
                                            {"qwen3:8b", "qwen3", "8.2B", "Q4_K_M"},
                                            {"nomic-embed-text:latest", "nomic-bert", "137M", "F16"}};
    std::string out = "{\"models\":[";
    for (std::size_t i = 0; i < std::size(models); ++i)
        out += std::string(i ? "," : "") + "{\"name\":" + json_string(models[i][0]) + ",\"model\":" + json_string(models[i][0]) +
               ",\"modified_at\":\"2026-11-01T10:00:00.000000000Z\",\"size\":2019393189,\"digest\":" +
               json_string("a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b7" + std::to_string(i)) +
               ",\"details\":{\"parent_model\":\"\",\"format\":\"gguf\",\"family\":" + json_string(models[i][1]) +
               ",\"families\":[" + json_string(models[i][1]) + "],\"parameter_size\":" + json_string(models[i][2]) +
               ",\"quantization_level\":" + json_string(models[i][3]) + "}}";
    return out + "]}";
}

/// True when `s` is base64 (standard alphabet, padding at the end only, a multiple of 4).
inline bool ollama_base64(std::string_view s) {
    if (s.empty() || s.size() % 4 != 0) return false;
    std::size_t pad = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '=') {
            ++pad;
            continue;
        }
        if (pad) return false;
        const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
        if (!ok) return false;
    }
    return pad <= 2;
}

/// Checks the `options` of a request as Ollama reads them (numbers where it takes numbers, a
/// list of strings for stop); an error message, or empty.
inline std::string ollama_check_options(const boost::json::value& v) {
    if (!v.is_object()) return "json: cannot unmarshal into Go struct field options of type map[string]interface {}";
    for (const auto& [key, value] : v.get_object()) {
        if (value.is_null()) continue;
        const std::string k(key);
        if (k == "stop") {
            bool ok = value.is_array();
            if (ok)
                for (const auto& s : value.get_array()) ok = ok && s.is_string();
            if (!ok) return "option \"stop\" must be of an array of strings";
        } else if (k == "num_ctx" || k == "num_predict" || k == "top_k" || k == "seed" || k == "num_keep" ||
                   k == "repeat_last_n" || k == "num_batch" || k == "num_gpu" || k == "main_gpu" || k == "num_thread") {
            if (!value.is_number()) return "option \"" + k + "\" must be of type integer";
        } else if (k == "temperature" || k == "top_p" || k == "min_p" || k == "typical_p" || k == "repeat_penalty" ||
                   k == "presence_penalty" || k == "frequency_penalty") {
            if (!value.is_number()) return "option \"" + k + "\" must be of type float32";
        }
    }
    return {};
}

/// Reads a /api/chat request body into `info` as Ollama checks it (model, messages with their
/// roles, string contents, base64 images, tool calls with object arguments, tools, format,
/// options, think, keep_alive, stream: true unless false); an error message when Ollama would
/// refuse it.
inline std::string ollama_inspect(const boost::json::object& o, request_info& info) {
    const auto* model = o.if_contains("model");
    if (!model || !model->is_string() || model->get_string().empty()) return "model is required";
    info.model = std::string(model->get_string());
    info.stream = true;  // Ollama streams unless told not to
    if (const auto* s = o.if_contains("stream"); s && !s->is_null()) {
        if (!s->is_bool()) return "json: cannot unmarshal into Go struct field ChatRequest.stream of type bool";
        info.stream = s->get_bool();
    }
    if (const auto* messages = o.if_contains("messages"); messages && !messages->is_null()) {
        if (!messages->is_array()) return "json: cannot unmarshal into Go struct field ChatRequest.messages of type []api.Message";
        const auto& list = messages->get_array();
        for (std::size_t i = 0; i < list.size(); ++i) {
            const std::string at = "messages[" + std::to_string(i) + "]";
            const auto* m = list[i].if_object();
            if (!m) return at + " must be an object";
            const auto* role = m->if_contains("role");
            if (!role || !role->is_string() ||
                (role->get_string() != "system" && role->get_string() != "user" && role->get_string() != "assistant" &&
                 role->get_string() != "tool"))
                return at + ": the role must be system, user, assistant or tool";
            const auto* content = m->if_contains("content");
            if (content && !content->is_null() && !content->is_string())
                return "json: cannot unmarshal array into Go struct field Message.messages.content of type string";
            for (std::string_view key : {"thinking", "tool_name", "tool_call_id"})
                if (const auto* v = m->if_contains(key); v && !v->is_null() && !v->is_string())
                    return at + "." + std::string(key) + " must be a string";
            if (const auto* images = m->if_contains("images"); images && !images->is_null()) {
                if (!images->is_array()) return at + ".images must be an array of base64 strings";
                for (const auto& img : images->get_array())
                    if (!img.is_string() || !ollama_base64(img.get_string()))
                        return "illegal base64 data at input byte 0 (" + at + ".images)";
            }
            if (const auto* calls = m->if_contains("tool_calls"); calls && !calls->is_null()) {
                if (!calls->is_array()) return at + ".tool_calls must be an array";
                for (const auto& c : calls->get_array()) {
                    const auto* co = c.if_object();
                    const auto* f = co ? co->if_contains("function") : nullptr;
                    const auto* fo = f ? f->if_object() : nullptr;
                    const auto* name = fo ? fo->if_contains("name") : nullptr;
                    const auto* args = fo ? fo->if_contains("arguments") : nullptr;
                    if (!name || !name->is_string() || (args && !args->is_object()))
                        return at + ".tool_calls: each call needs a function with a name and object arguments";
                }
            }
            if (role->get_string() == "user" && content && content->is_string())
                info.echo_text = std::string(content->get_string());
        }
    }
    if (const auto* tools = o.if_contains("tools"); tools && !tools->is_null()) {
        if (!tools->is_array()) return "tools must be an array";
        for (const auto& t : tools->get_array()) {
            const auto* to = t.if_object();
            const auto* f = to ? to->if_contains("function") : nullptr;
            const auto* name = f && f->is_object() ? f->get_object().if_contains("name") : nullptr;
            if (!name || !name->is_string()) return "tools: each tool needs a function with a name";
            if (const auto* p = f->get_object().if_contains("parameters"); p && !p->is_null() && !p->is_object())
                return "tools: a function's parameters must be an object";
        }
    }
    if (const auto* f = o.if_contains("format"); f && !f->is_null()) {
        if (!(f->is_object() || (f->is_string() && (f->get_string() == "json" || f->get_string().empty()))))
            return "invalid format: expected \"json\" or a JSON schema";
    }
    if (const auto* opt = o.if_contains("options"); opt && !opt->is_null())
        if (std::string problem = ollama_check_options(*opt); !problem.empty()) return problem;
    if (const auto* t = o.if_contains("think"); t && !t->is_null()) {
        if (!(t->is_bool() ||
              (t->is_string() && (t->get_string() == "high" || t->get_string() == "medium" || t->get_string() == "low"))))
            return "invalid think value: must be true, false, \"high\", \"medium\" or \"low\"";
    }
    if (const auto* k = o.if_contains("keep_alive"); k && !k->is_null() && !k->is_string() && !k->is_number())
        return "json: cannot unmarshal into Go struct field ChatRequest.keep_alive of type api.Duration";
    return {};
}

/// Reads an /api/embed request body into `info`; an error message when Ollama would refuse it.
inline std::string ollama_inspect_embeddings(const boost::json::object& o, request_info& info) {
    const auto* model = o.if_contains("model");
    if (!model || !model->is_string() || model->get_string().empty()) return "model is required";
    info.model = std::string(model->get_string());
    const auto* input = o.if_contains("input");
    if (!input || input->is_null()) return "invalid input type";
    if (input->is_string()) {
        info.inputs.push_back(std::string(input->get_string()));
    } else if (input->is_array()) {
        for (const auto& x : input->get_array()) {
            if (!x.is_string()) return "invalid input type";
            info.inputs.push_back(std::string(x.get_string()));
        }
    } else {
        return "invalid input type";
    }
    if (const auto* d = o.if_contains("dimensions"); d && !d->is_null()) {
        if (!d->is_int64() || d->get_int64() < 1) return "dimensions must be a positive integer";
        info.dimensions = static_cast<std::size_t>(d->get_int64());
    }
    if (const auto* opt = o.if_contains("options"); opt && !opt->is_null())
        if (std::string problem = ollama_check_options(*opt); !problem.empty()) return problem;
    if (const auto* t = o.if_contains("truncate"); t && !t->is_null() && !t->is_bool()) return "truncate must be a boolean";
    return {};
}

}  // namespace parley::testing::detail

#endif
