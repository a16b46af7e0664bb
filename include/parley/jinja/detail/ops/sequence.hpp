// parley/jinja/detail/ops/sequence.hpp: iterating a template value as Python iterates it: lists and
// viewed sequences by index, everything else listed once.
#ifndef PARLEY_JINJA_DETAIL_OPS_SEQUENCE_HPP
#define PARLEY_JINJA_DETAIL_OPS_SEQUENCE_HPP

#include <parley/jinja/detail/ops/repr.hpp>

namespace parley::jinja::detail {

/// A value to iterate over: lists and viewed sequences by index, everything else listed once.
class sequence {
public:
    explicit sequence(const value& v) : src_(v) {
        switch (v.kind()) {
        case value_kind::list:
            list_ = &v.list();
            n_ = list_->items.size();
            if (list_->generator) {
                if (list_->consumed) n_ = 0;
                list_->consumed = true;
            }
            return;
        case value_kind::view:
            if (v.view_adapter()->shape == view_shape::sequence) {
                const adapter* ad = v.view_adapter();
                if (ad->each) {  // no random access: collect the elements in one pass
                    auto add = [&](const value& x, const value&) { own_.push_back(x); };
                    adapter_each(ad, v.view_object(), add);
                    n_ = own_.size();
                    return;
                }
                ad_ = ad;
                n_ = ad_->size(v.view_object());
                return;
            }
            break;
        case value_kind::undefined: check_strict(v); return;
        case value_kind::string: {
            const std::string_view s = v.as_string();
            for (std::size_t i = 0; i < s.size();) {
                const std::size_t b = i;
                utf8_decode(s, i);
                own_.push_back(v.substr(b, i - b).with_markup(false));  // a Markup string iterates as str
            }
            n_ = own_.size();
            return;
        }
        case value_kind::dict:
            break;
        case value_kind::object:
            if (v.object().callable()) break;
            [[fallthrough]];
        default:
            type_error(std::string("'") + type_name(v) + "' object is not iterable");
        }
        if (!v.is_mapping_like()) type_error(std::string("'") + type_name(v) + "' object is not iterable");
        if (v.is_dict()) {  // the keys, without the values
            own_.reserve(v.dict().items.size());
            for (const auto& kv : v.dict().items) own_.push_back(kv.first);
        } else if (const adapter* ad = v.view_adapter(); !ad->each) {
            const std::size_t n = ad->size(v.view_object());
            own_.reserve(n);
            for (std::size_t i = 0; i < n; ++i) own_.push_back(ad->at(v.view_object(), i));
        } else {
            for_each_item(v, [&](const value& k, const value&) { own_.push_back(k); });
        }
        n_ = own_.size();
    }
    std::size_t size() const noexcept { return list_ ? std::min(n_, list_->items.size()) : n_; }
    /// Whether the items are read in place from a C++ or JSON sequence (which a render cannot
    /// change) rather than from a template list or a copy.
    bool views_in_place() const noexcept { return ad_ != nullptr; }
    value operator[](std::size_t i) const {
        if (list_) return list_->items[i];
        if (ad_) return ad_->at(src_.view_object(), i);
        return own_[i];
    }
    /// The items as a vector (copies the values, not the data they view).
    std::vector<value> to_vector() const {
        if (!own_.empty() || (!list_ && !ad_)) return own_;  // a copy: to_vector() may be called again
        std::vector<value> r;
        const std::size_t n = size();
        r.reserve(n);
        for (std::size_t i = 0; i < n; ++i) r.push_back((*this)[i]);
        return r;
    }

private:
    value src_;
    const list_obj* list_ = nullptr;
    const adapter* ad_ = nullptr;
    std::size_t n_ = 0;
    std::vector<value> own_;
};

}  // namespace parley::jinja::detail

#endif
