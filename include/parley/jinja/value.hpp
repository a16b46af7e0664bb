// parley/jinja/value.hpp: the values templates compute with, and views of C++ data.
#ifndef PARLEY_JINJA_VALUE_HPP
#define PARLEY_JINJA_VALUE_HPP

#include <parley/config.hpp>
#include <parley/error.hpp>
#include <parley/jinja/detail/bigint.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::jinja {

class value;
class arguments;

namespace detail {
/// An error raised while evaluating; the renderer adds the template position.
struct eval_error {
    errc code;
    std::string message;
};
[[noreturn]] inline void raise(errc code, std::string message) { throw eval_error{code, std::move(message)}; }

/// The stack a render may use: the lowest address its recursion (nested expressions and
/// statements, macro calls, nested values printed or compared) may reach on this thread, or 0
/// when no render runs on it. Set by render_scope, read by check_stack.
inline thread_local std::uintptr_t stack_floor = 0;

/// An address in the current stack frame (the stack grows down on every platform parley targets).
PARLEY_ALWAYS_INLINE std::uintptr_t frame_address() noexcept {
#if defined(__GNUC__) || defined(__clang__)
    return reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
#else
    volatile char probe = 0;
    return reinterpret_cast<std::uintptr_t>(&probe);
#endif
}

/// Raises errc::template_limit when the recursion of the current render has used its stack
/// budget (limits::max_stack): a template or value nested that deeply fails with an error
/// instead of overflowing the stack.
[[noreturn]] inline void stack_budget_used() {
    raise(errc::template_limit, "nested too deeply: the render used its stack budget (limits::max_stack)");
}
PARLEY_ALWAYS_INLINE void check_stack() {
    if (frame_address() < stack_floor) [[unlikely]]
        stack_budget_used();
}

/// The objects hold checks (see holds() in ops.hpp) may still walk in the current render on this
/// thread: a template that changes a deeply nested value in a loop fails instead of taking
/// quadratic time. No limit outside a render.
inline thread_local std::uint64_t hold_steps_left = ~std::uint64_t{0};

/// The longest text (limits::max_output) the current render may build when it prints a value
/// (a list holding the same long string many times prints far longer than it is); no limit
/// outside a render.
inline thread_local std::size_t text_limit = ~std::size_t{0};

/// For the duration of a render: its stack budget, `stack_bytes` below the frame it is made in,
/// the objects its hold checks may walk, and the longest text it may print a value into. A
/// render inside another (a filter or function that renders) keeps the tighter of each.
class render_scope {
public:
    render_scope(std::size_t stack_bytes, std::uint64_t hold_steps, std::size_t max_text) noexcept
        : saved_floor_(stack_floor), saved_steps_(hold_steps_left), saved_text_(text_limit) {
        const std::uintptr_t here = frame_address();
        const std::uintptr_t floor = here > stack_bytes ? here - stack_bytes : 1;
        if (floor > saved_floor_) stack_floor = floor;
        if (hold_steps < hold_steps_left) hold_steps_left = hold_steps;
        if (max_text < text_limit) text_limit = max_text;
    }
    ~render_scope() {
        stack_floor = saved_floor_;
        hold_steps_left = saved_steps_;
        text_limit = saved_text_;
    }
    render_scope(const render_scope&) = delete;
    render_scope& operator=(const render_scope&) = delete;

private:
    std::uintptr_t saved_floor_;
    std::uint64_t saved_steps_;
    std::size_t saved_text_;
};
}  // namespace detail

/// What a value is, in Python's terms.
enum class value_kind : std::uint8_t {
    undefined,  ///< Jinja's Undefined: a missing variable, attribute or item
    none,  ///< None
    boolean,  ///< True / False
    integer,  ///< int in the 64-bit range
    floating,  ///< float
    string,  ///< str (UTF-8), possibly marked safe (Markup)
    list,  ///< list or tuple created by the template
    dict,  ///< dict created by the template (insertion-ordered)
    view,  ///< a sequence or mapping read in place: JSON, described structs, standard containers
    object,  ///< anything else: macros, functions, loop, namespace, cycler, ...
    big_integer,  ///< int beyond the 64-bit range (Python's ints have no size limit)
};

