// Tests of parley/batch/provider_batch.hpp, batch_api.hpp and batch_state.hpp: the batch APIs'
// objects and result lines (the API references' examples, and malformed ones), the state file,
// and provider_batch against the fake server's batch routes: OpenAI's files and batches split at
// a limit, Anthropic's message batches with errored and expired requests, a run stopped after
// submitting and resumed by batch id without submitting again, cancellation, requests that
// cannot be rendered or do not fit, a batch that fails validation.
#include <parley/batch/provider_batch.hpp>

#include <parley/batch/batch_api.hpp>
#include <parley/batch/batch_state.hpp>
#include <parley/batch/output.hpp>
#include <parley/provider/anthropic/api.hpp>
#include <parley/provider/openai/api.hpp>
#include <parley/testing/fake_server.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace provider_batch_test {

namespace asio = boost::asio;
namespace fs = std::filesystem;
using namespace std::chrono_literals;
using parley::testing::fake_server;
using parley::testing::fake_step;

/// A fresh temporary directory, removed at the end of the test.
struct scratch_dir {
    fs::path dir;
    scratch_dir() {
        char templ[] = "/tmp/parley-provider-batch-XXXXXX";
        dir = ::mkdtemp(templ);
    }
    ~scratch_dir() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

parley::provider_batch_options options_for(const fake_server& server, parley::batch_api api) {
    parley::provider_batch_options o;
    o.api = api;
    o.base_url = api == parley::batch_api::openai ? server.url("/v1") : server.base_url();
    o.api_key = "sk-batch-test";
    o.poll_interval = 1ms;
    o.max_poll_interval = 5ms;
    o.net.proxy.how = parley::net::proxy_options::mode::none;
    o.net.timeouts.total = 20s;
    return o;
}

std::vector<parley::batch_input> numbered_inputs(std::size_t n) {
    std::vector<parley::batch_input> v;
    for (std::size_t i = 0; i < n; ++i) {
        parley::batch_input in;
        in.id = i % 2 ? boost::json::value("doc-" + std::to_string(i)) : boost::json::value(static_cast<std::int64_t>(i));
        in.data = boost::json::object{{"text", "text of " + std::to_string(i)}};
        v.push_back(std::move(in));
    }
    return v;
}

/// The request body of an input: a chat completion (OpenAI) or a Messages body (Anthropic).
auto body_of(parley::batch_api api) {
    return [api](const parley::batch_input& in) -> std::string {
        const std::string text(in.data.at("text").as_string());
        if (text == "unrenderable") throw parley::error(parley::errc::template_undefined, "'text' is undefined");
        boost::json::object body{{"model", api == parley::batch_api::openai ? "gpt-4o-mini" : "claude-sonnet-4-5"},
                                 {"messages", boost::json::array{boost::json::object{{"role", "user"}, {"content", text}}}}};
        if (text == "no messages") body.erase("messages");  // a request the API refuses (400)
        if (api == parley::batch_api::anthropic) body["max_tokens"] = 64;
        return boost::json::serialize(body);
    };
}

/// A reply's text as the line's result, decoded with parley's codec of the API.
auto decoder_for(parley::batch_api api) {
    return [api](const parley::provider_batch_result& r, const boost::json::value&, parley::usage_summary& usage) -> parley::batch_outcome {
        parley::http_headers h;
        if (!r.request_id.empty()) h.add("x-request-id", r.request_id);
        auto reply = api == parley::batch_api::openai ? parley::openai::decode_reply(r.status, h, r.body)
                                                      : parley::anthropic::decode_reply(r.status, h, r.body);
        if (!reply) {
            usage.add(reply.error(), "m");
            return reply.error();
        }
        usage.add(*reply, reply->model);
        return boost::json::value(reply->text());
    };
}

template <class T>
T run_batch_on(asio::io_context& io, asio::awaitable<T> a) {
    auto f = asio::co_spawn(io, std::move(a), asio::use_future);
    io.restart();
    io.run();
    return f.get();
}

/// The lines of a sink by id key (the JSON text of the id); fails the test for an id with two.
std::map<std::string, boost::json::value> lines_by_id(const std::vector<std::string>& lines) {
    std::map<std::string, boost::json::value> out;
    for (const auto& line : lines) {
        REQUIRE(line.ends_with("\n"));
        auto v = boost::json::parse(line);
        const std::string key = boost::json::serialize(v.at("id"));
        CHECK_MESSAGE(out.emplace(key, v).second, "two lines for " << key);
    }
    return out;
}

std::string key_of(std::size_t i) {
    return i % 2 ? "\"doc-" + std::to_string(i) + "\"" : std::to_string(i);
}

std::size_t count_requests(const fake_server& server, std::string_view method, std::string_view path_end) {
    std::size_t n = 0;
    for (const auto& r : server.requests())
        if (r.method == method && r.target.ends_with(path_end)) ++n;
    return n;
}


TEST_CASE("batch_api: the request lines and bodies; custom_ids") {
    const parley::provider_batch_request r{"in-7", R"({"model":"m","messages":[]})"};
    CHECK(parley::openai_batch_line(r, "/v1/chat/completions") ==
          R"({"custom_id":"in-7","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[]}})" "\n");
    CHECK(parley::anthropic_batch_entry(r) == R"({"custom_id":"in-7","params":{"model":"m","messages":[]}})");
    CHECK(parley::valid_custom_id("in-7"));
    CHECK(parley::valid_custom_id(std::string(64, 'a')));
    CHECK_FALSE(parley::valid_custom_id(std::string(65, 'a')));
    CHECK_FALSE(parley::valid_custom_id(""));
    CHECK_FALSE(parley::valid_custom_id("a.b"));
    CHECK(parley::batch_api_from_name("openai-batch") == parley::batch_api::openai);
    CHECK(parley::batch_api_from_name("anthropic-batch") == parley::batch_api::anthropic);
    CHECK_FALSE(parley::batch_api_from_name("openai"));
    CHECK(parley::provider_batch_limits(parley::batch_api::openai).max_requests == 50'000);
    CHECK(parley::provider_batch_limits(parley::batch_api::anthropic).max_bytes == 256'000'000);
}

