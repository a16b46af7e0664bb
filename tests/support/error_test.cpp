#include <parley/error.hpp>

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <system_error>
#include <type_traits>

TEST_CASE("located_error: what() gives name:line:col, the source line and a caret") {
    const parley::template_error e(parley::errc::template_syntax, "expected '}}', found '}'",
                                   {"greeting.jinja", 3, 15}, "Hello {{ name }!");
    CHECK(std::string(e.what()) ==
          "greeting.jinja:3:15: expected '}}', found '}'\n"
          "  Hello {{ name }!\n"
          "                ^");
    CHECK(e.message() == "expected '}}', found '}'");
    CHECK(e.where().name == "greeting.jinja");
    CHECK(e.where().line == 3);
    CHECK(e.where().column == 15);
}

TEST_CASE("located_error: the caret of column 1 is under the first character") {
    const parley::template_error e(parley::errc::template_unknown_name, "unknown filter 'shout'",
                                   {"t", 2, 1}, "x");
    CHECK(std::string(e.what()) == "t:2:1: unknown filter 'shout'\n  x\n  ^");
}

TEST_CASE("located_error: an unnamed source reads <template>; an unknown line omits the excerpt") {
    const parley::template_error unnamed(parley::errc::template_type, "cannot add int and str",
                                         {"", 1, 4}, "{{ 1 + 'a' }}");
    CHECK(std::string(unnamed.what()) == "<template>:1:4: cannot add int and str\n  {{ 1 + 'a' }}\n     ^");

    const parley::template_error nowhere(parley::errc::template_limit, "output too large", {"big", 0, 0},
                                         "ignored");
    CHECK(std::string(nowhere.what()) == "big: output too large");
}

TEST_CASE("error codes: category name, messages and conversion to std::error_code") {
    const std::error_code ec = parley::errc::template_undefined;
    CHECK(&ec.category() == &parley::error_category());
    CHECK(std::string(ec.category().name()) == "parley");
    CHECK(ec.value() == static_cast<int>(parley::errc::template_undefined));
    CHECK(ec.message() == "undefined value in template");
    CHECK(parley::make_error_code(parley::errc::template_syntax).message() == "template syntax error");
    CHECK(parley::make_error_code(parley::errc::invalid_argument).message() == "invalid argument");
    CHECK(parley::make_error_code(parley::errc::chat_invalid).message() ==
          "invalid message, request or conversation template");
    CHECK(parley::make_error_code(parley::errc::yaml_syntax).message() == "YAML syntax error");
    CHECK(parley::make_error_code(parley::errc::conversion).message() ==
          "value does not convert between JSON and its C++ type");
    CHECK(parley::make_error_code(parley::errc::http_status).message() == "HTTP error status");
    CHECK(parley::make_error_code(parley::errc::api_error).message() == "error reported by the model API");
    CHECK(parley::make_error_code(parley::errc::protocol).message() == "malformed reply from the server");
    CHECK(parley::make_error_code(parley::errc::timeout).message() == "timed out");
    CHECK(parley::make_error_code(parley::errc::tls_verification).message() == "TLS certificate verification failed");
    CHECK(parley::error_category().message(0) == "unknown parley error");
    CHECK(ec != parley::errc::template_syntax);
    CHECK(ec != std::make_error_code(std::errc::invalid_argument));
}

TEST_CASE("exceptions: an error made from any std::error_code keeps it") {
    const parley::error e(std::make_error_code(std::errc::connection_refused), "connect: refused");
    CHECK(e.code() == std::errc::connection_refused);
    CHECK(std::string(e.what()) == "connect: refused");
}

TEST_CASE("exceptions: the hierarchy carries the error code") {
    static_assert(std::is_base_of_v<parley::error, parley::template_error>);
    static_assert(std::is_base_of_v<parley::located_error, parley::template_error>);
    static_assert(std::is_base_of_v<std::runtime_error, parley::error>);

    const auto throw_it = [] {
        throw parley::template_error(parley::errc::template_raised, "no system message", {"chat", 1, 1}, "{");
    };
    CHECK_THROWS_AS(throw_it(), parley::error);
    try {
        throw_it();
        FAIL("throw_it() returned");
    } catch (const parley::error& e) {
        CHECK(e.code() == parley::errc::template_raised);
        CHECK(std::string(e.what()).starts_with("chat:1:1: no system message"));
    }

    const parley::error plain(parley::errc::invalid_argument, "negative size");
    CHECK(std::string(plain.what()) == "negative size");
    CHECK(plain.code() == parley::errc::invalid_argument);
}