/// The shape of a viewed C++ object.
enum class view_shape : std::uint8_t { sequence, mapping };

/// How a value of some C++ type is read in place. One static instance per viewed type.
struct adapter {
    view_shape shape = view_shape::sequence;
    const char* type_name = "object";  ///< Python type name for messages ("list", "dict", or the struct name)
    std::size_t (*size)(const void* obj) = nullptr;
    /// sequence: element i; mapping: key i (keys are listed in their natural order)
    value (*at)(const void* obj, std::size_t i) = nullptr;
    /// mapping: value of key i; null for sequences
    value (*value_at)(const void* obj, std::size_t i) = nullptr;
    /// mapping: value of a string key; returns false when missing; null for sequences
    bool (*find)(const void* obj, std::string_view key, value& out) = nullptr;
    /// Calls fn(ctx, element, undefined) (sequences) or fn(ctx, key, value) (mappings) for every
    /// entry in order. Set for containers without random access, where at(i) walks from the
    /// start (so that iterating them is linear); null for the others.
    void (*each)(const void* obj, void* ctx, void (*fn)(void* ctx, const value& a, const value& b)) = nullptr;
};

namespace detail {

/// Base of reference-counted objects owned by values.
struct heap_object {
    mutable std::uint32_t refs = 0;
    heap_object* next_dead = nullptr;  ///< the next object waiting to be deleted (value::destroy)
    heap_object() = default;
    heap_object(const heap_object&) = delete;
    heap_object& operator=(const heap_object&) = delete;
    virtual ~heap_object() = default;
};

struct string_obj;
struct bigint_obj;
struct list_obj;
struct dict_obj;
struct object_obj;

/// Which message an undefined value gives when it is used.
/// `name`: a variable; `attribute`: an attribute or string key of a `type` object; `item`: an
/// integer index of a `type` object; `hint`: the text is the whole message.
enum class undefined_form : std::uint8_t { plain, name, attribute, item, hint };

}  // namespace detail

/// A template value. Cheap to copy (24 bytes, reference counted where it owns data);
/// strings, JSON and C++ containers are viewed in place, never copied.
class value {
public:
    /// Undefined.
    value() noexcept : kind_(value_kind::undefined) { p_ = nullptr; aux_ = nullptr; }
    value(std::nullptr_t) noexcept : kind_(value_kind::none) { p_ = nullptr; aux_ = nullptr; }
    value(bool b) noexcept : kind_(value_kind::boolean) { i_ = b ? 1 : 0; aux_ = nullptr; }
    value(int i) noexcept : value(static_cast<long long>(i)) {}
    value(long i) noexcept : value(static_cast<long long>(i)) {}
    value(long long i) noexcept : kind_(value_kind::integer) { i_ = static_cast<std::int64_t>(i); aux_ = nullptr; }
    value(unsigned i) noexcept : value(static_cast<long long>(i)) {}
    value(double d) noexcept : kind_(value_kind::floating) { d_ = d; aux_ = nullptr; }
    /// An owned string.
    value(std::string s);
    value(const char* s) : value(std::string(s)) {}

    /// A string that views `s`; the characters must outlive the value.
    static value view_of(std::string_view s) noexcept {
        value v(value_kind::string, 0);
        v.s_ = s.data();
        v.n_ = static_cast<std::uint32_t>(s.size());
        return v;
    }
    /// A view of a C++ object through an adapter; the object must outlive the value.
    static value view_of(const void* obj, const adapter* ad) noexcept {
        value v(value_kind::view, 0);
        v.p_ = obj;
        v.ad_ = ad;
        return v;
    }
    /// A safe (Markup) string: not escaped again by `escape` or autoescaping.
    static value markup(std::string s) {
        value v(std::move(s));
        v.flags_ |= flag_markup;
        return v;
    }
    /// An undefined value that remembers why it is undefined (for the error it raises on use).
    static value undefined(detail::undefined_form form, std::string_view name, const char* type_name = nullptr) noexcept {
        value v;
        v.flags_ = static_cast<std::uint8_t>(form);
        v.s_ = name.data();
        v.n_ = static_cast<std::uint32_t>(name.size());
        v.hint_ = type_name;
        return v;
    }
    /// An undefined value for a missing integer index of a `type_name` object.
    static value undefined_item(std::int64_t index, const char* type_name) noexcept {
        value v;
        v.flags_ = static_cast<std::uint8_t>(detail::undefined_form::item);
        v.i_ = index;
        v.hint_ = type_name;
        return v;
    }
    /// An undefined value whose message (owned) is `message`.
    static value undefined_message(std::string message) {
        value v(std::move(message));
        v.kind_ = value_kind::undefined;
        v.flags_ = static_cast<std::uint8_t>(detail::undefined_form::hint) | flag_owned_text | flag_counted;
        return v;
    }
    /// An integer beyond the 64-bit range (one within it is an `integer`: see detail::make_int).
    static value big(detail::bigint n);
    static value make_list(std::vector<value> items, bool tuple = false);
    static value make_dict();
    static value make_object(detail::object_obj* o);
    /// An object owned elsewhere that outlives every use of the value (not reference counted).
    static value borrow_object(const detail::object_obj* o) noexcept;

