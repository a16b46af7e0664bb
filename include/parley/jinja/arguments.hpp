// parley/jinja/arguments.hpp: the arguments of a call, a filter or a test.
#ifndef PARLEY_JINJA_ARGUMENTS_HPP
#define PARLEY_JINJA_ARGUMENTS_HPP

#include <parley/jinja/value.hpp>

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::jinja {

/// Positional and keyword arguments, as passed by the template.
class arguments {
public:
    arguments() = default;

    /// Positional arguments.
    const std::vector<value>& positional() const noexcept { return pos_; }
    /// Keyword arguments in the order written.
    const std::vector<std::pair<std::string_view, value>>& keywords() const noexcept { return kw_; }
    std::size_t size() const noexcept { return pos_.size(); }
    const value& operator[](std::size_t i) const noexcept { return pos_[i]; }
    /// The keyword argument `name`, or undefined.
    value keyword(std::string_view name) const {
        for (auto& [k, v] : kw_)
            if (k == name) return v;
        return {};
    }

    void push(value v) { pos_.push_back(std::move(v)); }
    void push_keyword(std::string_view name, value v) { kw_.emplace_back(name, std::move(v)); }
    void clear() {
        pos_.clear();
        kw_.clear();
        keep_.clear();
    }
    /// Keeps a value alive as long as the arguments (keyword names may view its strings).
    void keep_alive(value v) { keep_.push_back(std::move(v)); }
    std::vector<value>& positional_mut() noexcept { return pos_; }

private:
    std::vector<value> pos_;
    std::vector<std::pair<std::string_view, value>> kw_;
    std::vector<value> keep_;
};

namespace detail {

/// Binds arguments to named parameters the way Python does: positional first, then keywords;
/// unknown keywords, duplicates and surplus positionals are errors naming the function.
template <std::size_t N>
class bound_args {
public:
    bound_args(const arguments& a, std::string_view fn, const std::string_view (&params)[N], std::size_t skip = 0) {
        const auto& pos = a.positional();
        if (pos.size() > N - skip)
            raise(errc::template_type, std::string(fn) + "() takes at most " + std::to_string(N - skip) +
                                           " argument(s) (" + std::to_string(pos.size()) + " given)");
        for (std::size_t i = 0; i < pos.size(); ++i) {
            v_[skip + i] = pos[i];
            set_[skip + i] = true;
        }
        for (auto& [k, v] : a.keywords()) {
            std::size_t j = 0;
            while (j < N && params[j] != k) ++j;
            if (j == N || j < skip)
                raise(errc::template_type, std::string(fn) + "() got an unexpected keyword argument '" + std::string(k) + "'");
            if (set_[j])
                raise(errc::template_type, std::string(fn) + "() got multiple values for argument '" + std::string(k) + "'");
            v_[j] = v;
            set_[j] = true;
        }
    }
    /// Whether parameter i was given.
    bool has(std::size_t i) const noexcept { return set_[i]; }
    /// Parameter i, or undefined when not given.
    const value& operator[](std::size_t i) const noexcept { return v_[i]; }
    /// Parameter i, or `def` when not given.
    value get(std::size_t i, value def) const { return set_[i] ? v_[i] : std::move(def); }

private:
    value v_[N];
    bool set_[N] = {};
};

}  // namespace detail
}  // namespace parley::jinja

#endif
