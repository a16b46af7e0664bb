// `parley batch --via openai-batch|anthropic-batch`: each input's request rendered as the direct
// mode would send it, submitted through the provider's batch API with parley::provider_batch,
// resumable by batch id through the state file beside the output (docs/batch.md).
#include "batch_via.hpp"
#include "cli_options.hpp"
#include "usage_report.hpp"

#include <parley/batch/provider_batch.hpp>
#include <parley/bot/bot.hpp>
#include <parley/chat/json.hpp>
#include <parley/chat/rules.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/use_future.hpp>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace parley_cli {
namespace via {

/// Refuses a template that does not send exactly one request without functions: the batch APIs
/// answer each request alone, so a second request (a message after the first `request`
/// message) could not be sent with the first one's reply, nor a function's result.
void check_one_request(const parley::conversation_template& t, const std::string& file) {
    const auto& messages = t.messages();
    std::size_t first_request = messages.size();
    bool asks = false;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const parley::message& m = messages[i];
        if ((m.role == parley::role::request || m.role == parley::role::default_request) && m.params.functions &&
            !m.params.functions->empty())
            throw std::runtime_error(file + ": template '" + t.name() + "', message " + std::to_string(i + 1) +
                                     ": its request offers functions, which a batch cannot answer: --via runs templates of one "
                                     "request without functions (run the others without --via)");
        if (first_request == messages.size()) {
            if (m.role == parley::role::request) {
                first_request = i;
                asks = true;
            } else if (!parley::is_control(m.role)) {
                asks = true;
            }
            continue;
        }
        if (m.role == parley::role::request || !parley::is_control(m.role))
            throw std::runtime_error(file + ": template '" + t.name() + "' sends more than one request (message " + std::to_string(i + 1) +
                                     " follows the request of message " + std::to_string(first_request + 1) +
                                     "): --via runs templates of one request, since a batch sends every request with no reply "
                                     "before it (run it without --via)");
    }
    if (!asks) throw std::runtime_error(file + ": template '" + t.name() + "' sends no request: there is nothing to batch");
}

/// The lines of a JSON-lines file with their numbers and offsets, read in blocks.
class line_reader {
public:
    explicit line_reader(const std::string& path) : path_(path) {
        fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd_ < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
    }
    ~line_reader() {
        if (fd_ >= 0) ::close(fd_);
    }
    line_reader(const line_reader&) = delete;
    line_reader& operator=(const line_reader&) = delete;

    /// The next line (without its line break), its number and its offset in the file; false at the end.
    bool next(std::string_view& line, std::size_t& number, std::uint64_t& offset) {
        for (;;) {
            const std::size_t nl = buffer_.find('\n', at_);
            if (nl != std::string::npos || (eof_ && at_ < buffer_.size())) {
                const std::size_t end = nl == std::string::npos ? buffer_.size() : nl;
                line = std::string_view(buffer_).substr(at_, end - at_);
                offset = base_ + at_;
                at_ = nl == std::string::npos ? buffer_.size() : nl + 1;
                number = ++number_;
                return true;
            }
            if (eof_) return false;
            base_ += at_;
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
            if (n == 0) {
                eof_ = true;
                continue;
            }
            std::string_view b(block, static_cast<std::size_t>(n));
            if (first_ && b.starts_with("\xEF\xBB\xBF")) {  // a byte order mark
                b.remove_prefix(3);
                base_ += 3;
            }
            first_ = false;
            buffer_.append(b);
        }
    }

    /// `length` bytes at `offset`.
    std::string read_at(std::uint64_t offset, std::size_t length) const {
        std::string out(length, '\0');
        std::size_t got = 0;
        while (got < length) {
            const ssize_t n = ::pread(fd_, out.data() + got, length - got, static_cast<off_t>(offset + got));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) throw std::runtime_error("cannot read " + path_ + ": " + (n < 0 ? std::strerror(errno) : "it is shorter than before"));
            got += static_cast<std::size_t>(n);
        }
        return out;
    }

