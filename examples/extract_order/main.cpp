// Typed extraction: describe an order once, give a model its strict JSON schema, read the
// reply back into the struct (or list every problem to send back), and read an action list.
#include <parley/schema.hpp>

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>
#include <boost/describe/enum_to_string.hpp>
#include <boost/json.hpp>

#include <cstddef>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace cafe {

enum class size { small, medium, large };
BOOST_DESCRIBE_ENUM(size, small, medium, large)
PARLEY_ANNOTATE(size, "Cup size", (small, "250 ml"), (medium, "350 ml"), (large, "500 ml"))

struct line {
    std::string product;
    size cup = size::medium;
    int quantity = 1;
};
BOOST_DESCRIBE_STRUCT(line, (), (product, cup, quantity))
PARLEY_ANNOTATE(line, "One product of the order",
                (product, "Product name as written on the menu", max_length(40)),
                (quantity, minimum(1), maximum(20), default_value(1)))

struct order {
    std::string customer;
    std::vector<line> lines;
    std::optional<std::string> pickup;
    std::optional<std::string> note;
};
BOOST_DESCRIBE_STRUCT(order, (), (customer, lines, pickup, note))
PARLEY_ANNOTATE(order, "A coffee order taken from a customer's message", name("take_order"),
                (customer, "The customer's first name"),
                (lines, "What was ordered", min_items(1), max_items(10)),
                (pickup, "Pickup time, 24-hour clock", pattern("^[0-2][0-9]:[0-5][0-9]$"), examples("08:30")),
                (note, "Anything else the barista should know", max_length(200)))

