// parley/bot/bot.hpp: the bot: a template set run against a chat_model, with C++ functions the
// model can call. `co_await bot.run(name, input, history)` follows the bot algorithm, step by
// step (docs/bot.md).
#ifndef PARLEY_BOT_BOT_HPP
#define PARLEY_BOT_BOT_HPP

#include <parley/bot/functions.hpp>
#include <parley/bot/model.hpp>
#include <parley/bot/models.hpp>
#include <parley/bot/tokens.hpp>
#include <parley/bot/usage.hpp>
#include <parley/chat/render.hpp>
#include <parley/chat/rules.hpp>
#include <parley/chat/template_set.hpp>
#include <parley/error.hpp>
#include <parley/schema/from_json.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/describe/class.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <parley/detail/warnings_push.hpp>  // Asio coroutines: see the file

namespace parley {

/// How a bot runs its templates.
struct bot_options {
    /// The request parameters used when the conversation has no default-request.
    request_params defaults;
    /// How many replies whose function calls went wrong (arguments that do not parse or do not
    /// fit, an unknown function, an unknown template to switch to) a run accepts; the next one
    /// fails the run (errc::bad_function_arguments).
    std::size_t max_bad_argument_turns = 2;
    /// Most requests made for one read of a template (the function loop); one more fails the run
    /// (errc::bot_limit).
    std::size_t max_function_rounds = 10;
    /// Most template switches (botSwitchTemplate) in one run; one more fails it (errc::bot_limit).
    std::size_t max_template_switches = 8;
    /// Most calls of one reply that run at once (1: one after the other); the results are
    /// appended in the calls' order whatever order they finish in. At least 1.
    std::size_t max_concurrent_calls = 8;
    /// The context window (tokens) of every request; 0: the model's, from `models`.
    std::size_t context_window = 0;
    /// The context window of a model `models` does not know. Never "no limit": a request that
    /// would not fit is cut, or the run fails before sending it.
    std::size_t default_context_window = 8192;
    /// The models' context windows, prices and token counters, by model-name prefix (the
    /// built-in catalog; extend it with set_context_window, set_counter or merge).
    model_catalog models = model_catalog::builtin();
    /// Counts the tokens of the models `models` has no counter for (parley's estimate by default).
    token_counter count_tokens;
};

/// What one run may do besides its work.
struct run_options {
    /// Receives the reply's text as it arrives (the deltas of the first choice); when set, every
    /// request of the run is streamed.
    std::function<void(std::string_view)> on_text;
    /// Receives every event of the streamed replies; when set, every request is streamed.
    stream_handler on_event;
    /// The context window (tokens) of this run's requests; 0: the bot's.
    std::size_t context_window = 0;
    /// When not null, the usage of every request of the run (tokens, requests, attempts) is added
    /// to it, also when the run fails.
    usage_summary* usage = nullptr;
};

namespace detail::bot_engine {

/// The messages a request carries: the conversation's non-control messages after its last
/// truncate, oldest first; `keep_from` receives the index among them of the first message at or
/// after `read_start` (the first message of the current read).
inline std::vector<message> sendable(const std::vector<message>& conversation, std::size_t read_start,
                                     std::size_t& keep_from) {
    std::size_t from = 0;
    for (std::size_t i = conversation.size(); i > 0; --i)
        if (conversation[i - 1].role == role::truncate) {
            from = i;
            break;
        }
    std::vector<message> out;
    keep_from = 0;
    for (std::size_t i = from; i < conversation.size(); ++i) {
        if (is_control(conversation[i].role)) continue;
        if (i < read_start) ++keep_from;
        out.push_back(conversation[i]);
    }
    return out;
}

/// The message that answers a call: a tool message for a tool call, a function message for the
/// legacy function call; `failed` marks a result that reports a failure.
inline message result_message(const std::optional<std::string>& tool_call_id, const std::string& name, std::string content,
                              bool failed) {
    message m;
    if (tool_call_id) {
        m.role = role::tool;
        m.tool_call_id = *tool_call_id;
    } else {
        m.role = role::function;
        m.name = name;
    }
    m.content = std::move(content);
    m.is_error = failed;
    return m;
}

/// One call of a reply: its id (none for a legacy function call), name and arguments.
struct pending_call {
    std::optional<std::string> id;
    std::string name;
    std::string arguments;
};

inline std::vector<pending_call> calls_of(const message& reply) {
    std::vector<pending_call> out;
    for (const tool_call& c : reply.tool_calls) out.push_back({c.id, c.function.name, c.function.arguments});
    if (reply.function_call) out.push_back({std::nullopt, reply.function_call->name, reply.function_call->arguments});
    return out;
}

/// botSwitchTemplate's argument.
struct switch_arguments {
    std::string name;
};
BOOST_DESCRIBE_STRUCT(switch_arguments, (), (name))

inline std::string list_names(const std::vector<std::string>& names) {
    std::string s;
    for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
    return s.empty() ? std::string("none") : s;
}

/// True when a read appended something the request must answer: a `request` message, or any
/// message that is not a control message.
inline bool read_needs_request(const rendered_request& read) {
    if (read.at_request) return true;
    for (const message& m : read.added)
        if (!is_control(m.role)) return true;
    return false;
}

/// A call of a reply on its way: what answers it and, once run, its outcome.
struct call_job {
    const pending_call* call = nullptr;
    const registered_function* function = nullptr;  ///< null: answered without running anything
    function_outcome outcome;
    std::exception_ptr thrown;  ///< what the function threw (other than function_failure)
    bool answered = true;  ///< false: a function the set defines and the caller answers
};

/// Runs the jobs that have a function, at most `limit` at once, on a strand of `executor`: each
/// worker takes the next job not started; once a function has thrown, no more are started.
inline boost::asio::awaitable<void> run_jobs(std::vector<call_job>& jobs, std::size_t limit) {
    std::vector<std::size_t> runnable;
    for (std::size_t i = 0; i < jobs.size(); ++i)
        if (jobs[i].function) runnable.push_back(i);
    if (runnable.empty()) co_return;
    if (limit == 0) limit = 1;
    if (runnable.size() == 1 || limit == 1) {
        for (std::size_t i : runnable) {
            try {
                jobs[i].outcome = co_await jobs[i].function->invoke(jobs[i].call->arguments);
            } catch (...) {
                jobs[i].thrown = std::current_exception();
                break;
            }
        }
        co_return;
    }
    const auto strand = boost::asio::make_strand(co_await boost::asio::this_coro::executor);
    std::size_t next = 0;
    bool stop = false;
    auto worker = [&]() -> boost::asio::awaitable<void> {
        while (!stop && next < runnable.size()) {
            call_job& job = jobs[runnable[next++]];
            try {
                job.outcome = co_await job.function->invoke(job.call->arguments);
            } catch (...) {
                job.thrown = std::current_exception();
                stop = true;
            }
        }
    };
    using op_type = decltype(boost::asio::co_spawn(strand, worker(), boost::asio::deferred));
    std::vector<op_type> workers;
    const std::size_t n = std::min(limit, runnable.size());
    workers.reserve(n);
    for (std::size_t w = 0; w < n; ++w) workers.push_back(boost::asio::co_spawn(strand, worker(), boost::asio::deferred));
    auto [order, errors] = co_await boost::asio::experimental::make_parallel_group(std::move(workers))
                               .async_wait(boost::asio::experimental::wait_for_all(), boost::asio::use_awaitable);
    (void)order;
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);  // the bot's own failure (a worker's, not a function's)
}

}  // namespace detail::bot_engine

