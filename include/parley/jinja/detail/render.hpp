// parley/jinja/detail/render.hpp: the renderer: walks a program, evaluates expressions with
// Python semantics and writes the output.
#ifndef PARLEY_JINJA_DETAIL_RENDER_HPP
#define PARLEY_JINJA_DETAIL_RENDER_HPP

#include <parley/jinja/detail/dump.hpp>
#include <parley/jinja/detail/methods.hpp>
#include <parley/jinja/detail/ops.hpp>
#include <parley/jinja/environment.hpp>

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parley::jinja::detail {

enum class flow { normal, break_, continue_ };

struct macro_obj;
struct loop_obj;
struct loop_source;

/// One render of one template.
class render_state {
public:
    render_state(const parsed_template& t, std::string& out, const value& root)
        : t_(t), p_(t.prog_), env_(*t.env_), out_(&out), root_(root), autoescape_(env_.opt.autoescape) {
        frames_.push_back({0, none, serial_++});
    }

    void run() { exec_list(p_.nodes[p_.root]); }

    // ---- services for filters, tests, methods and objects -------------------------------------
    const options& opt() const noexcept { return env_.opt; }
    const env_data& env() const noexcept { return env_; }
    std::size_t max_size() const noexcept { return env_.opt.limit.max_output; }
    bool autoescape() const noexcept { return autoescape_; }
    bool strict() const noexcept { return env_.opt.undefined == undefined_behavior::strict; }
    /// The environment's methods of one's own; null when it has none.
    const method_table* user_methods() const noexcept { return env_.methods.empty() ? nullptr : &env_.methods; }

    /// Calls any callable value.
    value call_value(const value& callee, arguments& args) {
        if (callee.is_object() && callee.object().callable()) return callee.object().call(*this, args);
        if (callee.is_undefined()) fail_undefined(callee);
        type_error(std::string("'") + type_name(callee) + "' object is not callable");
    }
    /// Applies a filter given by name at run time (`map('upper')`).
    value apply_filter(std::string_view name, const value& input, arguments& args) {
        auto it = env_.filters.find(name);
        if (it == env_.filters.end()) raise(errc::template_unknown_name, "unknown filter " + single_quoted(name));
        return run_filter(it->second, name, input, args);
    }
    /// Applies a test given by name at run time (`select('odd')`).
    bool apply_test(std::string_view name, const value& input, arguments& args) {
        auto it = env_.tests.find(name);
        if (it == env_.tests.end()) raise(errc::template_unknown_name, "unknown test " + single_quoted(name));
        return run_test(it->second, name, input, args);
    }
    value run_filter(const filter_entry& f, std::string_view name, const value& input, arguments& args) {
        if (f.builtin) {
            if (!f.params.any) check_arguments(f.params, "filter", name, args);
            return f.builtin(*this, input, args);
        }
        return run_user([&] { return f.user(input, args); });
    }
    bool run_test(const test_entry& t, std::string_view name, const value& input, arguments& args) {
        if (t.builtin) {
            if (!t.params.any) check_arguments(t.params, "test", name, args);
            return t.builtin(*this, input, args);
        }
        return run_user([&] { return t.user(input, args); });
    }
    /// Runs a filter, test or function written in C++: an exception it throws becomes an error
    /// of the template at the call (keeping a parley::error's code), with its message.
    template <class F>
    static auto run_user(F&& call) -> decltype(call()) {
        try {
            return call();
        } catch (const eval_error&) {
            throw;
        } catch (const error& e) {
            raise(static_cast<errc>(e.code().value()), e.what());
        } catch (const std::exception& e) {
            raise(errc::template_callback, e.what());
        }
    }
    PARLEY_ALWAYS_INLINE void count_iterations(std::uint64_t n) {
        iterations_ += n;
        if (PARLEY_UNLIKELY(iterations_ > env_.opt.limit.max_loop_iterations)) iteration_limit_reached();
    }
    [[noreturn]] void iteration_limit_reached() const {
        raise(errc::template_limit, "loop iteration limit reached (" + std::to_string(env_.opt.limit.max_loop_iterations) +
                                        " loop iterations and macro calls)");
    }

    /// Runs a macro body (or a call block's caller) with its arguments bound: its output, or,
    /// when `printed`, nothing, the output written where the call is printed.
    value invoke_macro(const macro_obj& m, arguments& args, bool printed = false);
    /// Runs a recursive loop again on a new iterable.
    value recurse_loop(const loop_obj& l, const value& iterable);
    /// A loop's items (see loop_source): the next one, a look at the one after the current
    /// (null when there is none), and how many are left (all of them taken).
    bool loop_take(loop_source& src, value& item);
    const value* loop_peek(loop_source& src);
    std::size_t loop_remaining(loop_source& src);

private:
    friend struct macro_obj;
    struct binding {
        std::uint32_t sym;
        value v;
    };
    struct frame {
        std::uint32_t begin;
        std::uint32_t parent;
        std::uint32_t serial;
    };

    const node& n(std::uint32_t i) const { return nodes_[i]; }
    std::uint32_t list_item(std::uint32_t begin, std::uint32_t k) const { return lists_[begin + k]; }
    std::string_view sym(std::uint32_t s) const { return p_.sym_name(s); }

    [[noreturn]] void fail_at(const node& x, errc code, std::string msg) { t_.throw_error(code, std::move(msg), x.pos); }

    // ---- scopes -------------------------------------------------------------------------------
    std::uint32_t top() const { return static_cast<std::uint32_t>(frames_.size() - 1); }
    void push_frame(std::uint32_t parent) {
        frames_.push_back({static_cast<std::uint32_t>(vars_.size()), parent, serial_++});
    }
    void pop_frame() {
        vars_.resize(frames_.back().begin);
        frames_.pop_back();
    }
    // a child scope for the lifetime of the guard
    struct scope {
        render_state& s;
        scope(render_state& st, std::uint32_t parent) : s(st) { s.push_frame(parent); }
        ~scope() { s.pop_frame(); }
        scope(const scope&) = delete;
        scope& operator=(const scope&) = delete;
    };
    std::size_t frame_end(std::uint32_t f) const {
        return f + 1 < frames_.size() ? frames_[f + 1].begin : vars_.size();
    }
    PARLEY_ALWAYS_INLINE const value* find_var(std::uint32_t s) const {
        const binding* vars = vars_.data();
        std::size_t k = vars_.size();
        for (std::uint32_t f = top();;) {
            const frame& fr = frames_[f];
            for (; k > fr.begin; --k)
                if (vars[k - 1].sym == s) return &vars[k - 1].v;
            f = fr.parent;
            if (f == none) return nullptr;
            k = frame_end(f);
        }
    }
    value lookup(std::uint32_t s) {
        if (p_.bound[s])  // (a name no statement binds is not looked for in the scopes)
            if (const value* var = find_var(s)) return *var;
        value v;
        const std::string_view name = sym(s);
        if (root_json_) {
            if (const boost::json::value* j = json_find(*root_json_, name)) return json_view(*j);
        } else if (root_.is_mapping_like()) {
            if (root_.is_dict()) {
                for (auto& [k, x] : root_.dict().items)
                    if (k.is_string() && k.as_string() == name) return x;
            } else if (root_.view_adapter()->find(root_.view_object(), name, v)) {
                return strict_if_undefined(std::move(v));
            }
        }
        // (the environment's globals of the template's names, found when it was parsed)
        if (const function_obj* f = t_.globals_[s].function) return value::borrow_object(f);
        if (const boost::json::value* g = t_.globals_[s].value) return json_view(*g);
        value u = value::undefined(undefined_form::name, name);
        return strict() ? u.as_strict() : u;
    }
    void set_var(std::uint32_t s, value v) {
        const std::uint32_t f = top();
        for (std::size_t k = frames_[f].begin; k < vars_.size(); ++k) {
            if (vars_[k].sym == s) {
                vars_[k].v = std::move(v);
                return;
            }
        }
        vars_.push_back({s, std::move(v)});
    }

    void assign(const node& target, const value& v) {
        if (target.kind == nk::name) {
            set_var(target.sym, v);
        } else if (target.kind == nk::nsref) {
            value ns = lookup(target.sym);
            if (!ns.is_object() || !ns.object().is_namespace())
                fail_at(target, errc::template_type, "cannot assign attribute on non-namespace object");
            ns.object().setattr(sym(target.sym2), v);
        } else if (v.is_list() && !v.list().generator && v.list().items.size() == target.b) {
            // tuple unpacking of a template list or tuple (`for k, v in d|items`): its items in place
            const std::vector<value>& items = v.list().items;
            for (std::uint32_t k = 0; k < target.b; ++k) assign(n(list_item(target.a, k)), items[k]);
        } else {  // tuple unpacking
            sequence items(v);
            if (items.size() != target.b) {
                fail_at(target, errc::template_value,
                        items.size() > target.b
                            ? "too many values to unpack (expected " + std::to_string(target.b) + ")"
                            : "not enough values to unpack (expected " + std::to_string(target.b) + ", got " +
                                  std::to_string(items.size()) + ")");
            }
            for (std::uint32_t k = 0; k < target.b; ++k) assign(n(list_item(target.a, k)), items[k]);
        }
    }

    // ---- output -------------------------------------------------------------------------------
    void check_output() {
        if (PARLEY_UNLIKELY(out_->size() > env_.opt.limit.max_output))
            raise(errc::template_limit,
                  "output size limit reached (" + std::to_string(env_.opt.limit.max_output) + " bytes)");
    }
    void write(const value& v) {
        if (v.is_string()) {
            if (autoescape_ && !v.is_markup()) html_escape(*out_, v.as_string());
            else out_->append(v.as_string());
        } else if (autoescape_) {
            html_escape(*out_, to_str(v));
        } else {
            append_str(*out_, v);
        }
        check_output();
    }

    // renders a statement list into a fresh string
    std::string capture(const node& body) {
        std::string buf;
        struct redirect {
            std::string*& out;
            std::string* saved;
            ~redirect() { out = saved; }
        } guard{out_, out_};
        out_ = &buf;
        exec_list(body);
        return buf;
    }
    // renders a block's body in a child scope into a fresh string
    std::string capture_scoped(const node& body) {
        scope sc(*this, top());
        return capture(body);
    }
    value captured(std::string s) {
        if (s.empty()) return value::view_of(std::string_view("", 0)).with_markup(autoescape_);  // (without allocating)
        return autoescape_ ? value::markup(std::move(s)) : value(std::move(s));
    }

    // ---- statements ---------------------------------------------------------------------------
    flow exec_list(const node& list) {
        for (std::uint32_t k = 0; k < list.b; ++k) {
            const flow f = exec(n(list_item(list.a, k)));
            if (f != flow::normal) return f;
        }
        return flow::normal;
    }


    // exec() of a print statement
    flow exec_print(const node& x) {
        try {
            print(x);
            return flow::normal;
        } catch (const eval_error& e) {
            fail_at(x, e.code, e.message);
        }
    }

    flow exec(const node& x) {
        try {
            check_stack();
            switch (x.kind) {
            case nk::text:
                out_->append(t_.source_, x.a, x.b);
                check_output();
                return flow::normal;
            case nk::print: print(x); return flow::normal;
            case nk::if_: {
                const node* cur = &x;
                for (;;) {
                    if (eval_cond(n(cur->a))) return exec_list(n(cur->b));
                    if (cur->c == none) return flow::normal;
                    const node& e = n(cur->c);
                    if (e.kind != nk::if_) return exec_list(e);
                    cur = &e;
                }
            }
            case nk::for_: {
                value iterable;
                if (json_items_loop(x, iterable)) return flow::normal;
                return exec_for(x, iterable, 0, nullptr);
            }
            case nk::set: assign(n(x.a), eval(n(x.b))); return flow::normal;
            case nk::set_block: {
                value v = captured(capture_scoped(n(x.b)));
                if (x.c != none) v = apply_filter_chain(n(x.c), v);
                assign(n(x.a), v);
                return flow::normal;
            }
            case nk::macro: {
                set_var(x.sym, make_macro(x, x.a, x.b));
                return flow::normal;
            }
            case nk::call_block: {
                const node& call = n(x.a);
                value caller = make_macro(x, x.b, x.c, true);
                value callee = eval_callee(call);
                args_lease lease(*this);
                arguments& args = lease.args;
                eval_args(n(call.b), args);
                args.push_keyword("caller", caller);
                write(call_value(callee, args));
                return flow::normal;
            }
            case nk::filter_block: {
                write(apply_filter_chain(n(x.a), captured(capture_scoped(n(x.b)))));
                return flow::normal;
            }
            case nk::with: {
                const node& assigns = n(x.a);
                std::vector<value> vals;
                for (std::uint32_t k = 0; k < assigns.b; ++k) vals.push_back(eval(n(n(list_item(assigns.a, k)).b)));
                scope sc(*this, top());
                for (std::uint32_t k = 0; k < assigns.b; ++k) assign(n(n(list_item(assigns.a, k)).a), vals[k]);
                return exec_list(n(x.b));
            }
            case nk::block: {
                // a block that is not `scoped` sees the template's own variables and the context,
                // not those of the loop, macro or `with` it is in (Jinja2 renders it as a function
                // of the template's context); a `required` one is an error when it is rendered
                if (x.flags & flag_block_required)
                    fail_at(x, errc::template_value, "required block '" + std::string(sym(x.sym)) + "' not found (no template extends this one)");
                scope sc(*this, (x.flags & flag_block_scoped) ? top() : 0);
                return exec_list(n(x.a));
            }
            case nk::autoescape: {
                // a scope of its own, as Jinja2's (a `set` inside does not leak out)
                const bool on = truthy(eval(n(x.a)));
                scope sc(*this, top());
                struct restore {
                    bool& flag;
                    bool saved;
                    ~restore() { flag = saved; }
                } guard{autoescape_, autoescape_};
                autoescape_ = on;
                return exec_list(n(x.b));
            }
            case nk::break_: return flow::break_;
            case nk::continue_: return flow::continue_;
            case nk::stmts: return exec_list(x);
            default: fail_at(x, errc::template_syntax, "not a statement");
            }
        } catch (const eval_error& e) {
            fail_at(x, e.code, e.message);
        }
    }

    // {{ a + b + c }} and {{ a ~ b ~ c }}: write the parts directly when that gives the same text.
    // `x` is the print statement: for a chain, program::chains holds its operands in order, x.c
    // of them from x.b (linked by environment::parse).
    void print(const node& x) {
        const node& e = n(x.a);
        if (e.kind == nk::k_str && !autoescape_) {  // `{{ '\n</tools>' }}`: the text, as write() would
            out_->append(p_.pool.data() + e.a, e.b);
            return check_output();
        }
        if (e.kind == nk::call && n(e.a).kind != nk::getattr) return print_call(e);
        if (e.kind == nk::filter && print_tojson(e, true)) return check_output();
        if (autoescape_ || x.c == none) return write(eval(e));
        const chain_part* const parts = p_.chains.data() + x.b;
        const chain_part* const end = parts + x.c;
        std::string& out = *out_;  // (in registers across the appends)
        const char* const pool = p_.pool.data();
        const std::size_t start = out.size();
        // The JSON object of the last member's variable, found once for the parts that follow
        // (`message['role'] + ... + message['content']`): the appends cannot rebind a variable,
        // and an operand that takes the general path forgets it.
        std::uint32_t object_sym = none;
        const boost::json::object* object = nullptr;
        for (const chain_part* part = parts; part != end; ++part) {
            if (part->kind == chain_part::literal) {
                out.append(pool + part->off, part->len);
                continue;
            }
            if (part->kind == chain_part::member) {
                if (part->sym != object_sym) {
                    object_sym = part->sym;
                    const value* var = find_var(part->sym);
                    object = var ? json_object_of(*var) : nullptr;
                }
                if (object) {
                    const boost::json::value* j = json_find(*object, {pool + part->off, part->len});
                    if (j && j->is_string()) {
                        out.append(std::string_view(j->get_string()));
                        continue;
                    }
                } else if (append_member(find_var(part->sym), {pool + part->off, part->len})) {
                    continue;
                }
            }
            if (print_other_part(e, part, part == parts, start, end)) return;
            object_sym = none;
        }
        check_output();
    }

    // A print statement that is a chain of string literals and members of one variable only
    // (`'<|im_start|>' + message['role'] + '\n' + message['content'] + ...`), in the body of a loop
    // over a JSON array that binds that variable: print_members_loop writes it from each element's
    // object without binding the variable. The chain is held as steps, each the text before a
    // member and the member's key, then the text after the last member. The loop writes into a
    // buffer of its own, appended to the output when full: a short text is copied there as one
    // block of fixed size (what follows it overwrites the rest), without a call to memcpy.
    struct member_print {
        static constexpr std::size_t max_steps = 8;
        static constexpr std::size_t block = 32;  // texts up to this long are copied as one block
        struct text {
            std::string_view s;
            std::array<char, block> padded;  // s followed by zeros, when it fits (set by set(): a
                                             // loop's member_print is not cleared up front)
            void set(std::string_view t) {
                s = t;
                if (t.size() <= block) {
                    std::copy(t.begin(), t.end(), padded.begin());
                    std::fill(padded.begin() + static_cast<std::ptrdiff_t>(t.size()), padded.end(), '\0');
                }
            }
            // copies the text to `p` (which has room for max(size, block) bytes); the end of it
            PARLEY_ALWAYS_INLINE char* copy_to(char* p) const {
                if (PARLEY_LIKELY(s.size() <= block)) std::memcpy(p, padded.data(), block);
                else std::memcpy(p, s.data(), s.size());
                return p + s.size();
            }
            std::size_t room() const noexcept { return s.size() > block ? s.size() : block; }
        };
        struct step {
            text before;  // the text before the member (empty when none)
            std::string_view key;
            std::size_t room_after = 0;  // the buffer room the texts after the member take
        };
        std::array<step, max_steps> steps;
        std::size_t count = 0;
        text tail;  // after the last member
        std::size_t room = 0;  // the buffer room the texts of one message take
    };
    // Whether the print statement `x` is such a chain of the variable `sym`; sets up `mp` if so.
    bool prints_members_of(const node& x, std::uint32_t sym, member_print& mp) const {
        if (autoescape_ || x.c == none) return false;
        std::string_view text;
        bool have_text = false;
        for (const chain_part* part = p_.chains.data() + x.b, *end = part + x.c; part != end; ++part) {
            const std::string_view s(p_.pool.data() + part->off, part->len);
            if (part->kind == chain_part::literal) {
                if (have_text) return false;  // (adjacent literals are merged when the template is parsed)
                text = s;
                have_text = true;
            } else if (part->kind == chain_part::member && part->sym == sym && mp.count < member_print::max_steps) {
                member_print::step& st = mp.steps[mp.count++];
                st.before.set(text);
                st.key = s;
                mp.room += st.before.room();
                text = {};
                have_text = false;
            } else {
                return false;
            }
        }
        if (mp.count == 0) return false;
        mp.tail.set(text);
        mp.room += mp.tail.room();
        for (std::size_t k = mp.count, after = mp.tail.room(); k-- > 0;) {
            mp.steps[k].room_after = after;
            after += mp.steps[k].before.room();
        }
        return true;
    }
    // The loop of such a print over the elements of `json` from `next`. An element that is not
    // an object with string members, whose text does not fit in the buffer, or that would pass
    // the output size limit, takes the general path (the variable bound, the print run), which
    // gives Jinja's output or error.
    void print_members_loop(const member_print& mp, const boost::json::array& json, std::size_t& next_item,
                            const node& print, std::uint32_t frame_begin) {
        // (the position, the iteration count and the limits in registers; the count is stored
        // back before anything else reads it)
        std::size_t next = next_item;
        const std::size_t size = json.size();
        std::uint64_t iterations = iterations_;
        const std::uint64_t max_iterations = env_.opt.limit.max_loop_iterations;
        const std::size_t max_output = env_.opt.limit.max_output;
        std::string& out = *out_;
        const std::size_t count = mp.count;
        constexpr std::size_t buffer_size = 8192;
        char buffer[buffer_size];
        char* p = buffer;
        std::size_t flushed = out.size();  // (the output's size, kept here)
        const auto flush = [&] {
            out.append(buffer, static_cast<std::size_t>(p - buffer));
            flushed = out.size();
            p = buffer;
        };
        while (next < size) {
            if (PARLEY_UNLIKELY(++iterations > max_iterations)) {
                flush();
                iterations_ = iterations;
                next_item = next;
                iteration_limit_reached();
            }
            const boost::json::value& element = json[next++];
            if (PARLEY_LIKELY(element.is_object())) {
                const boost::json::object& object = element.get_object();
                // Each member is copied as it is found, when it and the texts after it fit in
                // what is left of the buffer; a message that does not is tried again from an
                // empty buffer, and takes the general path if it does not fit there either.
                bool retried = false;
            again:
                if (static_cast<std::size_t>(buffer + buffer_size - p) < mp.room) flush();
                char* const begin = p;
                std::size_t k = 0;
                for (; k < count; ++k) {
                    const member_print::step& st = mp.steps[k];
                    const boost::json::value* j = json_find(object, st.key);
                    if (PARLEY_UNLIKELY(!j || !j->is_string())) break;
                    const boost::json::string& member = j->get_string();
                    const std::size_t n = member.size();
                    p = st.before.copy_to(p);
                    if (PARLEY_UNLIKELY(static_cast<std::size_t>(buffer + buffer_size - p) < n + st.room_after)) {
                        p = begin;
                        if (retried || begin == buffer) break;
                        flush();
                        retried = true;
                        goto again;
                    }
                    std::memcpy(p, member.data(), n);
                    p += n;
                }
                if (PARLEY_LIKELY(k == count)) {
                    p = mp.tail.copy_to(p);
                    if (PARLEY_LIKELY(flushed + static_cast<std::size_t>(p - buffer) <= max_output)) continue;
                }
                p = begin;  // (the general path gives the output or the error)
            }
            flush();
            iterations_ = iterations;
            next_item = next;
            vars_.resize(frame_begin + 1);
            vars_[frame_begin].v = json_view(element);
            exec_print(print);
            iterations = iterations_;
            flushed = out.size();
        }
        flush();
        iterations_ = iterations;
        next_item = next;
    }

    // Whether `f` is `input|name` of the built-in filter `name` (not one of the environment's
    // own), without arguments.
    bool builtin_filter(const node& f, std::string_view name) const {
        if (f.kind != nk::filter || f.a == none || f.b != none) return false;
        const filter_entry* entry = t_.filters_[f.sym];
        return entry && entry->builtin && same_text(sym(f.sym), name);
    }

    // `{% for k, v in d|items %}` over a JSON object, without `loop`, a loop filter or recursion:
    // the loop binds each member's key and value in place, without making the list of pairs
    // that the filter returns. For any other loop, `iterable` is set to the loop's iterable,
    // evaluated, for exec_for; false then.
    bool json_items_loop(const node& x, value& iterable) {
        const node& it = n(x.b);
        const node& target = n(x.a);
        const auto two_names = [&] {
            if (target.kind != nk::tuple || target.b != 2) return false;
            const node& k = n(list_item(target.a, 0));
            const node& v = n(list_item(target.a, 1));
            return k.kind == nk::name && v.kind == nk::name && k.sym != v.sym;
        };
        if (x.c != none || (x.flags & (flag_uses_loop | flag_recursive)) || !builtin_filter(it, "items") || !two_names()) {
            iterable = eval(it);
            return false;
        }
        const node& key_target = n(list_item(target.a, 0));
        const node& value_target = n(list_item(target.a, 1));
        const value input = eval(n(it.a));
        const boost::json::object* object = json_object_of(input);
        if (!object) {
            try {
                check_stack();
                iterable = eval_filter(it, input);
            } catch (const eval_error& e) {
                fail_at(it, e.code, e.message);
            }
            return false;
        }
        scope sc(*this, top());
        const std::size_t frame_begin = frames_.back().begin;
        const node& body = n(x.d);
        bool completed = false;  // as exec_for: `else` runs unless some iteration reached the end of the body
        for (const boost::json::key_value_pair& member : *object) {
            count_iterations(1);
            vars_.resize(frame_begin);  // (the body's own bindings do not carry over)
            vars_.push_back({key_target.sym, value::view_of(std::string_view(member.key()))});
            try {
                vars_.push_back({value_target.sym, json_view(member.value())});
            } catch (const eval_error& e) {
                fail_at(it, e.code, e.message);  // (an integer beyond the range of template integers)
            }
            const flow fl = exec_list(body);
            if (fl == flow::normal) completed = true;
            if (fl == flow::break_) break;
        }
        if (!completed && x.e != none) {
            vars_.resize(frame_begin);
            exec_list(n(x.e));
        }
        return true;
    }

    // `v|tojson`, or `v|tojson|safe` in a `~` chain or alone (where Markup changes nothing), of
    // the Hugging Face environment's built-in tojson without arguments, printed outside
    // autoescaping: the JSON is written into the output in place rather than built as a string
    // of its own, with the same text, limits and errors. False (nothing done) for anything else.
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((noinline))
#endif
    bool print_tojson(const node& x, bool markup_allowed) {
        if (autoescape_ || !env_.opt.hf_tojson) return false;
        const node* f = &x;
        if (markup_allowed && builtin_filter(*f, "safe")) f = &n(f->a);
        if (!builtin_filter(*f, "tojson")) return false;
        const value input = eval(n(f->a));
        std::string& out = *out_;
        const std::size_t start = out.size();
        try {
            check_stack();
            dump_value(out, input, hf_tojson_defaults(), 0, start + max_size());
            if (out.size() - start > max_size())
                raise(errc::template_limit, "the result of filter 'tojson' exceeds the output size limit (" +
                                                std::to_string(max_size()) + " bytes)");
        } catch (const eval_error& e) {
            fail_at(*f, e.code, e.message);
        }
        return true;
    }

    // {{ f(args) }}: a macro (or a call block's caller) writes its body's output where it is
    // printed, rather than into a string of its own that is then copied; any other callee's
    // result is written as eval() would give it.
    void print_call(const node& call) {
        try {
            check_stack();
            const value f = eval(n(call.a));
            args_lease lease(*this);
            eval_args(n(call.b), lease.args);
            if (f.is_object() && f.object().call_printed(*this, lease.args)) return;
            write(bounded(call_value(f, lease.args)));
        } catch (const eval_error& e) {
            fail_at(call, e.code, e.message);
        }
    }

    // A chain's operand that print() did not write as a plain string: written when it is one by
    // another path or when the chain is `~`; true when the rest of the chain was printed too
    // (Python's left fold of `+` from this operand on).
    bool print_other_part(const node& e, const chain_part* part, bool first, std::size_t start, const chain_part* end) {
        const node& x = n(part->node);
        // (a literal or member part that was not a plain string is not one by another path)
        if (part->kind == chain_part::other && (append_plain_string(x) || (x.kind == nk::filter && print_tojson(x, e.kind == nk::concat)))) return false;
        value v = eval(x);
        if (v.is_string() && !v.is_markup()) {
            out_->append(v.as_string());
            return false;
        }
        if (e.kind == nk::concat) {  // `~`: the text of any value
            append_str(*out_, v);
            return false;
        }
        // Python's left fold from here on: the strings written so far are its accumulator
        value acc = first ? std::move(v) : arith_at(e, op::add, value(out_->substr(start)), v);
        out_->resize(start);
        for (const chain_part* next = part + 1; next != end; ++next) acc = arith_at(e, op::add, acc, eval(n(next->node)));
        write(acc);
        return true;
    }

    // Appends the member `key` of the mapping `var` holds (a JSON object, read in place, or a C++
    // mapping, through its adapter) when it is a string that is not Markup; false (nothing
    // written) for anything else.
    PARLEY_ALWAYS_INLINE bool append_member(const value* var, std::string_view key) {
        if (!var || !var->is_view()) return false;
        const adapter* ad = var->view_adapter();
        if (ad == &json_object_adapter::instance) {
            const boost::json::value* j = json_find(*static_cast<const boost::json::object*>(var->view_object()), key);
            if (!j || !j->is_string()) return false;
            out_->append(std::string_view(j->get_string()));
            return true;
        }
        value found;
        if (ad->shape != view_shape::mapping || !ad->find(var->view_object(), key, found)) return false;
        if (!found.is_string() || found.is_markup()) return false;
        out_->append(found.as_string());
        return true;
    }

    // Appends the value of a string literal, a variable, or `var.name`, `var['key']` or `var[k]`
    // (`k` a variable holding a string) on a viewed mapping, when it is a plain string; false
    // (nothing written) for anything else, which the caller then evaluates in full. The common
    // operands of prompt templates skip eval().
    PARLEY_ALWAYS_INLINE bool append_plain_string(const node& x) {
        if (x.kind == nk::k_str) {
            out_->append(p_.pool.data() + x.a, x.b);
            return true;
        }
        if (x.kind == nk::name) {
            const value* v = find_var(x.sym);
            if (!v || !v->is_string() || v->is_markup()) return false;
            out_->append(v->as_string());
            return true;
        }
        std::string_view key;
        return member_key(x, key) && append_member(find_var(x.sym2), key);
    }

    // The key of `var.name`, `var['key']` or `var[k]` as link_members marked it (for `var[k]`,
    // when the variable `k` holds a string); false for anything else.
    PARLEY_ALWAYS_INLINE bool member_key(const node& x, std::string_view& key) const {
        if (x.flags & flag_member) {
            key = {p_.pool.data() + x.c, x.d};
            return true;
        }
        if (!(x.flags & flag_member_var)) return false;
        const value* k = find_var(x.d);
        if (!k || !k->is_string()) return false;
        key = k->as_string();
        return true;
    }

    // An element of a JSON array a loop binds: an object, the commonest, without json_view's switch.
    PARLEY_ALWAYS_INLINE static value json_element_view(const boost::json::value& element) {
        return element.is_object() ? json_view(element.get_object()) : json_view(element);
    }

    // `var.name`, `var['key']` or `var[k]` where the variable `var` holds a JSON object that has
    // that member: the member, read in place. Null for anything else, which takes the general path.
    PARLEY_ALWAYS_INLINE const boost::json::value* json_member(const node& x) const {
        std::string_view key;
        return member_key(x, key) ? json_member_of(x.sym2, key) : nullptr;
    }
    // The member `name` of the JSON object the variable `s` holds; null when the variable holds
    // anything else or the object has no such member.
    PARLEY_ALWAYS_INLINE const boost::json::value* json_member_of(std::uint32_t s, std::string_view name) const {
        const value* var = find_var(s);
        const boost::json::object* object = var ? json_object_of(*var) : nullptr;
        return object ? json_find(*object, name) : nullptr;
    }

    value arith_at(const node& at, op o, const value& a, const value& b) {
        try {
            return arith(o, a, b, max_size());
        } catch (const eval_error& err) {
            fail_at(at, err.code, err.message);
        }
    }

    flow exec_for(const node& x, const value& iterable, std::uint32_t depth, std::string* capture_into);

    value apply_filter_chain(const node& f, const value& input) {
        // the chain's innermost filter has no input node (a == none)
        value in = f.a == none ? input : apply_filter_chain(n(f.a), input);
        return eval_filter(f, in);
    }

    value make_macro(const node& x, std::uint32_t params, std::uint32_t body, bool is_caller = false);

    // ---- expressions --------------------------------------------------------------------------
public:
    value eval(const node& x) {
        // the commonest leaves, which neither recurse nor fail, without the stack check
        if (x.kind == nk::k_str) return str_const(x);
        if (x.flags & (flag_member | flag_member_var)) return eval_member(x);
        return eval_inner(x);
    }

private:
    // `var.name`, `var['key']` and `var[k]` (see link_members): a JSON object's member in place;
    // and `var.name` of an object (`loop.index`, `ns.total`) or missing from a JSON object, given
    // by get_attribute on the bound value, as eval_inner would after looking the variable up again
    value eval_member(const node& x) {
        std::string_view key;
        if (!member_key(x, key)) return eval_inner(x);
        if (const value* var = find_var(x.sym2)) {
            const boost::json::object* object = json_object_of(*var);
            const boost::json::value* j = object ? json_find(*object, key) : nullptr;
            if (j && j->is_string()) return value::view_of(std::string_view(j->get_string()));  // (the commonest, inline)
            if (j && !j->is_uint64()) return json_view(*j);
            // (a getattr so marked does not name a dict method: see link_members)
            if (x.kind == nk::getattr && (object ? !j : var->is_object()))
                return strict_if_undefined(get_attribute(*var, key, env_.opt.sandboxed, strict(), user_methods()));
        }
        return eval_inner(x);
    }

    value str_const(const node& x) const { return value::view_of(p_.str(x.a, x.b)); }
    // An undefined read from a C++ context (an empty std::optional) follows the undefined mode too.
    value strict_if_undefined(value v) const {
        if (PARLEY_UNLIKELY(v.is_undefined()) && strict() && !v.is_strict_undefined()) return v.as_strict();
        return v;
    }
    static bool is_viewed_mapping(const value& v) noexcept {
        return v.is_view() && v.view_adapter()->shape == view_shape::mapping;
    }

    // a chain of comparisons (`a == b`, `a < b <= c`, `k not in keys`)
    bool eval_compare(const node& x) {
        if (x.c == 1) {
            // `message.role == 'user'` where `message` holds a JSON object whose `role` is a
            // string: the member compared in place, with the result the loop below would give
            const node& o = n(list_item(x.b, 0));
            const node& rn = n(o.a);
            if ((o.oper == op::eq || o.oper == op::ne) && rn.kind == nk::k_str) {
                if (const boost::json::value* j = json_member(n(x.a)); j && j->is_string()) {
                    return same_text(j->get_string(), p_.str(rn.a, rn.b)) == (o.oper == op::eq);
                }
            }
        }
        value left = eval(n(x.a));
        for (std::uint32_t k = 0; k < x.c; ++k) {
            const node& o = n(list_item(x.b, k));
            // (a variable on the right, read where it is bound: nothing is evaluated
            // between its lookup and its use, so the binding stays where it is)
            const node& rn = n(o.a);
            if (rn.kind == nk::k_str && left.is_string() && (o.oper == op::eq || o.oper == op::ne)) {
                // `message.role == 'user'`: the strings compared in place
                if (same_text(left.as_string(), p_.str(rn.a, rn.b)) != (o.oper == op::eq)) return false;
                left = str_const(rn);
                continue;
            }
            const value* bound = rn.kind == nk::name && p_.bound[rn.sym] ? find_var(rn.sym) : nullptr;
            value right_value;
            if (!bound) right_value = eval(rn);
            const value& right = bound ? *bound : right_value;
            bool r;
            switch (o.oper) {
            case op::eq: r = equals(left, right); break;
            case op::ne: r = !equals(left, right); break;
            case op::lt:
            case op::lteq:
            case op::gt:
            case op::gteq: r = compare_holds(left, right, o.oper); break;
            case op::in: r = contains(right, left); break;
            default: r = !contains(right, left); break;
            }
            if (!r) return false;
            left = right;
        }
        return true;
    }

public:
    /// The truth of a condition (`if`, `elif`, a loop's filter, an inline if): `and`, `or`, `not`,
    /// tests and comparisons give their truth without making a value first. The same
    /// evaluations in the same order as truthy(eval(x)), and errors at the same node.
    bool eval_cond(const node& x) {
        switch (x.kind) {
        case nk::and_:
        case nk::or_:
        case nk::not_:
        case nk::test:
        case nk::compare: break;
        default: return truthy(eval(x));
        }
        if (x.kind == nk::and_ || x.kind == nk::or_) {
            // (`a and b` is b when a is true: the truth of b is taken where the value of the
            // whole would have been, outside the operator)
            bool left;
            try {
                check_stack();
                left = eval_cond(n(x.a));
            } catch (const eval_error& e) {
                fail_at(x, e.code, e.message);
            }
            if (left == (x.kind == nk::or_)) return left;
            return eval_cond(n(x.b));
        }
        try {
            check_stack();
            switch (x.kind) {
            case nk::not_: return !eval_cond(n(x.a));
            case nk::test: return eval_test(x) != ((x.flags & flag_negated) != 0);
            default: return eval_compare(x);
            }
        } catch (const eval_error& e) {
            fail_at(x, e.code, e.message);
        }
    }

private:
    value eval_inner(const node& x) {
        try {
            check_stack();
            switch (x.kind) {
            case nk::k_none: return value(nullptr);
            case nk::k_true: return value(true);
            case nk::k_false: return value(false);
            case nk::k_int: return value(static_cast<long long>(x.ival));
            case nk::k_bigint: return make_int(bigint::of_digits(std::string_view(p_.pool.data() + x.a, x.b), static_cast<int>(x.c), false));
            case nk::k_float: return value(x.fval);
            case nk::k_str: return str_const(x);
            case nk::name: return lookup(x.sym);
            case nk::getattr: {
                const value obj = eval(n(x.a));
                const std::string_view name = sym(x.sym);
                // the common case first: a key of a viewed mapping (JSON object, struct) that is not
                // also a dict method (a method wins over a key in Jinja's getattr)
                value found;
                if (!(x.flags & flag_dict_method) && is_viewed_mapping(obj) &&
                    obj.view_adapter()->find(obj.view_object(), name, found))
                    return strict_if_undefined(std::move(found));
                return strict_if_undefined(get_attribute(obj, name, env_.opt.sandboxed, strict(), user_methods()));
            }
            case nk::getitem: {
                const value obj = eval(n(x.a));
                const node& k = n(x.b);
                if (k.kind == nk::k_str && is_viewed_mapping(obj)) {  // `message['role']`: the item, when present
                    value found;
                    if (obj.view_adapter()->find(obj.view_object(), p_.str(k.a, k.b), found))
                        return strict_if_undefined(std::move(found));
                }
                if (k.kind == nk::slice) {
                    const value start = k.a == none ? value(nullptr) : eval(n(k.a));
                    const value stop = k.b == none ? value(nullptr) : eval(n(k.b));
                    const value step = k.c == none ? value(nullptr) : eval(n(k.c));
                    if (const boost::json::array* json = json_array_of(obj)) {
                        // `messages[1:]`: the elements viewed, into a list of new_list's
                        const boost::json::array& array = *json;
                        const slice_range at = slice_positions(static_cast<std::int64_t>(array.size()), start, stop, step);
                        value l = new_list(at.count, false);
                        std::vector<value>& items = l.list().items;
                        for (std::size_t i = 0; i < at.count; ++i) items.push_back(json_view(array[at[i]]));
                        return l;
                    }
                    return slice(obj, start, stop, step);
                }
                return strict_if_undefined(get_item(obj, eval(k), env_.opt.sandboxed, strict(), user_methods()));
            }
            case nk::call: return eval_call(x);
            case nk::filter: return eval_filter(x, eval(n(x.a)));
            case nk::test: {
                const bool r = eval_test(x);
                return value((x.flags & flag_negated) ? !r : r);
            }
            case nk::neg: return negate(eval(n(x.a)));
            case nk::pos: return unary_plus(eval(n(x.a)));
            case nk::not_: return value(!truthy(eval(n(x.a))));
            case nk::and_: {
                value l = eval(n(x.a));
                if (!truthy(l)) return l;
                return eval(n(x.b));
            }
            case nk::or_: {
                value l = eval(n(x.a));
                if (truthy(l)) return l;
                return eval(n(x.b));
            }
            case nk::binop: {
                value l = eval(n(x.a));
                value r = eval(n(x.b));
                if (x.oper == op::mod && l.is_string()) return percent_format(l, r);
                return arith(x.oper, l, r, max_size());
            }
            case nk::concat: {
                std::string s;
                bool markup = false;
                for (std::uint32_t k = 0; k < x.b; ++k) {
                    const value v = eval(n(list_item(x.a, k)));
                    if (autoescape_) {
                        markup = true;
                        if (v.is_markup()) s += v.as_string();
                        else html_escape(s, to_str(v));
                    } else {
                        append_str(s, v);
                    }
                    if (s.size() > max_size()) raise(errc::template_limit, "string concatenation would exceed the output size limit");
                }
                return markup ? value::markup(std::move(s)) : value(std::move(s));
            }
            case nk::compare: return value(eval_compare(x));
            case nk::condexpr: {
                if (eval_cond(n(x.a))) return eval(n(x.b));
                if (x.c == none) {
                    value u = value::undefined(undefined_form::hint,
                                               "the inline if-expression evaluated to false and no else section was defined.");
                    return strict() ? u.as_strict() : u;
                }
                return eval(n(x.c));
            }
            case nk::list:
            case nk::tuple: {
                value l = new_list(x.b, x.kind == nk::tuple);
                std::vector<value>& items = l.list().items;
                for (std::uint32_t k = 0; k < x.b; ++k) items.push_back(eval(n(list_item(x.a, k))));
                return l;
            }
            case nk::dict: {
                value d = value::make_dict();
                for (std::uint32_t k = 0; k + 1 < x.b; k += 2) {
                    value key = eval(n(list_item(x.a, k)));
                    value v = eval(n(list_item(x.a, k + 1)));
                    dict_set(d.dict(), std::move(key), std::move(v));
                }
                return d;
            }
            case nk::slice: type_error("a slice is only valid inside []");
            default: break;
            }
            type_error("cannot evaluate this expression");
        } catch (const eval_error& e) {
            fail_at(x, e.code, e.message);
        }
    }

    value percent_format(const value& fmt, const value& args);

    // An empty list (or tuple) with room for `n` items, for a literal: a spare list of the
    // thread's (stacks::lists) when one is held by nothing else, else a new one.
    value new_list(std::size_t n, bool tuple) {
        std::vector<value>& spare = stacks_.get().lists;
        for (const value& v : spare) {
            list_obj& l = v.list();
            if (l.refs != 1) continue;
            if (l.items.capacity() > stacks::max_list_room) std::vector<value>().swap(l.items);
            l.items.clear();
            l.items.reserve(n);
            l.tuple = tuple;
            l.group = l.generator = l.consumed = false;
            l.view_name = nullptr;
            return v;
        }
        std::vector<value> items;
        items.reserve(n);
        value l = value::make_list(std::move(items), tuple);
        if (spare.size() < stacks::max_lists) spare.push_back(l);
        return l;
    }

    value eval_callee(const node& call) {
        return eval(n(call.a));
    }

    void eval_args(const node& a, arguments& out) {
        for (std::uint32_t k = 0; k < a.b; ++k) out.push(eval(n(list_item(a.a, k))));
        if (a.e != none) {
            sequence extra(eval(n(a.e)));
            for (std::size_t k = 0; k < extra.size(); ++k) out.push(extra[k]);
        }
        for (std::uint32_t k = 0; k < a.d; ++k) {
            const node& kw = n(list_item(a.c, k));
            out.push_keyword(sym(kw.sym), eval(n(kw.a)));
        }
        if (a.f != none) {
            const value m = eval(n(a.f));
            if (!m.is_mapping_like()) type_error("argument after ** must be a mapping");
            for_each_item(m, [&](const value& k, const value& v) {
                if (!k.is_string()) type_error("keywords must be strings");
                // the key's text lives as long as the mapping value `m`, which outlives the call
                out.push_keyword(k.as_string(), v);
            });
            out.keep_alive(m);
        }
    }

    value eval_call(const node& x) {
        const node& callee = n(x.a);
        args_lease lease(*this);
        arguments& args = lease.args;
        if (callee.kind == nk::getattr) {
            // obj.method(...) without making a bound method
            const value obj = eval(n(callee.a));
            const std::string_view name = sym(callee.sym);
            eval_args(n(x.b), args);
            value result;
            if (call_method(*this, obj, name, args, result, env_.opt.sandboxed, strict())) return bounded(std::move(result), "method", name);
            if (call_user_method(*this, obj, name, args, result, user_methods())) return bounded(std::move(result), "method", name);
            // an attribute or key of that name, or the usual error (a method of one's own that
            // refused `obj` is not looked up again)
            return bounded(call_value(get_attribute(obj, name, env_.opt.sandboxed, strict()), args));
        }
        const value f = eval(callee);
        eval_args(n(x.b), args);
        return bounded(call_value(f, args));
    }

    /// `r`, unless it is a string longer than the output size limit: filters, methods and
    /// functions (a C++ one included) may build texts far longer than their input (`indent`,
    /// `tojson`, `escape`...), which is an error as soon as they return. `what` and `name` name
    /// the filter or method in the message; without them it says "the call".
    value bounded(value r, const char* what = nullptr, std::string_view name = {}) const {
        if (r.is_string() && r.as_string().size() > max_size()) [[unlikely]]
            raise(errc::template_limit, std::string("the result of ") +
                                            (what ? std::string(what) + " " + single_quoted(name) : std::string("the call")) +
                                            " exceeds the output size limit (" + std::to_string(max_size()) + " bytes)");
        return r;
    }

    value eval_filter(const node& x, const value& input) {
        const filter_entry* f = t_.filters_[x.sym];
        if (!f) fail_at(x, errc::template_unknown_name, "unknown filter " + single_quoted(sym(x.sym)));
        if (x.b == none) {
            return bounded(run_filter(*f, sym(x.sym), input, no_args_), "filter", sym(x.sym));
        }
        args_lease lease(*this);
        eval_args(n(x.b), lease.args);
        return bounded(run_filter(*f, sym(x.sym), input, lease.args), "filter", sym(x.sym));
    }

    bool eval_test(const node& x) {
        const test_entry* t = t_.tests_[x.sym];
        if (!t) fail_at(x, errc::template_unknown_name, "unknown test " + single_quoted(sym(x.sym)));
        const value input = eval(n(x.a));
        if (x.b == none) {
            return run_test(*t, sym(x.sym), input, no_args_);
        }
        args_lease lease(*this);
        eval_args(n(x.b), lease.args);
        return run_test(*t, sym(x.sym), input, lease.args);
    }

    // The scope stacks and the spare argument lists of a render, kept on the thread from one
    // render to the next with their capacity (a render inside another takes stacks of its own):
    // a render allocates none of them once the thread has rendered.
    struct stacks {
        std::vector<binding> vars;
        std::vector<frame> frames;
        std::vector<std::unique_ptr<arguments>> spare_args;
        std::size_t args_made = 0;  // argument lists made for these stacks (spare_args has room for all)
        // Lists made by list and tuple literals, each taken again by the next literal evaluated
        // once nothing else holds it (see new_list): a fresh list and a spare one that nothing
        // holds cannot be told apart.
        std::vector<value> lists;
        static constexpr std::size_t max_lists = 8;
        static constexpr std::size_t max_list_room = 64;  // a spare list keeps room for this many items
    };
    class stacks_lease {
    public:
        stacks_lease() : held_(take()) {}
        ~stacks_lease() {
            // (the bindings left, released here as the render ends)
            held_->vars.clear();
            held_->frames.clear();
            // the spare lists that nothing holds (a list kept by a function of one's own is
            // no longer spare), emptied
            std::vector<value>& lists = held_->lists;
            std::erase_if(lists, [](const value& v) {
                return v.list().refs != 1 || v.list().items.capacity() > stacks::max_list_room;
            });
            for (value& v : lists) v.list().items.clear();
            // a render that grew its stacks far does not leave them to the thread
            if (held_->vars.capacity() > 1024 || held_->frames.capacity() > 256 || held_->spare_args.size() > 64) return;
            std::vector<std::unique_ptr<stacks>>& spare = pool();
            if (spare.size() < max_spare) spare.push_back(std::move(held_));
        }
        stacks_lease(const stacks_lease&) = delete;
        stacks_lease& operator=(const stacks_lease&) = delete;
        stacks& get() const noexcept { return *held_; }

    private:
        static constexpr std::size_t max_spare = 4;  // stacks a thread keeps
        static std::vector<std::unique_ptr<stacks>>& pool() {
            thread_local std::vector<std::unique_ptr<stacks>> spare;
            return spare;
        }
        static std::unique_ptr<stacks> take() {
            std::vector<std::unique_ptr<stacks>>& spare = pool();
            spare.reserve(max_spare);  // (so that giving stacks back, in a destructor, never allocates)
            if (spare.empty()) {
                auto fresh = std::make_unique<stacks>();
                fresh->vars.reserve(32);
                fresh->frames.reserve(16);
                fresh->lists.reserve(stacks::max_lists);
                return fresh;
            }
            std::unique_ptr<stacks> s = std::move(spare.back());
            spare.pop_back();
            return s;
        }
        std::unique_ptr<stacks> held_;
    };
    stacks_lease stacks_;
    std::vector<std::unique_ptr<arguments>>& spare_args_ = stacks_.get().spare_args;
    arguments no_args_;  // for filters and tests called without arguments (no callee changes it)
    // Argument lists for calls, filters and tests, reused from one call to the next (their
    // vectors keep their capacity): a lease takes one for the length of a call.
    struct args_lease {
        render_state& s;
        std::unique_ptr<arguments> held;
        arguments& args;
        explicit args_lease(render_state& st) : s(st), held(take(st)), args(*held) {}
        ~args_lease() {
            args.clear();
            s.spare_args_.push_back(std::move(held));
        }
        args_lease(const args_lease&) = delete;
        args_lease& operator=(const args_lease&) = delete;
        static std::unique_ptr<arguments> take(render_state& st) {
            if (st.spare_args_.empty()) {
                // (room to give every list back, so that a lease's destructor never allocates)
                auto fresh = std::make_unique<arguments>();
                st.spare_args_.reserve(st.stacks_.get().args_made + 1);
                ++st.stacks_.get().args_made;
                return fresh;
            }
            std::unique_ptr<arguments> a = std::move(st.spare_args_.back());
            st.spare_args_.pop_back();
            return a;
        }
    };

    const parsed_template& t_;
    const program& p_;
    const node* const nodes_ = p_.nodes.data();  // (the program's, one load away)
    const std::uint32_t* const lists_ = p_.lists.data();
    const env_data& env_;
    std::string* out_;
    value root_;
    const boost::json::object* root_json_ = json_object_of(root_);  // the context, when it is a JSON object
    bool autoescape_;
    std::vector<binding>& vars_ = stacks_.get().vars;
    std::vector<frame>& frames_ = stacks_.get().frames;
    std::uint32_t serial_ = 0;
    std::uint64_t iterations_ = 0;
    std::uint32_t call_depth_ = 0;
    const std::uint32_t loop_sym_ = t_.special_.loop;
    const std::uint32_t caller_sym_ = t_.special_.caller;
    const std::uint32_t varargs_sym_ = t_.special_.varargs;
    const std::uint32_t kwargs_sym_ = t_.special_.kwargs;

    friend value macro_call(render_state&, const macro_obj&, arguments&);
};

// ---- macros -------------------------------------------------------------------------------------

struct macro_obj final : object_obj {
    render_state* st;
    const node* def;  // macro or call_block node
    std::uint32_t params;  // stmts node of params
    std::uint32_t body;
    std::uint32_t frame;
    std::uint32_t serial;
    std::string_view name;  // in the template's pool ("caller" for a call block's)
    bool is_caller;
    const char* type_name() const noexcept override { return "Macro"; }
    bool callable() const noexcept override { return true; }
    value call(render_state& s, arguments& args) const override { return s.invoke_macro(*this, args); }
    bool call_printed(render_state& s, arguments& args) const override {
        s.invoke_macro(*this, args, true);
        return true;
    }
    // Jinja2's Macro attributes: name, arguments (the parameters' names), catch_kwargs,
    // catch_varargs and caller (whether the body calls `caller` without a parameter of that name)
    value getattr(std::string_view a) const override {
        if (a == "name") return is_caller ? value(nullptr) : value::view_of(name);  // a call block's is anonymous
        const node& ps = st->n(params);
        if (a == "arguments") {
            std::vector<value> names;
            for (std::uint32_t k = 0; k < ps.b; ++k) names.push_back(value::view_of(st->sym(st->n(st->list_item(ps.a, k)).sym)));
            return value::make_list(std::move(names), true);
        }
        if (a == "catch_kwargs") return value((def->flags & flag_uses_kwargs) != 0);
        if (a == "catch_varargs") return value((def->flags & flag_uses_varargs) != 0);
        if (a == "caller") return value(calls_caller());
        return {};
    }
    /// Whether the body calls `caller` (the special one: a parameter of that name takes its place).
    bool calls_caller() const {
        if (!(def->flags & flag_uses_caller)) return false;
        const node& ps = st->n(params);
        for (std::uint32_t k = 0; k < ps.b; ++k)
            if (st->n(st->list_item(ps.a, k)).sym == st->caller_sym_) return false;
        return true;
    }
    void repr(std::string& out) const override { out += is_caller ? "<Macro anonymous>" : "<Macro '" + std::string(name) + "'>"; }
};

inline value render_state::make_macro(const node& x, std::uint32_t params, std::uint32_t body, bool is_caller) {
    auto* m = new macro_obj();
    m->st = this;
    m->def = &x;
    m->params = params;
    m->body = body;
    m->frame = top();
    m->serial = frames_.back().serial;
    m->name = is_caller ? std::string_view("caller") : sym(x.sym);
    m->is_caller = is_caller;
    return value::make_object(m);
}

inline value render_state::invoke_macro(const macro_obj& m, arguments& args, bool printed) {
    count_iterations(1);  // macro calls share the iteration budget: recursion can be wide, not only deep
    if (++call_depth_ > env_.opt.limit.max_call_depth) {
        --call_depth_;
        raise(errc::template_limit,
              "macro recursion limit reached (" + std::to_string(env_.opt.limit.max_call_depth) + " nested calls)");
    }
    struct depth_guard {
        std::uint32_t& d;
        ~depth_guard() { --d; }
    } guard{call_depth_};
    const node& params = n(m.params);
    const std::uint8_t flags = m.def->flags;
    // a `caller` parameter of the macro's own takes the place of the special one
    const bool uses_caller = m.calls_caller();
    const bool catch_kwargs = (flags & flag_uses_kwargs) != 0;
    const bool catch_varargs = (flags & flag_uses_varargs) != 0;
    const auto& pos = args.positional();
    const std::size_t nparams = params.b;
    // the macro's scope: a child of the scope it was defined in
    std::uint32_t parent = m.frame;
    if (parent >= frames_.size() || frames_[parent].serial != m.serial) parent = 0;
    // binds the parameter k, in the macro's scope, to its argument (null when none was given):
    // else to its default, evaluated there, else to undefined
    const auto bind_param = [&](std::size_t k, const value* given) {
        const node& prm = n(list_item(params.a, static_cast<std::uint32_t>(k)));
        if (given) {
            set_var(prm.sym, *given);
        } else if (prm.a != none) {
            set_var(prm.sym, eval(n(prm.a)));
        } else {
            value u = value::undefined(undefined_form::name, sym(prm.sym));
            set_var(prm.sym, strict() ? u.as_strict() : u);
        }
    };
    // when a default names a later parameter, it sees that parameter's argument, or undefined
    // until its own default is evaluated (Jinja2 binds the arguments before the defaults):
    // binds each parameter to its argument (null when none was given) or to undefined first
    const bool defaults_see_params = (flags & flag_defaults_see_params) != 0;
    const auto bind_arguments_first = [&](std::size_t k, const value* given) {
        if (given) {
            set_var(n(list_item(params.a, static_cast<std::uint32_t>(k))).sym, *given);
        } else {
            const node& prm = n(list_item(params.a, static_cast<std::uint32_t>(k)));
            value u = value::undefined(undefined_form::name, sym(prm.sym));
            set_var(prm.sym, strict() ? u.as_strict() : u);
        }
    };
    // runs the body in the macro's scope once bind() has bound its names there
    const auto run = [&](const auto& bind) {
        std::string s;
        {
            scope sc(*this, parent);
            bind();
            if (printed) exec_list(n(m.body));
            else s = capture(n(m.body));
        }
        return printed ? value() : captured(std::move(s));
    };
    if (args.keywords().empty() && !uses_caller && !catch_kwargs && !catch_varargs && pos.size() <= nparams) {
        // the commonest call, positional arguments only: bound in order as they come, as below
        return run([&] {
            if (defaults_see_params)
                for (std::size_t k = 0; k < nparams; ++k) bind_arguments_first(k, k < pos.size() ? &pos[k] : nullptr);
            for (std::size_t k = 0; k < nparams; ++k) bind_param(k, k < pos.size() ? &pos[k] : nullptr);
        });
    }
    // bind: positional, then keywords, then defaults (evaluated in the macro's scope)
    // (the few parameters of most macros are bound without allocating)
    constexpr std::size_t few = 8;
    std::array<value, few> bound_few;
    std::array<char, few> given_few{};
    std::vector<value> bound_many;
    std::vector<char> given_many;
    if (nparams > few) {
        bound_many.resize(nparams);
        given_many.assign(nparams, 0);
    }
    value* const bound = nparams > few ? bound_many.data() : bound_few.data();
    char* const given = nparams > few ? given_many.data() : given_few.data();
    for (std::size_t k = 0; k < nparams && k < pos.size(); ++k) {
        bound[k] = pos[k];
        given[k] = true;
    }
    std::vector<std::pair<std::string_view, value>> extra_kw;
    value caller;
    bool have_caller = false;
    for (auto& [key, v] : args.keywords()) {
        std::size_t j = 0;
        while (j < nparams && sym(n(list_item(params.a, static_cast<std::uint32_t>(j))).sym) != key) ++j;
        if (j < nparams && j >= pos.size()) {
            bound[j] = v;
            given[j] = true;
        } else if (j < nparams) {
            raise(errc::template_type, "macro '" + std::string(m.name) + "' got multiple values for argument '" + std::string(key) + "'");
        } else if (key == "caller" && uses_caller) {
            caller = v;
            have_caller = true;
        } else {
            extra_kw.emplace_back(key, v);
        }
    }
    if (!catch_kwargs && !extra_kw.empty()) {
        if (extra_kw.front().first == "caller")
            raise(errc::template_type, "macro '" + std::string(m.name) + "' was invoked with two values for the special caller argument");
        raise(errc::template_type,
              "macro '" + std::string(m.name) + "' takes no keyword argument '" + std::string(extra_kw.front().first) + "'");
    }
    if (!catch_varargs && pos.size() > nparams)
        raise(errc::template_type,
              "macro '" + std::string(m.name) + "' takes not more than " + std::to_string(nparams) + " argument(s)");
    return run([&] {
        if (defaults_see_params)
            for (std::size_t k = 0; k < nparams; ++k) bind_arguments_first(k, given[k] ? &bound[k] : nullptr);
        for (std::size_t k = 0; k < nparams; ++k) bind_param(k, given[k] ? &bound[k] : nullptr);
        if (uses_caller) {
            value u = value::undefined(undefined_form::hint, "No caller defined");
            set_var(caller_sym_, have_caller ? caller : u);
        }
        if (catch_varargs) {
            std::vector<value> rest;
            for (std::size_t k = nparams; k < pos.size(); ++k) rest.push_back(pos[k]);
            set_var(varargs_sym_, value::make_list(std::move(rest), true));
        }
        if (catch_kwargs) {
            value d = value::make_dict();
            for (auto& [key, v] : extra_kw) dict_set(d.dict(), value(std::string(key)), v);
            set_var(kwargs_sym_, d);
        }
    });
}

// ---- loops --------------------------------------------------------------------------------------

/// The items of a for loop, taken one at a time as Python's iterators give them: a template list
/// is read as it is at each step (items the body appends are visited, as in Python), a dict whose
/// size changes fails as in Python, and the loop's `if` filter runs on an item when the item is
/// taken: when the loop reaches it, or earlier when `loop.nextitem`, `loop.last` or
/// `loop.length` looks ahead (Jinja2's filter is a generator, read by its LoopContext).
struct loop_source {
    // (JSON arrays and objects are read in place, without `seq`)
    explicit loop_source(const value& iterable)
        : seq(json_array_of(iterable) || json_object_of(iterable) ? value() : iterable) {
        json = json_array_of(iterable);
        json_keys = json_object_of(iterable);
        if (iterable.is_list())
            list = &iterable.list();
        else if (iterable.is_dict()) {
            dict = &iterable.dict();
            dict_size = dict->items.size();
        }
    }
    /// Whether the loop's length is the iterable's len() (Jinja2 counts the remaining items of
    /// anything else: a filtered loop, a generator).
    bool has_len() const noexcept { return !filter && !(list && list->generator); }
    /// The iterable's len() now.
    std::size_t len() const noexcept {
        if (list) return list->items.size();
        if (dict) return dict->items.size();
        if (json_keys) return json_keys->size();
        if (json) return json->size();
        return seq.size();
    }

    sequence seq;
    const boost::json::array* json = nullptr;  // a JSON array: its elements without the adapter
    const boost::json::object* json_keys = nullptr;  // a JSON object: its keys, read in place (`seq` is empty)
    const list_obj* list = nullptr;  // a template list: read live
    const dict_obj* dict = nullptr;
    std::size_t dict_size = 0;
    std::size_t next = 0;  // the next element of the iterable
    bool exhausted = false;  // Python's iterators stay exhausted once they are
    boost::container::small_vector<value, 2> ahead;  // items taken (filtered) but not reached yet, from ahead_at
    std::size_t ahead_at = 0;
    // the loop's `if` filter: evaluated with the target bound in a scope of its own, child of
    // `scope` (the loop's enclosing scope), as Jinja2's filter generator sees the variables
    const node* filter = nullptr;
    const node* target = nullptr;
    std::uint32_t scope = none;
    bool running = true;  // false once the loop has ended (a loop object kept after it takes no more)
};

struct loop_obj final : object_obj {
    explicit loop_obj(const value& iterable) : src(iterable) {}
    render_state* st = nullptr;
    const node* for_node = nullptr;
    mutable loop_source src;  // (looking ahead takes items: loop.last, loop.nextitem, loop.length)
    value current, before;  // the item of this iteration and of the one before
    std::size_t index0 = 0;
    mutable std::size_t length = 0;  // known once asked for
    mutable bool length_known = false;
    std::uint32_t depth = 0;  // 0-based
    value last_changed;
    bool changed_called = false;

    const char* type_name() const noexcept override { return "LoopContext"; }
    void each_held(void (*fn)(void*, const value&), void* ctx) const override {
        for (std::size_t k = src.ahead_at; k < src.ahead.size(); ++k) fn(ctx, src.ahead[k]);
        fn(ctx, current);
        fn(ctx, before);
        fn(ctx, last_changed);
    }
    bool callable() const noexcept override { return (for_node->flags & flag_recursive) != 0; }
    value call(render_state& s, arguments& args) const override {
        if (!callable()) type_error("the loop is not recursive: use 'for ... recursive' to call loop()");
        if (args.size() != 1 || !args.keywords().empty()) type_error("loop() takes exactly one argument");
        return s.recurse_loop(*this, args[0]);
    }
    // Jinja2's LoopContext.length: the iterable's len() when it has one, else the items so far
    // and all those left (taken now, filter included); kept once known
    std::size_t len() const {
        if (!length_known) {
            length = src.has_len() ? src.len() : index0 + 1 + st->loop_remaining(src);
            length_known = true;
        }
        return length;
    }
    value getattr(std::string_view a) const override {
        auto as_int = [](std::size_t n) { return value(static_cast<long long>(n)); };
        switch (a.size()) {  // (the names by length: one comparison for each)
        case 4:
            if (a == "last") return value(st->loop_peek(src) == nullptr);
            break;
        case 5:
            if (a == "index") return as_int(index0 + 1);
            if (a == "first") return value(index0 == 0);
            if (a == "depth") return as_int(depth + 1);
            break;
        case 6:
            if (a == "index0") return as_int(index0);
            if (a == "length") return as_int(len());
            if (a == "depth0") return as_int(depth);
            break;
        case 8:
            if (a == "previtem") {
                if (index0 == 0) return value::undefined(undefined_form::hint, "there is no previous item");
                return before;
            }
            if (a == "nextitem") {
                const value* next = st->loop_peek(src);
                if (!next) return value::undefined(undefined_form::hint, "there is no next item");
                return *next;
            }
            if (a == "revindex") return value(static_cast<long long>(len()) - static_cast<long long>(index0));
            break;
        case 9:
            if (a == "revindex0") return value(static_cast<long long>(len()) - static_cast<long long>(index0) - 1);
            break;
        default: break;
        }
        return {};
    }
    bool method(render_state&, std::string_view name, arguments& args, value& result) override {
        // cycle(*args) and changed(*value) take no keywords
        if ((name == "cycle" || name == "changed") && !args.keywords().empty())
            type_error("LoopContext." + std::string(name) + "() got an unexpected keyword argument " +
                       single_quoted(args.keywords().front().first));
        if (name == "cycle") {
            if (args.size() == 0) type_error("no items for cycling given");
            result = args[index0 % args.size()];
            return true;
        }
        if (name == "changed") {
            value cur = args.size() == 1 ? args[0] : value::make_list(args.positional(), true);
            const bool changed = !changed_called || !equals(cur, last_changed);
            hold_check(cur, this, "loop");
            changed_called = true;
            last_changed = std::move(cur);
            result = value(changed);
            return true;
        }
        return false;
    }
    bool has_method(std::string_view name) const noexcept override { return name == "cycle" || name == "changed"; }
    void repr(std::string& out) const override {
        out += "<LoopContext " + std::to_string(index0 + 1) + "/" + std::to_string(len()) + ">";
    }
};

// The next item of the iterable that passes the loop's filter, into `item`; false when there
// are no more.
inline bool render_state::loop_take(loop_source& src, value& item) {
    for (;;) {
        if (src.dict && src.dict->items.size() != src.dict_size)
            raise(errc::template_value, "dictionary changed size during iteration");
        if (src.exhausted || !src.running) return false;
        if (src.json) {
            if (src.next >= src.json->size()) break;
            item = json_view((*src.json)[src.next++]);
        } else if (src.json_keys) {
            if (src.next >= src.json_keys->size()) break;
            item = value::view_of(std::string_view((src.json_keys->begin() + static_cast<std::ptrdiff_t>(src.next++))->key()));
        } else {
            if (src.next >= (src.list && !src.list->generator ? src.list->items.size() : src.seq.size())) break;
            item = src.seq[src.next++];
        }
        count_iterations(1);  // every item taken, whether it passes the filter or not
        if (!src.filter) return true;
        scope sc(*this, src.scope);
        assign(*src.target, item);
        if (eval_cond(*src.filter)) return true;
    }
    src.exhausted = true;
    return false;
}

inline const value* render_state::loop_peek(loop_source& src) {
    if (src.ahead_at == src.ahead.size()) {
        src.ahead.clear();
        src.ahead_at = 0;
        value item;
        if (!loop_take(src, item)) return nullptr;
        src.ahead.push_back(std::move(item));
    }
    return &src.ahead[src.ahead_at];
}

inline std::size_t render_state::loop_remaining(loop_source& src) {
    for (value item; loop_take(src, item);) src.ahead.push_back(std::move(item));
    return src.ahead.size() - src.ahead_at;
}

inline flow render_state::exec_for(const node& x, const value& iterable, std::uint32_t depth, std::string* capture_into) {
    // the items (an undefined iterable: none, an error when strict), held by the loop object
    // when the body names `loop`
    std::optional<loop_source> local;
    const std::uint32_t outer = capture_into ? frames_[top()].parent : top();
    value loopv;
    loop_obj* lp = nullptr;
    if (x.flags & flag_uses_loop) {
        lp = new loop_obj(iterable);
        loopv = value::make_object(lp);
        lp->st = this;
        lp->for_node = &x;
        lp->depth = depth;
    } else {
        local.emplace(iterable);
    }
    loop_source& src = lp ? lp->src : *local;
    const node& target = n(x.a);
    if (x.c != none) {
        src.filter = &n(x.c);
        src.target = &target;
        src.scope = outer;
    }
    push_frame(outer);
    std::string* saved_out = out_;
    if (capture_into) out_ = capture_into;
    struct restore {
        render_state& s;
        std::string* out;
        loop_source& src;
        ~restore() {
            s.out_ = out;
            s.pop_frame();
            src.running = false;
        }
    } guard{*this, saved_out, src};
    const node& body = n(x.d);
    // a body that is one `{{ }}`, the commonest in chat templates: printed without the dispatch
    const node* single_print = body.b == 1 && n(list_item(body.a, 0)).kind == nk::print ? &n(list_item(body.a, 0)) : nullptr;
    const std::size_t frame_begin = frames_.back().begin;
    bool completed = false;  // Jinja runs `else` unless some iteration reached the end of the body
    value item;
    // a loop over a JSON array without a filter: its elements without the checks
    const boost::json::array* json = !src.filter ? src.json : nullptr;
    // a name target is the frame's first binding, written in place (assignments of the body do
    // not carry over from one iteration to the next)
    const bool name_target = target.kind == nk::name;
    if (name_target) vars_.push_back({target.sym, value()});
    // and `loop` the binding after it, written again when the body rebinds the name
    const std::size_t fixed = (name_target ? 1 : 0) + (lp ? 1 : 0);
    if (lp) vars_.push_back({loop_sym_, loopv});
    const auto run_body = [&] {
        const flow f = single_print ? exec_print(*single_print) : body.b == 1 ? exec(n(list_item(body.a, 0))) : exec_list(body);
        if (f == flow::normal) completed = true;
        return f != flow::break_;
    };
    const bool plain_json = json && name_target && !lp;
    if (plain_json) {
        // the commonest loop of all: over a JSON array, bound to a name, without a loop object
        member_print mp;
        if (single_print && prints_members_of(*single_print, target.sym, mp)) {
            // (a single print completes every iteration, and never breaks)
            completed = src.next < json->size();
            print_members_loop(mp, *json, src.next, *single_print, frame_begin);
        }
        while (src.next < json->size()) {
            if (vars_.size() != frame_begin + 1) vars_.resize(frame_begin + 1);
            count_iterations(1);
            const boost::json::value& element = (*json)[src.next++];
            vars_[frame_begin].v = json_element_view(element);
            if (!run_body()) break;
        }
    }
    // a loop over the keys of a JSON object, or over a JSON array with a filter, bound to a name,
    // without a loop object: the items read in place and the filter (which cannot look ahead
    // without a loop object) evaluated with the name bound in the loop's own scope, which holds
    // nothing else when it runs, as the filter's scope of its own would
    const bool plain_keys = !plain_json && name_target && !lp && (src.json_keys || (src.json && src.filter));
    if (plain_keys) {
        const std::size_t size = src.json_keys ? src.json_keys->size() : src.json->size();
        while (src.next < size) {
            if (vars_.size() != frame_begin + 1) vars_.resize(frame_begin + 1);
            count_iterations(1);
            if (src.json_keys) {
                vars_[frame_begin].v =
                    value::view_of(std::string_view((src.json_keys->begin() + static_cast<std::ptrdiff_t>(src.next++))->key()));
            } else {
                const boost::json::value& element = (*src.json)[src.next++];
                vars_[frame_begin].v = json_element_view(element);
            }
            if (src.filter && !eval_cond(*src.filter)) continue;
            if (!run_body()) break;
        }
    }
    // a template list without a filter: its items read in place (live: items the body appends
    // are visited)
    const std::vector<value>* list_items = !src.filter && src.list && !src.list->generator ? &src.list->items : nullptr;
    for (std::size_t i = 0; !plain_json && !plain_keys; ++i) {
        vars_.resize(frame_begin + fixed);
        if (json && !src.exhausted && src.ahead_at == src.ahead.size()) {
            if (src.next >= json->size()) break;
            count_iterations(1);
            const boost::json::value& element = (*json)[src.next++];
            value& to = name_target ? vars_[frame_begin].v : item;
            to = json_element_view(element);
        } else if (list_items && !src.exhausted && src.ahead_at == src.ahead.size()) {
            if (src.next >= list_items->size()) break;
            count_iterations(1);
            value& to = name_target ? vars_[frame_begin].v : item;
            to = (*list_items)[src.next++];
        } else {
            if (src.ahead_at < src.ahead.size()) item = std::move(src.ahead[src.ahead_at++]);
            else if (!loop_take(src, item)) break;  // (a filter binds the target in a scope of its own)
            if (name_target) vars_[frame_begin].v = std::move(item);
        }
        const value& current = name_target ? vars_[frame_begin].v : item;
        if (lp) {
            lp->before = std::move(lp->current);
            lp->current = current;
            lp->index0 = i;
            value& bound_loop = vars_[frame_begin + fixed - 1].v;
            if (!bound_loop.is_object() || &bound_loop.object() != lp) bound_loop = loopv;
        }
        if (!name_target) assign(target, item);
        if (!run_body()) break;
    }
    if (!completed && x.e != none) {
        vars_.resize(frame_begin);
        exec_list(n(x.e));
    }
    return flow::normal;
}

inline value render_state::recurse_loop(const loop_obj& l, const value& iterable) {
    if (++call_depth_ > env_.opt.limit.max_call_depth) {
        --call_depth_;
        raise(errc::template_limit, "recursive loop depth limit reached (" +
                                        std::to_string(env_.opt.limit.max_call_depth) + ")");
    }
    std::string buf;
    try {
        exec_for(*l.for_node, iterable, l.depth + 1, &buf);
    } catch (...) {
        --call_depth_;
        throw;
    }
    --call_depth_;
    return captured(std::move(buf));
}

}  // namespace parley::jinja::detail

#endif
