// parley/chat/impl/yaml_read.hpp: the YAML loader (included by parley/chat/yaml.hpp): messages,
// templates, sets and files, on top of yaml_nodes.hpp.
#ifndef PARLEY_CHAT_IMPL_YAML_READ_HPP
#define PARLEY_CHAT_IMPL_YAML_READ_HPP

#include <parley/chat/detail/request_fields_json.hpp>
#include <parley/chat/impl/yaml_nodes.hpp>

#include <boost/json/serialize.hpp>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parley {
namespace detail {

/// The error `e` of the text `text` (a line and column in it), which was read from the scalar at
/// byte `start` of the YAML text `src`, placed at the byte of `src` the character came from
/// (the start of the scalar when the error has no line, or when the scalar cannot be traced:
/// the message then ends with the position in the text).
inline template_error place_in_yaml(const template_error& e, std::string_view src, const std::string& file,
                                    std::size_t start, std::string_view text) {
    std::string message = e.message();
    std::size_t at = start;
    if (e.where().line != 0) {
        const std::size_t k = offset_in_text(text, e.where().line, e.where().column);
        const auto map = map_yaml_scalar(src, start, text);
        if (map && k < map->size()) at = (*map)[k];
        else
            message += " (line " + std::to_string(e.where().line) + ", column " + std::to_string(e.where().column) +
                       " of the text)";
    }
    const yaml_position p = yaml_position_at(src, at);
    return template_error(static_cast<errc>(e.code().value()), message, {file, p.line, p.column}, p.line_text);
}

/// Where the texts of a template loaded from YAML are in their file: the file's text and the
/// offset of each text's scalar.
class yaml_text_origin final : public text_origin {
public:
    /// Where the names of a request message's `functions` are, and its `call_function` (npos: none).
    struct function_places {
        std::vector<std::size_t> functions;
        std::size_t call_function = static_cast<std::size_t>(-1);
    };

    yaml_text_origin(std::string file, std::shared_ptr<const std::string> source, std::vector<std::vector<std::size_t>> starts,
                     std::vector<function_places> functions = {})
        : file_(std::move(file)), source_(std::move(source)), starts_(std::move(starts)), functions_(std::move(functions)) {}

    std::optional<located_error> place_function(std::size_t message, std::size_t index, errc code,
                                                const std::string& text) const override {
        if (message >= functions_.size()) return std::nullopt;
        const function_places& f = functions_[message];
        const std::size_t at = index == text_location::npos ? f.call_function
                               : index < f.functions.size() ? f.functions[index]
                                                            : npos;
        if (at == npos) return std::nullopt;
        const yaml_position p = yaml_position_at(*source_, at);
        return located_error(code, text, {file_, p.line, p.column}, p.line_text);
    }

    template_error place(const template_error& e, text_location at, std::string_view text) const override {
        if (at.message >= starts_.size()) return e;
        const auto& m = starts_[at.message];
        const std::size_t k = at.part == text_location::npos ? 0 : at.part;
        if (k >= m.size() || m[k] == npos) return e;
        return place_in_yaml(e, *source_, file_, m[k], text);
    }

private:
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);
    std::string file_;
    std::shared_ptr<const std::string> source_;
    std::vector<std::vector<std::size_t>> starts_;  // by message, then content part (npos: no text)
    std::vector<function_places> functions_;  // by message
};

/// Reads template sets and templates from YAML; every error is located in the text.
class yaml_reader : yaml_node_reader {
public:
    using yaml_node_reader::yaml_node_reader;

    template_set read_set() { return read_set(parse()); }

    conversation_template read_single(std::string name) { return read_single(parse(), std::move(name)); }

    /// A set, or a single template (a list of messages, or a map with `messages` and without
    /// `templates` and `functions`) as a set of that template named `name`.
    template_set read_any(std::string name) {
        const YAML::Node root = parse();
        bool single = root.IsSequence();
        if (root.IsMap()) {
            bool messages = false, set_keys = false;
            for (auto it = root.begin(); it != root.end(); ++it) {
                if (!it->first.IsScalar()) continue;
                const std::string& k = it->first.Scalar();
                messages = messages || k == "messages";
                set_keys = set_keys || k == "templates" || k == "functions" || k == "mcp_servers";
            }
            single = messages && !set_keys;
        }
        if (!single) return read_set(root);
        template_set set;
        set.add(read_single(root, std::move(name)));
        return set;
    }

