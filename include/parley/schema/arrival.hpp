// parley/schema/arrival.hpp: how much of each value of a JSON text still streaming in has
// arrived (nothing yet, begun, whole), as a tree that follows the JSON's members and items.
// parley/schema/partial.hpp pairs it with the C++ value read so far (parley::partial<T>).
#ifndef PARLEY_SCHEMA_ARRIVAL_HPP
#define PARLEY_SCHEMA_ARRIVAL_HPP

#include <parley/config.hpp>
#include <parley/error.hpp>
#include <parley/schema/detail/conversion.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley {

template <class U>
class partial_view;

/// How much of one value of a reply still streaming in has arrived. A value only goes forward:
/// missing, then arriving, then complete (some values skip arriving).
enum class arrival : std::uint8_t {
    missing,  ///< nothing of it yet (a member whose name or colon is all that came counts as missing)
    arriving,  ///< begun, not whole: a string, number or literal that may still grow (`"Fre`, `12`, `tr`), an array or object not yet closed
    complete,  ///< whole: its closing quote or bracket, its last letter, or (a number) the character after it has arrived
};

/// "missing", "arriving" or "complete".
constexpr std::string_view to_string(arrival a) noexcept {
    switch (a) {
    case arrival::missing: return "missing";
    case arrival::arriving: return "arriving";
    case arrival::complete: return "complete";
    }
    return "missing";
}

namespace detail::partial {

/// The arrival of one JSON value that has arrived, and of its members (objects) or items (arrays).
struct node {
    arrival state = arrival::missing;
    bool object = false;  // an object: `keys` names the children
    std::vector<std::string> keys;  // the members' names, parallel to children (objects only)
    std::vector<node> children;  // members or items that have arrived, in the order of the text

    friend bool operator==(const node&, const node&) = default;
};

/// The text of a JSON string literal's contents (between the quotes) decoded to UTF-8. The
/// literal is valid JSON (escapes whole, surrogates paired).
inline std::string decode_json_string(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    auto hex4 = [&](std::size_t at) {
        unsigned u = 0;
        for (std::size_t k = at; k < at + 4 && k < s.size(); ++k) {
            char c = s[k];
            u = u * 16 + static_cast<unsigned>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
        }
        return u;
    };
    auto put = [&](unsigned cp) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    };
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\' || i + 1 >= s.size()) {
            out += s[i];
            continue;
        }
        char e = s[++i];
        switch (e) {
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
            unsigned cp = hex4(i + 1);
            i += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 < s.size() && s[i + 1] == '\\' && s[i + 2] == 'u') {
                unsigned low = hex4(i + 3);
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                i += 6;
            }
            put(cp);
            break;
        }
        default: out += e; break;  // " \ /
        }
    }
    return out;
}

/// Builds the arrival tree of the completion of a JSON prefix (see parse_partial_json): `text`
/// is valid JSON whose first `kept` bytes come from the prefix, the rest having been added to
/// close it. A value whose text ends within those bytes has arrived whole, except a number
/// that ends exactly there when `open_number` says it ran to the end of the prefix (more
/// digits may come). Linear in the text; no recursion.
class tree_builder {
public:
    tree_builder(std::string_view text, std::size_t kept, bool open_number)
        : s_(text), kept_(kept), open_number_(open_number) {}

    node build() {
        node root;
        std::vector<node*> open;  // the arrays and objects around the value being read
        node* target = &root;
        std::size_t i = skip(0);
        while (i < s_.size()) {
            const char c = s_[i];
            if (c == '{' || c == '[') {
                target->object = c == '{';
                target->state = arrival::arriving;
                open.push_back(target);
                i = skip(i + 1);
                if (i < s_.size() && s_[i] != (c == '{' ? '}' : ']')) {
                    target = start_child(*open.back(), i);
                    continue;
                }
            } else {
                const std::size_t end = scalar_end(i);
                target->state = done(end, c == '-' || (c >= '0' && c <= '9'));
                i = end;
            }
            // after a value: close the containers that end here, or go on to the next item
            for (;;) {
                if (open.empty()) return root;
                i = skip(i);
                if (i >= s_.size()) return root;  // unreachable for valid JSON
                if (s_[i] == ',') {
                    i = skip(i + 1);
                    target = start_child(*open.back(), i);
                    break;
                }
                ++i;  // the closing bracket
                open.back()->state = done(i, false);
                open.pop_back();
            }
        }
        return root;
    }

private:
    arrival done(std::size_t end, bool number) const {
        if (end > kept_ || (number && open_number_ && end == kept_)) return arrival::arriving;
        return arrival::complete;
    }

