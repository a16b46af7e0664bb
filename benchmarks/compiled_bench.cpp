// Benchmarks of compile-time templates (parley/jinja/compiled.hpp; docs/benchmarks.md,
// "Compile-time templates"): ChatML over 3, 100 and 1000 messages held in a std::vector of
// described structs, rendered by the code generated for the template, next to a hand-written
// std::string::append loop that writes the same bytes and to the run-time engine rendering the
// same source from the same structs; and the Rasa command-generator prompt of the shared corpus
// with a described context, generated code against the run-time engine.
//
//   parley-bench-compiled_bench [Google Benchmark flags]
//
// Benchmark names are CASE/VARIANT, CASE being chatml-N (N messages) or rasa-K (the K-th context
// of ../shared/corpus/rasa/contexts.json, from 0):
//   compiled      t.render(ctx): the generated code, into a new std::string
//   compiled_to   out.clear(); t.render_to(out, ctx): the same into one reused std::string
//   append        the hand-written loop into a new std::string (ChatML only)
//   append_to     the hand-written loop into a reused std::string (ChatML only)
//   runtime       r.render(ctx), r the run-time engine's parse of the same source
//                 (compiled_template<...>::runtime()), ctx the same described struct
//   runtime_to    out.clear(); r.render_to(out, ctx) into a reused std::string
//   runtime_json  r.render(json): the run-time engine with the context as a boost::json::value
//                 (how benchmarks/jinja_bench.cpp renders), for reference
//
// Before anything is timed, the program checks that the sources compiled in are the files'
// (examples/chat-templates/chatml.jinja, the Rasa prompt), that both templates take the
// generated path, and that every render case gives the expected bytes (ChatML: the hand-written
// loop's; Rasa: the run-time engine's on the JSON context); it stops with status 1 otherwise.
// Each benchmark checks its own output again before timing (SkipWithError on a mismatch).
#include "chatml_data.hpp"

#include <parley/jinja/compiled.hpp>

#include <rasa_prompt.hpp>  // generated from the corpus by benchmarks/CMakeLists.txt

#include <benchmark/benchmark.h>
#include <boost/describe/class.hpp>
#include <boost/json.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace chatml {

struct message {
    std::string role;
    std::string content;
};
BOOST_DESCRIBE_STRUCT(message, (), (role, content))

struct chatml_ctx {
    std::vector<message> messages;
    bool add_generation_prompt = false;
};
BOOST_DESCRIBE_STRUCT(chatml_ctx, (), (messages, add_generation_prompt))

/// examples/chat-templates/chatml.jinja; checked against the file at start-up.
struct source {
    static constexpr std::string_view value =
        R"jinja({% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %})jinja";
};

}  // namespace chatml

namespace rasa {

/// A slot of a flow that can be started. allowed_values is absent (undefined), null or a list.
struct flow_slot_info {
    std::string name;
    std::string description;
    std::optional<std::variant<std::nullptr_t, std::vector<std::string>>> allowed_values;
};
BOOST_DESCRIBE_STRUCT(flow_slot_info, (), (name, description, allowed_values))

struct flow {
    std::string name;
    std::string description;
    std::vector<flow_slot_info> slots;
};
BOOST_DESCRIBE_STRUCT(flow, (), (name, description, slots))

/// A slot of the active flow: value is null until filled.
struct active_slot {
    std::string name;
    std::variant<std::nullptr_t, std::string> value;
    std::string type;
    std::string description;
    std::optional<std::variant<std::nullptr_t, std::vector<std::string>>> allowed_values;
};
BOOST_DESCRIBE_STRUCT(active_slot, (), (name, value, type, description, allowed_values))

/// The variables Rasa's SingleStepLLMCommandGenerator passes to its prompt.
struct prompt_ctx {
    std::vector<flow> available_flows;
    std::string current_conversation;
    std::variant<std::nullptr_t, std::string> current_flow;
    std::variant<std::nullptr_t, std::string> current_slot;
    std::variant<std::nullptr_t, std::string> current_slot_description;
    std::vector<active_slot> flow_slots;
    std::string user_message;
    bool is_repeat_command_enabled = false;
};
BOOST_DESCRIBE_STRUCT(prompt_ctx, (), (available_flows, current_conversation, current_flow, current_slot,
                                       current_slot_description, flow_slots, user_message, is_repeat_command_enabled))

}  // namespace rasa

namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
namespace pj = parley::jinja;
using chatml::chatml_ctx;
using chatml::message;
using rasa::prompt_ctx;
using parley_bench::read_file;

