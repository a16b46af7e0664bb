// parley/net/headers.hpp: the header fields of an HTTP reply, as received.
#ifndef PARLEY_NET_HEADERS_HPP
#define PARLEY_NET_HEADERS_HPP

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace parley {

namespace detail {
constexpr char ascii_lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
constexpr bool iequals(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
    return true;
}
}  // namespace detail

/// Header fields of an HTTP reply in the order received. Names are compared without regard to
/// case, as HTTP wants. Holds what a caller may want after a call: `x-request-id`, the
/// `x-ratelimit-*` fields, `retry-after`, ...
class http_headers {
public:
    using field = std::pair<std::string, std::string>;

    /// Appends a field (a name may appear more than once).
    void add(std::string name, std::string value) { fields_.emplace_back(std::move(name), std::move(value)); }
    /// Appends a field, its name and value copied in place.
    void add_copy(std::string_view name, std::string_view value) {
        fields_.emplace_back(std::piecewise_construct, std::forward_as_tuple(name), std::forward_as_tuple(value));
    }
    /// Makes room for `n` fields in all.
    void reserve(std::size_t n) { fields_.reserve(n); }

    /// The value of the first field named `name`; empty when there is none.
    std::optional<std::string_view> find(std::string_view name) const noexcept {
        for (const auto& [n, v] : fields_)
            if (detail::iequals(n, name)) return std::string_view(v);
        return std::nullopt;
    }
    /// The value of the first field named `name`, or "" when there is none.
    std::string_view get(std::string_view name) const noexcept { return find(name).value_or(std::string_view()); }

    /// The request id the server gave (`x-request-id`, or Anthropic's `request-id`); "" when none.
    std::string_view request_id() const noexcept {
        if (auto id = find("x-request-id")) return *id;
        return get("request-id");
    }

    /// Every field, in the order received.
    const std::vector<field>& fields() const noexcept { return fields_; }
    bool empty() const noexcept { return fields_.empty(); }
    std::size_t size() const noexcept { return fields_.size(); }
    void clear() noexcept { fields_.clear(); }

    friend bool operator==(const http_headers&, const http_headers&) = default;

private:
    std::vector<field> fields_;
};

}  // namespace parley

#endif
