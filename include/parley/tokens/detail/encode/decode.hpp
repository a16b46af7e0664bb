// parley/tokens/detail/encode/decode.hpp: decoding token ids to text, for both kinds of model
// (byte-level bytes, byte fallback, the decoders of tokenizer.json).
#ifndef PARLEY_TOKENS_DETAIL_ENCODE_DECODE_HPP
#define PARLEY_TOKENS_DETAIL_ENCODE_DECODE_HPP

#include <parley/tokens/detail/encode/hf.hpp>

namespace parley::tokens::detail {

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
