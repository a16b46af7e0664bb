// What the commands of the parley program share: reading options, files, JSON data, histories
// and the template a command runs.
#ifndef PARLEY_TOOLS_CLI_OPTIONS_HPP
#define PARLEY_TOOLS_CLI_OPTIONS_HPP

#include <parley/chat/history_file.hpp>
#include <parley/chat/json.hpp>
#include <parley/chat/template_set.hpp>
#include <parley/chat/yaml.hpp>
#include <parley/error.hpp>
#include <parley/schema/json_text.hpp>

#include <boost/json/value.hpp>

#include <cstddef>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley_cli {

/// A command line that does not fit the command's synopsis (exit status 2).
class usage_error : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

/// The options of a command: `--name VALUE` options and flags.
class option_list {
public:
    /// `--name VALUE` (or `--name=VALUE`) fills `slot`.
    option_list& value(std::string name, std::optional<std::string>& slot) {
        values_.emplace_back(std::move(name), &slot);
        return *this;
    }
    /// `--name VALUE` (or `--name=VALUE`), repeatable: each value is appended to `slot`.
    option_list& values(std::string name, std::vector<std::string>& slot) {
        lists_.emplace_back(std::move(name), &slot);
        return *this;
    }
    /// `--name` sets `slot`.
    option_list& flag(std::string name, bool& slot) {
        flags_.emplace_back(std::move(name), &slot);
        return *this;
    }

    /// Reads `args`, filling the slots, and returns the other words (after `--`, every word is
    /// one). Returns nothing for `-h` or `--help`. Throws usage_error for an unknown option or an
    /// option without its value.
    std::optional<std::vector<std::string>> parse(const std::vector<std::string>& args) const {
        std::vector<std::string> words;
        for (std::size_t i = 0; i < args.size(); ++i) {
            const std::string& a = args[i];
            if (a == "--") {
                words.insert(words.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
                break;
            }
            if (a == "-h" || a == "--help") return std::nullopt;
            if (a.size() < 2 || a[0] != '-') {
                words.push_back(a);
                continue;
            }
            const std::size_t eq = a.find('=');
            const std::string name = a.substr(0, eq);
            bool known = false;
            for (const auto& [n, slot] : values_)
                if (n == name) {
                    if (eq != std::string::npos) *slot = a.substr(eq + 1);
                    else if (i + 1 < args.size()) *slot = args[++i];
                    else throw usage_error(a + " needs a value");
                    known = true;
                }
            for (const auto& [n, slot] : lists_)
                if (n == name) {
                    if (eq != std::string::npos) slot->push_back(a.substr(eq + 1));
                    else if (i + 1 < args.size()) slot->push_back(args[++i]);
                    else throw usage_error(a + " needs a value");
                    known = true;
                }
            for (const auto& [n, slot] : flags_)
                if (n == a) *slot = known = true;
            if (!known) throw usage_error("unknown option " + a);
        }
        return words;
    }

private:
    std::vector<std::pair<std::string, std::optional<std::string>*>> values_;
    std::vector<std::pair<std::string, std::vector<std::string>*>> lists_;
    std::vector<std::pair<std::string, bool*>> flags_;
};

/// The bytes of a file; throws std::runtime_error when it cannot be read.
inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// A JSON file's value; throws std::runtime_error naming the file and the place of a syntax error
/// (`data.json: not valid JSON: expected valid JSON, found "}" at line 2, column 1, offset 12 ...`).
inline boost::json::value read_json(const std::string& path) {
    const std::string text = read_text(path);
    parley::detail::json_text::attempt a = parley::detail::json_text::parse_at(text, 0, text.size(), {}, true);
    if (a.error) throw std::runtime_error(path + ": not valid JSON: " + a.error->message());
    return std::move(*a.value);
}

/// The text of `--data VALUE`: inline JSON when its first character other than white space is
/// `{`, else the name of a file that holds a JSON object. Throws usage_error for inline JSON
/// that does not parse or is not an object, std::runtime_error for a file.
inline boost::json::value data_option(const std::string& value) {
    const std::size_t first = value.find_first_not_of(" \t\r\n");
    if (first == std::string::npos || value[first] != '{') {
        boost::json::value data = read_json(value);
        if (!data.is_object()) throw std::runtime_error(value + ": the data must be a JSON object");
        return data;
    }
    parley::detail::json_text::attempt a = parley::detail::json_text::parse_at(value, 0, value.size(), {}, true);
    if (a.error) throw usage_error("--data: not valid JSON: " + a.error->message());
    return std::move(*a.value);
}

/// Applies `--set KEY=VALUE` to `data` (an object): KEY's dots make nested objects (`a.b=1`
/// gives {"a": {"b": 1}}, keeping the other members of "a"); VALUE is JSON when it parses as
/// JSON, else the string as given. Throws usage_error for a word without `=`, an empty key or key
/// part, or a key that goes through a member that is not an object.
inline void apply_set(boost::json::value& data, const std::string& word) {
    const std::size_t eq = word.find('=');
    if (eq == std::string::npos) throw usage_error("--set expects KEY=VALUE, found '" + word + "'");
    const std::string key = word.substr(0, eq), text = word.substr(eq + 1);
    std::vector<std::string> parts;
    for (std::size_t from = 0;;) {
        const std::size_t dot = key.find('.', from);
        parts.push_back(key.substr(from, dot == std::string::npos ? std::string::npos : dot - from));
        if (parts.back().empty())
            throw usage_error("--set " + word + ": " + (key.empty() ? std::string("the key is empty") : "an empty part in the key '" + key + "'"));
        if (dot == std::string::npos) break;
        from = dot + 1;
    }
    boost::json::value value;
    parley::detail::json_text::attempt a = parley::detail::json_text::parse_at(text, 0, text.size(), {}, true);
    if (a.error) value = boost::json::string(text);
    else value = std::move(*a.value);
    boost::json::object* at = &data.as_object();
    std::string path;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
        path += (i ? "." : "") + parts[i];
        auto it = at->find(parts[i]);
        if (it == at->end()) it = at->emplace(parts[i], boost::json::object()).first;
        boost::json::value& next = it->value();
        if (!next.is_object()) {
            static constexpr const char* kinds[] = {"null", "a boolean", "an integer", "an integer", "a number", "a string", "an array", "an object"};
            throw usage_error("--set " + word + ": '" + path + "' is " + kinds[static_cast<int>(next.kind())] +
                              ", not an object, so it has no member '" + parts[i + 1] + "'");
        }
        at = &next.as_object();
    }
    (*at)[parts.back()] = std::move(value);
}

