// Tests of parley/schema/commands.hpp and parley/schema/rasa_commands.hpp: action lists as
// command generators write them, into typed commands, with every problem reported by line.
#include <parley/schema/commands.hpp>

#include <parley/schema/annotations.hpp>
#include <parley/schema/rasa_commands.hpp>

#include <boost/describe.hpp>
#include <doctest/doctest.h>

#include <map>
#include <optional>
#include <random>
#include <ostream>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace cmd_test {

enum class speed { slow, fast };
BOOST_DESCRIBE_ENUM(speed, slow, fast)

struct Move {
    int steps = 0;
    double angle = 0;
    bool run = false;
    speed pace = speed::slow;
    std::optional<int> repeat;
    friend bool operator==(const Move&, const Move&) = default;
};
BOOST_DESCRIBE_STRUCT(Move, (), (steps, angle, run, pace, repeat))

struct Tag {
    std::string item;
    std::set<std::string> labels;
    friend bool operator==(const Tag&, const Tag&) = default;
};
BOOST_DESCRIBE_STRUCT(Tag, (), (item, labels))

struct renamed {
    std::vector<int> values;
    friend bool operator==(const renamed&, const renamed&) = default;
};
BOOST_DESCRIBE_STRUCT(renamed, (), (values))
PARLEY_ANNOTATE(renamed, name("sum-all"))

struct Pour {
    std::string drink;
    int cups = 1;
    std::optional<double> temperature;
    std::vector<std::string> extras;
    friend bool operator==(const Pour&, const Pour&) = default;
};
BOOST_DESCRIBE_STRUCT(Pour, (), (drink, cups, temperature, extras))
PARLEY_ANNOTATE(Pour, (drink, max_length(5)), (cups, range(1, 4)), (temperature, exclusive_maximum(100)),
                (extras, max_items(2)))

struct with_map {
    std::map<std::string, int> m;
};
BOOST_DESCRIBE_STRUCT(with_map, (), (m))

struct list_in_middle {
    std::vector<int> a;
    int b = 0;
};
BOOST_DESCRIBE_STRUCT(list_in_middle, (), (a, b))

}  // namespace cmd_test

namespace {

using namespace parley::rasa;
using cmd_test::Move;
using cmd_test::Tag;

namespace dc = parley::detail::commands;
static_assert(dc::valid_command<Move>());
static_assert(dc::valid_command<Tag>());
static_assert(dc::valid_command<CancelFlow>());
static_assert(!dc::valid_command<cmd_test::with_map>());
static_assert(!dc::valid_command<cmd_test::list_in_middle>());
static_assert(!dc::valid_command<int>());
static_assert(parley::function_name<cmd_test::renamed> == "sum-all");

// The problems of a result as text, one per line.
template <class L>
std::string problems_of(const L& r) {
    return r.error_text();
}

template <class L>
std::string ignored_of(const L& r) {
    std::string s;
    for (const auto& p : r.ignored) s += p.text() + "\n";
    return s;
}

}  // namespace

TEST_CASE("parse_rasa_commands: a reply with reasoning first, then one action per line") {
    auto r = parse_rasa_commands(
        "The user wants to send money to Freddy, so the flow transfer_money starts.\n"
        "Actions:\n"
        "StartFlow(transfer_money)\n"
        "SetSlot(recipient, Freddy)\n");
    CHECK(r);
    REQUIRE(r.commands.size() == 2);
    CHECK(r.commands[0] == command(StartFlow{"transfer_money"}));
    CHECK(r.commands[1] == command(SetSlot{"recipient", "Freddy"}));
    CHECK(ignored_of(r) ==
          "line 1: The user wants to send money to Freddy, so the flow transfer_money starts.: not an action\n"
          "line 2: Actions:: not an action\n");
}

