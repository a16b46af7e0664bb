// parley/tokens/detail/encode/tiktoken.hpp: encoding with a tiktoken model: the text cut at special
// tokens, each part split by the encoding's pattern, each piece one token or byte-pair merged.
#ifndef PARLEY_TOKENS_DETAIL_ENCODE_TIKTOKEN_HPP
#define PARLEY_TOKENS_DETAIL_ENCODE_TIKTOKEN_HPP

#include <parley/tokens/detail/encode/common.hpp>

namespace parley::tokens::detail {

/// Encodes one piece with tiktoken's rule.
inline void tiktoken_piece(const model& m, std::string_view piece, token_sink& sink, encoder_scratch& s) {
    const std::uint32_t id = m.lookup.find(piece, m.tokens);
    if (id != no_token) {
        sink.add(id);
        return;
    }
    const std::uint64_t h = hash_bytes(reinterpret_cast<const unsigned char*>(piece.data()), piece.size());
    const bool cacheable = piece.size() <= piece_cache::max_piece;
    if (cacheable) {
        std::size_t n = 0;
        if (const std::uint32_t* hit = s.cache.find(m.instance, piece, h, n)) {
            for (std::size_t k = 0; k < n; ++k) sink.add(hit[k]);
            return;
        }
    }
    if (s.ids.size() < piece.size()) s.ids.resize(piece.size());
    std::uint32_t* ids = s.ids.data();
    std::size_t count = 0;
    tiktoken_merge(piece, m.lookup, m.tokens, m.pair_ranks.data(), s.bpe, [&](std::uint32_t t) { ids[count++] = t; });
    if (cacheable) s.cache.put(m.instance, piece, h, ids, count);
    for (std::size_t k = 0; k < count; ++k) sink.add(ids[k]);
    if (piece.size() > kept_scratch_units) std::vector<std::uint32_t>().swap(s.ids);
}

/// Encodes text without special tokens.
inline void tiktoken_ordinary(const model& m, std::string_view text, token_sink& sink, encoder_scratch& s) {
    const splitter sp(m.pattern, text);
    std::size_t i = 0;
    while (i < text.size()) {
        std::size_t len = sp.match(i);
        if (len == 0) len = sp.at(i).length;  // never for the encodings' patterns, which match everything
        tiktoken_piece(m, text.substr(i, len), sink, s);
        i += len;
    }
}

inline void tiktoken_encode(const model& m, std::string_view text, special_mode mode, token_sink& sink) {
    encoder_scratch& s = thread_scratch();
    if (mode == special_mode::as_text || m.special_set.empty()) {
        tiktoken_ordinary(m, text, sink, s);
        return;
    }
    std::size_t pos = 0;
    for (;;) {
        const literal_match found = m.special_set.find(text, pos);
        if (!found) break;
        if (mode == special_mode::refused) refused_special(m.specials[found.index], found.begin);
        tiktoken_ordinary(m, text.substr(pos, found.begin - pos), sink, s);
        sink.add(m.specials[found.index].id);
        pos = found.begin + found.length;
    }
    tiktoken_ordinary(m, text.substr(pos), sink, s);
}

}  // namespace parley::tokens::detail

#endif
