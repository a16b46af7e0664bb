// `parley batch`: a template run for every line of a JSON-lines file, N at once against one
// endpoint, with parley::batch_runner: one output line per input, resumable (docs/batch.md).
#include "batch_via.hpp"
#include "cli_provider.hpp"
#include "commands.hpp"
#include "usage_report.hpp"

#include <parley/batch.hpp>
#include <parley/bot/bot.hpp>
#include <parley/bot/client_model.hpp>
#include <parley/bot/extract_json.hpp>
#include <parley/chat/json.hpp>
#include <parley/chat/yaml.hpp>
#include <parley/schema/validator.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/use_future.hpp>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace parley_cli {

const char* const batch_usage =
    "usage: parley batch TEMPLATES.yaml [--template NAME] --input IN.jsonl --output OUT.jsonl\n"
    "                    [--concurrency N] [--retries N] [--timeout SECONDS] [--retry-failed]\n"
    "                    [--messages | --extract SCHEMA.json [--extract-mode tool-call|json-schema|json-text]\n"
    "                     [--extract-retries N] [--extract-name NAME] [--extract-strict]]\n"
    "                    [--base-url URL] [--model NAME] [--api openai|responses|anthropic|\n"
    "                    gemini|ollama|azure|azure-responses|echo] [--ca-file PEM] [--models FILE]\n"
    "                    [--progress|--no-progress]\n"
    "                    [--via openai-batch|anthropic-batch [--poll-interval SECONDS] [--batch-size N] [--cancel]]\n"
    "\n"
    "Runs a template (docs/bot.md) for every line of IN.jsonl, a JSON object with an \"id\" (a\n"
    "string or an integer, unique) whose members are the template's data, N at once, and appends\n"
    "one line per input to OUT.jsonl: {\"id\", \"result\": the text of the last reply} or {\"id\",\n"
    "\"error\": {\"code\", \"message\", \"status\"...}}, with \"usage\", \"attempts\" and \"latency_ms\"\n"
    "(docs/batch.md). The ids OUT.jsonl already holds are skipped: run the command again to resume\n"
    "after an interruption. Rate limits (retry-after, x-ratelimit-*, anthropic-ratelimit-*) hold\n"
    "every worker back. On a terminal, a progress line; at the end, a summary, on standard error.\n"
    "  --template NAME    the template to run (needed when the set has several)\n"
    "  --input FILE       the inputs, one JSON object per line\n"
    "  --output FILE      the results, appended (created when missing)\n"
    "  --concurrency N    inputs in flight at once (default 16)\n"
    "  --retries N        retries of an input after a failure worth retrying: a time-out, a broken\n"
    "                     connection or stream, 408, 409, 429, 5xx (default 4)\n"
    "  --timeout SECONDS  the time limit of one request, and of the wait for its next bytes\n"
    "                     (default 120)\n"
    "  --retry-failed     remove the error lines of OUT.jsonl first, so that those inputs run again\n"
    "  --messages         the result is every message the run added (a JSON array), not the text\n"
    "  --extract FILE     the result is a JSON value that fits the JSON Schema of FILE (draft 2020-12\n"
    "                     or draft-07), asked for with the template's messages (up to its request) as\n"
    "                     the prompt; a reply that does not fit is re-asked with the validator's\n"
    "                     errors; an input whose replies never fit is an error line with the last\n"
    "                     reply and its errors (docs/batch.md)\n"
    "  --extract-mode M   tool-call (a forced call of a function whose parameters are the schema; the\n"
    "                     default), json-schema (the API's structured output), json-text (the schema\n"
    "                     in the prompt, JSON read from the reply's text)\n"
    "  --extract-retries N  re-asks after a reply that does not fit (default 2)\n"
    "  --extract-name NAME  the function's or schema's name (default: FILE's name without its\n"
    "                     extension, when it is a valid name, else extract)\n"
    "  --extract-strict   json-schema mode: ask for strict structured output (\"strict\": true)\n"
    "  --api NAME         the wire API: openai (and compatible servers), responses, anthropic,\n"
    "                     gemini, ollama, azure, azure-responses, or the in-process echo model;\n"
    "                     --provider is another name for it\n"
    "  --base-url URL     the API's base URL (default: OPENAI_BASE_URL / ANTHROPIC_BASE_URL /\n"
    "                     GOOGLE_GEMINI_BASE_URL / AZURE_OPENAI_ENDPOINT + /openai / OLLAMA_HOST)\n"
    "  --model NAME       the model of every request, in place of the templates' (PARLEY_MODEL:\n"
    "                     the model of requests that name none)\n"
    "  --ca-file PEM      also trust the CAs in this file\n"
    "  --models FILE      a model catalog (JSON: context windows and prices) over the built-in one;\n"
    "                     the cost in the progress line and the summary comes from its prices\n"
    "  --progress         the progress line even when standard error is not a terminal\n"
    "  --no-progress      no progress line\n"
    "  --via API          send the requests through a provider's batch API instead (openai-batch:\n"
    "                     OpenAI's Batch API, with --api openai or responses; anthropic-batch:\n"
    "                     Anthropic's Message Batches API): templates of one request only; the\n"
    "                     batches are kept in OUT.jsonl.batches.json until their results are written,\n"
    "                     so that the same command run again resumes polling them\n"
    "  --poll-interval S  --via: the wait between polls of a batch, growing while nothing changes\n"
    "                     (default 30)\n"
    "  --batch-size N     --via: requests per batch (default and most: the API's limit, 50,000 for\n"
    "                     OpenAI, 100,000 for Anthropic; batches are also cut at 200 MB / 256 MB)\n"
    "  --cancel           --via: cancel the batches of the state file, write the lines of the\n"
    "                     requests done before, and forget the batches\n"
    "Exit status: 0 when every input has a result line, 3 when the output holds error lines, 1\n"
    "when the run cannot start (an input line that is not an object with an id, a repeated id, an\n"
    "output file that is not a batch's, a schema the validator refuses) or stops on an error, 2 for a\n"
    "wrong command line. SIGINT or\n"
    "SIGTERM stops starting inputs; those in flight end and are written, then parley dies of the\n"
    "signal (a second one ends it at once).\n";

