// parley/testing/impl/fake_server.hpp: the fake model server of parley/testing/fake_server.hpp
// (Boost.Beast HTTP/1.1 and Asio coroutines, OpenSSL for TLS): the wire formats' encoders, the
// script reader, and the server's coroutines. Included by fake_server.hpp (header-only use) or,
// with PARLEY_SEPARATE_COMPILATION, compiled once by <parley/testing/src.hpp>.
#ifndef PARLEY_TESTING_IMPL_FAKE_SERVER_HPP
#define PARLEY_TESTING_IMPL_FAKE_SERVER_HPP

#include <parley/testing/fake_server.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/detect_ssl.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/core/stream_traits.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <parley/detail/warnings_push.hpp>  // Asio coroutines: see the file

namespace parley::testing {

// The header spells the default backlog without Asio.
static_assert(SOMAXCONN == boost::asio::socket_base::max_listen_connections);

namespace detail {

PARLEY_DECL void append_json_string(std::string& out, std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    out += '"';
    for (char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
            if (c < 0x20) {
                out += "\\u00";
                out += hex[c >> 4];
                out += hex[c & 15];
            } else {
                out += ch;
            }
        }
    }
    out += '"';
}

PARLEY_DECL std::string json_string(std::string_view s) {
    std::string out;
    append_json_string(out, s);
    return out;
}

PARLEY_DECL bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

PARLEY_DECL std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("fake server: cannot read " + path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}


/// s cut into pieces of about `size` bytes, never inside a UTF-8 sequence; "" gives no piece.
inline std::vector<std::string_view> pieces_of(std::string_view s, std::size_t size) {
    std::vector<std::string_view> out;
    if (size == 0) size = s.size() ? s.size() : 1;
    std::size_t i = 0;
    while (i < s.size()) {
        std::size_t end = std::min(s.size(), i + size);
        while (end < s.size() && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) ++end;
        out.push_back(s.substr(i, end - i));
        i = end;
    }
    return out;
}


inline std::string openai_finish(const fake_choice& c) {
    const std::string& f = c.finish;
    if (f.empty()) return c.tool_calls.empty() ? "stop" : "tool_calls";
    if (f == "end_turn" || f == "stop_sequence") return "stop";
    if (f == "max_tokens") return "length";
    if (f == "tool_use") return "tool_calls";
    if (f == "refusal") return "content_filter";
    return f;
}

inline std::string anthropic_stop(const fake_choice& c) {
    const std::string& f = c.finish;
    if (f.empty()) return c.tool_calls.empty() ? "end_turn" : "tool_use";
    if (f == "stop") return "end_turn";
    if (f == "length") return "max_tokens";
    if (f == "tool_calls") return "tool_use";
    if (f == "content_filter") return "refusal";
    return f;
}

/// What the encoders need to know about a request.
struct request_info {
    fake_route route = fake_route::openai;
    bool stream = false;
    bool include_usage = false;
    std::string model;
    std::string echo_text;
    std::size_t n = 1;
    std::size_t prompt_tokens = 1;
    std::vector<std::string> inputs;  // embeddings
    std::size_t dimensions = 0;       // embeddings, from the request
    bool base64 = false;              // embeddings: encoding_format "base64"
    bool anthropic_client = false;    // the request carries Anthropic's header fields (models)
    bool encrypted_reasoning = false;  // Responses API: include asks for reasoning.encrypted_content
    bool azure = false;  // an Azure OpenAI request (`?api-version=`): Azure's content filter results in replies
};

/// An encoded body; for a stream, where each event ends.
struct encoded_body {
    std::string bytes;
    std::vector<std::size_t> event_ends;
};

/// The names a reply is sent with.
struct reply_names {
    std::string id;
    std::string model;
    std::int64_t created = 0;
};

inline std::size_t completion_tokens(const fake_reply& r) {
    std::size_t bytes = 0;
    for (const auto& c : r.choices) {
        bytes += c.text.size() + c.refusal.size() + c.reasoning.size();
        for (const auto& t : c.tool_calls) bytes += t.arguments.size() + t.name.size();
    }
    return std::max<std::size_t>(1, (bytes + 3) / 4);
}

inline fake_usage usage_of(const fake_reply& r, const request_info& info) {
    return r.usage ? *r.usage : fake_usage{info.prompt_tokens, completion_tokens(r), 0, 0, 0};
}

inline std::string tool_call_id(const fake_tool_call& t, std::string_view prefix, std::size_t i) {
    return t.id.empty() ? std::string(prefix) + std::to_string(i + 1) : t.id;
}

inline void append_openai_usage(std::string& out, const fake_usage& u) {
    out += "{\"prompt_tokens\":" + std::to_string(u.prompt) + ",\"completion_tokens\":" + std::to_string(u.completion) +
           ",\"total_tokens\":" + std::to_string(u.prompt + u.completion) +
           ",\"prompt_tokens_details\":{\"cached_tokens\":" + std::to_string(u.cached) +
           ",\"audio_tokens\":0},\"completion_tokens_details\":{\"reasoning_tokens\":" + std::to_string(u.reasoning) +
           ",\"audio_tokens\":0,\"accepted_prediction_tokens\":0,\"rejected_prediction_tokens\":0}}";
}

/// Azure's content filter results of one text (as its replies carry them per choice and per
/// prompt): every category "safe", or violence filtered at medium severity.
inline std::string azure_filter_results(bool filtered) {
    return std::string("{\"hate\":{\"filtered\":false,\"severity\":\"safe\"},\"self_harm\":{\"filtered\":false,\"severity\":\"safe\"},"
                       "\"sexual\":{\"filtered\":false,\"severity\":\"safe\"},\"violence\":{\"filtered\":") +
           (filtered ? "true,\"severity\":\"medium\"}}" : "false,\"severity\":\"safe\"}}");
}

/// Azure's `prompt_filter_results` of a request's prompt.
inline std::string azure_prompt_filter_results() {
    return "[{\"prompt_index\":0,\"content_filter_results\":{\"hate\":{\"filtered\":false,\"severity\":\"safe\"},"
           "\"jailbreak\":{\"filtered\":false,\"detected\":false},\"self_harm\":{\"filtered\":false,\"severity\":\"safe\"},"
           "\"sexual\":{\"filtered\":false,\"severity\":\"safe\"},\"violence\":{\"filtered\":false,\"severity\":\"safe\"}}}]";
}

/// The body of a request Azure's content filter refused (HTTP 400), as Azure OpenAI writes it.
inline std::string azure_content_filter_body(const std::string& message) {
    return "{\"error\":{\"message\":" +
           json_string(message.empty() ? "The response was filtered due to the prompt triggering Azure OpenAI's content management "
                                         "policy. Please modify your prompt and retry. To learn more about our content filtering "
                                         "policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766"
                                       : message) +
           ",\"type\":null,\"param\":\"prompt\",\"code\":\"content_filter\",\"status\":400,\"innererror\":{\"code\":"
           "\"ResponsibleAIPolicyViolation\",\"content_filter_result\":{\"hate\":{\"filtered\":false,\"severity\":\"safe\"},"
           "\"jailbreak\":{\"filtered\":false,\"detected\":false},\"self_harm\":{\"filtered\":false,\"severity\":\"safe\"},"
           "\"sexual\":{\"filtered\":false,\"severity\":\"safe\"},\"violence\":{\"filtered\":true,\"severity\":\"medium\"}}}}}";
}

/// Azure's own error body (`{"error": {"code": "401", "message"}}`, as its gateway writes it).
inline std::string azure_error_body(unsigned status, const std::string& message) {
    return "{\"error\":{\"code\":" + json_string(std::to_string(status)) + ",\"message\":" + json_string(message) + "}}";
}

/// An OpenAI chat.completion object (for an Azure request with Azure's content filter results).
inline std::string openai_completion(const fake_reply& r, const reply_names& names, const request_info& info) {
    std::string out = "{\"id\":" + json_string(names.id) + ",\"object\":\"chat.completion\",\"created\":" +
                      std::to_string(names.created) + ",\"model\":" + json_string(names.model) + ",\"choices\":[";
    for (std::size_t i = 0; i < r.choices.size(); ++i) {
        const fake_choice& c = r.choices[i];
        if (i) out += ',';
        out += "{\"index\":" + std::to_string(i) + ",\"message\":{\"role\":\"assistant\",\"content\":";
        if (!c.text.empty() || (c.tool_calls.empty() && c.refusal.empty()))
            append_json_string(out, c.text);
        else
            out += "null";
        out += ",\"refusal\":";
        if (c.refusal.empty())
            out += "null";
        else
            append_json_string(out, c.refusal);
        if (!c.reasoning.empty()) {  // as DeepSeek, vLLM and llama.cpp send it
            out += ",\"reasoning_content\":";
            append_json_string(out, c.reasoning);
        }
        if (!c.tool_calls.empty()) {
            out += ",\"tool_calls\":[";
            for (std::size_t k = 0; k < c.tool_calls.size(); ++k) {
                const auto& t = c.tool_calls[k];
                if (k) out += ',';
                out += "{\"id\":" + json_string(tool_call_id(t, "call_fake_", k)) +
                       ",\"type\":\"function\",\"function\":{\"name\":" + json_string(t.name) +
                       ",\"arguments\":" + json_string(t.arguments) + "}}";
            }
            out += ']';
        }
        out += "},\"logprobs\":null,\"finish_reason\":" + json_string(openai_finish(c));
        if (info.azure) out += ",\"content_filter_results\":" + azure_filter_results(openai_finish(c) == "content_filter");
        out += "}";
    }
    out += "],\"usage\":";
    append_openai_usage(out, usage_of(r, info));
    out += ",\"system_fingerprint\":\"fp_fake\"";
    if (info.azure) out += ",\"prompt_filter_results\":" + azure_prompt_filter_results();
    out += "}";
    return out;
}

/// OpenAI chat.completion.chunk events, as the API streams them: per choice a first delta with
/// the role, content (or refusal) deltas, for each tool call a delta with id and name then the
/// arguments in pieces; the choices interleaved; then a finish_reason chunk per choice, a usage
/// chunk with "choices": [] when include_usage, and `data: [DONE]`. For an Azure request, first
/// Azure's chunk of the prompt's filter results (empty id, model and object, no choices), and the
/// finish chunks with the choices' content filter results.
inline encoded_body openai_stream(const fake_reply& r, const reply_names& names, const request_info& info) {
    encoded_body body;
    std::string& out = body.bytes;
    std::string head = "data: {\"id\":" + json_string(names.id) + ",\"object\":\"chat.completion.chunk\",\"created\":" +
                       std::to_string(names.created) + ",\"model\":" + json_string(names.model) +
                       ",\"system_fingerprint\":\"fp_fake\",\"choices\":[";
    const std::string tail = info.include_usage ? "],\"usage\":null}\n\n" : "]}\n\n";
    auto event = [&](std::size_t index, const std::string& delta, std::string_view finish) {
        out += head;
        out += "{\"index\":" + std::to_string(index) + ",\"delta\":" + delta + ",\"logprobs\":null,\"finish_reason\":";
        if (finish.empty())
            out += "null";
        else
            append_json_string(out, finish);
        if (info.azure && !finish.empty()) out += ",\"content_filter_results\":" + azure_filter_results(finish == "content_filter");
        out += '}';
        out += tail;
        body.event_ends.push_back(out.size());
    };
    if (info.azure) {
        out += "data: {\"choices\":[],\"created\":0,\"id\":\"\",\"model\":\"\",\"object\":\"\",\"prompt_filter_results\":" +
               azure_prompt_filter_results() + "}\n\n";
        body.event_ends.push_back(out.size());
    }
    // Each choice's deltas, then sent round-robin so that choices interleave as with n > 1.
    std::vector<std::vector<std::string>> deltas(r.choices.size());
    for (std::size_t i = 0; i < r.choices.size(); ++i) {
        const fake_choice& c = r.choices[i];
        auto& d = deltas[i];
        const bool content_null = c.text.empty() && (!c.tool_calls.empty() || !c.refusal.empty());
        d.push_back(std::string("{\"role\":\"assistant\",\"content\":") + (content_null ? "null" : "\"\"") +
                    ",\"refusal\":" + (c.refusal.empty() ? "null" : "\"\"") + "}");
        for (auto p : pieces_of(c.reasoning, r.delta_size)) d.push_back("{\"reasoning_content\":" + json_string(p) + "}");
        for (auto p : pieces_of(c.refusal, r.delta_size)) d.push_back("{\"refusal\":" + json_string(p) + "}");
        for (auto p : pieces_of(c.text, r.delta_size)) d.push_back("{\"content\":" + json_string(p) + "}");
        for (std::size_t k = 0; k < c.tool_calls.size(); ++k) {
            const auto& t = c.tool_calls[k];
            d.push_back("{\"tool_calls\":[{\"index\":" + std::to_string(k) + ",\"id\":" +
                        json_string(tool_call_id(t, "call_fake_", k)) + ",\"type\":\"function\",\"function\":{\"name\":" +
                        json_string(t.name) + ",\"arguments\":\"\"}}]}");
            for (auto p : pieces_of(t.arguments, r.delta_size))
                d.push_back("{\"tool_calls\":[{\"index\":" + std::to_string(k) + ",\"function\":{\"arguments\":" +
                            json_string(p) + "}}]}");
        }
    }
    for (std::size_t step = 0;; ++step) {
        bool any = false;
        for (std::size_t i = 0; i < deltas.size(); ++i)
            if (step < deltas[i].size()) {
                event(i, deltas[i][step], {});
                any = true;
            }
        if (!any) break;
    }
    for (std::size_t i = 0; i < r.choices.size(); ++i) event(i, "{}", openai_finish(r.choices[i]));
    if (info.include_usage) {
        out += head;
        out += "],\"usage\":";
        append_openai_usage(out, usage_of(r, info));
        out += "}\n\n";
        body.event_ends.push_back(out.size());
    }
    out += "data: [DONE]\n\n";
    body.event_ends.push_back(out.size());
    return body;
}

/// The `input` of a tool_use block: the arguments as JSON when they are an object, else {} for
/// an empty text, else the text as a JSON string (a fake may send what a real server would not).
inline std::string anthropic_input(const std::string& arguments) {
    if (arguments.empty()) return "{}";
    boost::system::error_code ec;
    const boost::json::value v = boost::json::parse(arguments, ec);
    if (!ec && v.is_object()) return boost::json::serialize(v);
    return json_string(arguments);
}

/// Anthropic's usage object: its input_tokens leave out the tokens read from and written to the
/// cache, which have fields of their own.
inline std::string anthropic_usage(const fake_usage& u, std::size_t output_tokens) {
    const std::size_t cache = u.cached + u.cache_write;
    return "{\"input_tokens\":" + std::to_string(u.prompt > cache ? u.prompt - cache : 0) +
           ",\"cache_creation_input_tokens\":" + std::to_string(u.cache_write) +
           ",\"cache_read_input_tokens\":" + std::to_string(u.cached) +
           ",\"cache_creation\":{\"ephemeral_5m_input_tokens\":" + std::to_string(u.cache_write) +
           ",\"ephemeral_1h_input_tokens\":0},\"output_tokens\":" + std::to_string(output_tokens) +
           ",\"output_tokens_details\":{\"thinking_tokens\":" + std::to_string(std::min(u.reasoning, output_tokens)) +
           "},\"server_tool_use\":null,\"service_tier\":\"standard\",\"inference_geo\":null,\"speed\":null}";
}

/// The signature of a thinking block: the real API's is opaque; this one is the text's FNV-1a
/// hash in hexadecimal behind a fixed prefix, so that a test can tell blocks apart.
inline std::string thinking_signature(std::string_view text) {
    std::uint64_t h = 1469598103934665603ull;
    for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return std::string("EqfakeSig") + hex;
}

/// An Anthropic message object (the first choice only).
inline std::string anthropic_message(const fake_reply& r, const reply_names& names, const request_info& info) {
    static const fake_choice none{};
    const fake_choice& c = r.choices.empty() ? none : r.choices.front();
    const fake_usage u = usage_of(r, info);
    std::string out = "{\"id\":" + json_string(names.id) + ",\"type\":\"message\",\"role\":\"assistant\",\"model\":" +
                      json_string(names.model) + ",\"content\":[";
    bool first = true;
    if (!c.reasoning.empty()) {
        out += "{\"type\":\"thinking\",\"thinking\":" + json_string(c.reasoning) +
               ",\"signature\":" + json_string(thinking_signature(c.reasoning)) + "}";
        first = false;
    }
    if (!c.text.empty() || c.tool_calls.empty()) {
        if (!first) out += ',';
        out += "{\"type\":\"text\",\"text\":" + json_string(c.text) + "}";
        first = false;
    }
    for (std::size_t k = 0; k < c.tool_calls.size(); ++k) {
        const auto& t = c.tool_calls[k];
        if (!first) out += ',';
        first = false;
        out += "{\"type\":\"tool_use\",\"id\":" + json_string(tool_call_id(t, "toolu_fake_", k)) +
               ",\"name\":" + json_string(t.name) + ",\"input\":" + anthropic_input(t.arguments) + "}";
    }
    out += "],\"stop_reason\":" + json_string(anthropic_stop(c)) +
           ",\"stop_sequence\":null,\"stop_details\":null,\"container\":null,\"diagnostics\":null,\"usage\":" +
           anthropic_usage(u, u.completion) + "}";
    return out;
}

/// Anthropic stream events: message_start, per content block content_block_start, (a ping after
/// the first), content_block_delta (text_delta or input_json_delta pieces), content_block_stop,
/// then message_delta with stop_reason and usage, and message_stop.
inline encoded_body anthropic_stream(const fake_reply& r, const reply_names& names, const request_info& info) {
    static const fake_choice none{};
    const fake_choice& c = r.choices.empty() ? none : r.choices.front();
    const fake_usage u = usage_of(r, info);
    encoded_body body;
    std::string& out = body.bytes;
    auto event = [&](std::string_view type, const std::string& data) {
        out += "event: ";
        out += type;
        out += "\ndata: ";
        out += data;
        out += "\n\n";
        body.event_ends.push_back(out.size());
    };
    event("message_start", "{\"type\":\"message_start\",\"message\":{\"id\":" + json_string(names.id) +
                               ",\"type\":\"message\",\"role\":\"assistant\",\"model\":" + json_string(names.model) +
                               ",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"stop_details\":null,"
                               "\"container\":null,\"diagnostics\":null,\"usage\":" +
                               anthropic_usage(u, 1) + "}}");
    std::size_t index = 0;
    auto block_start = [&](const std::string& block) {
        event("content_block_start", "{\"type\":\"content_block_start\",\"index\":" + std::to_string(index) +
                                         ",\"content_block\":" + block + "}");
        if (index == 0) event("ping", "{\"type\":\"ping\"}");
    };
    auto delta = [&](const std::string& d) {
        event("content_block_delta",
              "{\"type\":\"content_block_delta\",\"index\":" + std::to_string(index) + ",\"delta\":" + d + "}");
    };
    auto block_stop = [&] {
        event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":" + std::to_string(index) + "}");
        ++index;
    };
    if (!c.reasoning.empty()) {
        block_start("{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}");
        for (auto p : pieces_of(c.reasoning, r.delta_size))
            delta("{\"type\":\"thinking_delta\",\"thinking\":" + json_string(p) + "}");
        delta("{\"type\":\"signature_delta\",\"signature\":" + json_string(thinking_signature(c.reasoning)) + "}");
        block_stop();
    }
    if (!c.text.empty() || c.tool_calls.empty()) {
        block_start("{\"type\":\"text\",\"text\":\"\"}");
        for (auto p : pieces_of(c.text, r.delta_size)) delta("{\"type\":\"text_delta\",\"text\":" + json_string(p) + "}");
        block_stop();
    }
    for (std::size_t k = 0; k < c.tool_calls.size(); ++k) {
        const auto& t = c.tool_calls[k];
        block_start("{\"type\":\"tool_use\",\"id\":" + json_string(tool_call_id(t, "toolu_fake_", k)) +
                    ",\"name\":" + json_string(t.name) + ",\"input\":{}}");
        delta("{\"type\":\"input_json_delta\",\"partial_json\":\"\"}");
        for (auto p : pieces_of(t.arguments, r.delta_size))
            delta("{\"type\":\"input_json_delta\",\"partial_json\":" + json_string(p) + "}");
        block_stop();
    }
    event("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":" + json_string(anthropic_stop(c)) +
                               ",\"stop_sequence\":null,\"stop_details\":null,\"container\":null},\"usage\":" +
                               anthropic_usage(u, u.completion) + "}");
    event("message_stop", "{\"type\":\"message_stop\"}");
    return body;
}