TEST_CASE("parse_rasa_commands: bullets, numbering, backticks, blank lines, fences and full stops") {
    auto r = parse_rasa_commands(
        "```\n"
        "- StartFlow(a)\n"
        "* CancelFlow()\n"
        "\n"
        "1. ChitChat()\n"
        "2) HumanHandoff\n"
        "  \xe2\x80\xa2 SkipQuestion()\n"
        "(3) SearchAndReply().\n"
        "`RepeatLastBotMessages()`\n"
        "+ CannotHandle(); ChangeFlow()\n"
        "```");
    CHECK(problems_of(r).empty());
    const std::vector<command> expected = {StartFlow{"a"},   CancelFlow{},     ChitChat{},
                                           HumanHandoff{},   SkipQuestion{},   SearchAndReply{},
                                           RepeatLastBotMessages{}, CannotHandle{}, ChangeFlow{}};
    CHECK(r.commands == expected);
    CHECK(ignored_of(r) == "line 1: ```: not an action\nline 11: ```: not an action\n");
}

TEST_CASE("parse_rasa_commands: several calls on a line, quoted and nested arguments") {
    auto r = parse_rasa_commands(
        "StartFlow(transfer_money), SetSlot(recipient, John), SetSlot(amount, 55)\n"
        "SetSlot(note, \"a, b\")\n"
        "SetSlot(name, 'O\\'Neil')\n"
        "SetSlot(quote, \"say \\\"hi\\\"\\n\")\n"
        "SetSlot(name, O'Neil)\n"
        "SetSlot(note, call me (later, maybe))\n"
        "SetSlot( spaced ,   value with spaces   )\n"
        "SetSlot(empty, \"\")\n"
        "SetSlot(reset, None)\n"
        "Clarify(list_contacts, add_contact, remove_contact)\n"
        "Clarify(transfer_money)\n"
        "Clarify()\n");
    CHECK(problems_of(r).empty());
    const std::vector<command> expected = {
        StartFlow{"transfer_money"},
        SetSlot{"recipient", "John"},
        SetSlot{"amount", "55"},
        SetSlot{"note", "a, b"},
        SetSlot{"name", "O'Neil"},
        SetSlot{"quote", "say \"hi\"\n"},
        SetSlot{"name", "O'Neil"},
        SetSlot{"note", "call me (later, maybe)"},
        SetSlot{"spaced", "value with spaces"},
        SetSlot{"empty", ""},
        SetSlot{"reset", "None"},
        Clarify{{"list_contacts", "add_contact", "remove_contact"}},
        Clarify{{"transfer_money"}},
        Clarify{{}},
    };
    CHECK(r.commands == expected);
    CHECK(r.ignored.empty());
}

TEST_CASE("parse_rasa_commands: unknown commands, wrong arity and malformed calls are reported") {
    auto r = parse_rasa_commands(
        "StartFlow(ok)\n"
        "FooBar(x)\n"
        "startflow(transfer_money)\n"
        "StartFlow()\n"
        "SetSlot(recipient)\n"
        "CancelFlow(now)\n"
        "StartFlow\n"
        "SetSlot(a, \"b)\n"
        "StartFlow(a\n"
        "SetSlot(a, \"b\" c)\n"
        "ChitChat() because the user said hi\n"
        "SetSlot(x, 1), Unknown(2), CancelFlow()\n");
    CHECK(!r);
    CHECK(problems_of(r) ==
          "line 2: FooBar(x): unknown command \"FooBar\" (the commands are StartFlow, SetSlot, CancelFlow, Clarify, "
          "SkipQuestion, SearchAndReply, ChitChat, HumanHandoff, RepeatLastBotMessages, CannotHandle, ChangeFlow, Done)\n"
          "line 3: startflow(transfer_money): unknown command \"startflow\" (did you mean StartFlow?)\n"
          "line 4: StartFlow(): StartFlow takes 1 argument (flow), found 0\n"
          "line 5: SetSlot(recipient): SetSlot takes 2 arguments (slot, value), found 1\n"
          "line 6: CancelFlow(now): CancelFlow takes 0 arguments, found 1\n"
          "line 7: StartFlow: StartFlow takes 1 argument (flow), found 0\n"
          "line 8: SetSlot(a, \"b): a quoted argument is not closed\n"
          "line 9: StartFlow(a: the parenthesis is not closed\n"
          "line 10: SetSlot(a, \"b\" c): text after a quoted argument\n"
          "line 12: Unknown(2): unknown command \"Unknown\" (the commands are StartFlow, SetSlot, CancelFlow, Clarify, "
          "SkipQuestion, SearchAndReply, ChitChat, HumanHandoff, RepeatLastBotMessages, CannotHandle, ChangeFlow, Done)");
    // The calls that could be read are kept, in order.
    const std::vector<command> expected = {StartFlow{"ok"}, ChitChat{}, SetSlot{"x", "1"}, CancelFlow{}};
    CHECK(r.commands == expected);
    CHECK(ignored_of(r) == "line 11: because the user said hi: text after the commands\n");
    REQUIRE(r.problems.size() == 10);
    CHECK(r.problems[0] == parley::command_problem{2, "FooBar(x)", r.problems[0].message});
}

