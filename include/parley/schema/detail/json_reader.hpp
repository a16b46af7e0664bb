// parley/schema/detail/json_reader.hpp: the reader behind from_json: one function per kind of
// type (scalars, enums, structs, sequences, arrays, maps, variants), reporting problems through
// the reader state of reader_state.hpp.
#ifndef PARLEY_SCHEMA_DETAIL_JSON_READER_HPP
#define PARLEY_SCHEMA_DETAIL_JSON_READER_HPP

#include <parley/config.hpp>
#include <parley/schema/detail/annotation_bounds.hpp>
#include <parley/schema/detail/annotation_types.hpp>
#include <parley/schema/detail/conversion.hpp>
#include <parley/schema/detail/expectations.hpp>
#include <parley/schema/detail/reader_state.hpp>
#include <parley/schema/from_json_result.hpp>
#include <parley/schema/traits.hpp>

#include <boost/describe/enumerators.hpp>
#include <boost/describe/members.hpp>
#include <boost/json/value.hpp>
#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace parley {

namespace detail::conv {

template <class T>
bool read(const boost::json::value& v, T& out, reader& r);

template <class T>
bool wrong_type(const boost::json::value& v, reader& r) {
    r.error(json_problem_kind::wrong_type, expected_of<T>(), found_text(v));
    return false;
}

template <class I>
bool read_integer(const boost::json::value& v, I& out, reader& r) {
    using limits = std::numeric_limits<I>;
    bool fits = false;
    if (v.is_int64()) {
        std::int64_t x = v.get_int64();
        if constexpr (std::is_signed_v<I>)
            fits = x >= static_cast<std::int64_t>(limits::min()) && x <= static_cast<std::int64_t>(limits::max());
        else
            fits = x >= 0 && static_cast<std::uint64_t>(x) <= static_cast<std::uint64_t>(limits::max());
        if (fits) out = static_cast<I>(x);
    } else if (v.is_uint64()) {
        std::uint64_t x = v.get_uint64();
        fits = x <= static_cast<std::uint64_t>(limits::max());
        if (fits) out = static_cast<I>(x);
    } else if (v.is_double()) {
        // A double with no fraction is an integer to JSON Schema (3.0, 1e2); one with a fraction
        // is the wrong type. Strict reading (the first pass over a variant) takes neither.
        double d = v.get_double();
        if (r.exact || (std::isfinite(d) && d != std::trunc(d))) return wrong_type<I>(v, r);
        constexpr double two63 = 9223372036854775808.0;
        // Beyond 2^53 a double may be a rounded integer (-9223372036854775809 parses as -2^63).
        if (std::fabs(d) > 9007199254740992.0 && std::fabs(d) <= 2 * two63) {
            bool in_range = std::is_signed_v<I> ? d >= -two63 && d < two63 : d >= 0 && d < 2 * two63;
            if (in_range && d >= static_cast<double>(limits::min()) && d <= static_cast<double>(limits::max())) {
                r.error(json_problem_kind::out_of_range, expected_of<I>(), found_text(v),
                        "too large to be an exact integer");
                return false;
            }
        }
        if constexpr (std::is_signed_v<I>) {
            if (d >= -two63 && d < two63) {
                auto x = static_cast<std::int64_t>(d);
                fits = x >= static_cast<std::int64_t>(limits::min()) && x <= static_cast<std::int64_t>(limits::max());
                if (fits) out = static_cast<I>(x);
            }
        } else {
            if (d >= 0 && d < 2 * two63) {
                auto x = static_cast<std::uint64_t>(d);
                fits = x <= static_cast<std::uint64_t>(limits::max());
                if (fits) out = static_cast<I>(x);
            }
        }
    } else {
        return wrong_type<I>(v, r);
    }
    if (!fits) r.error(json_problem_kind::out_of_range, expected_of<I>(), found_text(v));
    return fits;
}

template <class F>
bool read_floating(const boost::json::value& v, F& out, reader& r) {
    double d = 0;
    if (v.is_double())
        d = v.get_double();
    else if (v.is_int64() && !r.exact)
        d = static_cast<double>(v.get_int64());
    else if (v.is_uint64() && !r.exact)
        d = static_cast<double>(v.get_uint64());
    else
        return wrong_type<F>(v, r);
    constexpr double largest = std::numeric_limits<F>::max() < std::numeric_limits<double>::max()
                                   ? static_cast<double>(std::numeric_limits<F>::max())
                                   : std::numeric_limits<double>::max();
    if (!std::isfinite(d) || std::fabs(d) > largest) {
        std::string expected = "a number from -";
        append_double(expected, largest);
        expected += " to ";
        append_double(expected, largest);
        r.error(json_problem_kind::out_of_range, std::move(expected), found_text(v));
        return false;
    }
    out = static_cast<F>(d);
    return true;
}

template <class E>
bool read_enum(const boost::json::value& v, E& out, reader& r) {
    if (!v.is_string()) return wrong_type<E>(v, r);
    std::string_view name = v.get_string();
    bool found = false;
    boost::mp11::mp_for_each<boost::describe::describe_enumerators<E>>([&](auto D) {
        if (!found && name == D.name) {
            out = D.value;
            found = true;
        }
    });
    if (!found && r.options.partial) {
        // A name still arriving: the start of some enumerator's name leaves the value as it is.
        boost::mp11::mp_for_each<boost::describe::describe_enumerators<E>>([&](auto D) {
            found = found || std::string_view(D.name).substr(0, name.size()) == name;
        });
        if (found) return true;
    }
    if (!found) r.error(json_problem_kind::unknown_name, expected_of<E>(), found_text(v));
    return found;
}

template <class T>
bool read_struct(const boost::json::value& v, T& out, reader& r) {
    if (!v.is_object()) return wrong_type<T>(v, r);
    if (!r.enter()) return false;
    depth_guard leave{r};
    const boost::json::object& o = v.get_object();
    bool ok = true;
    std::size_t present = 0;  // members found: when all keys are members, none is unknown
    boost::mp11::mp_for_each<described_members<T>>([&](auto D) {
        if (r.done()) return;
        using M = std::remove_cvref_t<decltype(out.*D.pointer)>;
        path_segment seg(r, std::string_view(D.name));
        if (const boost::json::value* m = o.if_contains(D.name)) {
            ++present;
            constexpr const annotation* note = annotations_v<T>.find(decltype(D)::name);
            if (!read(*m, out.*D.pointer, r))
                ok = false;
            else if constexpr (note != nullptr) {
                if (!r.options.partial && !check_annotation(out.*D.pointer, *note, r)) ok = false;
            }
        } else if constexpr (is_optional_v<M>) {
            (out.*D.pointer).reset();
        } else if (!r.options.partial) {
            r.error(json_problem_kind::missing_member, expected_of<M>(), "nothing", "required member missing");
            ok = false;
        }
    });
    if (r.done()) return false;
    if (present == o.size()) return ok;
    for (const auto& kv : o) {
        bool known = false;
        boost::mp11::mp_for_each<described_members<T>>([&](auto D) { known = known || kv.key() == D.name; });
        if (known) continue;
        std::string names;
        boost::mp11::mp_for_each<described_members<T>>([&](auto D) {
            names += names.empty() ? "" : ", ";
            append_quoted(names, D.name);
        });
        path_segment seg(r, std::string_view(kv.key()));
        if (r.exact) {
            r.error(json_problem_kind::unknown_member, "one of the members " + names, "an unknown member");
            return false;
        }
        r.warning(json_problem_kind::unknown_member, "one of the members " + names, "an unknown member (ignored)");
    }
    return ok;
}

template <class T>
struct is_std_vector : std::false_type {};
template <class T, class A>
struct is_std_vector<std::vector<T, A>> : std::true_type {};

// Sequences and sets.
template <class C>
bool read_sequence(const boost::json::value& v, C& out, reader& r) {
    using item_type = array_item_t<C>;
    if (!v.is_array()) return wrong_type<C>(v, r);
    if (!r.enter()) return false;
    depth_guard leave{r};
    const boost::json::array& a = v.get_array();
    bool ok = true;
    out.clear();
    if constexpr (is_std_vector<C>::value) out.reserve(a.size());
    for (std::size_t i = 0; i < a.size() && !r.done(); ++i) {
        path_segment seg(r, i);
        item_type item{};
        if (!read(a[i], item, r)) {
            ok = false;
            continue;
        }
        if constexpr (is_sequence_v<C>) {
            out.push_back(std::move(item));
        } else if (!out.insert(std::move(item)).second) {
            r.warning(json_problem_kind::duplicate_item, "an item not already in the array",
                      found_text(a[i]) + " again (ignored)");
        }
    }
    return ok && !r.done();
}

template <class T, std::size_t N>
bool read_array(const boost::json::value& v, std::array<T, N>& out, reader& r) {
    if (!v.is_array()) return wrong_type<std::array<T, N>>(v, r);
    if (!r.enter()) return false;
    depth_guard leave{r};
    const boost::json::array& a = v.get_array();
    bool ok = a.size() == N || (r.options.partial && a.size() < N);  // the rest may still come
    if (!ok)
        r.error(json_problem_kind::wrong_size, expected_of<std::array<T, N>>(),
                "an array of " + std::to_string(a.size()) + (a.size() == 1 ? " item" : " items"));
    for (std::size_t i = 0; i < a.size() && i < N && !r.done(); ++i) {
        path_segment seg(r, i);
        ok = read(a[i], out[i], r) && ok;
    }
    return ok && !r.done();
}

template <class M>
bool read_map(const boost::json::value& v, M& out, reader& r) {
    if (!v.is_object()) return wrong_type<M>(v, r);
    if (!r.enter()) return false;
    depth_guard leave{r};
    bool ok = true;
    out.clear();
    for (const auto& kv : v.get_object()) {
        if (r.done()) break;
        path_segment seg(r, std::string_view(kv.key()));
        typename string_map_traits<M>::mapped_type item{};
        if (read(kv.value(), item, r))
            out.insert_or_assign(std::string(kv.key()), std::move(item));
        else
            ok = false;
    }
    return ok && !r.done();
}

// Tries one alternative of a variant on a reader of its own, which stops at its first error.
// On success the value and the warnings are taken; on failure the first error explains it.
template <class V, std::size_t I>
bool try_alternative(const boost::json::value& v, V& out, reader& r, bool strict, std::string& why, bool& telling) {
    using A = std::variant_alternative_t<I, V>;
    if (r.aborted) return false;
    const std::string here = r.path();
    reader sub{r.options, r.steps, here, {}, {}, 0, r.depth, strict || r.exact, true, false, {}};
    A value{};
    if (read(v, value, sub)) {
        out.template emplace<I>(std::move(value));
        for (json_problem& w : sub.warnings)
            if (r.warnings.size() < r.options.max_problems) r.warnings.push_back(std::move(w));
        return true;
    }
    if (sub.aborted) {
        if (sub.errors.empty() || r.errors.size() >= r.options.max_problems)
            ++r.omitted;
        else
            r.errors.push_back(std::move(sub.errors.front()));
        r.aborted = true;
        return false;
    }
    if (!why.empty()) why += "; ";
    why += "alternative " + std::to_string(I + 1) + ": ";
    if (!sub.errors.empty()) {
        json_problem& p = sub.errors.front();
        p.path.erase(0, here.size());  // relative to the variant
        if (p.path.empty() && p.kind == json_problem_kind::wrong_type) {
            why += "expected " + p.expected;  // what was found is the variant's value
        } else {
            why += p.message();
            telling = true;
        }
    }
    return false;
}

template <class... Ts>
bool read_variant(const boost::json::value& v, std::variant<Ts...>& out, reader& r) {
    using V = std::variant<Ts...>;
    // First the alternative that fits exactly: without number conversions (so that 3 picks an
    // integer alternative and 3.0 a floating one) and without unknown members; then the first
    // alternative that fits at all.
    // The detail says why each alternative failed, unless each simply has another JSON type.
    bool found = false;
    bool telling = false;
    std::string why;
    for (bool strict : {true, false}) {
        if (strict && r.exact) continue;  // the second pass is strict anyway
        why.clear();
        telling = false;
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (void)((found = try_alternative<V, I>(v, out, r, strict, why, telling)) || ...);
        }(std::index_sequence_for<Ts...>{});
        if (found || r.aborted) return found;
    }
    r.error(json_problem_kind::no_alternative, expected_of<V>(), found_text(v), telling ? std::move(why) : std::string());
    return false;
}

