// Fuzz target: a server's event stream (parley/net/sse.hpp) and the two stream assemblers over
// it (parley/provider/openai_stream.hpp, anthropic_stream.hpp).
//
// Input: byte 0 chooses what reads the events (0: the SSE reader alone; 1: the OpenAI decoder;
// 2: the Anthropic decoder; byte 0 % 3), byte 1 how the stream is cut into feeds (a pattern of
// chunk sizes from 1 to 16 bytes, or whole); the rest is the byte stream. Checked besides
// crashes, hangs and sanitizer reports:
// - the SSE reader gives the same events, last event ID, reconnection time, failure and
//   pending state whether the stream comes in one feed or in pieces;
// - its buffers stay below the bound sse_reader::buffer_capacity documents;
// - a decoder's failing event leaves no events in the output, and a failed decoder returns the
//   same error on every later feed.
#include <parley/net/sse.hpp>
#include <parley/provider/anthropic_stream.hpp>
#include <parley/provider/openai_stream.hpp>

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
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    const unsigned mode = data[0] % 3;
    const unsigned cut = data[1];
    const std::string_view stream(reinterpret_cast<const char*>(data) + 2, size - 2);

    const fuzz_sse_outcome whole = read_sse(stream, 0);
    if (cut != 0) check(read_sse(stream, cut) == whole);

    if (mode == 1) {
        parley::openai::stream_decoder decoder;
        decode_events(whole.events, [&](const fuzz_sse_event& e, std::vector<parley::stream_event>& out) {
            return decoder.feed(e.data, out);
        });
        const parley::chat_reply reply = decoder.take_reply();
        static_cast<void>(reply);
    } else if (mode == 2) {
        parley::anthropic::stream_decoder decoder;
        decode_events(whole.events, [&](const fuzz_sse_event& e, std::vector<parley::stream_event>& out) {
            return decoder.feed(e.event, e.data, out);
        });
        const parley::chat_reply reply = decoder.take_reply();
        static_cast<void>(reply);
    }
    return 0;
}
