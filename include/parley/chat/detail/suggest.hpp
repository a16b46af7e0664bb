// parley/chat/detail/suggest.hpp: "did you mean" suggestions and "a, b or c" lists, for the
// errors of the chat layer (the rules' sentences, the YAML loader, JSON histories).
#ifndef PARLEY_CHAT_DETAIL_SUGGEST_HPP
#define PARLEY_CHAT_DETAIL_SUGGEST_HPP

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace parley::detail {

/// Edit distance with adjacent transpositions (optimal string alignment), for "did you mean".
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

/// "; did you mean 'KEY'?" for the closest of `known` when it is close (at most 2 edits, and at
/// most a third of the word); empty otherwise.
template <class Range>
std::string did_you_mean(std::string_view key, const Range& known) {
    if (key.size() > 64) return {};
    std::string_view best;
    std::size_t best_distance = 3;
    for (std::string_view k : known) {
        const std::size_t dist = edit_distance(key, k);
        if (dist < best_distance && dist * 3 <= std::max(key.size(), k.size())) {
            best = k;
            best_distance = dist;
        }
    }
    if (best.empty()) return {};
    return "; did you mean '" + std::string(best) + "'?";
}

/// "a, b or c"
template <class Range>
std::string or_list(const Range& words) {
    std::string s;
    std::size_t n = 0, count = static_cast<std::size_t>(std::distance(std::begin(words), std::end(words)));
    for (std::string_view w : words) {
        if (n > 0) s += n + 1 == count ? " or " : ", ";
        s += w;
        ++n;
    }
    return s;
}

/// "unknown key 'KEY' WHERE (expected a, b or c)", and "; did you mean 'K'?" when one is close.
template <class Range>
std::string unknown_key_sentence(std::string_view key, std::string_view where, const Range& known) {
    return "unknown key '" + std::string(key) + "' " + std::string(where) + " (expected " + or_list(known) + ")" +
           did_you_mean(key, known);
}

}  // namespace parley::detail

#endif
