// parley/tokens/detail/encode.hpp: encoding text to token ids and decoding ids to text, for both
// kinds of model.
//
// tiktoken: the text is cut at special tokens (when they are recognized), each part is split by
// the encoding's pattern, and each piece is one token when its bytes are one, else byte-pair
// merged.
//
// Hugging Face: the text is cut at the added tokens matched in the raw text; each part between
// them is normalized, cut at the added tokens matched in the normalized text, pre-tokenized into
// pieces, and each piece goes through the BPE model; the post-processor's tokens go around the
// result when asked for.
#ifndef PARLEY_TOKENS_DETAIL_ENCODE_HPP
#define PARLEY_TOKENS_DETAIL_ENCODE_HPP

#include <parley/error.hpp>
#include <parley/tokens/detail/bpe.hpp>
#include <parley/tokens/detail/model.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace parley::tokens::detail {

/// Where ids go: counted, and appended to `out` when it is set.
struct token_sink {
    std::vector<std::uint32_t>* out = nullptr;
    std::size_t count = 0;
    void add(std::uint32_t id) {
        ++count;
        if (out) out->push_back(id);
    }
};

/// What to do with text that spells a special token.
enum class special_mode : std::uint8_t { recognized, as_text, refused };

/// Results of recent pieces that took merges, per thread and tokenizer; emptied when half full.
/// A slot is 16 bytes (half a megabyte for all): a probe that finds nothing costs about what it
/// saves, so the table is kept small enough to stay in cache. Entries are forgotten by bumping a
/// generation number, without rewriting the slots.
class piece_cache {
public:
    static constexpr std::size_t max_piece = 256;

    /// The ids of `piece` (whose hash_bytes is `h`), or nullptr; `n` receives their number.
    const std::uint32_t* find(std::uint64_t owner, std::string_view piece, std::uint64_t h, std::size_t& n) {
        if (owner != owner_) {
            reset(owner);
            return nullptr;
        }
        const auto check = static_cast<std::uint32_t>(h >> 32);
        for (std::size_t i = h & mask;; i = (i + 1) & mask) {
            const slot& s = slots_[i];
            if (s.generation != generation_) return nullptr;
            if (s.check == check && s.key_length == piece.size() &&
                same_bytes(reinterpret_cast<const char*>(data_.data() + s.offset + s.ids_length), piece.data(), piece.size())) {
                n = s.ids_length;
                return data_.data() + s.offset;
            }
        }
    }

    /// Records the ids of `piece` (at most max_piece bytes, whose hash_bytes is `h`).
    void put(std::uint64_t owner, std::string_view piece, std::uint64_t h, const std::uint32_t* ids, std::size_t n) {
        if (owner != owner_ || used_ * 2 >= capacity || data_.size() > max_words) reset(owner);
        std::size_t i = h & mask;
        while (slots_[i].generation == generation_) i = (i + 1) & mask;
        const auto offset = static_cast<std::uint32_t>(data_.size());
        slots_[i] = slot{static_cast<std::uint32_t>(h >> 32), offset, static_cast<std::uint16_t>(piece.size()),
                         static_cast<std::uint16_t>(n), generation_};
        data_.insert(data_.end(), ids, ids + n);
        data_.resize(data_.size() + (piece.size() + 3) / 4);
        std::memcpy(data_.data() + offset + n, piece.data(), piece.size());
        ++used_;
    }

    /// Forgets every piece (the next lookup starts a new cache).
    void clear() noexcept { owner_ = 0; }

private:
    static constexpr std::size_t capacity = 1 << 15, mask = capacity - 1;
    static constexpr std::size_t max_words = std::size_t(1) << 20;  ///< of data_
    /// An entry: its ids then its bytes at data_[offset], of the generation that wrote it.
    struct slot {
        std::uint32_t check = 0, offset = 0;
        std::uint16_t key_length = 0, ids_length = 0;
        std::uint32_t generation = 0;
    };
    void reset(std::uint64_t owner) {
        owner_ = owner;
        if (slots_.size() != capacity || ++generation_ == 0) {
            slots_.assign(capacity, slot{});
            generation_ = 1;
        }
        data_.clear();
        used_ = 0;
    }
    std::vector<slot> slots_;
    std::vector<std::uint32_t> data_;  ///< ids and bytes of the entries
    std::uint64_t owner_ = 0;
    std::uint32_t generation_ = 0;
    std::size_t used_ = 0;
};

