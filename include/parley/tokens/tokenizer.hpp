// parley/tokens/tokenizer.hpp: exact token counts. A tokenizer reads OpenAI's tiktoken rank files
// (o200k_base, cl100k_base, o200k_harmony) or Hugging Face tokenizer.json files (byte-level BPE:
// Llama 3, Qwen 3, DeepSeek V3, gpt-oss; BPE over characters with byte fallback: Llama 2,
// Gemma 3), and encodes, decodes and counts exactly as tiktoken and Hugging Face tokenizers do.
// See docs/tokens.md.
#ifndef PARLEY_TOKENS_TOKENIZER_HPP
#define PARLEY_TOKENS_TOKENIZER_HPP

#include <parley/error.hpp>
#include <parley/tokens/detail/encode.hpp>
#include <parley/tokens/detail/hf_load.hpp>
#include <parley/tokens/detail/tiktoken_load.hpp>
#include <parley/tokens/options.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace parley::tokens {

/// What a tokenizer was read from.
enum class tokenizer_kind : std::uint8_t {
    tiktoken,  ///< a .tiktoken rank file
    hf_byte_level,  ///< a tokenizer.json with a byte-level BPE model
    hf_bpe,  ///< a tokenizer.json with a BPE model over characters (SentencePiece's, with byte fallback)
};

/// A loaded tokenizer. Copies share the loaded tables; every member function is const and safe to
/// call from many threads at once.
class tokenizer {
public:
    /// Loads `path`: a .tiktoken file whose name names its encoding (o200k_base.tiktoken,
    /// cl100k_base.tiktoken, o200k_harmony.tiktoken), a tokenizer.json file, or a folder holding
    /// tokenizer.json (as Hugging Face downloads a model). Throws parley::error: errc::tokenizer_file
    /// for a file that cannot be read, is malformed (with its line and column) or exceeds `limits`;
    /// errc::tokenizer_unsupported for a component parley does not implement (named).
    static tokenizer load(const std::filesystem::path& path, const load_limits& limits = {}) {
        std::filesystem::path file = path;
        std::error_code ec;
        if (std::filesystem::is_directory(path, ec)) {
            file = path / "tokenizer.json";
            if (!std::filesystem::exists(file, ec))
                throw error(errc::tokenizer_file, path.string() + " is a folder without tokenizer.json");
        }
        if (file.extension() == ".tiktoken") {
            const auto encoding = encoding_from_name(file.stem().string());
            if (!encoding)
                throw error(errc::tokenizer_file, file.string() + ": the encoding of a .tiktoken file is known by its name (" +
                                                      "o200k_base.tiktoken, cl100k_base.tiktoken or o200k_harmony.tiktoken); " +
                                                      "name the file so, or call tokenizer::from_tiktoken with the encoding");
            return from_tiktoken(read_file(file, limits), *encoding, file.string(), limits);
        }
        return from_tokenizer_json(read_file(file, limits), file.string(), limits);
    }

    /// Loads a .tiktoken file's contents with the split pattern and special tokens of `encoding`.
    /// `name` is used in error messages. Throws as load does.
    static tokenizer from_tiktoken(std::string_view file_text, tiktoken_encoding encoding, std::string name = "rank file",
                                   const load_limits& limits = {}) {
        auto m = std::make_shared<detail::model>();
        detail::load_tiktoken(*m, file_text, name, encoding, limits);
        m->name = std::string(encoding_name(encoding));
        return tokenizer(std::move(m));
    }

    /// Loads a tokenizer.json file's contents. `name` is used in error messages. Throws as load does.
    static tokenizer from_tokenizer_json(std::string_view json, std::string name = "tokenizer.json", const load_limits& limits = {}) {
        auto m = std::make_shared<detail::model>();
        detail::hf_loader(json, name, limits).load(*m);
        return tokenizer(std::move(m));
    }

    /// The ids of `text` (UTF-8). Throws parley::error (errc::tokenizer_input) for invalid UTF-8
    /// (naming the offset) and, with special_tokens::refused, for a special token's text.
    std::vector<token_id> encode(std::string_view text, const encode_options& options = {}) const {
        std::vector<token_id> ids;
        ids.reserve(text.size() / 4 + 4);
        encode(text, ids, options);
        return ids;
    }

    /// Appends the ids of `text` to `out` (left as it was when an exception is thrown).
    void encode(std::string_view text, std::vector<token_id>& out, const encode_options& options = {}) const {
        const std::size_t before = out.size();
        try {
            detail::token_sink sink{&out, 0};
            run(text, options, sink);
        } catch (...) {
            out.resize(before);
            throw;
        }
    }