/// A template set run as an assistant: its templates, the model it talks to and the C++
/// functions the model may call.
class bot {
public:
    /// Throws parley::error (errc::invalid_argument) when `model` is null.
    bot(template_set templates, std::shared_ptr<chat_model> model, bot_options options = {})
        : templates_(std::move(templates)), model_(std::move(model)), options_(std::move(options)) {
        if (!model_) throw error(errc::invalid_argument, "a bot needs a model");
    }

    /// Registers a C++ function the model may call (see function_registry::add). Its definition
    /// is sent when a request's `functions` names it and the template set does not define it.
    /// Not while a run is under way.
    template <class F>
    bot& add_function(std::string name, std::string description, F f) {
        functions_.add(std::move(name), std::move(description), std::move(f));
        return *this;
    }

    /// Registers a C++ function with its parameters in the strict form, sent with
    /// `"strict": true` (see function_registry::add_strict). Not while a run is under way.
    template <class F>
    bot& add_strict_function(std::string name, std::string description, F f) {
        functions_.add_strict(std::move(name), std::move(description), std::move(f));
        return *this;
    }

    /// Registers a C++ function under a definition given as it is, taking its arguments as a
    /// boost::json::value (see function_registry::add); for instance a function the template
    /// set defines: `bot.add_function(*bot.templates().function("lookup"), handler)`.
    template <class F>
    bot& add_function(function_definition definition, F f) {
        functions_.add(std::move(definition), std::move(f));
        return *this;
    }

