// parley/chat/impl/yaml_nodes.hpp: reading YAML nodes with located errors: positions, maps with
// checked keys, scalars as strings and numbers, YAML as JSON, limits (used by yaml_read.hpp).
#ifndef PARLEY_CHAT_IMPL_YAML_NODES_HPP
#define PARLEY_CHAT_IMPL_YAML_NODES_HPP

#include <parley/chat/detail/suggest.hpp>
#include <parley/chat/detail/yaml_plain.hpp>
#include <parley/chat/detail/yaml_scalar.hpp>
#include <parley/chat/rules.hpp>
#include <parley/chat/yaml.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace parley::detail {

/// Parser events that only note where the second document's first node is.
class yaml_document_counter final : public YAML::EventHandler {
public:
    YAML::Mark second_mark;  ///< the first node of the second document (its `---` line is not a node)

    void OnDocumentStart(const YAML::Mark&) override { ++documents_; }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& m, YAML::anchor_t) override { node(m); }
    void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { node(m); }
    void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string&) override { node(m); }
    void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
        node(m);
    }
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
        node(m);
    }
    void OnMapEnd() override {}

private:
    void node(const YAML::Mark& m) {
        if (documents_ == 2 && !marked_) {
            second_mark = m;
            marked_ = true;
        }
    }
    int documents_ = 0;
    bool marked_ = false;
};

/// Reads the nodes of a YAML text; every error is a yaml_error located in the text.
class yaml_node_reader {
public:
    yaml_node_reader(std::string_view text, std::string file, const yaml_options& options)
        : src_(text), file_(std::move(file)), opt_(options) {
        if (src_.substr(0, 3) == "\xEF\xBB\xBF") src_.remove_prefix(3);  // a byte order mark
    }

protected:
    struct field {
        YAML::Node key, value;
        std::string name;
        std::size_t depth;
    };


    // --- errors and positions ---------------------------------------------------------------

    [[noreturn]] void fail(std::size_t at, const std::string& message, errc code = errc::chat_invalid) const {
        const yaml_position p = yaml_position_at(src_, at);
        throw yaml_error(code, message, {file_, p.line, p.column}, p.line_text);
    }
    static std::size_t offset(const YAML::Node& n) {
        const YAML::Mark m = n.Mark();
        return m.pos < 0 ? 0 : static_cast<std::size_t>(m.pos);
    }
    // A field's value, or its key when the value is empty (an empty value's mark is the next token).
    std::size_t offset(const field& f) const {
        return f.value.IsNull() && found(f.value) == "nothing" ? offset(f.key) : offset(f.value);
    }

    static std::string shorten(std::string_view s) {
        if (s.size() <= 40) return std::string(s);
        std::size_t cut = 37;
        while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
        return std::string(s.substr(0, cut)) + "...";
    }
    static bool quoted(const YAML::Node& n) { return n.Tag() != "?"; }
    // What a node is, for "expected ..., found ...": `null` when written so, `nothing` for an
    // empty value (whose mark is the next token).
    std::string found(const YAML::Node& n) const {
        switch (n.Type()) {
        case YAML::NodeType::Map: return "a map";
        case YAML::NodeType::Sequence: return "a list";
        case YAML::NodeType::Scalar: return "'" + shorten(n.Scalar()) + "'";
        default: break;
        }
        const std::string_view at = src_.substr(std::min(offset(n), src_.size()));
        for (std::string_view word : {"~", "null", "Null", "NULL"})
            if (at.substr(0, word.size()) == word &&
                (at.size() == word.size() || std::string_view(" \t\r\n,]}#").find(at[word.size()]) != std::string_view::npos))
                return "null";
        return "nothing";
    }
    [[noreturn]] void expected(const field& f, const std::string& what) const {
        std::string msg = "'" + f.name + "' expects " + what + ", found " + found(f.value);
        if (f.value.IsMap() && src_.substr(offset(f.value), 2) == "{{")
            msg += " (a text that begins with '{' must be quoted)";
        fail(offset(f), msg);
    }

    // --- structure ------------------------------------------------------------------------------