    /// A list of function definitions (a set's `functions` section alone), added to `set`.
    void read_functions_into(template_set& set) {
        const YAML::Node root = parse();
        if (!root.IsSequence())
            fail(offset(root), "a functions file is a list of function definitions (each a map with 'name', "
                               "'description' and 'parameters'), found " + found(root));
        enter(root, 0);
        read_function_list(root, 0, set);
    }

private:
    template_set read_set(const YAML::Node& root) {
        if (!root.IsMap()) {
            std::string msg = "a template set is a map with 'templates', 'functions' and 'mcp_servers', found " + found(root);
            if (root.IsSequence()) msg += " (a list of messages is a single template: read it with load_template)";
            fail(offset(root), msg);
        }
        template_set set;
        std::vector<template_nodes> nodes;
        static constexpr std::string_view top_keys[] = {"templates", "functions", "mcp_servers"};
        for (const field& f : fields(root, 0)) {
            check_known(f, top_keys, "at the top level of a template set");
            if (f.name == "templates") read_templates(f, set, nodes);
            else if (f.name == "functions") read_functions(f, set);
            else read_mcp_servers(f, set);
        }
        if (opt_.check_functions)
            for (std::size_t t = 0; t < set.templates().size(); ++t) check_functions(set.templates()[t], nodes[t], &set);
        return set;
    }

    conversation_template read_single(const YAML::Node& root, std::string name) {
        template_nodes nodes;
        conversation_template t = read_template(root, std::move(name), 0, nodes);
        if (opt_.check_functions && !opt_.external_functions.empty()) check_functions(t, nodes, nullptr);
        return t;
    }

    // The YAML nodes a message was read from, to place later errors.
    struct message_nodes {
        YAML::Node content;  // a string content
        std::vector<YAML::Node> parts;  // the text of each content part (undefined for images)
        std::vector<YAML::Node> functions;  // the names in `functions`
        YAML::Node call_function;
    };
    struct template_nodes {
        std::vector<message_nodes> messages;
    };

    // --- messages -------------------------------------------------------------------------------

    static std::string roles_expected() {
        std::vector<std::string_view> names;
        for (role r : all_roles) names.push_back(role_name(r));
        return "expected " + or_list(names);
    }

    role read_role(const field& f) {
        const std::string name = text(f, "a role name");
        if (const auto r = role_from_name(name)) return *r;
        std::vector<std::string_view> names;
        for (role r : all_roles) names.push_back(role_name(r));
        fail(offset(f), "unknown role '" + shorten(name) + "' (" + roles_expected() + ")" + did_you_mean(name, names));
    }

    function_call read_call(const field& f) {
        if (!f.value.IsMap()) expected(f, "a map with 'name' and 'arguments'");
        function_call c;
        static constexpr std::string_view keys[] = {"name", "arguments"};
        for (const field& k : fields(f.value, f.depth)) {
            check_known(k, keys, "in a function call");
            if (k.name == "name") c.name = text(k);
            else if (k.value.IsMap() || k.value.IsSequence()) c.arguments = boost::json::serialize(to_json(k.value, k.depth));
            else c.arguments = text(k, "JSON text or a map");
        }
        return c;
    }

    content_part read_part(const YAML::Node& n, std::size_t depth, YAML::Node& text_node) {
        if (!n.IsMap()) fail(offset(n), "a content part is a map with a 'type', found " + found(n));
        const std::vector<field> fs = fields(n, depth);
        const auto type = std::find_if(fs.begin(), fs.end(), [](const field& f) { return f.name == "type"; });
        if (type == fs.end()) fail(offset(n), "a content part needs a 'type' (\"text\" or \"image_url\")");
        const std::string t = text(*type);
        if (t != "text" && t != "image_url")
            fail(offset(*type), "unknown content part type '" + shorten(t) + "' (expected \"text\" or \"image_url\")" +
                                    did_you_mean(t, std::array<std::string_view, 2>{"text", "image_url"}));
        content_part p;
        if (t == "text") {
            static constexpr std::string_view keys[] = {"type", "text"};
            bool has_text = false;
            for (const field& f : fs) {
                check_known(f, keys, "in a text content part");
                if (f.name != "text") continue;
                p.text = text(f);
                text_node = f.value;
                has_text = true;
            }
            if (!has_text) fail(offset(n), "a text content part needs a 'text'");
            return p;
        }
        p.type = content_part::kind::image_url;
        static constexpr std::string_view keys[] = {"type", "image_url"};
        bool has_image = false;
        for (const field& f : fs) {
            check_known(f, keys, "in an image_url content part");
            if (f.name != "image_url") continue;
            has_image = true;
            if (!f.value.IsMap()) expected(f, "a map with 'url' and 'detail'");
            static constexpr std::string_view image_keys[] = {"url", "detail"};
            bool has_url = false;
            for (const field& i : fields(f.value, f.depth)) {
                check_known(i, image_keys, "in an image_url");
                if (i.name == "url") {
                    p.url = text(i);
                    has_url = true;
                } else {
                    p.detail = text(i);
                }
            }
            if (!has_url) fail(offset(f), "an image_url needs a 'url'");
        }
        if (!has_image) fail(offset(n), "an image_url content part needs an 'image_url'");
        return p;
    }