private:
    std::string path_;
    int fd_ = -1;
    std::string buffer_;
    std::size_t at_ = 0;
    std::uint64_t base_ = 0;  // the offset of buffer_[0] in the file
    std::size_t number_ = 0;
    bool eof_ = false;
    bool first_ = true;
    parley::batch_line_limits limits_;
};

/// The inputs of the file as a single-pass range.
class input_file {
public:
    class iterator {
    public:
        using value_type = parley::batch_input;
        using difference_type = std::ptrdiff_t;
        iterator() = default;
        explicit iterator(input_file* f) : f_(f) { advance(); }
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
            std::uint64_t offset = 0;
            while (f_->reader_.next(line, number, offset)) {
                std::optional<parley::batch_line_error> failure;
                if (auto in = parley::read_batch_input_line(line, number, f_->path_, failure)) {
                    current_ = std::move(*in);
                    return;
                }
                if (failure) throw std::runtime_error(failure->message + " (the file changed while the batch ran)");
            }
            f_ = nullptr;
        }
        input_file* f_ = nullptr;
        parley::batch_input current_;
    };

    explicit input_file(std::string path) : path_(std::move(path)), reader_(path_) {}
    iterator begin() { return iterator(this); }
    std::default_sentinel_t end() const { return {}; }

private:
    std::string path_;
    line_reader reader_;
};

/// Where each input of the file is, by id key (for --messages: an input's messages are
/// rendered again when its result comes, maybe in a later run).
class input_index {
public:
    explicit input_index(const std::string& path) : path_(path), reader_(path) {
        std::string_view line;
        std::size_t number = 0;
        std::uint64_t offset = 0;
        while (reader_.next(line, number, offset)) {
            std::optional<parley::batch_line_error> failure;
            if (auto in = parley::read_batch_input_line(line, number, path, failure))
                at_.emplace(parley::batch_id_key_of(in->id), place{offset, line.size(), number});
        }
    }

    /// The input of this id key; nothing when the file holds none.
    std::optional<parley::batch_input> find(const std::string& key) const {
        const auto it = at_.find(key);
        if (it == at_.end()) return std::nullopt;
        const std::string text = reader_.read_at(it->second.offset, it->second.length);
        std::optional<parley::batch_line_error> failure;
        return parley::read_batch_input_line(text, it->second.number, path_, failure);
    }

private:
    struct place {
        std::uint64_t offset = 0;
        std::size_t length = 0;
        std::size_t number = 0;
    };
    std::string path_;
    line_reader reader_;
    std::unordered_map<std::string, place> at_;
};

/// A model that answers nothing: it keeps each request it is asked, as the direct mode would
/// send it (with `--model` in place of the templates' model, PARLEY_MODEL where they name none),
/// and replies with an empty text.
class request_capture final : public parley::chat_model {
public:
    request_capture(std::optional<std::string> model, std::optional<std::string> fallback)
        : model_(std::move(model)), fallback_(std::move(fallback)) {}
    std::string default_model() const override { return model_ ? *model_ : fallback_.value_or(std::string()); }
    boost::asio::awaitable<boost::system::result<parley::chat_reply, parley::call_error>> chat(parley::chat_request request,
                                                                                              const parley::stream_handler*) override {
        if (model_) request.params.model = *model_;
        else if (!request.params.model && fallback_) request.params.model = *fallback_;
        captured.push_back(std::move(request));
        parley::chat_reply reply;
        parley::reply_choice choice;
        choice.message.role = parley::role::assistant;
        choice.message.content = std::string();
        reply.choices.push_back(std::move(choice));
        co_return reply;
    }
    std::vector<parley::chat_request> captured;

private:
    std::optional<std::string> model_, fallback_;
};

/// What rendering an input gives: its request, and the messages the template added before it.
struct rendered {
    parley::chat_request request;
    std::vector<parley::message> added;
};

