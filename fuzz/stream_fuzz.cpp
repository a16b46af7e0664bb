// Fuzz target: a server's event stream (parley/net/sse.hpp) and the four stream assemblers
// over it (parley/provider/openai/stream.hpp, anthropic/stream.hpp, responses/stream.hpp,
// gemini/stream.hpp), with their reasoning deltas and the joining of UTF-16 surrogate pairs
// split between events; the Gemini API's whole-reply, error, embeddings and retry-hint readers
// on the same bytes; and JSON lines (parley/net/ndjson.hpp) read by Ollama's stream decoder
// (parley/provider/ollama/stream.hpp), with Ollama's whole-reply, error and embeddings readers.
//
// Input: byte 0 chooses what reads the events (0: the SSE reader alone; 1: the OpenAI chat
// completions decoder; 2: the Anthropic decoder; 3: the Responses API decoder; 4: the Gemini
// decoder, then end_of_body, and gemini::decode_reply, decode_error, decode_embedding_reply and
// retry_info_delay on the whole input; 5: the JSON lines reader and Ollama's decoder, its last
// line without a line end too, then ollama::decode_reply, decode_error and
// decode_embedding_reply on the whole input; byte 0 % 6),
// byte 1 how the stream is cut into feeds (a pattern of chunk sizes from 1 to 16 bytes, or
// whole); the rest is the byte stream. Checked besides crashes, hangs and sanitizer reports:
// - the SSE reader gives the same events, last event ID, reconnection time, failure and
//   pending state whether the stream comes in one feed or in pieces, and so does the JSON lines
//   reader its lines, failure and pending line;
// - its buffers stay below the bound sse_reader::buffer_capacity documents;
// - a decoder's failing event leaves no events in the output, and a failed decoder returns the
//   same error on every later feed;
// - every text a decoder's events carry (text, refusal, reasoning, tool call arguments) is valid
//   UTF-8, whatever surrogates the stream splits or leaves alone, and so are the texts of the
//   reply assembled once the stream is done.
#include <parley/net/ndjson.hpp>
#include <parley/net/sse.hpp>
#include <parley/provider/anthropic/stream.hpp>
#include <parley/provider/detail/wire.hpp>
#include <parley/provider/gemini/embeddings.hpp>
#include <parley/provider/gemini/stream.hpp>
#include <parley/provider/ollama/embeddings.hpp>
#include <parley/provider/ollama/stream.hpp>
#include <parley/provider/openai/stream.hpp>
#include <parley/provider/responses/stream.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct fuzz_sse_event {
    std::string event, data, id;
    bool operator==(const fuzz_sse_event&) const = default;
};

struct fuzz_sse_outcome {
    std::vector<fuzz_sse_event> events;
    bool failed = false, pending = false;
    std::string last_id;
    std::optional<std::uint64_t> retry;
    bool operator==(const fuzz_sse_outcome&) const = default;
};

constexpr parley::net::sse_limits fuzz_sse_limits{256, 2048};

void check(bool ok) {
    if (!ok) std::abort();
}

/// Reads `stream` in feeds of the sizes `cut` gives (whole when cut == 0).
fuzz_sse_outcome read_sse(std::string_view stream, unsigned cut) {
    parley::net::sse_reader reader(fuzz_sse_limits);
    fuzz_sse_outcome r;
    std::size_t pos = 0;
    unsigned step = 0;
    do {
        std::size_t n = stream.size() - pos;
        if (cut != 0) {
            const unsigned k = step++;
            n = std::min<std::size_t>(n, 1 + ((cut >> (k % 4) * 2) + k) % 16);
        }
        const std::error_code ec = reader.feed(stream.substr(pos, n), [&](const parley::net::sse_event& e) {
            r.events.push_back({std::string(e.event), std::string(e.data), std::string(e.id)});
        });
        check(reader.buffer_capacity() < 2 * (4 * fuzz_sse_limits.max_line + fuzz_sse_limits.max_event));
        pos += n;
        if (ec) {
            check(reader.failed());
            break;
        }
    } while (pos < stream.size());
    r.failed = reader.failed();
    r.pending = reader.pending();
    r.last_id = std::string(reader.last_event_id());
    r.retry = reader.retry_ms();
    return r;
}

struct fuzz_lines {
    std::vector<std::string> lines;
    bool failed = false;
    std::string pending;  // the last line without its line end
    bool operator==(const fuzz_lines&) const = default;
};

/// Reads `stream` as JSON lines in feeds of the sizes `cut` gives (whole when cut == 0).
fuzz_lines read_lines(std::string_view stream, unsigned cut) {
    parley::net::ndjson_reader reader(512);
    fuzz_lines r;
    std::size_t pos = 0;
    unsigned step = 0;
    do {
        std::size_t n = stream.size() - pos;
        if (cut != 0) {
            const unsigned k = step++;
            n = std::min<std::size_t>(n, 1 + ((cut >> (k % 4) * 2) + k) % 16);
        }
        const std::error_code ec = reader.feed(stream.substr(pos, n), [&](std::string_view line) {
            check(line.size() <= 512);
            r.lines.emplace_back(line);
        });
        pos += n;
        if (ec) {
            check(reader.failed());
            break;
        }
    } while (pos < stream.size());
    r.failed = reader.failed();
    if (!r.failed && reader.pending()) r.pending = reader.take_pending();
    return r;
}

