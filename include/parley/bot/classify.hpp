// parley/bot/classify.hpp: which of a list of labels a text belongs to, by a forced call with an
// enum parameter or by logit_bias and max_tokens 1, re-asking like extract. See docs/bot.md,
// "ai-style calls".
#ifndef PARLEY_BOT_CLASSIFY_HPP
#define PARLEY_BOT_CLASSIFY_HPP

#include <parley/bot/ask.hpp>
#include <parley/bot/functions.hpp>
#include <parley/bot/model.hpp>
#include <parley/error.hpp>
#include <parley/schema/json_text.hpp>
#include <parley/string_list.hpp>
#include <parley/tokens/tokenizer.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <parley/detail/warnings_push.hpp>  // Asio coroutines: see the file

namespace parley {

/// How classify asks.
enum class classify_mode : std::uint8_t {
    tool_call,  ///< a forced call of `classify` with one parameter `choice`, an enum of the choices
    logit_bias,  ///< `max_tokens: 1` and `logit_bias` on the choices' own tokens (with a tokenizer), or on numbered choices' numbers
};

/// Options of classify.
struct classify_options {
    classify_mode mode = classify_mode::tool_call;
    unsigned max_retries = 2;  ///< as for extract
    request_params params;  ///< as for generate
    /// The first line of the prompt, as it is (not a template); the choices and the text follow.
    std::string instructions = "Classify the text below. Answer with one of the choices.";
    /// logit_bias mode: the model's tokenizer. classify then finds the token of each choice itself
    /// and biases those (each choice must be one token: the choices that are not are refused,
    /// named). Without it, the choices are numbered and `label_token_ids` is needed.
    std::optional<tokens::tokenizer> tokenizer;
    /// logit_bias mode without a tokenizer: the token ids (decimal) of "1", "2", ... in the
    /// model's tokenizer, one per choice (at most 9 choices).
    std::vector<std::string> label_token_ids;
    /// When not null, the usage of every request (the re-asks included) is added to it, also
    /// when the classification fails.
    usage_summary* usage = nullptr;
};

namespace detail::calls {

/// The choices, one per line: `- choice`, or numbered `1. choice`.
inline std::string choice_list(const std::vector<std::string>& choices, bool numbered) {
    std::string s;
    for (std::size_t i = 0; i < choices.size(); ++i) {
        s += numbered ? "\n" + std::to_string(i + 1) + ". " : std::string("\n- ");
        s += choices[i];
    }
    return s;
}

/// classify, its arguments checked when awaited.
inline boost::asio::awaitable<extract_result<std::string>> classify(chat_model& model, std::string text,
                                                                    std::vector<std::string> choices,
                                                                    classify_options opt) {
    if (choices.empty()) throw error(errc::invalid_argument, "classify needs at least one choice");
    const bool by_bias = opt.mode == classify_mode::logit_bias;
    const bool by_token = by_bias && opt.tokenizer.has_value();
    if (by_token) {
        // each choice's own token, as the model would write it first in its reply
        std::string refused;
        opt.label_token_ids.clear();
        for (const std::string& c : choices) {
            const auto ids = opt.tokenizer->encode(c, {tokens::special_tokens::as_text});
            if (ids.size() != 1) {
                refused += (refused.empty() ? "" : ", ") + ("\"" + c + "\" (" + std::to_string(ids.size()) + " tokens)");
                continue;
            }
            for (std::size_t k = 0; k < opt.label_token_ids.size(); ++k)
                if (opt.label_token_ids[k] == std::to_string(ids[0]))
                    throw error(errc::invalid_argument, "classify_mode::logit_bias: the choices \"" + choices[k] + "\" and \"" + c +
                                                            "\" are the same token (" + std::to_string(ids[0]) + ")");
            opt.label_token_ids.push_back(std::to_string(ids[0]));
        }
        if (!refused.empty())
            throw error(errc::invalid_argument, "classify_mode::logit_bias biases one token per choice, and these choices are not one token in " +
                                                    opt.tokenizer->name() + ": " + refused);
    } else if (by_bias && (choices.size() > 9 || opt.label_token_ids.size() != choices.size()))
        throw error(errc::invalid_argument, "classify_mode::logit_bias takes at most 9 choices and one token id per choice (" +
                                                std::to_string(choices.size()) + " choices, " +
                                                std::to_string(opt.label_token_ids.size()) + " token ids)");
    chat_request request;
    request.params = opt.params;
    std::string prompt = opt.instructions + "\n\nChoices:" + choice_list(choices, by_bias && !by_token);
    if (by_token) prompt += "\n\nAnswer with the choice only.";
    else if (by_bias) prompt += "\n\nAnswer with the number of the choice only.";
    prompt += "\n\nText:\n" + text;
    request.messages.push_back(make_message(role::user, std::move(prompt)));
    std::string tool;
    if (by_bias) {
        std::vector<std::pair<std::string, std::int64_t>> bias;
        for (const std::string& id : opt.label_token_ids) bias.emplace_back(id, 100);
        request.params.logit_bias = std::move(bias);
        request.params.max_tokens = 1;
    } else {
        tool = "classify";
        function_definition d;
        d.name = tool;
        d.description = "Gives the text's class: one of the choices.";
        boost::json::array labels;
        for (const auto& c : choices) labels.emplace_back(c);
        d.parameters = boost::json::object{
            {"type", "object"},
            {"properties", {{"choice", {{"type", "string"}, {"enum", std::move(labels)}}}}},
            {"required", boost::json::array{"choice"}},
            {"additionalProperties", false}};
        request.functions.push_back(std::move(d));
        request.params.functions = std::vector<std::string>{tool};
        request.params.call_function = tool;
    }
    auto read = [by_bias, by_token, choices, tool](std::string_view answer) {
        reading<std::string> r;
        std::string found;
        if (by_bias) {
            const auto b = answer.find_first_not_of(" \t\r\n.");
            const auto e = answer.find_last_not_of(" \t\r\n.");
            found = b == std::string_view::npos ? std::string() : std::string(answer.substr(b, e - b + 1));
            for (std::size_t i = 0; i < choices.size(); ++i)
                if ((!by_token && found == std::to_string(i + 1)) || found == choices[i] || (by_token && answer == choices[i])) {
                    r.value = choices[i];
                    return r;
                }
        } else {
            json_text_result json = parse_json_from_text(answer);
            const boost::json::value* choice = nullptr;
            if (json && json.value().is_object()) choice = json.value().as_object().if_contains("choice");
            if (choice && choice->is_string()) {
                found = std::string(choice->as_string());
                for (const auto& c : choices)
                    if (c == found) {
                        r.value = c;
                        return r;
                    }
            } else {
                r.problems = bot_engine::bad_arguments_text(
                    tool, "/choice: expected one of the choices, found " +
                              (json ? boost::json::serialize(json.value()).substr(0, 200) : std::string("no JSON")));
                return r;
            }
        }
        std::string list;
        for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
        r.problems = "expected one of " + list + ", found \"" + found.substr(0, 200) + "\"";
        if (!tool.empty()) r.problems = bot_engine::bad_arguments_text(tool, "/choice: " + r.problems);
        return r;
    };
    co_return co_await ask<std::string>(model, std::move(request), tool, opt.max_retries, std::move(read), {}, text_reask,
                                        opt.usage);
}

}  // namespace detail::calls

// The options' default argument is `classify_options()`, not `{}`: g++ 12 destroys twice an
// argument initialised as an aggregate (`{}`, `{.mode = ...}`) in an expression that awaits, such
// as `co_await parley::classify(...)` (a double free of `instructions`); a value-initialised one
// is destroyed once.

/// Which of `choices` `text` belongs to, asked for as `opt.mode` says, with retries as for
/// extract. `choices` is a std::vector<std::string> or a brace list (`{"positive", "negative"}`,
/// also inside a co_await expression with g++ 12: see string_list). Throws parley::error
/// (errc::invalid_argument) for no choices; in logit_bias mode with a tokenizer, for choices that
/// are not one token each (named) or share a token; without one, for more than 9 choices or not one
/// token id per choice. `model` must outlive the call.
inline boost::asio::awaitable<extract_result<std::string>> classify(chat_model& model, std::string text, string_list choices,
                                                                    classify_options opt = classify_options()) {
    return detail::calls::classify(model, std::move(text), std::move(choices).strings(), std::move(opt));
}

}  // namespace parley

#include <parley/detail/warnings_pop.hpp>

#endif
