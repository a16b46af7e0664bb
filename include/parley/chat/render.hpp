// parley/chat/render.hpp: the reading part of the bot algorithm (steps 1 to 3 of DESIGN.md):
// read a template's messages up to its first `request`, render their texts with the data,
// find the effective request parameters, and cut the conversation at `truncate`.
#ifndef PARLEY_CHAT_RENDER_HPP
#define PARLEY_CHAT_RENDER_HPP

#include <parley/chat/conversation_template.hpp>
#include <parley/chat/rules.hpp>
#include <parley/chat/view.hpp>
#include <parley/jinja/detail/ops.hpp>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace parley {

/// What rendering a template gives: the messages it read and the request they lead to.
struct rendered_request {
    /// The template's messages that were read, texts rendered, control messages included: the
    /// bot appends them to the conversation.
    std::vector<message> added;
    /// The effective request parameters: the nearest default-request of the conversation
    /// (history, then `added`), or the given defaults when there is none, overridden by the
    /// request message read.
    request_params params;
    /// The messages the request carries: the conversation's system, user, assistant, function
    /// and tool messages after its last truncate, oldest first.
    std::vector<message> messages;
    /// The index of the first template message not read (the template's size at its end).
    std::size_t next = 0;
    /// True when reading stopped after a request message; false when it reached the end.
    bool at_request = false;
};

/// Where to start and what to assume.
struct render_options {
    /// Parameters used when the conversation has no default-request.
    request_params defaults;
    /// The index of the template message to start reading from (the bot resumes there).
    std::size_t from = 0;
};

namespace detail {

/// The conversation a template sees as `chat_memory`: the non-control messages added so far,
/// after the last truncate. Messages are added one by one and must not move afterwards.
class memory_view {
public:
    explicit memory_view(const std::vector<message>& history) {
        for (const auto& m : history) add(m);
    }
    void add(const message& m) {
        if (m.role == role::truncate) visible_.clear();
        else if (!is_control(m.role)) visible_.push_back(&m);
    }
    const std::vector<const message*>& messages() const noexcept { return visible_; }

    pj::value value() const { return pj::value::view_of(this, &adapter); }

private:
    static const memory_view& self(const void* o) { return *static_cast<const memory_view*>(o); }
    static std::size_t size(const void* o) { return self(o).visible_.size(); }
    static pj::value at(const void* o, std::size_t i) { return pj::detail::cpp_view(*self(o).visible_[i]); }
    static constexpr pj::adapter adapter{pj::view_shape::sequence, "list", &size, &at, nullptr, nullptr, nullptr};

    std::vector<const message*> visible_;
};

/// The context of a template text: the data's keys, plus `chat_memory` (which hides a key of
/// the data with that name).
struct render_scope {
    pj::value data;
    pj::value memory;

    static const render_scope& self(const void* o) { return *static_cast<const render_scope*>(o); }
    static std::size_t data_size(const render_scope& s) {
        return s.data.is_view() && s.data.is_mapping_like() ? s.data.view_adapter()->size(s.data.view_object()) : 0;
    }
    static std::size_t size(const void* o) { return data_size(self(o)) + 1; }
    static pj::value key_at(const void* o, std::size_t i) {
        const render_scope& s = self(o);
        if (i == 0) return pj::value::view_of(std::string_view("chat_memory"));
        return s.data.view_adapter()->at(s.data.view_object(), i - 1);
    }
    static pj::value value_at(const void* o, std::size_t i) {
        const render_scope& s = self(o);
        if (i == 0) return s.memory;
        return s.data.view_adapter()->value_at(s.data.view_object(), i - 1);
    }
    static bool find(const void* o, std::string_view key, pj::value& out) {
        const render_scope& s = self(o);
        if (key == "chat_memory") {
            out = s.memory;
            return true;
        }
        if (!s.data.is_mapping_like()) return false;
        return pj::detail::mapping_find(s.data, pj::value::view_of(key), out);
    }
    static constexpr pj::adapter adapter{pj::view_shape::mapping, "dict", &size, &key_at, &value_at, &find, nullptr};
    pj::value value() const { return pj::value::view_of(this, &adapter); }
};

[[noreturn]] inline void content_parts_error(const std::string& name, std::size_t i, const std::string& what) {
    throw error(errc::chat_invalid, (name.empty() ? std::string("template") : name) + ", message " +
                                        std::to_string(i) + ": " + what);
}

/// A string field of a viewed mapping, or empty when missing.
inline std::optional<std::string> string_field(const pj::value& m, std::string_view key) {
    pj::value v;
    if (!m.is_mapping_like() || !pj::detail::mapping_find(m, pj::value::view_of(key), v) || !v.is_string())
        return std::nullopt;
    return std::string(v.as_string());
}

/// The data's `contentParts` as content parts: a list of strings (text parts) and of objects in
/// the wire shape (`{type: text, text}`, `{type: image_url, image_url: {url, detail}}`).
inline std::vector<content_part> content_parts_of(const pj::value& data, const std::string& name, std::size_t i) {
    pj::value list;
    if (!data.is_mapping_like() || !pj::detail::mapping_find(data, pj::value::view_of("contentParts"), list) ||
        list.is_none() || list.is_undefined())
        content_parts_error(name, i, "a user message without content takes its content from the data's "
                                     "'contentParts', which the data does not have");
    if (!list.is_sequence_like() || !list.is_view())
        content_parts_error(name, i, "the data's 'contentParts' must be a list of parts");
    const pj::adapter& ad = *list.view_adapter();
    std::vector<content_part> parts;
    const std::size_t n = ad.size(list.view_object());
    for (std::size_t k = 0; k < n; ++k) {
        const pj::value item = ad.at(list.view_object(), k);
        const std::string where = "contentParts[" + std::to_string(k) + "]";
        if (item.is_string()) {
            parts.push_back(content_part::make_text(std::string(item.as_string())));
            continue;
        }
        const auto type = string_field(item, "type");
        if (type == "text") {
            const auto text = string_field(item, "text");
            if (!text) content_parts_error(name, i, where + " is a text part without a string 'text'");
            parts.push_back(content_part::make_text(*text));
        } else if (type == "image_url") {
            pj::value image;
            if (!pj::detail::mapping_find(item, pj::value::view_of("image_url"), image))
                content_parts_error(name, i, where + " is an image part without 'image_url'");
            const auto url = string_field(image, "url");
            if (!url) content_parts_error(name, i, where + " is an image part without a string 'image_url.url'");
            auto detail = string_field(image, "detail");
            if (detail && check_detail(*detail) != chat_rule::none)
                content_parts_error(name, i, where + ": " + describe(chat_rule::bad_detail, role::user, *detail));
            parts.push_back(content_part::make_image(*url, std::move(detail)));
        } else {
            content_parts_error(name, i, where + " must be a string or an object whose 'type' is \"text\" or "
                                                 "\"image_url\"");
        }
    }
    return parts;
}

}  // namespace detail

