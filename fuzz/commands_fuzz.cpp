// Fuzz target: action lists from model replies (parley/schema/commands.hpp, rasa_commands.hpp).
//
// Input: byte 0 chooses the command set (bit 0: Rasa's, with parse_rasa_commands, or a set of
// commands with integers of several widths, floats, bools, enums, optionals and a trailing list
// or set) and the limits (bit 1: at most 8 commands); the rest is the reply. Checked besides
// crashes, hangs and sanitizer reports: no more commands than the limit, every problem and
// ignored piece on a line of the text (or line 0 for the whole text), and error_text() lists the
// problems.
#include <parley/schema/commands.hpp>
#include <parley/schema/rasa_commands.hpp>

#include <boost/describe.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace fuzz_commands {

enum class gear { low, high, reverse };
BOOST_DESCRIBE_ENUM(gear, low, high, reverse)

struct Drive {
    std::int8_t speed = 0;
    std::uint32_t distance = 0;
    double heading = 0;
    bool lights = false;
    gear g = gear::low;
    std::optional<std::int64_t> limit;
};
BOOST_DESCRIBE_STRUCT(Drive, (), (speed, distance, heading, lights, g, limit))

struct Note {
    std::string text;
    std::optional<std::uint16_t> priority;
};
BOOST_DESCRIBE_STRUCT(Note, (), (text, priority))

struct Visit {
    std::string first;
    std::vector<std::string> others;
};
BOOST_DESCRIBE_STRUCT(Visit, (), (first, others))

struct Tag {
    std::set<std::int16_t> ids;
};
BOOST_DESCRIBE_STRUCT(Tag, (), (ids))

struct Stop {};
BOOST_DESCRIBE_STRUCT(Stop, (), ())

}  // namespace fuzz_commands

namespace {

void check(bool ok) {
    if (!ok) std::abort();
}

template <class List>
void check_list(const List& r, std::string_view text, const parley::command_options& options) {
    std::size_t lines = 1;
    for (char c : text) lines += c == '\n';
    check(r.commands.size() <= options.max_commands);
    for (const auto& p : r.problems) check(p.line <= lines);
    for (const auto& p : r.ignored) check(p.line <= lines);
    const std::string errors = r.error_text();
    check(r.problems.empty() || !errors.empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    parley::command_options options;
    if (data[0] & 2) options.max_commands = 8;
    if (data[0] & 1) {
        check_list(parley::rasa::parse_rasa_commands(text, options), text, options);
    } else {
        namespace fc = fuzz_commands;
        check_list(parley::parse_commands<fc::Drive, fc::Note, fc::Visit, fc::Tag, fc::Stop>(text, options), text,
                   options);
    }
    return 0;
}
