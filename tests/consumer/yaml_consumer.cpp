// A program of a project that uses parley's YAML loader through parley::yaml, built by the
// find_package and the add_subdirectory consumer projects: yaml-cpp comes through parley::yaml,
// by its CMake target, whichever yaml-cpp version exports it.
#include <parley/chat/render.hpp>
#include <parley/chat/yaml.hpp>

#include <boost/json/parse.hpp>

#include <cstdio>

int main() {
    const parley::template_set set = parley::load_template_set(R"(templates:
  greet:
    messages:
      - role: system
        content: |
          Greet {{ name }}.
)", "consumer.yaml");
    const parley::rendered_request r = parley::render(set.at("greet"), boost::json::parse(R"({"name": "Ada"})"));
    // Jinja2's default drops the text's one trailing newline (keep_trailing_newline off)
    if (r.messages.size() != 1 || r.messages[0].text() != "Greet Ada.") {
        std::fprintf(stderr, "yaml consumer check failed: %zu message(s), the first '%.*s', expected 'Greet Ada.'\n",
                     r.messages.size(), r.messages.empty() ? 0 : static_cast<int>(r.messages[0].text().size()),
                     r.messages.empty() ? "" : r.messages[0].text().data());
        return 1;
    }
    std::puts("parley yaml consumer: ok");
    return 0;
}
