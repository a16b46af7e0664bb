// Fuzz target: the tokenizers (parley/tokens/tokenizer.hpp).
//
// Input: byte 0 % 6 chooses what is done with the rest:
//   0, 1  encode with a small rank file under o200k_base's (0) or cl100k_base's (1) pattern and
//         specials: for valid UTF-8, decode(encode(text)) must be the text, count must be the
//         number of ids, and reading special tokens as text must round-trip too; for invalid
//         UTF-8, encode must throw errc::tokenizer_input;
//   2     the same with a small byte-level tokenizer.json (Llama 3's split pattern, added tokens);
//   3     a small BPE over characters with NFC, Prepend, Replace, byte fallback and its decoder:
//         count must be the number of ids, and decoding must not fail;
//   4     the rest read as a tokenizer.json; 5: as a .tiktoken file (errors are expected, crashes
//         and hangs are findings).
#include <parley/tokens/tokenizer.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

using parley::tokens::tokenizer;

std::string base64(std::string_view s) {
    static const char* a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    std::size_t i = 0;
    for (; i + 2 < s.size(); i += 3) {
        const unsigned v = (unsigned char)s[i] << 16 | (unsigned char)s[i + 1] << 8 | (unsigned char)s[i + 2];
        out += {a[v >> 18], a[(v >> 12) & 63], a[(v >> 6) & 63], a[v & 63]};
    }
    if (s.size() - i == 1) out += {a[(unsigned char)s[i] >> 2], a[((unsigned char)s[i] & 3) << 4], '=', '='};
    if (s.size() - i == 2) {
        const unsigned v = (unsigned char)s[i] << 8 | (unsigned char)s[i + 1];
        out += {a[v >> 10], a[(v >> 4) & 63], a[(v << 2) & 63], '='};
    }
    return out;
}

const std::vector<std::string>& words() {
    static const std::vector<std::string> w = {"th", "he", "the", " t", " th", " the", "in", "ing", "er", "an", " a", "on", "re",
                                               "  ", "    ", "\n\n", "é", "\xC3", "\xE4\xB8", "中", "中文", "'s", " is", "is", "at"};
    return w;
}

const tokenizer& ranks(bool cl100k) {
    static const auto make = [](parley::tokens::tiktoken_encoding e) {
        std::string file;
        int rank = 0;
        for (int b = 0; b < 256; ++b) file += base64(std::string(1, char(b))) + " " + std::to_string(rank++) + "\n";
        for (const auto& w : words())
            if (w.size() > 1) file += base64(w) + " " + std::to_string(rank++) + "\n";
        return tokenizer::from_tiktoken(file, e);
    };
    static const tokenizer o200k_ranks = make(parley::tokens::tiktoken_encoding::o200k_base);
    static const tokenizer cl100k_ranks = make(parley::tokens::tiktoken_encoding::cl100k_base);
    return cl100k ? cl100k_ranks : o200k_ranks;
}

std::string byte_level(unsigned char b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
    unsigned n = 0;
    for (unsigned k = 0; k < b; ++k)
        if (!((k >= '!' && k <= '~') || (k >= 0xA1 && k <= 0xAC) || k >= 0xAE)) ++n;
    const char32_t c = printable ? b : 256 + n;
    std::string s;
    if (c < 0x80) s += char(c);
    else {
        s += char(0xC0 | (c >> 6));
        s += char(0x80 | (c & 0x3f));
    }
    return s;
}

std::string json_string(std::string_view s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') out += '\\', out += char(c);
        else if (c < 0x20) {
            static const char* hex = "0123456789abcdef";
            out += "\\u00";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else out += char(c);
    }
    return out + "\"";
}

