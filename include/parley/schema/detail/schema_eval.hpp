// parley/schema/detail/schema_eval.hpp: a program (schema_program.hpp) applied to an instance:
// every keyword as Python's jsonschema applies it, with its messages, the instance's and the
// schema's JSON pointers, and a bound on the work.
#ifndef PARLEY_SCHEMA_DETAIL_SCHEMA_EVAL_HPP
#define PARLEY_SCHEMA_DETAIL_SCHEMA_EVAL_HPP

#include <parley/error.hpp>
#include <parley/schema/detail/schema_program.hpp>
#include <parley/schema/detail/schema_values.hpp>
#include <parley/schema/validation.hpp>

#include <boost/json/value.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::detail::validation {

/// Whether `x` is a multiple of `d` (d > 0) as jsonschema decides it: a double divisor by the
/// double quotient (exactly when the quotient overflows), an integer divisor exactly for an
/// integer, by fmod for a double.
inline bool multiple_of(const boost::json::value& x, const boost::json::value& d) {
    // odd mantissa and power of two of a finite double, or of an integer's magnitude
    struct binary {
        std::uint64_t odd = 0;
        int exponent = 0;
    };
    auto split = [](const boost::json::value& v) {
        binary b;
        if (v.is_double()) {
            int e = 0;
            const double m = std::frexp(std::fabs(v.get_double()), &e);
            b.odd = static_cast<std::uint64_t>(std::ldexp(m, 53));
            b.exponent = e - 53;
        } else {
            b.odd = v.is_uint64() ? v.get_uint64()
                                  : (v.get_int64() < 0 ? 0 - static_cast<std::uint64_t>(v.get_int64()) : static_cast<std::uint64_t>(v.get_int64()));
        }
        while (b.odd != 0 && (b.odd & 1) == 0) {
            b.odd >>= 1;
            ++b.exponent;
        }
        return b;
    };
    if (d.is_double()) {
        const double q = to_double(x) / d.get_double();
        if (std::isfinite(q)) return std::trunc(q) == q;
        const binary bx = split(x), bd = split(d);  // exactly, as Python's Fraction
        if (bx.odd == 0) return true;
        return bx.odd % bd.odd == 0 && bx.exponent >= bd.exponent;
    }
    if (x.is_double()) return std::fmod(x.get_double(), to_double(d)) == 0;
    const std::uint64_t divisor = d.is_uint64() ? d.get_uint64() : static_cast<std::uint64_t>(d.get_int64());
    const std::uint64_t magnitude = x.is_uint64() ? x.get_uint64()
                                    : x.get_int64() < 0 ? 0 - static_cast<std::uint64_t>(x.get_int64())
                                                        : static_cast<std::uint64_t>(x.get_int64());
    return magnitude % divisor == 0;
}

/// Applies a program's nodes to values, collecting violations (or only the verdict).
class evaluator {
public:
    explicit evaluator(const program& p) : p_(p), lim_(p.limits) {}

    /// Whether `x` fits node `n`; when `out` is not null, every violation is appended to it
    /// (else the first one ends the work).
    bool apply(std::uint32_t n, const boost::json::value& x, std::vector<schema_violation>* out) {
        if (++steps_ > lim_.max_steps)
            throw error(errc::schema_limit, "the validation applied more than " + std::to_string(lim_.max_steps) +
                                                " subschemas (schema_limits::max_steps)");
        const node& nd = p_.nodes[n];
        if (nd.schema->is_bool()) {
            if (nd.schema->get_bool()) return true;
            report(out, "", "False schema does not allow " + show(x));
            return false;
        }
        bool ok = true;
        for (const step& s : nd.steps) {
            const std::size_t mark = spath_.size();
            spath_ += '/';
            append_pointer_token(spath_, s.name);
            const bool good = apply_step(s, x, out);
            spath_.resize(mark);
            if (!good) {
                ok = false;
                if (!out) return false;
            }
        }
        return ok;
    }

private:
    std::string show(const boost::json::value& v) const { return repr(v, lim_.max_value_text); }
    std::string show(std::string_view s) const { return repr(s, lim_.max_value_text); }