/// A piece of text to tokenize: bytes [b, e) of a thread's arena.
struct span {
    std::uint32_t b, e;
};

/// Per-thread working memory of the encoder.
struct encoder_scratch {
    bpe_scratch bpe;
    piece_cache cache;
    std::vector<std::uint32_t> ids;
    std::string normalized, normalize_tmp, arena;
    std::vector<span> pieces, pieces_tmp;
    std::vector<std::pair<span, bool>> matches;
};

inline encoder_scratch& thread_scratch() {
    thread_local encoder_scratch s;
    return s;
}

/// Throws errc::tokenizer_input for invalid UTF-8.
inline void check_utf8(std::string_view text) {
    const std::size_t bad = invalid_utf8_offset(text);
    if (bad != std::string_view::npos) {
        static const char* hex = "0123456789abcdef";
        const auto b = static_cast<unsigned char>(text[bad]);
        throw error(errc::tokenizer_input, std::string("the text is not valid UTF-8: byte 0x") + hex[b >> 4] + hex[b & 15] +
                                               " at offset " + std::to_string(bad) + " does not begin a valid sequence");
    }
}

[[noreturn]] inline void refused_special(const added_token& t, std::size_t at) {
    throw error(errc::tokenizer_input, "the text spells the special token " + t.content + " at byte " + std::to_string(at) +
                                           ", and special tokens are refused here (special_tokens::refused)");
}

// ---------------------------------------------------------------------------------------------
// tiktoken

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

// ---------------------------------------------------------------------------------------------
// Hugging Face

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

// ---------------------------------------------------------------------------------------------
// decoding

[[noreturn]] inline void unknown_id(std::uint32_t id, std::uint32_t size) {
    throw error(errc::tokenizer_input, "token id " + std::to_string(id) + " is not in the vocabulary (ids are below " +
                                           std::to_string(size) + ")");
}

/// tiktoken: the bytes of the tokens (special tokens as their text).
inline std::string tiktoken_decode(const model& m, const std::uint32_t* ids, std::size_t n) {
    std::string out;
    for (std::size_t k = 0; k < n; ++k) {
        const std::uint32_t id = ids[k];
        if (id >= m.vocab_size) unknown_id(id, m.vocab_size);
        if (id < m.tokens.size() && !m.hole[id]) {
            out += m.tokens.text(id);
        } else if (const added_token* t = m.added_of(id)) {
            out += t->content;
        } else {
            throw error(errc::tokenizer_input, "token id " + std::to_string(id) + " is no token of " + m.name);
        }
    }
    return out;
}