/// Renders inputs as the direct mode's bot would (the same template, catalog and context
/// window), capturing the request instead of sending it.
class renderer {
public:
    explicit renderer(const batch_via_run& run) : template_name_(run.template_name) {
        capture_ = std::make_shared<request_capture>(run.model, run.fallback_model);
        parley::bot_options options;
        options.models = *run.catalog;
        bot_.emplace(*run.set, capture_, std::move(options));
        context_window_ = run.model ? run.catalog->context_window(*run.model).value_or(0) : 0;
    }

    /// Throws what the bot throws for the input (an undefined variable...).
    rendered render(const boost::json::value& data) {
        capture_->captured.clear();
        parley::run_options opt;
        opt.context_window = context_window_;
        auto done = boost::asio::co_spawn(io_, bot_->run(template_name_, data, {}, std::move(opt)), boost::asio::use_future);
        io_.restart();
        io_.run();
        std::vector<parley::message> added = done.get();
        if (capture_->captured.size() != 1)
            throw std::logic_error("the template sent " + std::to_string(capture_->captured.size()) + " requests, not one");
        if (!added.empty()) added.pop_back();  // the empty reply of the capture
        return rendered{std::move(capture_->captured.front()), std::move(added)};
    }

private:
    std::string template_name_;
    std::shared_ptr<request_capture> capture_;
    std::optional<parley::bot> bot_;
    std::size_t context_window_ = 0;
    boost::asio::io_context io_;
};

/// "1m05s", "3h02m", "12s".
std::string elapsed_text(std::chrono::steady_clock::duration d) {
    const auto s = std::chrono::duration_cast<std::chrono::seconds>(d).count();
    char text[32];
    if (s >= 3600) std::snprintf(text, sizeof text, "%lldh%02lldm", static_cast<long long>(s / 3600), static_cast<long long>(s / 60 % 60));
    else if (s >= 60) std::snprintf(text, sizeof text, "%lldm%02llds", static_cast<long long>(s / 60), static_cast<long long>(s % 60));
    else std::snprintf(text, sizeof text, "%.1fs", std::chrono::duration<double>(d).count());
    return text;
}

/// The batch APIs charge half the prices of direct requests.
std::string batch_cost_text(const parley::usage_summary& usage, const parley::model_catalog& catalog) {
    const parley::usage_cost c = usage.cost(catalog);
    if (usage.total().input_tokens == 0 && usage.total().output_tokens == 0) return "$0";
    if (!c.complete() && c.dollars == 0) return "no price known for " + c.unpriced.front();
    return dollars(c.dollars / 2) + " at batch prices (half the catalog's)" +
           (c.complete() ? "" : " without " + c.unpriced.front() + ", which has no price");
}

/// `submitted 5,000 in 1 batch · batch_abc in_progress 1,200/5,000 · written 1,200 (3 failed)`.
std::string progress_text(const parley::provider_batch_progress& p) {
    std::string s;
    if (p.batches_submitted)
        s += "submitted " + grouped(static_cast<std::int64_t>(p.submitted)) + " in " + grouped(static_cast<std::int64_t>(p.batches_submitted)) +
             (p.batches_submitted == 1 ? " batch" : " batches") + " \xc2\xb7 ";
    if (p.resumed) s += "resumed " + grouped(static_cast<std::int64_t>(p.resumed)) + " \xc2\xb7 ";
    for (std::size_t i = 0; i < p.pending.size() && i < 3; ++i) {
        const auto& b = p.pending[i];
        s += b.id + " " + (b.status.empty() ? std::string("?") : b.status);
        if (b.total) s += " " + grouped(static_cast<std::int64_t>(b.succeeded + b.errored)) + "/" + grouped(static_cast<std::int64_t>(b.total));
        s += " \xc2\xb7 ";
    }
    if (p.pending.size() > 3) s += "+" + std::to_string(p.pending.size() - 3) + " batches \xc2\xb7 ";
    s += "written " + grouped(static_cast<std::int64_t>(p.done));
    if (p.failed) s += " (" + grouped(static_cast<std::int64_t>(p.failed)) + " failed)";
    return s;
}

}  // namespace via