    // Reads request parameter `f` (its type; the rules are check's).
    void read_param(request_params& p, const field& f, message_nodes& mn) {
        const std::string& key = f.name;
        if (key == "model") {
            p.model = text(f);
        } else if (key == "max_tokens" || key == "n" || key == "seed") {
            (key == "max_tokens" ? p.max_tokens : key == "n" ? p.n : p.seed) = integer(f);
        } else if (key == "temperature" || key == "top_p" || key == "presence_penalty" || key == "frequency_penalty") {
            (key == "temperature" ? p.temperature : key == "top_p" ? p.top_p
                                                 : key == "presence_penalty" ? p.presence_penalty
                                                                             : p.frequency_penalty) = number(f);
        } else if (key == "stop") {
            if (f.value.IsScalar()) {
                p.stop = text(f);
                return;
            }
            std::vector<std::string> list;
            for (const YAML::Node& s : items(f, "a string or a list of strings"))
                list.push_back(text({f.key, s, "stop", f.depth + 1}));
            p.stop = std::move(list);
        } else if (key == "logit_bias") {
            if (!f.value.IsMap()) expected(f, "a map from token ids to biases");
            std::vector<std::pair<std::string, std::int64_t>> bias;
            for (const field& b : fields(f.value, f.depth))
                bias.emplace_back(b.name, integer({b.key, b.value, "logit_bias", b.depth}));
            p.logit_bias = std::move(bias);
        } else if (key == "response_format") {
            p.response_format = json_object(f, "a map such as {type: json_object}");
        } else if (key == "functions") {
            std::vector<std::string> names;
            for (const YAML::Node& s : items(f, "a list of function names")) {
                names.push_back(text({f.key, s, "functions", f.depth + 1}));
                mn.functions.push_back(s);
            }
            p.functions = std::move(names);
        } else if (key == "call_function") {
            if (f.value.IsNull())
                expected(f, "\"\" (call none), \"*\" (the model chooses), \"+\" (the model calls one) or a function name");
            p.call_function = text(f);
            mn.call_function = f.value;
        } else {
            try {
                request_field_reader().read(p, key, to_json(f.value, f.depth));
            } catch (const field_value_error& e) {
                fail(offset(f), e.pointer.empty() ? e.message : key + e.pointer + ": " + e.message);
            }
        }
    }

    // The place in message node `n` that `v.pointer` names: its steps followed through maps (by
    // key) and lists (by index), then the value reached (its key when `v.at_key`, or when the
    // value is empty); where a step is not there, the last node reached.
    std::size_t locate(const YAML::Node& n, const rule_violation& v) const {
        YAML::Node node, key;
        node.reset(n);
        bool keyed = false;
        std::string_view rest = v.pointer;
        while (!rest.empty()) {
            rest.remove_prefix(1);  // the '/'
            const std::size_t end = std::min(rest.find('/'), rest.size());
            std::string token;
            for (std::size_t i = 0; i < end; ++i) {  // RFC 6901: ~1 is '/', ~0 is '~'
                if (rest[i] == '~' && i + 1 < end) token += rest[++i] == '1' ? '/' : '~';
                else token += rest[i];
            }
            rest.remove_prefix(end);
            bool hit = false;
            if (node.IsMap()) {
                for (auto it = node.begin(); it != node.end() && !hit; ++it)
                    if (it->first.IsScalar() && it->first.Scalar() == token) {
                        key.reset(it->first);
                        node.reset(it->second);
                        keyed = hit = true;
                    }
            } else if (node.IsSequence()) {
                std::size_t i = 0;
                for (auto it = node.begin(); it != node.end() && !hit; ++it, ++i)
                    if (std::to_string(i) == token) {
                        node.reset(*it);
                        keyed = false;
                        hit = true;
                    }
            }
            if (!hit) break;
        }
        if (keyed && (v.at_key || (node.IsNull() && found(node) == "nothing"))) return offset(key);
        return offset(node);
    }