    std::size_t skip(std::size_t i) const {
        while (i < s_.size() && (s_[i] == ' ' || s_[i] == '\t' || s_[i] == '\n' || s_[i] == '\r')) ++i;
        return i;
    }

    // The end of the string, number or literal that starts at i.
    std::size_t scalar_end(std::size_t i) const {
        if (s_[i] == '"') {
            for (std::size_t k = i + 1; k < s_.size(); ++k) {
                if (s_[k] == '\\') ++k;
                else if (s_[k] == '"') return k + 1;
            }
            return s_.size();
        }
        std::size_t k = i + 1;
        while (k < s_.size() && s_[k] != ',' && s_[k] != ']' && s_[k] != '}' && s_[k] != ' ' && s_[k] != '\t' &&
               s_[k] != '\n' && s_[k] != '\r')
            ++k;
        return k;
    }

    // A new member (its name read at i, i moved to its value) or item of `parent`.
    node* start_child(node& parent, std::size_t& i) {
        if (parent.object) {
            const std::size_t end = scalar_end(i);
            parent.keys.push_back(decode_json_string(s_.substr(i + 1, end - i - 2)));
            i = skip(end);
            i = skip(i + 1);  // the colon
        }
        parent.children.emplace_back();
        return &parent.children.back();
    }

    std::string_view s_;
    std::size_t kept_;
    bool open_number_;
};

/// Keeps one member per name in every object of the tree, as Boost.JSON does: the last one's
/// arrival at the first one's place. O(n log n) for an object of n members.
inline void merge_repeated_names(node& root) {
    std::vector<node*> todo{&root};
    std::vector<std::size_t> order;
    while (!todo.empty()) {
        node* n = todo.back();
        todo.pop_back();
        if (n->object && n->children.size() > 1) {
            order.resize(n->children.size());
            for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
            std::stable_sort(order.begin(), order.end(),
                             [n](std::size_t a, std::size_t b) { return n->keys[a] < n->keys[b]; });
            std::vector<bool> drop(order.size(), false);
            bool any = false;
            for (std::size_t k = 0; k < order.size();) {
                std::size_t run = k;
                while (run + 1 < order.size() && n->keys[order[run + 1]] == n->keys[order[k]]) ++run;
                if (run != k) {
                    n->children[order[k]] = std::move(n->children[order[run]]);
                    for (std::size_t d = k + 1; d <= run; ++d) drop[order[d]] = true;
                    any = true;
                }
                k = run + 1;
            }
            if (any) {
                std::size_t out = 0;
                for (std::size_t k = 0; k < drop.size(); ++k) {
                    if (drop[k]) continue;
                    if (out != k) {
                        n->children[out] = std::move(n->children[k]);
                        n->keys[out] = std::move(n->keys[k]);
                    }
                    ++out;
                }
                n->children.resize(out);
                n->keys.resize(out);
            }
        }
        for (node& child : n->children) todo.push_back(&child);
    }
}

}  // namespace detail::partial

/// A view of the arrival of one value of a JSON text still streaming in, and of its members and
/// items. A view of a value that has not arrived is valid and says `missing` all the way down.
/// It points into the tree it was taken from (a parley::partial<T>), which must outlive it.
class arrival_node {
public:
    /// A value that has not arrived.
    arrival_node() noexcept = default;

