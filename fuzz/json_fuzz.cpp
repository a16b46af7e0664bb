// Fuzz target: JSON from model replies (parley/schema/json_text.hpp, partial_json.hpp,
// from_json.hpp).
//
// Input: byte 0 % 7 chooses the reader; the rest is the text.
//   0  parse_json_from_text: the value found, read again from the text where the result says it
//      is, must be the same value;
//   1  parse_partial_json: a whole JSON text that Boost.JSON reads (with the same depth limit)
//      must give a value, the one parse_json_from_text reads from it (both read numbers exactly,
//      Boost.JSON 1.81 does not, so its value is not the reference);
//   2  parse_partial_json_from_text;
//   3  from_text<fuzz_json::record> (a described struct with nested structs, vectors, optionals,
//      maps, enums, variants, a recursive member and integers of several widths);
//   4  from_partial_json<fuzz_json::record>;
//   5  from_json<fuzz_json::record> of the value Boost.JSON reads;
//   6  read_partial_json<fuzz_json::record>: the same value as from_partial_json, and every value
//      states() lists found again at its JSON pointer in the same state.
// A record read successfully must survive to_json and from_json unchanged. Failures are values
// here (these functions throw only what allocation throws): any exception, crash, hang or
// sanitizer report is a finding.
#include <parley/schema/from_json.hpp>
#include <parley/schema/json_text.hpp>
#include <parley/schema/partial.hpp>
#include <parley/schema/partial_json.hpp>
#include <parley/schema/to_json.hpp>

#include <boost/describe.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/parse_options.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace fuzz_json {

enum class colour { red, green, blue };
BOOST_DESCRIBE_ENUM(colour, red, green, blue)

struct point {
    std::int8_t x = 0;
    std::uint16_t y = 0;
    friend bool operator==(const point&, const point&) = default;
};
BOOST_DESCRIBE_STRUCT(point, (), (x, y))

struct label {
    std::string text;
    std::optional<colour> tint;
    friend bool operator==(const label&, const label&) = default;
};
BOOST_DESCRIBE_STRUCT(label, (), (text, tint))

struct node {
    std::string name;
    std::vector<node> children;
    friend bool operator==(const node&, const node&) = default;
};
BOOST_DESCRIBE_STRUCT(node, (), (name, children))

struct record {
    std::int32_t id = 0;
    std::int64_t big = 0;
    std::uint64_t ubig = 0;
    std::uint8_t small = 0;
    double ratio = 0;
    bool flag = false;
    colour main = colour::red;
    std::vector<point> points;
    std::optional<label> caption;
    std::map<std::string, std::vector<std::int16_t>> groups;
    std::variant<point, label, std::int64_t, std::string> either;
    std::optional<std::vector<std::optional<double>>> samples;
    node tree;
    friend bool operator==(const record&, const record&) = default;
};
BOOST_DESCRIBE_STRUCT(record, (),
                      (id, big, ubig, small, ratio, flag, main, points, caption, groups, either, samples, tree))

}  // namespace fuzz_json

namespace {

void check(bool ok) {
    if (!ok) std::abort();
}

std::optional<boost::json::value> boost_parse(std::string_view text, const parley::json_text_options& limits) {
    boost::json::parse_options po;
    po.max_depth = limits.max_depth;
    boost::system::error_code ec;
    boost::json::value v = boost::json::parse(text, ec, {}, po);
    if (ec) return std::nullopt;
    return v;
}

void check_round_trip(const parley::from_json_result<fuzz_json::record>& r) {
    if (!r) return;
    const parley::from_json_result<fuzz_json::record> again = parley::from_json<fuzz_json::record>(parley::to_json(*r));
    check(again.has_value() && *again == *r);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const unsigned mode = data[0] % 7;
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    parley::json_text_options limits;
    limits.max_depth = 64;
    switch (mode) {
    case 0: {
        const parley::json_text_result r = parley::parse_json_from_text(text, limits);
        if (r) {
            check(r.offset() <= text.size() && r.length() <= text.size() - r.offset());
            const parley::json_text_result again =
                parley::parse_json_from_text(text.substr(r.offset(), r.length()), limits);
            check(again.has_value() && again.value() == r.value());
        }
        break;
    }
    case 1: {
        const parley::json_text_result r = parley::parse_partial_json(text, limits);
        if (boost_parse(text, limits)) {
            const parley::json_text_result exact = parley::parse_json_from_text(text, limits);
            check(r.has_value() && exact.has_value() && r.value() == exact.value());
        }
        break;
    }
    case 2: {
        const parley::json_text_result r = parley::parse_partial_json_from_text(text, limits);
        if (r) check(r.offset() <= text.size() && r.length() <= text.size() - r.offset());
        break;
    }
    case 3:
        check_round_trip(parley::from_text<fuzz_json::record>(text, {}, limits));
        break;
    case 4:
        check_round_trip(parley::from_partial_json<fuzz_json::record>(text, {}, limits));
        break;
    case 6: {
        const auto r = parley::read_partial_json<fuzz_json::record>(text, {}, limits);
        const auto plain = parley::from_partial_json<fuzz_json::record>(text, {}, limits);
        check(r.has_value() == plain.has_value());
        if (r) {
            check(r->value() == *plain);
            for (const auto& [pointer, state] : r->states()) check(r->at_pointer(pointer).state() == state);
        }
        break;
    }
    default:
        if (const std::optional<boost::json::value> v = boost_parse(text, limits))
            check_round_trip(parley::from_json<fuzz_json::record>(*v));
        break;
    }
    return 0;
}
