// Rasa's command-generator prompt (the shared corpus's command_generator_single_step.jinja2,
// Rasa's documented default) rendered by parley in the plain environment for every context of
// the corpus, byte for byte against Python Jinja2 (the shared oracle). A missing corpus or oracle
// fails the test.
#include <parley/jinja.hpp>

#include "../harness/jinja_oracle.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <doctest/doctest.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace {

namespace pj = parley::jinja;

struct rasa_corpus {
    std::string source;
    std::vector<boost::json::value> contexts;
};

// The prompt and its contexts; nothing (and failed checks) when the corpus cannot be read.
std::optional<rasa_corpus> load_rasa_corpus() {
    const std::filesystem::path dir = jinja_oracle::shared_dir() / "corpus" / "rasa";
    const auto source = jinja_oracle::read_file(dir / "command_generator_single_step.jinja2");
    const auto contexts = jinja_oracle::read_file(dir / "contexts.json");
    if (!source || !contexts) return std::nullopt;
    rasa_corpus c;
    c.source = *source;
    const boost::json::value list = boost::json::parse(*contexts);
    if (!list.is_array() || list.as_array().empty()) {
        FAIL_CHECK("contexts.json is not a non-empty list of contexts");
        return std::nullopt;
    }
    for (const auto& ctx : list.as_array()) c.contexts.push_back(ctx);
    return c;
}

}  // namespace

TEST_CASE("rasa prompt: parley renders Rasa's command-generator prompt as Python Jinja2 does, for every context") {
    const std::optional<rasa_corpus> corpus = load_rasa_corpus();
    REQUIRE(corpus);
    const pj::parsed_template t = pj::environment::plain().parse(corpus->source, "command_generator_single_step.jinja2");

    std::vector<jinja_oracle::render_case> cases;
    for (const auto& ctx : corpus->contexts) cases.push_back({corpus->source, ctx, "plain"});
    const std::vector<jinja_oracle::result> reference = jinja_oracle::render(cases);
    REQUIRE(reference.size() == corpus->contexts.size());

    for (std::size_t i = 0; i < corpus->contexts.size(); ++i) {
        CAPTURE(i);
        const boost::json::value& ctx = corpus->contexts[i];
        REQUIRE_MESSAGE(reference[i].output, "Python Jinja2 failed: " << reference[i].error);
        const std::string& expected = *reference[i].output;
        const std::string out = t.render(ctx);
        CHECK_MESSAGE(out == expected, jinja_oracle::first_difference(out, expected));
        // the comparison is about a real prompt: it holds the user's message and the conversation
        CHECK(expected.find("The user just said \"\"\"" + std::string(ctx.at("user_message").as_string()) + "\"\"\"") !=
              std::string::npos);
        CHECK(expected.find(std::string(ctx.at("current_conversation").as_string())) != std::string::npos);
    }
}