namespace {

/// Reads a JSON-lines file in blocks and gives its lines with their numbers.
class jsonl_reader {
public:
    explicit jsonl_reader(const std::string& path) : path_(path) {
        fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd_ < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
    }
    ~jsonl_reader() {
        if (fd_ >= 0) ::close(fd_);
    }
    jsonl_reader(const jsonl_reader&) = delete;
    jsonl_reader& operator=(const jsonl_reader&) = delete;

    /// The next line (without its line break; the last line may lack one) and its number; false
    /// at the end.
    bool next(std::string_view& line, std::size_t& number) {
        for (;;) {
            if (at_ < buffer_.size()) {
                const std::size_t nl = buffer_.find('\n', at_);
                if (nl != std::string::npos) {
                    line = std::string_view(buffer_).substr(at_, nl - at_);
                    at_ = nl + 1;
                    number = ++number_;
                    return true;
                }
            }
            if (eof_) {
                if (at_ >= buffer_.size()) return false;
                line = std::string_view(buffer_).substr(at_);
                at_ = buffer_.size();
                number = ++number_;
                return true;
            }
            buffer_.erase(0, at_);
            at_ = 0;
            if (buffer_.size() > limits_.max_line_bytes)
                throw std::runtime_error(path_ + ":" + std::to_string(number_ + 1) + ": the line is longer than " +
                                         std::to_string(limits_.max_line_bytes) + " bytes");
            char block[1 << 16];
            const ssize_t n = ::read(fd_, block, sizeof block);
            if (n < 0) {
                if (errno == EINTR) continue;
                throw std::runtime_error("cannot read " + path_ + ": " + std::strerror(errno));
            }
            if (n == 0) eof_ = true;
            if (first_ && n > 0) {
                first_ = false;
                std::string_view b(block, static_cast<std::size_t>(n));
                if (b.starts_with("\xEF\xBB\xBF")) b.remove_prefix(3);  // a byte order mark
                buffer_.append(b);
            } else {
                buffer_.append(block, static_cast<std::size_t>(n));
            }
        }
    }

private:
    std::string path_;
    int fd_ = -1;
    std::string buffer_;
    std::size_t at_ = 0;
    std::size_t number_ = 0;
    bool eof_ = false;
    bool first_ = true;
    parley::batch_line_limits limits_;
};

/// The inputs of the file, read as the runner asks for them (a single-pass range).
class batch_input_file {
public:
    class iterator {
    public:
        using value_type = parley::batch_input;
        using difference_type = std::ptrdiff_t;
        iterator() = default;
        explicit iterator(batch_input_file* f) : f_(f) { advance(); }
        const parley::batch_input& operator*() const { return current_; }
        iterator& operator++() {
            advance();
            return *this;
        }
        void operator++(int) { advance(); }
        friend bool operator==(const iterator& i, std::default_sentinel_t) { return i.f_ == nullptr; }

