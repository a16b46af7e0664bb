// parley/chat/detail/builder_check.hpp: the checks of the constexpr builders of
// parley/chat/builder.hpp, and how they report a broken rule.
//
// One error path for both worlds: each rule has a function that is not constexpr and whose
// name states the rule (`error_a_function_message_needs_a_name`). In constant evaluation (a
// `constexpr` builder) reaching such a call is a compile error, and both g++ and clang++ print
// the function's name; at run time the same call throws parley::error with the sentence of
// parley::describe. The rules themselves are those of parley/chat/rules.hpp; a text that does not
// parse is reported as jinja/detail/syntax_report.hpp says.
#ifndef PARLEY_CHAT_DETAIL_BUILDER_CHECK_HPP
#define PARLEY_CHAT_DETAIL_BUILDER_CHECK_HPP

#include <parley/chat/detail/builder_json.hpp>
#include <parley/jinja/detail/syntax_report.hpp>
#include <parley/chat/message.hpp>
#include <parley/chat/message_builders.hpp>
#include <parley/chat/rules.hpp>
#include <parley/error.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>

namespace parley::detail {

inline constexpr std::size_t no_message = static_cast<std::size_t>(-1);

/// Where a builder breaks a rule: the index of the message (no_message for the template set or
/// the metadata), its role, the key or value concerned, and the template's name.
struct builder_site {
    std::size_t message = no_message;
    parley::role role = parley::role::user;
    std::string_view key;
    std::string_view template_name;
};

/// "NAME, message I: sentence" (the form conversation_template uses), thrown as parley::error.
[[noreturn]] inline void throw_builder_error(const builder_site& at, const std::string& sentence) {
    std::string where = at.template_name.empty() ? std::string("template") : std::string(at.template_name);
    if (at.message != no_message) where += ", message " + std::to_string(at.message);
    throw error(errc::chat_invalid, where + ": " + sentence);
}
[[noreturn]] inline void throw_rule(const builder_site& at, chat_rule rule) {
    throw_builder_error(at, describe(rule, at.role, at.key));
}

// ---- the rules of rules.hpp, one function each -------------------------------------------------

inline void error_a_function_message_needs_a_name(builder_site at) { throw_rule(at, chat_rule::function_needs_name); }
inline void error_a_system_function_or_tool_message_needs_content(builder_site at) {
    throw_rule(at, chat_rule::needs_content);
}
inline void error_an_assistant_message_needs_content_or_a_call(builder_site at) {
    throw_rule(at, chat_rule::needs_content);
}
inline void error_a_name_cannot_be_empty(builder_site at) { throw_rule(at, chat_rule::empty_field); }
inline void error_a_tool_call_id_cannot_be_empty(builder_site at) { throw_rule(at, chat_rule::empty_field); }
inline void error_a_tool_message_needs_a_tool_call_id(builder_site at) { throw_rule(at, chat_rule::tool_needs_id); }
inline void error_a_default_request_must_set_at_least_one_parameter(builder_site at) {
    throw_rule(at, chat_rule::empty_default_request);
}
inline void error_image_parts_belong_to_user_messages(builder_site at) {
    throw_rule(at, chat_rule::image_outside_user);
}
inline void error_an_image_detail_is_auto_low_or_high(builder_site at) { throw_rule(at, chat_rule::bad_detail); }
inline void error_a_function_call_needs_the_function_name(builder_site at) {
    throw_rule(at, chat_rule::empty_call_name);
}
inline void error_a_tool_call_needs_an_id(builder_site at) { throw_rule(at, chat_rule::empty_tool_call_id); }
inline void error_max_tokens_must_be_at_least_1(builder_site at) { throw_rule(at, chat_rule::out_of_range); }
inline void error_temperature_must_be_between_0_and_2(builder_site at) { throw_rule(at, chat_rule::out_of_range); }
inline void error_top_p_must_be_between_0_and_1(builder_site at) { throw_rule(at, chat_rule::out_of_range); }
inline void error_presence_penalty_must_be_between_minus_2_and_2(builder_site at) {
    throw_rule(at, chat_rule::out_of_range);
}
inline void error_frequency_penalty_must_be_between_minus_2_and_2(builder_site at) {
    throw_rule(at, chat_rule::out_of_range);
}
inline void error_n_must_be_between_1_and_128(builder_site at) { throw_rule(at, chat_rule::out_of_range); }
inline void error_a_logit_bias_must_be_between_minus_100_and_100(builder_site at) {
    throw_rule(at, chat_rule::out_of_range);
}
inline void error_a_request_parameter_is_out_of_range(builder_site at) { throw_rule(at, chat_rule::out_of_range); }
inline void error_stop_has_at_most_4_sequences(builder_site at) { throw_rule(at, chat_rule::too_many_stops); }
inline void error_a_stop_sequence_cannot_be_empty(builder_site at) { throw_rule(at, chat_rule::empty_stop); }
inline void error_a_logit_bias_key_is_a_token_id_in_decimal_digits(builder_site at) {
    throw_rule(at, chat_rule::bad_logit_bias_key);
}
inline void error_a_function_name_has_1_to_64_letters_digits_underscores_or_hyphens(builder_site at) {
    throw_rule(at, chat_rule::bad_function_name);
}
inline void error_a_function_is_listed_twice_in_functions(builder_site at) {
    throw_rule(at, chat_rule::duplicate_function);
}
inline void error_call_function_forces_a_function_that_functions_does_not_list(builder_site at) {
    throw_rule(at, chat_rule::forced_function_not_listed);
}
inline void error_response_format_needs_a_type_of_text_json_object_or_json_schema(builder_site at) {
    throw_rule(at, chat_rule::bad_response_format);
}
inline void error_max_completion_tokens_must_be_at_least_1(builder_site at) { throw_rule(at, chat_rule::out_of_range); }
inline void error_top_k_must_be_at_least_0(builder_site at) { throw_rule(at, chat_rule::out_of_range); }
inline void error_top_logprobs_must_be_between_0_and_20(builder_site at) { throw_rule(at, chat_rule::out_of_range); }
inline void error_reasoning_effort_is_none_minimal_low_medium_high_xhigh_or_max(builder_site at) {
    throw_rule(at, chat_rule::bad_value);
}
inline void error_reasoning_summary_is_auto_concise_or_detailed(builder_site at) { throw_rule(at, chat_rule::bad_value); }
inline void error_verbosity_is_low_medium_or_high(builder_site at) { throw_rule(at, chat_rule::bad_value); }
inline void error_service_tier_is_auto_default_flex_scale_priority_or_standard_only(builder_site at) {
    throw_rule(at, chat_rule::bad_value);
}
inline void error_prompt_cache_retention_is_in_memory_or_24h(builder_site at) { throw_rule(at, chat_rule::bad_value); }
inline void error_truncation_is_auto_or_disabled(builder_site at) { throw_rule(at, chat_rule::bad_value); }
inline void error_thinking_is_enabled_with_a_budget_of_at_least_1024_or_adaptive_or_disabled(builder_site at) {
    throw_rule(at, chat_rule::bad_value);
}
inline void error_cache_control_is_ephemeral_with_a_ttl_of_5m_or_1h(builder_site at) { throw_rule(at, chat_rule::bad_value); }
inline void error_metadata_has_at_most_16_pairs_of_keys_up_to_64_and_values_up_to_512_characters(builder_site at) {
    throw_rule(at, chat_rule::bad_value);
}
inline void error_extra_may_not_set_model_messages_input_stream_or_tools(builder_site at) {
    throw_rule(at, chat_rule::bad_value);
}
inline void error_a_chat_rule_is_broken(builder_site at, chat_rule rule) { throw_rule(at, rule); }

static_assert(max_stop_sequences == 4, "the name error_stop_has_at_most_4_sequences states the limit");

/// Turns a broken rule into the call of its error function (nothing for chat_rule::none).
constexpr void report(chat_rule rule, builder_site at) {
    switch (rule) {
    case chat_rule::none: return;
    case chat_rule::function_needs_name: return error_a_function_message_needs_a_name(at);
    case chat_rule::needs_content:
        if (at.role == role::assistant) return error_an_assistant_message_needs_content_or_a_call(at);
        return error_a_system_function_or_tool_message_needs_content(at);
    case chat_rule::empty_field:
        if (at.key == "tool_call_id") return error_a_tool_call_id_cannot_be_empty(at);
        return error_a_name_cannot_be_empty(at);
    case chat_rule::tool_needs_id: return error_a_tool_message_needs_a_tool_call_id(at);
    case chat_rule::empty_default_request: return error_a_default_request_must_set_at_least_one_parameter(at);
    case chat_rule::image_outside_user: return error_image_parts_belong_to_user_messages(at);
    case chat_rule::bad_detail: return error_an_image_detail_is_auto_low_or_high(at);
    case chat_rule::empty_call_name: return error_a_function_call_needs_the_function_name(at);
    case chat_rule::empty_tool_call_id: return error_a_tool_call_needs_an_id(at);
    case chat_rule::out_of_range:
        if (at.key == "max_tokens") return error_max_tokens_must_be_at_least_1(at);
        if (at.key == "temperature") return error_temperature_must_be_between_0_and_2(at);
        if (at.key == "top_p") return error_top_p_must_be_between_0_and_1(at);
        if (at.key == "presence_penalty") return error_presence_penalty_must_be_between_minus_2_and_2(at);
        if (at.key == "frequency_penalty") return error_frequency_penalty_must_be_between_minus_2_and_2(at);
        if (at.key == "n") return error_n_must_be_between_1_and_128(at);
        if (at.key == "logit_bias") return error_a_logit_bias_must_be_between_minus_100_and_100(at);
        if (at.key == "max_completion_tokens") return error_max_completion_tokens_must_be_at_least_1(at);
        if (at.key == "top_k") return error_top_k_must_be_at_least_0(at);
        if (at.key == "top_logprobs") return error_top_logprobs_must_be_between_0_and_20(at);
        return error_a_request_parameter_is_out_of_range(at);
    case chat_rule::too_many_stops: return error_stop_has_at_most_4_sequences(at);
    case chat_rule::empty_stop: return error_a_stop_sequence_cannot_be_empty(at);
    case chat_rule::bad_logit_bias_key: return error_a_logit_bias_key_is_a_token_id_in_decimal_digits(at);
    case chat_rule::bad_function_name:
        return error_a_function_name_has_1_to_64_letters_digits_underscores_or_hyphens(at);
    case chat_rule::duplicate_function: return error_a_function_is_listed_twice_in_functions(at);
    case chat_rule::forced_function_not_listed:
        return error_call_function_forces_a_function_that_functions_does_not_list(at);
    case chat_rule::bad_response_format:
        return error_response_format_needs_a_type_of_text_json_object_or_json_schema(at);
    case chat_rule::bad_value:
        if (at.key == "reasoning_effort") return error_reasoning_effort_is_none_minimal_low_medium_high_xhigh_or_max(at);
        if (at.key == "reasoning_summary") return error_reasoning_summary_is_auto_concise_or_detailed(at);
        if (at.key == "verbosity") return error_verbosity_is_low_medium_or_high(at);
        if (at.key == "service_tier") return error_service_tier_is_auto_default_flex_scale_priority_or_standard_only(at);
        if (at.key == "prompt_cache_retention") return error_prompt_cache_retention_is_in_memory_or_24h(at);
        if (at.key == "truncation") return error_truncation_is_auto_or_disabled(at);
        if (at.key == "thinking") return error_thinking_is_enabled_with_a_budget_of_at_least_1024_or_adaptive_or_disabled(at);
        if (at.key == "cache_control") return error_cache_control_is_ephemeral_with_a_ttl_of_5m_or_1h(at);
        if (at.key == "metadata")
            return error_metadata_has_at_most_16_pairs_of_keys_up_to_64_and_values_up_to_512_characters(at);
        if (at.key == "extra") return error_extra_may_not_set_model_messages_input_stream_or_tools(at);
        return error_a_chat_rule_is_broken(at, rule);
    default: return error_a_chat_rule_is_broken(at, rule);
    }
}

// ---- limits of the builders and rules of template sets -----------------------------------------

inline void error_a_builder_message_has_at_most_8_content_parts(builder_site at) {
    throw_builder_error(at, "a message made by a builder has at most 8 content parts");
}
inline void error_a_builder_message_has_at_most_8_tool_calls(builder_site at) {
    throw_builder_error(at, "a message made by a builder has at most 8 tool calls");
}
inline void error_a_builder_request_has_at_most_8_stop_entries(builder_site at) {
    throw_builder_error(at, "a request made by a builder has at most 8 entries in 'stop'");
}
inline void error_a_builder_request_has_at_most_32_logit_bias_entries(builder_site at) {
    throw_builder_error(at, "a request made by a builder has at most 32 entries in 'logit_bias'");
}
inline void error_a_builder_request_lists_at_most_64_functions(builder_site at) {
    throw_builder_error(at, "a request made by a builder lists at most 64 functions");
}
inline void error_builder_metadata_lists_at_most_32_variables(builder_site at) {
    throw_builder_error(at, "the metadata of a template made by a builder lists at most 32 variables");
}
inline void error_response_format_is_not_a_json_object(builder_site at) {
    throw_builder_error(at, "'response_format' is not a JSON object");
}
inline void error_extra_is_not_a_json_object(builder_site at) { throw_builder_error(at, "'extra' is not a JSON object"); }
inline void error_the_parameters_of_a_function_are_not_a_json_object(builder_site at) {
    throw_builder_error(at, "the parameters of function '" + std::string(at.key) + "' are not a JSON object");
}
inline void error_a_template_of_a_set_needs_a_name(builder_site at) {
    throw_builder_error(at, "a template of a set needs a name");
}
inline void error_two_templates_of_a_set_have_the_same_name(builder_site at) {
    throw_builder_error(at, "template '" + std::string(at.key) + "' is defined twice");
}
inline void error_a_function_is_defined_twice_in_a_set(builder_site at) {
    throw_builder_error(at, "function '" + std::string(at.key) + "' is defined twice");
}

// ---- the checks of a message ------------------------------------------------------------------

template <class T>
constexpr void check_count(const T& list, void (*error)(builder_site), builder_site at) {
    if (list.written() > list.capacity()) error(at);
}

template <role R>
constexpr void check_params(const basic_request<R>& p, builder_site at) {
    auto number = [&](std::string_view name, const auto& v) {
        if (!v) return;
        at.key = name;
        report(check_number(name, static_cast<double>(*v)), at);
    };
    number("max_tokens", p.max_tokens);
    number("temperature", p.temperature);
    number("top_p", p.top_p);
    number("presence_penalty", p.presence_penalty);
    number("frequency_penalty", p.frequency_penalty);
    number("n", p.n);
    if (p.stop.is_set()) {
        at.key = "stop";
        check_count(p.stop.sequences(), &error_a_builder_request_has_at_most_8_stop_entries, at);
        report(check_stop_list(p.stop.sequences()), at);
    }
    if (p.logit_bias.is_set()) {
        check_count(p.logit_bias, &error_a_builder_request_has_at_most_32_logit_bias_entries, at);
        for (const auto& e : p.logit_bias) {
            at.key = e.token;
            report(check_logit_bias_key(e.token), at);
            at.key = "logit_bias";
            report(check_number("logit_bias", static_cast<double>(e.bias)), at);
        }
    }
    if (p.response_format) {
        at.key = "response_format";
        const json_object_scan scan = scan_json_object(*p.response_format);
        if (!scan.is_object) error_response_format_is_not_a_json_object(at);
        // with escapes, the type is checked when the builder is converted
        if (!scan.escaped)
            report(scan.has_type ? check_response_format_type(scan.type) : chat_rule::bad_response_format, at);
    }
    if (p.functions.is_set()) {
        at.key = "functions";
        check_count(p.functions, &error_a_builder_request_lists_at_most_64_functions, at);
        const rule_at broken = check_function_list(p.functions);
        if (broken.rule != chat_rule::none) at.key = p.functions[broken.index];
        report(broken.rule, at);
    }
    if (p.call_function) {
        at.key = *p.call_function;
        report(check_call_function(*p.call_function, p.functions.is_set() ? &p.functions : nullptr), at);
    }
    number("max_completion_tokens", p.max_completion_tokens);
    number("top_k", p.top_k);
    number("top_logprobs", p.top_logprobs);
    auto word = [&](std::string_view name, const std::optional<std::string_view>& v) {
        if (!v) return;
        at.key = name;
        report(is_choice(name, *v) ? chat_rule::none : chat_rule::bad_value, at);
    };
    word("reasoning_effort", p.reasoning_effort);
    word("reasoning_summary", p.reasoning_summary);
    word("verbosity", p.verbosity);
    word("service_tier", p.service_tier);
    word("prompt_cache_retention", p.prompt_cache_retention);
    word("truncation", p.truncation);
    if (p.thinking) {
        at.key = "thinking";
        const builder::thinking& t = *p.thinking;
        report(thinking_ok(t.type, t.budget_tokens.has_value(), t.budget_tokens.value_or(0), !t.display.empty(), t.display)
                   ? chat_rule::none
                   : chat_rule::bad_value,
               at);
    }
    if (p.cache_control) {
        at.key = "cache_control";
        report(cache_control_ok(p.cache_control->type, !p.cache_control->ttl.empty(), p.cache_control->ttl)
                   ? chat_rule::none
                   : chat_rule::bad_value,
               at);
    }
    if (p.metadata.is_set()) {
        at.key = "metadata";
        if (p.metadata.written() > p.metadata.capacity()) report(chat_rule::bad_value, at);
        for (std::size_t i = 0; i < p.metadata.size(); ++i) {
            if (!metadata_pair_ok(p.metadata[i].key, p.metadata[i].value)) report(chat_rule::bad_value, at);
            for (std::size_t j = 0; j < i; ++j)
                if (p.metadata[j].key == p.metadata[i].key) report(chat_rule::bad_value, at);
        }
    }
    if (p.extra) {
        at.key = "extra";
        if (!scan_json_object(*p.extra).is_object) error_extra_is_not_a_json_object(at);
    }
}

// The rules on a message's content parts (image parts in user messages only, their detail).
constexpr void check_parts(const builder::content& c, builder_site at) {
    if (c.type() != builder::content::kind::parts) return;
    at.key = "content";
    check_count(c.parts(), &error_a_builder_message_has_at_most_8_content_parts, at);
    for (const builder::part& p : c.parts()) {
        if (!p.is_image()) continue;
        const std::string_view detail = p.detail() ? *p.detail() : std::string_view();
        const chat_rule broken = check_image(at.role, p.detail().has_value(), detail);
        at.key = broken == chat_rule::bad_detail ? detail : std::string_view("content");
        report(broken, at);
    }
}

// The syntax of a message's texts (a string content, or the text parts).
constexpr void check_texts(const builder::content& c, builder_site at) {
    if (c.type() == builder::content::kind::text) {
        check_template_text(c.text(), at.message, -1, at.template_name);
        return;
    }
    if (c.type() != builder::content::kind::parts) return;
    for (std::size_t j = 0; j < c.parts().size(); ++j)
        if (!c.parts()[j].is_image())
            check_template_text(c.parts()[j].text(), at.message, static_cast<int>(j), at.template_name);
}

/// Checks message I of a template: the rules of parley::check(const message&), in its order
/// (keys a role does not take cannot be written: its builder has no member for them), then the
/// syntax of its texts.
template <std::size_t I, class M>
constexpr void check_message(const M& m, std::string_view template_name) {
    builder_site at{I, M::role, {}, template_name};
    if constexpr (std::is_same_v<M, default_request> || std::is_same_v<M, request>) {
        message_shape has{};
        has.params = !m.empty();
        report(check_required(M::role, has), at);
        check_params(m, at);
    } else if constexpr (std::is_same_v<M, truncate>) {
        (void)m;
    } else {
        message_shape has{};
        has.name = m.name.has_value();
        has.content = !m.content.is_none();
        if (m.name) {
            at.key = "name";
            report(check_not_empty(*m.name), at);
        }
        if constexpr (std::is_same_v<M, tool>) {
            has.tool_call_id = m.tool_call_id.has_value();
            if (m.tool_call_id) {
                at.key = "tool_call_id";
                report(check_not_empty(*m.tool_call_id), at);
            }
        }
        if constexpr (std::is_same_v<M, assistant>) has.calls = m.function_call.given || !m.tool_calls.empty();
        at.key = {};
        report(check_required(M::role, has), at);
        check_parts(m.content, at);
        if constexpr (std::is_same_v<M, assistant>) {
            if (m.function_call.given) {
                at.key = "function_call";
                report(check_function_call(m.function_call.name), at);
            }
            at.key = "tool_calls";
            check_count(m.tool_calls, &error_a_builder_message_has_at_most_8_tool_calls, at);
            for (const auto& call : m.tool_calls) report(check_tool_call(call.id, call.function.name), at);
        }
        check_texts(m.content, at);
    }
}

}  // namespace parley::detail

#endif
