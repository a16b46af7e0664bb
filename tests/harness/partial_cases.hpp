// The documents and C++ types on which partial values are checked at every byte (tests/schema/
// partial_test.cpp, the reader; tests/bot/calls_test.cpp, extract<T> streaming), and what the
// independent Python reference (tests/harness/partial_reference.py) says each prefix of each
// document gives. Each type comes with its description for the reference (the members, their
// types and defaults), written by hand from the struct.
#ifndef PARLEY_TESTS_HARNESS_PARTIAL_CASES_HPP
#define PARLEY_TESTS_HARNESS_PARTIAL_CASES_HPP

#include "subprocess.hpp"

#include <parley/schema/partial.hpp>
#include <parley/schema/to_json.hpp>

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace partial_cases {

enum class ticket_kind { bug, feature, question, other };
BOOST_DESCRIBE_ENUM(ticket_kind, bug, feature, question, other)

struct person {
    std::string name;
    std::optional<std::string> email;
};
BOOST_DESCRIBE_STRUCT(person, (), (name, email))

/// Enums, a nested optional struct, strings with escapes, booleans, null.
struct ticket {
    std::string title;
    ticket_kind kind = ticket_kind::other;
    int ref = 0;
    std::vector<std::string> labels;
    std::optional<person> assignee;
    bool urgent = false;
};
BOOST_DESCRIBE_STRUCT(ticket, (), (title, kind, ref, labels, assignee, urgent))

struct ingredient {
    std::string name;
    int grams = 0;
};
BOOST_DESCRIBE_STRUCT(ingredient, (), (name, grams))

/// Arrays of structs, an optional number, members the type does not have.
struct recipe {
    std::string title;
    std::vector<ingredient> ingredients;
    std::vector<std::string> steps;
    std::optional<int> minutes;
    double rating = 0;
};
BOOST_DESCRIBE_STRUCT(recipe, (), (title, ingredients, steps, minutes, rating))

/// Escapes, \u escapes with surrogate pairs, raw UTF-8.
struct text_sample {
    std::string plain;
    std::string escapes;
    std::string unicode;
    std::vector<std::string> pieces;
};
BOOST_DESCRIBE_STRUCT(text_sample, (), (plain, escapes, unicode, pieces))

/// Numbers of every form.
struct measurements {
    int count = 0;
    std::int64_t big = 0;
    int negative = 0;
    double ratio = 0;
    double exponent = 0;
    double tiny = 0;
    std::vector<double> values;
    std::vector<int> ints;
    int zero = 1;
};
BOOST_DESCRIBE_STRUCT(measurements, (), (count, big, negative, ratio, exponent, tiny, values, ints, zero))

/// Booleans, null and optionals.
struct switches {
    bool on = false;
    bool off = true;
    std::optional<bool> maybe;
    std::optional<int> count;
    std::monostate nothing;
    std::optional<std::string> note;
};
BOOST_DESCRIBE_STRUCT(switches, (), (on, off, maybe, count, nothing, note))

/// Maps (names that need escaping in JSON pointers) and any JSON.
struct settings {
    std::map<std::string, int> limits;
    boost::json::value extra;
    std::map<std::string, std::vector<ingredient>> groups;
};
BOOST_DESCRIBE_STRUCT(settings, (), (limits, extra, groups))

/// A type, its description for the reference, and its documents.
template <class T>
struct cases_of;

template <>
struct cases_of<ticket> {
    static constexpr std::string_view name = "ticket";
    static constexpr std::string_view spec = R"({"t": "object", "members": [
        ["title", {"t": "string"}],
        ["kind", {"t": "enum", "names": ["bug", "feature", "question", "other"]}, "other"],
        ["ref", {"t": "int"}],
        ["labels", {"t": "array", "of": {"t": "string"}}],
        ["assignee", {"t": "optional", "of": {"t": "object", "members": [
            ["name", {"t": "string"}], ["email", {"t": "optional", "of": {"t": "string"}}]]}}],
        ["urgent", {"t": "bool"}]]})";
    static std::vector<std::string> documents() {
        return {
            R"({"title": "Crash on \"save\"", "kind": "bug", "ref": 4711, "labels": ["ui", "data-loss"], "assignee": {"name": "Zo\u00eb", "email": null}, "urgent": true})",
            "{\n  \"kind\": \"question\",\n  \"title\": \"Why?\",\n  \"assignee\": null,\n  \"labels\": [],\n  \"ref\": 7\n}\n",
            R"({"kind":"feature","assignee":{"email":"ana@example.com","name":"Ana"},"urgent":false,"ref":0,"labels":["a","b","c"]})",
        };
    }
};

