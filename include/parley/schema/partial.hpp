// parley/schema/partial.hpp: parley::partial<T>, the part of a T that has arrived while a reply
// streams in, with what has arrived of each member, item and entry (nothing, begun, whole);
// the readers that make one from the text received so far; partial_reader<T>, which gives a new
// one only when what has arrived changed.
#ifndef PARLEY_SCHEMA_PARTIAL_HPP
#define PARLEY_SCHEMA_PARTIAL_HPP

#include <parley/config.hpp>
#include <parley/error.hpp>
#include <parley/schema/arrival.hpp>
#include <parley/schema/from_json.hpp>
#include <parley/schema/from_json_result.hpp>
#include <parley/schema/json_text.hpp>
#include <parley/schema/partial_json.hpp>
#include <parley/schema/traits.hpp>
#include <parley/type_name.hpp>

#include <boost/describe/members.hpp>
#include <boost/json/value.hpp>
#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace parley {

template <class U>
class partial_view;
template <class T>
class partial;

namespace detail::partial {

// Whether a view of an array type gives typed views of its items: arrays read in order
// (sequences, std::array) whose items are objects (not the bits of std::vector<bool>).
template <class U>
inline constexpr bool has_item_views_v = [] {
    if constexpr (is_sequence_v<U> || is_std_array_v<U>)
        return std::is_lvalue_reference_v<decltype(*std::declval<const U&>().begin())>;
    else
        return false;
}();

/// Removes from `n` what a T does not read (members T does not describe, the insides of
/// values T reads as strings, numbers, booleans, enums or null), so that only what shows in
/// a T is compared and listed. `v` is the value read from the same JSON (null: unknown, which
/// keeps the whole of a variant).
template <class U>
void prune(node& n, const U* v) {
    constexpr json_kind kind = json_kind_v<U>;
    if constexpr (kind == json_kind::object) {
        std::size_t out = 0;
        for (std::size_t k = 0; k < n.children.size(); ++k) {
            bool known = false;
            boost::mp11::mp_for_each<described_members<U>>([&](auto D) {
                if (known || !n.object || n.keys[k] != D.name) return;
                known = true;
                using M = member_type_t<U, decltype(D)>;
                prune<M>(n.children[k], v ? &(v->*D.pointer) : static_cast<const M*>(nullptr));
            });
            if (!known) continue;
            if (out != k) {
                n.children[out] = std::move(n.children[k]);
                n.keys[out] = std::move(n.keys[k]);
            }
            ++out;
        }
        n.children.resize(out);
        if (n.object) n.keys.resize(out);
    } else if constexpr (kind == json_kind::map) {
        using M = typename string_map_traits<U>::mapped_type;
        for (std::size_t k = 0; k < n.children.size() && n.object; ++k) {
            const M* item = nullptr;
            if (v)
                if (auto it = v->find(n.keys[k]); it != v->end()) item = &it->second;
            prune<M>(n.children[k], item);
        }
    } else if constexpr (kind == json_kind::array) {
        using I = array_item_t<U>;
        std::size_t k = 0;
        if constexpr (has_item_views_v<U>) {
            if (v)
                for (auto it = v->begin(); it != v->end() && k < n.children.size(); ++it, ++k) prune<I>(n.children[k], &*it);
        }
        for (; k < n.children.size(); ++k) prune<I>(n.children[k], static_cast<const I*>(nullptr));
    } else if constexpr (kind == json_kind::optional) {
        using V = typename optional_traits<U>::value_type;
        prune<V>(n, v && v->has_value() ? &**v : static_cast<const V*>(nullptr));
    } else if constexpr (kind == json_kind::variant) {
        if (v) std::visit([&](const auto& alternative) { prune<std::remove_cvref_t<decltype(alternative)>>(n, &alternative); }, *v);
    } else if constexpr (kind == json_kind::any) {
        // every value of the JSON shows
    } else {
        n.children.clear();
        n.keys.clear();
    }
}

template <class U>
bool same_value(const U& a, const U& b);

template <class K, class M>
const K& key_of(const std::pair<const K, M>& entry) {
    return entry.first;
}
template <class X>
const X& key_of(const X& item) {
    return item;
}
template <class K, class M>
bool same_entry(const std::pair<const K, M>& a, const std::pair<const K, M>& b) {
    return same_value(a.second, b.second);
}
template <class X>
bool same_entry(const X& a, const X& b) {
    return same_value(a, b);
}

/// Whether two values of type U are the same, member by member and item by item (U need not
/// have operator==).
template <class U>
bool same_value(const U& a, const U& b) {
    constexpr json_kind kind = json_kind_v<U>;
    if constexpr (kind == json_kind::object) {
        bool same = true;
        boost::mp11::mp_for_each<described_members<U>>([&](auto D) {
            same = same && same_value(a.*D.pointer, b.*D.pointer);
        });
        return same;
    } else if constexpr (kind == json_kind::optional) {
        if (a.has_value() != b.has_value()) return false;
        return !a.has_value() || same_value(*a, *b);
    } else if constexpr (kind == json_kind::variant) {
        if (a.index() != b.index()) return false;
        return std::visit(
            [&](const auto& x) {
                using A = std::remove_cvref_t<decltype(x)>;
                return same_value(x, *std::get_if<A>(&b));
            },
            a);
    } else if constexpr (kind == json_kind::map || (kind == json_kind::array && is_set_v<U>)) {
        if (a.size() != b.size()) return false;
        for (const auto& x : a) {
            auto it = b.find(key_of(x));
            if (it == b.end() || !same_entry(x, *it)) return false;
        }
        return true;
    } else if constexpr (kind == json_kind::array) {
        auto i = a.begin();
        auto j = b.begin();
        for (; i != a.end() && j != b.end(); ++i, ++j)
            if (!same_value<array_item_t<U>>(*i, *j)) return false;
        return i == a.end() && j == b.end();
    } else if constexpr (kind == json_kind::null) {
        return true;
    } else {
        return a == b;  // bool, numbers, strings, enums, boost::json::value
    }
}

/// The name of the member of described struct U that `m` points to, or null.
template <class U, class M, class C>
const char* member_name(M C::*m) noexcept {
    const char* name = nullptr;
    boost::mp11::mp_for_each<described_members<U>>([&](auto D) {
        if constexpr (std::is_same_v<std::remove_cv_t<decltype(D.pointer)>, M C::*>)
            if (!name && D.pointer == m) name = D.name;
    });
    return name;
}

/// The storage of a partial<T>, a base class so that it is built before the view of it.
template <class T>
struct partial_storage {
    T value_;
    node arrivals_;
};

/// The struct a view of U gives members of: U, or the struct in a std::optional U.
template <class U, bool = is_optional_v<U>>
struct viewed_struct {
    using type = U;
};
template <class U>
struct viewed_struct<U, true> {
    using type = typename optional_traits<U>::value_type;
};
template <class U>
using viewed_struct_t = typename viewed_struct<U>::type;

}  // namespace detail::partial