constexpr pj::compiled_template<chatml::source> chatml_template;
constexpr pj::compiled_template<rasa::prompt_source> rasa_template;
using chatml_t = decltype(chatml_template);
using rasa_t = decltype(rasa_template);

constexpr std::array<std::size_t, 3> chatml_sizes = {3, 100, 1000};

fs::path chatml_template_path() {
    return fs::weakly_canonical(fs::path(PARLEY_BENCH_SOURCE_DIR) / "examples/chat-templates/chatml.jinja");
}
fs::path rasa_contexts_path() {
    return fs::weakly_canonical(fs::path(PARLEY_BENCH_SHARED_DIR) / "corpus/rasa/contexts.json");
}

// ---- ChatML data ------------------------------------------------------------------------------

// The conversation of n messages (chatml_data.hpp), add_generation_prompt true.
chatml_ctx chatml_context(std::size_t n) {
    chatml_ctx c;
    for (parley_bench::chatml_message& m : parley_bench::chatml_messages(n))
        c.messages.push_back({std::move(m.role), std::move(m.content)});
    c.add_generation_prompt = true;
    return c;
}

json::value to_json(const chatml_ctx& c) {
    json::array messages;
    for (const message& m : c.messages) messages.push_back(json::object{{"role", m.role}, {"content", m.content}});
    return json::object{{"messages", std::move(messages)}, {"add_generation_prompt", c.add_generation_prompt}};
}

// The baseline: ChatML written by hand from the same structs.
void chatml_append(std::string& out, const chatml_ctx& c) {
    for (const message& m : c.messages) {
        out.append("<|im_start|>");
        out.append(m.role);
        out.append("\n");
        out.append(m.content);
        out.append("<|im_end|>\n");
    }
    if (c.add_generation_prompt) out.append("<|im_start|>assistant\n");
}

// ---- Rasa contexts, read from contexts.json member by member (a member the structs do not
// have, or a value of another type, is an error: the structs hold exactly what the JSON holds) ----

[[noreturn]] void bad_context(const std::string& where, const std::string& what) {
    throw std::runtime_error(rasa_contexts_path().string() + ": " + where + ": " + what);
}

std::string read_string(const json::value& v, const std::string& where) {
    if (!v.is_string()) bad_context(where, "not a string");
    return std::string(v.get_string());
}

std::variant<std::nullptr_t, std::string> read_nullable_string(const json::value& v, const std::string& where) {
    if (v.is_null()) return nullptr;
    return read_string(v, where);
}

std::optional<std::variant<std::nullptr_t, std::vector<std::string>>> read_allowed_values(const json::object& o,
                                                                                           const std::string& where) {
    const json::value* v = o.if_contains("allowed_values");
    if (!v) return std::nullopt;
    if (v->is_null()) return nullptr;
    if (!v->is_array()) bad_context(where + ".allowed_values", "neither null nor a list");
    std::vector<std::string> list;
    for (const json::value& x : v->get_array()) list.push_back(read_string(x, where + ".allowed_values[]"));
    return list;
}

const json::object& read_object(const json::value& v, const std::string& where,
                                std::initializer_list<std::string_view> members) {
    if (!v.is_object()) bad_context(where, "not an object");
    for (const auto& kv : v.get_object()) {
        bool known = false;
        for (std::string_view m : members) known = known || kv.key() == m;
        if (!known) bad_context(where, "unexpected member " + std::string(kv.key()));
    }
    return v.get_object();
}

const json::value& member(const json::object& o, std::string_view name, const std::string& where) {
    const json::value* v = o.if_contains(name);
    if (!v) bad_context(where, "no member " + std::string(name));
    return *v;
}

// The list `v`, at `where` followed by `part` in the document: the location is a view, and its
// text is only made for the message of a failure (no temporary string for the returned reference
// to seem to depend on).
const json::array& read_array(const json::value& v, std::string_view where, std::string_view part = {}) {
    if (!v.is_array()) bad_context(std::string(where).append(part), "not a list");
    return v.get_array();
}

