// context=ticket: the struct of docs/bot.md's partial values, and the display the example updates.
#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>

#include <string>

enum class ticket_kind { other, bug, feature };
BOOST_DESCRIBE_ENUM(ticket_kind, other, bug, feature)

struct ticket {
    std::string title;
    ticket_kind kind = ticket_kind::other;
    int ref = 0;
};
BOOST_DESCRIBE_STRUCT(ticket, (), (title, kind, ref))

/// The parts of a screen the example fills in as values arrive.
struct ticket_view {
    void title(const std::string&, bool /*complete*/) {}
    void kind(ticket_kind) {}
    void ref(int) {}
} ui;