/// The Responses API's status and incomplete_details for a choice's finish reason.
inline std::pair<std::string, std::string> responses_status(const fake_choice& c) {
    const std::string f = openai_finish(c);
    if (f == "length") return {"incomplete", "{\"reason\":\"max_output_tokens\"}"};
    if (f == "content_filter") return {"incomplete", "{\"reason\":\"content_filter\"}"};
    return {"completed", "null"};
}

inline std::string base64(std::string_view bytes);

/// The output items of a Response for a choice (ids numbered from the reply's id): a reasoning
/// item (with its encrypted_content when the request asked for it), a message with an
/// output_text or a refusal part, function_call items. `done`: the items as they end (as
/// `response.completed` and `response.output_item.done` write them); else as
/// `response.output_item.added` writes them.
inline std::vector<std::string> responses_items(const fake_choice& c, const reply_names& names, const request_info& info, bool done) {
    std::vector<std::string> items;
    const std::string status = done ? "\"completed\"" : "\"in_progress\"";
    auto id = [&](std::string_view prefix) { return json_string(std::string(prefix) + names.id + "_" + std::to_string(items.size())); };
    if (!c.reasoning.empty()) {
        std::string item = "{\"id\":" + id("rs_") + ",\"type\":\"reasoning\",\"summary\":[";
        if (done) item += "{\"type\":\"summary_text\",\"text\":" + json_string(c.reasoning) + "}";
        item += "]";
        if (info.encrypted_reasoning) item += ",\"encrypted_content\":" + json_string("gAAAAfake" + base64(c.reasoning));
        items.push_back(item + "}");
    }
    if (!c.text.empty() || !c.refusal.empty() || c.tool_calls.empty()) {
        std::string item = "{\"id\":" + id("msg_") + ",\"type\":\"message\",\"status\":" + status +
                           ",\"role\":\"assistant\",\"content\":[";
        if (done) {
            if (!c.refusal.empty()) item += "{\"type\":\"refusal\",\"refusal\":" + json_string(c.refusal) + "}";
            else item += "{\"type\":\"output_text\",\"text\":" + json_string(c.text) + ",\"annotations\":[],\"logprobs\":[]}";
        }
        items.push_back(item + "]}");
    }
    for (std::size_t k = 0; k < c.tool_calls.size(); ++k) {
        const auto& t = c.tool_calls[k];
        items.push_back("{\"id\":" + id("fc_") + ",\"type\":\"function_call\",\"status\":" + status +
                        ",\"arguments\":" + json_string(done ? t.arguments : std::string()) +
                        ",\"call_id\":" + json_string(tool_call_id(t, "call_fake_", k)) + ",\"name\":" + json_string(t.name) + "}");
    }
    return items;
}