prompt_ctx read_rasa_context(const json::value& v, const std::string& where) {
    const json::object& o = read_object(v, where, {"available_flows", "current_conversation", "current_flow",
                                                   "current_slot", "current_slot_description", "flow_slots",
                                                   "user_message", "is_repeat_command_enabled"});
    prompt_ctx c;
    for (const json::value& f : read_array(member(o, "available_flows", where), where, ".available_flows")) {
        const std::string at = where + ".available_flows[]";
        const json::object& fo = read_object(f, at, {"name", "description", "slots"});
        rasa::flow fl{read_string(member(fo, "name", at), at + ".name"),
                      read_string(member(fo, "description", at), at + ".description"),
                      {}};
        for (const json::value& s : read_array(member(fo, "slots", at), at, ".slots")) {
            const std::string sat = at + ".slots[]";
            const json::object& so = read_object(s, sat, {"name", "description", "allowed_values"});
            fl.slots.push_back({read_string(member(so, "name", sat), sat + ".name"),
                                read_string(member(so, "description", sat), sat + ".description"),
                                read_allowed_values(so, sat)});
        }
        c.available_flows.push_back(std::move(fl));
    }
    c.current_conversation = read_string(member(o, "current_conversation", where), where + ".current_conversation");
    c.current_flow = read_nullable_string(member(o, "current_flow", where), where + ".current_flow");
    c.current_slot = read_nullable_string(member(o, "current_slot", where), where + ".current_slot");
    c.current_slot_description =
        read_nullable_string(member(o, "current_slot_description", where), where + ".current_slot_description");
    for (const json::value& s : read_array(member(o, "flow_slots", where), where, ".flow_slots")) {
        const std::string at = where + ".flow_slots[]";
        const json::object& so = read_object(s, at, {"name", "value", "type", "description", "allowed_values"});
        c.flow_slots.push_back({read_string(member(so, "name", at), at + ".name"),
                                read_nullable_string(member(so, "value", at), at + ".value"),
                                read_string(member(so, "type", at), at + ".type"),
                                read_string(member(so, "description", at), at + ".description"),
                                read_allowed_values(so, at)});
    }
    c.user_message = read_string(member(o, "user_message", where), where + ".user_message");
    const json::value& repeat = member(o, "is_repeat_command_enabled", where);
    if (!repeat.is_bool()) bad_context(where + ".is_repeat_command_enabled", "not a boolean");
    c.is_repeat_command_enabled = repeat.get_bool();
    return c;
}

// ---- inputs ---------------------------------------------------------------------------------------

template <class Ctx>
struct render_case {
    std::string name;  // chatml-N, rasa-K
    Ctx context;
    json::value json_context;
    std::string expected;
};

struct inputs {
    std::vector<render_case<chatml_ctx>> chatml;
    std::vector<render_case<prompt_ctx>> rasa;
};

// The compiled source must be the file's, as the run-time engine reads it (one final newline
// removed, line ends normalised): both go through the run-time engine's parse, and the sources
// it keeps are compared.
void check_same_source(std::string_view compiled, const fs::path& file) {
    const std::string parsed(pj::environment().parse(read_file(file), file.string()).source());
    if (parsed != compiled)
        throw std::runtime_error("the template compiled into this program differs from " + file.string() +
                                 ": update the copy in benchmarks/compiled_bench.cpp (or configure again "
                                 "for the Rasa prompt)");
}

inputs load_inputs() {
    check_same_source(chatml_t::source(), chatml_template_path());
    check_same_source(rasa_t::source(), fs::path(rasa::prompt_source::path));
    if (!chatml_t::is_compiled_for<chatml_ctx>)
        throw std::runtime_error("ChatML does not take the generated path with chatml_ctx (is_compiled_for is false)");

    inputs in;
    for (std::size_t n : chatml_sizes) {
        render_case<chatml_ctx> c{"chatml-" + std::to_string(n), chatml_context(n), {}, {}};
        c.json_context = to_json(c.context);
        chatml_append(c.expected, c.context);
        if (chatml_template.render(c.context) != c.expected)
            throw std::runtime_error(c.name + ": the compiled template's output differs from the hand-written loop's");
        if (chatml_t::runtime().render(c.context) != c.expected || chatml_t::runtime().render(c.json_context) != c.expected)
            throw std::runtime_error(c.name + ": the run-time engine's output differs from the hand-written loop's");
        in.chatml.push_back(std::move(c));
    }

    const json::value contexts = json::parse(read_file(rasa_contexts_path()));
    const json::array& list = read_array(contexts, "the document");
    if (list.empty()) bad_context("the document", "no contexts");
    for (std::size_t k = 0; k < list.size(); ++k) {
        const std::string name = "rasa-" + std::to_string(k);
        render_case<prompt_ctx> c{name, read_rasa_context(list[k], "[" + std::to_string(k) + "]"), list[k], {}};
        c.expected = rasa_t::runtime().render(c.json_context);
        if (rasa_template.render(c.context) != c.expected)
            throw std::runtime_error(name + ": the compiled template's output differs from the run-time engine's on "
                                            "the JSON context");
        if (rasa_t::runtime().render(c.context) != c.expected)
            throw std::runtime_error(name + ": the run-time engine renders the struct differently from the JSON");
        in.rasa.push_back(std::move(c));
    }
    return in;
}

// ---- benchmarks -------------------------------------------------------------------------------------