    /// How much of the value has arrived.
    arrival state() const noexcept { return n_ ? n_->state : arrival::missing; }
    /// Whether any of the value has arrived (arriving or complete).
    bool has() const noexcept { return state() != arrival::missing; }
    /// Whether the whole value has arrived.
    bool complete() const noexcept { return state() == arrival::complete; }
    /// How many members (an object) or items (an array) have arrived.
    std::size_t size() const noexcept { return n_ ? n_->children.size() : 0; }

    /// Item `i` of an array (missing when it has not arrived, or the value is no array).
    arrival_node item(std::size_t i) const noexcept {
        if (!n_ || n_->object || i >= n_->children.size()) return {};
        return arrival_node(&n_->children[i]);
    }
    /// The member named `name` of an object (missing when it has not arrived, or the value is
    /// no object).
    arrival_node member(std::string_view name) const noexcept {
        if (!n_ || !n_->object) return {};
        for (std::size_t k = 0; k < n_->keys.size(); ++k)
            if (n_->keys[k] == name) return arrival_node(&n_->children[k]);
        return {};
    }
    /// The value at a JSON pointer (RFC 6901) below this one, such as `/lines/0/product`; ""
    /// is this value. Throws parley::error (errc::invalid_argument) for a malformed pointer
    /// (not starting with `/`, or a `~` not followed by 0 or 1).
    arrival_node at_pointer(std::string_view pointer) const {
        if (!pointer.empty() && pointer.front() != '/')
            throw error(errc::invalid_argument,
                        "expected a JSON pointer starting with '/', found \"" + std::string(pointer.substr(0, 80)) + "\"");
        arrival_node at = *this;
        std::size_t i = 0;
        while (i < pointer.size()) {
            std::size_t end = pointer.find('/', i + 1);
            if (end == std::string_view::npos) end = pointer.size();
            std::string name;
            for (std::size_t k = i + 1; k < end; ++k) {
                if (pointer[k] != '~') {
                    name += pointer[k];
                    continue;
                }
                if (k + 1 >= end || (pointer[k + 1] != '0' && pointer[k + 1] != '1'))
                    throw error(errc::invalid_argument, "expected ~0 or ~1 in a JSON pointer, found \"" +
                                                            std::string(pointer.substr(0, 80)) + "\"");
                name += pointer[++k] == '0' ? '~' : '/';
            }
            if (at.n_ && !at.n_->object) {
                // an index: digits without a leading zero
                bool index = !name.empty() && name.size() < 20 && (name == "0" || name[0] != '0') &&
                             name.find_first_not_of("0123456789") == std::string::npos;
                at = index ? at.item(std::stoull(name)) : arrival_node();
            } else {
                at = at.member(name);
            }
            i = end;
        }
        return at;
    }

    /// Every value that has arrived, this one first, as (JSON pointer relative to this one,
    /// state), in the order of the text: `{"": arriving, "/name": complete, "/lines":
    /// arriving, "/lines/0": arriving, ...}` in the form of a list.
    std::vector<std::pair<std::string, arrival>> states() const {
        std::vector<std::pair<std::string, arrival>> out;
        if (n_ && n_->state != arrival::missing) list(*n_, std::string(), out);
        return out;
    }

    /// Equal when the same values have arrived as far, member names and items alike.
    friend bool operator==(const arrival_node& a, const arrival_node& b) noexcept {
        if (!a.has() || !b.has()) return a.has() == b.has();
        return *a.n_ == *b.n_;
    }

protected:
    template <class>
    friend class partial_view;

    explicit arrival_node(const detail::partial::node* n) noexcept : n_(n) {}

    const detail::partial::node* n_ = nullptr;

private:
    static void list(const detail::partial::node& n, const std::string& path, std::vector<std::pair<std::string, arrival>>& out) {
        out.emplace_back(path, n.state);
        for (std::size_t k = 0; k < n.children.size(); ++k) {
            std::string child = path;
            if (n.object)
                detail::conv::append_segment(child, n.keys[k]);
            else
                detail::conv::append_segment(child, k);
            list(n.children[k], child, out);
        }
    }
};

}  // namespace parley

#endif