/// A view of one value of a parley::partial<T>: the C++ value read so far (`value()`), how
/// much of it has arrived (`state()`, `has()`, `complete()`, from arrival_node), and views of
/// its parts: `p[&S::member]` for a described struct (or a std::optional of one), `p[i]` for an
/// item of a std::vector, std::deque, std::list or std::array, `p["key"]` for an entry of a
/// map, `p.as<A>()` for the alternative of a std::variant, `p.inner()` for the value of a
/// std::optional. A view of a part that has not arrived is valid: its state is `missing`, and
/// its value is the default the reading left there (a struct's member), or there is none (an
/// item or entry that has not come: `get()` is null). A view points into its partial<T>,
/// which must outlive it.
template <class U>
class partial_view : public arrival_node {
public:
    /// The value as far as it has arrived. Throws parley::error (errc::invalid_argument) when the
    /// C++ value has no such part (an item or entry that has not arrived; see `get()`).
    const U& value() const {
        if (!v_)
            throw error(errc::invalid_argument, "partial_view<" + std::string(type_name<U>()) +
                                                    ">::value(): this part has not arrived, so the value has none");
        return *v_;
    }
    /// The value, or null when the C++ value has no such part (an item or entry that has not arrived).
    const U* get() const noexcept { return v_; }
    /// The value, as value().
    const U& operator*() const { return value(); }
    /// Member access on the value, as value().
    const U* operator->() const { return &value(); }