    private:
        void advance() {
            std::string_view line;
            std::size_t number = 0;
            while (f_->reader_.next(line, number)) {
                std::optional<parley::batch_line_error> failure;
                if (auto in = parley::read_batch_input_line(line, number, f_->path_, failure)) {
                    current_ = std::move(*in);
                    return;
                }
                if (failure) throw std::runtime_error(failure->message + " (the file changed while the batch ran)");
            }
            f_ = nullptr;
        }
        batch_input_file* f_ = nullptr;
        parley::batch_input current_;
    };

    explicit batch_input_file(std::string path) : path_(std::move(path)), reader_(path_) {}
    iterator begin() { return iterator(this); }
    std::default_sentinel_t end() const { return {}; }

private:
    std::string path_;
    jsonl_reader reader_;
};

/// What the first reading of the input file found: the number of inputs, and those the output
/// file does not hold yet.
struct input_survey {
    std::size_t inputs = 0;
    std::size_t to_run = 0;
};

/// Reads every line of the input file before anything runs: each must be an object with an id,
/// no id may repeat. Throws std::runtime_error listing the first problems.
input_survey survey_inputs(const std::string& path, const parley::batch_sink& output) {
    jsonl_reader reader(path);
    std::unordered_map<std::string, std::size_t> first_line;
    std::vector<std::string> problems;
    std::size_t more = 0;
    input_survey s;
    std::string_view line;
    std::size_t number = 0;
    auto problem = [&](std::string message) {
        if (problems.size() < 10) problems.push_back(std::move(message));
        else ++more;
    };
    while (reader.next(line, number)) {
        std::optional<parley::batch_line_error> failure;
        auto in = parley::read_batch_input_line(line, number, path, failure);
        if (!in) {
            if (failure) problem(failure->message);
            continue;
        }
        std::string why;
        const std::string key = *parley::batch_id_key(in->id, why);
        if (auto [at, fresh] = first_line.emplace(key, number); !fresh) {
            problem(path + ":" + std::to_string(number) + ": the id " + key + " is that of line " + std::to_string(at->second) +
                    " already: ids must be unique");
            continue;
        }
        ++s.inputs;
        if (!output.done(key)) ++s.to_run;
    }
    if (!problems.empty()) {
        std::string message;
        for (const auto& p : problems) message += (message.empty() ? "" : "\n") + p;
        if (more) message += "\n... and " + std::to_string(more) + " more";
        throw std::runtime_error(message + "\n(nothing was run)");
    }
    return s;
}

/// Every request's model as the command line says: `--model` in place of the templates',
/// PARLEY_MODEL where a request names none.
class model_choice final : public parley::chat_model {
public:
    model_choice(std::shared_ptr<parley::chat_model> inner, std::optional<std::string> model, std::optional<std::string> fallback)
        : inner_(std::move(inner)), model_(std::move(model)), fallback_(std::move(fallback)) {}
    std::string default_model() const override { return model_ ? *model_ : fallback_ ? *fallback_ : inner_->default_model(); }
    boost::asio::awaitable<boost::system::result<parley::chat_reply, parley::call_error>> chat(
        parley::chat_request request, const parley::stream_handler* on_event) override {
        if (model_) request.params.model = *model_;
        else if (!request.params.model && fallback_) request.params.model = *fallback_;
        co_return co_await inner_->chat(std::move(request), on_event);
    }

private:
    std::shared_ptr<parley::chat_model> inner_;
    std::optional<std::string> model_, fallback_;
};

std::size_t count_option(const std::optional<std::string>& text, std::string_view option, std::size_t least) {
    if (!text) return 0;
    std::size_t n = 0;
    const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), n);
    if (text->empty() || ec != std::errc() || end != text->data() + text->size() || n < least)
        throw usage_error(std::string(option) + " takes a whole number" + (least ? " of at least " + std::to_string(least) : std::string()) +
                          ", not '" + *text + "'");
    return n;
}

