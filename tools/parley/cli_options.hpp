// What the commands of the parley program share: reading options, files, JSON data, histories
// and the template a command runs.
#ifndef PARLEY_TOOLS_CLI_OPTIONS_HPP
#define PARLEY_TOOLS_CLI_OPTIONS_HPP

#include <parley/chat/json.hpp>
#include <parley/chat/template_set.hpp>
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
            for (const auto& [n, slot] : flags_)
                if (n == a) *slot = known = true;
            if (!known) throw usage_error("unknown option " + a);
        }
        return words;
    }

private:
    std::vector<std::pair<std::string, std::optional<std::string>*>> values_;
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

/// The data texts are rendered with: the JSON object of `file`, or {} without one.
inline boost::json::value read_data(const std::optional<std::string>& file) {
    if (!file) return boost::json::object();
    boost::json::value data = read_json(*file);
    if (!data.is_object()) throw std::runtime_error(*file + ": the data must be a JSON object");
    return data;
}

/// The conversation of a history file (a JSON array of messages, parley::conversation_from_json).
inline std::vector<parley::message> read_history(const std::string& file) {
    const boost::json::value v = read_json(file);
    try {
        return parley::conversation_from_json(v);
    } catch (const parley::error& e) {
        throw std::runtime_error(file + ": " + e.what());
    }
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
