// parley/schema/detail/definition_names.hpp: the names of described structs in "$defs".
#ifndef PARLEY_SCHEMA_DETAIL_DEFINITION_NAMES_HPP
#define PARLEY_SCHEMA_DETAIL_DEFINITION_NAMES_HPP

#include <parley/config.hpp>
#include <parley/schema/detail/annotation_check.hpp>
#include <parley/schema/detail/constexpr_json.hpp>
#include <parley/type_name.hpp>

#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstddef>
#include <string_view>

namespace parley::detail {

/// The "$defs" names of the described structs of the mp11 list Structs, in the same order: the
/// annotated name(...) or the unqualified C++ name, reduced to [A-Za-z0-9_.-] (other characters
/// become one "_", so `box<int>` is "box_int") so that "#/$defs/<name>" needs no escaping; a
/// name already taken gets "_2", "_3"... Computed in a constant expression.
template <class Structs>
class definition_names {
    static constexpr std::size_t count = boost::mp11::mp_size<Structs>::value;

public:
    constexpr definition_names() {
        boost::mp11::mp_for_each<boost::mp11::mp_iota_c<count>>([&](auto i) {
            using S = boost::mp11::mp_at_c<Structs, i>;
            const annotation& self = annotations_v<S>.self;
            const std::string_view raw = self.has_name() ? self.name : type_name<S>();
            const std::size_t start = text_.size();
            for (char c : raw) {
                const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                                c == '-' || c == '.';
                if (ok)
                    text_.push_back(c);
                else if (text_.size() != start && text_.view().back() != '_')
                    text_.push_back('_');
            }
            while (text_.size() != start && text_.view().back() == '_') text_.truncate(text_.size() - 1);
            if (text_.size() == start) text_.append("type");
            const std::size_t base_end = text_.size();
            for (unsigned suffix = 2; taken(start, i); ++suffix) {
                text_.truncate(base_end);
                text_.push_back('_');
                append_unsigned(text_, suffix);
            }
            start_[i] = start;
            start_[i + 1] = text_.size();
        });
    }

    /// The name of the i-th struct.
    constexpr std::string_view operator[](std::size_t i) const {
        return text_.view().substr(start_[i], start_[i + 1] - start_[i]);
    }

private:
    constexpr bool taken(std::size_t start, std::size_t index) const {
        const std::string_view candidate = text_.view().substr(start);
        for (std::size_t j = 0; j != index; ++j)
            if ((*this)[j] == candidate) return true;
        return false;
    }

    text_buffer text_;
    std::array<std::size_t, count + 1> start_{};
};

}  // namespace parley::detail

#endif
