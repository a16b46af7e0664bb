// Tests of the built-ins of parley/jinja/detail/builtins/ (with lipsum.hpp and urlize.hpp): what the
// differential cases cannot compare with Python Jinja2 because it is random (the structure of
// lipsum() text, the spread of `random`), and what needs a C++ environment (user filters and
// tests seen by `is filter` / `is test`, autoescaping environments).
#include <parley/jinja/detail/builtins.hpp>

#include <parley/jinja.hpp>

#include "../harness/subprocess.hpp"

#include <boost/json/object.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace pj = parley::jinja;
namespace pd = parley::jinja::detail;

std::string render_text(const pj::environment& env, std::string_view source) {
    return env.parse(source, "test").render(boost::json::object{});
}

std::vector<std::string> split(const std::string& s, std::string_view sep) {
    std::vector<std::string> parts;
    std::size_t b = 0;
    for (;;) {
        const std::size_t e = s.find(sep, b);
        parts.push_back(s.substr(b, e == std::string::npos ? std::string::npos : e - b));
        if (e == std::string::npos) return parts;
        b = e + sep.size();
    }
}

/// Jinja2's lorem ipsum words, in their order, as the reference Python's jinja2.constants has them.
const std::vector<std::string>& jinja2_lorem_words() {
    static const std::vector<std::string> words = [] {
        std::vector<std::string> list;
        const auto file = subprocess::temp_path("lorem-words.txt");
        if (subprocess::run_python("jinja_lorem_words.py", {file.string()})) {
            std::ifstream in(file);
            for (std::string w; std::getline(in, w);) list.push_back(w);
        }
        std::filesystem::remove(file);
        return list;
    }();
    return words;
}

bool is_lorem_word(std::string_view w) {
    const auto& words = jinja2_lorem_words();
    return std::find(words.begin(), words.end(), w) != words.end();
}

struct word_mark {
    std::string word;  // lower case, without punctuation
    bool capital = false;
    bool comma = false;
    bool period = false;
};

// Splits a paragraph into words and checks each is a list word, possibly capitalised, followed
// by nothing, ",", "." or ",.".
std::vector<word_mark> parse_paragraph(const std::string& p) {
    std::vector<word_mark> words;
    for (const auto& raw : split(p, " ")) {
        word_mark m;
        std::string w = raw;
        if (!w.empty() && w.back() == '.') {
            m.period = true;
            w.pop_back();
        }
        if (!w.empty() && w.back() == ',') {
            m.comma = true;
            w.pop_back();
        }
        REQUIRE_MESSAGE(!w.empty(), "empty word in: " << p);
        m.capital = w[0] >= 'A' && w[0] <= 'Z';
        if (m.capital) w[0] = static_cast<char>(w[0] - 'A' + 'a');
        CHECK_MESSAGE(is_lorem_word(w), "not a lorem ipsum word: " << raw);
        m.word = w;
        words.push_back(m);
    }
    return words;
}

}  // namespace

TEST_CASE("lipsum draws from Jinja2's words, in Jinja2's order") {
    const auto& reference = jinja2_lorem_words();
    REQUIRE(reference.size() > 100);
    const std::vector<std::string> ours(std::begin(pd::lorem_ipsum_words), std::end(pd::lorem_ipsum_words));
    CHECK(ours == reference);
}