    YAML::Node parse() {
        if (src_.size() > opt_.limits.max_bytes)
            fail(opt_.limits.max_bytes, "the text is longer than the limit of " + std::to_string(opt_.limits.max_bytes) +
                                            " bytes", errc::template_limit);
        // yaml-cpp 0.7's LoadAll never returns on some malformed texts (a ',' outside a flow
        // collection: its parser reports an empty document without consuming the token, again and
        // again; jbeder/yaml-cpp#1040). So a parser that stops after two documents tells whether
        // there is a second one, and the first is loaded alone.
        YAML::Node doc;
        std::optional<YAML::Mark> second;
        try {
            std::istringstream in{std::string(src_)};
            YAML::Parser parser(in);
            yaml_document_counter counter;
            if (parser.HandleNextDocument(counter) && parser.HandleNextDocument(counter)) second = counter.second_mark;
            if (!second) doc = YAML::Load(std::string(src_));
        } catch (const YAML::DeepRecursion& e) {
            fail(static_cast<std::size_t>(std::max(e.mark.pos, 0)), "the YAML nests too deeply for the parser",
                 errc::template_limit);
        } catch (const YAML::ParserException& e) {
            std::string msg = "YAML syntax error: " + e.msg;
            if (e.msg == "illegal map value") msg += " (a text that contains ': ' must be quoted)";
            if (e.msg == "alias not found after *" || e.msg == "the referenced anchor is not defined")
                msg += " (a text that begins with '*' must be quoted, as in '*')";
            if (e.msg == "anchor not found after &") msg += " (a text that begins with '&' must be quoted)";
            fail(static_cast<std::size_t>(std::max(e.mark.pos, 0)), msg, errc::yaml_syntax);
        } catch (const YAML::Exception& e) {
            fail(0, std::string("YAML syntax error: ") + e.what(), errc::yaml_syntax);
        }
        if (second) {
            const std::size_t at = second->pos < 0 ? 0 : static_cast<std::size_t>(second->pos);
            // where yaml-cpp's parser is stuck, its "document" starts at a ','
            if (at < src_.size() && src_[at] == ',')
                fail(at, "YAML syntax error: unexpected ',' outside a flow collection", errc::yaml_syntax);
            fail(at, "a file holds one YAML document; this is a second one");
        }
        return doc;
    }

    // Counts a node and checks the limits; `depth` is the number of maps and lists around it.
    void enter(const YAML::Node& n, std::size_t depth) {
        if ((n.IsMap() || n.IsSequence()) && depth >= opt_.limits.max_depth)
            fail(offset(n), "maps and lists nest deeper than the limit of " + std::to_string(opt_.limits.max_depth) +
                                " levels", errc::template_limit);
        if (++values_ > opt_.limits.max_values)
            fail(offset(n), "more than the limit of " + std::to_string(opt_.limits.max_values) +
                                " values (an alias counts each time it is used)", errc::template_limit);
    }

    // The entries of a map, with string keys; a key given twice is an error unless
    // `duplicates_allowed` (the caller then reports it in its own words).
    std::vector<field> fields(const YAML::Node& map, std::size_t depth, bool duplicates_allowed = false) {
        enter(map, depth);
        std::vector<field> out;
        std::unordered_map<std::string, std::size_t> seen;
        for (auto it = map.begin(); it != map.end(); ++it) {
            const YAML::Node key = it->first;
            enter(key, depth + 1);
            if (!key.IsScalar()) fail(offset(key), "a key is a string, found " + found(key));
            field f{key, it->second, key.Scalar(), depth + 1};
            if (!duplicates_allowed) {
                const auto [at, fresh] = seen.emplace(f.name, offset(key));
                if (!fresh)
                    fail(offset(key), "key '" + f.name + "' is given twice (first on line " +
                                          std::to_string(yaml_position_at(src_, at->second).line) + ")");
            }
            out.push_back(std::move(f));
        }
        return out;
    }
    template <class Range>
    void check_known(const field& f, const Range& known, std::string_view where) const {
        for (std::string_view k : known)
            if (k == f.name) return;
        fail(offset(f.key), unknown_key_sentence(f.name, where, known));
    }
    std::vector<YAML::Node> items(const field& f, const std::string& what) {
        if (!f.value.IsSequence()) expected(f, what);
        enter(f.value, f.depth);
        std::vector<YAML::Node> out;
        for (auto it = f.value.begin(); it != f.value.end(); ++it) out.push_back(*it);
        return out;
    }