/// "1.2k", "34.5M": a count for the progress line.
std::string short_count(double n) {
    char text[32];
    if (n >= 1e9) std::snprintf(text, sizeof text, "%.1fG", n / 1e9);
    else if (n >= 1e6) std::snprintf(text, sizeof text, "%.1fM", n / 1e6);
    else if (n >= 1e4) std::snprintf(text, sizeof text, "%.1fk", n / 1e3);
    else std::snprintf(text, sizeof text, "%.0f", n);
    return text;
}

std::string duration_text(std::chrono::seconds s) {
    const auto n = s.count();
    char text[32];
    if (n >= 3600) std::snprintf(text, sizeof text, "%lldh%02lldm", static_cast<long long>(n / 3600), static_cast<long long>(n / 60 % 60));
    else if (n >= 60) std::snprintf(text, sizeof text, "%lldm%02llds", static_cast<long long>(n / 60), static_cast<long long>(n % 60));
    else std::snprintf(text, sizeof text, "%llds", static_cast<long long>(n));
    return text;
}

/// The cost of the usage at the catalog's prices, or "no price known" for a model without one.
std::string cost_text(const parley::usage_summary& usage, const parley::model_catalog& catalog) {
    const parley::usage_cost c = usage.cost(catalog);
    if (usage.total().input_tokens == 0 && usage.total().output_tokens == 0) return "$0";
    if (!c.complete() && c.dollars == 0) return "no price known for " + c.unpriced.front();
    return dollars(c.dollars) + (c.complete() ? "" : " (without " + c.unpriced.front() + ", which has no price)");
}

/// The progress line: `done 1,234/20,000 (3 failed) · 4,870/s · ETA 3s · 12.3k in, 4.5k out tokens · $0.0123`.
std::string progress_line(const parley::batch_progress& p, const parley::model_catalog& catalog) {
    std::string s = "done " + grouped(static_cast<std::int64_t>(p.done));
    if (p.total) s += "/" + grouped(static_cast<std::int64_t>(*p.total));
    if (p.failed) s += " (" + grouped(static_cast<std::int64_t>(p.failed)) + " failed)";
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.0f/s", p.rate());
    s += " \xc2\xb7 " + std::string(rate);
    if (auto eta = p.eta()) s += " \xc2\xb7 ETA " + duration_text(*eta);
    const parley::model_usage t = p.usage.total();
    s += " \xc2\xb7 " + short_count(static_cast<double>(t.input_tokens)) + " in, " + short_count(static_cast<double>(t.output_tokens)) +
         " out tokens \xc2\xb7 " + cost_text(p.usage, catalog);
    if (std::chrono::steady_clock::now() < p.held_until) s += " \xc2\xb7 held by a rate limit";
    return s;
}

