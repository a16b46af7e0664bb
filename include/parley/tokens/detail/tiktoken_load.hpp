// parley/tokens/detail/tiktoken_load.hpp: reading a .tiktoken rank file (one token per line: its
// bytes in base64, a space, its rank) and the encoding's split pattern and special tokens.
#ifndef PARLEY_TOKENS_DETAIL_TIKTOKEN_LOAD_HPP
#define PARLEY_TOKENS_DETAIL_TIKTOKEN_LOAD_HPP

#include <parley/tokens/detail/json_reader.hpp>
#include <parley/tokens/detail/model.hpp>
#include <parley/tokens/options.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace parley::tokens::detail {

/// The special tokens of an encoding, as tiktoken_ext/openai_public.py defines them (the first
/// name of an id is the one decoding gives).
inline std::vector<added_token> encoding_specials(tiktoken_encoding e) {
    std::vector<added_token> s;
    auto add = [&](std::string text, std::uint32_t id) {
        added_token t;
        t.content = text;
        t.decoded = std::move(text);
        t.id = id;
        s.push_back(std::move(t));
    };
    switch (e) {
    case tiktoken_encoding::cl100k_base:
        add("<|endoftext|>", 100257);
        add("<|fim_prefix|>", 100258);
        add("<|fim_middle|>", 100259);
        add("<|fim_suffix|>", 100260);
        add("<|endofprompt|>", 100276);
        break;
    case tiktoken_encoding::o200k_base:
        add("<|endoftext|>", 199999);
        add("<|endofprompt|>", 200018);
        break;
    case tiktoken_encoding::o200k_harmony:
        // 200018 has two names; tiktoken decodes it as <|reserved_200018|> (the last of the
        // names in the order its hash map of special tokens keeps them), and so does parley
        add("<|reserved_200018|>", 200018);
        add("<|endoftext|>", 199999);
        add("<|endofprompt|>", 200018);
        add("<|startoftext|>", 199998);
        add("<|reserved_200000|>", 200000);
        add("<|reserved_200001|>", 200001);
        add("<|return|>", 200002);
        add("<|constrain|>", 200003);
        add("<|reserved_200004|>", 200004);
        add("<|channel|>", 200005);
        add("<|start|>", 200006);
        add("<|end|>", 200007);
        add("<|message|>", 200008);
        add("<|reserved_200009|>", 200009);
        add("<|reserved_200010|>", 200010);
        add("<|reserved_200011|>", 200011);
        add("<|call|>", 200012);
        for (std::uint32_t i = 200013; i < 201088; ++i)
            if (i != 200018) add("<|reserved_" + std::to_string(i) + "|>", i);
        break;
    }
    return s;
}

/// The value of each base64 character, or -1.
inline constexpr std::array<std::int8_t, 256> base64_values = [] {
    std::array<std::int8_t, 256> t{};
    for (auto& v : t) v = -1;
    for (int c = 0; c < 26; ++c) {
        t[static_cast<std::size_t>('A' + c)] = static_cast<std::int8_t>(c);
        t[static_cast<std::size_t>('a' + c)] = static_cast<std::int8_t>(26 + c);
    }
    for (int c = 0; c < 10; ++c) t[static_cast<std::size_t>('0' + c)] = static_cast<std::int8_t>(52 + c);
    t['+'] = 62;
    t['/'] = 63;
    return t;
}();

/// Decodes standard base64 (with padding) into `out`; false when `in` is not base64.
inline bool base64_decode(std::string_view in, std::string& out) {
    out.clear();
    if (in.size() % 4 != 0) return false;
    if (in.empty()) return true;
    // the padding: one or two '=' at the end of the last group
    const std::size_t pad = in[in.size() - 1] != '=' ? 0 : in[in.size() - 2] != '=' ? 1 : 2;
    out.resize(in.size() / 4 * 3);
    const auto* p = reinterpret_cast<const unsigned char*>(in.data());
    char* o = out.data();
    const std::size_t groups = in.size() / 4;
    for (std::size_t g = 0; g < groups; ++g, p += 4, o += 3) {
        const bool last = g + 1 == groups;
        const int a = base64_values[p[0]], b = base64_values[p[1]];
        const int c = last && pad == 2 ? 0 : base64_values[p[2]];
        const int d = last && pad >= 1 ? 0 : base64_values[p[3]];
        if ((a | b | c | d) < 0) return false;
        const std::uint32_t v = (std::uint32_t(a) << 18) | (std::uint32_t(b) << 12) | (std::uint32_t(c) << 6) | std::uint32_t(d);
        o[0] = static_cast<char>(v >> 16);
        o[1] = static_cast<char>((v >> 8) & 0xff);
        o[2] = static_cast<char>(v & 0xff);
    }
    out.resize(out.size() - pad);
    return true;
}