TEST_CASE("parse_commands: typed arguments, optional and rest arguments") {
    using cmd_test::renamed;
    using cmd_test::speed;
    auto r = parley::parse_commands<Move, Tag, renamed>(
        "Move(3, 90, true, fast)\n"
        "Move(-2, 1.5e1, False, slow, 4)\n"
        "Move(1, \"2.5\", True, fast, null)\n"
        "Tag(box, red, blue, red)\n"
        "Tag(crate)\n"
        "sum-all(1, 2, 3)\n"
        "sum-all()\n");
    CHECK(problems_of(r).empty());
    using V = std::variant<Move, Tag, renamed>;
    const std::vector<V> expected = {
        Move{3, 90.0, true, speed::fast, std::nullopt},
        Move{-2, 15.0, false, speed::slow, 4},
        Move{1, 2.5, true, speed::fast, std::nullopt},
        Tag{"box", {"blue", "red"}},
        Tag{"crate", {}},
        renamed{{1, 2, 3}},
        renamed{{}},
    };
    CHECK(r.commands == expected);

    auto bad = parley::parse_commands<Move, Tag, renamed>(
        "Move(many, left, maybe, medium, twice)\n"
        "Move(1)\n"
        "Move(1, 2, true, fast, 5, 6)\n"
        "Move(300000000000, 1, true, slow)\n"
        "sum-all(1, x, 3.5)\n");
    CHECK(problems_of(bad) ==
          "line 1: Move(many, left, maybe, medium, twice): argument 1 (steps): expected an integer from -2147483648 "
          "to 2147483647, found \"many\"; argument 2 (angle): expected a number, found \"left\"; argument 3 (run): "
          "expected a boolean, found \"maybe\"; argument 4 (pace): expected one of \"slow\", \"fast\", found "
          "\"medium\"; argument 5 (repeat): expected an integer from -2147483648 to 2147483647 or null, found "
          "\"twice\"\n"
          "line 2: Move(1): Move takes 4 to 5 arguments (steps, angle, run, pace, [repeat]), found 1\n"
          "line 3: Move(1, 2, true, fast, 5, 6): Move takes 4 to 5 arguments (steps, angle, run, pace, [repeat]), "
          "found 6\n"
          "line 4: Move(300000000000, 1, true, slow): argument 1 (steps): expected an integer from -2147483648 to "
          "2147483647, found 300000000000\n"
          "line 5: sum-all(1, x, 3.5): argument 2 (values): expected an integer from -2147483648 to 2147483647, found "
          "\"x\"; argument 3 (values): expected an integer from -2147483648 to 2147483647, found 3.5");
    CHECK(bad.commands.empty());

    auto tag = parley::parse_commands<Tag>("Tag()\n");
    CHECK(problems_of(tag) == "line 1: Tag(): Tag takes at least 1 argument (item, labels...), found 0");
}