    value(const value& o) noexcept : kind_(o.kind_), flags_(o.flags_), n_(o.n_), i_(o.i_), aux_(o.aux_) { retain(); }
    value(value&& o) noexcept : kind_(o.kind_), flags_(o.flags_), n_(o.n_), i_(o.i_), aux_(o.aux_) {
        o.kind_ = value_kind::undefined;
        o.flags_ = 0;
        o.aux_ = nullptr;
    }
    value& operator=(const value& o) noexcept {
        if (this != &o) {
            o.retain();
            release();
            kind_ = o.kind_;
            flags_ = o.flags_;
            n_ = o.n_;
            i_ = o.i_;
            aux_ = o.aux_;
        }
        return *this;
    }
    PARLEY_ALWAYS_INLINE value& operator=(value&& o) noexcept {
        if (this != &o) {
            release();
            kind_ = o.kind_;
            flags_ = o.flags_;
            n_ = o.n_;
            i_ = o.i_;
            aux_ = o.aux_;
            o.kind_ = value_kind::undefined;
            o.flags_ = 0;
            o.aux_ = nullptr;
        }
        return *this;
    }
    ~value() { release(); }

    value_kind kind() const noexcept { return kind_; }
    bool is_undefined() const noexcept { return kind_ == value_kind::undefined; }
    bool is_defined() const noexcept { return kind_ != value_kind::undefined; }
    bool is_none() const noexcept { return kind_ == value_kind::none; }
    bool is_bool() const noexcept { return kind_ == value_kind::boolean; }
    bool is_integer() const noexcept { return kind_ == value_kind::integer; }
    bool is_float() const noexcept { return kind_ == value_kind::floating; }
    /// An int beyond the 64-bit range.
    bool is_big_integer() const noexcept { return kind_ == value_kind::big_integer; }
    /// int, float or bool (Python's numbers.Number)
    bool is_number() const noexcept {
        return kind_ == value_kind::integer || kind_ == value_kind::floating || kind_ == value_kind::boolean ||
               kind_ == value_kind::big_integer;
    }
    bool is_string() const noexcept { return kind_ == value_kind::string; }
    bool is_markup() const noexcept { return kind_ == value_kind::string && (flags_ & flag_markup); }
    bool is_list() const noexcept { return kind_ == value_kind::list; }
    bool is_dict() const noexcept { return kind_ == value_kind::dict; }
    bool is_view() const noexcept { return kind_ == value_kind::view; }
    bool is_object() const noexcept { return kind_ == value_kind::object; }
    /// A list or tuple, or a viewed sequence.
    bool is_sequence_like() const noexcept {
        return kind_ == value_kind::list || (kind_ == value_kind::view && ad_->shape == view_shape::sequence);
    }
    /// A dict or a viewed mapping.
    bool is_mapping_like() const noexcept {
        return kind_ == value_kind::dict || (kind_ == value_kind::view && ad_->shape == view_shape::mapping);
    }