TEST_CASE("batch_api: batch objects as the API references show them, and malformed ones") {
    // OpenAI's example of a batch object (API reference, "The batch object")
    const auto openai = parley::read_batch_status(parley::batch_api::openai, R"({
      "id": "batch_abc123", "object": "batch", "endpoint": "/v1/completions", "errors": null,
      "input_file_id": "file-abc123", "completion_window": "24h", "status": "completed",
      "output_file_id": "file-cvaTdG", "error_file_id": "file-HOWS94", "created_at": 1711471533,
      "in_progress_at": 1711471538, "expires_at": 1711557933, "finalizing_at": 1711493133,
      "completed_at": 1711493163, "failed_at": null, "expired_at": null, "cancelling_at": null,
      "cancelled_at": null, "request_counts": {"total": 100, "completed": 95, "failed": 5},
      "metadata": {"customer_id": "user_123456789", "batch_description": "Nightly eval job"}})");
    REQUIRE(openai.has_value());
    CHECK(openai->id == "batch_abc123");
    CHECK(openai->status == "completed");
    CHECK(openai->ended);
    CHECK(openai->total == 100);
    CHECK(openai->succeeded == 95);
    CHECK(openai->errored == 5);
    CHECK(openai->output_file_id == "file-cvaTdG");
    CHECK(openai->error_file_id == "file-HOWS94");
    CHECK(openai->input_file_id == "file-abc123");

    // Anthropic's example of a message batch (API reference, "Retrieve a Message Batch")
    const auto anthropic = parley::read_batch_status(parley::batch_api::anthropic, R"({
      "archived_at": null, "cancel_initiated_at": null, "created_at": "2024-08-20T18:37:24.100435Z",
      "ended_at": null, "expires_at": "2024-08-21T18:37:24.100435Z", "id": "msgbatch_013Zva2CMHLNnXjNJJKqJ2EF",
      "processing_status": "in_progress",
      "request_counts": {"canceled": 10, "errored": 30, "expired": 10, "processing": 100, "succeeded": 50},
      "results_url": null, "type": "message_batch"})");
    REQUIRE(anthropic.has_value());
    CHECK(anthropic->status == "in_progress");
    CHECK_FALSE(anthropic->ended);
    CHECK(anthropic->total == 200);
    CHECK(anthropic->processing == 100);
    CHECK(anthropic->canceled == 10);

    auto fails = [](parley::batch_api api, std::string_view body) {
        auto s = parley::read_batch_status(api, body);
        REQUIRE_FALSE(s.has_value());
        CHECK(s.error().code == parley::errc::protocol);
        return s.error().message;
    };
    CHECK(fails(parley::batch_api::openai, "[1]") == "batch: expected an object, found an array");
    CHECK(fails(parley::batch_api::openai, R"({"id":"b1"})") == "batch.status: expected a string, found nothing");
    CHECK(fails(parley::batch_api::openai, R"({"id":"../files","status":"completed"})") ==
          R"(batch.id: expected an id of 1 to 256 letters, digits and _.:-, found "../files")");
    CHECK(fails(parley::batch_api::openai, R"({"id":"b1","status":"completed","request_counts":{"total":-1}})") ==
          "batch.request_counts.total: expected a count (an integer, 0 or more), found an integer");
    CHECK(fails(parley::batch_api::anthropic, R"({"id":"m1","processing_status":"ended","results_url":null})") ==
          "message_batch.results_url: expected a URL once the batch has ended, found nothing");
    CHECK(fails(parley::batch_api::anthropic, "{\"id\":") .starts_with("the batch object is not JSON ("));
}