/// True when `s` is well-formed UTF-8 (no surrogates, no overlong forms).
bool valid_utf8(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = parley::detail::wire::utf8_sequence(s, i);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

/// Checks the texts of an assembled reply.
void check_reply_texts(const parley::chat_reply& reply) {
    for (const auto& c : reply.choices) {
        check(valid_utf8(c.message.text()));
        if (c.message.refusal) check(valid_utf8(*c.message.refusal));
        for (const auto& r : c.message.reasoning) {
            check(valid_utf8(r.text));
            for (const auto& s : r.summary) check(valid_utf8(s));
        }
        for (const auto& t : c.message.tool_calls) check(valid_utf8(t.function.arguments));
    }
}

template <class Feed>
void decode_events(const std::vector<fuzz_sse_event>& events, Feed feed) {
    std::vector<parley::stream_event> out;
    std::optional<parley::call_error> first_error;
    for (const fuzz_sse_event& e : events) {
        const std::size_t before = out.size();
        const std::optional<parley::call_error> err = feed(e, out);
        if (err) {
            check(out.size() == before);
            if (first_error) check(err->message == first_error->message && err->code == first_error->code);
            else first_error = err;
        }
        for (std::size_t i = before; i < out.size(); ++i) check(valid_utf8(out[i].text));
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    const unsigned mode = data[0] % 6;
    const unsigned cut = data[1];
    const std::string_view stream(reinterpret_cast<const char*>(data) + 2, size - 2);

    const fuzz_sse_outcome whole = read_sse(stream, 0);
    if (cut != 0) check(read_sse(stream, cut) == whole);

    if (mode == 1) {
        parley::openai::stream_decoder decoder;
        decode_events(whole.events, [&](const fuzz_sse_event& e, std::vector<parley::stream_event>& out) {
            return decoder.feed(e.data, out);
        });
        const bool done = decoder.done() && !decoder.failed();
        const parley::chat_reply reply = decoder.take_reply();
        if (done) check_reply_texts(reply);
    } else if (mode == 2) {
        parley::anthropic::stream_decoder decoder;
        decode_events(whole.events, [&](const fuzz_sse_event& e, std::vector<parley::stream_event>& out) {
            return decoder.feed(e.event, e.data, out);
        });
        const bool done = decoder.done() && !decoder.failed();
        const parley::chat_reply reply = decoder.take_reply();
        if (done) check_reply_texts(reply);
    } else if (mode == 3) {
        parley::responses::stream_decoder decoder;
        decode_events(whole.events, [&](const fuzz_sse_event& e, std::vector<parley::stream_event>& out) {
            return decoder.feed(e.event, e.data, out);
        });
        const bool done = decoder.done() && !decoder.failed();
        const parley::chat_reply reply = decoder.take_reply();
        if (done) check_reply_texts(reply);
    } else if (mode == 4) {
        parley::gemini::stream_decoder decoder;
        decode_events(whole.events, [&](const fuzz_sse_event& e, std::vector<parley::stream_event>& out) {
            return decoder.feed(e.event, e.data, out);
        });
        std::vector<parley::stream_event> last;
        const bool failed = decoder.failed();
        const bool done = decoder.end_of_body(last);
        check(!(failed && done));  // a failed stream never completes
        check(done == decoder.done());
        if (done) check(!last.empty() && last.back().type == parley::stream_event::kind::done);
        const parley::chat_reply reply = decoder.take_reply();
        if (done) check_reply_texts(reply);
        // the same bytes as a whole reply, an error body, an embeddings reply, a retry hint
        const auto whole_reply = parley::gemini::decode_reply(200, {}, stream);
        if (whole_reply) check(!whole_reply->choices.empty());
        static_cast<void>(parley::gemini::decode_error(429, {}, stream));
        static_cast<void>(parley::gemini::decode_embedding_reply(200, {}, stream));
        if (const auto wait = parley::gemini::retry_info_delay(stream)) check(wait->count() >= 0);
    } else if (mode == 5) {
        const fuzz_lines lines = read_lines(stream, 0);
        if (cut != 0) check(read_lines(stream, cut) == lines);
        std::vector<fuzz_sse_event> events;
        for (const auto& l : lines.lines) events.push_back({{}, l, {}});
        if (!lines.pending.empty()) events.push_back({{}, lines.pending, {}});
        parley::ollama::stream_decoder decoder;
        decode_events(events, [&](const fuzz_sse_event& e, std::vector<parley::stream_event>& out) {
            const bool was_done = decoder.done();
            const auto err = decoder.feed(e.event, e.data, out);
            if (was_done) check(err.has_value());  // nothing may follow the last line
            if (!err && decoder.done()) check(!out.empty() && out.back().type == parley::stream_event::kind::done);
            return err;
        });
        check(!(decoder.done() && decoder.failed()));
        const bool done = decoder.done();
        const parley::chat_reply reply = decoder.take_reply();
        if (done) {
            check(reply.choices.size() == 1 && reply.usage.has_value());
            check_reply_texts(reply);
        }
        // the same bytes as a whole reply, an error body, an embeddings reply
        const auto whole_reply = parley::ollama::decode_reply(200, {}, stream);
        if (whole_reply) {
            check(whole_reply->choices.size() == 1);
            check_reply_texts(*whole_reply);
        }
        static_cast<void>(parley::ollama::decode_error(404, {}, stream));
        static_cast<void>(parley::ollama::decode_embedding_reply(200, {}, stream));
    }
    return 0;
}