    // --- scalars --------------------------------------------------------------------------------

    std::string text(const field& f, const char* what = "a string") {
        if (!f.value.IsScalar()) expected(f, what);
        enter(f.value, f.depth);
        return f.value.Scalar();
    }
    // A plain scalar's meaning; quoted scalars are strings (empty optional).
    std::optional<plain_value> plain(const field& f) {
        if (!f.value.IsScalar() || quoted(f.value)) return std::nullopt;
        enter(f.value, f.depth);
        return resolve_plain(f.value.Scalar());
    }
    [[noreturn]] void not_a_number(const field& f, const char* what) const {
        if (f.value.IsScalar() && quoted(f.value))
            fail(offset(f), "'" + f.name + "' expects " + what + ", found '" + shorten(f.value.Scalar()) +
                                "' (quoted, so a string)");
        expected(f, what);
    }
    double number(const field& f) {
        const auto v = plain(f);
        if (v) {
            if (const auto* i = std::get_if<std::int64_t>(&*v)) return static_cast<double>(*i);
            if (const auto* u = std::get_if<std::uint64_t>(&*v)) return static_cast<double>(*u);
            if (const auto* d = std::get_if<double>(&*v)) return *d;
        }
        not_a_number(f, "a number");
    }
    std::int64_t integer(const field& f) {
        const auto v = plain(f);
        if (v) {
            if (const auto* i = std::get_if<std::int64_t>(&*v)) return *i;
            if (std::holds_alternative<std::uint64_t>(*v) ||
                (std::holds_alternative<double>(*v) && yaml_digits(f.value.Scalar().substr(
                                                           f.value.Scalar()[0] == '-' || f.value.Scalar()[0] == '+'), 10)))
                fail(offset(f), "'" + f.name + "' expects an integer, found '" + shorten(f.value.Scalar()) +
                                    "' (outside the 64-bit range)");
        }
        not_a_number(f, "an integer");
    }

    // A YAML value as JSON: maps are objects, lists arrays, quoted scalars strings, plain scalars
    // what the core schema makes of them.
    boost::json::value to_json(const YAML::Node& n, std::size_t depth) {
        switch (n.Type()) {
        case YAML::NodeType::Map: {  // fields() counts the map
            boost::json::object o;
            for (const field& f : fields(n, depth)) o[f.name] = to_json(f.value, depth + 1);
            return o;
        }
        case YAML::NodeType::Sequence: {
            enter(n, depth);
            boost::json::array a;
            for (auto it = n.begin(); it != n.end(); ++it) a.push_back(to_json(*it, depth + 1));
            return a;
        }
        case YAML::NodeType::Scalar: {
            enter(n, depth);
            if (n.Tag() == "!" || n.Tag() == "tag:yaml.org,2002:str") return boost::json::string(n.Scalar());
            if (n.Tag() != "?") fail(offset(n), "unsupported tag '" + n.Tag() + "' (JSON values take !!str only)");
            const plain_value v = resolve_plain(n.Scalar());
            switch (v.index()) {
            case 0: return nullptr;
            case 1: return std::get<bool>(v);
            case 2: return std::get<std::int64_t>(v);
            case 3: return std::get<std::uint64_t>(v);
            case 4: return std::get<double>(v);
            default: return boost::json::string(std::get<std::string_view>(v));
            }
        }
        default: return nullptr;
        }
    }
    // A JSON object written as a map or as a string of JSON text.
    boost::json::object json_object(const field& f, const char* what) {
        if (f.value.IsMap()) return to_json(f.value, f.depth).as_object();
        if (f.value.IsScalar()) {
            boost::system::error_code ec;
            boost::json::value v = boost::json::parse(text(f), ec);
            if (ec) fail(offset(f), "'" + f.name + "' holds text that is not JSON (" + ec.message() + ")");
            if (!v.is_object()) fail(offset(f), "'" + f.name + "' expects " + what + ", found JSON text that is not an object");
            return std::move(v.as_object());
        }
        expected(f, what);
    }

    std::string_view src_;
    std::string file_;
    const yaml_options& opt_;
    std::size_t values_ = 0;
};

}  // namespace parley::detail

#endif
