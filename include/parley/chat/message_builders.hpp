// parley/chat/message_builders.hpp: the values the constexpr builders of parley/chat/builder.hpp
// are made of: one aggregate per role, whose members are the keys of the role's YAML form, and
// the content parts, calls, lists and request parameters they hold. All are literal types holding
// std::string_view and fixed-size arrays.
#ifndef PARLEY_CHAT_MESSAGE_BUILDERS_HPP
#define PARLEY_CHAT_MESSAGE_BUILDERS_HPP

#include <parley/chat/message.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>

namespace parley {

/// A compile-time template of parley/jinja/compiled.hpp (`parley::jinja::prompt<"...">`) parsed
/// with the options conversation templates use (Jinja2's defaults): a builder takes it as a
/// message's text. Its source was checked when it compiled.
template <class T>
concept builder_template = requires {
    { T::written_source() } -> std::convertible_to<std::string_view>;
    requires T::has_default_options;
};

/// A text part of a message's content (YAML `{type: text, text: ...}`); the text is a template.
struct text_part {
    std::string_view text = {};
};

/// An image part of a user message's content (YAML `{type: image_url, image_url: {url, detail}}`);
/// the URL is not rendered. `detail` is "auto", "low" or "high"; left out, it is unset.
struct image_part {
    std::string_view url = {};
    std::optional<std::string_view> detail = {};
};

/// Marks a list parameter as set and empty (YAML `functions: []`), which an empty `{}` cannot
/// say: `{}` leaves the parameter unset.
struct empty_list_t {
    explicit constexpr empty_list_t(int) noexcept {}
};
inline constexpr empty_list_t empty_list{0};

/// The values the builders are made of.
namespace builder {

inline constexpr std::size_t max_parts = 8;  ///< content parts of one message
inline constexpr std::size_t max_tool_calls = 8;  ///< tool calls of one assistant message
inline constexpr std::size_t max_stop_entries = 8;  ///< entries of `stop` (the rule allows 4)
inline constexpr std::size_t max_logit_bias = 32;  ///< entries of `logit_bias`
inline constexpr std::size_t max_functions = 64;  ///< names in `functions`
inline constexpr std::size_t max_variables = 32;  ///< names in metadata `variables`
inline constexpr std::size_t max_metadata = 16;  ///< pairs of a request's `metadata` (the rule's limit)

/// A list of at most N values, written as a braced list. It remembers how many values were
/// written, so that writing more than N is reported (not cut silently), and whether it was
/// written at all (`{}` leaves it unset, parley::empty_list sets it empty).
template <class T, std::size_t N>
class list {
public:
    constexpr list() = default;
    constexpr list(empty_list_t) noexcept : set_(true) {}
    constexpr list(std::initializer_list<T> values) : written_(values.size()), set_(true) {
        std::size_t i = 0;
        for (const T& v : values) {
            if (i == N) break;
            values_[i++] = v;
        }
    }

    static constexpr std::size_t capacity() noexcept { return N; }
    /// The number of values kept (at most N).
    constexpr std::size_t size() const noexcept { return written_ < N ? written_ : N; }
    /// The number of values written (more than capacity() is an error the builders report).
    constexpr std::size_t written() const noexcept { return written_; }
    /// False when the list was not written (`{}` or left out).
    constexpr bool is_set() const noexcept { return set_; }
    constexpr bool empty() const noexcept { return size() == 0; }
    constexpr const T* begin() const noexcept { return values_.data(); }
    constexpr const T* end() const noexcept { return values_.data() + size(); }
    constexpr const T& operator[](std::size_t i) const noexcept { return values_[i]; }

private:
    std::array<T, N> values_{};
    std::size_t written_ = 0;
    bool set_ = false;
};

/// One content part: a text_part or an image_part.
class part {
public:
    constexpr part() = default;
    constexpr part(text_part p) noexcept : text_(p.text) {}
    constexpr part(image_part p) noexcept : type_(content_part::kind::image_url), text_(p.url), detail_(p.detail) {}

    constexpr content_part::kind type() const noexcept { return type_; }
    constexpr bool is_image() const noexcept { return type_ == content_part::kind::image_url; }
    /// The text of a text part.
    constexpr std::string_view text() const noexcept { return is_image() ? std::string_view() : text_; }
    /// The URL of an image part.
    constexpr std::string_view url() const noexcept { return is_image() ? text_ : std::string_view(); }
    /// The detail of an image part; unset when not given.
    constexpr const std::optional<std::string_view>& detail() const noexcept { return detail_; }

private:
    content_part::kind type_ = content_part::kind::text;
    std::string_view text_;
    std::optional<std::string_view> detail_;
};

/// A message's content: none (left out), a text (a string), or parts (a braced list of
/// text_part and image_part).
class content {
public:
    enum class kind : std::uint8_t { none, text, parts };

