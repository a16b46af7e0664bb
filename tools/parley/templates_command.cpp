// `parley templates`: the templates of YAML files listed, searched and shown (docs/cli.md).
#include "cli_options.hpp"
#include "commands.hpp"

#include <parley/chat/yaml.hpp>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley_cli {

const char* const templates_usage =
    "usage: parley templates list FILE...\n"
    "       parley templates search WORDS FILE...\n"
    "       parley templates show NAME FILE...\n"
    "\n"
    "Lists, searches and shows the templates of YAML files (template sets, or single templates\n"
    "named after their files).\n"
    "  list     one line per template: its name, its file, and its description (else the first\n"
    "           line of its system prompt, else of its first text)\n"
    "  search   the templates whose name, description or texts contain every word of WORDS\n"
    "           (one argument; case is ignored), listed as by list\n"
    "  show     the template NAME as YAML (the file format of a single template)\n";

namespace {

/// A template and the file it was read from.
struct found_template {
    const parley::conversation_template* t;
    const std::string* file;
};

/// Lowercase ASCII letters; other bytes as they are.
std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

/// The texts of a template as written: each string content and text part.
std::vector<std::string_view> texts_of(const parley::conversation_template& t) {
    std::vector<std::string_view> out;
    for (const auto& m : t.messages()) {
        if (const auto* s = std::get_if<std::string>(&m.content)) out.emplace_back(*s);
        else if (m.has_parts())
            for (const auto& p : m.parts())
                if (p.type == parley::content_part::kind::text) out.emplace_back(p.text);
    }
    return out;
}

/// The first line of `text` that is not blank, without the white space around it.
std::string_view first_line(std::string_view text) {
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front()))) line.remove_prefix(1);
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.remove_suffix(1);
        if (!line.empty()) return line;
        if (nl == std::string_view::npos) break;
        text.remove_prefix(nl + 1);
    }
    return {};
}

/// What `list` says about a template: its description, else the first line of its first system
/// message's text, else of its first text; at most 100 characters.
std::string summary_of(const parley::conversation_template& t) {
    std::string_view s = first_line(t.info().description);
    for (const auto& m : t.messages()) {
        if (!s.empty()) break;
        if (m.role != parley::role::system) continue;
        if (const auto* c = std::get_if<std::string>(&m.content)) s = first_line(*c);
        else if (m.has_parts())
            for (const auto& p : m.parts())
                if (s.empty() && p.type == parley::content_part::kind::text) s = first_line(p.text);
    }
    for (std::string_view text : texts_of(t))
        if (s.empty()) s = first_line(text);
    std::size_t chars = 0, cut = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
        if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && ++chars == 98) cut = i;
    if (chars > 100) return std::string(s.substr(0, cut)) + "...";
    return std::string(s);
}

/// Code points in `s`, for aligning columns.
std::size_t width(std::string_view s) {
    return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

/// One line per template, in columns: name, file, summary.
void print_list(const std::vector<found_template>& list) {
    std::size_t name_width = 0, file_width = 0;
    for (const auto& f : list) {
        name_width = std::max(name_width, width(f.t->name()));
        file_width = std::max(file_width, width(*f.file));
    }
    for (const auto& f : list) {
        std::string line = f.t->name() + std::string(name_width - width(f.t->name()) + 2, ' ') + *f.file;
        const std::string summary = summary_of(*f.t);
        if (!summary.empty()) line += std::string(file_width - width(*f.file) + 2, ' ') + summary;
        std::cout << line << '\n';
    }
}

/// Whether every word of `words` is in the template's name, description or texts, ignoring
/// ASCII case.
bool matches(const parley::conversation_template& t, const std::vector<std::string>& words) {
    std::string all = lower(t.name()) + '\n' + lower(t.info().description);
    for (std::string_view text : texts_of(t)) all += '\n' + lower(text);
    return std::all_of(words.begin(), words.end(), [&](const std::string& w) { return all.find(w) != std::string::npos; });
}

}  // namespace

int templates_main(const std::vector<std::string>& args) {
    std::vector<std::string> words;
    try {
        auto parsed = option_list().parse(args);
        if (!parsed) {
            std::cout << templates_usage;
            return 0;
        }
        words = std::move(*parsed);
        if (words.empty()) throw usage_error("give list, search or show");
        const std::string& what = words[0];
        if (what != "list" && what != "search" && what != "show")
            throw usage_error("unknown templates command '" + what + "' (expected list, search or show)");
        const std::size_t first_file = what == "list" ? 1 : 2;
        if (words.size() <= first_file)
            throw usage_error(what == "list" ? "give the YAML files" : what == "search" ? "give WORDS and the YAML files"
                                                                                       : "give NAME and the YAML files");
    } catch (const usage_error& e) {
        std::cerr << "error: " << e.what() << "\n" << templates_usage;
        return 2;
    }
    const std::string& what = words[0];
    const std::size_t first_file = what == "list" ? 1 : 2;
    try {
        std::vector<std::string> files(words.begin() + static_cast<std::ptrdiff_t>(first_file), words.end());
        std::vector<parley::template_set> sets;
        parley::yaml_options options;
        options.check_functions = false;  // the functions a template calls may be defined elsewhere
        for (const auto& file : files) sets.push_back(parley::load_templates_file(file, options));
        std::vector<found_template> all;
        for (std::size_t i = 0; i < sets.size(); ++i)
            for (const auto& t : sets[i].templates()) all.push_back({&t, &files[i]});

        if (what == "list") {
            print_list(all);
            return 0;
        }
        if (what == "search") {
            std::vector<std::string> terms;
            const std::string text = lower(words[1]);
            for (std::size_t i = 0; i < text.size();) {
                const std::size_t end = text.find_first_of(" \t\r\n", i);
                if (end != i) terms.push_back(text.substr(i, end - i));
                if (end == std::string::npos) break;
                i = end + 1;
            }
            std::vector<found_template> hits;
            for (const auto& f : all)
                if (matches(*f.t, terms)) hits.push_back(f);
            if (hits.empty()) std::cerr << "parley: no template matches '" << words[1] << "'\n";
            print_list(hits);
            return 0;
        }
        // show
        std::vector<found_template> named;
        for (const auto& f : all)
            if (f.t->name() == words[1]) named.push_back(f);
        if (named.empty()) {
            std::string names;
            for (const auto& f : all) names += (names.empty() ? "" : ", ") + f.t->name();
            throw std::runtime_error("no template named '" + words[1] + "' (the files have: " +
                                     (names.empty() ? std::string("none") : names) + ")");
        }
        if (named.size() > 1) {
            std::string list;
            for (const auto& f : named) list += (list.empty() ? "" : ", ") + *f.file;
            throw std::runtime_error("template '" + words[1] + "' is in several files (" + list +
                                     "): give only the file you mean");
        }
        std::cout << "# " << named[0].t->name() << " from " << *named[0].file << '\n' << parley::dump_yaml(*named[0].t);
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}

}  // namespace parley_cli