/// Whether `name` is a function name the APIs take: 1 to 64 letters, digits, '_' and '-'.
bool valid_function_name(std::string_view name) {
    if (name.empty() || name.size() > 64) return false;
    for (const char c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
    return true;
}

/// The violations of a reply as the error line shows them.
boost::json::array violations_json(const std::vector<parley::schema_violation>& violations) {
    boost::json::array out;
    for (const auto& v : violations)
        out.push_back(boost::json::object{{"instance_path", v.instance_path}, {"schema_path", v.schema_path}, {"keyword", v.keyword},
                                          {"message", v.message}});
    return out;
}

/// The work of an input with --extract: the value, a failed call (which the runner may retry),
/// or an error line with the last reply and its violations.
boost::asio::awaitable<parley::batch_outcome> extract_work(parley::chat_model& model, const parley::conversation_template& prompt,
                                                           const parley::batch_input& in, const parley::schema_validator& schema,
                                                           parley::extract_json_options opt, parley::batch_attempt& attempt) {
    std::vector<parley::schema_violation> violations;
    opt.usage = &attempt.usage();
    opt.violations = &violations;
    auto r = co_await parley::extract_json(model, prompt, in.data, schema, std::move(opt));
    if (r) co_return std::move(*r);
    const parley::extraction_failure& f = r.error();
    if (f.call) co_return *f.call;
    boost::json::object details;
    if (!f.attempts.empty()) {
        details["reply"] = f.attempts.back().reply;
        details["problems"] = f.attempts.back().problems;
    }
    details["violations"] = violations_json(violations);
    throw parley::batch_input_error(f.code, f.what(), std::move(details));
}

}  // namespace