    constexpr content() = default;
    constexpr content(const char* text) : kind_(kind::text), text_(text) {}
    constexpr content(std::string_view text) noexcept : kind_(kind::text), text_(text) {}
    /// A compile-time template's source.
    template <builder_template T>
    constexpr content(const T&) noexcept : kind_(kind::text), text_(T::written_source()) {}
    constexpr content(std::initializer_list<part> parts) : kind_(kind::parts), parts_(parts) {}

    constexpr kind type() const noexcept { return kind_; }
    constexpr bool is_none() const noexcept { return kind_ == kind::none; }
    /// The text; empty unless the content is a text.
    constexpr std::string_view text() const noexcept { return text_; }
    /// The parts; empty unless the content is a list of parts.
    constexpr const list<part, max_parts>& parts() const noexcept { return parts_; }

private:
    kind kind_ = kind::none;
    std::string_view text_;
    list<part, max_parts> parts_;
};

/// A call of a function: `{.name = "get_weather", .arguments = R"({"city": "Oslo"})"}`.
struct function_call {
    std::string_view name = {};
    std::string_view arguments = {};
    bool given = true;  ///< false only for an assistant message's default (no call)
};
inline constexpr function_call no_function_call{{}, {}, false};

/// A tool call of an assistant message: `{.id = "call_1", .function = {.name = ..., .arguments = ...}}`.
struct tool_call {
    std::string_view id = {};
    builder::function_call function = {};
};

/// Stop sequences: one string (`.stop = "END"`) or a braced list (`.stop = {"END", "\n\n"}`),
/// kept as written.
class stop_sequences {
public:
    constexpr stop_sequences() = default;
    constexpr stop_sequences(const char* one) : one_(true), list_({std::string_view(one)}) {}
    constexpr stop_sequences(std::string_view one) : one_(true), list_({one}) {}
    constexpr stop_sequences(empty_list_t e) noexcept : list_(e) {}
    constexpr stop_sequences(std::initializer_list<std::string_view> list) : list_(list) {}

    constexpr bool is_set() const noexcept { return list_.is_set(); }
    /// True when written as one string rather than a list.
    constexpr bool is_one() const noexcept { return one_; }
    constexpr const list<std::string_view, max_stop_entries>& sequences() const noexcept { return list_; }

private:
    bool one_ = false;
    list<std::string_view, max_stop_entries> list_;
};

/// One `logit_bias` entry: `{"50256", -100}` (a token id in decimal digits, and a bias).
struct logit_bias_entry {
    std::string_view token = {};
    std::int64_t bias = 0;
};

using name_list = list<std::string_view, max_functions>;

/// One `metadata` pair of a request: `{"tier", "free"}`.
struct metadata_entry {
    std::string_view key = {};
    std::string_view value = {};
};

/// Anthropic's extended thinking: `{.type = "enabled", .budget_tokens = 2048}`, `{.type = "adaptive"}`.
struct thinking {
    std::string_view type = {};
    std::optional<std::int64_t> budget_tokens = {};
    std::string_view display = {};  ///< "summarized" or "omitted"; empty leaves it unset
};

/// A prompt-cache breakpoint (Anthropic): `{}` or `{.ttl = "1h"}`.
struct cache_control {
    std::string_view type = "ephemeral";
    std::string_view ttl = {};  ///< "5m" or "1h"; empty leaves it unset
};

}  // namespace builder

/// A request's parameters; `default_request` and `request` are its two roles. Each member is
/// unset until written; the ranges and rules are those of parley::check(request_params).
template <role R>
struct basic_request {
    static constexpr parley::role role = R;

