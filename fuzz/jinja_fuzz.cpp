// Fuzz target: a template from outside, parsed and rendered by the run-time engine.
//
// Input: byte 0 chooses the environment (bit 0: `hf` or `plain`, as
// parley::jinja::environment::named names them); the rest is the template, rendered with a small
// fixed context shaped like a chat template's (messages, tools, special tokens), under smaller
// limits than the defaults (with_fuzz_limits). A template error is an expected outcome; any other exception, a crash, a hang or a sanitizer report is a
// finding. Also checked: a failed render leaves the output string as it was.
#include <parley/jinja.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

const boost::json::value& fuzz_context() {
    static const boost::json::value ctx = boost::json::parse(R"({
        "messages": [
            {"role": "system", "content": "You are helpful."},
            {"role": "user", "content": "Bonjour, ça va ? 日本語"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "{\"temp\": 21.5}"},
            {"role": "user", "content": [{"type": "text", "text": "and tomorrow?"},
                                         {"type": "image_url", "image_url": {"url": "https://x/y.png"}}]}
        ],
        "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather",
                   "parameters": {"type": "object", "properties": {"city": {"type": "string"},
                   "days": {"type": "integer", "minimum": 1}}, "required": ["city"]}}}],
        "add_generation_prompt": true,
        "bos_token": "<s>", "eos_token": "</s>",
        "n": 3, "x": -2.5, "big": 9223372036854775807, "flag": false, "nothing": null,
        "items": [3, 1, 2, "a", [1, 2], {"k": "v"}],
        "user": {"name": "Ada", "age": 36, "tags": ["x", "y"]}
    })");
    return ctx;
}

// The environments with limits small enough that a template which reaches one (a list that grows
// while a loop reads it, ten million times) does so in a fraction of a second under the
// sanitizers: reaching a limit is the expected outcome, a hang is not.
parley::jinja::environment with_fuzz_limits(parley::jinja::environment env) {
    parley::jinja::limits l = env.opts().limit;
    l.max_loop_iterations = 100'000;
    l.max_range = 100'000;
    l.max_output = std::size_t(1) << 20;
    env.set_limits(l);
    return env;
}

const parley::jinja::environment& fuzz_environment(bool hf) {
    static const parley::jinja::environment plain = with_fuzz_limits(parley::jinja::environment::named("plain"));
    static const parley::jinja::environment hf_env = with_fuzz_limits(parley::jinja::environment::named("hf"));
    return hf ? hf_env : plain;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const bool hf = (data[0] & 1) != 0;
    const std::string_view source(reinterpret_cast<const char*>(data) + 1, size - 1);
    const auto& env = fuzz_environment(hf);
    try {
        const parley::jinja::parsed_template t = env.parse(source, "fuzz");
        std::string out = "prefix:";
        try {
            t.render_to(out, fuzz_context());
        } catch (const parley::template_error&) {
            if (out != "prefix:") std::abort();  // a failed render must leave the output as it was
        }
    } catch (const parley::template_error&) {
    }
    return 0;
}