// The schema's text is a compile-time constant: these hold, or the program does not compile.
static_assert(parley::strict_json_schema_text<order>.starts_with(
    R"({"type":"object","description":"A coffee order taken from a customer's message")"));
static_assert(parley::strict_json_schema_text<order>.find("maxLength") == std::string_view::npos);  // not strict
static_assert(parley::function_name<order> == "take_order");

// Commands a model may answer with, one per line: Add(latte, 2), Remove(muffin), Done().
struct Add {
    std::string product;
    std::optional<int> quantity;
};
BOOST_DESCRIBE_STRUCT(Add, (), (product, quantity))
struct Remove {
    std::string product;
};
BOOST_DESCRIBE_STRUCT(Remove, (), (product))
struct Done {};
BOOST_DESCRIBE_STRUCT(Done, (), ())

}  // namespace cafe

// Writes a JSON value indented by two spaces per level, keys in their order.
void print_json(std::ostream& out, const boost::json::value& v, int indent = 0) {
    const std::string pad(static_cast<std::size_t>(indent) + 2, ' ');
    if (v.is_object() && !v.get_object().empty()) {
        out << "{\n";
        const char* sep = "";
        for (const auto& [key, item] : v.get_object()) {
            out << sep << pad << boost::json::serialize(boost::json::string(key)) << ": ";
            print_json(out, item, indent + 2);
            sep = ",\n";
        }
        out << '\n' << std::string(static_cast<std::size_t>(indent), ' ') << '}';
    } else if (v.is_array() && !v.get_array().empty() && !v.get_array()[0].is_primitive()) {
        out << "[\n";
        const char* sep = "";
        for (const auto& item : v.get_array()) {
            out << sep << pad;
            print_json(out, item, indent + 2);
            sep = ",\n";
        }
        out << '\n' << std::string(static_cast<std::size_t>(indent), ' ') << ']';
    } else if (v.is_array()) {  // scalars on one line
        out << '[';
        const char* sep = "";
        for (const auto& item : v.get_array()) {
            out << sep << boost::json::serialize(item);
            sep = ", ";
        }
        out << ']';
    } else {
        out << boost::json::serialize(v);
    }
}

void show(const parley::from_json_result<cafe::order>& r) {
    if (!r) {
        std::cout << "not an order:\n" << r.error_text() << '\n';
        return;
    }
    std::cout << "order for " << r->customer << ':';
    const char* sep = " ";
    for (const cafe::line& l : r->lines) {
        std::cout << sep << l.quantity << " x " << l.product << " (" << boost::describe::enum_to_string(l.cup, "?")
                  << ')';
        sep = ", ";
    }
    if (r->pickup) std::cout << ", pickup at " << *r->pickup;
    std::cout << '\n';
    for (const parley::json_problem& w : r.warnings()) std::cout << "warning: " << w.message() << '\n';
}

// One line for a partial order: how much of each member has arrived, and its value so far for
// those that have (an enum only once complete: while its name arrives it keeps its default).
void show_arrival(std::size_t bytes, const parley::partial<cafe::order>& p) {
    using cafe::line;
    using cafe::order;
    auto state = [](parley::arrival a) { return std::string(parley::to_string(a)); };
    std::cout << bytes << " bytes: order " << state(p.state()) << "; customer " << state(p.state(&order::customer));
    if (p.has(&order::customer)) std::cout << ' ' << boost::json::serialize(boost::json::string(p.value().customer));
    auto lines = p[&order::lines];
    std::cout << "; lines " << state(lines.state());
    for (std::size_t i = 0; i < lines.size(); ++i) {
        auto l = lines[i];
        std::cout << "; [" << i << "] " << state(l.state()) << ": product " << state(l.state(&line::product));
        if (l.has(&line::product)) std::cout << ' ' << boost::json::serialize(boost::json::string(l->product));
        std::cout << ", cup " << state(l.state(&line::cup));
        if (l.complete(&line::cup)) std::cout << ' ' << boost::describe::enum_to_string(l->cup, "?");
    }
    std::cout << '\n';
}

int main() {
    // For response_format {"type": "json_schema", "json_schema": {"name": ..., "strict": true,
    // "schema": ...}} or, through strict_function_signature, for a strict tool.
    std::cout << "strict schema of " << parley::function_name<cafe::order> << ":\n";
    print_json(std::cout, parley::strict_json_schema<cafe::order>());
    std::cout << "\n\nplain schema:\n";
    print_json(std::cout, parley::json_schema<cafe::order>());
    std::cout << "\n\nreplies:\n";

    // A reply with prose around a fenced block, and a member the struct does not have.
    show(parley::from_text<cafe::order>(
        "Here is the order:\n"
        "```json\n"
        R"({"customer": "Ana", "lines": [{"product": "latte", "cup": "large", "quantity": 2},)"
        "\n"
        R"( {"product": "croissant", "cup": "small", "quantity": 1}], "pickup": "08:30", "note": null, "total": 9.4})"
        "\n```\nAnything else?"));

    // A reply with several mistakes: every one is listed, ready to be sent back to the model.
    show(parley::from_text<cafe::order>(
        R"({"customer": "Ben", "lines": [{"product": "espresso", "cup": "double", "quantity": 0},)"
        R"( {"cup": "small", "quantity": "two"}], "pickup": 830})"));

    // A reply whose JSON does not parse: the error says where.
    show(parley::from_text<cafe::order>("Sure: {\"customer\": \"Cy\", \"lines\": [}"));

    // A reply still streaming in: what has arrived so far, the rest keeping its defaults; before
    // any of the JSON, a problem of its own kind says to wait.
    const std::string_view stream =
        R"(Here it is: {"customer": "Ana", "lines": [{"product": "latte", "cup": "large"}]})";
    std::cout << "\nstreaming:\n";
    for (std::size_t n : {std::size_t{8}, std::size_t{28}, std::size_t{58}, std::size_t{74}, stream.size()}) {
        auto partial = parley::from_partial_text<cafe::order>(stream.substr(0, n));
        std::cout << n << " bytes: ";
        if (partial)
            std::cout << boost::json::serialize(parley::to_json(*partial)) << '\n';
        else if (partial.errors()[0].kind == parley::json_problem_kind::nothing_yet)
            std::cout << "nothing yet\n";
        else
            std::cout << partial.error_text() << '\n';
    }

    // The same stream through a partial_reader: a new partial value only when what has arrived
    // changed, with the state of each member (missing, arriving, complete).
    std::cout << "\narrival:\n";
    parley::partial_reader<cafe::order> reader(parley::partial_input::text);
    for (std::size_t n : {8, 13, 28, 30, 31, 58, 71, 74, 75, 77, 78, 79, 80}) {
        if (const parley::partial<cafe::order>* p = reader.update(stream.substr(0, n)))
            show_arrival(n, *p);
        else
            std::cout << n << " bytes: nothing new\n";
    }

    // An action list: reasoning lines are skipped, every call is read or reported.
    auto commands = parley::parse_commands<cafe::Add, cafe::Remove, cafe::Done>(
        "The customer wants two lattes and no muffin.\n"
        "- Add(latte, 2)\n"
        "- Remove(muffin)\n"
        "- Add(\"flat white, oat milk\")\n"
        "- Add(tea, lots)\n"
        "- Pay(card)\n"
        "- Done()\n");
    std::cout << "\ncommands:\n";
    for (const auto& c : commands.commands) {
        std::visit(
            [](const auto& cmd) {
                using C = std::decay_t<decltype(cmd)>;
                std::cout << parley::function_name<C> << ' ' << boost::json::serialize(parley::to_json(cmd)) << '\n';
            },
            c);
    }
    std::cout << "problems:\n" << commands.error_text() << '\n';
    for (const parley::command_problem& p : commands.ignored) std::cout << "ignored: " << p.text() << '\n';
}