    /// Python's repr of items [from, end) of an array, as a list.
    std::string show_items(const boost::json::array& a, std::size_t from) const {
        std::string out = "[";
        for (std::size_t i = from; i < a.size() && out.size() <= lim_.max_value_text; ++i) {
            if (i > from) out += ", ";
            python_repr(out, a[i], lim_.max_value_text);
        }
        out += ']';
        return shortened(std::move(out), lim_.max_value_text);
    }

    void report(std::vector<schema_violation>* out, std::string_view keyword, std::string message,
                std::vector<schema_violation> context = {}) {
        if (!out || out->size() >= lim_.max_errors) return;
        out->push_back({ipath_, spath_, std::string(keyword), std::move(message), std::move(context)});
    }

    /// Applies `child` to `x` with the given tokens added to the paths ("" adds none).
    bool descend(std::uint32_t child, const boost::json::value& x, std::vector<schema_violation>* out, std::string_view instance_token,
                 bool has_instance_token, std::string_view schema_token, bool has_schema_token) {
        const std::size_t im = ipath_.size(), sm = spath_.size();
        if (has_instance_token) {
            ipath_ += '/';
            append_pointer_token(ipath_, instance_token);
        }
        if (has_schema_token) {
            spath_ += '/';
            append_pointer_token(spath_, schema_token);
        }
        const bool ok = apply(child, x, out);
        ipath_.resize(im);
        spath_.resize(sm);
        return ok;
    }

    static bool has_type(std::uint8_t types, const boost::json::value& x) {
        switch (x.kind()) {
        case boost::json::kind::null: return types & t_null;
        case boost::json::kind::bool_: return types & t_boolean;
        case boost::json::kind::int64:
        case boost::json::kind::uint64: return types & (t_integer | t_number);
        case boost::json::kind::double_: return (types & t_number) || ((types & t_integer) && is_integer(x));
        case boost::json::kind::string: return types & t_string;
        case boost::json::kind::array: return types & t_array;
        case boost::json::kind::object: return types & t_object;
        }
        return false;
    }

    static std::string types_text(const boost::json::value& v) {
        std::string s;
        if (v.is_string()) {
            python_string(s, v.get_string());
            return s;
        }
        for (const auto& t : v.get_array()) {
            if (!s.empty()) s += ", ";
            python_string(s, t.get_string());
        }
        return s;
    }

