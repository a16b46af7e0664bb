// The input of `parley run`: PROMPT from the words or standard input, images from files or
// URLs, and the `contentParts` they make (docs/cli.md).
#ifndef PARLEY_TOOLS_CLI_INPUT_HPP
#define PARLEY_TOOLS_CLI_INPUT_HPP

#include "cli_options.hpp"

#include <parley/net/proxy.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace parley_cli {

/// The longest prompt read from standard input.
inline constexpr std::size_t max_stdin_prompt = std::size_t(16) << 20;
/// The largest image file `--image` reads (OpenAI's limit for an image).
inline constexpr std::size_t max_image_bytes = std::size_t(20) << 20;

/// PROMPT: the words joined by spaces; standard input for the word `-`, or for no words when
/// standard input is not a terminal (without its final line breaks). Throws usage_error for `-`
/// among other words and for no words on a terminal, std::runtime_error when standard input
/// cannot be read or is longer than max_stdin_prompt.
inline std::string prompt_of(const std::vector<std::string>& words) {
    const bool from_stdin = words.size() == 1 && words[0] == "-";
    if (!from_stdin) {
        for (const auto& w : words)
            if (w == "-") throw usage_error("'-' (PROMPT from standard input) stands alone, without other words");
        if (!words.empty()) {
            std::string prompt;
            for (const auto& w : words) prompt += (prompt.empty() ? "" : " ") + w;
            return prompt;
        }
        if (::isatty(0)) throw usage_error("give PROMPT, or '-' and the prompt on standard input");
    }
    std::string text;
    char buffer[65536];
    for (;;) {
        const std::size_t got = std::fread(buffer, 1, sizeof buffer, stdin);
        text.append(buffer, got);
        if (text.size() > max_stdin_prompt)
            throw std::runtime_error("the prompt on standard input is longer than the limit of " +
                                     std::to_string(max_stdin_prompt) + " bytes");
        if (got < sizeof buffer) {
            if (std::ferror(stdin)) throw std::runtime_error(std::string("cannot read standard input: ") + std::strerror(errno));
            break;
        }
    }
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    return text;
}

/// The MIME type of an image from its first bytes: PNG, JPEG, GIF or WebP; empty otherwise.
inline std::string_view image_type(std::string_view bytes) {
    if (bytes.substr(0, 8) == std::string_view("\x89PNG\r\n\x1a\n", 8)) return "image/png";
    if (bytes.substr(0, 3) == "\xFF\xD8\xFF") return "image/jpeg";
    if (bytes.substr(0, 6) == "GIF87a" || bytes.substr(0, 6) == "GIF89a") return "image/gif";
    if (bytes.size() >= 12 && bytes.substr(0, 4) == "RIFF" && bytes.substr(8, 4) == "WEBP") return "image/webp";
    return {};
}

/// Whether `s` begins with `prefix`, ignoring ASCII case.
inline bool starts_with_nocase(std::string_view s, std::string_view prefix) {
    if (s.size() < prefix.size()) return false;
    for (std::size_t i = 0; i < prefix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
    return true;
}

/// The URL of `--image VALUE`: an http:, https: or data: URL as it is; a file as a base64
/// `data:` URL whose type comes from the file's first bytes. Throws std::runtime_error naming the
/// file when it cannot be read, is larger than max_image_bytes or is not a PNG, JPEG, GIF or WebP
/// image.
inline std::string image_url(const std::string& value) {
    if (starts_with_nocase(value, "http://") || starts_with_nocase(value, "https://") || starts_with_nocase(value, "data:"))
        return value;
    const int fd = ::open(value.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error("--image " + value + ": cannot read the file: " + std::strerror(errno));
    std::string bytes;
    char buffer[65536];
    while (bytes.size() <= max_image_bytes) {
        const ssize_t got = ::read(fd, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            const int e = errno;
            ::close(fd);
            throw std::runtime_error("--image " + value + ": cannot read the file: " + std::strerror(e));
        }
        if (got == 0) break;
        bytes.append(buffer, static_cast<std::size_t>(got));
    }
    ::close(fd);
    if (bytes.size() > max_image_bytes)
        throw std::runtime_error("--image " + value + ": the file is larger than the limit of " +
                                 std::to_string(max_image_bytes) + " bytes (20 MiB)");
    const std::string_view type = image_type(bytes);
    if (type.empty()) {
        std::string first;
        static constexpr char hex[] = "0123456789abcdef";
        for (std::size_t i = 0; i < bytes.size() && i < 8; ++i) {
            const auto c = static_cast<unsigned char>(bytes[i]);
            first += (i ? " " : "") + std::string{hex[c >> 4], hex[c & 15]};
        }
        throw std::runtime_error("--image " + value + ": not a PNG, JPEG, GIF or WebP image (" +
                                 (bytes.empty() ? std::string("the file is empty") : "it begins with the bytes " + first) + ")");
    }
    return "data:" + std::string(type) + ";base64," + parley::net::detail::base64(bytes);
}

/// The data's `contentParts`: the prompt as a text part (none when it is empty), then an
/// image_url part per image, with `detail` when given.
inline boost::json::array content_parts(const std::string& prompt, const std::vector<std::string>& image_urls,
                                        const std::optional<std::string>& detail) {
    boost::json::array parts;
    if (!prompt.empty()) parts.push_back(boost::json::object{{"type", "text"}, {"text", prompt}});
    for (const auto& url : image_urls) {
        boost::json::object image{{"url", url}};
        if (detail) image["detail"] = *detail;
        parts.push_back(boost::json::object{{"type", "image_url"}, {"image_url", std::move(image)}});
    }
    return parts;
}

}  // namespace parley_cli

#endif