TEST_CASE("lipsum paragraphs follow Jinja2's word, comma and sentence rules") {
    std::mt19937_64 rng(20240726);
    pd::lorem_ipsum_request r;
    r.paragraphs = 3000;
    const auto paragraphs = pd::lorem_ipsum_paragraphs(r, rng);
    REQUIRE(paragraphs.size() == 3000);
    std::set<std::size_t> lengths;
    bool comma_then_period = false;
    for (const auto& p : paragraphs) {
        REQUIRE(!p.empty());
        CHECK(p.back() == '.');
        CHECK(p.find("  ") == std::string::npos);
        const auto words = parse_paragraph(p);
        CHECK(words.size() >= 20);
        CHECK(words.size() <= 99);  // randrange(20, 100): the maximum is excluded
        lengths.insert(words.size());
        CHECK(words.front().capital);
        std::int64_t last_mark = 0;  // word index of the last comma or period (0 at the start)
        std::int64_t last_period = 0;
        for (std::size_t i = 0; i < words.size(); ++i) {
            const auto idx = static_cast<std::int64_t>(i);
            if (i) {
                CHECK_MESSAGE(words[i].word != words[i - 1].word, "repeated word in: " << p);
                CHECK(words[i].capital == words[i - 1].period);
            }
            if (i + 1 == words.size()) break;  // the last word's punctuation is the paragraph's end
            if (words[i].comma) {
                CHECK_MESSAGE(idx - last_mark >= 4, "comma too early in: " << p);
                CHECK_MESSAGE(idx - last_mark <= 8, "comma too late in: " << p);
            } else {
                CHECK_MESSAGE(idx - last_mark < 8, "missing comma in: " << p);
            }
            if (words[i].period) {
                CHECK_MESSAGE(idx - last_period >= 11, "sentence too short in: " << p);
                comma_then_period = comma_then_period || words[i].comma;
                last_period = idx;
            }
            if (words[i].comma || words[i].period) last_mark = idx;
        }
    }
    // both ends of the range occur in 3000 paragraphs (a miss has a probability below 1e-15)
    CHECK(lengths.count(20) == 1);
    CHECK(lengths.count(99) == 1);
    CHECK(lengths.count(100) == 0);
    CHECK(comma_then_period);  // Jinja2 lets a word end with ",." when both rules fire at once
}

TEST_CASE("lipsum paragraphs honour min and max, and refuse an empty range") {
    std::mt19937_64 rng(7);
    pd::lorem_ipsum_request r;
    r.paragraphs = 200;
    r.min_words = 3;
    r.max_words = 6;
    for (const auto& p : pd::lorem_ipsum_paragraphs(r, rng)) {
        const auto n = parse_paragraph(p).size();
        CHECK(n >= 3);
        CHECK(n <= 5);
    }
    r.paragraphs = 2;
    r.min_words = 0;
    r.max_words = 1;
    CHECK(pd::lorem_ipsum_paragraphs(r, rng) == std::vector<std::string>{".", "."});
    r.min_words = 5;
    r.max_words = 5;
    CHECK_THROWS_AS(pd::lorem_ipsum_paragraphs(r, rng), pd::eval_error);
    r.paragraphs = 0;
    CHECK(pd::lorem_ipsum_paragraphs(r, rng).empty());  // the range is only read per paragraph
    r.paragraphs = 1000000;
    r.min_words = 1000;
    r.max_words = 1001;
    r.max_size = 1 << 16;
    try {
        (void)pd::lorem_ipsum_paragraphs(r, rng);
        FAIL("no size limit error");
    } catch (const pd::eval_error& e) {
        CHECK(e.code == parley::errc::template_limit);
    }
}

TEST_CASE("lipsum() in templates: <p> wrapping, blank-line separation, Markup") {
    const auto env = pj::environment::plain();
    const std::string html = render_text(env, "{{ lipsum(4) }}");
    const auto lines = split(html, "\n");
    REQUIRE(lines.size() == 4);
    for (const auto& line : lines) {
        REQUIRE(line.size() > 8);
        CHECK(line.substr(0, 3) == "<p>");
        CHECK(line.substr(line.size() - 5) == ".</p>");
        const std::string inner = line.substr(3, line.size() - 7);
        CHECK(inner.find('<') == std::string::npos);
        const auto words = parse_paragraph(inner);
        CHECK(words.size() >= 20);
        CHECK(words.size() <= 99);
    }
    const std::string text = render_text(env, "{{ lipsum(3, false, min=10, max=12) }}");
    const auto paragraphs = split(text, "\n\n");
    REQUIRE(paragraphs.size() == 3);
    for (const auto& p : paragraphs) {
        CHECK(p.find('\n') == std::string::npos);
        const auto n = parse_paragraph(p).size();
        CHECK(n >= 10);
        CHECK(n <= 11);
    }
    CHECK(render_text(env, "{{ lipsum() is escaped }} {{ lipsum(html=false) is escaped }}") == "True False");
    // autoescaping keeps the Markup result as it is
    pj::options o;
    o.autoescape = true;
    const std::string escaped = render_text(pj::environment(o), "{{ lipsum(1) }}");
    CHECK(escaped.substr(0, 3) == "<p>");
    // the source is random: two default texts of 5 paragraphs are (almost surely) different
    CHECK(render_text(env, "{{ lipsum() }}") != render_text(env, "{{ lipsum() }}"));
}