    const template_set& templates() const noexcept { return templates_; }
    const function_registry& functions() const noexcept { return functions_; }
    const bot_options& options() const noexcept { return options_; }
    bot_options& options() noexcept { return options_; }
    chat_model& model() const noexcept { return *model_; }

    /// Throws parley::error (errc::chat_invalid) when a request of a template names a function
    /// that neither the set defines nor the bot registers (botSwitchTemplate is known).
    void check() const {
        std::vector<std::string> external = functions_.names();
        external.emplace_back(switch_template_function);
        templates_.check_functions(external);
    }

    /// Runs template `template_name` with `input` (the data its texts are rendered with: a
    /// boost::json::value, a described struct, anything the prompt language reads) on the
    /// conversation `history`, and returns the conversation with every message the run added.
    /// The algorithm is the one of docs/bot.md: messages are read up to and including the next
    /// `request` message, or to the end of the template, and appended; every read that read a
    /// message (other than default-request and truncate) ends with a request, which carries the
    /// system messages, the current read and the newest whole turns of the history that fit the
    /// model's context window; the reply is appended; the functions it calls run (the calls of
    /// one reply at once) and their results are appended in the calls' order, then the request is
    /// repeated (the forced call only on the first request) until a reply calls no function;
    /// botSwitchTemplate suspends the template and continues with another one from its first
    /// message, and the suspended template goes on when that one ends. A call of a function the
    /// set defines but nobody registered ends the run: the conversation is returned with the call
    /// for the caller to answer. Replies are appended as
    /// reply_for_history makes them (an empty reply as the empty text, a refusal as its text, tool
    /// calls without an id given one), so the conversation follows the rules and reads back from
    /// JSON.
    /// On failure nothing of the run is kept (the caller's history is not touched) and the error
    /// is thrown: call_exception for a failed call, template_error for a text that does not
    /// render, parley::error (errc::chat_invalid for a template or a request that breaks a rule,
    /// errc::bad_function_arguments when the model's calls went wrong more often than allowed,
    /// errc::bot_limit for the other bounds and for a request that cannot fit the context window,
    /// errc::protocol for a reply with a call that names no function), or what a function threw
    /// (other than function_failure). The bot, and the input's referents, must outlive the run.
    template <class Input>
    boost::asio::awaitable<std::vector<message>> run(std::string template_name, Input input,
                                                      std::vector<message> history = {},
                                                      run_options opt = run_options()) const {
        // `run_options()`, not `{}`: g++ 12 destroys twice an argument initialised as an aggregate
        // (`{}`, `{.on_text = ...}`) in an expression that awaits (`co_await bot.run(...)`); a
        // value-initialised one is destroyed once.
        std::vector<message> conversation = std::move(history);
        const conversation_template* current = &templates_.at(template_name);
        std::size_t from = 0;
        std::size_t switches = 0;
        // The templates a botSwitchTemplate suspended, innermost last, each with the index of its
        // first message not read yet: when the template switched to ends, the suspended one goes on.
        std::vector<std::pair<const conversation_template*, std::size_t>> suspended;
        std::vector<std::string> bad_turns;
        stream_handler handler;
        if (opt.on_text || opt.on_event)
            handler = [&opt](const stream_event& e) {
                if (opt.on_event) opt.on_event(e);
                if (opt.on_text && e.type == stream_event::kind::text && e.choice == 0) opt.on_text(e.text);
            };

        for (;;) {
            // Steps 1 and 2: read up to the next request or the end, render, find the parameters.
            const std::size_t read_start = conversation.size();
            rendered_request read = render(*current, input, conversation, render_options{options_.defaults, from});
            const bool ask = detail::bot_engine::read_needs_request(read);
            for (auto& m : read.added) conversation.push_back(std::move(m));
            from = read.next;
            if (!ask) {  // nothing left to answer: back to the template it suspended, or done
                if (suspended.empty()) break;
                std::tie(current, from) = suspended.back();
                suspended.pop_back();
                continue;
            }

            const std::string* switch_to = nullptr;
            bool unanswered = false;
            for (std::size_t round = 0;; ++round) {
                if (round == options_.max_function_rounds)
                    throw error(errc::bot_limit, current->name() + ": the model still called functions after " +
                                                     std::to_string(round) + " requests (max_function_rounds)");
                // Step 3: the request.
                chat_request request = make_request(read.params, round == 0, conversation, read_start, opt);
                const std::string model_name = request.params.model.value_or(model_->default_model());
                // Step 4: the reply, the calls.
                auto reply = co_await model_->chat(std::move(request), handler ? &handler : nullptr);
                detail::count_usage(opt.usage, reply, model_name);
                if (!reply) throw call_exception(reply.error());
                // as a history keeps it: an empty reply has the empty text (a refusal its text), calls have ids
                conversation.push_back(
                    reply_for_history(reply->message(), conversation.size()));
                const std::vector<detail::bot_engine::pending_call> calls =
                    detail::bot_engine::calls_of(conversation.back());
                if (calls.empty()) break;  // step 5: on with the template

                std::vector<detail::bot_engine::call_job> jobs(calls.size());
                for (std::size_t i = 0; i < calls.size(); ++i) {
                    const auto& call = calls[i];
                    auto& job = jobs[i];
                    job.call = &call;
                    if (call.name == switch_template_function) {
                        job.outcome = switch_outcome(call.arguments, switch_to);
                    } else if (const registered_function* f = functions_.find(call.name)) {
                        job.function = f;
                    } else if (templates_.function(call.name)) {
                        job.answered = false;  // defined for the model, answered by the caller
                        unanswered = true;
                    } else {
                        job.outcome.status = function_outcome::kind::bad_arguments;
                        job.outcome.content = "Error: there is no function named '" + call.name +
                                              "'. The functions are: " +
                                              detail::bot_engine::list_names(known_functions()) + ".";
                    }
                }
                co_await detail::bot_engine::run_jobs(jobs, options_.max_concurrent_calls);
                for (const auto& job : jobs)
                    if (job.thrown) std::rethrow_exception(job.thrown);  // the first in the calls' order

                std::string problems;
                for (auto& job : jobs) {
                    if (!job.answered) continue;
                    const bool failed = job.outcome.status != function_outcome::kind::ok;
                    if (job.outcome.status == function_outcome::kind::bad_arguments)
                        problems += (problems.empty() ? "" : "\n") + job.call->name + ": " + job.outcome.content;
                    conversation.push_back(detail::bot_engine::result_message(job.call->id, job.call->name,
                                                                              std::move(job.outcome.content), failed));
                }
                if (!problems.empty()) {
                    bad_turns.push_back(std::move(problems));
                    if (bad_turns.size() > options_.max_bad_argument_turns) {
                        std::string text = current->name() + ": the model's function calls went wrong in " +
                                           std::to_string(bad_turns.size()) + " replies (max_bad_argument_turns is " +
                                           std::to_string(options_.max_bad_argument_turns) + ")";
                        for (std::size_t i = 0; i < bad_turns.size(); ++i)
                            text += "\nreply " + std::to_string(i + 1) + ": " + bad_turns[i];
                        throw error(errc::bad_function_arguments, text);
                    }
                }
                if (switch_to || unanswered) break;
            }
            if (unanswered) break;  // the caller answers the call: nothing more is read or sent
            if (switch_to) {
                if (++switches > options_.max_template_switches)
                    throw error(errc::bot_limit, "more than " + std::to_string(options_.max_template_switches) +
                                                     " template switches in one run (max_template_switches)");
                suspended.emplace_back(current, from);
                current = &templates_.at(*switch_to);
                from = 0;
            }
        }
        co_return conversation;
    }

