// Fuzz target: the run-time JSON Schema validator (parley/schema/validator.hpp): a schema and an
// instance, both from outside, and the patterns of its automaton alone.
//
// Input: byte 0 chooses (bit 0: a schema without $schema is draft-07; bit 1: tight limits, 200
// values, depth 8, 300 states per pattern, 2,000 steps, 8 nested $refs; bit 2: the rest is a
// pattern and a text, not a schema and an instance). The rest is split at its first NUL byte:
// the schema's JSON text, then the instance's (without a NUL, the schema is its own instance).
// Checked besides crashes, hangs and sanitizer reports: a schema is read or refused with
// errc::schema_invalid and a message naming a JSON pointer; a validation ends with its
// violations or errc::schema_limit; is_valid agrees with validate; every violation's instance
// path points into the instance and its schema path is a JSON pointer; a pattern compiles or is
// refused with a message, and its search of the text ends.
#include <parley/schema/detail/ecma_regex.hpp>
#include <parley/schema/json_text.hpp>
#include <parley/schema/validator.hpp>

#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace {

std::optional<boost::json::value> json_of(std::string_view text) {
    parley::json_text_options o;
    o.max_depth = 32;
    o.max_size = text.size() + 1;
    auto a = parley::detail::json_text::parse_at(text, 0, text.size(), o, true);
    if (!a.value) return std::nullopt;
    return std::move(*a.value);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const unsigned selector = data[0];
    const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
    const std::size_t nul = rest.find('\0');
    const std::string_view first = rest.substr(0, nul);
    const std::string_view second = nul == std::string_view::npos ? first : rest.substr(nul + 1);

    if (selector & 4) {
        try {
            const auto re = parley::detail::ecma_regex::regex::compile(first, selector & 2 ? 300 : 10000);
            if (re.size() > (selector & 2 ? 300u : 10000u)) std::abort();
            (void)re.search(second);
        } catch (const parley::detail::ecma_regex::pattern_error& e) {
            if (std::string_view(e.what()).find(" at offset ") == std::string_view::npos &&
                std::string_view(e.what()).find("states") == std::string_view::npos)
                std::abort();
        }
        return 0;
    }

    auto schema = json_of(first);
    auto instance = json_of(second);
    if (!schema || !instance) return 0;
    parley::schema_options options;
    if (selector & 1) options.dialect = parley::schema_dialect::draft7;
    options.limits.max_steps = 200000;
    if (selector & 2) {
        options.limits.max_values = 200;
        options.limits.max_depth = 8;
        options.limits.max_pattern_states = 300;
        options.limits.max_steps = 2000;
        options.limits.max_ref_depth = 8;
    }
    std::optional<parley::schema_validator> v;
    try {
        v.emplace(std::move(*schema), options);
    } catch (const parley::schema_error& e) {
        if (e.code() != parley::errc::schema_invalid || std::string_view(e.what()).substr(0, 11) != "schema at #") std::abort();
        if (!e.pointer().empty() && e.pointer().front() != '/') std::abort();
        return 0;
    }
    try {
        const auto violations = v->validate(*instance);
        if (v->is_valid(*instance) != violations.empty()) std::abort();
        if (violations.size() > options.limits.max_errors) std::abort();
        for (const auto& x : violations) {
            if (x.message.empty()) std::abort();
            if (!x.schema_path.empty() && x.schema_path.front() != '/') std::abort();
            boost::system::error_code ec;
            if (!x.instance_path.empty() && !instance->find_pointer(x.instance_path, ec)) std::abort();
        }
    } catch (const parley::error& e) {
        if (e.code() != parley::errc::schema_limit) std::abort();
    }
    return 0;
}