/// Reads `t` from message `opt.from` up to and including its first request message (or to its
/// end) and renders each text with `data` as context, plus `chat_memory` (the conversation so
/// far: see rendered_request::messages). A user message without content takes its parts from
/// the data's `contentParts`. `history` is the conversation before this call (it is not changed).
/// Throws parley::template_error when a text fails to render (located in the template's file
/// when it has an origin, as templates loaded from YAML do), parley::error (errc::chat_invalid)
/// when a user message needs `contentParts` the data lacks, or the effective parameters break a
/// rule (a forced function that `functions` does not list).
template <class Data>
rendered_request render(const conversation_template& t, const Data& data, const std::vector<message>& history = {},
                        const render_options& opt = {}) {
    rendered_request out;
    const jinja::value data_value = jinja::detail::cpp_view(data);
    const auto& messages = t.messages();
    // `memory` points into `out.added`: reserved so that it never moves
    out.added.reserve(messages.size() - std::min(opt.from, messages.size()));
    detail::memory_view memory(history);
    const detail::render_scope scope{data_value, memory.value()};
    std::size_t i = opt.from;
    for (; i < messages.size(); ++i) {
        const message& m = messages[i];
        if (is_control(m.role)) {
            out.added.push_back(m);
            memory.add(out.added.back());
            if (m.role == role::request) {
                out.at_request = true;
                ++i;
                break;
            }
            continue;
        }
        message r = m;
        if (auto* s = std::get_if<std::string>(&r.content)) {
            try {
                *s = t.text(i)->render(scope.value());
            } catch (const template_error& e) {
                t.rethrow_placed(e, {i, text_location::npos});
            }
        } else if (auto* parts = std::get_if<std::vector<content_part>>(&r.content)) {
            for (std::size_t j = 0; j < parts->size(); ++j)
                if (const auto* text = t.text(i, j)) {
                    try {
                        (*parts)[j].text = text->render(scope.value());
                    } catch (const template_error& e) {
                        t.rethrow_placed(e, {i, j});
                    }
                }
        } else if (r.role == role::user) {
            r.content = detail::content_parts_of(data_value, t.name(), i);
        }
        out.added.push_back(std::move(r));
        memory.add(out.added.back());
    }
    out.next = i;

    // the nearest default-request, scanning backwards through history then added
    const message* nearest = nullptr;
    for (auto it = out.added.rbegin(); !nearest && it != out.added.rend(); ++it)
        if (it->role == role::default_request) nearest = &*it;
    for (auto it = history.rbegin(); !nearest && it != history.rend(); ++it)
        if (it->role == role::default_request) nearest = &*it;
    out.params = nearest ? nearest->params : opt.defaults;
    if (out.at_request) out.params.override_with(out.added.back().params);
    if (const rule_violation v = check(out.params))
        throw error(errc::chat_invalid, (t.name().empty() ? std::string("template") : t.name()) +
                                            ": the effective request parameters: " +
                                            describe(v.rule, role::request, v.key));

    out.messages.reserve(memory.messages().size());
    for (const message* m : memory.messages()) out.messages.push_back(*m);
    return out;
}

}  // namespace parley

#endif