TEST_CASE("batch_api: result lines as the API references show them, and malformed ones") {
    std::vector<parley::provider_batch_result> out;
    // OpenAI's example of an output file (Batch API guide), and an error file's line
    REQUIRE(parley::read_batch_results(parley::batch_api::openai,
                                       R"({"id": "batch_req_123", "custom_id": "request-2", "response": {"status_code": 200, "request_id": "req_123", "body": {"id": "chatcmpl-123", "object": "chat.completion", "created": 1711652795, "model": "gpt-3.5-turbo-0125", "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hello."}, "logprobs": null, "finish_reason": "stop"}], "usage": {"prompt_tokens": 22, "completion_tokens": 2, "total_tokens": 24}, "system_fingerprint": "fp_123"}}, "error": null}
{"id": "batch_req_456", "custom_id": "request-1", "response": null, "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}}

{"id": "batch_req_789", "custom_id": "request-3", "response": {"status_code": 400, "request_id": "req_9", "body": {"error": {"message": "bad", "type": "invalid_request_error", "param": null, "code": null}}}, "error": null}
)",
                                       out)
                .has_value());
    REQUIRE(out.size() == 3);
    CHECK(out[0].custom_id == "request-2");
    CHECK(out[0].outcome == parley::provider_batch_result::kind::succeeded);
    CHECK(out[0].status == 200);
    CHECK(out[0].request_id == "req_123");
    const auto reply = parley::openai::decode_reply(200, {}, out[0].body);
    REQUIRE(reply.has_value());
    CHECK(reply->text() == "Hello.");
    CHECK(out[1].outcome == parley::provider_batch_result::kind::expired);
    CHECK(out[1].error_code == "batch_expired");
    CHECK(out[2].outcome == parley::provider_batch_result::kind::errored);
    CHECK(out[2].status == 400);

    // Anthropic's examples of results (Message Batches guide)
    out.clear();
    REQUIRE(parley::read_batch_results(parley::batch_api::anthropic,
                                       R"({"custom_id":"my-second-request","result":{"type":"succeeded","message":{"id":"msg_014VwiXbi91y3JMjcpyGBHX5","type":"message","role":"assistant","model":"claude-3-5-sonnet-20240620","content":[{"type":"text","text":"Hello again! It's nice to see you."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":11,"output_tokens":36}}}}
{"custom_id":"my-first-request","result":{"type":"errored","error":{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}}}
{"custom_id":"c","result":{"type":"expired"}}
{"custom_id":"d","result":{"type":"canceled"}}
)",
                                       out)
                .has_value());
    REQUIRE(out.size() == 4);
    CHECK(out[0].outcome == parley::provider_batch_result::kind::succeeded);
    CHECK(parley::anthropic::decode_reply(out[0].status, {}, out[0].body)->text() == "Hello again! It's nice to see you.");
    CHECK(out[1].outcome == parley::provider_batch_result::kind::errored);
    const parley::call_error e = parley::anthropic::decode_error(0, {}, out[1].body);
    CHECK(e.type == "invalid_request_error");
    CHECK(e.message == "max_tokens: Field required");
    CHECK(out[2].outcome == parley::provider_batch_result::kind::expired);
    CHECK(out[3].outcome == parley::provider_batch_result::kind::canceled);

    auto fails = [](parley::batch_api api, std::string_view file) {
        std::vector<parley::provider_batch_result> ignored;
        auto r = parley::read_batch_results(api, file, ignored);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().code == parley::errc::protocol);
        return r.error().message;
    };
    CHECK(fails(parley::batch_api::openai, "{\"custom_id\":\"a\",\"response\":null,\"error\":null}\n") ==
          "results line 1: expected a \"response\" or an \"error\", found neither");
    CHECK(fails(parley::batch_api::openai, "\n{\"custom_id\":\"a\",\"response\":{\"status_code\":99,\"body\":{}}}") ==
          "results line 2.response.status_code: expected an HTTP status, found an integer");
    CHECK(fails(parley::batch_api::anthropic, "{\"custom_id\":\"a\",\"result\":{\"type\":\"won\"}}") ==
          R"(results line 1.result.type: expected "succeeded", "errored", "expired" or "canceled", found "won")");
    CHECK(fails(parley::batch_api::anthropic, "{\"result\":{}}") == "results line 1.custom_id: expected a string, found nothing");
    CHECK(fails(parley::batch_api::anthropic, "not json").starts_with("results line 1 is not JSON ("));
}