    /// The view of a member of a described struct (or of the struct in a std::optional, which
    /// has no value while the optional is empty). Throws parley::error (errc::invalid_argument)
    /// for a member pointer that names no member described with BOOST_DESCRIBE_STRUCT.
    template <class M, class C>
        requires detail::is_described_struct_v<detail::partial::viewed_struct_t<U>>
    partial_view<M> operator[](M C::*member) const {
        using S = detail::partial::viewed_struct_t<U>;
        static_assert(std::is_base_of_v<C, S>, "partial_view[&C::member]: C is not the struct viewed nor one of its bases");
        const char* name = detail::partial::member_name<S>(member);
        if (!name)
            throw error(errc::invalid_argument, "partial_view<" + std::string(type_name<S>()) +
                                                    ">[member]: the member pointer names no member described with "
                                                    "BOOST_DESCRIBE_STRUCT");
        const S* s = nullptr;
        if constexpr (detail::is_optional_v<U>)
            s = v_ && v_->has_value() ? &**v_ : nullptr;
        else
            s = v_;
        return partial_view<M>(s ? &(s->*member) : nullptr, arrival_node::member(name).n_);
    }
    /// The state of a member: `(*this)[member].state()`.
    template <class M, class C>
    arrival state(M C::*member) const {
        return (*this)[member].state();
    }
    /// Whether any of a member has arrived: `(*this)[member].has()`.
    template <class M, class C>
    bool has(M C::*member) const {
        return (*this)[member].has();
    }
    /// Whether the whole of a member has arrived: `(*this)[member].complete()`.
    template <class M, class C>
    bool complete(M C::*member) const {
        return (*this)[member].complete();
    }
    using arrival_node::complete;
    using arrival_node::has;
    using arrival_node::state;

    /// The view of item `i` of a std::vector, std::deque, std::list (O(i)) or std::array; its
    /// value is null when the item has not arrived (a std::array has all its items: those that
    /// have not arrived hold their defaults).
    template <class V = U>
        requires detail::partial::has_item_views_v<V>
    partial_view<detail::array_item_t<V>> operator[](std::size_t i) const {
        using I = detail::array_item_t<V>;
        const I* item = nullptr;
        if (v_ && i < static_cast<std::size_t>(std::distance(v_->begin(), v_->end())))
            item = &*std::next(v_->begin(), static_cast<std::ptrdiff_t>(i));
        return partial_view<I>(item, arrival_node::item(i).n_);
    }

    /// The view of the entry `key` of a std::map or std::unordered_map; its value is null when
    /// the entry has not arrived.
    template <class V = U>
        requires detail::is_string_map_v<V>
    partial_view<typename detail::string_map_traits<V>::mapped_type> operator[](std::string_view key) const {
        using M = typename detail::string_map_traits<V>::mapped_type;
        const M* entry = nullptr;
        if (v_)
            if (auto it = v_->find(std::string(key)); it != v_->end()) entry = &it->second;
        return partial_view<M>(entry, arrival_node::member(key).n_);
    }

    /// The view of the alternative A of a std::variant; its value is null when the variant holds another one.
    template <class A>
        requires detail::is_variant_v<U>
    partial_view<A> as() const {
        return partial_view<A>(v_ ? std::get_if<A>(v_) : nullptr, n_);
    }

    /// The view of the value of a std::optional; its value is null while the optional is empty.
    template <class V = U>
        requires detail::is_optional_v<V>
    partial_view<typename detail::optional_traits<V>::value_type> inner() const {
        return {v_ && v_->has_value() ? &**v_ : nullptr, n_};
    }

private:
    template <class>
    friend class partial_view;
    template <class>
    friend class partial;

    partial_view(const U* v, const detail::partial::node* n) noexcept : arrival_node(n), v_(v) {}

    const U* v_ = nullptr;
};

/// The part of a T that has arrived while a reply streams in (instructor's Partial[T]): the
/// value read so far, `value()`, whose members that have not arrived keep their defaults, and
/// for each value of it (members of nested structs, items of arrays, entries of maps) whether
/// it has arrived and whether it is whole: `p.state(&order::customer)`,
/// `p[&order::lines][0].complete(&line::product)`, `p.at_pointer("/lines/0/product")`, and
/// `p.states()` for the whole list. A string, number or literal still growing is `arriving`
/// (`12` may become `123`), as is an array or object not yet closed; a member absent from a
/// closed object stays `missing` (it was left out). Made by read_partial_json<T>,
/// read_partial_text<T> and partial_reader<T>. Copies and moves keep their views apart.
template <class T>
class partial : private detail::partial::partial_storage<T>, public partial_view<T> {
    using storage = detail::partial::partial_storage<T>;

public:
    /// A value and the arrival of its parts (as the readers make them).
    partial(T value, detail::partial::node arrivals)
        : storage{std::move(value), std::move(arrivals)}, partial_view<T>(&this->value_, &this->arrivals_) {}
    partial(const partial& other) : storage(other), partial_view<T>(&this->value_, &this->arrivals_) {}
    partial(partial&& other) noexcept(std::is_nothrow_move_constructible_v<T>)
        : storage(std::move(other)), partial_view<T>(&this->value_, &this->arrivals_) {}
    partial& operator=(const partial& other) {
        static_cast<storage&>(*this) = other;
        return *this;
    }
    partial& operator=(partial&& other) noexcept(std::is_nothrow_move_assignable_v<T>) {
        static_cast<storage&>(*this) = std::move(other);
        return *this;
    }
    ~partial() = default;