    bool as_bool() const noexcept { return i_ != 0; }
    std::int64_t as_integer() const noexcept { return i_; }
    double as_float() const noexcept { return d_; }
    /// int, bool or float as a double (not for big integers: see detail::float_value)
    double as_number() const noexcept { return kind_ == value_kind::floating ? d_ : static_cast<double>(i_); }
    /// The integer of a big_integer value.
    const detail::bigint& big_integer() const noexcept;
    std::string_view as_string() const noexcept { return {s_, n_}; }
    const void* view_object() const noexcept { return p_; }
    const adapter* view_adapter() const noexcept { return ad_; }
    detail::list_obj& list() const noexcept { return *reinterpret_cast<detail::list_obj*>(h_); }
    detail::dict_obj& dict() const noexcept { return *reinterpret_cast<detail::dict_obj*>(h_); }
    detail::object_obj& object() const noexcept { return *reinterpret_cast<detail::object_obj*>(h_); }

    detail::undefined_form undefined_form() const noexcept {
        return static_cast<detail::undefined_form>(flags_ & 0x0f);
    }
    /// An undefined value that fails on every use but `is defined` and `default` (StrictUndefined).
    bool is_strict_undefined() const noexcept { return kind_ == value_kind::undefined && (flags_ & flag_strict); }
    value as_strict() const noexcept {
        value v(*this);
        v.flags_ |= flag_strict;
        return v;
    }
    std::string_view undefined_name() const noexcept { return {s_, n_}; }
    std::int64_t undefined_index() const noexcept { return i_; }
    const char* undefined_type() const noexcept { return (flags_ & flag_owned_text) ? nullptr : hint_; }
    /// A string whose characters are owned by the value (rather than viewed in place).
    bool owns_text() const noexcept { return kind_ == value_kind::string && owner_; }

    /// Part of a string (byte offsets), sharing its storage.
    value substr(std::size_t pos, std::size_t len) const {
        value v(*this);
        v.s_ += pos;
        v.n_ = static_cast<std::uint32_t>(len);
        return v;
    }

    /// The same string with the safe flag set or cleared (no copy).
    value with_markup(bool on) const {
        value v(*this);
        if (on) v.flags_ |= flag_markup;
        else v.flags_ &= static_cast<std::uint8_t>(~flag_markup);
        return v;
    }

private:
    // Sets the kind and the flags with one store, as copies read them (a copy that reads what
    // two separate stores wrote waits for both), and the payload to null.
    value(value_kind k, std::uint8_t flags) noexcept : kind_(k), flags_(flags) {
        p_ = nullptr;
        aux_ = nullptr;
    }

    static constexpr std::uint8_t flag_markup = 1;
    static constexpr std::uint8_t flag_strict = 0x10;
    static constexpr std::uint8_t flag_borrowed = 0x20;
    static constexpr std::uint8_t flag_owned_text = 0x40;  ///< an undefined with an owned message

    static constexpr std::uint8_t flag_counted = 0x80;  ///< holds a reference count (see counted())

    /// The reference-counted object of a value with flag_counted: a string's (or an undefined
    /// value's message's) owner, or the list, dict or object itself.
    detail::heap_object* counted() const noexcept {
        return (kind_ == value_kind::string || kind_ == value_kind::undefined) ? owner_ : h_;
    }

    void retain() const noexcept {
        if (flags_ & flag_counted) ++counted()->refs;
    }
    void release() noexcept {
        if ((flags_ & flag_counted) && --counted()->refs == 0) destroy(counted());
    }
    static void destroy(detail::heap_object* h) noexcept;

    value_kind kind_;
    std::uint8_t flags_ = 0;
    std::uint32_t n_ = 0;
    union {
        std::int64_t i_;
        double d_;
        const char* s_;
        const void* p_;
        detail::heap_object* h_;
    };
    union {
        detail::heap_object* owner_;
        const adapter* ad_;
        const char* hint_;
        void* aux_;
    };

    friend struct value_access;
};

