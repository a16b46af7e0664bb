// Tests of parley/chat/message.hpp, request.hpp and rules.hpp: roles, messages, request
// parameters, and the rules of the chat model with their messages.
#include <parley/chat/message.hpp>

#include <parley/chat/request.hpp>
#include <parley/chat/rules.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace parley;

namespace {

// The message of the error validate() throws, or "valid".
std::string verdict(const message& m) {
    try {
        validate(m);
        return "valid";
    } catch (const parley::error& e) {
        CHECK(e.code() == errc::chat_invalid);
        return e.what();
    }
}

message with_role(role r) {
    message m;
    m.role = r;
    return m;
}

}  // namespace

TEST_CASE("roles: names on the wire, lookup by name, control roles") {
    static_assert(role_name(role::default_request) == "default-request");
    static_assert(role_from_name("truncate") == role::truncate);
    static_assert(!role_from_name("bot").has_value());
    static_assert(!role_from_name("User").has_value());  // names match exactly
    for (role r : all_roles) CHECK(role_from_name(role_name(r)) == r);
    CHECK_FALSE(is_control(role::tool));
    CHECK(is_control(role::request));
    CHECK(is_control(role::truncate));
}

TEST_CASE("request_params: empty, override_with keeps what the override leaves unset") {
    request_params base;
    CHECK(base.empty());
    base.model = "gpt-4o-mini";
    base.temperature = 0.7;
    base.stop = std::string("END");
    request_params over;
    over.temperature = 0.2;
    over.functions = std::vector<std::string>{"lookup"};
    base.override_with(over);
    CHECK(*base.model == "gpt-4o-mini");
    CHECK(*base.temperature == 0.2);
    CHECK(std::get<std::string>(*base.stop) == "END");
    CHECK((*base.functions)[0] == "lookup");
    CHECK_FALSE(base.empty());
    CHECK(first_set_param(over) == "temperature");
    CHECK(first_set_param({}).empty());
}

TEST_CASE("rules: which key each role takes") {
    CHECK(check_key(role::user, "content") == chat_rule::none);
    CHECK(check_key(role::user, "temprature") == chat_rule::unknown_key);
    CHECK(check_key(role::user, "temperature") == chat_rule::param_outside_request);
    CHECK(check_key(role::request, "temperature") == chat_rule::none);
    CHECK(check_key(role::default_request, "content") == chat_rule::field_in_control);
    CHECK(check_key(role::truncate, "model") == chat_rule::key_in_truncate);
    CHECK(check_key(role::truncate, "content") == chat_rule::key_in_truncate);
    CHECK(check_key(role::user, "function_call") == chat_rule::assistant_only);
    CHECK(check_key(role::tool, "tool_calls") == chat_rule::assistant_only);
    CHECK(check_key(role::assistant, "tool_calls") == chat_rule::none);
    CHECK(check_key(role::assistant, "tool_call_id") == chat_rule::tool_only);
    CHECK(check_key(role::tool, "tool_call_id") == chat_rule::none);
    static_assert(check_required(role::function, {.content = true}) == chat_rule::function_needs_name);
    static_assert(check_required(role::default_request, {}) == chat_rule::empty_default_request);
    static_assert(check_required(role::request, {}) == chat_rule::none);
    static_assert(check_required(role::system, {}) == chat_rule::needs_content);
    static_assert(check_required(role::user, {}) == chat_rule::none);
    static_assert(check_required(role::assistant, {}) == chat_rule::needs_content);
    static_assert(check_required(role::assistant, {.calls = true}) == chat_rule::none);
    static_assert(check_required(role::tool, {.tool_call_id = true}) == chat_rule::needs_content);
    static_assert(check_not_empty("") == chat_rule::empty_field);
    static_assert(check_number("temperature", 2.0) == chat_rule::none);
    static_assert(check_number("temperature", 2.01) == chat_rule::out_of_range);
    static_assert(check_number("top_p", -0.1) == chat_rule::out_of_range);
}

