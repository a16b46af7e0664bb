// Fuzz target: what an MCP server sends (parley/mcp/jsonrpc.hpp, mcp/types.hpp): the newline
// framing of the stdio transport, the decoding of each message and batch, and the reading of the
// results the client takes apart (tools/call results, tool lists).
//
// Input: byte 0 chooses the limits (bits 0-1: the longest line, 64 bytes to 1 MiB; bit 2: a
// nesting limit of 4); the rest is the byte stream, fed to the line reader in pieces whose sizes
// the next bytes choose. Checked besides crashes, hangs and sanitizer reports: no line longer than
// the limit is delivered; once the reader failed it delivers nothing; a decoded message written
// back decodes to the same message.
#include <parley/mcp/jsonrpc.hpp>
#include <parley/mcp/types.hpp>

#include <boost/json/serialize.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

void check(bool ok) {
    if (!ok) std::abort();
}

void take(std::string_view line, const parley::mcp::message_limits& limits) {
    auto messages = parley::mcp::decode(line, limits);
    if (!messages) return;
    for (const auto& m : *messages) {
        using kind = parley::mcp::rpc_message::kind;
        std::string again;
        switch (m.type) {
        case kind::request: again = parley::mcp::encode_request(m.id.is_int64() ? m.id.get_int64() : 0, m.method, m.params); break;
        case kind::notification: again = parley::mcp::encode_notification(m.method, m.params); break;
        case kind::result: again = parley::mcp::encode_result(m.id, m.result); break;
        case kind::error: again = parley::mcp::encode_error(m.id, m.error_code, m.error_message); break;
        }
        parley::mcp::message_limits roomy = limits;
        roomy.max_message = again.size() + 1;
        roomy.max_depth = limits.max_depth + 2;
        auto back = parley::mcp::decode(again, roomy);
        check(back.has_value() && back->size() == 1 && back->front().type == m.type);
        if (m.type != kind::request) check(back->front().method == m.method);
        // the readers of results never throw, whatever the shape
        if (m.type == kind::result) {
            (void)parley::mcp::detail::read_tool_result(m.result);
            (void)parley::mcp::detail::read_tool(m.result, 0);
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::uint8_t selector = data[0];
    const std::size_t max_line = std::size_t{64} << (4 * (selector & 3));  // 64 B, 1 KiB, 16 KiB, 256 KiB
    parley::mcp::message_limits limits;
    limits.max_message = max_line;
    limits.max_depth = (selector & 4) ? 4 : 64;
    const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);

    parley::mcp::line_reader lines(max_line);
    bool failed = false;
    std::size_t at = 0;
    std::size_t step = 1;
    while (at < input.size()) {
        step = (step * 7 + static_cast<unsigned char>(input[at])) % 97 + 1;
        const std::string_view piece = input.substr(at, step);
        at += piece.size();
        auto error = lines.feed(piece, [&](std::string_view line) {
            check(!failed);
            check(line.size() <= max_line);
            check(line.find('\n') == std::string_view::npos);
            take(line, limits);
        });
        if (error) failed = true;
    }
    // the whole input as one HTTP body
    take(input, limits);
    return 0;
}