    /// The context window of a request to `model` in a run with `opt`: the run's, else the bot's,
    /// else the catalog's for the model, else `default_context_window`.
    std::size_t context_window(std::string_view model, const run_options& opt = {}) const {
        if (opt.context_window != 0) return opt.context_window;
        if (options_.context_window != 0) return options_.context_window;
        if (const auto w = options_.models.context_window(model)) return *w;
        return options_.default_context_window;
    }

    /// The token counter of `model`: the catalog's for it, else `count_tokens`.
    token_counter counter(std::string_view model) const {
        if (auto c = options_.models.counter(model)) return std::move(*c);
        return options_.count_tokens;
    }

private:
    /// The request for `params` on `conversation` (whose current read starts at `read_start`):
    /// the forced call only on the first request, the function definitions `functions` names,
    /// the messages that fit the context window.
    chat_request make_request(const request_params& params, bool first, const std::vector<message>& conversation,
                              std::size_t read_start, const run_options& opt) const {
        chat_request r;
        r.params = params;
        if (!first && r.params.call_function && !r.params.call_function->empty() && *r.params.call_function != "*")
            r.params.call_function = "*";
        if (r.params.functions)
            for (const std::string& name : *r.params.functions) r.functions.push_back(definition(name));
        const std::string model = r.params.model.value_or(model_->default_model());
        const token_counter count = counter(model);
        window_reserve reserve;
        reserve.reply = r.params.max_tokens ? static_cast<std::size_t>(*r.params.max_tokens) : 0;
        for (const auto& f : r.functions) reserve.functions += count.function(f);
        reserve.per_request = count.per_request();
        std::size_t keep_from = 0;
        std::vector<message> messages = detail::bot_engine::sendable(conversation, read_start, keep_from);
        window_fit fit = fit_to_window(std::move(messages), keep_from, context_window(model, opt), reserve, count, model);
        r.messages = std::move(fit.messages);
        return r;
    }