/// A Response object (the first choice only): `status` "in_progress" (without output and usage)
/// or as the choice ends.
inline std::string responses_object(const fake_reply& r, const reply_names& names, const request_info& info, bool done) {
    static const fake_choice none{};
    const fake_choice& c = r.choices.empty() ? none : r.choices.front();
    const auto [status, incomplete] = responses_status(c);
    const fake_usage u = usage_of(r, info);
    std::string out = "{\"id\":" + json_string(names.id) + ",\"object\":\"response\",\"created_at\":" +
                      std::to_string(names.created) + ",\"status\":" + json_string(done ? status : "in_progress") +
                      ",\"background\":false,\"error\":null,\"incomplete_details\":" + (done ? incomplete : "null") +
                      ",\"instructions\":null,\"max_output_tokens\":null,\"model\":" + json_string(names.model) + ",\"output\":[";
    if (done) {
        const auto items = responses_items(c, names, info, true);
        for (std::size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + items[i];
    }
    out += "],\"parallel_tool_calls\":true,\"previous_response_id\":null,\"reasoning\":{\"effort\":null,\"summary\":null},"
           "\"service_tier\":\"default\",\"store\":true,\"temperature\":1.0,\"text\":{\"format\":{\"type\":\"text\"},"
           "\"verbosity\":\"medium\"},\"tool_choice\":\"auto\",\"tools\":[],\"top_p\":1.0,\"truncation\":\"disabled\",\"usage\":";
    if (done) {
        out += "{\"input_tokens\":" + std::to_string(u.prompt) + ",\"input_tokens_details\":{\"cached_tokens\":" +
               std::to_string(u.cached) + "},\"output_tokens\":" + std::to_string(u.completion) +
               ",\"output_tokens_details\":{\"reasoning_tokens\":" + std::to_string(u.reasoning) +
               "},\"total_tokens\":" + std::to_string(u.prompt + u.completion) + "}";
    } else {
        out += "null";
    }
    return out + ",\"user\":null,\"metadata\":{}}";
}

/// The semantic events of a streamed Response, as the API sends them: response.created and
/// response.in_progress; per output item output_item.added, its parts and deltas (reasoning
/// summary text, output_text or refusal, function call arguments) and their .done events,
/// output_item.done; then response.completed (or response.incomplete). Every event has its
/// `type` and a `sequence_number`.
inline encoded_body responses_stream(const fake_reply& r, const reply_names& names, const request_info& info) {
    static const fake_choice none{};
    const fake_choice& c = r.choices.empty() ? none : r.choices.front();
    encoded_body body;
    std::string& out = body.bytes;
    std::size_t sequence = 0;
    auto event = [&](std::string_view type, const std::string& members) {
        out += "event: ";
        out += type;
        out += "\ndata: {\"type\":\"";
        out += type;
        out += "\",\"sequence_number\":" + std::to_string(sequence++) + "," + members + "}\n\n";
        body.event_ends.push_back(out.size());
    };
    event("response.created", "\"response\":" + responses_object(r, names, info, false));
    event("response.in_progress", "\"response\":" + responses_object(r, names, info, false));
    const auto added = responses_items(c, names, info, false);
    const auto finished = responses_items(c, names, info, true);
    for (std::size_t i = 0; i < added.size(); ++i) {
        const std::string index = "\"output_index\":" + std::to_string(i);
        const boost::json::value item = boost::json::parse(finished[i]);
        const std::string item_id = "\"item_id\":" + json_string(std::string(item.at("id").as_string()));
        const boost::json::string& type = item.at("type").as_string();
        event("response.output_item.added", index + ",\"item\":" + added[i]);
        if (type == "reasoning") {
            const std::string part = ",\"summary_index\":0";
            event("response.reasoning_summary_part.added",
                  item_id + "," + index + part + ",\"part\":{\"type\":\"summary_text\",\"text\":\"\"}");
            for (auto p : pieces_of(c.reasoning, r.delta_size))
                event("response.reasoning_summary_text.delta", item_id + "," + index + part + ",\"delta\":" + json_string(p));
            event("response.reasoning_summary_text.done", item_id + "," + index + part + ",\"text\":" + json_string(c.reasoning));
            event("response.reasoning_summary_part.done",
                  item_id + "," + index + part + ",\"part\":{\"type\":\"summary_text\",\"text\":" + json_string(c.reasoning) + "}");
        } else if (type == "message") {
            const std::string at = item_id + "," + index + ",\"content_index\":0";
            if (!c.refusal.empty()) {
                event("response.content_part.added", at + ",\"part\":{\"type\":\"refusal\",\"refusal\":\"\"}");
                for (auto p : pieces_of(c.refusal, r.delta_size)) event("response.refusal.delta", at + ",\"delta\":" + json_string(p));
                event("response.refusal.done", at + ",\"refusal\":" + json_string(c.refusal));
                event("response.content_part.done", at + ",\"part\":{\"type\":\"refusal\",\"refusal\":" + json_string(c.refusal) + "}");
            } else {
                event("response.content_part.added",
                      at + ",\"part\":{\"type\":\"output_text\",\"text\":\"\",\"annotations\":[],\"logprobs\":[]}");
                for (auto p : pieces_of(c.text, r.delta_size))
                    event("response.output_text.delta", at + ",\"delta\":" + json_string(p) + ",\"logprobs\":[]");
                event("response.output_text.done", at + ",\"text\":" + json_string(c.text) + ",\"logprobs\":[]");
                event("response.content_part.done", at + ",\"part\":{\"type\":\"output_text\",\"text\":" + json_string(c.text) +
                                                        ",\"annotations\":[],\"logprobs\":[]}");
            }
        } else {
            const std::string args(item.at("arguments").as_string());
            for (auto p : pieces_of(args, r.delta_size))
                event("response.function_call_arguments.delta", item_id + "," + index + ",\"delta\":" + json_string(p));
            event("response.function_call_arguments.done", item_id + "," + index + ",\"name\":" +
                                                               json_string(std::string(item.at("name").as_string())) +
                                                               ",\"arguments\":" + json_string(args));
        }
        event("response.output_item.done", index + ",\"item\":" + finished[i]);
    }
    const bool complete = responses_status(c).first == "completed";
    event(complete ? "response.completed" : "response.incomplete", "\"response\":" + responses_object(r, names, info, true));
    return body;
}

inline std::string base64(std::string_view bytes) {
    static constexpr char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const unsigned v = static_cast<unsigned char>(bytes[i]) << 16 | static_cast<unsigned char>(bytes[i + 1]) << 8 |
                           static_cast<unsigned char>(bytes[i + 2]);
        out += table[v >> 18];
        out += table[(v >> 12) & 63];
        out += table[(v >> 6) & 63];
        out += table[v & 63];
    }
    if (i < bytes.size()) {
        unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
        if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
        out += table[v >> 18];
        out += table[(v >> 12) & 63];
        out += i + 1 < bytes.size() ? table[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

/// A unit vector of `dimensions` numbers that depends only on the text.
inline std::vector<double> embedding_of(std::string_view text, std::size_t dimensions) {
    std::uint64_t h = 1469598103934665603ull;
    for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    std::mt19937_64 rng(h);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double> v(dimensions);
    double norm = 0;
    for (auto& x : v) {
        x = dist(rng);
        norm += x * x;
    }
    norm = std::sqrt(norm);
    for (auto& x : v) x = norm > 0 ? x / norm : 0;
    return v;
}

/// An OpenAI embeddings list: the scripted vectors, else one vector per input.
inline std::string embeddings_list(const fake_reply* r, const request_info& info) {
    std::vector<std::vector<double>> vectors;
    if (r && !r->embeddings.empty()) {
        vectors = r->embeddings;
    } else {
        std::size_t dims = r && r->dimensions ? r->dimensions : info.dimensions ? info.dimensions : 16;
        for (const auto& in : info.inputs) vectors.push_back(embedding_of(in, dims));
    }
    std::string out = "{\"object\":\"list\",\"data\":[";
    for (std::size_t i = 0; i < vectors.size(); ++i) {
        if (i) out += ',';
        out += "{\"object\":\"embedding\",\"index\":" + std::to_string(i) + ",\"embedding\":";
        if (info.base64) {
            std::string raw;
            for (double d : vectors[i]) {
                const float f = static_cast<float>(d);
                char b[sizeof f];
                std::memcpy(b, &f, sizeof f);
                raw.append(b, sizeof f);
            }
            append_json_string(out, base64(raw));
        } else {
            out += '[';
            for (std::size_t k = 0; k < vectors[i].size(); ++k) {
                if (k) out += ',';
                char num[32];
                std::snprintf(num, sizeof num, "%.8g", vectors[i][k]);
                out += num;
            }
            out += ']';
        }
        out += '}';
    }
    const std::string model = r && !r->model.empty() ? r->model : info.model;
    std::size_t tokens = r && r->usage ? r->usage->prompt : info.prompt_tokens;
    out += "],\"model\":" + json_string(model) + ",\"usage\":{\"prompt_tokens\":" + std::to_string(tokens) +
           ",\"total_tokens\":" + std::to_string(tokens) + "}}";
    return out;
}

/// The models list: OpenAI's `{"object": "list", "data": [{"id", "object": "model", "created",
/// "owned_by"}]}`, or for an Anthropic client (a request with `anthropic-version`) Anthropic's
/// `{"data": [{"type": "model", "id", "display_name", "created_at"}], "has_more", "first_id",
/// "last_id"}`.
inline std::string models_list(bool anthropic) {
    if (anthropic) {
        static const char* const claude[][2] = {{"claude-sonnet-4-5", "Claude Sonnet 4.5"},
                                                {"claude-3-5-sonnet-latest", "Claude Sonnet 3.5"}};
        std::string out = "{\"data\":[";
        for (std::size_t i = 0; i < std::size(claude); ++i)
            out += std::string(i ? "," : "") + "{\"type\":\"model\",\"id\":" + json_string(claude[i][0]) +
                   ",\"display_name\":" + json_string(claude[i][1]) + ",\"created_at\":\"2025-09-29T00:00:00Z\"}";
        return out + "],\"has_more\":false,\"first_id\":" + json_string(claude[0][0]) +
               ",\"last_id\":" + json_string(claude[std::size(claude) - 1][0]) + "}";
    }
    static const char* const ids[][2] = {{"gpt-4o", "system"},
                                         {"gpt-4o-mini", "system"},
                                         {"text-embedding-3-small", "system"},
                                         {"claude-3-5-sonnet-latest", "anthropic"},
                                         {"fake-model", "parley"}};
    std::string out = "{\"object\":\"list\",\"data\":[";
    bool first = true;
    for (const auto& m : ids) {
        if (!first) out += ',';
        first = false;
        out += "{\"id\":" + json_string(m[0]) + ",\"object\":\"model\",\"created\":1700000000,\"owned_by\":" +
               json_string(m[1]) + "}";
    }
    return out + "]}";
}

}  // namespace detail
}  // namespace parley::testing

// the Gemini API's and Ollama's routes: they use the encoders' helpers above
#include <parley/testing/impl/fake_server_gemini.hpp>
#include <parley/testing/impl/fake_server_ollama.hpp>

namespace parley::testing {
namespace detail {

/// True for the routes of Anthropic's API.
inline bool anthropic_route(fake_route route) {
    return route == fake_route::anthropic || route == fake_route::count_tokens || route == fake_route::message_batches;
}

/// True for the routes of the batch APIs (files, batches, message batches).
inline bool batch_api_route(fake_route route) {
    return route == fake_route::files || route == fake_route::batches || route == fake_route::message_batches;
}

/// The deployment of an Azure OpenAI path (`.../deployments/NAME/chat/completions`); empty for
/// another path.
inline std::string azure_deployment_of(std::string_view target) {
    target = target.substr(0, target.find('?'));
    const auto at = target.find("/deployments/");
    if (at == std::string_view::npos) return {};
    const std::string_view rest = target.substr(at + 13);
    return std::string(rest.substr(0, rest.find('/')));
}

/// The error type the real API gives a status: Anthropic's (invalid_request_error,
/// authentication_error, permission_error, not_found_error, request_too_large, rate_limit_error,
/// api_error, overloaded_error) or OpenAI's (invalid_request_error for 4xx, `requests` for a rate
/// limit, server_error for 5xx).
inline std::string error_type_for(unsigned status, fake_route route) {
    if (gemini_route(route)) return gemini_status_word(status);
    if (anthropic_route(route)) {
        switch (status) {
        case 401: return "authentication_error";
        case 403: return "permission_error";
        case 404: return "not_found_error";
        case 408: return "timeout_error";
        case 413: return "request_too_large";
        case 429: return "rate_limit_error";
        case 529: return "overloaded_error";
        default: return status >= 500 ? "api_error" : "invalid_request_error";
        }
    }
    if (status == 429) return "requests";
    return status >= 500 ? "server_error" : "invalid_request_error";
}

/// The error code OpenAI gives a status (null for most).
inline std::string error_code_for(unsigned status) {
    if (status == 401) return "\"invalid_api_key\"";
    if (status == 429) return "\"rate_limit_exceeded\"";
    return "null";
}

/// The error object of a route: OpenAI's {"error": {"message", "type", "param", "code"}} or
/// Anthropic's {"type": "error", "error": {"type", "message"}, "request_id"}.
inline std::string error_body(fake_route route, const std::string& type, const std::string& message, const std::string& request_id,
                       const std::string& code = "null") {
    if (gemini_route(route)) return gemini_error_body(type, message);
    if (ollama_route(route)) return ollama_error_body(message);
    if (anthropic_route(route))
        return "{\"type\":\"error\",\"error\":{\"type\":" + json_string(type) + ",\"message\":" + json_string(message) +
               "},\"request_id\":" + json_string(request_id) + "}";
    return "{\"error\":{\"message\":" + json_string(message) + ",\"type\":" + json_string(type) + ",\"param\":null,\"code\":" +
           code + "}}";
}

/// The default body of a status reply: the route's error object with the real API's type (and
/// code) and message where the API's is known (Anthropic's "Overloaded", OpenAI's invalid key
/// and rate limit), else "fake server: STATUS REASON".
inline std::string status_error_body(fake_route route, unsigned status, const fake_error& e, const std::string& request_id) {
    const std::string type = e.type.empty() ? error_type_for(status, route) : e.type;
    std::string message = e.message;
    if (message.empty() && gemini_route(route)) message = gemini_default_message(status);
    if (message.empty()) {
        if (anthropic_route(route) && status == 529) {
            message = "Overloaded";
        } else if (!anthropic_route(route) && status == 401) {
            message = "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.";
        } else if (!anthropic_route(route) && status == 429) {
            message = "Rate limit reached for requests. Please try again later.";
        } else {
            const auto reason = boost::beast::http::obsolete_reason(static_cast<boost::beast::http::status>(status));
            message = "fake server: " + std::to_string(status) + " " + std::string(reason.data(), reason.size());
        }
    }
    if (gemini_route(route)) return gemini_error_body(type, message, {}, status);
    if (e.type == "content_filter" && (route == fake_route::openai || route == fake_route::responses))
        return azure_content_filter_body(e.message);
    return error_body(route, type, message, request_id, e.type.empty() ? error_code_for(status) : "null");
}

/// The error event that ends a stream: `data: {"error": ...}` or Anthropic's `event: error`.
inline std::string error_event(fake_route route, const fake_error& e, const std::string& request_id) {
    if (gemini_route(route))  // Google's error object as a chunk
        return "data: " + gemini_error_body(e.type.empty() ? "INTERNAL" : e.type, e.message.empty() ? gemini_default_message(500) : e.message) +
               "\r\n\r\n";
    if (ollama_route(route))  // Ollama's error line
        return ollama_error_body(e.message.empty() ? "an error was encountered while running the model: unexpected EOF" : e.message) +
               "\n";
    if (route == fake_route::anthropic)
        return "event: error\ndata: " +
               error_body(route, e.type.empty() ? "overloaded_error" : e.type, e.message.empty() ? "Overloaded" : e.message,
                          request_id) +
               "\n\n";
    const std::string message = e.message.empty() ? "The server had an error while processing your request." : e.message;
    if (route == fake_route::responses)  // the API's `error` event
        return "event: error\ndata: {\"type\":\"error\",\"code\":" + json_string(e.type.empty() ? "server_error" : e.type) +
               ",\"message\":" + json_string(message) + ",\"param\":null,\"sequence_number\":0}\n\n";
    return "data: " + error_body(route, e.type.empty() ? "server_error" : e.type, message, request_id) + "\n\n";
}

/// The event that replaces a good one in malformed_json's stream variant.
inline std::string malformed_event(fake_route route) {
    if (gemini_route(route)) return "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\r\n\r\n";
    if (ollama_route(route)) return "{\"model\":\"fake\",\"message\":{\"role\":\"assistant\",\"content\n";
    if (route == fake_route::responses)
        return "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\n\n";
    if (route == fake_route::anthropic)
        return "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\"\n\n";
    return "data: {\"id\":\"chatcmpl-fake\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\n\n";
}

inline constexpr std::string_view malformed_body =
    "{\"id\":\"chatcmpl-fake\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",";

inline constexpr std::string_view html_body =
    "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n"
    "<body><h1>Bad Gateway</h1><p>The upstream server did not answer.</p></body></html>\n";

/// Where each SSE event of a recorded body ends (after its blank line); the rest is one piece.
inline std::vector<std::size_t> sse_event_ends(std::string_view bytes) {
    std::vector<std::size_t> ends;
    std::size_t i = 0;
    while ((i = bytes.find("\n\n", i)) != std::string_view::npos) {
        i += 2;
        ends.push_back(i);
    }
    if (ends.empty() || ends.back() != bytes.size()) ends.push_back(bytes.size());
    return ends;
}

/// The text parts of a message's content (a string, or an array of {"type": "text", "text"}).
inline std::string text_of(const boost::json::value* content) {
    if (!content) return {};
    if (content->is_string()) return std::string(content->get_string());
    std::string out;
    if (content->is_array())
        for (const auto& part : content->get_array()) {
            if (!part.is_object()) continue;
            const auto& o = part.get_object();
            const auto* type = o.if_contains("type");
            const auto* text = o.if_contains("text");
            if (type && type->is_string() && (type->get_string() == "text" || type->get_string() == "input_text") && text &&
                text->is_string())
                out += std::string_view(text->get_string());
        }
    return out;
}

/// A step with its replay bytes read and its encodings cached.
struct script_entry {
    fake_step step;
    encoded_body replay;  // the bytes of step.replay
    std::string id;
    std::int64_t created = 0;

    struct cache_key {
        fake_route route;
        bool stream;
        bool include_usage;
        bool azure;
        std::string model;
        bool operator==(const cache_key&) const = default;
    };
    mutable std::mutex cache_mutex;
    mutable std::vector<std::pair<cache_key, std::shared_ptr<const encoded_body>>> cache;
};


inline std::shared_ptr<script_entry> make_entry(fake_step step, std::size_t number) {
    auto e = std::make_shared<script_entry>();
    if (!step.replay.empty()) {
        e->replay.bytes = read_file(step.replay);
        e->replay.event_ends = sse_event_ends(e->replay.bytes);
    }
    e->step = std::move(step);
    e->id = std::to_string(number);
    e->created = static_cast<std::int64_t>(std::time(nullptr));
    return e;
}

/// The HTTP head of a reply.
inline std::string response_head(unsigned status, std::string_view content_type, std::optional<std::size_t> length,
                                  bool keep_alive, const std::vector<std::pair<std::string, std::string>>& defaults,
                                  const std::vector<std::pair<std::string, std::string>>& extra) {
    const auto reason = boost::beast::http::obsolete_reason(static_cast<boost::beast::http::status>(status));
    std::string head = "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason.data(), reason.size()) + "\r\n";
    auto overridden = [&](std::string_view name) {
        return std::any_of(extra.begin(), extra.end(), [&](const auto& f) { return iequals(f.first, name); });
    };
    auto field = [&](std::string_view name, std::string_view value) {
        head += name;
        head += ": ";
        head += value;
        head += "\r\n";
    };
    if (!content_type.empty() && !overridden("content-type")) field("content-type", content_type);
    if (length)
        field("content-length", std::to_string(*length));
    else
        field("transfer-encoding", "chunked");
    if (!keep_alive) field("connection", "close");
    for (const auto& [n, v] : defaults)
        if (!overridden(n)) field(n, v);
    for (const auto& [n, v] : extra) field(n, v);
    head += "\r\n";
    return head;
}

/// The sizes of the pieces a body of `total` bytes is written in.
inline std::vector<std::size_t> piece_sizes(std::size_t total, const fake_chunking& c,
                                            const std::vector<std::size_t>& event_ends) {
    std::vector<std::size_t> sizes;
    if (c.random) {
        std::mt19937_64 rng(c.seed);
        std::uniform_int_distribution<std::size_t> dist(1, std::max<std::size_t>(1, c.random_max));
        for (std::size_t done = 0; done < total;) {
            const std::size_t n = std::min(dist(rng), total - done);
            sizes.push_back(n);
            done += n;
        }
    } else if (c.size) {
        for (std::size_t done = 0; done < total; done += c.size) sizes.push_back(std::min(c.size, total - done));
    } else if (!event_ends.empty()) {
        std::size_t start = 0;
        for (std::size_t end : event_ends) {
            if (end > total) end = total;
            if (end > start) sizes.push_back(end - start);
            start = end;
        }
        if (start < total) sizes.push_back(total - start);
    } else if (total) {
        sizes.push_back(total);
    }
    return sizes;
}

inline void append_chunk(std::string& out, std::string_view piece) {
    char size[24];
    std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
    out += size;
    out += piece;
    out += "\r\n";
}

inline void raise_fd_limit() {
    rlimit r{};
    if (getrlimit(RLIMIT_NOFILE, &r) != 0) return;
    const rlim_t want = std::min<rlim_t>(r.rlim_max, 65536);
    if (r.rlim_cur < want) {
        r.rlim_cur = want;
        setrlimit(RLIMIT_NOFILE, &r);
    }
}
/// Reads a script's JSON, naming the place of each mistake ("steps[2].reply.tool_calls[0]").
class script_reader {
public:
    explicit script_reader(std::filesystem::path base) : base_(std::move(base)) {}

    fake_script script(const boost::json::value& v) {
        fake_script s;
        const boost::json::array* steps = nullptr;
        if (v.is_array()) {
            steps = &v.get_array();
        } else if (v.is_object()) {
            const auto& o = v.get_object();
            keys(o, "script", {"steps", "repeat", "fault_mix", "rate_limit", "batch"});
            const auto* st = o.if_contains("steps");
            if (!st || !st->is_array()) fail("script", "'steps' must be an array");
            steps = &st->get_array();
            if (const auto* r = o.if_contains("repeat")) s.repeat = boolean(*r, "repeat");
            if (const auto* m = o.if_contains("fault_mix")) s.fault_mix = fault_mix(*m, "fault_mix");
            if (const auto* l = o.if_contains("rate_limit")) s.rate_limit = rate_limit(*l, "rate_limit");
            if (const auto* b = o.if_contains("batch")) s.batch = batch_options(*b, "batch");
        } else {
            fail("script", "must be an object {\"steps\": [...]} or an array of steps");
        }
        for (std::size_t i = 0; i < steps->size(); ++i)
            s.steps.push_back(step((*steps)[i], "steps[" + std::to_string(i) + "]"));
        return s;
    }

    fake_step step(const boost::json::value& v, const std::string& at) {
        const auto& o = object(v, at);
        keys(o, at,
             {"route", "match", "reply", "replay", "status", "body", "headers", "fault", "delay_ms", "chunk_delay_ms",
              "after_bytes", "after_events", "variant", "error", "chunk_size", "chunk_sizes", "seed", "chunk_max"});
        fake_step s;
        if (const auto* m = o.if_contains("match")) s.match = string(*m, at + ".match");
        if (const auto* r = o.if_contains("route")) {
            const std::string name = string(*r, at + ".route");
            if (name == "openai") s.route = fake_route::openai;
            else if (name == "anthropic") s.route = fake_route::anthropic;
            else if (name == "embeddings") s.route = fake_route::embeddings;
            else if (name == "models") s.route = fake_route::models;
            else if (name == "responses") s.route = fake_route::responses;
            else if (name == "count_tokens") s.route = fake_route::count_tokens;
            else if (name == "gemini") s.route = fake_route::gemini;
            else if (name == "gemini_embeddings") s.route = fake_route::gemini_embeddings;
            else if (name == "ollama") s.route = fake_route::ollama;
            else if (name == "ollama_embeddings") s.route = fake_route::ollama_embeddings;
            else
                fail(at + ".route", "must be \"openai\", \"responses\", \"anthropic\", \"embeddings\", \"models\", "
                                    "\"count_tokens\", \"gemini\", \"gemini_embeddings\", \"ollama\" or \"ollama_embeddings\", "
                                    "not \"" + name + "\"");
        }
        if (const auto* r = o.if_contains("reply")) s.reply = reply(*r, at + ".reply");
        if (const auto* r = o.if_contains("replay")) {
            std::filesystem::path p = string(*r, at + ".replay");
            if (p.is_relative() && !base_.empty()) p = base_ / p;
            s.replay = p.string();
        }
        if (const auto* r = o.if_contains("status")) {
            const auto status = integer(*r, at + ".status");
            if (status < 100 || status > 599) fail(at + ".status", "must be an HTTP status (100 to 599)");
            s.status = static_cast<unsigned>(status);
        }
        if ((s.reply ? 1 : 0) + (s.replay.empty() ? 0 : 1) + (s.status ? 1 : 0) > 1)
            fail(at, "'reply', 'replay' and 'status' exclude each other");
        if (const auto* b = o.if_contains("body")) {
            if (!s.status) fail(at + ".body", "only a 'status' step has a body");
            s.body = b->is_string() ? std::string(b->get_string()) : boost::json::serialize(*b);
        }
        if (const auto* h = o.if_contains("headers")) {
            for (const auto& [name, value] : object(*h, at, ".headers")) {
                const std::string where = at + ".headers." + std::string(name);
                if (value.is_string()) s.headers.emplace_back(std::string(name), std::string(value.get_string()));
                else if (value.is_number()) s.headers.emplace_back(std::string(name), boost::json::serialize(value));
                else fail(where, "must be a string or a number");
            }
        }
        if (const auto* f = o.if_contains("fault")) {
            const std::string name = string(*f, at + ".fault");
            static const std::pair<const char*, fake_fault> faults[] = {
                {"slow_headers", fake_fault::slow_headers},     {"stall", fake_fault::stall},
                {"disconnect", fake_fault::disconnect},         {"malformed_json", fake_fault::malformed_json},
                {"error_event", fake_fault::error_event},       {"wrong_content_type", fake_fault::wrong_content_type},
                {"close_idle", fake_fault::close_idle}};
            bool found = false;
            for (const auto& [n, k] : faults)
                if (name == n) {
                    s.fault = k;
                    found = true;
                }
            if (!found)
                fail(at + ".fault", "unknown fault \"" + name +
                                        "\" (slow_headers, stall, disconnect, malformed_json, error_event, "
                                        "wrong_content_type, close_idle)");
        }
        if (const auto* d = o.if_contains("delay_ms")) s.delay = std::chrono::milliseconds(count(*d, at + ".delay_ms"));
        if (const auto* d = o.if_contains("chunk_delay_ms"))
            s.chunk_delay = std::chrono::milliseconds(count(*d, at + ".chunk_delay_ms"));
        if (const auto* d = o.if_contains("after_bytes")) s.after_bytes = count(*d, at + ".after_bytes");
        if (const auto* d = o.if_contains("after_events")) s.after_events = count(*d, at + ".after_events");
        if (const auto* d = o.if_contains("variant")) {
            s.variant = string(*d, at + ".variant");
            if (s.variant != "body" && s.variant != "event") fail(at + ".variant", "must be \"body\" or \"event\"");
        }
        if (const auto* e = o.if_contains("error")) {
            const auto& eo = object(*e, at, ".error");
            keys(eo, at + ".error", {"type", "message"});
            if (const auto* t = eo.if_contains("type")) s.error.type = string(*t, at + ".error.type");
            if (const auto* m = eo.if_contains("message")) s.error.message = string(*m, at + ".error.message");
        }
        const auto* size = o.if_contains("chunk_size");
        const auto* sizes = o.if_contains("chunk_sizes");
        if (size && sizes) fail(at, "give 'chunk_size' or 'chunk_sizes', not both");
        if (!size) size = sizes;
        const std::string size_at = at + (sizes ? ".chunk_sizes" : ".chunk_size");
        if (size) {
            if (size->is_string()) {
                if (size->get_string() != "random") fail(size_at, "must be a number of bytes or \"random\"");
                s.chunking.random = true;
            } else {
                s.chunking.size = count(*size, size_at);
                if (s.chunking.size == 0) fail(size_at, "must be at least 1");
            }
        }
        if (const auto* d = o.if_contains("seed")) s.chunking.seed = count(*d, at + ".seed");
        if (const auto* d = o.if_contains("chunk_max")) {
            s.chunking.random_max = count(*d, at + ".chunk_max");
            if (s.chunking.random_max == 0) fail(at + ".chunk_max", "must be at least 1");
        }
        return s;
    }

private:
    fake_reply reply(const boost::json::value& v, const std::string& at) {
        const auto& o = object(v, at);
        keys(o, at,
             {"text", "refusal", "reasoning", "tool_calls", "finish", "choices", "usage", "model", "delta_size", "embeddings",
              "dimensions", "block_reason"});
        fake_reply r;
        const bool single = o.contains("text") || o.contains("refusal") || o.contains("reasoning") || o.contains("tool_calls") ||
                            o.contains("finish");
        if (const auto* c = o.if_contains("choices")) {
            if (single) fail(at, "give 'choices' or the fields of one choice (text, tool_calls, finish), not both");
            const auto& list = array(*c, at, ".choices");
            for (std::size_t i = 0; i < list.size(); ++i)
                r.choices.push_back(choice(list[i], at + ".choices[" + std::to_string(i) + "]", false));
        } else if (single) {
            r.choices.push_back(choice(v, at, true));
        }
        if (const auto* u = o.if_contains("usage")) {
            const auto& uo = object(*u, at, ".usage");
            keys(uo, at + ".usage", {"prompt", "completion", "cached", "cache_write", "reasoning"});
            fake_usage usage;
            if (const auto* p = uo.if_contains("prompt")) usage.prompt = count(*p, at + ".usage.prompt");
            if (const auto* p = uo.if_contains("completion")) usage.completion = count(*p, at + ".usage.completion");
            if (const auto* p = uo.if_contains("cached")) usage.cached = count(*p, at + ".usage.cached");
            if (const auto* p = uo.if_contains("cache_write")) usage.cache_write = count(*p, at + ".usage.cache_write");
            if (const auto* p = uo.if_contains("reasoning")) usage.reasoning = count(*p, at + ".usage.reasoning");
            r.usage = usage;
        }
        if (const auto* m = o.if_contains("model")) r.model = string(*m, at + ".model");
        if (const auto* d = o.if_contains("delta_size")) {
            r.delta_size = count(*d, at + ".delta_size");
            if (r.delta_size == 0) fail(at + ".delta_size", "must be at least 1");
        }
        if (const auto* e = o.if_contains("embeddings")) {
            const auto& list = array(*e, at, ".embeddings");
            for (std::size_t i = 0; i < list.size(); ++i) {
                const std::string where = at + ".embeddings[" + std::to_string(i) + "]";
                std::vector<double> vec;
                for (const auto& x : array(list[i], where)) {
                    if (!x.is_number()) fail(where, "must be an array of numbers");
                    vec.push_back(x.to_number<double>());
                }
                r.embeddings.push_back(std::move(vec));
            }
        }
        if (const auto* d = o.if_contains("dimensions")) r.dimensions = count(*d, at + ".dimensions");
        if (const auto* b = o.if_contains("block_reason")) {
            r.block_reason = string(*b, at + ".block_reason");
            if (r.block_reason.empty()) fail(at + ".block_reason", "must not be empty");
        }
        return r;
    }

    fake_choice choice(const boost::json::value& v, const std::string& at, bool inside_reply) {
        const auto& o = object(v, at);
        if (!inside_reply) keys(o, at, {"text", "refusal", "reasoning", "tool_calls", "finish"});
        fake_choice c;
        c.default_text = !o.contains("text") && !o.contains("refusal") && !o.contains("reasoning") && !o.contains("tool_calls");
        if (const auto* t = o.if_contains("text")) c.text = string(*t, at + ".text");
        if (const auto* t = o.if_contains("refusal")) c.refusal = string(*t, at + ".refusal");
        if (const auto* t = o.if_contains("reasoning")) c.reasoning = string(*t, at + ".reasoning");
        if (const auto* t = o.if_contains("finish")) c.finish = string(*t, at + ".finish");
        if (const auto* t = o.if_contains("tool_calls")) {
            const auto& list = array(*t, at, ".tool_calls");
            for (std::size_t i = 0; i < list.size(); ++i) {
                const std::string where = at + ".tool_calls[" + std::to_string(i) + "]";
                const auto& call = object(list[i], where);
                keys(call, where, {"id", "name", "arguments"});
                fake_tool_call tc;
                if (const auto* x = call.if_contains("id")) tc.id = string(*x, where + ".id");
                const auto* name = call.if_contains("name");
                if (!name) fail(where, "'name' is required");
                tc.name = string(*name, where + ".name");
                if (const auto* x = call.if_contains("arguments"))
                    tc.arguments = x->is_string() ? std::string(x->get_string()) : boost::json::serialize(*x);
                c.tool_calls.push_back(std::move(tc));
            }
        }
        return c;
    }

    fake_fault_mix fault_mix(const boost::json::value& v, const std::string& at) {
        const auto& o = object(v, at);
        keys(o, at, {"rate", "seed", "faults"});
        fake_fault_mix m;
        if (const auto* r = o.if_contains("rate")) {
            if (!r->is_number() || !(r->to_number<double>() >= 0 && r->to_number<double>() <= 1))
                fail(at + ".rate", "must be a number from 0 to 1");
            m.rate = r->to_number<double>();
        }
        if (const auto* r = o.if_contains("seed")) m.seed = static_cast<std::uint64_t>(count(*r, at + ".seed"));
        if (const auto* r = o.if_contains("faults")) {
            const auto& list = array(*r, at, ".faults");
            for (std::size_t i = 0; i < list.size(); ++i)
                m.faults.push_back(step(list[i], at + ".faults[" + std::to_string(i) + "]"));
        }
        return m;
    }

    fake_batch_options batch_options(const boost::json::value& v, const std::string& at) {
        const auto& o = object(v, at);
        keys(o, at, {"polls", "per_poll", "expire", "max_requests", "max_bytes"});
        fake_batch_options b;
        if (const auto* r = o.if_contains("polls")) b.polls = count(*r, at + ".polls");
        if (const auto* r = o.if_contains("per_poll")) b.per_poll = count(*r, at + ".per_poll");
        if (const auto* r = o.if_contains("expire")) b.expire = boolean(*r, at + ".expire");
        if (const auto* r = o.if_contains("max_requests")) b.max_requests = count(*r, at + ".max_requests");
        if (const auto* r = o.if_contains("max_bytes")) b.max_bytes = count(*r, at + ".max_bytes");
        return b;
    }

    fake_rate_limit rate_limit(const boost::json::value& v, const std::string& at) {
        const auto& o = object(v, at);
        keys(o, at, {"requests", "window_ms", "retry_after"});
        fake_rate_limit l;
        if (const auto* r = o.if_contains("requests")) l.requests = count(*r, at + ".requests");
        if (const auto* r = o.if_contains("window_ms")) {
            l.window = std::chrono::milliseconds(count(*r, at + ".window_ms"));
            if (l.window.count() == 0) fail(at + ".window_ms", "must be at least 1");
        }
        if (const auto* r = o.if_contains("retry_after")) l.retry_after = boolean(*r, at + ".retry_after");
        return l;
    }

    [[noreturn]] static void fail(const std::string& at, const std::string& what) {
        throw std::invalid_argument("fake server script: " + at + ": " + what);
    }
    static void keys(const boost::json::object& o, const std::string& at, std::initializer_list<std::string_view> known) {
        for (const auto& [k, v] : o)
            if (std::find(known.begin(), known.end(), std::string_view(k)) == known.end()) {
                std::string list;
                for (auto n : known) list += (list.empty() ? "" : ", ") + std::string(n);
                fail(at, "unknown key \"" + std::string(k) + "\" (known: " + list + ")");
            }
    }
    // The object or array `v`, at `at` followed by `member` in the script: the location is a
    // view, and its text is only made for the message of a failure (a temporary string passed
    // here would be a temporary that the returned reference seems to depend on).
    static const boost::json::object& object(const boost::json::value& v, std::string_view at,
                                             std::string_view member = {}) {
        if (!v.is_object()) fail(std::string(at).append(member), "must be an object");
        return v.get_object();
    }
    static const boost::json::array& array(const boost::json::value& v, std::string_view at,
                                           std::string_view member = {}) {
        if (!v.is_array()) fail(std::string(at).append(member), "must be an array");
        return v.get_array();
    }
    static std::string string(const boost::json::value& v, const std::string& at) {
        if (!v.is_string()) fail(at, "must be a string");
        return std::string(v.get_string());
    }
    static bool boolean(const boost::json::value& v, const std::string& at) {
        if (!v.is_bool()) fail(at, "must be true or false");
        return v.get_bool();
    }
    static std::int64_t integer(const boost::json::value& v, const std::string& at) {
        if (v.is_int64()) return v.get_int64();
        if (v.is_uint64() && v.get_uint64() <= static_cast<std::uint64_t>(INT64_MAX))
            return static_cast<std::int64_t>(v.get_uint64());
        fail(at, "must be an integer");
    }
    static std::size_t count(const boost::json::value& v, const std::string& at) {
        const auto n = integer(v, at);
        if (n < 0) fail(at, "must not be negative");
        return static_cast<std::size_t>(n);
    }

    std::filesystem::path base_;
};

}  // namespace detail

}  // namespace parley::testing

#include <parley/testing/impl/fault_mix.hpp>  // the fault mix and the request limit
#include <parley/testing/impl/fake_server_batch.hpp>  // the batch APIs

namespace parley::testing {

/// A script from its JSON form (docs/fake-server.md): {"steps": [...], "repeat": false} or an
/// array of steps. Relative replay paths are taken from `base_dir`. Throws std::invalid_argument
/// naming the place of the first mistake ("fake server script: steps[1].reply.finish: ...").
PARLEY_DECL fake_script fake_script_from_json(const boost::json::value& json, const std::filesystem::path& base_dir) {
    return detail::script_reader(base_dir).script(json);
}

/// One step from its JSON form; throws std::invalid_argument as fake_script_from_json does.
PARLEY_DECL fake_step fake_step_from_json(const boost::json::value& json, const std::filesystem::path& base_dir) {
    return detail::script_reader(base_dir).step(json, "step");
}

/// A script read from a JSON file; relative replay paths are taken from the file's directory.
/// Throws std::runtime_error when the file cannot be read or is not JSON, std::invalid_argument
/// when the script is wrong.
PARLEY_DECL fake_script fake_script_from_file(const std::filesystem::path& path) {
    const std::string text = detail::read_file(path.string());
    boost::system::error_code ec;
    const boost::json::value v = boost::json::parse(text, ec);
    if (ec) throw std::runtime_error("fake server script " + path.string() + ": not valid JSON: " + ec.message());
    return fake_script_from_json(v, path.parent_path());
}

/// The route a request path leads to (matched on its end), or nothing.
PARLEY_DECL std::optional<fake_route> fake_route_of_path(std::string_view target) {
    // absolute-form (a request sent to a proxy): drop the scheme and the authority
    if (auto scheme = target.find("://"); scheme != std::string_view::npos && target.substr(0, scheme).find('/') == std::string_view::npos) {
        const auto slash = target.find('/', scheme + 3);
        target = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
    }
    target = target.substr(0, target.find('?'));
    while (target.size() > 1 && target.back() == '/') target.remove_suffix(1);
    if (auto gemini = detail::gemini_route_of_path(target)) return gemini;
    if (auto batch = detail::batch_route_of_path(target)) return batch;
    auto ends = [&](std::string_view s) {
        return target.size() >= s.size() && target.substr(target.size() - s.size()) == s;
    };
    if (ends("/api/chat")) return fake_route::ollama;
    if (ends("/api/embed")) return fake_route::ollama_embeddings;
    if (ends("/api/tags")) return fake_route::models;
    if (ends("/chat/completions")) return fake_route::openai;
    if (ends("/messages/count_tokens")) return fake_route::count_tokens;
    if (ends("/messages")) return fake_route::anthropic;
    if (ends("/responses")) return fake_route::responses;
    if (ends("/embeddings")) return fake_route::embeddings;
    if (ends("/models")) return fake_route::models;
    return std::nullopt;
}

PARLEY_DECL boost::json::value recorded_request::json() const { return boost::json::parse(body); }

// The server's state and its coroutines: one accept loop, one coroutine per connection, on the
// threads of its own io_context.
struct fake_server::impl {
    explicit impl(fake_server_options options) : options_(std::move(options)) {
        if (!options_.tls_certificate_chain_pem.empty()) {
            tls_.emplace(boost::asio::ssl::context::tls_server);
            tls_->set_options(boost::asio::ssl::context::default_workarounds | boost::asio::ssl::context::no_sslv2 |
                              boost::asio::ssl::context::no_sslv3);
            tls_->use_certificate_chain(boost::asio::buffer(options_.tls_certificate_chain_pem));
            tls_->use_private_key(boost::asio::buffer(options_.tls_private_key_pem), boost::asio::ssl::context::pem);
        }
        set_script(std::move(options_.script));
        port_ = options_.port;
        start();
    }
    impl(const impl&) = delete;
    impl& operator=(const impl&) = delete;
    ~impl() { stop(); }

    /// Starts serving (again, on the same port after stop()); nothing when running.
    void start() {
        namespace asio = boost::asio;
        if (ioc_) return;
        detail::raise_fd_limit();
        const std::size_t threads = std::max<std::size_t>(1, options_.threads);
        ioc_ = std::make_unique<asio::io_context>(static_cast<int>(threads));
        asio::ip::tcp::acceptor acceptor(*ioc_);
        const asio::ip::tcp::endpoint endpoint(asio::ip::make_address(options_.host), port_);
        try {
            acceptor.open(endpoint.protocol());
            acceptor.set_option(asio::socket_base::reuse_address(true));
            acceptor.bind(endpoint);
            acceptor.listen(options_.backlog);
        } catch (...) {
            acceptor.close();
            ioc_.reset();
            throw;
        }
        port_ = acceptor.local_endpoint().port();
        asio::co_spawn(*ioc_, accept_loop(std::move(acceptor)), asio::detached);
        for (std::size_t i = 0; i < threads; ++i)
            threads_.emplace_back([io = ioc_.get()] {
                for (;;) {
                    try {
                        io->run();
                        return;
                    } catch (...) {
                        // a connection's failure must not end the server
                    }
                }
            });
    }

    /// Stops serving: every connection is closed, the threads are joined. The script, the records
    /// and the port are kept.
    void stop() {
        if (!ioc_) return;
        ioc_->stop();
        for (auto& t : threads_) t.join();
        threads_.clear();
        ioc_.reset();  // destroys the pending operations, hence the connections and their sockets
    }

    /// Whether the server is serving.
    bool running() const noexcept { return ioc_ != nullptr; }
    /// The port it listens on.
    unsigned short port() const noexcept { return port_; }
    /// The address it listens on.
    const std::string& host() const noexcept { return options_.host; }
    /// Whether it speaks TLS.
    bool tls() const noexcept { return tls_.has_value(); }
    /// "http://HOST:PORT" ("https://..." with TLS).
    std::string base_url() const {
        return std::string(tls() ? "https://" : "http://") + options_.host + ":" + std::to_string(port_);
    }
    /// base_url() followed by `path`.
    std::string url(std::string_view path) const { return base_url() + std::string(path); }

    /// Replaces the script. Throws std::runtime_error when a replay file cannot be read.
    void set_script(fake_script script) {
        faults_.configure(script, [&](fake_step step) { return detail::make_entry(std::move(step), ++steps_made_); });
        batches_.configure(script.batch);
        std::deque<std::shared_ptr<detail::script_entry>> entries;
        for (auto& s : script.steps) entries.push_back(detail::make_entry(std::move(s), ++steps_made_));
        std::lock_guard lock(script_mutex_);
        queue_ = std::move(entries);
        repeat_ = script.repeat;
    }
    /// Appends a step. Throws std::runtime_error when its replay file cannot be read.
    void push(fake_step step) {
        auto e = detail::make_entry(std::move(step), ++steps_made_);
        std::lock_guard lock(script_mutex_);
        queue_.push_back(std::move(e));
    }
    /// Appends steps.
    void push(std::vector<fake_step> steps) {
        for (auto& s : steps) push(std::move(s));
    }
    /// Whether a step taken goes back to the end of the queue.
    void set_repeat(bool repeat) {
        std::lock_guard lock(script_mutex_);
        repeat_ = repeat;
    }
    /// The number of steps not yet taken.
    std::size_t pending_steps() const {
        std::lock_guard lock(script_mutex_);
        return queue_.size();
    }

    /// Every request received so far (CONNECT requests included), in order of arrival.
    std::vector<recorded_request> requests() const {
        std::lock_guard lock(records_mutex_);
        return records_;
    }
    /// The CONNECT requests received so far.
    std::vector<recorded_request> connect_requests() const {
        std::lock_guard lock(records_mutex_);
        std::vector<recorded_request> out;
        for (const auto& r : records_)
            if (r.method == "CONNECT") out.push_back(r);
        return out;
    }
    /// The number of requests received so far (counted even when not recorded).
    std::size_t request_count() const noexcept { return requests_.load(); }
    /// The last request recorded; throws std::logic_error when there is none.
    recorded_request last_request() const {
        std::lock_guard lock(records_mutex_);
        if (records_.empty()) throw std::logic_error("fake server: no request recorded");
        return records_.back();
    }
    /// Forgets the recorded requests (the counters are kept).
    void clear_requests() {
        std::lock_guard lock(records_mutex_);
        records_.clear();
    }
    /// The number of connections accepted so far.
    std::size_t connections_accepted() const noexcept { return connections_.load(); }

    using tcp = boost::asio::ip::tcp;
    template <class T>
    using awaitable = boost::asio::awaitable<T>;
    using entry_ptr = std::shared_ptr<detail::script_entry>;
    using header_list = std::vector<std::pair<std::string, std::string>>;
    static constexpr auto tuple_awaitable = boost::asio::as_tuple(boost::asio::use_awaitable);

    awaitable<void> accept_loop(tcp::acceptor acceptor) {
        namespace asio = boost::asio;
        for (;;) {
            tcp::socket socket(asio::make_strand(acceptor.get_executor()));
            auto [ec] = co_await acceptor.async_accept(socket, tuple_awaitable);
            if (ec == asio::error::operation_aborted || !acceptor.is_open()) co_return;
            if (ec) {
                // out of descriptors or similar: wait a little instead of spinning
                asio::steady_timer t(acceptor.get_executor(), std::chrono::milliseconds(5));
                co_await t.async_wait(tuple_awaitable);
                continue;
            }
            boost::system::error_code ignored;
            socket.set_option(tcp::no_delay(true), ignored);
            const std::size_t number = ++connections_;
            auto executor = socket.get_executor();
            asio::co_spawn(executor, serve_connection(std::move(socket), number), asio::detached);
        }
    }

    awaitable<void> serve_connection(tcp::socket socket, std::size_t number) {
        try {
            boost::beast::flat_buffer buffer;
            if (tls_) {
                auto [ec, is_tls] = co_await boost::beast::async_detect_ssl(socket, buffer, tuple_awaitable);
                if (ec) co_return;
                if (is_tls) {
                    boost::asio::ssl::stream<tcp::socket> stream(std::move(socket), *tls_);
                    auto [hec, used] = co_await stream.async_handshake(boost::asio::ssl::stream_base::server,
                                                                       buffer.data(), tuple_awaitable);
                    if (hec) co_return;
                    buffer.consume(used);
                    co_await serve_http(stream, buffer, number, true);
                    co_return;
                }
                if (!options_.proxy) co_return;  // plain text on a TLS port
            }
            co_await serve_http(socket, buffer, number, false);
        } catch (...) {
            // the connection ends; the server goes on
        }
    }

    template <class Stream>
    static void close(Stream& stream) {
        boost::system::error_code ec;
        auto& s = boost::beast::get_lowest_layer(stream);
        s.shutdown(tcp::socket::shutdown_both, ec);
        s.close(ec);
    }

    template <class Stream>
    awaitable<void> serve_http(Stream& stream, boost::beast::flat_buffer& buffer, std::size_t number, bool tls) {
        namespace http = boost::beast::http;
        std::string out;
        for (;;) {
            http::request_parser<http::string_body> parser;
            parser.body_limit(options_.max_body);
            parser.header_limit(1u << 20);
            auto [ec, n] = co_await http::async_read_header(stream, buffer, parser, tuple_awaitable);
            (void)n;
            if (!ec && boost::beast::iequals(parser.get()[http::field::expect], "100-continue")) {
                static constexpr std::string_view go_on = "HTTP/1.1 100 Continue\r\n\r\n";
                auto [wec, wn] = co_await boost::asio::async_write(stream, boost::asio::buffer(go_on), tuple_awaitable);
                (void)wn;
                ec = wec;
            }
            if (!ec && !parser.is_done()) {
                auto [bec, bn] = co_await http::async_read(stream, buffer, parser, tuple_awaitable);
                (void)bn;
                ec = bec;
            }
            // a request refused before it is read whole has an id of its own too
            const header_list refused_id{{"x-request-id", "req_fake_refused_" + std::to_string(requests_.load() + 1)}};
            if (ec == http::error::body_limit) {
                co_await write_simple(stream, 413,
                                      "{\"error\":{\"message\":\"request too large\",\"type\":\"invalid_request_error\","
                                      "\"param\":null,\"code\":null}}",
                                      false, "application/json", refused_id);
                close(stream);
                co_return;
            }
            if (ec) {
                if (ec.category() == http::make_error_code(http::error::bad_target).category() &&
                    ec != http::error::end_of_stream && ec != http::error::partial_message)
                    co_await write_simple(stream, 400,
                                          "{\"error\":{\"message\":\"bad request\",\"type\":\"invalid_request_error\","
                                          "\"param\":null,\"code\":null}}",
                                          false, "application/json", refused_id);
                close(stream);
                co_return;
            }
            auto& req = parser.get();
            ++requests_;
            recorded_request record;
            const bool want_record = options_.record || options_.on_request;
            if (want_record) {
                record.method = std::string(req.method_string());
                record.target = std::string(req.target());
                for (const auto& f : req) record.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
                record.body = req.body();
                record.tls = tls;
                record.connection = number;
                record.received = std::chrono::steady_clock::now();
            }
            if (req.method() == http::verb::connect) {
                unsigned status = 200;
                if (!options_.proxy)
                    status = 405;
                else if (!options_.proxy_authorization.empty() &&
                         req[http::field::proxy_authorization] != options_.proxy_authorization)
                    status = 407;
                remember(std::move(record), status, want_record);
                if (status == 405) {
                    co_await write_simple(stream, 405, "{\"error\":{\"message\":\"not a proxy\",\"type\":\"invalid_request_error\"}}",
                                          req.keep_alive());
                    if (!req.keep_alive()) {
                        close(stream);
                        co_return;
                    }
                    continue;
                }
                if (status == 407) {
                    const std::string head =
                        "HTTP/1.1 407 Proxy Authentication Required\r\nproxy-authenticate: Basic realm=\"parley fake proxy\"\r\n"
                        "content-length: 0\r\n\r\n";
                    auto [wec, wn] = co_await boost::asio::async_write(stream, boost::asio::buffer(head), tuple_awaitable);
                    (void)wn;
                    if (wec || !req.keep_alive()) {
                        close(stream);
                        co_return;
                    }
                    continue;
                }
                co_await tunnel(stream, buffer, std::string(req.target()));
                co_return;
            }
            const bool keep = req.keep_alive();
            const bool go_on = co_await answer(stream, req, keep, out, std::move(record), want_record);
            if (!go_on || !keep) {
                close(stream);
                co_return;
            }
        }
    }

    void remember(recorded_request record, unsigned status, bool want_record) {
        if (!want_record) return;
        if (options_.on_request) options_.on_request(record, status);
        if (options_.record) {
            std::lock_guard lock(records_mutex_);
            records_.push_back(std::move(record));
        }
    }

    template <class Stream>
    awaitable<bool> write_simple(Stream& stream, unsigned status, std::string_view body, bool keep,
                                 std::string_view content_type = "application/json", const header_list& fields = {}) {
        std::string msg = detail::response_head(status, content_type, body.size(), keep, fields, {});
        msg += body;
        auto [ec, n] = co_await boost::asio::async_write(stream, boost::asio::buffer(msg), tuple_awaitable);
        (void)n;
        co_return !ec;
    }

    /// Waits until the client goes away (or the server stops).
    template <class Stream>
    static awaitable<void> wait_until_gone(Stream& stream) {
        char sink[4096];
        for (;;) {
            auto [ec, n] = co_await stream.async_read_some(boost::asio::buffer(sink), tuple_awaitable);
            (void)n;
            if (ec) co_return;
        }
    }

    entry_ptr take_step(fake_route route, std::string_view body) {
        std::lock_guard lock(script_mutex_);
        for (auto it = queue_.begin(); it != queue_.end(); ++it) {
            const auto& want = (*it)->step.route;
            if (!(*it)->step.match.empty() && body.find((*it)->step.match) == std::string_view::npos) continue;
            if (want ? *want == route : route != fake_route::models && route != fake_route::count_tokens) {
                entry_ptr e = *it;
                queue_.erase(it);
                if (repeat_) queue_.push_back(e);
                return e;
            }
        }
        return nullptr;
    }

    /// Reads what the encoders need from the request body; an error message when the request is
    /// not one the real API would accept.
    std::string inspect(fake_route route, const std::string& body, detail::request_info& info, std::string_view target) const {
        info.route = route;
        if (route == fake_route::models) return {};
        boost::system::error_code ec;
        const boost::json::value v = boost::json::parse(body, ec);
        if (ec) return "the body is not valid JSON: " + ec.message();
        if (!v.is_object()) return "the body must be a JSON object";
        const auto& o = v.get_object();
        if (detail::gemini_route(route)) {  // the model is in the path
            info.prompt_tokens = std::max<std::size_t>(1, body.size() / 4);
            return route == fake_route::gemini ? detail::gemini_inspect(target, o, info)
                                               : detail::gemini_inspect_embeddings(target, o, info);
        }
        if (detail::ollama_route(route)) {
            info.prompt_tokens = std::max<std::size_t>(1, body.size() / 4);
            return route == fake_route::ollama ? detail::ollama_inspect(o, info) : detail::ollama_inspect_embeddings(o, info);
        }
        const auto* model = o.if_contains("model");
        if (model && model->is_string()) {
            info.model = std::string(model->get_string());
        } else if (const std::string deployment = detail::azure_deployment_of(target); !deployment.empty() && !model) {
            info.model = deployment;  // Azure: the deployment in the path names the model
        } else {
            return "'model' must be a string";
        }
        info.prompt_tokens = std::max<std::size_t>(1, body.size() / 4);
        if (route == fake_route::embeddings) {
            const auto* input = o.if_contains("input");
            if (!input) return "'input' is required";
            if (input->is_string()) {
                info.inputs.push_back(std::string(input->get_string()));
            } else if (input->is_array() && !input->get_array().empty()) {
                const auto& a = input->get_array();
                if (a.front().is_number()) {
                    info.inputs.push_back(boost::json::serialize(a));
                } else {
                    for (const auto& x : a) {
                        if (x.is_string())
                            info.inputs.push_back(std::string(x.get_string()));
                        else if (x.is_array())
                            info.inputs.push_back(boost::json::serialize(x));
                        else
                            return "'input' must be a string, an array of strings or of token arrays";
                    }
                }
            } else {
                return "'input' must be a string or a non-empty array";
            }
            if (const auto* d = o.if_contains("dimensions"); d && d->is_int64() && d->get_int64() > 0)
                info.dimensions = static_cast<std::size_t>(d->get_int64());
            if (const auto* f = o.if_contains("encoding_format"); f && f->is_string() && f->get_string() == "base64")
                info.base64 = true;
            return {};
        }
        if (route == fake_route::responses) return inspect_responses(o, info);
        const auto* messages = o.if_contains("messages");
        if (!messages || !messages->is_array() || messages->get_array().empty())
            return "'messages' must be a non-empty array";
        for (const auto& m : messages->get_array()) {
            if (!m.is_object()) return "each message must be an object";
            const auto* role = m.get_object().if_contains("role");
            if (!role || !role->is_string()) return "each message needs a 'role' string";
            if (route == fake_route::anthropic && role->get_string() != "user" && role->get_string() != "assistant")
                return "messages: role must be 'user' or 'assistant' (the system prompt is the top-level 'system'), not '" +
                       std::string(role->get_string()) + "'";
        }
        if (route == fake_route::count_tokens) return {};
        if (route == fake_route::anthropic) {
            const auto* max_tokens = o.if_contains("max_tokens");
            if (!max_tokens || !max_tokens->is_int64() || max_tokens->get_int64() < 1)
                return "'max_tokens' must be a positive integer";
        }
        if (const auto* s = o.if_contains("stream"); s && s->is_bool()) info.stream = s->get_bool();
        if (route == fake_route::openai) {
            if (const auto* so = o.if_contains("stream_options"); so && so->is_object())
                if (const auto* iu = so->get_object().if_contains("include_usage"); iu && iu->is_bool())
                    info.include_usage = iu->get_bool();
            if (const auto* n = o.if_contains("n"); n && n->is_int64() && n->get_int64() > 1)
                info.n = static_cast<std::size_t>(std::min<std::int64_t>(n->get_int64(), 16));
        }
        const auto& list = messages->get_array();
        for (auto it = list.rbegin(); it != list.rend(); ++it) {
            const auto& m = it->get_object();
            if (m.at("role").get_string() == "user") {
                info.echo_text = detail::text_of(m.if_contains("content"));
                break;
            }
        }
        return {};
    }

    /// inspect() of a Responses API request: `input` a string or an array of input items (messages
    /// with a role, function_call, function_call_output and reasoning items of the shapes the API
    /// takes), `stream`, and `include` (reasoning.encrypted_content).
    static std::string inspect_responses(const boost::json::object& o, detail::request_info& info) {
        const auto* input = o.if_contains("input");
        if (!input) return "'input' is required";
        if (input->is_string()) {
            info.echo_text = std::string(input->get_string());
        } else if (input->is_array()) {
            const auto& items = input->get_array();
            for (std::size_t i = 0; i < items.size(); ++i) {
                const std::string at = "input[" + std::to_string(i) + "]";
                if (!items[i].is_object()) return at + " must be an object";
                const auto& item = items[i].get_object();
                const auto* type = item.if_contains("type");
                const auto* role = item.if_contains("role");
                auto is_string = [&](std::string_view key) {
                    const auto* v = item.if_contains(key);
                    return v && v->is_string();
                };
                if (!type || *type == "message") {
                    if (!role || !role->is_string() ||
                        (*role != "user" && *role != "assistant" && *role != "system" && *role != "developer"))
                        return at + ": a message needs a role of user, assistant, system or developer";
                    const auto* content = item.if_contains("content");
                    if (!content || !(content->is_string() || content->is_array())) return at + ": 'content' must be a string or an array";
                    if (*role == "user") info.echo_text = detail::text_of(content);
                } else if (*type == "function_call") {
                    if (!is_string("call_id") || !is_string("name") || !is_string("arguments"))
                        return at + ": a function_call needs string 'call_id', 'name' and 'arguments'";
                } else if (*type == "function_call_output") {
                    const auto* output = item.if_contains("output");
                    if (!is_string("call_id") || !output || !(output->is_string() || output->is_array()))
                        return at + ": a function_call_output needs a string 'call_id' and an 'output'";
                } else if (*type == "reasoning") {
                    const auto* summary = item.if_contains("summary");
                    if (!is_string("id") || !summary || !summary->is_array())
                        return at + ": a reasoning item needs a string 'id' and a 'summary' array";
                } else {
                    return at + ": unknown input item type " + boost::json::serialize(*type);
                }
            }
        } else {
            return "'input' must be a string or an array of input items";
        }
        if (const auto* s = o.if_contains("stream"); s && s->is_bool()) info.stream = s->get_bool();
        if (const auto* include = o.if_contains("include"); include && include->is_array())
            for (const auto& x : include->get_array())
                if (x == "reasoning.encrypted_content") info.encrypted_reasoning = true;
        return {};
    }

    /// The reply a step gives a chat request: the step's, or the default reply (the request's
    /// last user text, in `echo`) for a step without choices, with that text in the choices that
    /// script only their finish reason.
    static const fake_reply* reply_of(const fake_step& step, const detail::request_info& info, fake_reply& echo) {
        const fake_reply* reply = step.reply ? &*step.reply : nullptr;
        if (!reply || reply->choices.empty()) {
            if (reply) echo = *reply;
            echo.choices.assign(info.route == fake_route::openai || info.route == fake_route::gemini ? info.n : 1,
                                fake_choice{info.echo_text, {}, {}, {}, {}, true});
            return &echo;
        }
        if (std::any_of(reply->choices.begin(), reply->choices.end(), [](const fake_choice& c) { return c.default_text; })) {
            // a choice that scripts only its finish reason takes the default reply's text
            echo = *reply;
            for (auto& c : echo.choices)
                if (c.default_text) c.text = info.echo_text;
            return &echo;
        }
        return reply;
    }

    /// The answer to one request of a batch (on the route of its endpoint) from the script, as
    /// a chat request would get it without streaming: a status step's status and body, a reply
    /// step's reply; a step with a fault or a replay (which a batch cannot show) is a 500. A
    /// request the real API would refuse gets 400 without taking a step. The fault mix and the
    /// request limit do not apply.
    detail::line_answer answer_line(fake_route route, const std::string& body, const std::string& request_id) {
        namespace d = detail;
        d::request_info info;
        info.anthropic_client = route == fake_route::anthropic;
        if (std::string problem = inspect(route, body, info, {}); !problem.empty())
            return {400, d::error_body(route, "invalid_request_error", problem, request_id)};
        info.stream = false;
        info.include_usage = false;
        const entry_ptr entry = take_step(route, body);
        static const fake_step no_step{};
        const fake_step& step = entry ? entry->step : no_step;
        if (step.status) return {step.status, step.body ? *step.body : d::status_error_body(route, step.status, step.error, request_id)};
        if (step.fault != fake_fault::none || !step.replay.empty()) return {500, d::status_error_body(route, 500, step.error, request_id)};
        if (route == fake_route::embeddings) return {200, d::embeddings_list(step.reply ? &*step.reply : nullptr, info)};
        fake_reply echo;
        const fake_reply* reply = reply_of(step, info, echo);
        return {200, encode(reply == &echo ? nullptr : entry, *reply, info)->bytes};
    }

    /// The body of a chat reply, encoded once per step and request shape.
    std::shared_ptr<const detail::encoded_body> encode(const entry_ptr& entry, const fake_reply& reply,
                                                                   const detail::request_info& info) {
        namespace d = detail;
        d::script_entry::cache_key key{info.route, info.stream, info.include_usage || info.encrypted_reasoning, info.azure,
                                       reply.model.empty() ? info.model : ""};
        if (entry) {
            std::lock_guard lock(entry->cache_mutex);
            for (const auto& [k, v] : entry->cache)
                if (k == key) return v;
        }
        d::reply_names names;
        const std::string number = entry ? entry->id : "e" + std::to_string(++echoes_);
        names.id = (info.route == fake_route::anthropic   ? "msg_fake_"
                    : info.route == fake_route::responses ? "resp_fake_"
                    : info.route == fake_route::gemini    ? "gemini_fake_"
                    : info.route == fake_route::ollama    ? "ollama_fake_"
                                                          : "chatcmpl-fake-") +
                   number;
        names.model = reply.model.empty() ? info.model : reply.model;
        names.created = entry ? entry->created : static_cast<std::int64_t>(std::time(nullptr));
        auto body = std::make_shared<d::encoded_body>();
        if (info.route == fake_route::anthropic)
            *body = info.stream ? d::anthropic_stream(reply, names, info)
                                : d::encoded_body{d::anthropic_message(reply, names, info), {}};
        else if (info.route == fake_route::responses)
            *body = info.stream ? d::responses_stream(reply, names, info)
                                : d::encoded_body{d::responses_object(reply, names, info, true), {}};
        else if (info.route == fake_route::gemini)
            *body = info.stream ? d::gemini_stream(reply, names, info)
                                : d::encoded_body{d::gemini_response(reply, names, info), {}};
        else if (info.route == fake_route::ollama)
            *body = info.stream ? d::ollama_stream(reply, names, info)
                                : d::encoded_body{d::ollama_response(reply, names, info), {}};
        else
            *body = info.stream ? d::openai_stream(reply, names, info)
                                : d::encoded_body{d::openai_completion(reply, names, info), {}};
        if (entry) {
            std::lock_guard lock(entry->cache_mutex);
            if (entry->cache.size() < 16) entry->cache.emplace_back(key, body);
        }
        return body;
    }

    /// Answers one request; false when the connection must end.
    template <class Stream>
    awaitable<bool> answer(Stream& stream, boost::beast::http::request<boost::beast::http::string_body>& req, bool keep,
                           std::string& out, recorded_request record, bool want_record) {
        namespace http = boost::beast::http;
        namespace d = detail;
        const auto route = fake_route_of_path(req.target());
        // An Anthropic client sends anthropic-version: its replies (a models list, an error of a
        // path that is not a route) take Anthropic's shapes
        const bool anthropic_client = !req["anthropic-version"].empty();
        // a Gemini client sends x-goog-api-key (or ?key=) or asks for Gemini's models list
        const std::string_view target_text(req.target().data(), req.target().size());
        const std::string gemini_key = !req["x-goog-api-key"].empty() ? std::string(req["x-goog-api-key"])
                                                                       : d::query_value(target_text, "key");
        const bool gemini_client = (route && d::gemini_route(*route)) || !gemini_key.empty() ||
                                   target_text.substr(0, target_text.find('?')).ends_with("/v1beta/models");
        // an Ollama client asks for /api/...; an Azure OpenAI client sends ?api-version=
        const bool ollama_client = (route && d::ollama_route(*route)) ||
                                   target_text.substr(0, target_text.find('?')).ends_with("/api/tags");
        const bool azure_client = !d::query_value(target_text, "api-version").empty();
        const fake_route shape = route ? (*route == fake_route::models && anthropic_client ? fake_route::anthropic
                                          : *route == fake_route::models && gemini_client  ? fake_route::gemini
                                          : *route == fake_route::models && ollama_client  ? fake_route::ollama
                                                                                           : *route)
                                       : (anthropic_client ? fake_route::anthropic
                                          : gemini_client  ? fake_route::gemini
                                                           : fake_route::openai);
        // every reply carries the request's id, as the real APIs' do
        const std::string request_id = "req_fake_" + std::to_string(requests_.load());
        header_list id_field{{d::anthropic_route(shape) ? "request-id" : "x-request-id", request_id}};
        auto simple = [&](unsigned status, std::string type, std::string message, std::string code = "null") -> awaitable<bool> {
            remember(std::move(record), status, want_record);
            // the Gemini routes answer with Google's status word for the status
            std::string body = d::gemini_route(shape) ? d::gemini_error_body(d::gemini_status_word(status), message, {}, status)
                                                      : d::error_body(shape, type, message, request_id, code);
            co_return co_await write_simple(stream, status, std::move(body), keep, "application/json", id_field);
        };
        if (!route)
            co_return co_await simple(404, anthropic_client ? "not_found_error" : "invalid_request_error",
                                      "Invalid URL (" + std::string(req.method_string()) + " " + std::string(req.target()) +
                                          ")");
        const bool is_get = *route == fake_route::models;
        if (!d::batch_api_route(*route) && req.method() != (is_get ? http::verb::get : http::verb::post))
            co_return co_await simple(405, "invalid_request_error",
                                      "Method " + std::string(req.method_string()) + " is not allowed here");
        // Azure OpenAI's deployment paths need the api-version query
        if (!azure_client && target_text.find("/openai/deployments/") != std::string_view::npos) {
            remember(std::move(record), 404, want_record);
            co_return co_await write_simple(stream, 404, d::azure_error_body(404, "Resource not found"), keep,
                                            "application/json", id_field);
        }
        if (!options_.api_key.empty() && d::gemini_route(shape)) {
            if (gemini_key.empty())
                co_return co_await simple(403, "PERMISSION_DENIED",
                                          "Method doesn't allow unregistered callers (callers without established identity). "
                                          "Please use API Key or other form of API consumer identity to call this API.");
            if (gemini_key != options_.api_key) {
                remember(std::move(record), 400, want_record);
                co_return co_await write_simple(
                    stream, 400, d::gemini_error_body("INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", "API_KEY_INVALID"),
                    keep, "application/json", id_field);
            }
        } else if (!options_.api_key.empty()) {
            const bool ok = d::anthropic_route(shape) ? req["x-api-key"] == options_.api_key
                                                      : req[http::field::authorization] == "Bearer " + options_.api_key ||
                                                            (azure_client && req["api-key"] == options_.api_key);
            if (!ok) {
                if (d::anthropic_route(shape)) co_return co_await simple(401, "authentication_error", "invalid x-api-key");
                if (d::ollama_route(shape)) co_return co_await simple(401, "", "unauthorized");
                if (azure_client) {
                    remember(std::move(record), 401, want_record);
                    co_return co_await write_simple(
                        stream, 401,
                        d::azure_error_body(401, "Access denied due to invalid subscription key or wrong API endpoint. Make sure "
                                                 "to provide a valid key for an active subscription and use a correct regional "
                                                 "API endpoint for your resource."),
                        keep, "application/json", id_field);
                }
                co_return co_await simple(401, "invalid_request_error",
                                          "Incorrect API key provided. You can find your API key at "
                                          "https://platform.openai.com/account/api-keys.",
                                          "\"invalid_api_key\"");
            }
        }
        if (d::anthropic_route(*route) && !anthropic_client)
            co_return co_await simple(400, "invalid_request_error", "anthropic-version: header is required");
        if (d::batch_api_route(*route)) {  // the batch APIs (impl/fake_server_batch.hpp)
            const std::string host(req[http::field::host]);
            const std::string_view path = target_text.substr(0, target_text.find('?'));
            // a request in absolute form names its origin itself
            std::string origin = (tls_ ? "https://" : "http://") + host;
            std::string_view local = path;
            if (const auto scheme = path.find("://"); scheme != std::string_view::npos && path.substr(0, scheme).find('/') == std::string_view::npos) {
                const auto slash = path.find('/', scheme + 3);
                origin = std::string(path.substr(0, slash));
                local = slash == std::string_view::npos ? std::string_view("/") : path.substr(slash);
            }
            const d::batch_reply reply = batches_.handle(
                *route, std::string_view(req.method_string().data(), req.method_string().size()), local,
                std::string_view(req[http::field::content_type].data(), req[http::field::content_type].size()), req.body(), origin,
                request_id, [this](fake_route r, const std::string& b, const std::string& id) { return answer_line(r, b, id); });
            remember(std::move(record), reply.status, want_record);
            co_return co_await write_simple(stream, reply.status, reply.body, keep, reply.content_type, id_field);
        }
        d::request_info info;
        info.anthropic_client = anthropic_client;
        info.azure = azure_client;
        if (std::string problem = inspect(*route, req.body(), info, target_text); !problem.empty())
            co_return co_await simple(400, d::gemini_route(shape) ? "INVALID_ARGUMENT" : "invalid_request_error", problem);
        if (*route == fake_route::count_tokens) {  // the tokens the request's messages would take
            remember(std::move(record), 200, want_record);
            co_return co_await write_simple(stream, 200, "{\"input_tokens\":" + std::to_string(info.prompt_tokens) + "}", keep,
                                            "application/json", id_field);
        }

        // the fault mix and the request limit come first on chat routes (impl/fault_mix.hpp)
        const bool chat_route = *route == fake_route::openai || *route == fake_route::anthropic || *route == fake_route::responses;
        entry_ptr entry = chat_route ? faults_.before_step(d::anthropic_route(*route), id_field) : nullptr;
        if (!entry) entry = take_step(*route, req.body());
        static const fake_step no_step{};
        const fake_step& step = entry ? entry->step : no_step;

        auto delay = step.delay;
        if (step.fault == fake_fault::slow_headers && delay.count() == 0) delay = std::chrono::seconds(1);
        if (delay.count() > 0) {
            boost::asio::steady_timer t(co_await boost::asio::this_coro::executor, delay);
            co_await t.async_wait(tuple_awaitable);
        }
        const bool cuts = step.fault == fake_fault::stall || step.fault == fake_fault::disconnect;
        if (cuts && !step.after_bytes) {
            remember(std::move(record), 0, want_record);
            if (step.fault == fake_fault::stall) co_await wait_until_gone(stream);
            co_return false;
        }

        // What to send: status, content type, body, whether it is a stream.
        unsigned status = 200;
        std::string content_type = "application/json";
        std::shared_ptr<const d::encoded_body> body;
        bool chunked = false;
        auto own = [&](std::string bytes, std::vector<std::size_t> ends = {}) {
            body = std::make_shared<const d::encoded_body>(d::encoded_body{std::move(bytes), std::move(ends)});
        };
        const std::string_view event_stream = "text/event-stream; charset=utf-8";
        const std::string_view json_lines = "application/x-ndjson";
        if (step.status) {
            status = step.status;
            fake_error e = step.error;
            if (d::ollama_route(shape) && e.message.empty()) e.message = d::ollama_default_message(status, info.model);
            own(step.body ? *step.body : d::status_error_body(shape, status, e, request_id));
        } else if (step.fault == fake_fault::wrong_content_type) {
            content_type = "text/html; charset=utf-8";
            own(std::string(d::html_body));
        } else if (!step.replay.empty()) {
            content_type = d::ollama_route(*route) ? json_lines : event_stream;
            chunked = true;
            body = std::shared_ptr<const d::encoded_body>(entry, &entry->replay);
        } else if (*route == fake_route::models) {
            own(shape == fake_route::gemini   ? d::gemini_models_list()
                : shape == fake_route::ollama ? d::ollama_tags()
                                              : d::models_list(anthropic_client));
        } else if (*route == fake_route::ollama_embeddings) {
            own(d::ollama_embeddings(step.reply ? &*step.reply : nullptr, info));
        } else if (*route == fake_route::gemini_embeddings) {
            own(d::gemini_embeddings(step.reply ? &*step.reply : nullptr, info,
                                     target_text.substr(0, target_text.find('?')).ends_with(":batchEmbedContents")));
        } else if (*route == fake_route::embeddings) {
            own(d::embeddings_list(step.reply ? &*step.reply : nullptr, info));
        } else {
            fake_reply echo;
            const fake_reply* reply = reply_of(step, info, echo);
            const bool event_variant = step.variant.empty() ? info.stream : step.variant == "event";
            if (step.fault == fake_fault::malformed_json && !event_variant) {
                own(std::string(d::malformed_body));
            } else if (step.fault == fake_fault::error_event && !info.stream) {
                own(d::error_body(*route,
                                  step.error.type.empty() ? d::error_type_for(500, *route) : step.error.type,
                                  step.error.message.empty() ? "The server had an error while processing your request."
                                                             : step.error.message,
                                  request_id));
            } else {
                if (step.fault == fake_fault::malformed_json && !info.stream) info.stream = true;
                body = encode(reply == &echo ? nullptr : entry, *reply, info);
                chunked = info.stream;
                if (info.stream) content_type = *route == fake_route::ollama ? json_lines : event_stream;
                else if (*route == fake_route::ollama) content_type = "application/json; charset=utf-8";
                if (step.fault == fake_fault::error_event || step.fault == fake_fault::malformed_json) {
                    const auto& ends = body->event_ends;
                    const std::size_t keep_events = std::min(step.after_events, ends.size());
                    const std::size_t cut = keep_events ? ends[keep_events - 1] : 0;
                    std::string bytes = body->bytes.substr(0, cut);
                    std::vector<std::size_t> new_ends(ends.begin(), ends.begin() + static_cast<std::ptrdiff_t>(keep_events));
                    if (step.fault == fake_fault::error_event) {
                        bytes += d::error_event(*route, step.error, request_id);
                        new_ends.push_back(bytes.size());
                    } else {
                        bytes += d::malformed_event(*route);
                        new_ends.push_back(bytes.size());
                        for (std::size_t i = keep_events; i < ends.size(); ++i) {
                            bytes.append(body->bytes, i ? ends[i - 1] : 0, ends[i] - (i ? ends[i - 1] : 0));
                            new_ends.push_back(bytes.size());
                        }
                    }
                    own(std::move(bytes), std::move(new_ends));
                }
            }
        }
        remember(std::move(record), status, want_record);

        const std::string& bytes = body->bytes;
        const std::size_t total = cuts ? std::min(*step.after_bytes, bytes.size()) : bytes.size();
        const bool close_after = cuts || step.fault == fake_fault::close_idle;
        out = d::response_head(status, content_type, chunked ? std::nullopt : std::optional<std::size_t>(bytes.size()),
                               keep, id_field, step.headers);
        const auto sizes = d::piece_sizes(total, step.chunking, body->event_ends);
        const bool one_write = !step.chunking.active() && step.chunk_delay.count() == 0;
        std::size_t at = 0;
        auto append_piece = [&](std::size_t n) {
            const std::string_view piece(bytes.data() + at, n);
            if (chunked)
                d::append_chunk(out, piece);
            else
                out += piece;
            at += n;
        };
        bool ok = true;
        if (one_write) {
            for (std::size_t n : sizes) append_piece(n);
            if (chunked && !cuts) out += "0\r\n\r\n";
            auto [ec, n] = co_await boost::asio::async_write(stream, boost::asio::buffer(out), tuple_awaitable);
            (void)n;
            ok = !ec;
        } else {
            auto write_out = [&]() -> awaitable<bool> {
                auto [ec, n] = co_await boost::asio::async_write(stream, boost::asio::buffer(out), tuple_awaitable);
                (void)n;
                out.clear();
                co_return !ec;
            };
            ok = co_await write_out();
            for (std::size_t i = 0; ok && i < sizes.size(); ++i) {
                if (i && step.chunk_delay.count() > 0) {
                    boost::asio::steady_timer t(co_await boost::asio::this_coro::executor, step.chunk_delay);
                    co_await t.async_wait(tuple_awaitable);
                }
                append_piece(sizes[i]);
                ok = co_await write_out();
            }
            if (ok && chunked && !cuts) {
                out = "0\r\n\r\n";
                ok = co_await write_out();
            }
        }
        if (!ok) co_return false;
        if (step.fault == fake_fault::stall) {
            co_await wait_until_gone(stream);
            co_return false;
        }
        co_return !close_after;
    }

    /// CONNECT: opens host:port, answers 200 and relays bytes both ways until both sides close.
    template <class Stream>
    awaitable<void> tunnel(Stream& client, boost::beast::flat_buffer& buffer, std::string authority) {
        namespace asio = boost::asio;
        using namespace boost::asio::experimental::awaitable_operators;
        std::string host = authority, port = "443";
        if (!authority.empty() && authority.front() == '[') {
            const auto close_bracket = authority.find(']');
            host = authority.substr(1, close_bracket == std::string::npos ? std::string::npos : close_bracket - 1);
            if (close_bracket != std::string::npos && close_bracket + 1 < authority.size() && authority[close_bracket + 1] == ':')
                port = authority.substr(close_bracket + 2);
        } else if (const auto colon = authority.rfind(':'); colon != std::string::npos) {
            host = authority.substr(0, colon);
            port = authority.substr(colon + 1);
        }
        const auto executor = co_await asio::this_coro::executor;
        tcp::resolver resolver(executor);
        auto [rec, results] = co_await resolver.async_resolve(host, port, tuple_awaitable);
        tcp::socket upstream(executor);
        boost::system::error_code cec = rec;
        if (!rec) {
            auto [ec, endpoint] = co_await asio::async_connect(upstream, results, tuple_awaitable);
            (void)endpoint;
            cec = ec;
        }
        if (cec) {
            co_await write_simple(client, 502, "{\"error\":{\"message\":\"cannot connect to " + authority + "\"}}", false);
            close(client);
            co_return;
        }
        upstream.set_option(tcp::no_delay(true), cec);
        const std::string ok = "HTTP/1.1 200 Connection established\r\n\r\n";
        auto [wec, wn] = co_await asio::async_write(client, asio::buffer(ok), tuple_awaitable);
        (void)wn;
        if (wec) co_return;
        if (buffer.size()) {
            auto [uec, un] = co_await asio::async_write(upstream, buffer.data(), tuple_awaitable);
            (void)un;
            if (uec) co_return;
            buffer.consume(buffer.size());
        }
        co_await (relay(client, upstream) && relay(upstream, client));
        close(client);
        close(upstream);
    }

    template <class From, class To>
    static awaitable<void> relay(From& from, To& to) {
        char data[16384];
        for (;;) {
            auto [ec, n] = co_await from.async_read_some(boost::asio::buffer(data), tuple_awaitable);
            if (n) {
                auto [wec, wn] = co_await boost::asio::async_write(to, boost::asio::buffer(data, n), tuple_awaitable);
                (void)wn;
                if (wec) ec = wec;
            }
            if (ec) {
                boost::system::error_code ignored;
                boost::beast::get_lowest_layer(to).shutdown(tcp::socket::shutdown_send, ignored);
                co_return;
            }
        }
    }

    fake_server_options options_;
    std::optional<boost::asio::ssl::context> tls_;
    unsigned short port_ = 0;
    std::unique_ptr<boost::asio::io_context> ioc_;
    std::vector<std::thread> threads_;

    detail::fault_injector faults_;
    detail::batch_store batches_;
    mutable std::mutex script_mutex_;
    std::deque<entry_ptr> queue_;
    bool repeat_ = false;
    std::atomic<std::size_t> steps_made_{0};
    std::atomic<std::size_t> echoes_{0};

    mutable std::mutex records_mutex_;
    std::vector<recorded_request> records_;
    std::atomic<std::size_t> requests_{0};
    std::atomic<std::size_t> connections_{0};
};

PARLEY_DECL fake_server::fake_server(fake_server_options options) : impl_(std::make_unique<impl>(std::move(options))) {}
PARLEY_DECL fake_server::~fake_server() = default;

PARLEY_DECL void fake_server::start() { impl_->start(); }
PARLEY_DECL void fake_server::stop() { impl_->stop(); }
PARLEY_DECL bool fake_server::running() const noexcept { return impl_->running(); }
PARLEY_DECL unsigned short fake_server::port() const noexcept { return impl_->port(); }
PARLEY_DECL const std::string& fake_server::host() const noexcept { return impl_->host(); }
PARLEY_DECL bool fake_server::tls() const noexcept { return impl_->tls(); }
PARLEY_DECL std::string fake_server::base_url() const { return impl_->base_url(); }
PARLEY_DECL std::string fake_server::url(std::string_view path) const { return impl_->url(path); }

PARLEY_DECL void fake_server::set_script(fake_script script) { impl_->set_script(std::move(script)); }
PARLEY_DECL void fake_server::push(fake_step step) { impl_->push(std::move(step)); }
PARLEY_DECL void fake_server::push(std::vector<fake_step> steps) { impl_->push(std::move(steps)); }
PARLEY_DECL void fake_server::set_repeat(bool repeat) { impl_->set_repeat(repeat); }
PARLEY_DECL std::size_t fake_server::pending_steps() const { return impl_->pending_steps(); }

PARLEY_DECL std::vector<recorded_request> fake_server::requests() const { return impl_->requests(); }
PARLEY_DECL std::vector<recorded_request> fake_server::connect_requests() const { return impl_->connect_requests(); }
PARLEY_DECL std::size_t fake_server::request_count() const noexcept { return impl_->request_count(); }
PARLEY_DECL recorded_request fake_server::last_request() const { return impl_->last_request(); }
PARLEY_DECL void fake_server::clear_requests() { impl_->clear_requests(); }
PARLEY_DECL std::size_t fake_server::connections_accepted() const noexcept { return impl_->connections_accepted(); }

}  // namespace parley::testing

#include <parley/detail/warnings_pop.hpp>

#endif