    message read_message(const YAML::Node& n, std::size_t depth, message_nodes& mn) {
        if (!n.IsMap()) fail(offset(n), "a message is a map with a 'role', found " + found(n));
        const std::vector<field> fs = fields(n, depth);
        const auto role_field = std::find_if(fs.begin(), fs.end(), [](const field& f) { return f.name == "role"; });
        if (role_field == fs.end()) {
            const bool definition = std::any_of(fs.begin(), fs.end(), [](const field& f) { return f.name == "name"; }) &&
                                    std::any_of(fs.begin(), fs.end(), [](const field& f) {
                                        return f.name == "parameters" || f.name == "description" || f.name == "command";
                                    });
            fail(offset(n), "a message needs a 'role' (" + roles_expected() + ")" +
                                (definition ? std::string("; this looks like a function definition: a list of them is "
                                                          "a functions file, not a template")
                                            : std::string()));
        }
        message m;
        m.role = read_role(*role_field);
        const role r = m.role;
        for (const field& f : fs) {
            if (f.name == "role") continue;
            if (const chat_rule broken = check_key(r, f.name); broken != chat_rule::none)
                fail(offset(f.key), describe(broken, r, f.name));
            if (is_request_param(f.name)) {
                read_param(m.params, f, mn);
            } else if (f.name == "name") {
                m.name = text(f);
            } else if (f.name == "tool_call_id") {
                m.tool_call_id = text(f);
            } else if (f.name == "refusal") {
                m.refusal = text(f);
            } else if (f.name == "reasoning") {
                try {
                    m.reasoning = reasoning_from_json(to_json(f.value, f.depth));
                } catch (const field_value_error& e) {
                    fail(offset(f), e.pointer.empty() ? e.message : "reasoning" + e.pointer + ": " + e.message);
                }
            } else if (f.name == "content") {
                if (f.value.IsNull()) continue;  // no content, as `"content": null` in JSON
                if (f.value.IsScalar()) {
                    m.content = text(f);
                    mn.content = f.value;
                    continue;
                }
                std::vector<content_part> parts;
                for (const YAML::Node& p : items(f, "a string or a list of content parts")) {
                    mn.parts.emplace_back();
                    parts.push_back(read_part(p, f.depth + 1, mn.parts.back()));
                }
                m.content = std::move(parts);
            } else if (f.name == "function_call") {
                m.function_call = read_call(f);
            } else if (f.name == "tool_calls") {
                for (const YAML::Node& c : items(f, "a list of tool calls")) {
                    if (!c.IsMap()) fail(offset(c), "a tool call is a map with 'id', 'type' and 'function', found " + found(c));
                    tool_call call;
                    static constexpr std::string_view keys[] = {"id", "type", "function"};
                    for (const field& k : fields(c, f.depth + 1)) {
                        check_known(k, keys, "in a tool call");
                        if (k.name == "id") {
                            call.id = text(k);
                        } else if (k.name == "type") {
                            if (text(k) != "function") fail(offset(k), "a tool call's type is \"function\"");
                        } else {
                            call.function = read_call(k);
                        }
                    }
                    m.tool_calls.push_back(std::move(call));
                }
            }
        }
        if (const rule_violation v = check(m)) fail(locate(n, v), describe(v.rule, r, v.key));
        return m;
    }

    // --- templates and sets ---------------------------------------------------------------------

    // Moves the error of a text's template to the text's place in the YAML file.
    [[noreturn]] void relocate(const template_error& e, const YAML::Node& node, std::string_view text) const {
        throw place_in_yaml(e, src_, file_, offset(node), text);
    }

    // The origin of a template's texts: this text, and where each text's scalar starts in it.
    std::shared_ptr<const text_origin> origin_of(const template_nodes& tn) {
        if (!source_) source_ = std::make_shared<const std::string>(src_);
        std::vector<std::vector<std::size_t>> starts;
        std::vector<yaml_text_origin::function_places> functions;
        constexpr std::size_t none = static_cast<std::size_t>(-1);
        for (const message_nodes& mn : tn.messages) {
            std::vector<std::size_t>& m = starts.emplace_back();
            if (mn.content.IsDefined() && mn.content.IsScalar()) m.push_back(offset(mn.content));
            for (const YAML::Node& p : mn.parts) m.push_back(p.IsDefined() && p.IsScalar() ? offset(p) : none);
            yaml_text_origin::function_places& f = functions.emplace_back();
            for (const YAML::Node& n : mn.functions) f.functions.push_back(offset(n));
            if (mn.call_function.IsScalar()) f.call_function = offset(mn.call_function);
        }
        return std::make_shared<yaml_text_origin>(file_, source_, std::move(starts), std::move(functions));
    }

