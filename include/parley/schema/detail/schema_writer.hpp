// parley/schema/detail/schema_writer.hpp: writes the JSON Schema text of a type, in a constant
// expression (plain draft 2020-12 or OpenAI's strict form).
#ifndef PARLEY_SCHEMA_DETAIL_SCHEMA_WRITER_HPP
#define PARLEY_SCHEMA_DETAIL_SCHEMA_WRITER_HPP

#include <parley/config.hpp>
#include <parley/schema/detail/annotation_check.hpp>
#include <parley/schema/detail/annotation_types.hpp>
#include <parley/schema/detail/constexpr_json.hpp>
#include <parley/schema/detail/definition_names.hpp>
#include <parley/schema/detail/object_depth.hpp>
#include <parley/schema/traits.hpp>

#include <boost/describe/enumerators.hpp>
#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/integral.hpp>

#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

namespace parley {

/// What counts against OpenAI's limits in a strict schema (see parley::openai_strict_limits).
struct schema_stats {
    std::size_t properties = 0;  ///< property entries, over every object schema written
    std::size_t enum_values = 0;  ///< values, over every enum written
    std::size_t string_chars = 0;  ///< characters of property names, $defs names and enum values
    std::size_t large_enum_chars = 0;  ///< characters of the longest enum with more than 250 values
    std::size_t depth = 0;  ///< object nesting levels, the root object being level 1
};

namespace detail {

/// The annotation of a member that has none.
inline constexpr annotation no_annotation{};

/// Formats that OpenAI's strict mode accepts; other formats are left out of the strict form.
constexpr bool is_strict_format(std::string_view f) noexcept {
    for (std::string_view ok : {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
        if (f == ok) return true;
    return false;
}

/// Writes the schema of Root. Strict selects OpenAI's structured-outputs form.
template <class Root, bool Strict>
class schema_writer : json_writer {
    using structs = struct_closure_t<Root>;
    static constexpr std::size_t struct_count = boost::mp11::mp_size<structs>::value;
    static constexpr bool root_is_struct = json_kind_v<Root> == json_kind::object;

public:
    constexpr explicit schema_writer(text_buffer& out) : json_writer(out) {}

    /// Writes the whole schema; returns what it counted.
    constexpr schema_stats run() {
        static_cast<void>(check_reachable_annotations<Root>());
        open('{');
        if constexpr (!Strict) {
            key("$schema");
            name("https://json-schema.org/draft/2020-12/schema");
        }
        if constexpr (root_is_struct)
            struct_keywords<Root>(annotations_v<Root>.self.description);
        else
            value_keywords<Root>(no_annotation, place::nested);
        if constexpr (struct_count > (root_is_struct ? 1 : 0)) {
            key("$defs");
            open('{');
            boost::mp11::mp_for_each<boost::mp11::mp_iota_c<struct_count>>([&](auto i) {
                if constexpr (!root_is_struct || decltype(i)::value != 0) {
                    using S = boost::mp11::mp_at_c<structs, i>;
                    key(names_[i]);
                    stats_.string_chars += names_[i].size();
                    open('{');
                    struct_keywords<S>(annotations_v<S>.self.description);
                    close('}');
                }
            });
            close('}');
        }
        close('}');
        if constexpr (root_is_struct) stats_.depth = object_depth<structs>();
        return stats_;
    }

private:
    // Where a schema is written: for a member (with the member's descriptive keywords), inside
    // a member's anyOf (constraints only: the description is outside), or anywhere else.
    enum class place { member, inside_member, nested };

    constexpr void literal(const json_literal& l) { append_literal(out_, l); }

    template <class S>
    constexpr void reference() {
        key("$ref");
        if constexpr (root_is_struct && std::is_same_v<S, Root>) {
            name("#");
        } else {
            text_buffer ref;
            ref.append("#/$defs/");
            ref.append(names_[boost::mp11::mp_find<structs, S>::value]);
            name(ref.view());
        }
    }

    // --- descriptions -------------------------------------------------------------------------

    // An enum's description: the given text, then one line per described enumerator.
    template <class E>
    constexpr void enum_description(std::string_view text) {
        constexpr auto& notes = annotations_v<E>;
        bool any_value_described = false;
        for (const auto& m : notes.members) any_value_described = any_value_described || m.note.has_description();
        if (text.data() == nullptr && !any_value_described) return;
        text_buffer all;
        all.append(text);
        boost::mp11::mp_for_each<boost::describe::describe_enumerators<E>>([&](auto d) {
            const annotation* a = notes.find(c_string(d.name));
            if (a == nullptr || !a->has_description()) return;
            if (all.size() != 0) all.push_back('\n');
            all.append("- ");
            all.append(c_string(d.name));
            all.append(": ");
            all.append(a->description);
        });
        key("description");
        string(all.view());
    }

    // The description of a member (an enum's own description when the member has none, with
    // the enumerators' descriptions). V is the member's type without std::optional.
    template <class V>
    constexpr void member_description(const annotation& a) {
        if constexpr (json_kind_v<V> == json_kind::enumeration) {
            enum_description<V>(a.has_description() ? a.description : annotations_v<V>.self.description);
        } else if (a.has_description()) {
            key("description");
            string(a.description);
        }
    }

    // Whether a member's default or one of its examples is null.
    static constexpr bool is_null(const json_literal& l) {
        if (l.type == json_literal::kind::null) return true;
        if (l.type != json_literal::kind::raw) return false;
        std::string_view t = l.text;
        while (!t.empty() && (t.front() == ' ' || t.front() == '\t' || t.front() == '\n' || t.front() == '\r')) t.remove_prefix(1);
        while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\n' || t.back() == '\r')) t.remove_suffix(1);
        return t == "null";
    }
    static constexpr bool has_null_value(const annotation& a) {
        bool null = is_null(a.default_value);
        for (std::size_t i = 0; i != a.example_count; ++i) null = null || is_null(a.examples[i]);
        return null;
    }

    // A member's default and examples (not in the strict form).
    constexpr void member_values(const annotation& a) {
        if constexpr (!Strict) {
            if (a.default_value.is_set()) {
                key("default");
                literal(a.default_value);
            }
            if (a.example_count != 0) {
                key("examples");
                open('[');
                for (std::size_t i = 0; i != a.example_count; ++i) {
                    separate();
                    literal(a.examples[i]);
                }
                close(']');
            }
        }
    }

    // --- schemas of types ---------------------------------------------------------------------

    template <class S>
    constexpr void struct_keywords(std::string_view description) {
        constexpr auto& notes = annotations_v<S>;
        key("type");
        name("object");
        if (description.data() != nullptr) {
            key("description");
            string(description);
        }
        key("properties");
        open('{');
        boost::mp11::mp_for_each<described_members<S>>([&](auto d) {
            using M = member_type_t<S, decltype(d)>;
            const std::string_view name = c_string(d.name);
            const annotation* a = notes.find(name);
            key(name);
            ++stats_.properties;
            stats_.string_chars += name.size();
            member_schema<M>(a ? *a : no_annotation);
        });
        close('}');
        key("required");
        open('[');
        boost::mp11::mp_for_each<described_members<S>>([&](auto d) {
            using M = member_type_t<S, decltype(d)>;
            if (Strict || !is_optional_v<M>) {
                separate();
                name(c_string(d.name));
            }
        });
        close(']');
        key("additionalProperties");
        out_.append("false");
    }

    // A member's schema. Plain form: an optional member is simply not required, and accepts
    // null too only when its default or an example is null (so that they validate against it;
    // from_json reads null as no value). Strict form: every member is required and an optional
    // one also accepts null.
    template <class M>
    constexpr void member_schema(const annotation& a) {
        if constexpr (!Strict && is_optional_v<M>) {
            if (has_null_value(a)) {
                open('{');
                value_keywords<M>(a, place::member);
                close('}');
            } else {
                member_schema<typename optional_traits<M>::value_type>(a);
            }
        } else if constexpr (Strict && json_kind_v<M> == json_kind::object) {
            // OpenAI refuses "$ref" with sibling keywords: a described member gets the
            // definition written in place, with the member's description
            if (a.has_description()) {
                open('{');
                struct_keywords<M>(a.description);
                close('}');
            } else {
                open('{');
                reference<M>();
                close('}');
            }
        } else {
            open('{');
            value_keywords<M>(a, place::member);
            close('}');
        }
    }

    // A schema in any other place (array item, map value, variant alternative).
    template <class X>
    constexpr void nested_schema() {
        open('{');
        value_keywords<X>(no_annotation, place::nested);
        close('}');
    }

    template <class... Ts>
    constexpr void alternatives(boost::mp11::mp_list<Ts...>) {
        (..., (separate(), nested_schema<Ts>()));
    }

    // The keywords of the schema of X; `a` holds the member's annotations.
    template <class X>
    constexpr void value_keywords(const annotation& a, place where) {
        constexpr json_kind kind = json_kind_v<X>;
        const bool member = where == place::member;
        if constexpr (kind == json_kind::optional) {
            using V = typename optional_traits<X>::value_type;
            key("anyOf");
            open('[');
            if constexpr (json_kind_v<V> == json_kind::variant) {
                alternatives(typename variant_traits<V>::alternatives{});
            } else {
                separate();
                open('{');
                value_keywords<V>(a, member ? place::inside_member : where);
                close('}');
            }
            separate();
            open('{');
            key("type");
            name("null");
            close('}');
            close(']');
            if (member) {
                member_description<unwrap_optional_t<V>>(a);
                member_values(a);
            }
        } else if constexpr (kind == json_kind::variant) {
            key("anyOf");
            open('[');
            alternatives(typename variant_traits<X>::alternatives{});
            close(']');
            if (member) {
                member_description<X>(a);
                member_values(a);
            }
        } else if constexpr (kind == json_kind::object) {
            reference<X>();
            if (member) {
                member_description<X>(a);
                member_values(a);
            }
        } else if constexpr (kind == json_kind::any) {
            static_assert(!Strict, "boost::json::value has no strict form");
            if (member) {
                member_description<X>(a);
                member_values(a);
            }
        } else if constexpr (kind == json_kind::null) {
            key("type");
            name("null");
            if (member) {
                member_description<X>(a);
                member_values(a);
            }
        } else if constexpr (kind == json_kind::enumeration) {
            key("type");
            name("string");
            if (member)
                member_description<X>(a);
            else if (where == place::nested)
                enum_description<X>(annotations_v<X>.self.description);
            key("enum");
            open('[');
            std::size_t count = 0;
            std::size_t chars = 0;
            boost::mp11::mp_for_each<boost::describe::describe_enumerators<X>>([&](auto d) {
                const std::string_view enumerator = c_string(d.name);
                separate();
                name(enumerator);
                ++count;
                chars += enumerator.size();
            });
            close(']');
            if (member) member_values(a);
            stats_.enum_values += count;
            stats_.string_chars += chars;
            if (count > 250 && chars > stats_.large_enum_chars) stats_.large_enum_chars = chars;
        } else {
            key("type");
            name(kind == json_kind::boolean   ? "boolean"
                   : kind == json_kind::integer ? "integer"
                   : kind == json_kind::number  ? "number"
                   : kind == json_kind::string  ? "string"
                   : kind == json_kind::array   ? "array"
                                                : "object");
            if (member) member_description<X>(a);
            if constexpr (kind == json_kind::integer || kind == json_kind::number) {
                number_keywords<X>(a);
            } else if constexpr (kind == json_kind::string) {
                string_keywords(a);
            } else if constexpr (kind == json_kind::array) {
                key("items");
                nested_schema<array_item_t<X>>();
                if constexpr (is_std_array_v<X>) {
                    key("minItems");
                    append_unsigned(out_, std_array_traits<X>::size);
                    key("maxItems");
                    append_unsigned(out_, std_array_traits<X>::size);
                }
                if (a.min_items != annotation::unset) {
                    key("minItems");
                    append_unsigned(out_, a.min_items);
                }
                if (a.max_items != annotation::unset) {
                    key("maxItems");
                    append_unsigned(out_, a.max_items);
                }
                if constexpr (!Strict && is_set_v<X>) {
                    key("uniqueItems");
                    out_.append("true");
                }
            } else if constexpr (kind == json_kind::map) {
                static_assert(!Strict, "maps have no strict form");
                key("additionalProperties");
                nested_schema<typename string_map_traits<X>::mapped_type>();
            }
            if (member) member_values(a);
        }
    }

    template <class X>
    constexpr void number_keywords(const annotation& a) {
        json_literal low = a.minimum;
        json_literal high = a.maximum;
        if constexpr (json_kind_v<X> == json_kind::integer) {
            // the integer type's range, narrowed by the annotation
            if (!low.is_set() || compare_numbers(low, integer_min<X>()) < 0) low = integer_min<X>();
            if (!high.is_set() || compare_numbers(high, integer_max<X>()) > 0) high = integer_max<X>();
        }
        const std::pair<std::string_view, const json_literal*> bounds[] = {
            {"minimum", &low},
            {"maximum", &high},
            {"exclusiveMinimum", &a.exclusive_minimum},
            {"exclusiveMaximum", &a.exclusive_maximum},
            {"multipleOf", &a.multiple_of},
        };
        for (const auto& [name, value] : bounds) {
            if (value->is_set()) {
                key(name);
                literal(*value);
            }
        }
    }

    constexpr void string_keywords(const annotation& a) {
        if constexpr (!Strict) {
            if (a.min_length != annotation::unset) {
                key("minLength");
                append_unsigned(out_, a.min_length);
            }
            if (a.max_length != annotation::unset) {
                key("maxLength");
                append_unsigned(out_, a.max_length);
            }
        }
        if (a.has_pattern()) {
            key("pattern");
            string(a.pattern);
        }
        if (a.has_format() && (!Strict || is_strict_format(a.format))) {
            key("format");
            string(a.format);
        }
    }

    definition_names<structs> names_;
    schema_stats stats_;
};

}  // namespace detail

}  // namespace parley

#endif