int batch_via_main(batch_via_run& run) {
    const parley::conversation_template& t = run.set->at(run.template_name);
    via::check_one_request(t, run.templates_file);
    if (run.config.api == parley::api::anthropic ? run.api != parley::batch_api::anthropic
                                                 : !(run.api == parley::batch_api::openai &&
                                                     (run.config.api == parley::api::openai || run.config.api == parley::api::responses)))
        throw usage_error(std::string("--via ") + std::string(parley::batch_api_name(run.api)) + " takes --api " +
                          (run.api == parley::batch_api::openai ? "openai or responses" : "anthropic") + ", not " +
                          std::string(parley::api_name(run.config.api)));
    const std::shared_ptr<const parley::wire_api> wire = parley::wire_api_of(run.config);

    boost::asio::io_context io(1);
    parley::provider_batch_options options;
    options.api = run.api;
    options.base_url = run.config.base_url;
    options.api_key = run.config.api_key;
    options.endpoint = run.config.api == parley::api::responses ? "/v1/responses" : "/v1/chat/completions";
    options.headers = run.config.headers;
    options.net.tls = run.config.net.tls;
    options.net.proxy = run.config.net.proxy;
    if (run.timeout) options.net.timeouts.idle = *run.timeout;
    options.limits.max_requests = run.batch_size;
    options.poll_interval = run.poll_interval;
    options.max_poll_interval = std::max(run.poll_interval, std::chrono::milliseconds(600'000));
    std::size_t shown = 0;
    if (run.show_progress) {
        options.on_progress = [&](const parley::provider_batch_progress& p) {
            std::string line = via::progress_text(p);
            const std::size_t width = line.size();
            if (width < shown) line.append(shown - width, ' ');
            shown = width;
            std::cerr << '\r' << line << std::flush;
        };
    }
    parley::provider_batch job(io.get_executor(), std::move(options));
    const std::filesystem::path state_file = parley::batch_state_path(run.output);

    via::renderer renderer(run);
    std::optional<via::input_index> index;
    if (run.messages) index.emplace(run.input);

    auto prepare = [&](const parley::batch_input& in) -> std::string {
        via::rendered r = renderer.render(in.data);
        return wire->encode(r.request, false);
    };
    auto finish = [&](const parley::provider_batch_result& result, const boost::json::value& id,
                      parley::usage_summary& usage) -> parley::batch_outcome {
        parley::http_headers headers;
        if (!result.request_id.empty()) headers.add("x-request-id", result.request_id);
        auto reply = wire->decode_reply(result.status, std::move(headers), result.body);
        const std::string model = run.model.value_or(reply ? reply->model : run.fallback_model.value_or(std::string()));
        if (!reply) {
            usage.add(reply.error(), model);
            return reply.error();
        }
        usage.add(*reply, model);
        const parley::message answer = parley::reply_for_history(reply->message(), 0);
        if (!run.messages) return boost::json::value(answer.text());
        const std::string key = parley::batch_id_key_of(id);
        std::optional<parley::batch_input> in = index->find(key);
        if (!in) throw std::runtime_error("the input " + key + " is not in " + run.input + " any more: its messages cannot be rendered");
        via::rendered r = renderer.render(in->data);
        r.added.push_back(parley::reply_for_history(reply->message(), r.added.size()));
        return boost::json::value(parley::conversation_to_json(r.added));
    };

    int stopped_by = 0;
    boost::asio::signal_set signals(io, SIGINT, SIGTERM);
    signals.async_wait([&](const boost::system::error_code& ec, int sig) {
        if (ec) return;
        stopped_by = sig;
        job.stop();
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGTERM, SIG_DFL);
    });
    std::signal(SIGPIPE, SIG_IGN);

    const bool had_state = std::filesystem::exists(state_file);
    if (run.cancel && !had_state) {
        signals.cancel();
        std::cerr << "parley: no batches to cancel: " << state_file.string() << " does not exist\n";
        return 0;
    }
    via::input_file inputs(run.input);
    std::optional<parley::provider_batch_progress> result;
    std::exception_ptr failure;
    auto done = [&](std::exception_ptr e, parley::provider_batch_progress p) {
        if (e) failure = e;
        else result = std::move(p);
        signals.cancel();
    };
    if (run.cancel) boost::asio::co_spawn(io, job.cancel(finish, *run.out, state_file), done);
    else boost::asio::co_spawn(io, job.run(inputs, prepare, finish, *run.out, state_file), done);
    io.run();
    if (run.show_progress && shown) std::cerr << '\n';
    if (failure) {
        try {
            std::rethrow_exception(failure);
        } catch (const std::exception& e) {
            std::cerr << "error: " << e.what() << "\n";
            if (std::filesystem::exists(state_file))
                std::cerr << "parley: " << state_file.string()
                          << " keeps the batches submitted: run the same command again to resume, or add --cancel to cancel them\n";
            return 1;
        }
    }
    const parley::provider_batch_progress& p = *result;

    const std::string api = std::string(parley::batch_api_name(run.api));
    std::cerr << "batch: " << grouped(static_cast<std::int64_t>(p.done)) << (p.done == 1 ? " input" : " inputs") << " done ("
              << grouped(static_cast<std::int64_t>(p.done - p.failed)) << " results, " << grouped(static_cast<std::int64_t>(p.failed))
              << " errors) through " << api;
    if (p.batches_submitted)
        std::cerr << ", " << grouped(static_cast<std::int64_t>(p.submitted)) << " requests submitted in " << p.batches_submitted
                  << (p.batches_submitted == 1 ? " batch" : " batches");
    if (p.resumed) std::cerr << ", " << grouped(static_cast<std::int64_t>(p.resumed)) << " awaited from an earlier run";
    if (p.skipped) std::cerr << ", " << grouped(static_cast<std::int64_t>(p.skipped)) << " already in " << run.output;
    std::cerr << "; " << via::elapsed_text(p.elapsed) << '\n';
    const parley::model_usage total = p.usage.total();
    std::cerr << "batch: " << grouped(total.input_tokens) << " input tokens, " << grouped(total.output_tokens) << " output tokens; "
              << via::batch_cost_text(p.usage, *run.catalog) << '\n';
    if (p.canceled)
        std::cerr << "batch: " << grouped(static_cast<std::int64_t>(p.canceled))
                  << (p.canceled == 1 ? " request was cancelled before it ran" : " requests were cancelled before they ran") << ": no line; "
                  << (run.cancel ? "a run without --cancel submits them again\n" : "run the same command again to submit them again\n");
    if (stopped_by) {
        std::cerr << "parley: interrupted (" << (stopped_by == SIGTERM ? "SIGTERM" : "SIGINT") << "): "
                  << (p.stopped ? state_file.string() + " keeps the batches submitted; run the same command again to resume polling them\n"
                                : std::string("run the same command again to submit the inputs left\n"));
        std::cerr.flush();
        std::signal(stopped_by, SIG_DFL);
        std::raise(stopped_by);
        return 128 + stopped_by;
    }
    const std::size_t errors_in_file = run.out->state().errors + p.failed;
    if (errors_in_file)
        std::cerr << "batch: " << run.output << " holds " << grouped(static_cast<std::int64_t>(errors_in_file))
                  << (errors_in_file == 1 ? " error line" : " error lines") << " (--retry-failed runs those inputs again)\n";
    if (run.cancel) return 0;
    if (p.canceled) return 1;
    return errors_in_file ? 3 : 0;
}

}  // namespace parley_cli