    conversation_template read_template(const YAML::Node& n, std::string name, std::size_t depth, template_nodes& tn) {
        template_info info;
        info.name = std::move(name);
        YAML::Node list;
        if (n.IsSequence()) {
            list = n;
        } else if (n.IsMap()) {
            static constexpr std::string_view keys[] = {"description", "version", "variables", "messages"};
            bool has_messages = false;
            for (const field& f : fields(n, depth)) {
                check_known(f, keys, "in a template");
                if (f.name == "description") info.description = text(f);
                else if (f.name == "version") info.version = text(f);
                else if (f.name == "variables") {
                    for (const YAML::Node& v : items(f, "a list of names")) info.variables.push_back(text({f.key, v, "variables", f.depth + 1}));
                } else {
                    if (!f.value.IsSequence()) expected(f, "a list of messages");
                    list = f.value;
                    has_messages = true;
                }
            }
            if (!has_messages) fail(offset(n), "a template needs 'messages' (a list of messages)");
        } else {
            fail(offset(n), "a template is a list of messages, or a map with 'messages' (and 'description', 'version', "
                            "'variables'), found " + found(n));
        }
        enter(list, depth + 1);
        std::vector<message> messages;
        for (auto it = list.begin(); it != list.end(); ++it) {
            if (messages.size() == opt_.limits.max_messages)
                fail(offset(*it), "a template has more than the limit of " + std::to_string(opt_.limits.max_messages) +
                                      " messages", errc::template_limit);
            tn.messages.emplace_back();
            messages.push_back(read_message(*it, depth + 2, tn.messages.back()));
        }
        const std::string label = info.name.empty() ? std::string("template") : info.name;
        const text_parser parse = [&](std::string_view text, text_location at) {
            const message_nodes& mn = tn.messages.at(at.message);
            const YAML::Node& node = at.part == text_location::npos ? mn.content : mn.parts.at(at.part);
            std::string where = label + '#' + std::to_string(at.message);
            if (at.part != text_location::npos) where += '.' + std::to_string(at.part);
            try {
                return opt_.environment.parse(text, std::move(where));
            } catch (const template_error& e) {
                relocate(e, node, text);
            }
        };
        try {
            conversation_template t(std::move(info), std::move(messages), parse);
            t.set_origin(origin_of(tn));
            return t;
        } catch (const located_error&) {
            throw;
        } catch (const error& e) {  // a rule the checks above missed
            fail(offset(n), e.what());
        }
    }

    void read_templates(const field& f, template_set& set, std::vector<template_nodes>& nodes) {
        if (!f.value.IsMap()) expected(f, "a map from template names to templates");
        for (const field& t : fields(f.value, f.depth, true)) {
            if (set.templates().size() == opt_.limits.max_templates)
                fail(offset(t.key), "a set has more than the limit of " + std::to_string(opt_.limits.max_templates) +
                                        " templates", errc::template_limit);
            template_nodes tn;
            conversation_template tpl = read_template(t.value, t.name, t.depth, tn);
            try {
                set.add(std::move(tpl));
            } catch (const error& e) {  // an empty or a repeated name
                fail(offset(t.key), e.what());
            }
            nodes.push_back(std::move(tn));
        }
    }

    void read_functions(const field& f, template_set& set) {
        items(f, "a list of function definitions");  // checks that it is one
        read_function_list(f.value, f.depth, set);
    }

