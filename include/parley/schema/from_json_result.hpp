// parley/schema/from_json_result.hpp: how JSON is read into a C++ type (options), the problems
// found, and the result of that reading (a value, or every problem found).
#ifndef PARLEY_SCHEMA_FROM_JSON_RESULT_HPP
#define PARLEY_SCHEMA_FROM_JSON_RESULT_HPP

#include <parley/config.hpp>
#include <parley/error.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace parley {

/// How `from_json` reads.
struct from_json_options {
    /// For values still arriving (see `from_partial_json`): missing members keep the value
    /// their type gives them by default, a std::array may have fewer items (the others keep
    /// theirs), a string that starts an enumerator's name leaves the enum as it is, and
    /// annotated bounds are not checked (a cut number or string may not meet them yet).
    bool partial = false;
    /// Deepest nesting of arrays and objects read; deeper values are a `limit` error.
    std::size_t max_depth = 64;
    /// Most errors (and, separately, warnings) recorded; further ones are only counted.
    std::size_t max_problems = 100;
    /// Most values visited, counting every try of a variant alternative; past it reading stops
    /// with a `limit` error. Bounds the work on hostile input for recursive variants.
    std::size_t max_steps = 4'000'000;
};

/// What is wrong with a JSON value, seen from the C++ type it should become.
enum class json_problem_kind {
    wrong_type,  ///< a value of another JSON type (a string where a number belongs, 1.5 for an integer)
    out_of_range,  ///< a number outside the range of its type, or the bounds its annotation sets
    unknown_name,  ///< a string that names no enumerator of an enum
    missing_member,  ///< a required object member is absent
    wrong_size,  ///< an array or string of the wrong size (std::array, annotated items or length bounds)
    no_alternative,  ///< no alternative of a std::variant accepts the value
    unknown_member,  ///< (warning) an object member the type does not have; it is ignored
    duplicate_item,  ///< (warning) an item repeated in an array read into a std::set; it is ignored
    no_json,  ///< the text holds no JSON value
    malformed_json,  ///< the text holds JSON with a syntax error
    limit,  ///< a nesting, size or work limit was reached; reading stopped there
    nothing_yet,  ///< (from the partial readers) no part of the value has arrived yet: wait for more
};

/// One problem found in a JSON value: where, what was expected there, what was found.
struct json_problem {
    json_problem_kind kind = json_problem_kind::wrong_type;
    std::string path;  ///< JSON pointer (RFC 6901) to the value, e.g. `/items/2/price`; "" for the whole value
    std::string expected;  ///< what the C++ type needs there, e.g. `a number`
    std::string found;  ///< what the JSON holds there, e.g. `"12 EUR"` (long values are shortened)
    std::string detail;  ///< more explanation (why each alternative of a variant failed); often empty

    /// One line for a person or a model: `/items/2/price: expected a number, found "12 EUR"`,
    /// followed by ` (detail)` when there is a detail. The path and its colon are left out for
    /// the whole value.
    std::string message() const {
        std::string s;
        if (!path.empty()) {
            s += path;
            s += ": ";
        }
        s += "expected ";
        s += expected;
        s += ", found ";
        s += found;
        if (!detail.empty()) {
            s += " (";
            s += detail;
            s += ')';
        }
        return s;
    }

    friend bool operator==(const json_problem&, const json_problem&) = default;
};

/// Every message of `problems`, one per line (no trailing newline), then
/// `(and N more problems)` when `omitted` problems were found beyond the recorded ones.
inline std::string format_problems(const std::vector<json_problem>& problems, std::size_t omitted = 0) {
    std::string s;
    for (const json_problem& p : problems) {
        if (!s.empty()) s += '\n';
        s += p.message();
    }
    if (omitted != 0) {
        if (!s.empty()) s += '\n';
        s += "(and " + std::to_string(omitted) + " more problem" + (omitted == 1 ? ")" : "s)");
    }
    return s;
}

/// Thrown by `from_json_result::value()` when there is no value (`errc::conversion`); carries
/// the problems.
class conversion_error : public error {
public:
    conversion_error(std::vector<json_problem> problems, std::size_t omitted)
        : error(errc::conversion, "the JSON value does not fit the type:\n" + format_problems(problems, omitted)),
          problems_(std::move(problems)) {}

    /// The problems that made the conversion fail.
    const std::vector<json_problem>& problems() const noexcept { return problems_; }

private:
    std::vector<json_problem> problems_;
};

/// The outcome of reading JSON into a `T`: the value (with warnings), or every problem found.
/// Truthy when there is a value.
template <class T>
class from_json_result {
public:
    /// A success: the value and the warnings (ignored members, repeated set items).
    from_json_result(T value, std::vector<json_problem> warnings)
        : value_(std::move(value)), warnings_(std::move(warnings)) {}

    /// A failure: the problems found (at least one, or `omitted` > 0), and the warnings.
    from_json_result(std::vector<json_problem> errors, std::vector<json_problem> warnings, std::size_t omitted)
        : errors_(std::move(errors)), warnings_(std::move(warnings)), omitted_(omitted) {}

    /// True when the conversion succeeded.
    explicit operator bool() const noexcept { return value_.has_value(); }
    /// True when the conversion succeeded.
    bool has_value() const noexcept { return value_.has_value(); }

    /// The value; throws `conversion_error` (listing the problems) when there is none.
    T& value() & {
        check();
        return *value_;
    }
    /// The value; throws `conversion_error` (listing the problems) when there is none.
    const T& value() const& {
        check();
        return *value_;
    }
    /// The value, moved out; throws `conversion_error` (listing the problems) when there is none.
    T&& value() && {
        check();
        return std::move(*value_);
    }
    /// The value; undefined behaviour when there is none (check first).
    T& operator*() & noexcept { return *value_; }
    /// The value; undefined behaviour when there is none (check first).
    const T& operator*() const& noexcept { return *value_; }
    /// Member access on the value; undefined behaviour when there is none.
    T* operator->() noexcept { return &*value_; }
    /// Member access on the value; undefined behaviour when there is none.
    const T* operator->() const noexcept { return &*value_; }

    /// The problems that made the conversion fail, in the order found; empty on success.
    const std::vector<json_problem>& errors() const noexcept { return errors_; }
    /// Problems that did not stop the conversion (unknown members, repeated set items).
    const std::vector<json_problem>& warnings() const noexcept { return warnings_; }
    /// How many more errors were found than `errors()` holds (see `from_json_options::max_problems`).
    std::size_t omitted_errors() const noexcept { return omitted_; }
    /// Every error as text, one per line, ready to be shown to a person or sent back to a model.
    std::string error_text() const { return format_problems(errors_, omitted_); }

private:
    void check() const {
        if (!value_) throw conversion_error(errors_, omitted_);
    }

    std::optional<T> value_;
    std::vector<json_problem> errors_;
    std::vector<json_problem> warnings_;
    std::size_t omitted_ = 0;
};

}  // namespace parley

#endif