    /// The number of tokens of `text`: encode(text).size(), without holding the ids (a long text is
    /// counted in memory that does not grow with it). Throws as encode does.
    std::size_t count(std::string_view text, const encode_options& options = {}) const {
        detail::token_sink sink{nullptr, 0};
        run(text, options, sink);
        return sink.count;
    }

    /// The text of `ids`. tiktoken: the tokens' bytes, which may be invalid UTF-8 when a
    /// character's bytes are split between ids left out; Hugging Face: the decoder's text (invalid
    /// byte sequences become U+FFFD, as there). Throws parley::error (errc::tokenizer_input) for an
    /// id beyond the vocabulary.
    std::string decode(std::span<const token_id> ids, const decode_options& options = {}) const {
        if (m_->kind == detail::model::family::tiktoken) {
            if (!options.skip_special_tokens) return detail::tiktoken_decode(*m_, ids.data(), ids.size());
            std::vector<token_id> kept;
            for (token_id id : ids)
                if (id >= m_->vocab_size || !m_->special_by_content[id]) kept.push_back(id);
            return detail::tiktoken_decode(*m_, kept.data(), kept.size());
        }
        return detail::hf_decode(*m_, ids.data(), ids.size(), options.skip_special_tokens);
    }

    /// The id of a special (or added) token given by its text, if it is one.
    std::optional<token_id> special_token(std::string_view text) const {
        for (const auto& t : m_->specials)
            if (t.content == text) return t.id;
        return std::nullopt;
    }

    /// The id of `text` when it encodes to exactly one token (special tokens recognized), else
    /// nothing.
    std::optional<token_id> single_token(std::string_view text) const {
        if (detail::invalid_utf8_offset(text) != std::string_view::npos) return std::nullopt;
        const std::vector<token_id> ids = encode(text);
        if (ids.size() != 1) return std::nullopt;
        return ids[0];
    }

    /// What the tokenizer was read from.
    tokenizer_kind kind() const noexcept {
        switch (m_->kind) {
        case detail::model::family::tiktoken: return tokenizer_kind::tiktoken;
        case detail::model::family::hf_byte_level: return tokenizer_kind::hf_byte_level;
        case detail::model::family::hf_chars: return tokenizer_kind::hf_bpe;
        }
        return tokenizer_kind::tiktoken;
    }

    /// The encoding's name (tiktoken) or the file's path (Hugging Face).
    const std::string& name() const noexcept { return m_->name; }

    /// One more than the largest id (special and added tokens included).
    std::size_t vocabulary_size() const noexcept { return m_->vocab_size; }

    /// Bytes the loaded tables hold.
    std::size_t memory_usage() const noexcept { return m_->memory(); }

private:
    explicit tokenizer(std::shared_ptr<detail::model> m) : m_(std::move(m)) {
        static std::atomic<std::uint64_t> instances{0};
        m_->instance = ++instances;
    }

    static std::string read_file(const std::filesystem::path& file, const load_limits& limits) {
        std::error_code ec;
        const auto size = std::filesystem::file_size(file, ec);
        if (ec) throw error(errc::tokenizer_file, file.string() + ": cannot read the file (" + ec.message() + ")");
        if (size > limits.max_file_bytes)
            throw error(errc::tokenizer_file, file.string() + ": the file has " + std::to_string(size) +
                                                  " bytes, more than the limit of " + std::to_string(limits.max_file_bytes));
        std::ifstream in(file, std::ios::binary);
        if (!in) throw error(errc::tokenizer_file, file.string() + ": cannot open the file");
        std::string text(static_cast<std::size_t>(size), '\0');
        in.read(text.data(), static_cast<std::streamsize>(size));
        if (static_cast<std::uintmax_t>(in.gcount()) != size)
            throw error(errc::tokenizer_file, file.string() + ": the file could not be read whole");
        return text;
    }

    void run(std::string_view text, const encode_options& options, detail::token_sink& sink) const {
        detail::check_utf8(text);
        const auto mode = options.special == special_tokens::recognized ? detail::special_mode::recognized
                          : options.special == special_tokens::as_text  ? detail::special_mode::as_text
                                                                        : detail::special_mode::refused;
        if (m_->kind == detail::model::family::tiktoken) detail::tiktoken_encode(*m_, text, mode, sink);
        else detail::hf_encode(*m_, text, mode, options.add_special_tokens, sink);
    }

    std::shared_ptr<detail::model> m_;
};

}  // namespace parley::tokens

#endif