    bool apply_step(const step& s, const boost::json::value& x, std::vector<schema_violation>* out) {
        const boost::json::value& v = *s.value;
        switch (s.k) {
        case keyword::type:
            if (has_type(s.types, x)) return true;
            report(out, "type", show(x) + " is not of type " + types_text(v));
            return false;
        case keyword::enum_:
            for (const auto& e : v.get_array())
                if (json_equal(e, x)) return true;
            report(out, "enum", show(x) + " is not one of " + show(v));
            return false;
        case keyword::const_:
            if (json_equal(v, x)) return true;
            report(out, "const", show(v) + " was expected");
            return false;
        case keyword::properties: {
            const auto* o = x.if_object();
            if (!o) return true;
            bool ok = true;
            for (const auto& [name, child] : s.members)
                if (const auto* member = o->if_contains(name)) {
                    if (!descend(child, *member, out, name, true, name, true)) {
                        ok = false;
                        if (!out) return false;
                    }
                }
            return ok;
        }
        case keyword::pattern_properties: {
            const auto* o = x.if_object();
            if (!o) return true;
            bool ok = true;
            for (std::size_t i = 0; i < s.members.size(); ++i)
                for (const auto& m : *o)
                    if (p_.regexes[s.regexes[i]].search(m.key())) {
                        if (!descend(s.members[i].second, m.value(), out, m.key(), true, s.members[i].first, true)) {
                            ok = false;
                            if (!out) return false;
                        }
                    }
            return ok;
        }
        case keyword::additional_properties: {
            const auto* o = x.if_object();
            if (!o) return true;
            std::vector<std::string_view> extras;
            for (const auto& m : *o) {
                if (s.properties && s.properties->contains(m.key())) continue;
                bool matched = false;
                for (const std::uint32_t r : s.regexes)
                    if (p_.regexes[r].search(m.key())) {
                        matched = true;
                        break;
                    }
                if (!matched) extras.push_back(m.key());
            }
            if (extras.empty()) return true;
            const boost::json::value& sub = *p_.nodes[s.child].schema;
            if (sub.is_bool()) {
                if (sub.get_bool()) return true;
                std::sort(extras.begin(), extras.end());
                std::string names;
                for (const std::string_view e : extras) names += (names.empty() ? "" : ", ") + show(e);
                if (s.has_pattern_properties) {
                    std::string patterns;
                    for (const std::string_view p : s.pattern_names) patterns += (patterns.empty() ? "" : ", ") + show(p);
                    report(out, "additionalProperties",
                           names + (extras.size() == 1 ? " does" : " do") + " not match any of the regexes: " + patterns);
                } else {
                    report(out, "additionalProperties",
                           "Additional properties are not allowed (" + names + (extras.size() == 1 ? " was" : " were") + " unexpected)");
                }
                return false;
            }
            bool ok = true;
            for (const std::string_view e : extras)
                if (!descend(s.child, o->at(e), out, e, true, {}, false)) {
                    ok = false;
                    if (!out) return false;
                }
            return ok;
        }
        case keyword::property_names: {
            const auto* o = x.if_object();
            if (!o) return true;
            bool ok = true;
            for (const auto& m : *o) {
                const boost::json::value name(m.key());
                if (!apply(s.child, name, out)) {
                    ok = false;
                    if (!out) return false;
                }
            }
            return ok;
        }
        case keyword::required: {
            const auto* o = x.if_object();
            if (!o) return true;
            bool ok = true;
            for (const auto& name : v.get_array())
                if (!o->contains(name.get_string())) {
                    report(out, "required", show(name) + " is a required property");
                    ok = false;
                    if (!out) return false;
                }
            return ok;
        }
        case keyword::min_properties:
            if (!x.is_object() || x.get_object().size() >= s.count) return true;
            report(out, "minProperties", show(x) + (s.count == 1 ? " should be non-empty" : " does not have enough properties"));
            return false;
        case keyword::max_properties:
            if (!x.is_object() || x.get_object().size() <= s.count) return true;
            report(out, "maxProperties", show(x) + (s.count == 0 ? " is expected to be empty" : " has too many properties"));
            return false;
        case keyword::dependent_required: {
            const auto* o = x.if_object();
            if (!o) return true;
            bool ok = true;
            for (const auto& d : v.get_object()) {
                if (!o->contains(d.key())) continue;
                for (const auto& name : d.value().get_array())
                    if (!o->contains(name.get_string())) {
                        report(out, "dependentRequired", show(name) + " is a dependency of " + show(std::string_view(d.key())));
                        ok = false;
                        if (!out) return false;
                    }
            }
            return ok;
        }
        case keyword::dependent_schemas:
        case keyword::dependencies: {
            const auto* o = x.if_object();
            if (!o) return true;
            bool ok = true;
            for (const auto& [name, child] : s.members) {
                if (!o->contains(name)) continue;
                if (child == no_node) {
                    for (const auto& dep : v.get_object().at(name).get_array())
                        if (!o->contains(dep.get_string())) {
                            report(out, "dependencies", show(dep) + " is a dependency of " + show(name));
                            ok = false;
                            if (!out) return false;
                        }
                } else if (!descend(child, x, out, {}, false, name, true)) {
                    ok = false;
                    if (!out) return false;
                }
            }
            return ok;
        }
        case keyword::items: {
            const auto* a = x.if_array();
            if (!a || a->size() <= s.prefix) return true;
            const boost::json::value& sub = *p_.nodes[s.child].schema;
            if (sub.is_bool() && !sub.get_bool()) {
                const std::size_t extra = a->size() - s.prefix;
                report(out, "items",
                       "Expected at most " + std::to_string(s.prefix) + (s.prefix == 1 ? " item" : " items") + " but found " +
                           std::to_string(extra) + " extra: " + (extra == 1 ? show((*a)[s.prefix]) : show_items(*a, s.prefix)));
                return false;
            }
            return each_item(s.child, *a, s.prefix, out);
        }
        case keyword::items_each: {
            const auto* a = x.if_array();
            return !a || each_item(s.child, *a, 0, out);
        }
        case keyword::items_array:
        case keyword::prefix_items: {
            const auto* a = x.if_array();
            if (!a) return true;
            bool ok = true;
            for (std::size_t i = 0; i < a->size() && i < s.children.size(); ++i) {
                const std::string index = std::to_string(i);
                if (!descend(s.children[i], (*a)[i], out, index, true, index, true)) {
                    ok = false;
                    if (!out) return false;
                }
            }
            return ok;
        }
        case keyword::additional_items: {
            const auto* a = x.if_array();
            if (!a || a->size() <= s.prefix) return true;
            const boost::json::value& sub = *p_.nodes[s.child].schema;
            if (sub.is_bool()) {
                if (sub.get_bool()) return true;
                const std::size_t extra = a->size() - s.prefix;
                std::string items;
                for (std::size_t i = s.prefix; i < a->size() && items.size() <= lim_.max_value_text; ++i)
                    items += (items.empty() ? "" : ", ") + show((*a)[i]);
                report(out, "additionalItems",
                       "Additional items are not allowed (" + shortened(items, lim_.max_value_text) + (extra == 1 ? " was" : " were") +
                           " unexpected)");
                return false;
            }
            return each_item(s.child, *a, s.prefix, out);
        }
        case keyword::contains: {
            const auto* a = x.if_array();
            if (!a) return true;
            const std::uint64_t most = s.has_max_contains ? s.max_contains : a->size();
            std::uint64_t matches = 0;
            for (const auto& item : *a) {
                if (!apply(s.child, item, nullptr)) continue;
                if (++matches > most) {
                    report(out, "maxContains", "Too many items match the given schema (expected at most " + std::to_string(most) + ")");
                    return false;
                }
            }
            if (matches >= s.min_contains) return true;
            if (matches == 0) report(out, "contains", show(x) + " does not contain items matching the given schema");
            else
                report(out, "minContains", "Too few items match the given schema (expected at least " + std::to_string(s.min_contains) +
                                               " but only " + std::to_string(matches) + " matched)");
            return false;
        }
        case keyword::contains_draft7: {
            const auto* a = x.if_array();
            if (!a) return true;
            for (const auto& item : *a)
                if (apply(s.child, item, nullptr)) return true;
            report(out, "contains", "None of " + show(x) + " are valid under the given schema");
            return false;
        }
        case keyword::min_items:
            if (!x.is_array() || x.get_array().size() >= s.count) return true;
            report(out, "minItems", show(x) + (s.count == 1 ? " should be non-empty" : " is too short"));
            return false;
        case keyword::max_items:
            if (!x.is_array() || x.get_array().size() <= s.count) return true;
            report(out, "maxItems", show(x) + (s.count == 0 ? " is expected to be empty" : " is too long"));
            return false;
        case keyword::unique_items:
            if (!x.is_array()) return true;
            steps_ += x.get_array().size();
            if (unique_items(x.get_array())) return true;
            report(out, "uniqueItems", show(x) + " has non-unique elements");
            return false;
        case keyword::min_length:
            if (!x.is_string() || code_points(x.get_string()) >= s.count) return true;
            report(out, "minLength", show(x) + (s.count == 1 ? " should be non-empty" : " is too short"));
            return false;
        case keyword::max_length:
            if (!x.is_string() || code_points(x.get_string()) <= s.count) return true;
            report(out, "maxLength", show(x) + (s.count == 0 ? " is expected to be empty" : " is too long"));
            return false;
        case keyword::pattern:
            if (!x.is_string() || p_.regexes[s.regexes.front()].search(x.get_string())) return true;
            report(out, "pattern", show(x) + " does not match " + show(v));
            return false;
        case keyword::minimum:
            if (!is_number(x) || compare_numbers(x, v) >= 0) return true;
            report(out, "minimum", show(x) + " is less than the minimum of " + show(v));
            return false;
        case keyword::maximum:
            if (!is_number(x) || compare_numbers(x, v) <= 0) return true;
            report(out, "maximum", show(x) + " is greater than the maximum of " + show(v));
            return false;
        case keyword::exclusive_minimum:
            if (!is_number(x) || compare_numbers(x, v) > 0) return true;
            report(out, "exclusiveMinimum", show(x) + " is less than or equal to the minimum of " + show(v));
            return false;
        case keyword::exclusive_maximum:
            if (!is_number(x) || compare_numbers(x, v) < 0) return true;
            report(out, "exclusiveMaximum", show(x) + " is greater than or equal to the maximum of " + show(v));
            return false;
        case keyword::multiple_of:
            if (!is_number(x) || multiple_of(x, v)) return true;
            report(out, "multipleOf", show(x) + " is not a multiple of " + show(v));
            return false;
        case keyword::all_of: {
            bool ok = true;
            for (std::size_t i = 0; i < s.children.size(); ++i)
                if (!descend(s.children[i], x, out, {}, false, std::to_string(i), true)) {
                    ok = false;
                    if (!out) return false;
                }
            return ok;
        }
        case keyword::any_of: {
            std::vector<schema_violation> all;
            for (std::size_t i = 0; i < s.children.size(); ++i) {
                std::vector<schema_violation> errors;
                if (descend(s.children[i], x, out ? &errors : nullptr, {}, false, std::to_string(i), true)) return true;
                for (auto& e : errors)
                    if (all.size() < lim_.max_errors) all.push_back(std::move(e));
            }
            report(out, "anyOf", show(x) + " is not valid under any of the given schemas", std::move(all));
            return false;
        }
        case keyword::one_of: {
            std::vector<schema_violation> all;
            std::size_t first_valid = s.children.size();
            for (std::size_t i = 0; i < s.children.size(); ++i) {
                std::vector<schema_violation> errors;
                if (descend(s.children[i], x, out ? &errors : nullptr, {}, false, std::to_string(i), true)) {
                    first_valid = i;
                    break;
                }
                for (auto& e : errors)
                    if (all.size() < lim_.max_errors) all.push_back(std::move(e));
            }
            if (first_valid == s.children.size()) {
                report(out, "oneOf", show(x) + " is not valid under any of the given schemas", std::move(all));
                return false;
            }
            std::vector<std::size_t> more;
            for (std::size_t j = first_valid + 1; j < s.children.size(); ++j)
                if (apply(s.children[j], x, nullptr)) {
                    more.push_back(j);
                    if (!out) break;
                }
            if (more.empty()) return true;
            more.push_back(first_valid);
            std::string schemas;
            for (const std::size_t j : more) schemas += (schemas.empty() ? "" : ", ") + show(*p_.nodes[s.children[j]].schema);
            report(out, "oneOf", show(x) + " is valid under each of " + schemas);
            return false;
        }
        case keyword::not_:
            if (!apply(s.child, x, nullptr)) return true;
            report(out, "not", show(x) + " should not be valid under " + show(*p_.nodes[s.child].schema));
            return false;
        case keyword::if_: {
            const bool holds = apply(s.child, x, nullptr);
            const std::uint32_t branch = holds ? s.then_child : s.else_child;
            if (branch == no_node) return true;
            // the branch's path is its own keyword's, beside "if" (as jsonschema writes it)
            const std::string saved = spath_;
            spath_.resize(spath_.size() - 3);  // "/if"
            const bool ok = descend(branch, x, out, {}, false, holds ? "then" : "else", true);
            spath_ = saved;
            return ok;
        }
        case keyword::ref: {
            if (++ref_depth_ > lim_.max_ref_depth)
                throw error(errc::schema_limit, "the validation followed more than " + std::to_string(lim_.max_ref_depth) +
                                                    " $refs inside one another (schema_limits::max_ref_depth)");
            const bool ok = apply(s.child, x, out);
            --ref_depth_;
            return ok;
        }
        }
        return true;
    }

    bool each_item(std::uint32_t child, const boost::json::array& a, std::size_t from, std::vector<schema_violation>* out) {
        bool ok = true;
        for (std::size_t i = from; i < a.size(); ++i)
            if (!descend(child, a[i], out, std::to_string(i), true, {}, false)) {
                ok = false;
                if (!out) return false;
            }
        return ok;
    }

    const program& p_;
    const schema_limits& lim_;
    std::size_t steps_ = 0;
    std::size_t ref_depth_ = 0;
    std::string ipath_;
    std::string spath_;
};

}  // namespace parley::detail::validation

#endif