template <>
struct cases_of<recipe> {
    static constexpr std::string_view name = "recipe";
    static constexpr std::string_view spec = R"({"t": "object", "members": [
        ["title", {"t": "string"}],
        ["ingredients", {"t": "array", "of": {"t": "object", "members": [["name", {"t": "string"}], ["grams", {"t": "int"}]]}}],
        ["steps", {"t": "array", "of": {"t": "string"}}],
        ["minutes", {"t": "optional", "of": {"t": "int"}}],
        ["rating", {"t": "number"}]]})";
    static std::vector<std::string> documents() {
        return {
            "{\"title\": \"Cr\xC3\xAApes\", \"ingredients\": [{\"name\": \"flour\", \"grams\": 250}, {\"name\": \"milk\", "
            "\"grams\": 500}, {\"name\": \"eggs\", \"grams\": 120}], \"steps\": [\"Mix.\", \"Rest 30 min.\\nThen cook.\"], "
            "\"minutes\": 45, \"rating\": 4.5}",
            R"({"source": {"book": ["p", 12]}, "title": "Tea", "ingredients": [{"brand": "X", "name": "tea", "grams": 2, "origin": {"c": "in"}}], "rating": 5, "steps": []})",
        };
    }
};

template <>
struct cases_of<text_sample> {
    static constexpr std::string_view name = "text_sample";
    static constexpr std::string_view spec = R"({"t": "object", "members": [
        ["plain", {"t": "string"}], ["escapes", {"t": "string"}], ["unicode", {"t": "string"}],
        ["pieces", {"t": "array", "of": {"t": "string"}}]]})";
    static std::vector<std::string> documents() {
        return {
            R"({"plain": "hello world", "escapes": "quote \" backslash \\ slash \/ tab \t nl \n cr \r bs \b ff \f end", )"
            R"("unicode": "caf\u00e9 \u20AC \ud83d\ude00 \uD834\uDD1E raw )"
            "\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80\", "
            R"("pieces": ["\u0041", "\ud83d\ude00\ud83d\ude01", "", "\\u0041"]})",
        };
    }
};

template <>
struct cases_of<measurements> {
    static constexpr std::string_view name = "measurements";
    static constexpr std::string_view spec = R"({"t": "object", "members": [
        ["count", {"t": "int"}], ["big", {"t": "int"}], ["negative", {"t": "int"}], ["ratio", {"t": "number"}],
        ["exponent", {"t": "number"}], ["tiny", {"t": "number"}], ["values", {"t": "array", "of": {"t": "number"}}],
        ["ints", {"t": "array", "of": {"t": "int"}}], ["zero", {"t": "int"}, 1]]})";
    static std::vector<std::string> documents() {
        return {
            R"({"count": 7, "big": 1234567890123, "negative": -42, "ratio": 0.125, "exponent": 1.5E+3, "tiny": -2.5e-3, )"
            R"("values": [1, -0.5, 10.25, 3e2, 0], "ints": [0, 10, -7, 100, 2e1], "zero": -0})",
        };
    }
};

template <>
struct cases_of<switches> {
    static constexpr std::string_view name = "switches";
    static constexpr std::string_view spec = R"({"t": "object", "members": [
        ["on", {"t": "bool"}], ["off", {"t": "bool"}, true], ["maybe", {"t": "optional", "of": {"t": "bool"}}],
        ["count", {"t": "optional", "of": {"t": "int"}}], ["nothing", {"t": "null"}],
        ["note", {"t": "optional", "of": {"t": "string"}}]]})";
    static std::vector<std::string> documents() {
        return {
            R"({"on": true, "off": false, "maybe": null, "count": null, "nothing": null, "note": "n"})",
            R"({"maybe":false,"count":12,"on":false,"off":true})",
        };
    }
};

template <>
struct cases_of<settings> {
    static constexpr std::string_view name = "settings";
    static constexpr std::string_view spec = R"({"t": "object", "members": [
        ["limits", {"t": "map", "of": {"t": "int"}}], ["extra", {"t": "any"}],
        ["groups", {"t": "map", "of": {"t": "array", "of": {"t": "object", "members": [["name", {"t": "string"}], ["grams", {"t": "int"}]]}}}]]})";
    static std::vector<std::string> documents() {
        return {
            "{\"limits\": {\"a/b\": 1, \"t~x\": 2, \"quo\\\"te\": 3, \"\xC3\xBCn\xC3\xAF\": 40}, "
            "\"extra\": {\"any\": [1, \"two\", {\"three\": 3.0}, null, true], \"e\": {}}, "
            "\"groups\": {\"base\": [{\"name\": \"salt\", \"grams\": 5}], \"\": []}}",
        };
    }
};