TEST_CASE("random picks every item of a sequence over many renders") {
    const auto t = pj::environment::plain().parse("{{ [1, 2, 3]|random }}{{ 'ab'|random }}", "random");
    std::set<std::string> seen;
    for (int i = 0; i < 300; ++i) seen.insert(t.render(boost::json::object{}));
    // 6 combinations; missing one of them in 300 draws has a probability below 1e-20
    CHECK(seen == std::set<std::string>{"1a", "1b", "2a", "2b", "3a", "3b"});
    CHECK(render_text(pj::environment::plain(), "[{{ []|random }}]") == "[]");
}

TEST_CASE("'is filter' and 'is test' see filters and tests added by the user") {
    auto env = pj::environment::plain();
    const std::string probe =
        "{{ 'shout' is filter }} {{ 'shout' is test }} {{ 'loud' is test }} {{ 'loud' is filter }} "
        "{{ 'upper' is filter }} {{ 'upper' is test }}";
    CHECK(render_text(env, probe) == "False False False False True True");
    env.add_filter("shout", [](const pj::value& v, const pj::arguments&) { return v; });
    env.add_test("loud", [](const pj::value&, const pj::arguments&) { return true; });
    CHECK(render_text(env, probe) == "True False True False True True");
    CHECK(render_text(env, "{% if 'shout' is filter %}{{ 'x'|shout }}{% endif %}") == "x");
    CHECK_THROWS_AS(render_text(env, "{{ 'upper' is filter(1) }}"), parley::error);
}

TEST_CASE("xmlattr and urlize return Markup when the environment autoescapes") {
    pj::options o;
    o.autoescape = true;
    const pj::environment env(o);
    CHECK(render_text(env, "<a{{ {'title': '<&>', 'skip': none}|xmlattr }}>") == "<a title=\"&lt;&amp;&gt;\">");
    CHECK(render_text(env, "{{ 'x < www.example.com'|urlize }}") ==
          "x &lt; <a href=\"https://www.example.com\" rel=\"noopener\">www.example.com</a>");
    CHECK(render_text(env, "{{ {'a': 1}|xmlattr is escaped }} {{ 'a'|urlize is escaped }}") == "True True");
    const auto plain = pj::environment::plain();
    CHECK(render_text(plain, "{{ {'a': 1}|xmlattr is escaped }} {{ 'a'|urlize is escaped }}") == "False False");
}

TEST_CASE("urlize recognises the scheme prefixes extra_schemes accepts") {
    CHECK(pd::is_uri_scheme_prefix("ftp:"));
    CHECK(pd::is_uri_scheme_prefix("ftp://"));
    CHECK(pd::is_uri_scheme_prefix("git+ssh:/"));
    CHECK(pd::is_uri_scheme_prefix("é.x:"));
    CHECK_FALSE(pd::is_uri_scheme_prefix("f:"));
    CHECK_FALSE(pd::is_uri_scheme_prefix("ftp:///"));
    CHECK_FALSE(pd::is_uri_scheme_prefix("ftp"));
    CHECK_FALSE(pd::is_uri_scheme_prefix("a b:"));
    CHECK_FALSE(pd::is_uri_scheme_prefix(""));
}