namespace detail {

struct string_obj final : heap_object {
    std::string s;
    explicit string_obj(std::string x) : s(std::move(x)) {}
};

/// The integer of a big_integer value.
struct bigint_obj final : heap_object {
    bigint n;
    explicit bigint_obj(bigint x) : n(std::move(x)) {}
};

struct list_obj final : heap_object {
    std::vector<value> items;
    bool tuple = false;
    bool group = false;  ///< groupby's (grouper, list) tuple: also has those two attributes
    bool generator = false;  ///< the lazy result of map/select/...: iterable once, no len(), not JSON
    /// "dict_keys", "dict_values" or "dict_items" for what those dict methods return: iterable
    /// like a list, but printed as `dict_keys([...])`, not indexable, not JSON.
    const char* view_name = nullptr;
    mutable bool consumed = false;
};

/// Insertion-ordered dict with Python equality on keys.
struct dict_obj final : heap_object {
    std::vector<std::pair<value, value>> items;
};

class render_state;

/// Objects with behaviour: functions, macros, the loop, namespaces, cyclers...
struct object_obj : heap_object {
    /// Python type name for messages.
    virtual const char* type_name() const noexcept = 0;
    /// `obj.name`; undefined when missing.
    virtual value getattr(std::string_view) const { return {}; }
    /// `obj[key]`; undefined when missing.
    virtual value getitem(const value&) const { return {}; }
    virtual bool callable() const noexcept { return false; }
    /// `obj(args)`.
    virtual value call(render_state&, arguments&) const {
        raise(errc::template_type, std::string("'") + type_name() + "' object is not callable");
    }
    /// str() and repr()
    virtual void repr(std::string& out) const { out += std::string("<") + type_name() + " object>"; }
    /// assignment of `obj.name = v` (namespaces only)
    virtual bool setattr(std::string_view, const value&) { return false; }
    /// Calls fn(ctx, v) for each value the object holds (for the check that a change would not
    /// make a value hold itself: see holds()).
    virtual void each_held(void (*)(void* ctx, const value&), void*) const {}
    /// `obj.name(args)` for methods of the object; false when it has no such method.
    virtual bool method(render_state&, std::string_view, arguments&, value&) { return false; }
    /// Whether method() knows `name`: `obj.name` read without a call is then the bound method.
    virtual bool has_method(std::string_view) const noexcept { return false; }
    virtual bool is_namespace() const noexcept { return false; }
    /// `{{ obj(args) }}` written to the render's output where the call is printed (a macro
    /// writes its body there); false, with nothing done, for an object that returns its result.
    virtual bool call_printed(render_state&, arguments&) const { return false; }
};

}  // namespace detail

inline value::value(std::string s) : kind_(value_kind::string), flags_(flag_counted) {
    auto* o = new detail::string_obj(std::move(s));
    o->refs = 1;
    owner_ = o;
    s_ = o->s.data();
    n_ = static_cast<std::uint32_t>(o->s.size());
}

inline value value::big(detail::bigint n) {
    auto* o = new detail::bigint_obj(std::move(n));
    o->refs = 1;
    value v(value_kind::big_integer, flag_counted);
    v.h_ = o;
    return v;
}

inline const detail::bigint& value::big_integer() const noexcept { return static_cast<detail::bigint_obj*>(h_)->n; }

inline value value::make_list(std::vector<value> items, bool tuple) {
    auto* o = new detail::list_obj();
    o->items = std::move(items);
    o->tuple = tuple;
    o->refs = 1;
    value v(value_kind::list, flag_counted);
    v.h_ = o;
    return v;
}

inline value value::make_dict() {
    auto* o = new detail::dict_obj();
    o->refs = 1;
    value v(value_kind::dict, flag_counted);
    v.h_ = o;
    return v;
}

inline value value::make_object(detail::object_obj* o) {
    ++o->refs;
    value v(value_kind::object, flag_counted);
    v.h_ = o;
    return v;
}

inline value value::borrow_object(const detail::object_obj* o) noexcept {
    value v(value_kind::object, flag_borrowed);
    v.h_ = const_cast<detail::object_obj*>(o);
    return v;
}

/// Deletes objects without recursion: an object freed while another is being deleted (a list's
/// items, a dict's values...) waits in a list that the outermost call empties, so that a value
/// nested a million levels deep is freed in constant stack space.
inline void value::destroy(detail::heap_object* h) noexcept {
    static thread_local detail::heap_object* waiting = nullptr;
    static thread_local bool deleting = false;
    if (deleting) {
        h->next_dead = waiting;
        waiting = h;
        return;
    }
    deleting = true;
    delete h;
    while (waiting) {
        detail::heap_object* next = waiting;
        waiting = next->next_dead;
        delete next;
    }
    deleting = false;
}

}  // namespace parley::jinja

#endif
