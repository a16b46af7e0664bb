// parley/chat/message.hpp: roles, content parts, function and tool calls, messages.
#ifndef PARLEY_CHAT_MESSAGE_HPP
#define PARLEY_CHAT_MESSAGE_HPP

#include <parley/chat/request.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace parley {

/// Who speaks in a message. The last three are control messages: they carry request
/// parameters (`default_request`, `request`) or cut the history (`truncate`) and are never sent.
enum class role : std::uint8_t { system, user, assistant, function, tool, default_request, request, truncate };

/// Every role, in declaration order.
inline constexpr role all_roles[] = {role::system,   role::user,           role::assistant, role::function,
                                     role::tool,     role::default_request, role::request,   role::truncate};

/// The role's name on the wire and in YAML: "system", ..., "default-request", "request", "truncate".
constexpr std::string_view role_name(role r) noexcept {
    switch (r) {
    case role::system: return "system";
    case role::user: return "user";
    case role::assistant: return "assistant";
    case role::function: return "function";
    case role::tool: return "tool";
    case role::default_request: return "default-request";
    case role::request: return "request";
    case role::truncate: return "truncate";
    }
    return "?";
}

/// The role with this name; empty for an unknown name (names are matched exactly).
constexpr std::optional<role> role_from_name(std::string_view name) noexcept {
    for (role r : all_roles)
        if (role_name(r) == name) return r;
    return std::nullopt;
}

/// True for `default-request`, `request` and `truncate`.
constexpr bool is_control(role r) noexcept { return r >= role::default_request; }

/// One part of a message's content: text, or an image given by URL (or a data: URL).
struct content_part {
    enum class kind : std::uint8_t { text, image_url };
    kind type = kind::text;
    std::string text;  ///< the text of a text part
    std::string url;  ///< the URL of an image part
    std::optional<std::string> detail;  ///< an image part's detail: "auto", "low" or "high"

    /// A text part.
    static content_part make_text(std::string text) {
        content_part p;
        p.text = std::move(text);
        return p;
    }
    /// An image part.
    static content_part make_image(std::string url, std::optional<std::string> detail = std::nullopt) {
        content_part p;
        p.type = kind::image_url;
        p.url = std::move(url);
        p.detail = std::move(detail);
        return p;
    }
    friend bool operator==(const content_part&, const content_part&) = default;
};

/// A message's content: none, a string, or a list of parts.
using content = std::variant<std::monostate, std::string, std::vector<content_part>>;

/// A call of a function by the model: its name and its arguments as JSON text (as sent by the
/// model, which may not be valid JSON).
struct function_call {
    std::string name;
    std::string arguments;
    friend bool operator==(const function_call&, const function_call&) = default;
};

/// A piece of a model's reasoning, kept on its assistant message as the API returned it: to be
/// shown, stored in histories, and sent back where the API needs it (Anthropic's thinking blocks,
/// the Responses API's reasoning items).
struct reasoning_part {
    enum class kind : std::uint8_t {
        text,  ///< reasoning text of an OpenAI-compatible server (`reasoning_content` or `reasoning`)
        thinking,  ///< an Anthropic `thinking` block: `text` and its `signature`
        redacted,  ///< an Anthropic `redacted_thinking` block: `data`, encrypted
        item,  ///< a Responses API reasoning item: `id`, `summary`, `text` (its reasoning text), `data` (encrypted_content)
    };
    kind type = kind::text;
    std::string text;  ///< the reasoning text (empty for a redacted block)
    std::string signature;  ///< thinking: the signature the API checks when the block is sent back
    std::string data;  ///< redacted: the encrypted thinking; item: the encrypted_content
    std::string id;  ///< item: the reasoning item's id
    std::vector<std::string> summary;  ///< item: the summary's texts, in order
    friend bool operator==(const reasoning_part&, const reasoning_part&) = default;
};

/// A tool call of an assistant message (`type` is always "function").
struct tool_call {
    std::string id;
    parley::function_call function;
    friend bool operator==(const tool_call&, const tool_call&) = default;
};

/// A message of a conversation or of a conversation template. The struct holds any combination
/// of fields; which ones a role takes or needs is the rules' business (parley/chat/rules.hpp:
/// `check`, `validate`), which conversation_template, the YAML loader, JSON histories and the
/// constexpr builders apply.
struct message {
    parley::role role = role::user;
    std::optional<std::string> name;  ///< the speaker's name, not empty; required by `function` messages
    /// text or parts; required but for user messages and assistant messages with calls; none for
    /// control messages
    parley::content content;
    std::optional<parley::function_call> function_call;  ///< assistant only (the legacy form)
    std::vector<parley::tool_call> tool_calls;  ///< assistant only
    std::optional<std::string> tool_call_id;  ///< tool only (required there), not empty
    /// tool and function only: the result reports a failure (the function could not do what was
    /// asked, or its arguments were wrong); sent as Anthropic's `is_error`.
    bool is_error = false;
    std::optional<std::string> refusal;  ///< assistant only: the model's refusal (OpenAI), instead of content
    std::vector<reasoning_part> reasoning;  ///< assistant only: the model's reasoning, in the order received
    request_params params;  ///< default-request and request only

    /// True when the content is a string.
    bool has_text() const noexcept { return std::holds_alternative<std::string>(content); }
    /// True when the content is a list of parts.
    bool has_parts() const noexcept { return std::holds_alternative<std::vector<content_part>>(content); }
    /// The content string; empty when the content is not a string.
    std::string_view text() const noexcept {
        if (auto* s = std::get_if<std::string>(&content)) return *s;
        return {};
    }
    /// The text of the reasoning parts, one after the other (a Responses item's summary when it
    /// has no reasoning text); empty when there is none.
    std::string reasoning_text() const {
        std::string s;
        for (const auto& r : reasoning) {
            if (!r.text.empty()) s += r.text;
            else
                for (const auto& part : r.summary) s += part;
        }
        return s;
    }
    /// The content parts; empty when the content is not a list of parts.
    const std::vector<content_part>& parts() const noexcept {
        static const std::vector<content_part> none;
        if (auto* p = std::get_if<std::vector<content_part>>(&content)) return *p;
        return none;
    }

    friend bool operator==(const message&, const message&) = default;
};

/// A message with a role and a string content (not checked: set the other fields a role needs,
/// then `validate` it, or let the template or history that takes it check it).
inline message make_message(parley::role r, std::string text) {
    message m;
    m.role = r;
    m.content = std::move(text);
    return m;
}

}  // namespace parley

#endif
