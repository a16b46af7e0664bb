// parley/chat/yaml.hpp: conversation templates and template sets as YAML files (read with
// yaml-cpp 0.7; link parley::yaml). The format is described in docs/yaml-format.md.
#ifndef PARLEY_CHAT_YAML_HPP
#define PARLEY_CHAT_YAML_HPP

#include <parley/chat/conversation_template.hpp>
#include <parley/chat/template_set.hpp>
#include <parley/error.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace parley {

/// Bounds for YAML files that come from outside. Going past one is a yaml_error
/// (errc::template_limit) located where the limit was reached.
struct yaml_limits {
    std::size_t max_bytes = std::size_t(1) << 20;  ///< size of the text
    std::size_t max_depth = 64;  ///< maps and lists nested in each other
    std::size_t max_values = 200'000;  ///< maps, lists and scalars read (an alias counts at every use)
    std::size_t max_templates = 1'000;  ///< templates in a set
    std::size_t max_messages = 1'000;  ///< messages in a template
    std::size_t max_functions = 1'000;  ///< function definitions in a set
    std::size_t max_mcp_servers = 100;  ///< MCP servers a set declares
};

/// How YAML files are read.
struct yaml_options {
    /// Parses the texts of the messages (Python Jinja2's defaults unless set otherwise).
    jinja::environment environment = conversation_template::default_environment();
    /// Functions defined outside the file (such as C++ functions registered with a bot) that
    /// requests may name besides the functions of the set.
    std::vector<std::string> external_functions;
    /// Whether the function names of requests (`functions`, `call_function`) must be defined. In
    /// a set they must be in its `functions` section or in `external_functions`; a single
    /// template's file has no functions section, so there they are checked only when
    /// `external_functions` is not empty.
    bool check_functions = true;
    yaml_limits limits{};
};

/// An error in a YAML file: syntax (errc::yaml_syntax), a broken rule of the chat model or a
/// value of the wrong type (errc::chat_invalid), a limit (errc::template_limit), a file that
/// cannot be read (errc::invalid_argument, without a line). `what()` reads
/// `file:line:col: message`, then the line and a caret. The errors of a message's text as a
/// template are template_errors, located in the YAML file in the same way.
class yaml_error : public located_error {
public:
    using located_error::located_error;
};

/// Reads a template set: `templates: {NAME: {description, version, variables, messages}}`,
/// `functions: [{name, description, parameters, command, timeout}]` and `mcp_servers: {NAME:
/// {command, args, env, cwd | url, headers; tools, prefix, timeout}}`. `file_name` names the text
/// in errors.
/// Throws yaml_error or template_error (see docs/yaml-format.md for every rule).
template_set load_template_set(std::string_view yaml_text, std::string file_name, const yaml_options& options);

/// As above, with the texts parsed by `env` and the other options at their defaults.
inline template_set load_template_set(std::string_view yaml_text, std::string file_name = "<yaml>",
                                      const jinja::environment& env = conversation_template::default_environment()) {
    yaml_options options;
    options.environment = env;
    return load_template_set(yaml_text, std::move(file_name), options);
}

/// Reads a template set from a file (errors name the file as given).
template_set load_template_set_file(const std::filesystem::path& path, const yaml_options& options);

/// As above, with the texts parsed by `env`.
inline template_set load_template_set_file(const std::filesystem::path& path,
                                           const jinja::environment& env = conversation_template::default_environment()) {
    yaml_options options;
    options.environment = env;
    return load_template_set_file(path, options);
}

/// Reads one template: a list of messages (AIChatFlow's file format), or a map with
/// `messages` and the optional `description`, `version` and `variables`. Throws as
/// load_template_set.
conversation_template load_template(std::string_view yaml_text, std::string name, std::string file_name = "<yaml>",
                                    const yaml_options& options = {});

/// Reads one template from a file; its name is `name`, or the file's stem when `name` is empty.
conversation_template load_template_file(const std::filesystem::path& path, std::string name = {},
                                         const yaml_options& options = {});

/// Reads a file's templates whatever its shape: a template set (as load_template_set), or a
/// single template (a list of messages, or a map with `messages` and without `templates` and
/// `functions`, as load_template), which becomes a set of that one template named
/// `single_name`. Throws as load_template_set.
template_set load_templates(std::string_view yaml_text, std::string single_name, std::string file_name = "<yaml>",
                            const yaml_options& options = {});

/// As above, from a file; a single template is named after the file's stem (`look_up.yaml`:
/// `look_up`).
template_set load_templates_file(const std::filesystem::path& path, const yaml_options& options = {});

/// Reads a list of function definitions (YAML, or JSON, which YAML reads too), in the format of
/// a set's `functions` section (`name`, `description`, `parameters`, `command`, `timeout`), and
/// adds them to `set`. Throws yaml_error located in the text for a bad definition, and for a name
/// `set` already defines (`function 'f' is defined twice`).
void load_functions(std::string_view yaml_text, template_set& set, std::string file_name = "<yaml>",
                    const yaml_options& options = {});

/// As above, from a file.
void load_functions_file(const std::filesystem::path& path, template_set& set, const yaml_options& options = {});

/// Writes a template set in the format load_template_set reads; loading the text gives a set
/// equal to `set`. Multi-line texts are literal block scalars.
std::string dump_yaml(const template_set& set);

/// Writes one template in the format load_template reads (a list of messages, or a map when the
/// template has a description, version or variables); its name is not written.
std::string dump_yaml(const conversation_template& t);

}  // namespace parley

#include <parley/chat/impl/yaml_read.hpp>
#include <parley/chat/impl/yaml_write.hpp>

#endif
