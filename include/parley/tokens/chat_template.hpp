// parley/tokens/chat_template.hpp: exact token counts of a conversation for a local model: its
// Hugging Face folder's chat template (tokenizer_config.json, or chat_template.jinja beside it)
// rendered with the messages and tools as transformers' apply_chat_template renders them, in
// parley's `hf` Jinja environment, and the text counted with the folder's tokenizer.json, special
// tokens included. The only part of the tokens layer that needs the prompt language.
#ifndef PARLEY_TOKENS_CHAT_TEMPLATE_HPP
#define PARLEY_TOKENS_CHAT_TEMPLATE_HPP

#include <parley/chat/message.hpp>
#include <parley/chat/template_set.hpp>
#include <parley/error.hpp>
#include <parley/jinja.hpp>
#include <parley/tokens/tokenizer.hpp>

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace parley::tokens {

/// A model folder's chat template and tokenizer. Copies share them; const members are safe to
/// call from many threads at once.
class chat_template_counter {
public:
    /// Loads `model_dir`: tokenizer.json and tokenizer_config.json (its chat_template, a string or
    /// a list of named templates of which "tool_use" serves requests with tools and "default"
    /// the others; chat_template.jinja beside it wins), and the special tokens
    /// (bos_token, eos_token, ...). Throws parley::error: errc::tokenizer_file for a missing or
    /// malformed file, errc::tokenizer_unsupported as tokenizer::load does, template errors for
    /// a template that does not parse.
    static chat_template_counter load(const std::filesystem::path& model_dir, const load_limits& limits = {}) {
        auto s = std::make_shared<state>(tokenizer::load(model_dir / "tokenizer.json", limits));
        const std::filesystem::path config_file = model_dir / "tokenizer_config.json";
        std::string text = read(config_file);
        boost::system::error_code ec;
        boost::json::value config = boost::json::parse(text, ec);
        if (ec || !config.is_object())
            throw error(errc::tokenizer_file, config_file.string() + ": not a JSON object" + (ec ? " (" + ec.message() + ")" : std::string()));
        const boost::json::object& c = config.as_object();
        for (const char* name : {"bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"}) {
            const boost::json::value* v = c.if_contains(name);
            if (v && v->is_object()) v = v->as_object().if_contains("content");
            if (v && v->is_string()) s->special_tokens[name] = v->as_string();
        }
        if (const auto* extra = c.if_contains("additional_special_tokens"); extra && extra->is_array()) {
            boost::json::array list;
            for (const auto& t : extra->as_array()) {
                const boost::json::value* v = &t;
                if (v->is_object()) v = v->as_object().if_contains("content");
                if (v && v->is_string()) list.emplace_back(v->as_string());
            }
            s->special_tokens["additional_special_tokens"] = std::move(list);
        }
        std::string default_template, tool_template;
        std::error_code fec;
        if (std::filesystem::exists(model_dir / "chat_template.jinja", fec)) {
            default_template = read(model_dir / "chat_template.jinja");
        } else if (const auto* t = c.if_contains("chat_template"); t && t->is_string()) {
            default_template = std::string(t->as_string());
        } else if (t && t->is_array()) {
            for (const auto& named : t->as_array()) {
                if (!named.is_object()) continue;
                const auto* name = named.as_object().if_contains("name");
                const auto* source = named.as_object().if_contains("template");
                if (!name || !name->is_string() || !source || !source->is_string()) continue;
                if (name->as_string() == "default") default_template = std::string(source->as_string());
                if (name->as_string() == "tool_use") tool_template = std::string(source->as_string());
            }
        }
        if (default_template.empty() && tool_template.empty())
            throw error(errc::tokenizer_file, model_dir.string() + " has no chat template (tokenizer_config.json's chat_template, or chat_template.jinja)");
        const jinja::environment env = jinja::environment::hf();
        if (!default_template.empty()) s->plain = std::make_unique<jinja::parsed_template>(env.parse(default_template, "chat_template"));
        if (!tool_template.empty()) s->tools = std::make_unique<jinja::parsed_template>(env.parse(tool_template, "chat_template (tool_use)"));
        return chat_template_counter(std::move(s));
    }

    /// The template's context for `messages` and `functions`, as transformers gives it: messages
    /// (content a string, or a list of {"type": "text", "text"} and {"type": "image"} parts;
    /// assistant tool_calls with the arguments as a JSON object when they parse as one; tool
    /// messages with tool_call_id and name), tools ({"type": "function", "function": {name,
    /// description, parameters}}) when there are any, add_generation_prompt and the special
    /// tokens.
    boost::json::object context(const std::vector<message>& messages, const std::vector<function_definition>& functions,
                                bool add_generation_prompt) const {
        boost::json::object ctx = s_->special_tokens;
        boost::json::array list;
        for (const message& m : messages) {
            if (is_control(m.role)) continue;
            boost::json::object o;
            o["role"] = role_name(m.role);
            if (m.has_parts()) {
                boost::json::array parts;
                for (const content_part& p : m.parts()) {
                    if (p.type == content_part::kind::text) parts.push_back(boost::json::object{{"type", "text"}, {"text", p.text}});
                    else parts.push_back(boost::json::object{{"type", "image"}});
                }
                o["content"] = std::move(parts);
            } else {
                o["content"] = m.text();
            }
            if (m.name) o["name"] = *m.name;
            if (m.tool_call_id) o["tool_call_id"] = *m.tool_call_id;
            auto arguments = [](const std::string& text) -> boost::json::value {
                boost::system::error_code ec;
                boost::json::value v = boost::json::parse(text, ec);
                if (!ec && v.is_object()) return v;
                return boost::json::value(text);
            };
            if (!m.tool_calls.empty() || m.function_call) {
                boost::json::array calls;
                if (m.function_call)
                    calls.push_back(boost::json::object{{"type", "function"},
                                                        {"function", {{"name", m.function_call->name}, {"arguments", arguments(m.function_call->arguments)}}}});
                for (const tool_call& c : m.tool_calls)
                    calls.push_back(boost::json::object{{"id", c.id},
                                                        {"type", "function"},
                                                        {"function", {{"name", c.function.name}, {"arguments", arguments(c.function.arguments)}}}});
                o["tool_calls"] = std::move(calls);
            }
            list.push_back(std::move(o));
        }
        ctx["messages"] = std::move(list);
        if (!functions.empty()) {
            boost::json::array tools;
            for (const function_definition& f : functions)
                tools.push_back(boost::json::object{
                    {"type", "function"}, {"function", {{"name", f.name}, {"description", f.description}, {"parameters", f.parameters}}}});
            ctx["tools"] = std::move(tools);
        }
        ctx["add_generation_prompt"] = add_generation_prompt;
        return ctx;
    }

    /// The text the model reads for this conversation. Throws parley::template_error when the
    /// template refuses it (its raise_exception).
    std::string render(const std::vector<message>& messages, const std::vector<function_definition>& functions = {},
                       bool add_generation_prompt = true) const {
        const jinja::parsed_template& t = !functions.empty() && s_->tools ? *s_->tools : s_->plain ? *s_->plain : *s_->tools;
        return t.render(boost::json::value(context(messages, functions, add_generation_prompt)));
    }

    /// The tokens the model reads for this conversation: render, then count with the tokenizer
    /// (special tokens recognized, none added: as apply_chat_template(tokenize=True) does).
    std::size_t count(const std::vector<message>& messages, const std::vector<function_definition>& functions = {},
                      bool add_generation_prompt = true) const {
        return s_->tok.count(render(messages, functions, add_generation_prompt));
    }

    /// The tokens of one message in the template: the message rendered alone, without the
    /// generation prompt, less what the template renders for no message at all. Templates that
    /// refuse a message alone (a conversation must start with a user message, say) are counted
    /// from the message's texts and 4 tokens of framing.
    std::size_t message_tokens(const message& m) const {
        try {
            const std::size_t alone = count({m}, {}, false);
            std::size_t empty = 0;
            try {
                empty = count({}, {}, false);
            } catch (const template_error&) {
            }
            return alone > empty ? alone - empty : alone;
        } catch (const template_error&) {
            std::size_t n = 4 + s_->tok.count(m.text());
            for (const content_part& p : m.parts())
                if (p.type == content_part::kind::text) n += s_->tok.count(p.text);
            for (const tool_call& c : m.tool_calls) n += s_->tok.count(c.function.name) + s_->tok.count(c.function.arguments);
            return n;
        }
    }

    /// The tokens of a function definition in the template: the tools' render less the render
    /// without them, for a conversation of one empty user message.
    std::size_t function_tokens(const function_definition& f) const {
        const std::vector<message> one{make_message(role::user, "")};
        try {
            const std::size_t with = count(one, {f}, false), without = count(one, {}, false);
            return with > without ? with - without : 0;
        } catch (const template_error&) {
            return s_->tok.count(f.name) + s_->tok.count(f.description) + s_->tok.count(boost::json::serialize(f.parameters));
        }
    }

    /// The tokens every request adds once: the generation prompt.
    std::size_t request_tokens() const {
        const std::vector<message> one{make_message(role::user, "")};
        try {
            const std::size_t with = count(one, {}, true), without = count(one, {}, false);
            return with > without ? with - without : 0;
        } catch (const template_error&) {
            return 0;
        }
    }

    /// The folder's tokenizer.
    const tokenizer& tokens() const noexcept { return s_->tok; }

private:
    struct state {
        explicit state(tokenizer t) : tok(std::move(t)) {}
        tokenizer tok;
        boost::json::object special_tokens;
        std::unique_ptr<jinja::parsed_template> plain, tools;
    };
    explicit chat_template_counter(std::shared_ptr<const state> s) : s_(std::move(s)) {}

    static std::string read(const std::filesystem::path& p) {
        std::ifstream in(p, std::ios::binary);
        if (!in) throw error(errc::tokenizer_file, p.string() + ": cannot read the file");
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }

    std::shared_ptr<const state> s_;
};

}  // namespace parley::tokens

#endif