/// Reads `text` (the contents of a .tiktoken file named `name`) into `m`.
inline void load_tiktoken(model& m, std::string_view text, std::string_view name, tiktoken_encoding encoding,
                          const load_limits& limits) {
    if (text.size() > limits.max_file_bytes)
        throw error(errc::tokenizer_file, std::string(name) + ": the file has " + std::to_string(text.size()) +
                                              " bytes, more than the limit of " + std::to_string(limits.max_file_bytes));
    m.kind = model::family::tiktoken;
    m.pattern = split_pattern::o200k;
    if (encoding == tiktoken_encoding::cl100k_base) m.pattern = split_pattern::cl100k;
    struct entry {
        std::uint32_t rank, offset, length;
    };
    std::vector<entry> entries;
    std::string bytes, token;
    std::uint32_t max_rank = 0;
    for (std::size_t pos = 0; pos < text.size();) {
        std::size_t eol = text.find('\n', pos);
        if (eol == std::string_view::npos) eol = text.size();
        std::string_view line = text.substr(pos, eol - pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        const std::size_t line_at = pos;
        pos = eol + 1;
        if (line.empty()) continue;
        const std::size_t space = line.find(' ');
        if (space == std::string_view::npos || line.find(' ', space + 1) != std::string_view::npos)
            file_error(name, text, line_at, "expected a line 'BASE64 RANK' (two fields separated by one space)");
        if (!base64_decode(line.substr(0, space), token))
            file_error(name, text, line_at, "the token '" + std::string(line.substr(0, std::min<std::size_t>(space, 40))) +
                                                "' is not base64");
        if (token.empty()) file_error(name, text, line_at, "an empty token");
        if (token.size() > limits.max_token_bytes)
            file_error(name, text, line_at, "a token of " + std::to_string(token.size()) + " bytes, more than the limit of " +
                                                std::to_string(limits.max_token_bytes));
        const std::string_view digits = line.substr(space + 1);
        std::uint64_t rank = 0;
        if (digits.empty()) file_error(name, text, line_at + space + 1, "expected a rank after the token");
        for (char c : digits) {
            if (c < '0' || c > '9') file_error(name, text, line_at + space + 1, "the rank '" + std::string(digits.substr(0, 20)) + "' is not a non-negative integer");
            rank = rank * 10 + static_cast<unsigned>(c - '0');
            if (rank >= limits.max_vocabulary)
                file_error(name, text, line_at + space + 1, "a rank of " + std::string(digits.substr(0, 20)) +
                                                                ", not below the vocabulary limit of " + std::to_string(limits.max_vocabulary));
        }
        if (entries.size() >= limits.max_vocabulary)
            file_error(name, text, line_at, "more tokens than the limit of " + std::to_string(limits.max_vocabulary));
        entries.push_back({static_cast<std::uint32_t>(rank), static_cast<std::uint32_t>(bytes.size()), static_cast<std::uint32_t>(token.size())});
        bytes += token;
        max_rank = std::max(max_rank, static_cast<std::uint32_t>(rank));
    }
    if (entries.empty()) throw error(errc::tokenizer_file, std::string(name) + ": the file holds no token");
    // tokens by rank
    std::vector<std::uint32_t> of_rank(static_cast<std::size_t>(max_rank) + 1, no_token);
    for (std::uint32_t i = 0; i < entries.size(); ++i) {
        if (of_rank[entries[i].rank] != no_token) {
            throw error(errc::tokenizer_file, std::string(name) + ": the rank " + std::to_string(entries[i].rank) +
                                                  " is given to two tokens");
        }
        of_rank[entries[i].rank] = i;
    }
    m.tokens = token_table{};
    m.tokens.bytes.reserve(bytes.size());
    m.tokens.offsets.reserve(of_rank.size() + 1);
    m.hole.assign(of_rank.size(), false);
    for (std::size_t r = 0; r < of_rank.size(); ++r) {
        if (of_rank[r] == no_token) {
            m.hole[r] = true;
            m.tokens.push({});
        } else {
            m.tokens.push(std::string_view(bytes).substr(entries[of_rank[r]].offset, entries[of_rank[r]].length));
        }
    }
    m.lookup.reserve(m.tokens);
    for (std::uint32_t r = 0; r < of_rank.size(); ++r) {
        if (m.hole[r]) continue;
        const std::string_view t = m.tokens.text(r);
        if (m.lookup.insert(t, r, m.tokens) != r)
            throw error(errc::tokenizer_file, std::string(name) + ": the token of rank " + std::to_string(r) +
                                                  " is also the token of rank " + std::to_string(m.lookup.find(t, m.tokens)));
    }
    for (unsigned b = 0; b < 256; ++b) {
        const char c = static_cast<char>(b);
        if (m.lookup.find(std::string_view(&c, 1), m.tokens) == no_token) {
            static const char* hex = "0123456789abcdef";
            throw error(errc::tokenizer_file, std::string(name) + ": the byte 0x" + hex[b >> 4] + hex[b & 15] +
                                                  " is no token (a rank file must have every byte as a token)");
        }
    }
    m.pair_ranks.assign(65536 + 256, no_token);
    for (std::uint32_t r = 0; r < m.tokens.size(); ++r) {
        if (m.hole[r]) continue;
        const std::string_view t = m.tokens.text(r);
        const auto* u = reinterpret_cast<const unsigned char*>(t.data());
        if (t.size() == 2) m.pair_ranks[(std::size_t(u[0]) << 8) | u[1]] = r;
        else if (t.size() == 1) m.pair_ranks[65536 + u[0]] = r;
    }
    m.specials = encoding_specials(encoding);
    std::uint32_t size = static_cast<std::uint32_t>(m.tokens.size());
    for (const auto& s : m.specials) size = std::max(size, s.id + 1);
    m.vocab_size = size;
    m.special_by_content.assign(size, false);
    std::vector<std::string> literals;
    for (std::uint32_t i = 0; i < m.specials.size(); ++i) {
        const auto& s = m.specials[i];
        if (s.id < m.tokens.size() && !m.hole[s.id])
            throw error(errc::tokenizer_file, std::string(name) + ": the rank " + std::to_string(s.id) + " of the special token " +
                                                  s.content + " of " + std::string(encoding_name(encoding)) +
                                                  " is a token of the file: is the file of another encoding?");
        m.special_by_content[s.id] = true;
        literals.push_back(s.content);
    }
    m.special_set.build(literals);
    m.index_added();
}

}  // namespace parley::tokens::detail

#endif
