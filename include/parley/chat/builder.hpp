// parley/chat/builder.hpp: conversation templates and template sets written in C++, checked at
// compile time.
//
//     constexpr auto ask = parley::conversation(
//         parley::metadata{.name = "ask", .variables = {"ask"}},
//         parley::default_request{.model = "gpt-4o-mini"},
//         parley::system{"You are brief."},
//         parley::user{"# Question\n\n{{ ask }}"},
//         parley::request{.temperature = 0.2});
//     parley::rendered_request r = parley::render(ask, data);
//
// Each message is an aggregate named after its role whose members are the keys of the YAML
// form (docs/builders.md shows them side by side); request parameters are designated
// initializers. Everything is a literal type holding std::string_view and fixed arrays, so a
// builder can be `constexpr`; then every rule of parley/chat/rules.hpp and the syntax of every
// text are checked while it is compiled, and a broken rule is a compile error that names it (see
// parley/chat/detail/builder_check.hpp). A builder that is not constexpr is checked when it is
// made and throws parley::error (or parley::template_error for a text) instead.
//
// The names system, user, truncate... are also C library functions in the global namespace:
// write them qualified (`parley::system`), not through `using namespace parley`.
#ifndef PARLEY_CHAT_BUILDER_HPP
#define PARLEY_CHAT_BUILDER_HPP