    /// The definition of the function `name`: the set's, a registered function's, or the
    /// built-in botSwitchTemplate's.
    function_definition definition(const std::string& name) const {
        if (const function_definition* d = templates_.function(name)) return *d;
        if (const registered_function* f = functions_.find(name)) return f->definition;
        if (name == switch_template_function) return switch_template_definition();
        throw error(errc::chat_invalid, "'functions' names '" + name +
                                            "', which neither the template set defines nor the bot registers");
    }

    std::vector<std::string> known_functions() const {
        std::vector<std::string> names = functions_.names();
        names.emplace_back(switch_template_function);
        return names;
    }

    /// botSwitchTemplate: `to` points at the template's name when the arguments name one of the set.
    function_outcome switch_outcome(const std::string& arguments, const std::string*& to) const {
        function_outcome out;
        auto args = detail::bot_engine::read_arguments<detail::bot_engine::switch_arguments>(arguments);
        if (!args) {
            out.status = function_outcome::kind::bad_arguments;
            out.content = detail::bot_engine::bad_arguments_text(switch_template_function, args.error_text());
            return out;
        }
        const conversation_template* t = templates_.find(args->name);
        if (!t) {
            std::vector<std::string> names;
            for (const auto& each : templates_.templates()) names.push_back(each.name());
            out.status = function_outcome::kind::bad_arguments;
            out.content = "Error: there is no template named '" + args->name +
                          "'. The templates are: " + detail::bot_engine::list_names(names) + ".";
            return out;
        }
        to = &t->name();
        out.content = "Switched to template '" + t->name() + "'.";
        return out;
    }

    template_set templates_;
    std::shared_ptr<chat_model> model_;
    function_registry functions_;
    bot_options options_;
};

}  // namespace parley

#include <parley/detail/warnings_pop.hpp>

#endif