int batch_main(const std::vector<std::string>& args) {
    std::optional<std::string> name, input, output, concurrency_text, retries_text, timeout_text, base_url, model, provider, api,
        ca_file, models_file, via_text, poll_text, batch_size_text, extract_file, extract_mode_text,
        extract_retries_text, extract_name;
    bool retry_failed = false, messages = false, progress_on = false, progress_off = false, cancel = false,
         extract_strict = false;
    std::optional<parley::batch_api> via;
    double poll_interval = 30;
    std::size_t batch_size = 0;
    parley::extract_mode extract_mode = parley::extract_mode::tool_call;
    std::size_t extract_retries = 2;
    std::vector<std::string> words;
    std::optional<parley::api> which;
    std::size_t concurrency = 16, retries = 4;
    double timeout = 120;
    try {
        auto parsed = option_list()
                          .value("--template", name)
                          .value("--input", input)
                          .value("--output", output)
                          .value("--concurrency", concurrency_text)
                          .value("--retries", retries_text)
                          .value("--timeout", timeout_text)
                          .value("--base-url", base_url)
                          .value("--model", model)
                          .value("--provider", provider)
                          .value("--api", api)
                          .value("--ca-file", ca_file)
                          .value("--models", models_file)
                          .value("--extract", extract_file)
                          .value("--extract-mode", extract_mode_text)
                          .value("--extract-retries", extract_retries_text)
                          .value("--extract-name", extract_name)
                          .flag("--extract-strict", extract_strict)
                          .flag("--retry-failed", retry_failed)
                          .flag("--messages", messages)
                          .flag("--progress", progress_on)
                          .flag("--no-progress", progress_off)
                          .value("--via", via_text)
                          .value("--poll-interval", poll_text)
                          .value("--batch-size", batch_size_text)
                          .flag("--cancel", cancel)
                          .parse(args);
        if (!parsed) {
            std::cout << batch_usage;
            return 0;
        }
        words = std::move(*parsed);
        if (words.size() != 1) throw usage_error(words.empty() ? "give the template file" : "give one template file, found " + std::to_string(words.size()) + " words");
        if (!input) throw usage_error("give the inputs with --input FILE");
        if (!output) throw usage_error("give the output file with --output FILE");
        if (progress_on && progress_off) throw usage_error("--progress and --no-progress exclude each other");
        if (!extract_file && (extract_mode_text || extract_retries_text || extract_name || extract_strict))
            throw usage_error("--extract-mode, --extract-retries, --extract-name and --extract-strict go with --extract SCHEMA.json");
        if (extract_file && messages) throw usage_error("--messages and --extract exclude each other");
        if (extract_mode_text) {
            if (*extract_mode_text == "tool-call") extract_mode = parley::extract_mode::tool_call;
            else if (*extract_mode_text == "json-schema") extract_mode = parley::extract_mode::json_schema;
            else if (*extract_mode_text == "json-text") extract_mode = parley::extract_mode::json_text;
            else throw usage_error("--extract-mode takes tool-call, json-schema or json-text, not '" + *extract_mode_text + "'");
        }
        if (extract_strict && extract_mode != parley::extract_mode::json_schema)
            throw usage_error("--extract-strict goes with --extract-mode json-schema");
        if (extract_retries_text) extract_retries = count_option(extract_retries_text, "--extract-retries", 0);
        if (extract_retries > 100) throw usage_error("--extract-retries takes at most 100");
        if (extract_name && !valid_function_name(*extract_name))
            throw usage_error("--extract-name takes a name of 1 to 64 letters, digits, '_' and '-', not '" + *extract_name + "'");
        which = api_option(api, provider, false);
        if (concurrency_text) concurrency = count_option(concurrency_text, "--concurrency", 1);
        if (concurrency > 100000) throw usage_error("--concurrency takes at most 100000");
        if (retries_text) retries = count_option(retries_text, "--retries", 0);
        if (timeout_text) {
            char* end = nullptr;
            timeout = std::strtod(timeout_text->c_str(), &end);
            if (timeout_text->empty() || end != timeout_text->c_str() + timeout_text->size() || !(timeout > 0) || timeout > 86400)
                throw usage_error("--timeout takes a number of seconds above 0 (at most 86400), not '" + *timeout_text + "'");
        }
        if (via_text) {
            via = parley::batch_api_from_name(*via_text);
            if (!via) throw usage_error("--via takes openai-batch or anthropic-batch, not '" + *via_text + "'");
            // an extraction re-asks a reply that does not fit, which a batch submitted at once cannot
            if (extract_file) throw usage_error("--extract runs with direct requests, not with --via");
            if (concurrency_text || retries_text)
                throw usage_error(std::string(concurrency_text ? "--concurrency" : "--retries") +
                                  " has no meaning with --via: the provider runs the batch");
            if (poll_text) {
                char* end = nullptr;
                poll_interval = std::strtod(poll_text->c_str(), &end);
                if (poll_text->empty() || end != poll_text->c_str() + poll_text->size() || !(poll_interval >= 0.001) || poll_interval > 86400)
                    throw usage_error("--poll-interval takes a number of seconds from 0.001 to 86400, not '" + *poll_text + "'");
            }
            if (batch_size_text) batch_size = count_option(batch_size_text, "--batch-size", 1);
        } else if (poll_text || batch_size_text || cancel) {
            throw usage_error(std::string(poll_text ? "--poll-interval" : batch_size_text ? "--batch-size" : "--cancel") + " goes with --via");
        }
    } catch (const usage_error& e) {
        std::cerr << "error: " << e.what() << "\n" << batch_usage;
        return 2;
    }
    const std::string& file = words[0];
    parley::model_catalog catalog = parley::model_catalog::builtin();
    try {
        if (models_file) catalog.merge(parley::model_catalog::from_file(*models_file));
        parley::template_set set = load_templates(file, std::nullopt, {std::string(parley::switch_template_function)}, true);
        const parley::conversation_template& chosen = select_template(set, name, file);
        const std::string template_name = chosen.name();
        for (const auto& f : set.functions())
            throw std::runtime_error(file + ": function '" + f.name + "': parley batch runs templates without functions (use parley run for them)");

        // --extract: the schema, read and checked before anything runs
        std::optional<parley::schema_validator> schema;
        parley::extract_json_options extraction;
        if (extract_file) {
            schema.emplace(parley::schema_validator::from_file(*extract_file));
            extraction.mode = extract_mode;
            extraction.max_retries = static_cast<unsigned>(extract_retries);
            extraction.strict = extract_strict;
            const std::string stem = std::filesystem::path(*extract_file).stem().string();
            extraction.name = extract_name ? *extract_name : valid_function_name(stem) ? stem : "extract";
            const boost::json::value& root = schema->schema();
            const auto* type = root.is_object() ? root.get_object().if_contains("type") : nullptr;
            if (extract_mode == parley::extract_mode::tool_call && (!type || *type != "object"))
                throw std::runtime_error(*extract_file + ": --extract-mode tool-call needs a schema whose root is an object schema "
                                                         "(\"type\": \"object\"): a function's parameters are an object (json-schema and "
                                                         "json-text take any schema)");
            const auto& ms = chosen.messages();
            for (std::size_t i = 0; i < ms.size(); ++i)
                if (ms[i].role == parley::role::request && i + 1 < ms.size())
                    throw std::runtime_error(file + ": template '" + template_name + "': with --extract, the template's messages up "
                                                    "to its first request message are the prompt of the extraction; message " +
                                             std::to_string(i + 2) + " comes after it");
        }

        parley::batch_file_options file_options;
        file_options.retry_failed = retry_failed;
        parley::batch_file out(*output, file_options);
        if (out.state().cut_bytes)
            std::cerr << "parley: " << *output << ":" << out.state().cut_line << ": the last line was cut short (" << out.state().cut_bytes
                      << " bytes, a run killed while writing it): cut off; its input runs again\n";
        if (out.state().dropped_errors)
            std::cerr << "parley: " << *output << ": removed " << out.state().dropped_errors
                      << (out.state().dropped_errors == 1 ? " error line" : " error lines") << " (--retry-failed)\n";
        const input_survey survey = survey_inputs(*input, out);
        if (via) {
            batch_via_run run;
            run.api = *via;
            run.set = &set;
            run.template_name = template_name;
            run.templates_file = file;
            run.input = *input;
            run.output = *output;
            run.out = &out;
            run.to_run = survey.to_run;
            std::optional<parley::api> which_api = which;
            if (!which_api) which_api = *via == parley::batch_api::openai ? parley::api::openai : parley::api::anthropic;
            run.config = client_config_of(which_api, base_url, ca_file, "the echo model");
            run.model = model;
            if (const char* m = std::getenv("PARLEY_MODEL"); m && *m) run.fallback_model = m;
            run.catalog = &catalog;
            run.messages = messages;
            run.show_progress = progress_on || (!progress_off && ::isatty(2));
            run.cancel = cancel;
            run.poll_interval = std::chrono::milliseconds(static_cast<std::int64_t>(poll_interval * 1000));
            run.batch_size = batch_size;
            if (timeout_text) run.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(timeout * 1000));
            return batch_via_main(run);
        }

        boost::asio::io_context io(1);
        std::shared_ptr<parley::chat_model> inner;
        parley::client_config config = client_config_of(which, base_url, ca_file, "the echo model");
        if (config.api == parley::api::echo) {
            inner = std::make_shared<parley::in_process_model>(std::make_shared<parley::echo_model>());
        } else {
            const auto limit = std::chrono::milliseconds(static_cast<std::int64_t>(timeout * 1000));
            config.net.timeouts.idle = limit;
            config.net.timeouts.total = limit;
            config.net.retry.max_retries = 0;  // the runner retries, each attempt through the governor
            config.net.max_connections_per_host = concurrency;
            inner = std::make_shared<parley::client_model>(std::make_shared<parley::chat_client>(io.get_executor(), std::move(config)));
        }
        std::optional<std::string> fallback_model;
        if (const char* m = std::getenv("PARLEY_MODEL"); m && *m) fallback_model = m;

        parley::batch_options options;
        options.concurrency = concurrency;
        options.retry.max_retries = static_cast<unsigned>(std::min<std::size_t>(retries, 1000));
        options.total = survey.to_run;
        const bool show_progress = progress_on || (!progress_off && ::isatty(2));
        std::size_t shown = 0;  // the width of the progress line on screen
        if (show_progress) {
            options.on_progress = [&](const parley::batch_progress& p) {
                std::string line = progress_line(p, catalog);
                const std::size_t width = line.size();
                if (width < shown) line.append(shown - width, ' ');
                shown = width;
                std::cerr << '\r' << line << std::flush;
            };
        }
        parley::batch_runner runner(io.get_executor(), options);
        auto model_chain = std::make_shared<parley::governed_model>(std::make_shared<model_choice>(inner, model, fallback_model),
                                                                   runner.governor());
        parley::bot_options bot_options;
        bot_options.models = catalog;
        parley::bot bot(set, model_chain, std::move(bot_options));
        const std::size_t context_window = model ? catalog.context_window(*model).value_or(0) : 0;

        auto work = [&](const parley::batch_input& in, parley::batch_attempt& attempt) -> boost::asio::awaitable<parley::batch_outcome> {
            if (schema) co_return co_await extract_work(*model_chain, chosen, in, *schema, extraction, attempt);
            parley::run_options opt;
            opt.usage = &attempt.usage();
            opt.context_window = context_window;
            std::vector<parley::message> added = co_await bot.run(template_name, in.data, {}, std::move(opt));
            if (messages) co_return boost::json::value(parley::conversation_to_json(added));
            for (auto it = added.rbegin(); it != added.rend(); ++it)
                if (it->role == parley::role::assistant) co_return boost::json::value(it->text());
            co_return boost::json::value(nullptr);
        };

        // SIGINT / SIGTERM: no input starts after it; a second one ends parley at once
        int stopped_by = 0;
        boost::asio::signal_set signals(io, SIGINT, SIGTERM);
        signals.async_wait([&](const boost::system::error_code& ec, int sig) {
            if (ec) return;
            stopped_by = sig;
            runner.stop();
            std::signal(SIGINT, SIG_DFL);
            std::signal(SIGTERM, SIG_DFL);
        });
        std::signal(SIGPIPE, SIG_IGN);

        batch_input_file inputs(*input);
        std::optional<parley::batch_progress> result;
        std::exception_ptr failure;
        boost::asio::co_spawn(io, runner.run(inputs, work, out), [&](std::exception_ptr e, parley::batch_progress p) {
            if (e) failure = e;
            else result = std::move(p);
            signals.cancel();
        });
        io.run();
        if (show_progress && shown) std::cerr << '\n';
        if (failure) std::rethrow_exception(failure);
        const parley::batch_progress& p = *result;

        // the summary, always
        const std::size_t errors_in_file = out.state().errors + p.failed;
        std::cerr << "batch: " << grouped(static_cast<std::int64_t>(p.done)) << (p.done == 1 ? " input" : " inputs") << " done ("
                  << grouped(static_cast<std::int64_t>(p.done - p.failed)) << " results, " << grouped(static_cast<std::int64_t>(p.failed))
                  << " errors)";
        if (p.skipped) std::cerr << ", " << grouped(static_cast<std::int64_t>(p.skipped)) << " already in " << *output;
        if (p.retries) std::cerr << ", " << grouped(static_cast<std::int64_t>(p.retries)) << " retries";
        char rate[64];
        std::snprintf(rate, sizeof rate, "%.1f s, %.0f/s", std::chrono::duration<double>(p.elapsed).count(), p.rate());
        std::cerr << "; " << rate << '\n';
        const parley::model_usage t = p.usage.total();
        std::cerr << "batch: " << grouped(t.requests) << " requests, " << grouped(t.input_tokens) << " input tokens, "
                  << grouped(t.output_tokens) << " output tokens; " << cost_text(p.usage, catalog) << '\n';
        if (p.governor.pauses)
            std::cerr << "batch: rate limits held the workers back " << p.governor.pauses << (p.governor.pauses == 1 ? " time" : " times")
                      << " (" << p.governor.paused.count() << " ms in all)\n";
        if (stopped_by) {
            const std::size_t left = survey.to_run - p.done;
            std::cerr << "parley: interrupted (" << (stopped_by == SIGTERM ? "SIGTERM" : "SIGINT") << "): " << grouped(static_cast<std::int64_t>(left))
                      << " inputs not run; run the same command again to resume\n";
            std::cerr.flush();
            std::signal(stopped_by, SIG_DFL);
            std::raise(stopped_by);
            return 128 + stopped_by;
        }
        if (errors_in_file)
            std::cerr << "batch: " << *output << " holds " << grouped(static_cast<std::int64_t>(errors_in_file))
                      << (errors_in_file == 1 ? " error line" : " error lines") << " (--retry-failed runs those inputs again)\n";
        return errors_in_file ? 3 : 0;
    } catch (const usage_error& e) {
        std::cerr << "error: " << e.what() << "\n" << batch_usage;
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}

}  // namespace parley_cli