TEST_CASE("parse_commands: annotated bounds of arguments are checked, as from_json checks them") {
    auto ok = parley::parse_commands<cmd_test::Pour>("Pour(tea, 4, 99.5, milk, sugar)\nPour(cocoa, 1)\n");
    CHECK(problems_of(ok).empty());
    CHECK(ok.commands == std::vector<std::variant<cmd_test::Pour>>{cmd_test::Pour{"tea", 4, 99.5, {"milk", "sugar"}},
                                                                  cmd_test::Pour{"cocoa", 1, std::nullopt, {}}});
    auto bad = parley::parse_commands<cmd_test::Pour>(
        "Pour(espresso, 1)\n"
        "Pour(tea, 0)\n"
        "Pour(tea, 2, 100)\n"
        "Pour(tea, 2, None, milk, sugar, honey)\n");
    CHECK(bad.commands.empty());
    CHECK(problems_of(bad) ==
          "line 1: Pour(espresso, 1): argument 1 (drink): expected a string of at most 5 characters, found \"espresso\" "
          "(8 characters)\n"
          "line 2: Pour(tea, 0): argument 2 (cups): expected an integer at least 1 and at most 4, found 0\n"
          "line 3: Pour(tea, 2, 100): argument 3 (temperature): expected a number less than 100, found 100\n"
          "line 4: Pour(tea, 2, None, milk, sugar, honey): arguments (extras...): expected an array of at most 2 items, "
          "found an array of 3 items");
}

TEST_CASE("parse_commands: limits") {
    std::string many;
    for (int i = 0; i < 20; ++i) many += "StartFlow(f" + std::to_string(i) + ")\n";
    parley::command_options few;
    few.max_commands = 5;
    auto r = parse_rasa_commands(many, few);
    CHECK(r.commands.size() == 5);
    CHECK(problems_of(r) == "line 6: StartFlow(f5): more than 5 commands");

    parley::command_options small;
    small.max_size = 10;
    auto s = parse_rasa_commands("StartFlow(transfer_money)", small);
    CHECK(s.commands.empty());
    // a problem of the whole text has line 0, and its text names no line
    REQUIRE(s.problems.size() == 1);
    CHECK(s.problems[0].line == 0);
    CHECK(problems_of(s) == "the text is 25 bytes long, more than the 10 bytes read");
    CHECK(parse_rasa_commands("StartFlow(a)\n", {.max_size = 8}).error_text() ==
          "the text is 13 bytes long, more than the 8 bytes read");

    // Hostile text: long lines of parentheses and quotes stay linear.
    std::string hostile = "SetSlot(" + std::string(200000, '(') + "\n" + "SetSlot(a, \"" + std::string(200000, 'x') + "\n";
    auto h = parse_rasa_commands(hostile);
    REQUIRE(h.problems.size() == 2);
    CHECK(h.problems[0].message == "the parenthesis is not closed");
    CHECK(h.problems[1].message == "a quoted argument is not closed");
}

TEST_CASE("parse_commands: random text never crashes, and problems have lines") {
    static const char* const pieces[] = {"StartFlow", "SetSlot", "Clarify", "Foo", "(", ")", ",", "\"", "'", "\\",
                                         " ", "\n", "- ", "1. ", "x", "`", ";", "."};
    std::mt19937_64 rng(5);
    std::size_t commands = 0;
    std::size_t problems = 0;
    for (int i = 0; i < 20000; ++i) {
        std::string s;
        for (std::size_t n = rng() % 20; n > 0; --n) s += pieces[rng() % std::size(pieces)];
        auto r = parse_rasa_commands(s);
        commands += r.commands.size();
        problems += r.problems.size();
        for (const auto& p : r.problems) CHECK(p.line >= 1);
    }
    CHECK(commands > 1000);
    CHECK(problems > 1000);
}
