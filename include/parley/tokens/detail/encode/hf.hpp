// parley/tokens/detail/encode/hf.hpp: encoding with a Hugging Face model: added tokens matched in
// the raw and the normalized text, normalization, pre-tokenization into pieces, the BPE model, the
// post-processor's tokens.
#ifndef PARLEY_TOKENS_DETAIL_ENCODE_HF_HPP
#define PARLEY_TOKENS_DETAIL_ENCODE_HF_HPP

#include <parley/tokens/detail/encode/tiktoken.hpp>

namespace parley::tokens::detail {

/// Cuts `text` at the added tokens of `set` (find_matches of added_vocabulary.rs: single_word,
/// lstrip and rstrip as there), calling on_text(part) and on_added(token).
template <class OnText, class OnAdded>
void split_added(const model& m, std::string_view text, const literal_set& set, const std::vector<std::uint32_t>& index,
                 special_mode mode, OnText&& on_text, OnAdded&& on_added) {
    if (set.empty()) {
        on_text(text);
        return;
    }
    std::size_t start_offset = 0, from = 0;
    auto is_word = [](std::string_view t, std::size_t at) {
        unsigned len;
        return (char_bits(decode_utf8(reinterpret_cast<const unsigned char*>(t.data()) + at, len)) & cb_word) != 0;
    };
    while (from < text.size()) {
        const literal_match found = set.find(text, from);
        if (!found) break;
        from = found.begin + found.length;
        const added_token& t = m.specials[index[found.index]];
        std::size_t start = found.begin, stop = found.begin + found.length;
        if (t.single_word) {
            bool start_space = start == 0;
            if (!start_space) {
                std::size_t p = start - 1;
                while (p > 0 && (static_cast<unsigned char>(text[p]) & 0xC0) == 0x80) --p;
                start_space = !is_word(text, p);
            }
            const bool stop_space = stop == text.size() || !is_word(text, stop);
            if (!start_space || !stop_space) continue;
        }
        if (t.special && mode == special_mode::refused) refused_special(t, found.begin);
        if (t.lstrip) {
            std::size_t b = start;
            while (b > 0) {
                std::size_t p = b - 1;
                while (p > 0 && (static_cast<unsigned char>(text[p]) & 0xC0) == 0x80) --p;
                unsigned len;
                if (!(char_bits(decode_utf8(reinterpret_cast<const unsigned char*>(text.data()) + p, len)) & cb_space)) break;
                b = p;
            }
            start = std::max(b, start_offset);
        }
        if (t.rstrip) {
            while (stop < text.size()) {
                unsigned len;
                if (!(char_bits(decode_utf8(reinterpret_cast<const unsigned char*>(text.data()) + stop, len)) & cb_space)) break;
                stop += len;
            }
        }
        if (start_offset < start) on_text(text.substr(start_offset, start - start_offset));
        on_added(t);
        start_offset = stop;
    }
    if (start_offset < text.size()) on_text(text.substr(start_offset));
}

/// Calls add(b, e, is_match) for the matches of a split step's pattern in `text` and the gaps
/// between them, in order (is_match before the step's invert).
template <class Add>
void for_each_split(const pre_tokenizer_step& step, std::string_view text, Add&& add) {
    if (step.type == pre_tokenizer_step::kind::split_regex) {
        for_each_match(step.pattern, text, add);
    } else if (step.literal.empty()) {
        add(0, text.size(), false);
    } else {
        std::size_t from = 0;
        for (std::size_t at; (at = text.find(step.literal, from)) != std::string_view::npos; from = at + step.literal.size()) {
            if (at > from) add(from, at, false);
            add(at, at + step.literal.size(), true);
        }
        if (from < text.size()) add(from, text.size(), false);
    }
}

/// Applies one split step to arena[piece] and appends the resulting pieces to `out`.
inline void split_step(const pre_tokenizer_step& step, const std::string& arena, span piece, std::vector<span>& out,
                       std::vector<std::pair<span, bool>>& matches) {
    const std::string_view text(arena.data() + piece.b, piece.e - piece.b);
    matches.clear();
    for_each_split(step, text, [&](std::size_t b, std::size_t e, bool is_match) {
        matches.push_back({span{static_cast<std::uint32_t>(piece.b + b), static_cast<std::uint32_t>(piece.b + e)}, is_match != step.invert});
    });
    using B = pre_tokenizer_step::behavior;
    const std::size_t first = out.size();
    bool prev_match = false;
    switch (step.how) {
    case B::isolated:
        for (auto& [sp, is_match] : matches) out.push_back(sp);
        break;
    case B::removed:
        for (auto& [sp, is_match] : matches)
            if (!is_match) out.push_back(sp);
        break;
    case B::contiguous:
        for (auto& [sp, is_match] : matches) {
            if (out.size() > first && is_match == prev_match) out.back().e = sp.e;
            else out.push_back(sp);
            prev_match = is_match;
        }
        break;
    case B::merged_with_previous:
        for (auto& [sp, is_match] : matches) {
            if (out.size() > first && is_match && !prev_match) out.back().e = sp.e;
            else out.push_back(sp);
            prev_match = is_match;
        }
        break;
    case B::merged_with_next:
        for (auto it = matches.rbegin(); it != matches.rend(); ++it) {
            if (out.size() > first && it->second && !prev_match) out.back().b = it->first.b;
            else out.push_back(it->first);
            prev_match = it->second;
        }
        std::reverse(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
        break;
    }
}

/// Pre-tokenizes arena[whole] into s.pieces with the pre-tokenizer steps from `first` on.
inline void pre_tokenize(const model& m, span whole, encoder_scratch& s, std::size_t first = 0) {
    s.pieces.clear();
    s.pieces.push_back(whole);
    for (std::size_t k = first; k < m.pre_tokenizers.size(); ++k) {
        const pre_tokenizer_step& step = m.pre_tokenizers[k];
        s.pieces_tmp.clear();
        for (span piece : s.pieces) {
            if (piece.e == piece.b) continue;
            if (step.type != pre_tokenizer_step::kind::byte_level) {
                split_step(step, s.arena, piece, s.pieces_tmp, s.matches);
                continue;
            }
            if (step.add_prefix_space && s.arena[piece.b] != ' ') {
                const auto b = static_cast<std::uint32_t>(s.arena.size());
                s.arena += ' ';
                s.arena.append(s.arena, piece.b, piece.e - piece.b);
                piece = span{b, static_cast<std::uint32_t>(s.arena.size())};
            }
            if (step.use_regex) {
                pre_tokenizer_step gpt2;
                gpt2.pattern = split_pattern::gpt2;
                split_step(gpt2, s.arena, piece, s.pieces_tmp, s.matches);
            } else {
                s.pieces_tmp.push_back(piece);
            }
        }
        s.pieces.swap(s.pieces_tmp);
    }
}

/// Encodes one pre-tokenized piece with the BPE model.
inline void hf_piece(const model& m, std::string_view piece, token_sink& sink, encoder_scratch& s) {
    if (piece.empty()) return;
    if (m.ignore_merges) {
        const std::uint32_t id = m.lookup.find(piece, m.tokens);
        if (id != no_token) {
            sink.add(id);
            return;
        }
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
    auto& symbols = s.bpe.symbols;
    symbols.clear();
    const bool byte_level = m.kind == model::family::hf_byte_level;
    if (byte_level) {
        symbols.resize(piece.size());
        for (std::size_t k = 0; k < piece.size(); ++k) symbols[k] = m.byte_ids[static_cast<unsigned char>(piece[k])];
    } else {
        std::uint32_t unk_len = 0;  // a pending unknown run (fuse_unk)
        const auto* p = reinterpret_cast<const unsigned char*>(piece.data());
        const auto* end = p + piece.size();
        while (p < end) {
            unsigned len;
            decode_utf8(p, len);
            const std::string_view ch(reinterpret_cast<const char*>(p), len);
            p += len;
            const std::uint32_t id = m.lookup.find(ch, m.tokens);
            if (id != no_token) {
                if (unk_len) {
                    symbols.push_back(m.unk_id);
                    unk_len = 0;
                }
                symbols.push_back(id);
                continue;
            }
            if (m.byte_fallback) {
                bool all = true;
                for (unsigned char b : ch) all = all && m.byte_fallback_ids[b] != no_token;
                if (all) {
                    for (unsigned char b : ch) symbols.push_back(m.byte_fallback_ids[b]);
                    continue;
                }
            }
            if (m.unk_id != no_token) {
                if (unk_len && !m.fuse_unk) {
                    symbols.push_back(m.unk_id);
                    unk_len = 0;
                }
                unk_len += len;
            }
        }
        if (unk_len) symbols.push_back(m.unk_id);
    }
    if (s.ids.size() < symbols.size()) s.ids.resize(symbols.size());
    std::uint32_t* ids = s.ids.data();
    std::size_t count = 0;
    if (!symbols.empty())
        hf_merge(m.merges, reinterpret_cast<const unsigned char*>(piece.data()), byte_level ? m.byte_pairs.data() : nullptr, s.bpe,
                 [&](std::uint32_t t) { ids[count++] = t; });
    if (cacheable) s.cache.put(m.instance, piece, h, ids, count);
    for (std::size_t k = 0; k < count; ++k) sink.add(ids[k]);
    if (symbols.size() > kept_scratch_units) {
        std::vector<std::uint32_t>().swap(symbols);
        std::vector<std::uint32_t>().swap(s.ids);
    }
}

/// Normalizes, cuts at normalized added tokens, pre-tokenizes and encodes one part of a text
/// (between added tokens of the raw text), or one chunk of it.
inline void hf_part(const model& m, std::string_view part, bool part_start, special_mode mode, token_sink& sink,
                    encoder_scratch& s) {
    std::string_view normalized = part;
    if (!m.normalizers.empty()) {
        normalize(m.normalizers, part, part_start, s.normalized, s.normalize_tmp);
        normalized = s.normalized;
    }
    const bool plain = mode == special_mode::as_text;
    // A first step that isolates its matches (Llama 3's, Qwen's, DeepSeek's, gpt-oss's) runs over
    // the text as it finds pieces, each going through the later steps at once: no copy of the
    // whole text and no list of all its pieces, which would not stay in cache.
    const auto& steps = m.pre_tokenizers;
    const bool stream = !steps.empty() && steps[0].type != pre_tokenizer_step::kind::byte_level &&
                        steps[0].how == pre_tokenizer_step::behavior::isolated;
    bool later_steps = false;  // steps after the first that change pieces
    for (std::size_t k = 1; k < steps.size(); ++k)
        if (steps[k].type != pre_tokenizer_step::kind::byte_level || steps[k].add_prefix_space || steps[k].use_regex) later_steps = true;
    auto on_text = [&](std::string_view text) {
        if (stream) {
            for_each_split(steps[0], text, [&](std::size_t b, std::size_t e, bool) {
                if (b == e) return;
                if (!later_steps) {
                    hf_piece(m, text.substr(b, e - b), sink, s);
                    return;
                }
                s.arena.assign(text.substr(b, e - b));
                pre_tokenize(m, span{0, static_cast<std::uint32_t>(e - b)}, s, 1);
                for (span piece : s.pieces) hf_piece(m, std::string_view(s.arena.data() + piece.b, piece.e - piece.b), sink, s);
            });
            return;
        }
        s.arena.assign(text);
        pre_tokenize(m, span{0, static_cast<std::uint32_t>(text.size())}, s);
        for (span piece : s.pieces) hf_piece(m, std::string_view(s.arena.data() + piece.b, piece.e - piece.b), sink, s);
    };
    auto on_added = [&](const added_token& t) { sink.add(t.id); };
    if (plain)
        split_added(m, normalized, m.normalized_added_plain, m.normalized_added_plain_index, mode, on_text, on_added);
    else
        split_added(m, normalized, m.normalized_added, m.normalized_added_index, mode, on_text, on_added);
}

/// Bytes of a chunk of a long part: small enough that the chunk's copy and its pieces stay in
/// the processor's cache while they are encoded.
inline constexpr std::size_t chunk_bytes = 1 << 16;

/// The end of the chunk of `part` that starts at `from`: after a newline between two non-space
/// ASCII characters, at least chunk_bytes on, or the end.
inline std::size_t chunk_end(std::string_view part, std::size_t from) {
    auto plain = [](unsigned char c) { return c >= 0x21 && c < 0x7f; };
    for (std::size_t i = from + chunk_bytes; i + 1 < part.size(); ++i)
        if (part[i] == '\n' && plain(static_cast<unsigned char>(part[i - 1])) && plain(static_cast<unsigned char>(part[i + 1])))
            return i + 1;
    return part.size();
}

inline void hf_encode(const model& m, std::string_view text, special_mode mode, bool add_special_tokens, token_sink& sink) {
    encoder_scratch& s = thread_scratch();
    if (add_special_tokens)
        for (std::uint32_t id : m.prefix_ids) sink.add(id);
    auto on_text = [&](std::string_view part) {
        if (!m.chunk_safe || part.size() <= chunk_bytes) {
            hf_part(m, part, true, mode, sink, s);
            return;
        }
        for (std::size_t from = 0; from < part.size();) {
            const std::size_t to = chunk_end(part, from);
            hf_part(m, part.substr(from, to - from), from == 0, mode, sink, s);
            from = to;
        }
    };
    auto on_added = [&](const added_token& t) { sink.add(t.id); };
    if (mode == special_mode::as_text)
        split_added(m, text, m.raw_added_plain, m.raw_added_plain_index, mode, on_text, on_added);
    else
        split_added(m, text, m.raw_added, m.raw_added_index, mode, on_text, on_added);
    if (add_special_tokens)
        for (std::uint32_t id : m.suffix_ids) sink.add(id);
}

}  // namespace parley::tokens::detail

#endif