// Renders once outside the timing loop and compares with `expected`.
bool check(benchmark::State& state, const std::function<std::string()>& render, const std::string& expected) {
    try {
        if (render() != expected) {
            state.SkipWithError("the output differs from the expected bytes");
            return false;
        }
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        return false;
    }
    return true;
}

// `render(out)` appends one output to out. New: a new string per call; reused: one string cleared.
template <class Render>
void bench_new(benchmark::State& state, Render render, const std::string& expected) {
    if (!check(state, [&] { std::string s; render(s); return s; }, expected)) return;
    for (auto _ : state) {
        std::string out;
        render(out);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * expected.size()));
}

template <class Render>
void bench_reused(benchmark::State& state, Render render, const std::string& expected) {
    if (!check(state, [&] { std::string s; render(s); return s; }, expected)) return;
    std::string out;
    for (auto _ : state) {
        out.clear();
        render(out);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * expected.size()));
}

// compiled, compiled_to, runtime, runtime_to and runtime_json of one case. `compiled` and
// `runtime` go through render() (which returns a new string), as a caller would write them.
template <class T, class Ctx>
void register_template_cases(T t, const render_case<Ctx>& c) {
    const pj::parsed_template& r = T::runtime();
    benchmark::RegisterBenchmark((c.name + "/compiled").c_str(), [t, &c](benchmark::State& s) {
        bench_new(s, [&](std::string& out) { out = t.render(c.context); }, c.expected);
    });
    benchmark::RegisterBenchmark((c.name + "/compiled_to").c_str(), [t, &c](benchmark::State& s) {
        bench_reused(s, [&](std::string& out) { t.render_to(out, c.context); }, c.expected);
    });
    benchmark::RegisterBenchmark((c.name + "/runtime").c_str(), [&r, &c](benchmark::State& s) {
        bench_new(s, [&](std::string& out) { out = r.render(c.context); }, c.expected);
    });
    benchmark::RegisterBenchmark((c.name + "/runtime_to").c_str(), [&r, &c](benchmark::State& s) {
        bench_reused(s, [&](std::string& out) { r.render_to(out, c.context); }, c.expected);
    });
    benchmark::RegisterBenchmark((c.name + "/runtime_json").c_str(), [&r, &c](benchmark::State& s) {
        bench_new(s, [&](std::string& out) { out = r.render(c.json_context); }, c.expected);
    });
}

void register_benchmarks(const inputs& in) {
    for (const render_case<chatml_ctx>& c : in.chatml) {
        register_template_cases(chatml_template, c);
        benchmark::RegisterBenchmark((c.name + "/append").c_str(), [&c](benchmark::State& s) {
            bench_new(s, [&](std::string& out) { chatml_append(out, c.context); }, c.expected);
        });
        benchmark::RegisterBenchmark((c.name + "/append_to").c_str(), [&c](benchmark::State& s) {
            bench_reused(s, [&](std::string& out) { chatml_append(out, c.context); }, c.expected);
        });
    }
    for (const render_case<prompt_ctx>& c : in.rasa) register_template_cases(rasa_template, c);
}

const char* compiler() {
#if defined(__clang__)
    return "clang++ " __clang_version__;
#elif defined(__GNUC__)
    return "g++ " __VERSION__;
#else
    return "unknown";
#endif
}

}  // namespace

int main(int argc, char** argv) {
    static inputs in;
    try {
        in = load_inputs();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }

    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::AddCustomContext("parley_compiler", compiler());
#if defined(__OPTIMIZE__)
    benchmark::AddCustomContext("parley_optimized", "yes");
#else
    benchmark::AddCustomContext("parley_optimized", "no");
#endif
#if defined(NDEBUG)
    benchmark::AddCustomContext("parley_ndebug", "yes");
#else
    benchmark::AddCustomContext("parley_ndebug", "no");
#endif
    benchmark::AddCustomContext("parley_chatml_compiled", chatml_t::is_compiled_for<chatml_ctx> ? "yes" : "no");
    benchmark::AddCustomContext("parley_rasa_compiled", rasa_t::is_compiled_for<prompt_ctx> ? "yes" : "no");
    benchmark::AddCustomContext("parley_rasa_contexts", std::to_string(in.rasa.size()));
    std::string bytes;
    for (const auto& c : in.chatml) bytes += (bytes.empty() ? "" : ",") + c.name + "=" + std::to_string(c.expected.size());
    for (const auto& c : in.rasa) bytes += "," + c.name + "=" + std::to_string(c.expected.size());
    benchmark::AddCustomContext("parley_output_bytes", bytes);
    register_benchmarks(in);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
