// parley/jinja/detail/parser.hpp: the template parser (constexpr), Jinja2's grammar.
#ifndef PARLEY_JINJA_DETAIL_PARSER_HPP
#define PARLEY_JINJA_DETAIL_PARSER_HPP

#include <parley/jinja/detail/ast.hpp>
#include <parley/jinja/detail/bigint.hpp>
#include <parley/jinja/detail/lexer.hpp>

#include <cstdint>
#include <string_view>
#include <vector>

namespace parley::jinja::detail {

/// Appends the UTF-8 encoding of a code point (surrogates are encoded as is).
template <class Out>
constexpr void put_utf8(Out& out, std::uint32_t cp) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else {
        out.push_back(static_cast<char>(0xf0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    }
}

/// Turns a normalised source into a `program`. Errors are recorded, not thrown, so that the
/// parser runs unchanged in constant evaluation; after the first error it stops.
class parser {
public:
    static constexpr unsigned max_depth = 200;

    constexpr parser(std::string_view src, const syntax_options& opt) : s_(src), opt_(opt) {}

    /// Parses the whole source into `p`. Returns false on error (see error()).
    constexpr bool run(program& p) {
        p_ = &p;
        // room for what real templates need (about a token per 4 bytes of source, a node per 7,
        // a pool byte per 1.5), so that the vectors rarely grow: growing copies every element,
        // which is most of a parse's cost in constant evaluation
        const std::size_t n = s_.size();
        toks_.reserve(n / 3 + 8);
        p.nodes.reserve(n / 5 + 8);
        p.lists.reserve(n / 16 + 8);
        p.pool.reserve(n + 8);
        p.symbols.reserve(n / 32 + 16);
        lexer lx(s_, opt_);
        if (!lx.run(toks_)) {
            err_ = lx.error();
            return false;
        }
        p.root = subparse(nullptr, 0);
        if (ok() && cur().type != tk::eof) fail_here("unexpected ", "");
        return ok();
    }

    constexpr const syntax_error& error() const noexcept { return err_; }

private:
    // ---- token stream -------------------------------------------------------------------------
    constexpr const token& cur() const { return toks_[i_]; }
    constexpr const token& look(std::size_t k = 1) const {
        return i_ + k < toks_.size() ? toks_[i_ + k] : toks_.back();
    }
    constexpr void next() {
        if (i_ + 1 < toks_.size()) ++i_;
    }
    constexpr std::string_view text(const token& t) const { return s_.substr(t.pos, t.len); }
    constexpr bool is_name(const token& t, std::string_view n) const { return t.type == tk::name && text(t) == n; }
    constexpr bool ok() const { return err_.what == nullptr; }

    constexpr void fail(std::uint32_t pos, const char* what, std::uint32_t ap = 0, std::uint32_t al = 0,
                        const char* what2 = nullptr) {
        if (!ok()) return;
        err_ = {pos, what, ap, al, what2};
        i_ = toks_.size() - 1;  // jump to eof: every loop ends
    }
    // "<what>'<current token>'<what2>", or "<what>end of template"
    constexpr void fail_here(const char* what, const char* what2) {
        const token& t = cur();
        if (t.type == tk::eof) {
            fail(t.pos, what, 0, 0, "end of template");
            return;
        }
        fail(t.pos, what, t.pos, t.len, what2);
    }
    constexpr bool expect(tk type, const char* what) {
        if (cur().type == type) {
            next();
            return true;
        }
        fail_here(what, nullptr);
        return false;
    }
    constexpr bool expect_name(std::string_view n, const char* what) {
        if (is_name(cur(), n)) {
            next();
            return true;
        }
        fail_here(what, nullptr);
        return false;
    }

    // ---- building -----------------------------------------------------------------------------
    constexpr std::uint32_t add(node n) {
        p_->nodes.push_back(n);
        return static_cast<std::uint32_t>(p_->nodes.size() - 1);
    }
    constexpr std::uint32_t add(nk kind, std::uint32_t pos) {
        node n;
        n.kind = kind;
        n.pos = pos;
        return add(n);
    }
    constexpr node& at(std::uint32_t i) { return p_->nodes[i]; }

    // a list node of `kind` holding the given children
    constexpr std::uint32_t make_list(nk kind, std::uint32_t pos, const std::vector<std::uint32_t>& items) {
        node n;
        n.kind = kind;
        n.pos = pos;
        n.a = static_cast<std::uint32_t>(p_->lists.size());
        n.b = static_cast<std::uint32_t>(items.size());
        for (auto x : items) p_->lists.push_back(x);
        return add(n);
    }

    constexpr std::uint32_t intern(std::string_view name) {
        for (std::uint32_t k = 0; k < p_->symbols.size(); ++k)
            if (p_->sym_name(k) == name) return k;
        const auto off = static_cast<std::uint32_t>(p_->pool.size());
        for (char c : name) p_->pool.push_back(c);
        p_->symbols.push_back({off, static_cast<std::uint32_t>(name.size())});
        return static_cast<std::uint32_t>(p_->symbols.size() - 1);
    }

    // ---- statements ---------------------------------------------------------------------------
    struct end_set {
        const std::string_view* names;
        std::size_t count;
        constexpr bool has(std::string_view n) const {
            for (std::size_t k = 0; k < count; ++k)
                if (names[k] == n) return true;
            return false;
        }
    };

    // Statements up to one of the end tags (current token is then that tag's name), or to eof.
    constexpr std::uint32_t subparse(const end_set* ends, std::uint32_t pos) {
        std::vector<std::uint32_t> body;
        while (ok() && cur().type != tk::eof) {
            const token t = cur();
            if (t.type == tk::data) {
                node n;
                n.kind = nk::text;
                n.pos = t.pos;
                n.a = t.pos;
                n.b = t.len;
                body.push_back(add(n));
                next();
            } else if (t.type == tk::var_begin) {
                next();
                const std::uint32_t e = parse_tuple(false, true, false);
                std::uint32_t pr = add(nk::print, t.pos);
                at(pr).a = e;
                body.push_back(pr);
                expect(tk::var_end, "expected '}}', got ");
            } else {  // block_begin
                next();
                if (ends && cur().type == tk::name && ends->has(text(cur()))) return make_list(nk::stmts, pos, body);
                const std::uint32_t st = parse_statement();
                if (st != none) body.push_back(st);
                expect(tk::block_end, "expected '%}', got ");
            }
        }
        if (ends && ok()) fail(static_cast<std::uint32_t>(s_.size()), end_message(*ends));
        return make_list(nk::stmts, pos, body);
    }

    static constexpr const char* end_message(const end_set& e) {
        const std::string_view last = e.names[e.count - 1];
        if (last == "endfor") return "unexpected end of template, expected 'endfor'";
        if (last == "endif") return "unexpected end of template, expected 'endif'";
        if (last == "endmacro") return "unexpected end of template, expected 'endmacro'";
        if (last == "endset") return "unexpected end of template, expected 'endset'";
        if (last == "endcall") return "unexpected end of template, expected 'endcall'";
        if (last == "endfilter") return "unexpected end of template, expected 'endfilter'";
        if (last == "endwith") return "unexpected end of template, expected 'endwith'";
        if (last == "endblock") return "unexpected end of template, expected 'endblock'";
        if (last == "endautoescape") return "unexpected end of template, expected 'endautoescape'";
        return "unexpected end of template";
    }

    // After the tag's own expressions: `%}` then the body up to an end tag; leaves the end tag
    // name as the current token (or consumes it when drop is set).
    constexpr std::uint32_t parse_body(const end_set& ends, bool drop) {
        if (cur().type == tk::colon) next();
        const std::uint32_t pos = cur().pos;
        expect(tk::block_end, "expected '%}', got ");
        const std::uint32_t body = subparse(&ends, pos);
        if (drop) next();
        return body;
    }

    constexpr std::uint32_t parse_statement() {
        const token t = cur();
        if (t.type != tk::name) {
            fail_here("tag name expected, got ", nullptr);
            return none;
        }
        if (++depth_ > max_depth) {
            fail(t.pos, "blocks nested too deeply");
            return none;
        }
        const std::string_view n = text(t);
        std::uint32_t r = none;
        if (n == "for") r = parse_for();
        else if (n == "if") r = parse_if();
        else if (n == "set") r = parse_set();
        else if (n == "macro") r = parse_macro();
        else if (n == "call") r = parse_call_block();
        else if (n == "filter") r = parse_filter_block();
        else if (n == "with") r = parse_with();
        else if (n == "block") r = parse_block();
        else if (n == "autoescape") r = parse_autoescape();
        else if (n == "print") {
            next();
            r = add(nk::print, t.pos);
            const std::uint32_t e = parse_tuple(false, true, false);
            at(r).a = e;
        } else if ((n == "break" || n == "continue") && opt_.loop_controls) {
            if (loop_depth_ == 0) {
                fail(t.pos, n == "break" ? "'break' outside of a loop" : "'continue' outside of a loop");
            }
            next();
            r = add(n == "break" ? nk::break_ : nk::continue_, t.pos);
        } else if (n == "extends" || n == "include" || n == "import" || n == "from") {
            fail(t.pos, "tag ", t.pos, t.len, " needs a template loader, which this environment does not have");
        } else {
            fail(t.pos, "unknown tag ", t.pos, t.len, end_hint());
        }
        --depth_;
        return r;
    }

    constexpr const char* end_hint() const {
        return open_ == 0 ? nullptr : ", a block is still open (expected its end tag)";
    }

    constexpr std::uint32_t parse_for() {
        const std::uint32_t pos = cur().pos;
        next();
        ++for_nesting_;
        const std::uint32_t target = parse_assign_target(true, false, false);
        expect_name("in", "expected 'in', got ");
        const std::uint32_t iter = parse_tuple(false, false, false);
        std::uint32_t test = none;
        if (is_name(cur(), "if")) {
            next();
            test = parse_expression(true);
        }
        std::uint8_t flags = 0;
        if (is_name(cur(), "recursive")) {
            next();
            flags |= flag_recursive;
        }
        constexpr std::string_view body_end[] = {"else", "endfor"};
        ++open_;
        ++loop_depth_;
        const std::uint32_t body = parse_body({body_end, 2}, false);
        --loop_depth_;
        std::uint32_t else_ = none;
        if (ok() && is_name(cur(), "else")) {
            next();
            constexpr std::string_view else_end[] = {"endfor"};
            else_ = parse_body({else_end, 1}, true);
        } else {
            next();
        }
        --open_;
        --for_nesting_;
        node n;
        n.kind = nk::for_;
        n.pos = pos;
        n.a = target;
        n.b = iter;
        n.c = test;
        n.d = body;
        n.e = else_;
        n.flags = flags;
        return add(n);
    }

    constexpr std::uint32_t parse_if() {
        const std::uint32_t pos = cur().pos;
        next();
        const std::uint32_t test = parse_tuple(false, false, false);
        constexpr std::string_view ends[] = {"elif", "else", "endif"};
        ++open_;
        const std::uint32_t body = parse_body({ends, 3}, false);
        --open_;
        std::uint32_t else_ = none;
        if (ok()) {
            if (is_name(cur(), "elif")) {
                else_ = parse_if();  // consumes through endif
                node n;
                n.kind = nk::if_;
                n.pos = pos;
                n.a = test;
                n.b = body;
                n.c = else_;
                return add(n);
            }
            if (is_name(cur(), "else")) {
                next();
                constexpr std::string_view e2[] = {"endif"};
                ++open_;
                else_ = parse_body({e2, 1}, false);
                --open_;
            }
            next();  // endif
        }
        node n;
        n.kind = nk::if_;
        n.pos = pos;
        n.a = test;
        n.b = body;
        n.c = else_;
        return add(n);
    }

    constexpr std::uint32_t parse_set() {
        const std::uint32_t pos = cur().pos;
        next();
        const std::uint32_t target = parse_assign_target(true, false, true);
        if (cur().type == tk::assign) {
            next();
            node n;
            n.kind = nk::set;
            n.pos = pos;
            n.a = target;
            n.b = parse_tuple(false, true, false);
            return add(n);
        }
        const std::uint32_t filt = cur().type == tk::pipe ? parse_filter(none, false) : none;
        constexpr std::string_view ends[] = {"endset"};
        ++open_;
        const std::uint32_t body = parse_body({ends, 1}, true);
        --open_;
        node n;
        n.kind = nk::set_block;
        n.pos = pos;
        n.a = target;
        n.b = body;
        n.c = filt;
        return add(n);
    }

    constexpr std::uint32_t parse_signature() {
        const std::uint32_t pos = cur().pos;
        std::vector<std::uint32_t> params;
        bool defaults = false;
        expect(tk::lparen, "expected '(', got ");
        while (ok() && cur().type != tk::rparen) {
            if (!params.empty()) expect(tk::comma, "expected ',' or ')', got ");
            if (!ok()) break;
            if (cur().type != tk::name) {
                fail_here("expected a parameter name, got ", nullptr);
                break;
            }
            node prm;
            prm.kind = nk::param;
            prm.pos = cur().pos;
            prm.sym = intern(text(cur()));
            for (const std::uint32_t other : params)
                if (at(other).sym == prm.sym) fail(prm.pos, "duplicate parameter ", cur().pos, cur().len);
            next();
            if (cur().type == tk::assign) {
                next();
                prm.a = parse_expression(true);
                defaults = true;
            } else if (defaults) {
                fail(prm.pos, "non-default argument follows default argument");
            }
            params.push_back(add(prm));
        }
        expect(tk::rparen, "expected ')', got ");
        return make_list(nk::stmts, pos, params);
    }

    // Jinja2: a body that uses `caller` gets it from the call block, so an explicit `caller`
    // parameter must have a default.
    constexpr void check_caller_param(std::uint32_t params, std::uint8_t uses) {
        if (!ok() || !(uses & flag_uses_caller) || params == none) return;
        const node& list = at(params);
        for (std::uint32_t k = 0; k < list.b; ++k) {
            const node& prm = at(p_->lists[list.a + k]);
            if (prm.a == none && p_->sym_name(prm.sym) == "caller")
                fail(prm.pos, "the 'caller' parameter needs a default (the body calls caller())");
        }
    }

    // The body of a macro or call block, up to its end tag: a scope of its own for the names
    // caller/varargs/kwargs (whose uses go to `flags`) and outside any loop for break/continue.
    constexpr std::uint32_t parse_function_body(const end_set& ends, std::uint32_t params, std::uint8_t& flags) {
        const std::uint8_t outer_uses = uses_;
        const unsigned outer_loops = loop_depth_;
        uses_ = 0;
        loop_depth_ = 0;
        ++open_;
        const std::uint32_t body = parse_body(ends, true);
        --open_;
        flags = uses_;
        uses_ = static_cast<std::uint8_t>(outer_uses | flags);
        loop_depth_ = outer_loops;
        check_caller_param(params, flags);
        return body;
    }

    constexpr std::uint32_t parse_macro() {
        const std::uint32_t pos = cur().pos;
        next();
        if (cur().type != tk::name) {
            fail_here("expected a macro name, got ", nullptr);
            return none;
        }
        node n;
        n.kind = nk::macro;
        n.pos = pos;
        n.sym = intern(text(cur()));
        next();
        n.a = parse_signature();
        constexpr std::string_view ends[] = {"endmacro"};
        n.b = parse_function_body({ends, 1}, n.a, n.flags);
        return add(n);
    }

    constexpr std::uint32_t parse_call_block() {
        const std::uint32_t pos = cur().pos;
        next();
        node n;
        n.kind = nk::call_block;
        n.pos = pos;
        if (cur().type == tk::lparen) {
            n.b = parse_signature();
        } else {
            n.b = make_list(nk::stmts, pos, {});
        }
        n.a = parse_expression(true);
        if (ok() && at(n.a).kind != nk::call) fail(at(n.a).pos, "expected a call after 'call'");
        constexpr std::string_view ends[] = {"endcall"};
        n.c = parse_function_body({ends, 1}, n.b, n.flags);
        return add(n);
    }

    constexpr std::uint32_t parse_filter_block() {
        const std::uint32_t pos = cur().pos;
        next();
        node n;
        n.kind = nk::filter_block;
        n.pos = pos;
        n.a = parse_filter(none, true);
        constexpr std::string_view ends[] = {"endfilter"};
        ++open_;
        n.b = parse_body({ends, 1}, true);
        --open_;
        return add(n);
    }

    constexpr std::uint32_t parse_with() {
        const std::uint32_t pos = cur().pos;
        next();
        std::vector<std::uint32_t> assigns;
        while (ok() && cur().type != tk::block_end) {
            if (!assigns.empty()) expect(tk::comma, "expected ',', got ");
            node st;
            st.kind = nk::set;
            st.pos = cur().pos;
            // `with` names are parameters of the block's scope, not assignments: `loop` is allowed
            const unsigned fors = for_nesting_;
            for_nesting_ = 0;
            st.a = parse_assign_target(true, false, false);
            for_nesting_ = fors;
            expect(tk::assign, "expected '=', got ");
            st.b = parse_expression(true);
            assigns.push_back(add(st));
        }
        node n;
        n.kind = nk::with;
        n.pos = pos;
        n.a = make_list(nk::stmts, pos, assigns);
        constexpr std::string_view ends[] = {"endwith"};
        ++open_;
        n.b = parse_body({ends, 1}, true);
        --open_;
        return add(n);
    }

    constexpr std::uint32_t parse_block() {
        const std::uint32_t pos = cur().pos;
        next();
        if (cur().type != tk::name) {
            fail_here("expected a block name, got ", nullptr);
            return none;
        }
        node n;
        n.kind = nk::block;
        n.pos = pos;
        const token name_tok = cur();
        n.sym = intern(text(name_tok));
        for (const std::uint32_t b : blocks_) {  // (Jinja2 refuses the template)
            if (b == n.sym) {
                fail(name_tok.pos, "block defined twice: ", name_tok.pos, name_tok.len);
                return none;
            }
        }
        blocks_.push_back(n.sym);
        next();
        if (is_name(cur(), "scoped")) {
            n.flags |= flag_block_scoped;
            next();
        }
        if (is_name(cur(), "required")) {
            n.flags |= flag_block_required;
            next();
        }
        constexpr std::string_view ends[] = {"endblock"};
        ++open_;
        n.a = parse_body({ends, 1}, true);
        --open_;
        if (ok() && (n.flags & flag_block_required)) {  // only whitespace and comments
            const node& body = at(n.a);
            for (std::uint32_t k = 0; k < body.b; ++k) {
                const node& item = at(p_->lists[body.a + k]);
                bool blank = item.kind == nk::text && item.b > 0;
                for (std::uint32_t j = 0; blank && j < item.b;) {
                    const std::size_t w = space_at(s_, item.a + j);
                    blank = w != 0;
                    j += static_cast<std::uint32_t>(w);
                }
                if (!blank) {
                    fail(item.pos, "required blocks can only contain comments or whitespace");
                    return none;
                }
            }
        }
        if (ok() && cur().type == tk::name) {
            if (text(cur()) != text(name_tok)) fail_here("mismatched block name ", nullptr);
            next();
        }
        return add(n);
    }

    constexpr std::uint32_t parse_autoescape() {
        const std::uint32_t pos = cur().pos;
        next();
        node n;
        n.kind = nk::autoescape;
        n.pos = pos;
        n.a = parse_expression(true);
        constexpr std::string_view ends[] = {"endautoescape"};
        ++open_;
        n.b = parse_body({ends, 1}, true);
        --open_;
        return add(n);
    }

    // ---- assignment targets -------------------------------------------------------------------
    constexpr std::uint32_t parse_assign_target(bool with_tuple, bool name_only, bool with_namespace) {
        std::uint32_t target;
        if (name_only) {
            if (cur().type != tk::name) {
                fail_here("expected a name, got ", nullptr);
                return none;
            }
            target = add(nk::name, cur().pos);
            at(target).sym = intern(text(cur()));
            next();
        } else if (with_tuple) {
            target = parse_tuple(true, true, false, with_namespace);
        } else {
            target = parse_primary(with_namespace);
        }
        if (ok() && !can_assign(target)) fail(at(target).pos, "cannot assign to this expression");
        if (ok() && for_nesting_ > 0) check_loop_store(target);
        return target;
    }

    // Jinja2 refuses an assignment to `loop` anywhere in a for statement (target or body).
    constexpr void check_loop_store(std::uint32_t target) {
        const node& x = at(target);
        if (x.kind == nk::name && p_->sym_name(x.sym) == "loop") {
            fail(x.pos, "cannot assign to the special variable 'loop' inside a for loop");
        } else if (x.kind == nk::tuple) {
            for (std::uint32_t k = 0; k < x.b; ++k) check_loop_store(p_->lists[x.a + k]);
        }
    }

    constexpr bool can_assign(std::uint32_t n) const {
        const node& x = p_->nodes[n];
        if (x.kind == nk::name || x.kind == nk::nsref) {
            if (x.kind == nk::name) {
                const std::string_view s = p_->sym_name(x.sym);
                if (s == "true" || s == "false" || s == "none" || s == "True" || s == "False" || s == "None")
                    return false;
            }
            return true;
        }
        if (x.kind == nk::tuple) {
            for (std::uint32_t k = 0; k < x.b; ++k)
                if (!can_assign(p_->lists[x.a + k])) return false;
            return true;
        }
        return false;
    }

    // ---- expressions --------------------------------------------------------------------------
    // Jinja2 3.1 passes a loop's extra end words ("in" after a target, "recursive" after the
    // iterable) in a way that never matches, so only these tokens end a tuple: a trailing comma
    // in `for a, in x` makes `in` the next item (and the template an error), as there.
    constexpr bool is_tuple_end() const {
        const tk t = cur().type;
        return t == tk::var_end || t == tk::block_end || t == tk::rparen || t == tk::eof;
    }

    constexpr std::uint32_t parse_tuple(bool simplified, bool with_condexpr, bool explicit_parens,
                                        bool with_namespace = false) {
        const std::uint32_t pos = cur().pos;
        std::vector<std::uint32_t> items;
        bool is_tuple = false;
        while (ok()) {
            if (!items.empty()) expect(tk::comma, "expected ',', got ");
            if (!ok() || is_tuple_end()) break;
            items.push_back(simplified ? parse_primary(with_namespace) : parse_expression(with_condexpr));
            if (cur().type == tk::comma) {
                is_tuple = true;
            } else {
                break;
            }
        }
        if (!ok()) return none;
        if (!is_tuple) {
            if (!items.empty()) return items[0];
            if (!explicit_parens) {
                fail_here("expected an expression, got ", nullptr);
                return none;
            }
        }
        return make_list(nk::tuple, pos, items);
    }

    constexpr std::uint32_t parse_expression(bool with_condexpr) {
        if (++depth_ > max_depth) {
            fail(cur().pos, "expression nested too deeply");
            return none;
        }
        const std::uint32_t r = with_condexpr ? parse_condexpr() : parse_or();
        --depth_;
        return r;
    }

    constexpr std::uint32_t parse_condexpr() {
        const std::uint32_t pos = cur().pos;
        std::uint32_t e1 = parse_or();
        while (ok() && is_name(cur(), "if")) {
            next();
            node n;
            n.kind = nk::condexpr;
            n.pos = pos;
            n.a = parse_or();
            n.b = e1;
            if (is_name(cur(), "else")) {
                next();
                n.c = parse_expression(true);  // counted against the nesting limit
            }
            e1 = add(n);
        }
        return e1;
    }

    constexpr std::uint32_t binary(nk kind, std::uint32_t pos, std::uint32_t l, std::uint32_t r, op o = op::add) {
        node n;
        n.kind = kind;
        n.oper = o;
        n.pos = pos;
        n.a = l;
        n.b = r;
        return add(n);
    }

    constexpr std::uint32_t parse_or() {
        std::uint32_t l = parse_and();
        while (ok() && is_name(cur(), "or")) {
            const std::uint32_t pos = cur().pos;
            next();
            l = binary(nk::or_, pos, l, parse_and());
        }
        return l;
    }
    constexpr std::uint32_t parse_and() {
        std::uint32_t l = parse_not();
        while (ok() && is_name(cur(), "and")) {
            const std::uint32_t pos = cur().pos;
            next();
            l = binary(nk::and_, pos, l, parse_not());
        }
        return l;
    }
    constexpr std::uint32_t parse_not() {
        if (is_name(cur(), "not")) {
            const std::uint32_t pos = cur().pos;
            next();
            if (++depth_ > max_depth) {
                fail(pos, "expression nested too deeply");
                return none;
            }
            const std::uint32_t r = add(nk::not_, pos);
            const std::uint32_t x = parse_not();
            at(r).a = x;
            --depth_;
            return r;
        }
        return parse_compare();
    }
    constexpr std::uint32_t parse_compare() {
        const std::uint32_t pos = cur().pos;
        const std::uint32_t first = parse_math1();
        std::vector<std::uint32_t> ops;
        while (ok()) {
            op o{};
            const tk t = cur().type;
            const std::uint32_t opos = cur().pos;
            if (t == tk::eq) o = op::eq;
            else if (t == tk::ne) o = op::ne;
            else if (t == tk::lt) o = op::lt;
            else if (t == tk::lteq) o = op::lteq;
            else if (t == tk::gt) o = op::gt;
            else if (t == tk::gteq) o = op::gteq;
            else if (is_name(cur(), "in")) o = op::in;
            else if (is_name(cur(), "not") && is_name(look(), "in")) {
                o = op::notin;
                next();
            } else {
                break;
            }
            next();
            node n;
            n.kind = nk::operand;
            n.oper = o;
            n.pos = opos;
            n.a = parse_math1();
            ops.push_back(add(n));
        }
        if (ops.empty()) return first;
        node n;
        n.kind = nk::compare;
        n.pos = pos;
        n.a = first;
        n.b = static_cast<std::uint32_t>(p_->lists.size());
        n.c = static_cast<std::uint32_t>(ops.size());
        for (auto x : ops) p_->lists.push_back(x);
        return add(n);
    }
    constexpr std::uint32_t parse_math1() {
        std::uint32_t l = parse_concat();
        while (ok() && (cur().type == tk::add || cur().type == tk::sub)) {
            const op o = cur().type == tk::add ? op::add : op::sub;
            const std::uint32_t pos = cur().pos;
            next();
            l = binary(nk::binop, pos, l, parse_concat(), o);
        }
        return l;
    }
    constexpr std::uint32_t parse_concat() {
        const std::uint32_t pos = cur().pos;
        std::vector<std::uint32_t> items{parse_math2()};
        while (ok() && cur().type == tk::tilde) {
            next();
            items.push_back(parse_math2());
        }
        if (items.size() == 1) return items[0];
        return make_list(nk::concat, pos, items);
    }
    constexpr std::uint32_t parse_math2() {
        std::uint32_t l = parse_pow();
        while (ok()) {
            const tk t = cur().type;
            op o{};
            if (t == tk::mul) o = op::mul;
            else if (t == tk::div) o = op::div;
            else if (t == tk::floordiv) o = op::floordiv;
            else if (t == tk::mod) o = op::mod;
            else break;
            const std::uint32_t pos = cur().pos;
            next();
            l = binary(nk::binop, pos, l, parse_pow(), o);
        }
        return l;
    }
    constexpr std::uint32_t parse_pow() {
        std::uint32_t l = parse_unary(true);
        while (ok() && cur().type == tk::pow) {
            const std::uint32_t pos = cur().pos;
            next();
            l = binary(nk::binop, pos, l, parse_unary(true), op::pow);
        }
        return l;
    }
    constexpr std::uint32_t parse_unary(bool with_filter) {
        const token t = cur();
        std::uint32_t n;
        if (t.type == tk::sub || t.type == tk::add) {
            next();
            if (++depth_ > max_depth) {
                fail(t.pos, "expression nested too deeply");
                return none;
            }
            n = add(t.type == tk::sub ? nk::neg : nk::pos, t.pos);
            const std::uint32_t x = parse_unary(false);
            at(n).a = x;
            --depth_;
        } else {
            n = parse_primary(false);
        }
        n = parse_postfix(n);
        if (with_filter) n = parse_filter_expr(n);
        return n;
    }

    constexpr std::uint32_t parse_primary(bool with_namespace) {
        const token t = cur();
        if (!ok()) return none;
        if (t.type == tk::name) {
            const std::string_view v = text(t);
            std::uint32_t n;
            if (v == "true" || v == "True") n = add(nk::k_true, t.pos);
            else if (v == "false" || v == "False") n = add(nk::k_false, t.pos);
            else if (v == "none" || v == "None") n = add(nk::k_none, t.pos);
            else if (with_namespace && look().type == tk::dot && look(2).type == tk::name) {
                n = add(nk::nsref, t.pos);
                at(n).sym = intern(v);
                next();
                next();
                at(n).sym2 = intern(text(cur()));
            } else {
                n = add(nk::name, t.pos);
                at(n).sym = intern(v);
                if (v == "caller") uses_ |= flag_uses_caller;
                else if (v == "varargs") uses_ |= flag_uses_varargs;
                else if (v == "kwargs") uses_ |= flag_uses_kwargs;
            }
            next();
            return n;
        }
        if (t.type == tk::string) {
            node n;
            n.kind = nk::k_str;
            n.pos = t.pos;
            n.a = static_cast<std::uint32_t>(p_->pool.size());
            while (ok() && cur().type == tk::string) {
                unescape(cur());
                next();
            }
            n.b = static_cast<std::uint32_t>(p_->pool.size()) - n.a;
            return add(n);
        }
        if (t.type == tk::integer) {
            next();
            return int_literal(t);
        }
        if (t.type == tk::floating) {
            next();
            node n;
            n.kind = nk::k_float;
            n.pos = t.pos;
            n.a = static_cast<std::uint32_t>(p_->pool.size());
            for (char c : text(t))
                if (c != '_') p_->pool.push_back(c);
            n.b = static_cast<std::uint32_t>(p_->pool.size()) - n.a;
            return add(n);
        }
        if (t.type == tk::lparen) {
            next();
            const std::uint32_t n = parse_tuple(false, true, true);
            expect(tk::rparen, "expected ')', got ");
            return n;
        }
        if (t.type == tk::lbracket) {
            next();
            std::vector<std::uint32_t> items;
            while (ok() && cur().type != tk::rbracket) {
                if (!items.empty()) expect(tk::comma, "expected ',' or ']', got ");
                if (!ok() || cur().type == tk::rbracket) break;
                items.push_back(parse_expression(true));
            }
            expect(tk::rbracket, "expected ']', got ");
            return make_list(nk::list, t.pos, items);
        }
        if (t.type == tk::lbrace) {
            next();
            std::vector<std::uint32_t> items;
            while (ok() && cur().type != tk::rbrace) {
                if (!items.empty()) expect(tk::comma, "expected ',' or '}', got ");
                if (!ok() || cur().type == tk::rbrace) break;
                items.push_back(parse_expression(true));
                expect(tk::colon, "expected ':', got ");
                items.push_back(parse_expression(true));
            }
            expect(tk::rbrace, "expected '}', got ");
            return make_list(nk::dict, t.pos, items);
        }
        fail_here("unexpected ", nullptr);
        return none;
    }

    constexpr std::uint32_t parse_postfix(std::uint32_t n) {
        while (ok()) {
            const tk t = cur().type;
            if (t == tk::dot || t == tk::lbracket) n = parse_subscript(n);
            else if (t == tk::lparen) n = parse_call(n);
            else break;
        }
        return n;
    }

    constexpr std::uint32_t parse_filter_expr(std::uint32_t n) {
        while (ok()) {
            const tk t = cur().type;
            if (t == tk::pipe) n = parse_filter(n, false);
            else if (is_name(cur(), "is")) n = parse_test(n);
            else if (t == tk::lparen) n = parse_call(n);
            else break;
        }
        return n;
    }

    constexpr std::uint32_t parse_subscript(std::uint32_t obj) {
        const token t = cur();
        next();
        if (t.type == tk::dot) {
            const token a = cur();
            next();
            if (a.type == tk::name) {
                node n;
                n.kind = nk::getattr;
                n.pos = a.pos;
                n.a = obj;
                n.sym = intern(text(a));
                return add(n);
            }
            if (a.type != tk::integer) {
                fail(a.pos, "expected a name or number after '.'");
                return none;
            }
            return binary(nk::getitem, a.pos, obj, int_literal(a));
        }
        // '['
        std::vector<std::uint32_t> args;
        while (ok() && cur().type != tk::rbracket) {
            if (!args.empty()) expect(tk::comma, "expected ',' or ']', got ");
            if (!ok()) break;
            args.push_back(parse_subscribed());
        }
        expect(tk::rbracket, "expected ']', got ");
        if (!ok()) return none;
        // `x[]` is Jinja2's `x[()]` (an empty tuple), `x[a, b]` its `x[(a, b)]`
        const std::uint32_t key = args.size() == 1 ? args[0] : make_list(nk::tuple, t.pos, args);
        return binary(nk::getitem, t.pos, obj, key);
    }

    constexpr std::uint32_t parse_subscribed() {
        const std::uint32_t pos = cur().pos;
        std::uint32_t parts[3] = {none, none, none};
        if (cur().type == tk::colon) {
            next();
        } else {
            const std::uint32_t e = parse_expression(true);
            if (cur().type != tk::colon) return e;
            next();
            parts[0] = e;
        }
        if (cur().type != tk::colon && cur().type != tk::rbracket && cur().type != tk::comma)
            parts[1] = parse_expression(true);
        if (cur().type == tk::colon) {
            next();
            if (cur().type != tk::rbracket && cur().type != tk::comma) parts[2] = parse_expression(true);
        }
        node n;
        n.kind = nk::slice;
        n.pos = pos;
        n.a = parts[0];
        n.b = parts[1];
        n.c = parts[2];
        return add(n);
    }

    constexpr std::uint32_t parse_call_args() {
        const std::uint32_t pos = cur().pos;
        expect(tk::lparen, "expected '(', got ");
        std::vector<std::uint32_t> pos_args, kw_args;
        std::uint32_t dyn_args = none, dyn_kwargs = none;
        bool need_comma = false;
        while (ok() && cur().type != tk::rparen) {
            if (need_comma) {
                expect(tk::comma, "expected ',' or ')', got ");
                if (!ok() || cur().type == tk::rparen) break;
            }
            if (cur().type == tk::mul) {
                if (dyn_args != none || dyn_kwargs != none) fail(cur().pos, "invalid syntax for function call expression");
                next();
                dyn_args = parse_expression(true);
            } else if (cur().type == tk::pow) {
                if (dyn_kwargs != none) fail(cur().pos, "invalid syntax for function call expression");
                next();
                dyn_kwargs = parse_expression(true);
            } else if (cur().type == tk::name && look().type == tk::assign) {
                if (dyn_kwargs != none) fail(cur().pos, "invalid syntax for function call expression");
                node kw;
                kw.kind = nk::kwarg;
                kw.pos = cur().pos;
                kw.sym = intern(text(cur()));
                for (auto prev : kw_args)
                    if (p_->nodes[prev].sym == kw.sym) fail(kw.pos, "keyword argument repeated: ", kw.pos, cur().len);
                next();
                next();
                kw.a = parse_expression(true);
                kw_args.push_back(add(kw));
            } else {
                if (dyn_args != none || dyn_kwargs != none || !kw_args.empty())
                    fail(cur().pos, "positional argument follows keyword argument");
                pos_args.push_back(parse_expression(true));
            }
            need_comma = true;
        }
        expect(tk::rparen, "expected ')', got ");
        node n;
        n.kind = nk::args;
        n.pos = pos;
        n.a = static_cast<std::uint32_t>(p_->lists.size());
        n.b = static_cast<std::uint32_t>(pos_args.size());
        for (auto x : pos_args) p_->lists.push_back(x);
        n.c = static_cast<std::uint32_t>(p_->lists.size());
        n.d = static_cast<std::uint32_t>(kw_args.size());
        for (auto x : kw_args) p_->lists.push_back(x);
        n.e = dyn_args;
        n.f = dyn_kwargs;
        return add(n);
    }

    constexpr std::uint32_t parse_call(std::uint32_t callee) {
        const std::uint32_t pos = cur().pos;
        const std::uint32_t args = parse_call_args();
        return binary(nk::call, pos, callee, args);
    }

    constexpr std::uint32_t dotted_name() {
        // name(.name)* interned as one symbol
        const std::uint32_t start = cur().pos;
        if (cur().type != tk::name) {
            fail_here("expected a name, got ", nullptr);
            return none;
        }
        std::uint32_t end = cur().pos + cur().len;
        next();
        bool dotted = false;
        while (ok() && cur().type == tk::dot && look().type == tk::name) {
            next();
            end = cur().pos + cur().len;
            next();
            dotted = true;
        }
        if (!dotted) return intern(s_.substr(start, end - start));
        // rebuild without whitespace around dots
        std::vector<char> buf;
        for (std::uint32_t k = start; k < end; ++k)
            if (!space_at(s_, k)) buf.push_back(s_[k]);
        return intern(std::string_view(buf.data(), buf.size()));
    }

    constexpr std::uint32_t parse_filter(std::uint32_t input, bool start_inline) {
        while (ok() && (cur().type == tk::pipe || start_inline)) {
            if (!start_inline) next();
            start_inline = false;
            node n;
            n.kind = nk::filter;
            n.pos = cur().pos;
            n.a = input;
            n.sym = dotted_name();
            if (cur().type == tk::lparen) n.b = parse_call_args();
            input = add(n);
        }
        return input;
    }

    constexpr std::uint32_t parse_test(std::uint32_t input) {
        next();  // 'is'
        node n;
        n.kind = nk::test;
        n.pos = cur().pos;
        n.a = input;
        if (is_name(cur(), "not")) {
            next();
            n.flags = flag_negated;
        }
        n.pos = cur().pos;
        n.sym = dotted_name();
        const tk t = cur().type;
        if (t == tk::lparen) {
            n.b = parse_call_args();
        } else if ((t == tk::name || t == tk::string || t == tk::integer || t == tk::floating || t == tk::lbracket ||
                    t == tk::lbrace) &&
                   !is_name(cur(), "else") && !is_name(cur(), "or") && !is_name(cur(), "and")) {
            if (is_name(cur(), "is")) {
                fail(cur().pos, "you cannot chain multiple tests with 'is'");
                return none;
            }
            const std::uint32_t apos = cur().pos;
            std::uint32_t arg = parse_primary(false);
            arg = parse_postfix(arg);
            node args;
            args.kind = nk::args;
            args.pos = apos;
            args.a = static_cast<std::uint32_t>(p_->lists.size());
            args.b = 1;
            p_->lists.push_back(arg);
            args.c = static_cast<std::uint32_t>(p_->lists.size());
            args.d = 0;
            n.b = add(args);
        }
        return add(n);
    }

    // ---- literals -----------------------------------------------------------------------------
    /// The node of an integer literal: k_int, or k_bigint beyond the 64-bit range.
    constexpr std::uint32_t int_literal(const token& t) {
        node n;
        n.pos = t.pos;
        bool beyond = false;
        n.ival = parse_int(t, beyond);
        if (!beyond) {
            n.kind = nk::k_int;
            return add(n);
        }
        // the digits (ASCII), without the prefix and the underscores
        const std::string_view v = text(t);
        int base = 10;
        std::size_t k = 0;
        if (v.size() > 1 && v[0] == '0' && v[1] != '_') {
            const char x = v[1];
            base = (x == 'b' || x == 'B') ? 2 : (x == 'o' || x == 'O') ? 8 : 16;
            k = 2;
        }
        n.kind = nk::k_bigint;
        n.a = static_cast<std::uint32_t>(p_->pool.size());
        std::size_t digits = 0;
        for (std::size_t len = 1; k < v.size(); k += len) {
            len = 1;
            if (v[k] == '_') continue;
            char c = v[k];
            if (static_cast<unsigned char>(c) >= 0x80) {
                const utf8_char u = utf8_at(v, k);
                len = u.len;
                c = static_cast<char>('0' + decimal_value(u.cp));
            }
            p_->pool.push_back(c);
            ++digits;
        }
        n.b = static_cast<std::uint32_t>(p_->pool.size()) - n.a;
        n.c = static_cast<std::uint32_t>(base);
        // Python reads at most 4300 decimal digits; any base: within the integers a template computes
        const std::size_t bits_per_digit = base == 2 ? 1 : base == 8 ? 3 : 4;
        if ((base == 10 && digits > max_int_str_digits) || (base != 10 && (digits - 1) * bits_per_digit > max_int_bits))
            fail(t.pos, "integer literal too large");
        return add(n);
    }

    constexpr std::int64_t parse_int(const token& t, bool& beyond) {
        const std::string_view v = text(t);
        int base = 10;
        std::size_t k = 0;
        if (v.size() > 1 && v[0] == '0') {
            const char x = v[1];
            if (x == 'b' || x == 'B') base = 2;
            else if (x == 'o' || x == 'O') base = 8;
            else if (x == 'x' || x == 'X') base = 16;
            if (base != 10) k = 2;
        }
        std::uint64_t r = 0;
        for (std::size_t len = 1; k < v.size(); k += len) {
            const char c = v[k];
            len = 1;
            if (c == '_') continue;
            int d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : c - 'A' + 10;
            if (static_cast<unsigned char>(c) >= 0x80) {  // a Unicode decimal digit (Python's int() reads them)
                const utf8_char u = utf8_at(v, k);
                len = u.len;
                d = decimal_value(u.cp);
            }
            if (r > (0x7fffffffffffffffull - static_cast<std::uint64_t>(d)) / static_cast<std::uint64_t>(base)) {
                beyond = true;  // a big integer
                return 0;
            }
            r = r * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(d);
        }
        return static_cast<std::int64_t>(r);
    }

    static constexpr int hexval(char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }

    // Python's 'unicode-escape' decoding of a string literal's body into the pool.
    constexpr void unescape(const token& t) {
        const std::string_view body = s_.substr(t.pos + 1, t.len - 2);
        auto& out = p_->pool;
        for (std::size_t k = 0; k < body.size(); ++k) {
            const char c = body[k];
            if (c != '\\' || k + 1 >= body.size()) {
                out.push_back(c);
                continue;
            }
            const char e = body[++k];
            switch (e) {
            case '\n': break;
            case '\\': out.push_back('\\'); break;
            case '\'': out.push_back('\''); break;
            case '"': out.push_back('"'); break;
            case 'a': out.push_back('\a'); break;
            case 'b': out.push_back('\b'); break;
            case 'f': out.push_back('\f'); break;
            case 'n': out.push_back('\n'); break;
            case 'r': out.push_back('\r'); break;
            case 't': out.push_back('\t'); break;
            case 'v': out.push_back('\v'); break;
            case 'x':
            case 'u':
            case 'U': {
                const std::size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
                std::uint32_t cp = 0;
                for (std::size_t j = 0; j < digits; ++j) {
                    const int h = k + 1 + j < body.size() ? hexval(body[k + 1 + j]) : -1;
                    if (h < 0) {
                        fail(t.pos, e == 'x' ? "truncated \\xXX escape in string literal"
                                             : e == 'u' ? "truncated \\uXXXX escape in string literal"
                                                        : "truncated \\UXXXXXXXX escape in string literal");
                        return;
                    }
                    cp = cp * 16 + static_cast<std::uint32_t>(h);
                }
                if (cp > 0x10ffff) {
                    fail(t.pos, "illegal Unicode character in string literal");
                    return;
                }
                k += digits;
                put_utf8(out, cp);
                break;
            }
            case 'N': fail(t.pos, "\\N{...} escapes are not supported in string literals"); return;
            default:
                if (e >= '0' && e <= '7') {
                    std::uint32_t cp = static_cast<std::uint32_t>(e - '0');
                    for (int j = 0; j < 2 && k + 1 < body.size() && body[k + 1] >= '0' && body[k + 1] <= '7'; ++j)
                        cp = cp * 8 + static_cast<std::uint32_t>(body[++k] - '0');
                    put_utf8(out, cp);
                } else {
                    out.push_back('\\');
                    out.push_back(e);
                }
            }
        }
    }

    std::string_view s_;
    syntax_options opt_;
    std::vector<token> toks_;
    std::size_t i_ = 0;
    program* p_ = nullptr;
    syntax_error err_{};
    unsigned depth_ = 0;
    unsigned open_ = 0;
    std::vector<std::uint32_t> blocks_;  // the symbols of the blocks so far (a name may be used once)
    unsigned loop_depth_ = 0;  // loops around the current statement, for break/continue (not across macros)
    unsigned for_nesting_ = 0;  // for statements being parsed, macros included
    std::uint8_t uses_ = 0;
};

/// Parses `src` (already normalised) into `p`; returns the error, empty on success.
constexpr syntax_error parse_program(std::string_view src, const syntax_options& opt, program& p) {
    parser ps(src, opt);
    ps.run(p);
    return ps.error();
}

}  // namespace parley::jinja::detail

#endif