/// A top-level array.
template <>
struct cases_of<std::vector<ingredient>> {
    static constexpr std::string_view name = "ingredients";
    static constexpr std::string_view spec =
        R"({"t": "array", "of": {"t": "object", "members": [["name", {"t": "string"}], ["grams", {"t": "int"}]]}})";
    static std::vector<std::string> documents() {
        return {R"(  [{"name": "a", "grams": 1}, {"grams": 22, "name": "bee"}, {}]  )"};
    }
};

/// What the reference says one prefix gives.
struct expected {
    enum class kind { nothing, fails, value } what = kind::nothing;
    boost::json::value value;  ///< to_json of the value read so far
    boost::json::array states;  ///< [[pointer, state], ...]
};

/// The reference's entries, one per prefix length, for the document `index` of T.
template <class T>
std::string case_name(std::size_t index) {
    return std::string(cases_of<T>::name) + "#" + std::to_string(index);
}

/// Runs the reference on every document of the types Ts (once per process); the entries by case name.
template <class... Ts>
const std::map<std::string, std::vector<expected>>& reference() {
    static const std::map<std::string, std::vector<expected>> table = [] {
        std::map<std::string, std::vector<expected>> out;
        boost::json::array cases;
        auto add = [&]<class T>(T*) {
            const boost::json::value spec = boost::json::parse(cases_of<T>::spec);
            const auto docs = cases_of<T>::documents();
            for (std::size_t i = 0; i < docs.size(); ++i)
                cases.push_back(boost::json::object{{"name", case_name<T>(i)}, {"spec", spec}, {"document", docs[i]}});
        };
        (add(static_cast<Ts*>(nullptr)), ...);
        const auto in = subprocess::temp_path("partial-in.json");
        const auto result = subprocess::temp_path("partial-out.json");
        {
            std::ofstream f(in, std::ios::binary);
            f << boost::json::serialize(boost::json::object{{"cases", std::move(cases)}});
        }
        const bool ran = subprocess::run_python("partial_reference.py", {in.string(), result.string()});
        std::filesystem::remove(in);
        if (!ran) return out;
        std::stringstream text;
        {
            std::ifstream f(result, std::ios::binary);
            text << f.rdbuf();
        }
        std::filesystem::remove(result);
        const boost::json::value parsed = boost::json::parse(text.str());
        for (const auto& [name, entries] : parsed.as_object()) {
            std::vector<expected>& list = out[std::string(name)];
            for (const boost::json::value& e : entries.as_array()) {
                expected x;
                if (e.is_string()) {
                    x.what = e.as_string() == "nothing" ? expected::kind::nothing : expected::kind::fails;
                } else {
                    x.what = expected::kind::value;
                    x.value = e.at("value");
                    x.states = e.at("states").as_array();
                }
                list.push_back(std::move(x));
            }
        }
        return out;
    }();
    return table;
}

/// The types checked, in one list for reference<>().
#define PARLEY_PARTIAL_CASE_TYPES                                                                        \
    partial_cases::ticket, partial_cases::recipe, partial_cases::text_sample, partial_cases::measurements, \
        partial_cases::switches, partial_cases::settings, std::vector<partial_cases::ingredient>

/// The states of a partial value in the reference's form.
inline boost::json::array states_json(const parley::arrival_node& p) {
    boost::json::array out;
    for (const auto& [pointer, state] : p.states()) out.push_back(boost::json::array{boost::json::string(pointer), boost::json::string(parley::to_string(state))});
    return out;
}

/// Whether the states of `later` follow on from those of `earlier`: every value that had
/// arrived is still there, never in an earlier state.
inline bool follows(const parley::arrival_node& earlier, const parley::arrival_node& later, std::string& why) {
    for (const auto& [pointer, state] : earlier.states()) {
        const parley::arrival now = later.at_pointer(pointer).state();
        if (now < state) {
            why = pointer + ": " + std::string(parley::to_string(state)) + " then " + std::string(parley::to_string(now));
            return false;
        }
    }
    return true;
}

}  // namespace partial_cases

#endif