    void read_function_list(const YAML::Node& list, std::size_t depth, template_set& set) {
        for (auto it = list.begin(); it != list.end(); ++it) {
            const YAML::Node n = *it;
            if (set.functions().size() == opt_.limits.max_functions)
                fail(offset(n), "a set has more than the limit of " + std::to_string(opt_.limits.max_functions) +
                                    " functions", errc::template_limit);
            if (!n.IsMap()) fail(offset(n), "a function definition is a map with 'name', 'description' and "
                                            "'parameters', found " + found(n));
            function_definition def;
            std::size_t name_at = offset(n);
            bool has_name = false;
            std::optional<function_command> command;
            std::optional<std::size_t> timeout_at;
            double timeout = 0;
            static constexpr std::string_view keys[] = {"name", "description", "parameters", "strict", "command", "timeout"};
            std::size_t strict_at = offset(n);
            for (const field& k : fields(n, depth + 1)) {
                check_known(k, keys, "in a function definition");
                if (k.name == "name") {
                    def.name = text(k);
                    name_at = offset(k);
                    has_name = true;
                } else if (k.name == "description") {
                    def.description = text(k);
                } else if (k.name == "strict") {
                    const auto v = plain(k);
                    if (!v || !std::holds_alternative<bool>(*v)) expected(k, "true or false");
                    def.strict = std::get<bool>(*v);
                    strict_at = offset(k);
                } else if (k.name == "command") {
                    command.emplace();
                    command->command = text(k, "a shell command (a string)");
                    if (command->command.find_first_not_of(" \t\r\n") == std::string::npos)
                        fail(offset(k), "'command' is empty: give the shell command that runs the function");
                } else if (k.name == "timeout") {
                    timeout = number(k);
                    timeout_at = offset(k);
                    if (!(timeout > 0) || timeout > 1e9)
                        fail(offset(k), "'timeout' expects a number of seconds above 0 (up to 1e9), found '" +
                                            shorten(k.value.Scalar()) + "'");
                } else {
                    def.parameters = json_object(k, "a JSON schema (a map, or a string of JSON text)");
                }
            }
            if (!has_name) fail(offset(n), "a function definition needs a 'name'");
            if (timeout_at && !command) fail(*timeout_at, "'timeout' is the time limit of a 'command', and the function has none");
            if (def.strict)
                if (const std::string problem = strict_schema_problem(def.parameters); !problem.empty())
                    fail(strict_at, "function '" + def.name + "' is strict, but its parameters at " + problem);
            const std::string name = def.name;
            try {
                set.add(std::move(def));
            } catch (const error& e) {  // an invalid or a repeated name
                fail(name_at, e.what());
            }
            if (command) {
                command->timeout = timeout;
                set.set_command(name, std::move(*command));
            }
        }
    }

    // --- MCP servers ----------------------------------------------------------------------------

    void read_mcp_servers(const field& f, template_set& set) {
        if (!f.value.IsMap()) expected(f, "a map from server names to servers");
        for (const field& s : fields(f.value, f.depth, true)) {
            if (set.mcp_servers().size() == opt_.limits.max_mcp_servers)
                fail(offset(s.key), "a set has more than the limit of " + std::to_string(opt_.limits.max_mcp_servers) +
                                        " MCP servers", errc::template_limit);
            mcp_server server = read_mcp_server(s);
            try {
                set.add(std::move(server));
            } catch (const error& e) {  // a bad or a repeated name
                fail(offset(s.key), e.what());
            }
        }
    }

    // A string that must hold something other than white space.
    std::string nonblank(const field& f, const char* what, const char* why) {
        std::string v = text(f, what);
        if (v.find_first_not_of(" \t\r\n") == std::string::npos) fail(offset(f), "'" + f.name + "' is empty: " + why);
        return v;
    }

    // A map from names to strings (`env`, `headers`).
    std::vector<std::pair<std::string, std::string>> string_map(const field& f, const char* what, std::vector<field>& entries) {
        if (!f.value.IsMap()) expected(f, what);
        std::vector<std::pair<std::string, std::string>> out;
        entries = fields(f.value, f.depth);
        for (const field& e : entries) out.emplace_back(e.name, text(e));
        return out;
    }