#include <parley/chat/conversation_template.hpp>
#include <parley/chat/detail/builder_check.hpp>
#include <parley/chat/message.hpp>
#include <parley/chat/render.hpp>
#include <parley/chat/request.hpp>
#include <parley/chat/rules.hpp>
#include <parley/chat/template_set.hpp>
#include <parley/schema/function_signature.hpp>
#include <parley/schema/json_schema.hpp>

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace parley {

/// A text part of a message's content (YAML `{type: text, text: ...}`); the text is a template.
struct text_part {
    std::string_view text = {};
};

/// An image part of a user message's content (YAML `{type: image_url, image_url: {url, detail}}`);
/// the URL is not rendered. `detail` is "auto", "low" or "high"; empty leaves it unset.
struct image_part {
    std::string_view url = {};
    std::string_view detail = {};
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
    /// The detail of an image part; empty when not given.
    constexpr std::string_view detail() const noexcept { return detail_; }

private:
    content_part::kind type_ = content_part::kind::text;
    std::string_view text_;
    std::string_view detail_;
};

/// A message's content: none (left out), a text (a string), or parts (a braced list of
/// text_part and image_part).
class content {
public:
    enum class kind : std::uint8_t { none, text, parts };

    constexpr content() = default;
    constexpr content(const char* text) : kind_(kind::text), text_(text) {}
    constexpr content(std::string_view text) noexcept : kind_(kind::text), text_(text) {}
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
    std::optional<std::string_view> call_function = {};  ///< "" none, "*" auto, or a name (forced)

    /// True when no parameter is written.
    constexpr bool empty() const noexcept {
        return !model && !max_tokens && !temperature && !top_p && !stop.is_set() && !presence_penalty &&
               !frequency_penalty && !logit_bias.is_set() && !seed && !n && !response_format && !functions.is_set() &&
               !call_function;
    }
};

/// The parameters every following request uses (YAML `role: default-request`); at least one must be set.
using default_request = basic_request<role::default_request>;
/// Sends the conversation so far, with parameters overriding the default request (YAML `role: request`).
using request = basic_request<role::request>;

/// A system message: `parley::system{"You are brief."}`.
struct system {
    static constexpr parley::role role = parley::role::system;
    builder::content content = {};
    std::string_view name = {};
};

/// A user message: `parley::user{"{{ question }}"}`; parts: `parley::user{{parley::text_part{"..."},
/// parley::image_part{.url = "..."}}}`; without content it takes the data's `contentParts`.
struct user {
    static constexpr parley::role role = parley::role::user;
    builder::content content = {};
    std::string_view name = {};
};

/// An assistant message, with a tool call: `parley::assistant{.tool_calls = {{.id = "call_1",
/// .function = {.name = "get_weather", .arguments = R"({"city":"Oslo"})"}}}}`.
struct assistant {
    static constexpr parley::role role = parley::role::assistant;
    builder::content content = {};
    std::string_view name = {};
    builder::function_call function_call = builder::no_function_call;  ///< the legacy form of a call
    builder::list<builder::tool_call, builder::max_tool_calls> tool_calls = {};
};

/// The result of a function call (legacy form): `parley::function{"get_weather", "{{ weather }}"}`.
/// The name is required.
struct function {
    static constexpr parley::role role = parley::role::function;
    std::string_view name = {};
    builder::content content = {};
};

/// The result of a tool call: `parley::tool{"call_1", "{{ weather }}"}`. The tool_call_id is required.
struct tool {
    static constexpr parley::role role = parley::role::tool;
    std::string_view tool_call_id = {};
    builder::content content = {};
    std::string_view name = {};
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

namespace detail {

template <class T>
constexpr void check_count(const T& list, void (*error)(builder_site), builder_site at) {
    if (list.written() > list.capacity()) error(at);
}

template <role R>
constexpr void check_params(const basic_request<R>& p, builder_site at) {
    auto number = [&](std::string_view name, const auto& v) {
        if (!v) return;
        at.key = name;
        report(check_number(name, static_cast<double>(*v)), at);
    };
    number("max_tokens", p.max_tokens);
    number("temperature", p.temperature);
    number("top_p", p.top_p);
    number("presence_penalty", p.presence_penalty);
    number("frequency_penalty", p.frequency_penalty);
    number("n", p.n);
    if (p.stop.is_set()) {
        at.key = "stop";
        check_count(p.stop.sequences(), &error_a_builder_request_has_at_most_8_stop_entries, at);
        report(check_stop_list(p.stop.sequences()), at);
    }
    if (p.logit_bias.is_set()) {
        check_count(p.logit_bias, &error_a_builder_request_has_at_most_32_logit_bias_entries, at);
        for (const auto& e : p.logit_bias) {
            at.key = e.token;
            report(check_logit_bias_key(e.token), at);
            at.key = "logit_bias";
            report(check_number("logit_bias", static_cast<double>(e.bias)), at);
        }
    }
    if (p.response_format) {
        at.key = "response_format";
        const json_object_scan scan = scan_json_object(*p.response_format);
        if (!scan.is_object) error_response_format_is_not_a_json_object(at);
        // with escapes, the type is checked when the builder is converted
        if (!scan.escaped)
            report(scan.has_type ? check_response_format_type(scan.type) : chat_rule::bad_response_format, at);
    }
    if (p.functions.is_set()) {
        at.key = "functions";
        check_count(p.functions, &error_a_builder_request_lists_at_most_64_functions, at);
        const rule_at broken = check_function_list(p.functions);
        if (broken.rule != chat_rule::none) at.key = p.functions[broken.index];
        report(broken.rule, at);
    }
    if (p.call_function) {
        at.key = *p.call_function;
        report(check_call_function(*p.call_function, p.functions.is_set() ? &p.functions : nullptr), at);
    }
}

constexpr void check_content(const builder::content& c, builder_site at) {
    if (c.type() == builder::content::kind::text) {
        check_template_text(c.text(), at.message, -1, at.template_name);
        return;
    }
    if (c.type() != builder::content::kind::parts) return;
    at.key = "content";
    check_count(c.parts(), &error_a_builder_message_has_at_most_8_content_parts, at);
    for (std::size_t j = 0; j < c.parts().size(); ++j) {
        const builder::part& p = c.parts()[j];
        if (p.is_image()) {
            at.key = p.detail().empty() ? std::string_view("content") : p.detail();
            report(check_image(at.role, !p.detail().empty(), p.detail()), at);
        } else {
            check_template_text(p.text(), at.message, static_cast<int>(j), at.template_name);
        }
    }
}

/// Checks message I of a template: the rules of its role, then the syntax of its texts.
template <std::size_t I, class M>
constexpr void check_message(const M& m, std::string_view template_name) {
    builder_site at{I, M::role, {}, template_name};
    if constexpr (std::is_same_v<M, default_request> || std::is_same_v<M, request>) {
        report(check_required(M::role, false, false, m.empty()), at);
        check_params(m, at);
    } else if constexpr (std::is_same_v<M, truncate>) {
        (void)m;
    } else {
        bool has_name = !m.name.empty();
        bool has_id = false;
        if constexpr (std::is_same_v<M, tool>) has_id = !m.tool_call_id.empty();
        report(check_required(M::role, has_name, has_id, true), at);
        if constexpr (std::is_same_v<M, assistant>) {
            if (m.function_call.given) {
                at.key = "function_call";
                report(check_function_call(m.function_call.name), at);
            }
            at.key = "tool_calls";
            check_count(m.tool_calls, &error_a_builder_message_has_at_most_8_tool_calls, at);
            for (const auto& call : m.tool_calls) report(check_tool_call(call.id, call.function.name), at);
        }
        check_content(m.content, at);
    }
}

inline std::optional<std::string> optional_text(std::string_view s) {
    if (s.empty()) return std::nullopt;
    return std::string(s);
}

inline content runtime_content(const builder::content& c) {
    switch (c.type()) {
    case builder::content::kind::none: return std::monostate{};
    case builder::content::kind::text: return std::string(c.text());
    case builder::content::kind::parts: break;
    }
    std::vector<content_part> parts;
    for (const auto& p : c.parts()) {
        if (p.is_image()) parts.push_back(content_part::make_image(std::string(p.url()), optional_text(p.detail())));
        else parts.push_back(content_part::make_text(std::string(p.text())));
    }
    return parts;
}

inline std::vector<std::string> runtime_names(const builder::name_list& names) {
    return std::vector<std::string>(names.begin(), names.end());
}

template <role R>
request_params runtime_params(const basic_request<R>& b) {
    request_params p;
    if (b.model) p.model = std::string(*b.model);
    p.max_tokens = b.max_tokens;
    p.temperature = b.temperature;
    p.top_p = b.top_p;
    if (b.stop.is_set()) {
        if (b.stop.is_one()) p.stop = std::string(b.stop.sequences()[0]);
        else p.stop = std::vector<std::string>(b.stop.sequences().begin(), b.stop.sequences().end());
    }
    p.presence_penalty = b.presence_penalty;
    p.frequency_penalty = b.frequency_penalty;
    if (b.logit_bias.is_set()) {
        p.logit_bias.emplace();
        for (const auto& e : b.logit_bias) p.logit_bias->emplace_back(std::string(e.token), e.bias);
    }
    p.seed = b.seed;
    p.n = b.n;
    if (b.response_format) {
        boost::json::value v = boost::json::parse(*b.response_format);
        if (!v.is_object()) throw error(errc::chat_invalid, "'response_format' is not a JSON object");
        p.response_format = std::move(v.as_object());
    }
    if (b.functions.is_set()) p.functions = runtime_names(b.functions);
    if (b.call_function) p.call_function = std::string(*b.call_function);
    return p;
}

template <class M>
message runtime_message(const M& b) {
    message m;
    m.role = M::role;
    if constexpr (std::is_same_v<M, default_request> || std::is_same_v<M, request>) {
        m.params = runtime_params(b);
    } else if constexpr (!std::is_same_v<M, truncate>) {
        m.name = optional_text(b.name);
        m.content = runtime_content(b.content);
        if constexpr (std::is_same_v<M, tool>) m.tool_call_id = optional_text(b.tool_call_id);
        if constexpr (std::is_same_v<M, assistant>) {
            if (b.function_call.given)
                m.function_call = parley::function_call{std::string(b.function_call.name),
                                                        std::string(b.function_call.arguments)};
            for (const auto& c : b.tool_calls)
                m.tool_calls.push_back(
                    {std::string(c.id), {std::string(c.function.name), std::string(c.function.arguments)}});
        }
    }
    return m;
}

}  // namespace detail

/// A conversation template made in C++: optional metadata, then messages. Made `constexpr`, it
/// is checked at compile time (a broken rule or a text that does not parse is a compile error
/// that names it); otherwise it is checked when made and throws parley::error (errc::chat_invalid)
/// for a broken rule, parley::template_error for a text that does not parse.
template <message_builder... Messages>
class conversation {
public:
    constexpr conversation(Messages... messages) : conversation(metadata{}, messages...) {}
    constexpr conversation(metadata info, Messages... messages) : info_(info), messages_(messages...) {
        detail::check_count(info_.variables, &detail::error_builder_metadata_lists_at_most_32_variables,
                            {detail::no_message, role::system, "variables", info_.name});
        check(std::index_sequence_for<Messages...>{});
    }

    /// The name, description, version and variables.
    constexpr const metadata& info() const noexcept { return info_; }
    constexpr std::string_view name() const noexcept { return info_.name; }
    /// The number of messages.
    static constexpr std::size_t size() noexcept { return sizeof...(Messages); }
    /// Message I, as written.
    template <std::size_t I>
    constexpr const auto& get() const noexcept {
        return std::get<I>(messages_);
    }
    constexpr const std::tuple<Messages...>& messages() const noexcept { return messages_; }

    /// The messages as the runtime model has them (texts not rendered).
    std::vector<message> to_messages() const {
        return std::apply([](const auto&... m) { return std::vector<message>{detail::runtime_message(m)...}; },
                          messages_);
    }
    /// The metadata as the runtime model has it.
    template_info to_info() const {
        return template_info{std::string(info_.name), std::string(info_.description), std::string(info_.version),
                             std::vector<std::string>(info_.variables.begin(), info_.variables.end())};
    }
    /// The runtime template (parsed with `env`; the compile-time check used the default
    /// environment's syntax). Throws what conversation_template's constructor throws.
    conversation_template to_template(
        const jinja::environment& env = conversation_template::default_environment()) const {
        return conversation_template(to_info(), to_messages(), env);
    }
    explicit operator conversation_template() const { return to_template(); }

private:
    template <std::size_t... I>
    constexpr void check(std::index_sequence<I...>) const {
        (detail::check_message<I>(std::get<I>(messages_), info_.name), ...);
    }

    metadata info_;
    std::tuple<Messages...> messages_;
};

template <message_builder... Messages>
conversation(Messages...) -> conversation<Messages...>;
template <message_builder... Messages>
conversation(metadata, Messages...) -> conversation<Messages...>;

/// parley::render (render.hpp) on a builder: converts it to a conversation_template, then
/// renders. The conversion parses every text; to render a builder often, convert it once.
template <class Data, class... Messages>
rendered_request render(const conversation<Messages...>& c, const Data& data, const std::vector<message>& history = {},
                        const render_options& opt = {}) {
    return render(c.to_template(), data, history, opt);
}

/// The definition of a function requests can name (YAML `functions: [{name, description,
/// parameters}]`); `parameters` is the JSON schema text of the arguments object.
struct function_def {
    std::string_view name = {};
    std::string_view description = {};
    std::string_view parameters = {};
    /// Set by function_def_of<T>: the schema layer's function_signature<T>(), whose parameters
    /// the runtime definition takes.
    boost::json::object (*signature)() = nullptr;
};

namespace detail {
template <class T>
boost::json::object signature_of() {
    return function_signature<T>();
}
template <class T>
constexpr std::string_view description_of() {
    constexpr const annotation& self = annotations_v<T>.self;
    if constexpr (self.has_description()) return self.description;
    else return {};
}
}  // namespace detail

/// The definition of the function whose parameters are the members of T (a described struct):
/// named function_name<T>, described by T's description, parameters as function_signature<T>()
/// has them. `parameters` holds json_schema_text<T>, the whole schema, for reading at compile
/// time; the runtime definition leaves out its "$schema" and its description (the function's).
template <class T>
inline constexpr function_def function_def_of{function_name<T>, detail::description_of<T>(), json_schema_text<T>,
                                              &detail::signature_of<T>};

namespace detail {
template <class T>
struct strict_format {
    static constexpr std::array<std::string_view, 5> parts = {
        R"({"type":"json_schema","json_schema":{"name":")", function_name<T>, R"(","strict":true,"schema":)",
        strict_json_schema_text<T>, "}}"};
    static constexpr std::size_t size = parts[0].size() + parts[1].size() + parts[2].size() + parts[3].size() +
                                        parts[4].size();
    static constexpr std::array<char, size> chars = [] {
        std::array<char, size> out{};
        std::size_t i = 0;
        for (std::string_view p : parts)
            for (char c : p) out[i++] = c;
        return out;
    }();
};
}  // namespace detail

/// `response_format` text asking for JSON that follows strict_json_schema_text<T> (OpenAI's
/// structured outputs), named function_name<T>.
template <class T>
inline constexpr std::string_view strict_response_format{detail::strict_format<T>::chars.data(),
                                                         detail::strict_format<T>::size};

/// `response_format` text asking for any JSON object.
inline constexpr std::string_view json_object_format = R"({"type":"json_object"})";

template <class T>
inline constexpr bool is_conversation_builder = false;
template <class... M>
inline constexpr bool is_conversation_builder<conversation<M...>> = true;

/// A type templates(...) accepts: a function_def or a conversation.
template <class T>
concept set_item = std::same_as<T, function_def> || is_conversation_builder<T>;

/// A template set made in C++ (YAML `templates:` and `functions:`): function definitions and
/// named conversations, in any order. Made `constexpr`, it is checked at compile time: each
/// template has a name, no name is used twice, function names are valid and defined once,
/// parameters are JSON objects.
template <set_item... Items>
class templates {
public:
    constexpr templates(Items... items) : items_(items...) {
        check_templates(std::index_sequence_for<Items...>{});
        check_functions(std::index_sequence_for<Items...>{});
    }

    static constexpr std::size_t size() noexcept { return sizeof...(Items); }
    /// Item I (a function_def or a conversation), as written.
    template <std::size_t I>
    constexpr const auto& get() const noexcept {
        return std::get<I>(items_);
    }

    /// The first function that a request of a template names (in `functions` or as a forced
    /// `call_function`) and the set does not define; empty when there is none. Functions may
    /// also come from elsewhere (C++ functions registered with a bot), so this is not a rule:
    /// `static_assert(set.undefined_function().empty())` makes it one.
    constexpr std::string_view undefined_function() const {
        std::string_view found;
        std::apply([&](const auto&... item) { (undefined_in(item, found), ...); }, items_);
        return found;
    }

    /// The runtime template set; templates are parsed with `env`.
    template_set to_set(const jinja::environment& env = conversation_template::default_environment()) const {
        template_set set;
        std::apply(
            [&](const auto&... item) {
                auto add = [&](const auto& it) {
                    if constexpr (std::is_same_v<std::decay_t<decltype(it)>, function_def>) {
                        function_definition f{std::string(it.name), std::string(it.description), {}};
                        if (it.signature) {
                            boost::json::object signature = it.signature();
                            f.parameters = std::move(signature["parameters"].as_object());
                        } else {
                            boost::json::value v = boost::json::parse(it.parameters);
                            if (!v.is_object())
                                throw error(errc::chat_invalid, "the parameters of function '" + f.name +
                                                                    "' are not a JSON object");
                            f.parameters = std::move(v.as_object());
                        }
                        set.add(std::move(f));
                    } else {
                        set.add(it.to_template(env));
                    }
                };
                (add(item), ...);
            },
            items_);
        return set;
    }
    explicit operator template_set() const { return to_set(); }

private:
    template <class T>
    static constexpr std::string_view name_of(const T& item) {
        if constexpr (std::is_same_v<T, function_def>) return item.name;
        else return item.name();
    }
    template <class T>
    static constexpr bool is_function = std::is_same_v<T, function_def>;

    template <std::size_t... I>
    constexpr void check_templates(std::index_sequence<I...>) const {
        (check_template<I>(), ...);
    }
    template <std::size_t I>
    constexpr void check_template() const {
        using T = std::tuple_element_t<I, std::tuple<Items...>>;
        if constexpr (!is_function<T>) {
            const std::string_view name = std::get<I>(items_).name();
            detail::builder_site at{detail::no_message, role::system, name, name};
            if (name.empty()) detail::error_a_template_of_a_set_needs_a_name(at);
            std::size_t same = 0;
            std::apply([&](const auto&... item) {
                ((same += !is_function<std::decay_t<decltype(item)>> && name_of(item) == name), ...);
            }, items_);
            if (same > 1) detail::error_two_templates_of_a_set_have_the_same_name(at);
        }
    }
    template <std::size_t... I>
    constexpr void check_functions(std::index_sequence<I...>) const {
        (check_function<I>(), ...);
    }
    template <std::size_t I>
    constexpr void check_function() const {
        using T = std::tuple_element_t<I, std::tuple<Items...>>;
        if constexpr (is_function<T>) {
            const function_def& f = std::get<I>(items_);
            detail::builder_site at{detail::no_message, role::system, f.name, {}};
            detail::report(check_function_name(f.name), at);
            std::size_t same = 0;
            std::apply([&](const auto&... item) {
                ((same += is_function<std::decay_t<decltype(item)>> && name_of(item) == f.name), ...);
            }, items_);
            if (same > 1) detail::error_a_function_is_defined_twice_in_a_set(at);
            if (!f.signature && !detail::scan_json_object(f.parameters).is_object)
                detail::error_the_parameters_of_a_function_are_not_a_json_object(at);
        }
    }

    constexpr bool defines(std::string_view name) const {
        bool found = false;
        std::apply([&](const auto&... item) {
            ((found = found || (is_function<std::decay_t<decltype(item)>> && name_of(item) == name)), ...);
        }, items_);
        return found;
    }
    template <class T>
    constexpr void undefined_in(const T& item, std::string_view& found) const {
        if constexpr (!is_function<T>) {
            std::apply([&](const auto&... m) { (undefined_in_message(m, found), ...); }, item.messages());
        }
    }
    template <class M>
    constexpr void undefined_in_message(const M& m, std::string_view& found) const {
        if constexpr (std::is_same_v<M, default_request> || std::is_same_v<M, request>) {
            for (std::string_view f : m.functions)
                if (found.empty() && !defines(f)) found = f;
            if (m.call_function && found.empty() && !m.call_function->empty() && *m.call_function != "*" &&
                !defines(*m.call_function))
                found = *m.call_function;
        }
    }

    std::tuple<Items...> items_;
};

template <set_item... Items>
templates(Items...) -> templates<Items...>;

}  // namespace parley

#endif