    /// The value read so far, moved out.
    T take() && { return std::move(this->value_); }
};

/// Whether the text a partial reader is given is JSON, or a free-text reply with JSON in it.
enum class partial_input : std::uint8_t {
    json,  ///< JSON text (a tool call's arguments, a structured-output reply): parse_partial_json
    text,  ///< prose then JSON, possibly fenced: parse_partial_json_from_text
};

namespace detail::partial {

template <class T>
from_json_result<parley::partial<T>> read_as(prefix_reading&& r, from_json_options options) {
    if (!r.json) return {std::vector<json_problem>{r.json.error().problem}, {}, 0};
    if (r.json.length() == 0) return nothing_yet<parley::partial<T>>();
    options.partial = true;
    from_json_result<T> value = from_json<T>(r.json.value(), options);
    if (!value) return {value.errors(), value.warnings(), value.omitted_errors()};
    prune<T>(r.arrivals, &*value);
    std::vector<json_problem> warnings = value.warnings();
    return {parley::partial<T>(std::move(*value), std::move(r.arrivals)), std::move(warnings)};
}

}  // namespace detail::partial

/// The part of a T that has arrived in `prefix`, the first part of a JSON text: the value as
/// `from_partial_json<T>` reads it, with the arrival of each of its values. While nothing of
/// the value has arrived the only problem is of kind `json_problem_kind::nothing_yet`; a prefix
/// no JSON text starts with, or whose JSON does not read as a T, gives the problems, as
/// from_partial_json does. Linear time.
template <class T>
from_json_result<partial<T>> read_partial_json(std::string_view prefix, from_json_options options = {},
                                               const json_text_options& text_options = {}) {
    return detail::partial::read_as<T>(detail::partial::read_prefix(prefix, text_options, true), options);
}

/// The same for a free-text reply still streaming in (prose, then JSON, as
/// `parse_partial_json_from_text` finds it).
template <class T>
from_json_result<partial<T>> read_partial_text(std::string_view text, from_json_options options = {},
                                               const json_text_options& text_options = {}) {
    return detail::partial::read_as<T>(detail::partial::read_text_prefix(text, text_options, true), options);
}

/// Reads a reply as it streams in, giving a new partial<T> only when what has arrived changed:
/// the value, or the state of one of its values (a string that got its closing quote, a number
/// followed by a comma). White space, a cut escape or UTF-8 character, more letters of an
/// enumerator's name not yet whole, or members T does not read give nothing new.
///
///     parley::partial_reader<order> reader;
///     // each time a piece arrives, with everything received so far:
///     if (const parley::partial<order>* p = reader.update(received)) show(*p);
///
/// Each update reads the whole text again (linear time).
template <class T>
class partial_reader {
public:
    /// A reader of JSON text (`partial_input::json`) or of JSON in prose (`partial_input::text`).
    explicit partial_reader(partial_input input = partial_input::json, from_json_options options = {},
                            json_text_options text_options = {})
        : input_(input), options_(options), text_options_(text_options) {}

    /// Reads `received`, everything received so far (each call a longer text than the last).
    /// The new partial value when what has arrived differs from the last one given; null when it
    /// is the same, when nothing of the value has arrived yet, and when the text does not read
    /// as a T (malformed JSON, a value of another type: read_partial_json says why). The pointer
    /// stays valid until the next update or reset.
    const partial<T>* update(std::string_view received) {
        auto r = input_ == partial_input::text ? read_partial_text<T>(received, options_, text_options_)
                                               : read_partial_json<T>(received, options_, text_options_);
        if (!r) return nullptr;
        if (last_ && static_cast<const arrival_node&>(*last_) == static_cast<const arrival_node&>(*r) &&
            detail::partial::same_value(last_->value(), r->value()))
            return nullptr;
        last_.emplace(std::move(r).value());
        return &*last_;
    }

    /// The last partial value update gave, or null.
    const partial<T>* last() const noexcept { return last_ ? &*last_ : nullptr; }

    /// Forgets the last value, for a new reply.
    void reset() noexcept { last_.reset(); }

private:
    partial_input input_;
    from_json_options options_;
    json_text_options text_options_;
    std::optional<partial<T>> last_;
};

}  // namespace parley

#endif