TEST_CASE("validate: every rule, with its message") {
    CHECK(verdict(make_message(role::user, "hi")) == "valid");

    CHECK(verdict(with_role(role::function)) == "a function message needs a 'name' (the function's name)");
    message fn = make_message(role::function, "42");
    fn.name = "lookup";
    CHECK(verdict(fn) == "valid");

    CHECK(verdict(with_role(role::tool)) == "a tool message needs a 'tool_call_id' (the id of the call it answers)");
    CHECK(verdict(with_role(role::default_request)) ==
          "a default-request message must set at least one request parameter");
    CHECK(verdict(with_role(role::request)) == "valid");
    CHECK(verdict(with_role(role::truncate)) == "valid");

    message user_call = make_message(role::user, "x");
    user_call.function_call = function_call{"f", "{}"};
    CHECK(verdict(user_call) == "'function_call' belongs to assistant messages, not to a user message");

    message id_on_user = make_message(role::user, "x");
    id_on_user.tool_call_id = "call_1";
    CHECK(verdict(id_on_user) == "'tool_call_id' belongs to tool messages, not to a user message");

    message params_on_user = make_message(role::user, "x");
    params_on_user.params.temperature = 0.5;
    CHECK(verdict(params_on_user) ==
          "'temperature' is a request parameter: only default-request and request messages set it, not a user message");

    message content_on_request = make_message(role::request, "x");
    CHECK(verdict(content_on_request) == "a request message sets request parameters only; it has no 'content'");

    message params_on_truncate = with_role(role::truncate);
    params_on_truncate.params.model = "m";
    CHECK(verdict(params_on_truncate) == "a truncate message has no key but 'role', found 'model'");

    message image = with_role(role::assistant);
    image.content = std::vector<content_part>{content_part::make_image("https://x/y.png")};
    CHECK(verdict(image) == "image parts belong to user messages, not to an assistant message");
    message detail = with_role(role::user);
    detail.content = std::vector<content_part>{content_part::make_image("https://x/y.png", "medium")};
    CHECK(verdict(detail) == "an image detail is 'auto', 'low' or 'high', found 'medium'");

    message nameless_call = with_role(role::assistant);
    nameless_call.tool_calls.push_back({"call_1", {"", "{}"}});
    CHECK(verdict(nameless_call) == "a function call needs the function's 'name'");
    message idless_call = with_role(role::assistant);
    idless_call.tool_calls.push_back({"", {"f", "{}"}});
    CHECK(verdict(idless_call) == "a tool call needs an 'id'");
}

TEST_CASE("validate: request parameter values") {
    auto request_with = [](auto set) {
        message m = with_role(role::request);
        set(m.params);
        return verdict(m);
    };
    CHECK(request_with([](request_params& p) { p.temperature = 2.5; }) == "'temperature' must be between 0 and 2");
    CHECK(request_with([](request_params& p) { p.temperature = 2.0; }) == "valid");
    CHECK(request_with([](request_params& p) { p.top_p = 1.5; }) == "'top_p' must be between 0 and 1");
    CHECK(request_with([](request_params& p) { p.presence_penalty = -3; }) ==
          "'presence_penalty' must be between -2 and 2");
    CHECK(request_with([](request_params& p) { p.frequency_penalty = 2.5; }) ==
          "'frequency_penalty' must be between -2 and 2");
    CHECK(request_with([](request_params& p) { p.max_tokens = 0; }) == "'max_tokens' must be at least 1");
    CHECK(request_with([](request_params& p) { p.n = 129; }) == "'n' must be between 1 and 128");
    CHECK(request_with([](request_params& p) {
              p.stop = std::vector<std::string>{"a", "b", "c", "d", "e"};
          }) == "'stop' has at most 4 sequences");
    CHECK(request_with([](request_params& p) { p.stop = std::string(); }) == "a 'stop' sequence cannot be empty");
    CHECK(request_with([](request_params& p) {
              p.logit_bias = std::vector<std::pair<std::string, std::int64_t>>{{"50256", -100}};
          }) == "valid");
    CHECK(request_with([](request_params& p) {
              p.logit_bias = std::vector<std::pair<std::string, std::int64_t>>{{"the", 5}};
          }) == "a 'logit_bias' key is a token id (decimal digits), found 'the'");
    CHECK(request_with([](request_params& p) {
              p.logit_bias = std::vector<std::pair<std::string, std::int64_t>>{{"1", 101}};
          }) == "'logit_bias' must be between -100 and 100");
    CHECK(request_with([](request_params& p) { p.response_format = boost::json::object{{"type", "xml"}}; }) ==
          "'response_format' needs a 'type' of \"text\", \"json_object\" or \"json_schema\"");
    CHECK(request_with([](request_params& p) { p.functions = std::vector<std::string>{"a b"}; }) ==
          "a function name matches ^[a-zA-Z0-9_-]{1,64}$, found 'a b'");
    CHECK(request_with([](request_params& p) { p.functions = std::vector<std::string>{"f", "g", "f"}; }) ==
          "function 'f' is listed twice in 'functions'");
    CHECK(request_with([](request_params& p) {
              p.functions = std::vector<std::string>{"f"};
              p.call_function = "g";
          }) == "'call_function' forces 'g', which 'functions' does not list");
    CHECK(request_with([](request_params& p) {
              p.functions = std::vector<std::string>{"f"};
              p.call_function = "*";
          }) == "valid");
    CHECK(request_with([](request_params& p) { p.call_function = ""; }) == "valid");
}
