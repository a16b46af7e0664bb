// parley/tokens/openai.hpp: the tokens of a chat request to OpenAI's models, with their
// tokenizer: the documented framing of messages (3 tokens a message, 1 more for a name, 3 to
// prime the reply), their texts, and images by the documented tile rule
// (parley/bot/tokenizers.hpp makes a bot token counter of them).
#ifndef PARLEY_TOKENS_OPENAI_HPP
#define PARLEY_TOKENS_OPENAI_HPP

#include <parley/chat/message.hpp>
#include <parley/chat/function_definition.hpp>
#include <parley/tokens/detail/tiktoken_load.hpp>
#include <parley/tokens/tokenizer.hpp>

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace parley::tokens {

/// A picture's size in pixels.
struct image_size {
    std::uint32_t width = 0, height = 0;
};

/// Tokens of a message's framing (`<|start|>role<|message|>...<|end|>`) in OpenAI's chat format.
inline constexpr std::size_t openai_tokens_per_message = 3;
/// Tokens a message's name adds.
inline constexpr std::size_t openai_tokens_per_name = 1;
/// Tokens every request adds once: the priming of the reply (`<|start|>assistant<|message|>`).
inline constexpr std::size_t openai_tokens_per_request = 3;
/// Tokens of a low-detail image, and of each high-detail image's base.
inline constexpr std::size_t openai_image_base_tokens = 85;
/// Tokens of each 512-pixel tile of a high-detail image.
inline constexpr std::size_t openai_image_tile_tokens = 170;
/// Tokens assumed for a high-detail image whose size is unknown (an http URL): the most the tile
/// rule can give (an image of 768 x 2048 pixels or longer after scaling: 8 tiles), so that a
/// conversation is never counted short.
inline constexpr std::size_t openai_image_unknown_tokens = 85 + 8 * 170;

/// The tokens of an image in OpenAI's tile rule (GPT-4o, GPT-4.1, o1, o3): "low" detail costs 85;
/// "high" (and "auto", counted as high) scales the image to fit in 2048 x 2048, then so that its
/// shortest side is at most 768 pixels, and costs 85 + 170 for each 512-pixel tile it covers.
inline std::size_t openai_image_tokens(image_size size, std::string_view detail = "auto") {
    if (detail == "low") return openai_image_base_tokens;
    double w = size.width, h = size.height;
    if (w <= 0 || h <= 0) return openai_image_base_tokens;
    if (w > 2048 || h > 2048) {
        const double r = std::min(2048 / w, 2048 / h);
        w = std::floor(w * r);
        h = std::floor(h * r);
    }
    if (std::min(w, h) > 768) {
        const double r = 768 / std::min(w, h);
        w = std::floor(w * r);
        h = std::floor(h * r);
    }
    const auto tiles = static_cast<std::size_t>(std::ceil(w / 512) * std::ceil(h / 512));
    return openai_image_base_tokens + openai_image_tile_tokens * tiles;
}

namespace detail {

inline std::optional<std::string> base64_payload(std::string_view url) {
    if (url.substr(0, 5) != "data:") return std::nullopt;
    const auto comma = url.find(',');
    if (comma == std::string_view::npos || url.substr(0, comma).find(";base64") == std::string_view::npos) return std::nullopt;
    // the first bytes are enough for the headers below
    std::string_view b64 = url.substr(comma + 1, 64 * 1024);
    b64 = b64.substr(0, b64.size() / 4 * 4);
    std::string out;
    if (!base64_decode(b64, out)) return std::nullopt;
    return out;
}

inline std::uint32_t be16(const std::string& s, std::size_t i) { return (std::uint32_t(std::uint8_t(s[i])) << 8) | std::uint8_t(s[i + 1]); }
inline std::uint32_t be32(const std::string& s, std::size_t i) { return (be16(s, i) << 16) | be16(s, i + 2); }
inline std::uint32_t le16(const std::string& s, std::size_t i) { return std::uint8_t(s[i]) | (std::uint32_t(std::uint8_t(s[i + 1])) << 8); }
inline std::uint32_t le24(const std::string& s, std::size_t i) { return le16(s, i) | (std::uint32_t(std::uint8_t(s[i + 2])) << 16); }

}  // namespace detail

/// The size of the image of a data: URL (PNG, JPEG, GIF or WebP), read from its header; nothing
/// for other URLs or unreadable headers.
inline std::optional<image_size> data_url_image_size(std::string_view url) {
    const auto data = detail::base64_payload(url);
    if (!data) return std::nullopt;
    const std::string& s = *data;
    if (s.size() >= 24 && s.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0) return image_size{detail::be32(s, 16), detail::be32(s, 20)};
    if (s.size() >= 10 && (s.compare(0, 6, "GIF87a") == 0 || s.compare(0, 6, "GIF89a") == 0))
        return image_size{detail::le16(s, 6), detail::le16(s, 8)};
    if (s.size() >= 30 && s.compare(0, 4, "RIFF") == 0 && s.compare(8, 4, "WEBP") == 0) {
        if (s.compare(12, 4, "VP8 ") == 0) return image_size{detail::le16(s, 26) & 0x3fff, detail::le16(s, 28) & 0x3fff};
        if (s.compare(12, 4, "VP8L") == 0 && s.size() >= 25) {
            const std::uint32_t b = detail::le16(s, 21) | (detail::le16(s, 23) << 16);
            return image_size{(b & 0x3fff) + 1, ((b >> 14) & 0x3fff) + 1};
        }
        if (s.compare(12, 4, "VP8X") == 0) return image_size{detail::le24(s, 24) + 1, detail::le24(s, 27) + 1};
        return std::nullopt;
    }
    if (s.size() >= 4 && std::uint8_t(s[0]) == 0xFF && std::uint8_t(s[1]) == 0xD8) {
        // JPEG: the first start-of-frame marker holds the size
        std::size_t i = 2;
        while (i + 9 < s.size()) {
            if (std::uint8_t(s[i]) != 0xFF) return std::nullopt;
            const std::uint8_t marker = std::uint8_t(s[i + 1]);
            if (marker == 0xFF) {
                ++i;
                continue;
            }
            const std::uint32_t length = detail::be16(s, i + 2);
            const bool sof = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
            if (sof) return image_size{detail::be16(s, i + 7), detail::be16(s, i + 5)};
            i += 2 + length;
        }
    }
    return std::nullopt;
}

/// The tokens of an image part: by the tile rule with the size read from a data: URL, else (an
/// http URL, whose size parley does not fetch) openai_image_unknown_tokens at high detail.
inline std::size_t openai_image_tokens(const content_part& image) {
    const std::string detail = image.detail.value_or("auto");
    if (detail == "low") return openai_image_base_tokens;
    if (const auto size = data_url_image_size(image.url)) return openai_image_tokens(*size, detail);
    return openai_image_unknown_tokens;
}

/// The tokens `m` takes in a chat request to an OpenAI model whose tokenizer is `t`: the framing
/// (3), the role, the content's texts (their special tokens' text read as text), 1 for a name and
/// its tokens, the tool call id, each call's name and arguments with 3 tokens of framing, and
/// images by the tile rule. The framing of messages and names is OpenAI's documented count; that
/// of tool calls is not published, and is counted as for a message.
inline std::size_t openai_message_tokens(const tokenizer& t, const message& m) {
    const encode_options text{special_tokens::as_text};
    std::size_t n = openai_tokens_per_message + t.count(role_name(m.role), text);
    n += t.count(m.text(), text);
    for (const content_part& p : m.parts())
        n += p.type == content_part::kind::text ? t.count(p.text, text) : openai_image_tokens(p);
    if (m.name) n += openai_tokens_per_name + t.count(*m.name, text);
    if (m.tool_call_id) n += t.count(*m.tool_call_id, text);
    if (m.function_call) n += openai_tokens_per_message + t.count(m.function_call->name, text) + t.count(m.function_call->arguments, text);
    for (const tool_call& c : m.tool_calls)
        n += openai_tokens_per_message + t.count(c.id, text) + t.count(c.function.name, text) + t.count(c.function.arguments, text);
    return n;
}

/// The tokens of a function definition sent with a request: the tokens of its name, description
/// and parameters' JSON. OpenAI does not publish how it lays definitions out for the model, so
/// this counts their content, not that layout.
inline std::size_t openai_function_tokens(const tokenizer& t, const function_definition& f) {
    const encode_options text{special_tokens::as_text};
    return openai_tokens_per_message + t.count(f.name, text) + t.count(f.description, text) +
           t.count(boost::json::serialize(f.parameters), text);
}

/// The tiktoken encoding of an OpenAI model, by its name: o200k_base for GPT-4o, GPT-4.1, GPT-4.5,
/// GPT-5, o1, o3 and o4; cl100k_base for GPT-4 and GPT-3.5; o200k_harmony for gpt-oss. Nothing for
/// other names.
inline std::optional<tiktoken_encoding> openai_encoding_of(std::string_view model) {
    auto starts = [&](std::string_view p) { return model.substr(0, p.size()) == p; };
    if (starts("gpt-oss")) return tiktoken_encoding::o200k_harmony;
    for (std::string_view p : {"gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "chatgpt-4o"})
        if (starts(p)) return tiktoken_encoding::o200k_base;
    for (std::string_view p : {"gpt-4", "gpt-3.5"})
        if (starts(p)) return tiktoken_encoding::cl100k_base;
    return std::nullopt;
}

}  // namespace parley::tokens

#endif
