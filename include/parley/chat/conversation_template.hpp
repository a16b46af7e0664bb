// parley/chat/conversation_template.hpp: a conversation template (messages whose texts are
// prompt-language templates, plus control messages) and its metadata.
#ifndef PARLEY_CHAT_CONVERSATION_TEMPLATE_HPP
#define PARLEY_CHAT_CONVERSATION_TEMPLATE_HPP

#include <parley/chat/dialogue.hpp>
#include <parley/chat/message.hpp>
#include <parley/chat/rules.hpp>
#include <parley/jinja.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley {

/// What a template says about itself (all optional).
struct template_info {
    std::string name;
    std::string description;
    std::string version;
    std::vector<std::string> variables;  ///< the data the template expects, by name
    friend bool operator==(const template_info&, const template_info&) = default;
};

/// Where a text of a template sits: its message, and its content part (`npos` for a string
/// content).
struct text_location {
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);
    std::size_t message = 0;
    std::size_t part = npos;
};

/// Parses one text of a template; the YAML loader gives its own, which maps errors into the file.
using text_parser = std::function<jinja::parsed_template(std::string_view text, text_location where)>;

/// Where the texts of a template were read from (a YAML file, for instance): places the errors
/// of rendering a text there. The YAML loader gives each template it reads one.
class text_origin {
public:
    virtual ~text_origin() = default;
    /// The error `e`, raised at a line and column of the text `text` of the template's place
    /// `at`, as an error at the place in the source that character was read from.
    virtual template_error place(const template_error& e, text_location at, std::string_view text) const = 0;
    /// The error `message` about a function name of request message `message`: the name at
    /// `index` of its `functions`, or its `call_function` for `index` text_location::npos; placed
    /// at that name in the source, when the origin knows where it is (else empty).
    virtual std::optional<located_error> place_function(std::size_t message, std::size_t index, errc code,
                                                        const std::string& text) const {
        (void)message, (void)index, (void)code, (void)text;
        return std::nullopt;
    }
};

/// A conversation template: parsed once, rendered many times (see parley::render).
class conversation_template {
public:
    /// The environment templates use by default: Python Jinja2's defaults (no trimming), plus
    /// the chat extensions (`extract_dialogue`, see parley/chat/dialogue.hpp).
    static const jinja::environment& default_environment() {
        static const jinja::environment env = [] {
            jinja::environment e = jinja::environment::plain();
            add_chat_extensions(e);
            return e;
        }();
        return env;
    }

    conversation_template() = default;

    /// Checks every message against the chat model's rules (throws parley::error,
    /// errc::chat_invalid, naming the message) and parses every text with `env` (throws
    /// parley::template_error; the template's name is `NAME#I` for message I, `NAME#I.J` for
    /// its content part J).
    conversation_template(template_info info, std::vector<message> messages,
                          const jinja::environment& env = default_environment())
        : info_(std::move(info)), messages_(std::move(messages)) {
        build(parser_for(env, info_.name));
    }

    /// As above, with a name and no other metadata.
    conversation_template(std::string name, std::vector<message> messages,
                          const jinja::environment& env = default_environment())
        : conversation_template(template_info{std::move(name), {}, {}, {}}, std::move(messages), env) {}

    /// As above, with a parser of one's own for the texts.
    conversation_template(template_info info, std::vector<message> messages, const text_parser& parse)
        : info_(std::move(info)), messages_(std::move(messages)) {
        build(parse);
    }

    const template_info& info() const noexcept { return info_; }
    const std::string& name() const noexcept { return info_.name; }
    /// The messages as written (texts not rendered).
    const std::vector<message>& messages() const noexcept { return messages_; }

    /// The parsed text of message `i` (part `j` for a list content, npos for a string content);
    /// null for an image part or a message without content.
    const jinja::parsed_template* text(std::size_t i, std::size_t j = text_location::npos) const {
        const auto& t = texts_.at(i);
        const std::size_t k = j == text_location::npos ? 0 : j;
        if (k >= t.size() || !t[k]) return nullptr;
        return &*t[k];
    }

    /// Where the texts were read from (null for a template made in C++).
    const std::shared_ptr<const text_origin>& origin() const noexcept { return origin_; }
    /// Sets where the texts were read from; errors of rendering them are then reported there.
    void set_origin(std::shared_ptr<const text_origin> o) noexcept { origin_ = std::move(o); }

    /// Throws `e`, an error raised while rendering the text at `at` (see text()): placed in the
    /// source by origin() when the template has one and the error is in that text itself (not in
    /// a template the text includes or imports), as it is otherwise.
    [[noreturn]] void rethrow_placed(const template_error& e, text_location at) const {
        const jinja::parsed_template* t = text(at.message, at.part);
        if (!origin_ || !t || e.where().name != t->name()) throw e;
        const message& m = messages_.at(at.message);
        const std::string_view source = at.part == text_location::npos ? std::string_view(std::get<std::string>(m.content))
                                                                       : std::string_view(m.parts().at(at.part).text);
        throw origin_->place(e, at, source);
    }

    /// Equal when the metadata and the messages as written are equal.
    friend bool operator==(const conversation_template& a, const conversation_template& b) {
        return a.info_ == b.info_ && a.messages_ == b.messages_;
    }

private:
    void build(const text_parser& parse) {
        texts_.resize(messages_.size());
        for (std::size_t i = 0; i < messages_.size(); ++i) {
            const message& m = messages_[i];
            if (const rule_violation v = check(m))
                throw error(errc::chat_invalid, where(i) + ": " + describe(v.rule, m.role, v.key));
            if (const auto* s = std::get_if<std::string>(&m.content)) {
                texts_[i].push_back(parse(*s, {i, text_location::npos}));
            } else {
                for (std::size_t j = 0; j < m.parts().size(); ++j) {
                    const content_part& p = m.parts()[j];
                    if (p.type == content_part::kind::text) texts_[i].push_back(parse(p.text, {i, j}));
                    else texts_[i].emplace_back();  // images are not rendered
                }
            }
        }
    }
    static text_parser parser_for(const jinja::environment& env, const std::string& name) {
        return [env, name](std::string_view text, text_location at) {
            std::string label = name.empty() ? std::string("template") : name;
            label += '#' + std::to_string(at.message);
            if (at.part != text_location::npos) label += '.' + std::to_string(at.part);
            return env.parse(text, std::move(label));
        };
    }
    std::string where(std::size_t i) const {
        return (info_.name.empty() ? std::string("template") : info_.name) + ", message " + std::to_string(i);
    }

    template_info info_;
    std::vector<message> messages_;
    std::vector<std::vector<std::optional<jinja::parsed_template>>> texts_;
    std::shared_ptr<const text_origin> origin_;
};

}  // namespace parley

#endif