TEST_CASE("batch_state: written atomically, read back, refused when it is not one") {
    scratch_dir d;
    const fs::path out = d.dir / "out.jsonl";
    const fs::path state = parley::batch_state_path(out);
    CHECK(state.filename() == "out.jsonl.batches.json");
    CHECK_FALSE(parley::load_batch_state(state));
    parley::provider_batch_state s;
    s.api = parley::batch_api::anthropic;
    s.base_url = "http://127.0.0.1:1";
    s.endpoint = "/v1/messages";
    s.batches.push_back({"msgbatch_1", "", {{"in-1", boost::json::value("a")}, {"in-2", boost::json::value(-5)}}});
    s.batches.push_back({"msgbatch_2", "", {{"in-3", boost::json::value(18446744073709551615ull)}}});
    parley::save_batch_state(state, s);
    CHECK_FALSE(fs::exists(state.string() + ".parley-tmp"));
    const auto back = parley::load_batch_state(state);
    REQUIRE(back);
    CHECK(back->api == parley::batch_api::anthropic);
    CHECK(back->base_url == "http://127.0.0.1:1");
    REQUIRE(back->batches.size() == 2);
    CHECK(back->batches[0].requests[1].second == boost::json::value(-5));
    CHECK(back->batches[1].requests[0].second == boost::json::value(18446744073709551615ull));
    s.batches.clear();
    parley::save_batch_state(state, s);
    CHECK_FALSE(fs::exists(state));

    auto refused = [&](std::string_view text) {
        std::ofstream(state, std::ios::binary | std::ios::trunc) << text;
        try {
            (void)parley::load_batch_state(state);
        } catch (const parley::error& e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    const std::string name = state.string();
    CHECK(refused("{\"x\":1}") == name + ": expected \"parley_batch_state\": 1 (not a batch state file of parley, or damaged)");
    CHECK(refused(R"({"parley_batch_state":1,"via":"gemini","base_url":"","endpoint":"","batches":[]})") ==
          name + ": \"via\" must be \"openai-batch\" or \"anthropic-batch\" (not a batch state file of parley, or damaged)");
    CHECK(refused(R"({"parley_batch_state":1,"via":"openai-batch","base_url":"","endpoint":"","batches":[{"id":"b","requests":{"a b":1}}]})") ==
          name + ": batches[0].requests: a b is not a custom_id (not a batch state file of parley, or damaged)");
    CHECK(refused(R"({"parley_batch_state":1,"via":"openai-batch","base_url":"","endpoint":"","batches":[{"id":"b","requests":{"a":1.5}}]})") ==
          name + ": batches[0].requests.a: the id must be a string or an integer, found a number with a fraction or exponent (not a batch "
                 "state file of parley, or damaged)");
    CHECK(refused("{\"parley_batch_state\":1,") .starts_with(name + ": not JSON ("));
}

TEST_CASE("provider_batch, OpenAI: a file per batch, split at the limit; results, error replies, inputs that cannot be rendered") {
    fake_server server;
    parley::testing::fake_script script;  // no step: every request gets the echo of its text
    script.batch.polls = 1;
    server.set_script(script);
    scratch_dir d;
    const fs::path state = parley::batch_state_path(d.dir / "out.jsonl");
    asio::io_context io;
    auto o = options_for(server, parley::batch_api::openai);
    o.limits.max_requests = 3;
    std::vector<std::size_t> pending_seen;
    bool state_seen = false;
    o.on_progress = [&](const parley::provider_batch_progress& p) {
        pending_seen.push_back(p.pending.size());
        if (fs::exists(state)) state_seen = true;
    };
    parley::provider_batch job(io.get_executor(), o);
    CHECK(job.limits().max_requests == 3);
    CHECK(job.limits().max_bytes == 200'000'000);
    auto inputs = numbered_inputs(8);
    inputs[1].data.as_object()["text"] = "no messages";
    inputs[5].data.as_object()["text"] = "unrenderable";
    parley::batch_memory_sink sink;
    sink.mark_done(key_of(6));
    const auto p = run_batch_on(io, job.run(inputs, body_of(parley::batch_api::openai), decoder_for(parley::batch_api::openai), sink, state));
    CHECK(p.inputs == 8);
    CHECK(p.skipped == 1);
    CHECK(p.submitted == 6);
    CHECK(p.batches_submitted == 2);
    CHECK(p.done == 7);
    CHECK(p.failed == 2);
    CHECK_FALSE(p.stopped);
    CHECK(p.pending.empty());
    CHECK(state_seen);
    CHECK_FALSE(fs::exists(state));
    CHECK(*std::max_element(pending_seen.begin(), pending_seen.end()) == 2);

    const auto lines = lines_by_id(sink.lines());
    REQUIRE(lines.size() == 7);
    CHECK(lines.at(key_of(0)).at("result") == "text of 0");
    CHECK(lines.at(key_of(0)).at("attempts") == 1);
    CHECK(lines.at(key_of(0)).at("usage").at("requests") == 1);
    CHECK(lines.at(key_of(0)).at("usage").at("input_tokens").as_int64() > 0);
    CHECK_FALSE(lines.at(key_of(0)).as_object().contains("latency_ms"));
    const auto& refused = lines.at(key_of(1)).at("error");
    CHECK(refused.at("code") == "api_error");
    CHECK(refused.at("status") == 400);
    CHECK(refused.at("type") == "invalid_request_error");
    CHECK(std::string(refused.at("request_id").as_string()).starts_with("req_fake_batch_"));
    CHECK(lines.at(key_of(5)).at("error").at("code") == "template_undefined");
    CHECK(lines.at(key_of(5)).at("error").at("message") == "'text' is undefined");
    for (std::size_t i : {2, 3, 4, 7}) CHECK(lines.at(key_of(i)).at("result") == boost::json::value("text of " + std::to_string(i)));

    // what went over the wire: two uploads (multipart, purpose batch), two batches, polls, results
    CHECK(count_requests(server, "POST", "/v1/files") == 2);
    CHECK(count_requests(server, "POST", "/v1/batches") == 2);
    CHECK(count_requests(server, "GET", "/content") >= 2);
    for (const auto& r : server.requests()) {
        CHECK(r.header("authorization") == "Bearer sk-batch-test");
        if (r.method == "POST" && r.target == "/v1/files") {
            CHECK(r.header("content-type").starts_with("multipart/form-data; boundary="));
            CHECK(r.body.find("name=\"purpose\"\r\n\r\nbatch\r\n") != std::string::npos);
            CHECK(r.body.find("\"url\":\"/v1/chat/completions\"") != std::string::npos);
        }
        if (r.method == "POST" && r.target == "/v1/batches") {
            const auto v = r.json();
            CHECK(v.at("endpoint") == "/v1/chat/completions");
            CHECK(v.at("completion_window") == "24h");
            CHECK(std::string(v.at("input_file_id").as_string()).starts_with("file-fake-"));
        }
    }
}

TEST_CASE("provider_batch, Anthropic: errored and expired requests; the fake's requests per poll") {
    fake_server server;
    parley::testing::fake_script script;
    script.steps.push_back(fake_step{});
    script.steps.push_back(fake_step::http_status(529));
    script.batch.polls = 2;
    script.batch.per_poll = 1;
    script.batch.expire = true;  // two polls in progress answer two requests; the others expire
    server.set_script(script);
    scratch_dir d;
    const fs::path state = parley::batch_state_path(d.dir / "out.jsonl");
    asio::io_context io;
    parley::provider_batch job(io.get_executor(), options_for(server, parley::batch_api::anthropic));
    parley::batch_memory_sink sink;
    const auto p = run_batch_on(io, job.run(numbered_inputs(4), body_of(parley::batch_api::anthropic),
                                      decoder_for(parley::batch_api::anthropic), sink, state));
    CHECK(p.done == 4);
    CHECK(p.failed == 3);
    CHECK(p.batches_submitted == 1);
    const auto lines = lines_by_id(sink.lines());
    CHECK(lines.at(key_of(0)).at("result") == "text of 0");
    CHECK(lines.at(key_of(1)).at("error").at("type") == "overloaded_error");
    CHECK(lines.at(key_of(1)).at("error").at("code") == "api_error");
    for (std::size_t i : {2, 3}) {
        const auto& e = lines.at(key_of(i)).at("error");
        CHECK(e.at("code") == "timeout");
        CHECK(e.at("type") == "batch_expired");
    }
    const auto requests = server.requests();
    REQUIRE(!requests.empty());
    CHECK(requests.front().method == "POST");
    CHECK(requests.front().target == "/v1/messages/batches");
    CHECK(requests.front().header("x-api-key") == "sk-batch-test");
    CHECK(requests.front().header("anthropic-version") == "2023-06-01");
    const auto body = requests.front().json();
    REQUIRE(body.at("requests").as_array().size() == 4);
    CHECK(body.at("requests").at(0).at("custom_id") == "in-1");
    CHECK(body.at("requests").at(0).at("params").at("max_tokens") == 64);
    CHECK_FALSE(body.at("requests").at(0).at("params").as_object().contains("stream"));
    CHECK(requests.back().target.ends_with("/results"));
}

TEST_CASE("provider_batch: a run stopped after submitting resumes by batch id, without submitting again") {
    fake_server server;
    parley::testing::fake_script script;
    script.steps.push_back(fake_step{});
    script.repeat = true;
    script.batch.polls = 3;
    server.set_script(script);
    scratch_dir d;
    const fs::path state = parley::batch_state_path(d.dir / "out.jsonl");
    for (auto api : {parley::batch_api::openai, parley::batch_api::anthropic}) {
        CAPTURE(parley::batch_api_name(api));
        server.clear_requests();
        {
            asio::io_context io;
            auto o = options_for(server, api);
            o.limits.max_requests = 2;
            parley::provider_batch* self = nullptr;
            o.on_progress = [&](const parley::provider_batch_progress& p) {
                if (p.batches_submitted == 2) self->stop();  // as a kill would, once both batches are in the state file
            };
            parley::provider_batch job(io.get_executor(), o);
            self = &job;
            parley::batch_memory_sink nothing;
            const auto p = run_batch_on(io, job.run(numbered_inputs(3), body_of(api), decoder_for(api), nothing, state));
            CHECK(p.stopped);
            CHECK(p.done == 0);
            CHECK(p.pending.size() == 2);
            CHECK(nothing.lines().empty());
        }
        const auto saved = parley::load_batch_state(state);
        REQUIRE(saved);
        REQUIRE(saved->batches.size() == 2);
        CHECK(saved->batches[0].requests.size() == 2);
        CHECK(saved->batches[1].requests[0].first == "in-3");
        const std::size_t creations = server.requests().size();

        // a second run with another sink state: the batches are polled, nothing is submitted
        parley::batch_memory_sink sink;
        sink.mark_done(key_of(1));  // as if written by the first run before it was killed
        asio::io_context io;
        parley::provider_batch job(io.get_executor(), options_for(server, api));
        const auto p = run_batch_on(io, job.run(numbered_inputs(3), body_of(api), decoder_for(api), sink, state));
        CHECK(p.submitted == 0);
        CHECK(p.resumed == 2);
        CHECK(p.skipped == 1);
        CHECK(p.done == 2);
        CHECK_FALSE(p.stopped);
        const auto lines = lines_by_id(sink.lines());
        CHECK(lines.size() == 2);
        CHECK(lines.at(key_of(0)).at("result") == "text of 0");
        CHECK(lines.at(key_of(2)).at("result") == "text of 2");
        CHECK_FALSE(fs::exists(state));
        std::size_t created_again = 0;
        const auto all = server.requests();
        for (std::size_t i = creations; i < all.size(); ++i)
            if (all[i].method == "POST") ++created_again;
        CHECK(created_again == 0);
    }
}

TEST_CASE("provider_batch: cancel writes the requests done, forgets the batches; a state of another API is refused") {
    fake_server server;
    parley::testing::fake_script script;
    script.steps.push_back(fake_step{});
    script.repeat = true;
    script.batch.polls = 2;
    script.batch.per_poll = 1;
    server.set_script(script);
    scratch_dir d;
    const fs::path state = parley::batch_state_path(d.dir / "out.jsonl");
    for (auto api : {parley::batch_api::openai, parley::batch_api::anthropic}) {
        CAPTURE(parley::batch_api_name(api));
        {
            asio::io_context io;
            auto o = options_for(server, api);
            parley::provider_batch* self = nullptr;
            o.on_progress = [&](const parley::provider_batch_progress& p) {
                if (!p.pending.empty() && p.pending.front().succeeded == 1) self->stop();  // after one request is answered
            };
            parley::provider_batch job(io.get_executor(), o);
            self = &job;
            parley::batch_memory_sink nothing;
            CHECK(run_batch_on(io, job.run(numbered_inputs(5), body_of(api), decoder_for(api), nothing, state)).stopped);
        }
        REQUIRE(fs::exists(state));

        // the same state with the other API is not this run's
        {
            asio::io_context io;
            const auto other = api == parley::batch_api::openai ? parley::batch_api::anthropic : parley::batch_api::openai;
            parley::provider_batch job(io.get_executor(), options_for(server, other));
            parley::batch_memory_sink sink;
            CHECK_THROWS_AS(run_batch_on(io, job.run(numbered_inputs(5), body_of(other), decoder_for(other), sink, state)), parley::error);
            CHECK(sink.lines().empty());
        }

        asio::io_context io;
        parley::provider_batch job(io.get_executor(), options_for(server, api));
        parley::batch_memory_sink sink;
        const auto p = run_batch_on(io, job.cancel(decoder_for(api), sink, state));
        // a poll in progress answered one request, the retrieval before the cancellation another;
        // the cancellation stopped the other three
        CHECK(p.done == 2);
        CHECK(p.canceled == 3);
        CHECK_FALSE(fs::exists(state));
        const auto lines = lines_by_id(sink.lines());
        REQUIRE(lines.size() == 2);
        CHECK(lines.at(key_of(0)).at("result") == "text of 0");
        CHECK(lines.at(key_of(1)).at("result") == "text of 1");
        CHECK(count_requests(server, "POST", "/cancel") >= 1);

        // nothing to cancel any more
        parley::batch_memory_sink empty;
        const auto again = run_batch_on(io, job.cancel(decoder_for(api), empty, state));
        CHECK(again.done == 0);
        CHECK(again.resumed == 0);
    }
}

TEST_CASE("provider_batch: a request too large for a batch, a batch that fails validation, an API error at creation") {
    fake_server server;
    parley::testing::fake_script script;
    script.batch.polls = 0;
    server.set_script(script);
    scratch_dir d;
    const fs::path state = parley::batch_state_path(d.dir / "out.jsonl");
    asio::io_context io;

    auto o = options_for(server, parley::batch_api::openai);
    o.limits.max_bytes = 200;
    parley::provider_batch job(io.get_executor(), o);
    auto inputs = numbered_inputs(3);
    inputs[1].data.as_object()["text"] = std::string(300, 'x');
    parley::batch_memory_sink sink;
    auto p = run_batch_on(io, job.run(inputs, body_of(parley::batch_api::openai), decoder_for(parley::batch_api::openai), sink, state));
    CHECK(p.done == 3);
    CHECK(p.batches_submitted == 2);  // two requests of about 160 bytes each do not fit in 200
    auto lines = lines_by_id(sink.lines());
    CHECK(lines.at(key_of(0)).at("result") == "text of 0");
    CHECK(lines.at(key_of(2)).at("result") == "text of 2");
    CHECK(lines.at(key_of(1)).at("error").at("code") == "invalid_argument");
    CHECK(std::string(lines.at(key_of(1)).at("error").at("message").as_string()).ends_with("more than a batch holds (200)"));

    // a body the fake's validation refuses (not an object): the batch fails, each input gets its error
    parley::provider_batch failing(io.get_executor(), options_for(server, parley::batch_api::openai));
    parley::batch_memory_sink failed_sink;
    p = run_batch_on(io, failing.run(numbered_inputs(2), [](const parley::batch_input&) { return std::string("[1]"); },
                               decoder_for(parley::batch_api::openai), failed_sink, state));
    lines = lines_by_id(failed_sink.lines());
    REQUIRE(lines.size() == 2);
    const auto& e = lines.at(key_of(0)).at("error");
    CHECK(e.at("type") == "batch_failed");
    CHECK(std::string(e.at("message").as_string()).find("line 1: The body of this request must be a JSON object. (invalid_body)") !=
          std::string::npos);

    // a custom_id or a body Anthropic refuses at creation: the run's error, nothing written, no state
    parley::provider_batch refused(io.get_executor(), options_for(server, parley::batch_api::anthropic));
    parley::batch_memory_sink refused_sink;
    try {
        run_batch_on(io, refused.run(numbered_inputs(1), [](const parley::batch_input&) { return std::string("{\"stream\":true}"); },
                               decoder_for(parley::batch_api::anthropic), refused_sink, state));
        FAIL("no error");
    } catch (const parley::call_exception& x) {
        CHECK(x.detail().status == 400);
        CHECK(x.detail().type == "invalid_request_error");
        CHECK(x.detail().message == "requests.0.params.stream: streaming is not supported in a batch");
    }
    CHECK(refused_sink.lines().empty());
    CHECK_FALSE(fs::exists(state));
}

TEST_CASE("fake server batch routes: files, unknown ids, wrong methods, multipart checks") {
    fake_server server;
    asio::io_context io;
    parley::provider_batch_client client(io.get_executor(), options_for(server, parley::batch_api::openai));
    const auto id = run_batch_on(io, client.upload("{\"a\":1}\n", "requests.jsonl"));
    REQUIRE(id.has_value());
    CHECK(id->starts_with("file-fake-"));
    const auto not_jsonl = run_batch_on(io, client.upload("{}\n", "requests.txt"));
    REQUIRE_FALSE(not_jsonl.has_value());
    CHECK(not_jsonl.error().status == 400);
    CHECK(not_jsonl.error().message == "Invalid file format for Batch API. Must be .jsonl");
    const auto missing = run_batch_on(io, client.retrieve("batch_nope"));
    REQUIRE_FALSE(missing.has_value());
    CHECK(missing.error().status == 404);
    CHECK(missing.error().message == "No batch found with id 'batch_nope'.");
    parley::provider_batch_status none;
    none.output_file_id = "file-none";
    const auto content = run_batch_on(io, client.results(none));
    REQUIRE_FALSE(content.has_value());
    CHECK(content.error().status == 404);
    // a completed batch cannot be cancelled
    parley::testing::fake_script instant;
    instant.batch.polls = 0;
    server.set_script(instant);
    std::vector<parley::provider_batch_request> one{{"in-1", R"({"model":"m","messages":[{"role":"user","content":"hi"}]})"}};
    const auto created = run_batch_on(io, client.create(one));
    REQUIRE(created.has_value());
    CHECK(created->status == "validating");
    const auto done = run_batch_on(io, client.retrieve(created->id));
    REQUIRE(done.has_value());
    CHECK(done->status == "completed");
    CHECK(done->succeeded == 1);
    const auto late = run_batch_on(io, client.cancel(created->id));
    REQUIRE_FALSE(late.has_value());
    CHECK(late.error().message == "Cannot cancel a batch with status 'completed'.");
    const auto results = run_batch_on(io, client.results(*done));
    REQUIRE(results.has_value());
    REQUIRE(results->size() == 1);
    CHECK(results->front().custom_id == "in-1");
    CHECK(parley::openai::decode_reply(200, {}, results->front().body)->text() == "hi");

    // the server's limits: OpenAI fails the batch after validating, Anthropic refuses it
    parley::testing::fake_script small;
    small.batch.polls = 0;
    small.batch.max_requests = 1;
    server.set_script(small);
    one.push_back({"in-2", one.front().body});
    const auto too_many = run_batch_on(io, client.create(one));
    REQUIRE(too_many.has_value());
    const auto failed = run_batch_on(io, client.retrieve(too_many->id));
    REQUIRE(failed.has_value());
    CHECK(failed->status == "failed");
    CHECK(failed->errors == "fake server: the file has 2 requests, more than 1 (too_many_requests)");
    parley::provider_batch_client anthropic(io.get_executor(), options_for(server, parley::batch_api::anthropic));
    one[0].body = one[1].body = R"({"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]})";
    const auto refused = run_batch_on(io, anthropic.create(one));
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().status == 400);
    CHECK(refused.error().message == "requests: at most 1 requests, found 2");
}

}  // namespace provider_batch_test