const tokenizer& hf_byte_level() {
    static const tokenizer t = [] {
        std::string vocab;
        int id = 0;
        std::vector<std::string> merges;
        for (int b = 0; b < 256; ++b) {
            vocab += (id ? "," : "") + json_string(byte_level((unsigned char)b)) + ":" + std::to_string(id);
            ++id;
        }
        for (const auto& w : words()) {
            std::string left, whole;
            bool all = true;
            for (unsigned char c : w) all = all && c < 0x80;
            if (!all || w.size() < 2) continue;
            for (std::size_t k = 0; k < w.size(); ++k) whole += byte_level((unsigned char)w[k]);
            left = byte_level((unsigned char)w[0]);
            std::string right;
            for (std::size_t k = 1; k < w.size(); ++k) right += byte_level((unsigned char)w[k]);
            if (w.size() > 2) continue;  // two-byte words only: their halves are in the vocabulary
            vocab += "," + json_string(whole) + ":" + std::to_string(id++);
            merges.push_back(json_string(left + " " + right));
        }
        std::string m;
        for (const auto& x : merges) m += (m.empty() ? "" : ",") + x;
        const std::string pattern =
            R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+)";
        const std::string json = R"({"added_tokens": [{"id": )" + std::to_string(id) +
                                 R"(, "content": "<|end|>", "special": true}, {"id": )" + std::to_string(id + 1) +
                                 R"(, "content": "<x>", "special": false, "normalized": false}],
  "normalizer": null,
  "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": ")" + pattern +
                                 R"("}, "behavior": "Isolated", "invert": false}, {"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}]},
  "post_processor": {"type": "ByteLevel"}, "decoder": {"type": "ByteLevel"},
  "model": {"type": "BPE", "ignore_merges": true, "vocab": {)" + vocab + R"(}, "merges": [)" + m + "]}}";
        return tokenizer::from_tokenizer_json(json, "fuzz byte-level");
    }();
    return t;
}

const tokenizer& hf_chars() {
    static const tokenizer t = tokenizer::from_tokenizer_json(R"({
  "added_tokens": [{"id": 0, "content": "<unk>", "special": true}, {"id": 1, "content": "<s>", "special": true},
                   {"id": 9, "content": "\n", "special": false, "normalized": false}],
  "normalizer": {"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Prepend", "prepend": "▁"},
                 {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
  "pre_tokenizer": null,
  "post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
                     "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
  "decoder": {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
              {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
  "model": {"type": "BPE", "unk_token": "<unk>", "byte_fallback": true, "fuse_unk": true,
            "vocab": {"<unk>": 0, "<s>": 1, "<0xC3>": 2, "<0xA9>": 3, "a": 4, "b": 5, "▁": 6, "ab": 7, "▁ab": 8, "\n": 9, "é": 10, "é▁": 11},
            "merges": ["a b", "▁ ab", "é ▁"]}})",
                                                              "fuzz chars");
    return t;
}

bool valid_utf8(std::string_view s) { return parley::tokens::detail::invalid_utf8_offset(s) == std::string_view::npos; }

void round_trip(const tokenizer& t, std::string_view text) {
    if (!valid_utf8(text)) {
        try {
            (void)t.encode(text);
        } catch (const parley::error& e) {
            if (e.code() == parley::errc::tokenizer_input) return;
        }
        std::abort();  // invalid UTF-8 must be refused
    }
    for (auto special : {parley::tokens::special_tokens::recognized, parley::tokens::special_tokens::as_text}) {
        const auto ids = t.encode(text, {special});
        if (t.count(text, {special}) != ids.size()) std::abort();
        if (t.decode(ids) != text) std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    switch (data[0] % 6) {
    case 0:
    case 1: round_trip(ranks(data[0] % 6 == 1), text); break;
    case 2: round_trip(hf_byte_level(), text); break;
    case 3:
        if (!valid_utf8(text)) break;
        for (bool add : {false, true}) {
            const auto ids = hf_chars().encode(text, {parley::tokens::special_tokens::recognized, add});
            if (hf_chars().count(text, {parley::tokens::special_tokens::recognized, add}) != ids.size()) std::abort();
            (void)hf_chars().decode(ids);
            (void)hf_chars().decode(ids, {true});
        }
        break;
    case 4:
        try {
            const tokenizer t = tokenizer::from_tokenizer_json(text, "fuzz.json");
            if (valid_utf8(text.substr(0, 64))) (void)t.encode(text.substr(0, 64));
        } catch (const parley::error&) {
        }
        break;
    case 5:
        try {
            const tokenizer t = tokenizer::from_tiktoken(text, parley::tokens::tiktoken_encoding::cl100k_base, "fuzz.tiktoken");
            round_trip(t, "Hello world, it's 2024!");
        } catch (const parley::error&) {
        }
        break;
    }
    return 0;
}