/// Hugging Face: the decoder chain over the tokens' texts, as TokenizerImpl::decode runs it.
inline std::string hf_decode(const model& m, const std::uint32_t* ids, std::size_t n, bool skip_special) {
    if (m.kind == model::family::hf_byte_level) {
        // the byte-level decoder: vocabulary tokens are held as their bytes, added tokens as what
        // the decoder makes of them (their characters mapped back through the byte alphabet when
        // all are in it, else their UTF-8)
        std::string bytes;
        for (std::size_t k = 0; k < n; ++k) {
            const std::uint32_t id = ids[k];
            if (id >= m.vocab_size) unknown_id(id, m.vocab_size);
            if (skip_special && m.special_by_content[id]) continue;
            if (const added_token* t = m.added_of(id)) bytes += t->decoded;
            else if (id < m.tokens.size() && !m.hole[id]) bytes += m.tokens.text(id);
        }
        std::string out;
        append_utf8_lossy(out, bytes);
        return out;
    }
    std::vector<std::string_view> texts;
    texts.reserve(n);
    for (std::size_t k = 0; k < n; ++k) {
        const std::uint32_t id = ids[k];
        if (id >= m.vocab_size) unknown_id(id, m.vocab_size);
        if (skip_special && m.special_by_content[id]) continue;
        if (const added_token* t = m.added_of(id)) texts.push_back(t->content);
        else if (id < m.tokens.size() && !m.hole[id]) texts.push_back(m.tokens.text(id));
        // an id of no token is left out, as the reference does
    }
    if (!m.has_decoder) {
        std::string out;
        for (std::size_t k = 0; k < texts.size(); ++k) {
            if (k) out += ' ';
            out += texts[k];
        }
        return out;
    }
    std::vector<std::string> tokens(texts.begin(), texts.end());
    for (const decoder_step& step : m.decoders) {
        switch (step.type) {
        case decoder_step::kind::replace:
            for (auto& t : tokens) {
                if (step.pattern.empty() || t.find(step.pattern) == std::string::npos) continue;
                std::string r;
                std::size_t from = 0;
                for (std::size_t at; (at = t.find(step.pattern, from)) != std::string::npos; from = at + step.pattern.size()) {
                    r.append(t, from, at - from);
                    r += step.content;
                }
                r.append(t, from, std::string::npos);
                t.swap(r);
            }
            break;
        case decoder_step::kind::byte_fallback: {
            std::vector<std::string> out;
            std::string bytes;
            std::size_t count = 0;
            auto flush = [&] {
                if (!count) return;
                if (invalid_utf8_offset(bytes) == std::string_view::npos) {
                    out.push_back(bytes);
                } else {
                    for (std::size_t k = 0; k < count; ++k) out.emplace_back("\xEF\xBF\xBD");
                }
                bytes.clear();
                count = 0;
            };
            auto hexval = [](char c) -> int {
                if (c >= '0' && c <= '9') return c - '0';
                if (c >= 'a' && c <= 'f') return c - 'a' + 10;
                if (c >= 'A' && c <= 'F') return c - 'A' + 10;
                return -1;
            };
            for (auto& t : tokens) {
                if (t.size() == 6 && t.compare(0, 3, "<0x") == 0 && t[5] == '>' && hexval(t[3]) >= 0 && hexval(t[4]) >= 0) {
                    bytes += static_cast<char>(hexval(t[3]) * 16 + hexval(t[4]));
                    ++count;
                    continue;
                }
                flush();
                out.push_back(std::move(t));
            }
            flush();
            tokens.swap(out);
            break;
        }
        case decoder_step::kind::fuse: {
            std::string all;
            for (auto& t : tokens) all += t;
            tokens.assign(1, std::move(all));
            break;
        }
        case decoder_step::kind::strip:
            for (auto& t : tokens) {
                std::vector<char32_t> cps;
                const auto* p = reinterpret_cast<const unsigned char*>(t.data());
                const auto* e = p + t.size();
                while (p < e) {
                    unsigned len;
                    cps.push_back(decode_utf8(p, len));
                    p += len;
                }
                std::size_t b = 0, end = cps.size();
                for (std::size_t k = 0; k < step.start && k < cps.size() && cps[k] == step.strip_char; ++k) b = k + 1;
                for (std::size_t k = 0; k < step.stop && k < cps.size(); ++k) {
                    const std::size_t at = cps.size() - k - 1;
                    if (cps[at] != step.strip_char) break;
                    end = at;
                }
                std::string r;
                for (std::size_t k = b; k < end; ++k) append_utf8(r, cps[k]);
                t.swap(r);
            }
            break;
        case decoder_step::kind::byte_level: break;  // byte-level models take the path above
        }
    }
    std::string out;
    for (auto& t : tokens) out += t;
    return out;
}

}  // namespace parley::tokens::detail

#endif