template <class T>
bool read(const boost::json::value& v, T& out, reader& r) {
    if (!r.step()) return false;
    constexpr json_kind kind = json_kind_v<T>;
    if constexpr (kind == json_kind::boolean) {
        if (!v.is_bool()) return wrong_type<T>(v, r);
        out = v.get_bool();
        return true;
    } else if constexpr (kind == json_kind::integer) {
        return read_integer(v, out, r);
    } else if constexpr (kind == json_kind::number) {
        return read_floating(v, out, r);
    } else if constexpr (kind == json_kind::string) {
        static_assert(std::is_same_v<T, std::string>,
                      "from_json cannot fill a std::string_view (it would point into the JSON value, which does "
                      "not outlive the result): use std::string");
        if (!v.is_string()) return wrong_type<T>(v, r);
        out.assign(v.get_string().data(), v.get_string().size());
        return true;
    } else if constexpr (kind == json_kind::any) {
        out = v;
        return true;
    } else if constexpr (kind == json_kind::null) {
        return v.is_null() || wrong_type<T>(v, r);
    } else if constexpr (kind == json_kind::enumeration) {
        return read_enum(v, out, r);
    } else if constexpr (kind == json_kind::optional) {
        if (v.is_null()) {
            out.reset();
            return true;
        }
        // Problems of the value itself also accept null: "expected a string or null".
        std::size_t before = r.errors.size();
        if (read(v, out.emplace(), r)) return true;
        const std::string here = r.path();
        for (std::size_t i = before; i < r.errors.size(); ++i) {
            json_problem& p = r.errors[i];
            if (p.path == here && p.kind != json_problem_kind::limit) p.expected += " or null";
        }
        return false;
    } else if constexpr (is_std_array_v<T>) {
        return read_array(v, out, r);
    } else if constexpr (kind == json_kind::array) {
        return read_sequence(v, out, r);
    } else if constexpr (kind == json_kind::map) {
        return read_map(v, out, r);
    } else if constexpr (kind == json_kind::variant) {
        return read_variant(v, out, r);
    } else if constexpr (kind == json_kind::object) {
        static_assert(std::is_default_constructible_v<T>,
                      "from_json builds structs member by member: give the struct a default constructor");
        return read_struct(v, out, r);
    } else {
        static_assert(dependent_false<T>,
                      "from_json cannot read this type (named in the instantiation notes): use bool, an integer "
                      "type, float/double, std::string, an enum described with BOOST_DESCRIBE_ENUM, "
                      "std::optional, std::vector/deque/list, std::array, std::set, std::map<std::string, T>, "
                      "std::variant, boost::json::value, or a struct described with BOOST_DESCRIBE_STRUCT");
        return false;
    }
}

}  // namespace detail::conv

}  // namespace parley

#endif