    std::optional<std::string_view> model = {};
    std::optional<std::int64_t> max_tokens = {};  ///< at least 1
    std::optional<double> temperature = {};  ///< 0 to 2
    std::optional<double> top_p = {};  ///< 0 to 1
    builder::stop_sequences stop = {};  ///< one string, or up to 4 in a list
    std::optional<double> presence_penalty = {};  ///< -2 to 2
    std::optional<double> frequency_penalty = {};  ///< -2 to 2
    builder::list<builder::logit_bias_entry, builder::max_logit_bias> logit_bias = {};  ///< {{"token id", bias}, ...}
    std::optional<std::int64_t> seed = {};
    std::optional<std::int64_t> n = {};  ///< 1 to 128
    /// JSON text: R"({"type": "json_object"})", or parley::strict_response_format<T>
    std::optional<std::string_view> response_format = {};
    builder::name_list functions = {};  ///< names of functions the model may call
    std::optional<std::string_view> call_function = {};  ///< "" none, "*" auto, "+" any one, or a name (forced)
    std::optional<std::int64_t> max_completion_tokens = {};  ///< at least 1
    std::optional<std::int64_t> top_k = {};  ///< at least 0
    std::optional<bool> logprobs = {};
    std::optional<std::int64_t> top_logprobs = {};  ///< 0 to 20
    std::optional<bool> parallel_tool_calls = {};
    std::optional<std::string_view> reasoning_effort = {};  ///< none, minimal, low, medium, high, xhigh or max
    std::optional<std::string_view> reasoning_summary = {};  ///< auto, concise or detailed
    std::optional<std::string_view> verbosity = {};  ///< low, medium or high
    std::optional<builder::thinking> thinking = {};
    std::optional<std::string_view> prediction = {};
    std::optional<std::string_view> service_tier = {};  ///< auto, default, flex, scale, priority or standard_only
    std::optional<bool> store = {};
    builder::list<builder::metadata_entry, builder::max_metadata> metadata = {};  ///< {{"key", "value"}, ...}
    std::optional<std::string_view> user = {};
    std::optional<std::string_view> safety_identifier = {};
    std::optional<std::string_view> prompt_cache_key = {};
    std::optional<std::string_view> prompt_cache_retention = {};  ///< in_memory or 24h
    std::optional<builder::cache_control> cache_control = {};
    std::optional<std::string_view> truncation = {};  ///< auto or disabled
    std::optional<std::string_view> extra = {};  ///< JSON text of an object merged into the body last

    /// True when no parameter is written.
    constexpr bool empty() const noexcept {
        return !model && !max_tokens && !temperature && !top_p && !stop.is_set() && !presence_penalty &&
               !frequency_penalty && !logit_bias.is_set() && !seed && !n && !response_format && !functions.is_set() &&
               !call_function && !max_completion_tokens && !top_k && !logprobs && !top_logprobs &&
               !parallel_tool_calls && !reasoning_effort && !reasoning_summary && !verbosity && !thinking &&
               !prediction && !service_tier && !store && !metadata.is_set() && !user && !safety_identifier &&
               !prompt_cache_key && !prompt_cache_retention && !cache_control && !truncation && !extra;
    }
};

/// The parameters every following request uses (YAML `role: default-request`); at least one must be set.
using default_request = basic_request<role::default_request>;
/// Sends the conversation so far, with parameters overriding the default request (YAML `role: request`).
using request = basic_request<role::request>;

/// A system message: `parley::system{"You are brief."}`. The content is required. A `name`,
/// when given, is not empty (as for every message).
struct system {
    static constexpr parley::role role = parley::role::system;
    builder::content content = {};
    std::optional<std::string_view> name = {};
};

/// A user message: `parley::user{"{{ question }}"}`; parts: `parley::user{{parley::text_part{"..."},
/// parley::image_part{.url = "..."}}}`; without content it takes the data's `contentParts`.
struct user {
    static constexpr parley::role role = parley::role::user;
    builder::content content = {};
    std::optional<std::string_view> name = {};
};

/// An assistant message, with a tool call: `parley::assistant{.tool_calls = {{.id = "call_1",
/// .function = {.name = "get_weather", .arguments = R"({"city":"Oslo"})"}}}}`. Without a call, the
/// content is required.
struct assistant {
    static constexpr parley::role role = parley::role::assistant;
    builder::content content = {};
    std::optional<std::string_view> name = {};
    builder::function_call function_call = builder::no_function_call;  ///< the legacy form of a call
    builder::list<builder::tool_call, builder::max_tool_calls> tool_calls = {};
};

/// The result of a function call (legacy form): `parley::function{"get_weather", "{{ weather }}"}`.
/// The name and the content are required.
struct function {
    static constexpr parley::role role = parley::role::function;
    std::optional<std::string_view> name = {};
    builder::content content = {};
};

/// The result of a tool call: `parley::tool{"call_1", "{{ weather }}"}`. The tool_call_id and the
/// content are required.
struct tool {
    static constexpr parley::role role = parley::role::tool;
    std::optional<std::string_view> tool_call_id = {};
    builder::content content = {};
    std::optional<std::string_view> name = {};
};

/// Cuts the history: nothing before it is sent (YAML `role: truncate`).
struct truncate {
    static constexpr parley::role role = parley::role::truncate;
};

/// A template's name, description, version and the variables it expects (all optional; a
/// template of a set needs a name).
struct metadata {
    std::string_view name = {};
    std::string_view description = {};
    std::string_view version = {};
    builder::list<std::string_view, builder::max_variables> variables = {};
};

/// A type the builders accept as a message.
template <class M>
concept message_builder = std::same_as<M, system> || std::same_as<M, user> || std::same_as<M, assistant> ||
                          std::same_as<M, function> || std::same_as<M, tool> || std::same_as<M, default_request> ||
                          std::same_as<M, request> || std::same_as<M, truncate>;

}  // namespace parley

#endif