    mcp_server read_mcp_server(const field& s) {
        if (!s.value.IsMap())
            fail(offset(s), "an MCP server is a map with a 'command' (stdio) or a 'url' (Streamable HTTP), found " + found(s.value));
        mcp_server m;
        m.name = s.name;
        static constexpr std::string_view keys[] = {"command", "args", "env", "cwd", "url", "headers", "tools", "prefix", "timeout"};
        const std::vector<field> fs = fields(s.value, s.depth);
        const field* command = nullptr;
        const field* url = nullptr;
        const field* args = nullptr;
        for (const field& k : fs) {
            check_known(k, keys, "in an MCP server");
            if (k.name == "command") command = &k;
            else if (k.name == "url") url = &k;
            else if (k.name == "args") args = &k;
        }
        if (command && url) {
            const field& second = offset(command->key) < offset(url->key) ? *url : *command;
            fail(offset(second.key), "an MCP server has a 'command' (stdio) or a 'url' (Streamable HTTP), not both");
        }
        if (!command && !url)
            fail(offset(s.value), "MCP server '" + s.name + "' needs a 'command' (the program that runs it, stdio) or a 'url' "
                                  "(Streamable HTTP)");
        for (const field& k : fs) {
            const bool stdio_key = k.name == "args" || k.name == "env" || k.name == "cwd";
            if (stdio_key && url)
                fail(offset(k.key), "'" + k.name + "' belongs to a server run as a 'command', and this one has a 'url'");
            if (k.name == "headers" && command)
                fail(offset(k.key), "'headers' belong to a server reached at a 'url', and this one has a 'command'");
            if (k.name == "command") {
                if (k.value.IsSequence()) {
                    if (args)
                        fail(offset(args->key), "'args' goes with a 'command' given as a string; this 'command' is a list "
                                                "(the program, then its arguments)");
                    const std::vector<YAML::Node> list = items(k, "a program (a string), or a list of the program and its arguments");
                    if (list.empty()) fail(offset(k), "'command' is empty: give the program that runs the server");
                    for (std::size_t i = 0; i < list.size(); ++i) {
                        std::string word = text({k.key, list[i], "command", k.depth + 1});
                        if (i == 0) {
                            if (word.find_first_not_of(" \t\r\n") == std::string::npos)
                                fail(offset(list[i]), "the program of 'command' is empty");
                            m.command = std::move(word);
                        } else {
                            m.args.push_back(std::move(word));
                        }
                    }
                } else {
                    m.command = nonblank(k, "a program (a string), or a list of the program and its arguments",
                                         "give the program that runs the server");
                }
            } else if (k.name == "args") {
                for (const YAML::Node& a : items(k, "a list of arguments")) m.args.push_back(text({k.key, a, "args", k.depth + 1}));
            } else if (k.name == "env") {
                std::vector<field> es;
                m.env = string_map(k, "a map from variable names to values", es);
                for (std::size_t i = 0; i < m.env.size(); ++i)
                    if (m.env[i].first.empty() || m.env[i].first.find('=') != std::string::npos)
                        fail(offset(es[i].key),
                             "an environment variable's name is not empty and has no '=', found '" + shorten(m.env[i].first) + "'");
            } else if (k.name == "cwd") {
                m.cwd = nonblank(k, "a directory (a string)", "give the directory the server runs in, or leave 'cwd' out");
            } else if (k.name == "url") {
                m.url = text(k, "a URL (a string)");
                const auto scheme = [&](std::string_view p) {
                    if (m.url.size() <= p.size()) return false;
                    for (std::size_t i = 0; i < p.size(); ++i)
                        if (std::tolower(static_cast<unsigned char>(m.url[i])) != p[i]) return false;
                    return true;
                };
                if (!scheme("http://") && !scheme("https://"))
                    fail(offset(k), "'url' expects an http:// or https:// URL, found '" + shorten(m.url) + "'");
            } else if (k.name == "headers") {
                std::vector<field> hs;
                m.headers = string_map(k, "a map from header names to values", hs);
                for (std::size_t i = 0; i < m.headers.size(); ++i) {
                    const auto& [name, value] = m.headers[i];
                    const bool token = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
                        return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
                    });
                    if (!token) fail(offset(hs[i].key), "a header name is a token (letters, digits and !#$%&'*+-.^_`|~), found '" + shorten(name) + "'");
                    if (value.find_first_of("\r\n") != std::string::npos || value.find('\0') != std::string::npos)
                        fail(offset(hs[i]), "the value of header '" + name + "' has a line break or a NUL");
                }
            } else if (k.name == "tools") {
                const std::vector<YAML::Node> list = items(k, "a list of tool names");
                if (list.empty()) fail(offset(k), "'tools' lists no tool: leave it out to offer every tool of the server");
                for (const YAML::Node& t : list) {
                    std::string tool = text({k.key, t, "tools", k.depth + 1});
                    if (tool.empty()) fail(offset(t), "a tool name cannot be empty");
                    if (std::find(m.tools.begin(), m.tools.end(), tool) != m.tools.end())
                        fail(offset(t), "tool '" + shorten(tool) + "' is listed twice in 'tools'");
                    m.tools.push_back(std::move(tool));
                }
            } else if (k.name == "prefix") {
                m.prefix = text(k, "a string (\"\" for none)");
            } else if (k.name == "timeout") {
                m.timeout = number(k);
                if (!(m.timeout > 0) || m.timeout > 1e9)
                    fail(offset(k), "'timeout' expects a number of seconds above 0 (up to 1e9), found '" + shorten(k.value.Scalar()) + "'");
            }
        }
        if (m.prefix) {
            const field& p = *std::find_if(fs.begin(), fs.end(), [](const field& f) { return f.name == "prefix"; });
            const bool valid = m.prefix->size() <= 63 && std::all_of(m.prefix->begin(), m.prefix->end(), [](char c) {
                return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
            });
            if (!valid)
                fail(offset(p), "a prefix of function names matches ^[a-zA-Z0-9_-]{0,63}$, found '" + shorten(*m.prefix) + "'");
        }
        return m;
    }

    // Every function a request names must be defined (in the set or outside it), or may come from
    // an MCP server of the set (its tools are known once it runs).
    void check_functions(const conversation_template& t, const template_nodes& tn, const template_set* set) const {
        auto known = [&](const std::string& name) {
            return (set && (set->function(name) || set->mcp_server_for(name))) ||
                   std::find(opt_.external_functions.begin(), opt_.external_functions.end(), name) !=
                       opt_.external_functions.end();
        };
        // a name under the prefix of a server whose `tools` do not list it: say so
        auto why = [&](std::string_view param, const std::string& name) {
            std::string sentence = template_set::undefined_function(param, name);
            if (!set) return sentence;
            for (const mcp_server& s : set->mcp_servers()) {
                const std::string prefix = s.function_prefix();
                if (s.tools.empty() || name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
                std::string names;
                for (const auto& tool : s.tools) names += (names.empty() ? "" : ", ") + s.function_name(tool);
                return sentence + " (MCP server '" + s.name + "' offers only the tools its 'tools' lists: " + names + ")";
            }
            return sentence;
        };
        for (std::size_t i = 0; i < t.messages().size(); ++i) {
            const request_params& p = t.messages()[i].params;
            if (p.functions)
                for (std::size_t k = 0; k < p.functions->size(); ++k)
                    if (!known((*p.functions)[k])) fail(offset(tn.messages[i].functions[k]), why("functions", (*p.functions)[k]));
            if (p.call_function && !p.call_function->empty() && *p.call_function != "*" && !known(*p.call_function))
                fail(offset(tn.messages[i].call_function), why("call_function", *p.call_function));
        }
    }

    std::shared_ptr<const std::string> source_;  // the text, shared by the origins of its templates
};

