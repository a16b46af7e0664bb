// parley/tokens/detail/literals.hpp: finding special and added tokens in a text: the leftmost
// match, and the longest of the matches that start there (Aho-Corasick's LeftmostLongest, which
// Hugging Face tokenizers uses), with a trie and a table of the bytes a token can start with.
#ifndef PARLEY_TOKENS_DETAIL_LITERALS_HPP
#define PARLEY_TOKENS_DETAIL_LITERALS_HPP

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace parley::tokens::detail {

/// A match of a literal: where it starts, its length and the literal's index.
struct literal_match {
    std::size_t begin = std::string_view::npos;
    std::size_t length = 0;
    std::uint32_t index = 0;
    explicit operator bool() const noexcept { return begin != std::string_view::npos; }
};

/// A set of literals (non-empty strings), searched in texts.
class literal_set {
public:
    /// Builds the set; literal i is reported with index i (the first of duplicates wins).
    void build(const std::vector<std::string>& literals) {
        nodes_.assign(1, node{});
        edges_.clear();
        first_.fill(false);
        std::vector<std::uint32_t> order(literals.size());
        for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return literals[a] < literals[b]; });
        // Insert in sorted order: the children of a node are then added in byte order, so each
        // node's edges can be laid out as one sorted run when the node is finished.
        struct pending {
            std::vector<std::pair<unsigned char, std::uint32_t>> children;
        };
        std::vector<pending> build(1);
        for (std::uint32_t i : order) {
            const std::string& s = literals[i];
            if (s.empty()) continue;
            first_[static_cast<unsigned char>(s[0])] = true;
            std::uint32_t at = 0;
            for (unsigned char c : s) {
                auto& ch = build[at].children;
                if (!ch.empty() && ch.back().first == c) {
                    at = ch.back().second;
                } else {
                    const auto next = static_cast<std::uint32_t>(nodes_.size());
                    nodes_.push_back(node{});
                    build.emplace_back();
                    build[at].children.emplace_back(c, next);
                    at = next;
                }
            }
            if (nodes_[at].literal == none) nodes_[at].literal = i;
            max_length_ = std::max(max_length_, s.size());
        }
        for (std::size_t n = 0; n < nodes_.size(); ++n) {
            nodes_[n].first_edge = static_cast<std::uint32_t>(edges_.size());
            nodes_[n].edge_count = static_cast<std::uint32_t>(build[n].children.size());
            for (auto& [c, child] : build[n].children) edges_.push_back(edge{c, child});
        }
        empty_ = nodes_.size() == 1;
        only_first_ = -1;
        for (int c = 0; c < 256; ++c) {
            if (!first_[static_cast<std::size_t>(c)]) continue;
            if (only_first_ >= 0) {
                only_first_ = -1;
                break;
            }
            only_first_ = c;
        }
    }

    bool empty() const noexcept { return empty_; }

    /// The longest literal that starts at `at`, or a match whose length is 0.
    literal_match longest_at(std::string_view text, std::size_t at) const noexcept {
        literal_match found;
        std::uint32_t n = 0;
        for (std::size_t i = at; i < text.size(); ++i) {
            n = child(n, static_cast<unsigned char>(text[i]));
            if (n == none) break;
            if (nodes_[n].literal != none) {
                found.begin = at;
                found.length = i + 1 - at;
                found.index = nodes_[n].literal;
            }
        }
        return found;
    }

    /// The leftmost match in `text` from `from`, the longest there; or no match.
    literal_match find(std::string_view text, std::size_t from) const noexcept {
        if (empty_) return {};
        if (only_first_ >= 0) {
            // one first byte (tiktoken's special tokens all start with '<'): memchr finds it
            const char c = static_cast<char>(only_first_);
            for (std::size_t i = from; i < text.size(); ++i) {
                const void* at = std::memchr(text.data() + i, c, text.size() - i);
                if (!at) break;
                i = static_cast<std::size_t>(static_cast<const char*>(at) - text.data());
                if (literal_match m = longest_at(text, i)) return m;
            }
            return {};
        }
        for (std::size_t i = from; i < text.size(); ++i) {
            if (!first_[static_cast<unsigned char>(text[i])]) continue;
            if (literal_match m = longest_at(text, i)) return m;
        }
        return {};
    }

    std::size_t memory() const noexcept { return nodes_.capacity() * sizeof(node) + edges_.capacity() * sizeof(edge); }

private:
    static constexpr std::uint32_t none = 0xffffffffu;
    struct node {
        std::uint32_t first_edge = 0, edge_count = 0, literal = none;
    };
    struct edge {
        unsigned char byte;
        std::uint32_t child;
    };
    std::uint32_t child(std::uint32_t n, unsigned char c) const noexcept {
        const edge* b = edges_.data() + nodes_[n].first_edge;
        const edge* e = b + nodes_[n].edge_count;
        const edge* it = std::lower_bound(b, e, c, [](const edge& x, unsigned char v) { return x.byte < v; });
        return it != e && it->byte == c ? it->child : none;
    }
    std::vector<node> nodes_;
    std::vector<edge> edges_;
    std::array<bool, 256> first_{};
    int only_first_ = -1;  ///< the first byte of every literal when they all have one, else -1
    std::size_t max_length_ = 0;
    bool empty_ = true;
};

}  // namespace parley::tokens::detail

#endif