/// The data texts are rendered with: `--data` (a JSON object, inline or from a file; {} without
/// it), then each `--set` in order.
inline boost::json::value read_data(const std::optional<std::string>& data, const std::vector<std::string>& sets = {}) {
    boost::json::value v = data ? data_option(*data) : boost::json::value(boost::json::object());
    for (const auto& s : sets) apply_set(v, s);
    return v;
}

/// The conversation of a history file (a JSON array of messages, parley::load_history); a
/// missing file is an empty conversation when `missing_is_empty`.
inline std::vector<parley::message> read_history(const std::string& file, bool missing_is_empty = false) {
    parley::history_file_options options;
    options.missing_is_empty = missing_is_empty;
    return parley::load_history(file, options);
}

/// The templates of `file` (a template set, or a single template named after the file's stem)
/// with the definitions of `functions_file` added (a list of function definitions, YAML or
/// JSON). `external` names functions the program defines itself; with `check`, every function a
/// request names must be one of the file's, of `functions_file`'s or of `external`. `added`, when
/// given, receives the names `functions_file` defines.
inline parley::template_set load_templates(const std::string& file, const std::optional<std::string>& functions_file,
                                           std::vector<std::string> external, bool check = true,
                                           std::vector<std::string>* added = nullptr) {
    parley::yaml_options options;
    options.check_functions = check;
    if (functions_file) {
        // read once for the names the templates' requests may use, then again into the set,
        // where a name the set already defines is reported at its place in the file
        parley::template_set extra;
        parley::load_functions_file(*functions_file, extra, options);
        for (const auto& f : extra.functions()) {
            external.push_back(f.name);
            if (added) added->push_back(f.name);
        }
    }
    options.external_functions = std::move(external);
    // a single template's names are checked only when some are known besides the file's
    if (check && options.external_functions.empty()) options.external_functions.emplace_back();
    parley::template_set set = parley::load_templates_file(file, options);
    if (functions_file) parley::load_functions_file(*functions_file, set, options);
    return set;
}

/// The template `name` of `set`, or its only template when `name` is not given. Throws
/// parley::error (`no template named 'x' (the set has: a, b)`) for an unknown name, and
/// std::runtime_error listing the names when the set has several and `name` is not given.
inline const parley::conversation_template& select_template(const parley::template_set& set,
                                                            const std::optional<std::string>& name,
                                                            const std::string& file) {
    if (name) return set.at(*name);
    if (set.templates().size() == 1) return set.templates().front();
    std::string names;
    for (const auto& each : set.templates()) names += (names.empty() ? "" : ", ") + each.name();
    throw std::runtime_error(file + " has " + std::to_string(set.templates().size()) +
                             " templates: choose one with --template NAME (" + names + ")");
}

}  // namespace parley_cli

#endif