/// The text of a YAML file, at most `max_bytes + 1` bytes of it (the loader reports the limit).
inline std::string read_yaml_file(const std::filesystem::path& path, std::size_t max_bytes) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw yaml_error(errc::invalid_argument, "cannot open the file", {path.string(), 0, 0}, {});
    std::string text;
    char buf[65536];
    while (in && text.size() <= max_bytes) {
        in.read(buf, sizeof buf);
        text.append(buf, static_cast<std::size_t>(in.gcount()));
    }
    if (in.bad()) throw yaml_error(errc::invalid_argument, "cannot read the file", {path.string(), 0, 0}, {});
    if (text.size() > max_bytes + 1) text.resize(max_bytes + 1);
    return text;
}

}  // namespace detail

inline template_set load_template_set(std::string_view yaml_text, std::string file_name, const yaml_options& options) {
    return detail::yaml_reader(yaml_text, std::move(file_name), options).read_set();
}

inline template_set load_template_set_file(const std::filesystem::path& path, const yaml_options& options) {
    const std::string text = detail::read_yaml_file(path, options.limits.max_bytes);
    return load_template_set(text, path.string(), options);
}

inline conversation_template load_template(std::string_view yaml_text, std::string name, std::string file_name,
                                           const yaml_options& options) {
    return detail::yaml_reader(yaml_text, std::move(file_name), options).read_single(std::move(name));
}

inline conversation_template load_template_file(const std::filesystem::path& path, std::string name,
                                                const yaml_options& options) {
    const std::string text = detail::read_yaml_file(path, options.limits.max_bytes);
    if (name.empty()) name = path.stem().string();
    return load_template(text, std::move(name), path.string(), options);
}

inline template_set load_templates(std::string_view yaml_text, std::string single_name, std::string file_name,
                                   const yaml_options& options) {
    return detail::yaml_reader(yaml_text, std::move(file_name), options).read_any(std::move(single_name));
}

inline template_set load_templates_file(const std::filesystem::path& path, const yaml_options& options) {
    const std::string text = detail::read_yaml_file(path, options.limits.max_bytes);
    return load_templates(text, path.stem().string(), path.string(), options);
}

inline void load_functions(std::string_view yaml_text, template_set& set, std::string file_name, const yaml_options& options) {
    detail::yaml_reader(yaml_text, std::move(file_name), options).read_functions_into(set);
}

inline void load_functions_file(const std::filesystem::path& path, template_set& set, const yaml_options& options) {
    const std::string text = detail::read_yaml_file(path, options.limits.max_bytes);
    load_functions(text, set, path.string(), options);
}

}  // namespace parley

#endif
