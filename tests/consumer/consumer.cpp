// A program of a project that uses parley, built by the find_package and the add_subdirectory
// consumer projects: headers, C++20 and Boost.JSON all come through parley::parley.
#include <parley.hpp>

#include <boost/json.hpp>

#include <cstdio>
#include <string>
#include <string_view>

namespace {

template <parley::fixed_string Name>
constexpr std::string_view name_of() {
    return Name;
}

}  // namespace

int main() {
    int failures = 0;
    const auto expect = [&](bool ok, const char* what) {
        if (!ok) {
            std::fprintf(stderr, "consumer check failed: %s\n", what);
            ++failures;
        }
    };

    const parley::template_error e(parley::errc::template_syntax, "unexpected '}'", {"hello.jinja", 1, 9},
                                   "{{ name }");
    expect(std::string(e.what()) == "hello.jinja:1:9: unexpected '}'\n  {{ name }\n          ^", "what()");
    expect(e.code() == parley::errc::template_syntax, "code()");

    static_assert(name_of<"user">() == "user");
    expect(parley::fixed_string("ab") == parley::fixed_string("ab"), "fixed_string ==");

    // Boost::json is linked through parley::parley.
    const boost::json::value v = boost::json::parse(R"({"role": "user"})");
    expect(v.at("role").as_string() == "user", "boost::json through parley::parley");

    // The prompt language, through the umbrella header.
    const auto chat = parley::jinja::environment::hf().parse(
        "{% for m in messages %}<|{{ m.role }}|>{{ m.content | trim }}\n{% endfor %}", "consumer.jinja");
    const boost::json::object context = {
        {"messages", boost::json::array{{{"role", "user"}, {"content", " Hi! "}}, {{"role", "assistant"}, {"content", "Hello."}}}}};
    expect(chat.render(context) == "<|user|>Hi!\n<|assistant|>Hello.\n", "jinja render");

    if (failures == 0) std::puts("parley consumer: ok");
    return failures == 0 ? 0 : 1;
}
