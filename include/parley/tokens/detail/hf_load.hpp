// parley/tokens/detail/hf_load.hpp: reading a Hugging Face tokenizer.json: a BPE model (byte-level,
// or over characters with byte fallback) with its normalizer, pre-tokenizer, added tokens,
// post-processor and decoder. A component parley does not implement is refused by name
// (errc::tokenizer_unsupported), never approximated.
#ifndef PARLEY_TOKENS_DETAIL_HF_LOAD_HPP
#define PARLEY_TOKENS_DETAIL_HF_LOAD_HPP

#include <parley/tokens/detail/json_reader.hpp>
#include <parley/tokens/detail/model.hpp>
#include <parley/tokens/options.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace parley::tokens::detail {

/// The characters GPT-2's byte-level alphabet gives the 256 bytes (pre_tokenizers/byte_level.rs).
inline const std::array<char32_t, 256>& byte_level_chars() {
    static const std::array<char32_t, 256> table = [] {
        std::array<char32_t, 256> t{};
        std::array<bool, 256> printable{};
        for (unsigned b = '!'; b <= '~'; ++b) printable[b] = true;
        for (unsigned b = 0xA1; b <= 0xAC; ++b) printable[b] = true;
        for (unsigned b = 0xAE; b <= 0xFF; ++b) printable[b] = true;
        char32_t n = 0;
        for (unsigned b = 0; b < 256; ++b) t[b] = printable[b] ? char32_t(b) : 256 + n++;
        return t;
    }();
    return table;
}

/// The byte of each byte-level character (0..323), or -1.
inline const std::array<int, 324>& byte_level_bytes() {
    static const std::array<int, 324> table = [] {
        std::array<int, 324> t{};
        t.fill(-1);
        for (unsigned b = 0; b < 256; ++b) t[byte_level_chars()[b]] = static_cast<int>(b);
        return t;
    }();
    return table;
}

/// Maps a byte-level string back to its bytes; false when a character is not in the alphabet.
inline bool from_byte_level(std::string_view s, std::string& out) {
    out.clear();
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const auto* end = p + s.size();
    while (p < end) {
        unsigned len;
        const char32_t c = decode_utf8(p, len);
        p += len;
        if (c >= 324 || byte_level_bytes()[c] < 0) return false;
        out += static_cast<char>(byte_level_bytes()[c]);
    }
    return true;
}

/// Reads tokenizer.json files.
class hf_loader {
public:
    hf_loader(std::string_view text, std::string_view name, const load_limits& limits) : text_(text), name_(name), limits_(limits), r_(text, name) {}

    void load(model& m) {
        if (text_.size() > limits_.max_file_bytes)
            throw error(errc::tokenizer_file, std::string(name_) + ": the file has " + std::to_string(text_.size()) +
                                                  " bytes, more than the limit of " + std::to_string(limits_.max_file_bytes));
        if (invalid_utf8_offset(text_) != std::string_view::npos)
            file_error(name_, text_, invalid_utf8_offset(text_), "the file is not valid UTF-8");
        r_.begin_object();
        std::string key;
        bool first = true, have_model = false;
        jvalue normalizer, pre_tokenizer, post_processor, decoder;
        while (r_.next_member(key, first)) {
            if (key == "added_tokens") read_added();
            else if (key == "normalizer") normalizer = r_.value();
            else if (key == "pre_tokenizer") pre_tokenizer = r_.value();
            else if (key == "post_processor") post_processor = r_.value();
            else if (key == "decoder") decoder = r_.value();
            else if (key == "model") {
                read_model();
                have_model = true;
            } else if (key == "truncation" || key == "padding") {
                const jvalue v = r_.value();
                if (!v.is_null())
                    unsupported(v, "\"" + key + "\" is set: parley encodes whole texts and does not " +
                                       (key == "truncation" ? "truncate" : "pad") + " (set it to null)");
            } else {
                r_.skip();
            }
        }
        r_.end();
        if (!have_model) throw error(errc::tokenizer_file, std::string(name_) + ": the file has no \"model\"");
        m.name = std::string(name_);
        read_normalizer(normalizer, "normalizer", m.normalizers);
        read_pre_tokenizer(pre_tokenizer, "pre_tokenizer", m.pre_tokenizers);
        read_decoder(decoder, "decoder", m.decoders);
        m.has_decoder = !decoder.is_null();
        const bool byte_level = std::any_of(m.pre_tokenizers.begin(), m.pre_tokenizers.end(), [](const pre_tokenizer_step& s) {
            return s.type == pre_tokenizer_step::kind::byte_level;
        });
        const bool byte_level_decoder = m.decoders.size() == 1 && m.decoders[0].type == decoder_step::kind::byte_level;
        if (byte_level != byte_level_decoder)
            unsupported(decoder, byte_level ? "the pre-tokenizer is byte-level but the decoder is not ByteLevel alone"
                                            : "the decoder is ByteLevel but the pre-tokenizer is not byte-level");
        m.kind = byte_level ? model::family::hf_byte_level : model::family::hf_chars;
        build_model(m);
        build_added(m);
        read_post_processor(post_processor, m);
        m.chunk_safe = chunk_safe(m);
    }

private:
    [[noreturn]] void unsupported(const jvalue& at, const std::string& message) const {
        const auto [line, column] = line_column(text_, at.offset);
        throw error(errc::tokenizer_unsupported, std::string(name_) + ":" + std::to_string(line) + ":" +
                                                     std::to_string(column) + ": " + message);
    }
    [[noreturn]] void bad(const jvalue& at, const std::string& message) const { file_error(name_, text_, at.offset, message); }

    const jvalue& member(const jvalue& v, std::string_view key, const std::string& path) const {
        static const jvalue null_value;
        if (v.t != jvalue::type::object) bad(v, path + ": expected an object, found " + v.kind_name());
        const jvalue* m = v.get(key);
        return m ? *m : null_value;
    }
    std::string string_member(const jvalue& v, std::string_view key, const std::string& path, bool required = true) const {
        const jvalue& m = member(v, key, path);
        if (m.t == jvalue::type::string) return m.s;
        if (!required && m.is_null()) return {};
        bad(m.is_null() ? v : m, path + "." + std::string(key) + ": expected a string, found " + m.kind_name());
    }
    bool bool_member(const jvalue& v, std::string_view key, const std::string& path, bool fallback) const {
        const jvalue& m = member(v, key, path);
        if (m.is_null()) return fallback;
        if (m.t != jvalue::type::boolean) bad(m, path + "." + std::string(key) + ": expected true or false, found " + m.kind_name());
        return m.b;
    }
    std::string type_of(const jvalue& v, const std::string& path) const { return string_member(v, "type", path); }

    /// A Split or Replace pattern: {"String": s} or {"Regex": r}; regex tells which.
    std::string pattern_of(const jvalue& v, const std::string& path, bool& regex) const {
        const jvalue& p = member(v, "pattern", path);
        if (const jvalue* s = p.get("String"); s && s->t == jvalue::type::string) {
            regex = false;
            return s->s;
        }
        if (const jvalue* s = p.get("Regex"); s && s->t == jvalue::type::string) {
            regex = true;
            return s->s;
        }
        bad(p.is_null() ? v : p, path + ".pattern: expected {\"String\": ...} or {\"Regex\": ...}");
    }

    void read_normalizer(const jvalue& v, const std::string& path, std::vector<normalizer_step>& out) const {
        if (v.is_null()) return;
        const std::string type = type_of(v, path);
        if (type == "Sequence") {
            const jvalue& list = member(v, "normalizers", path);
            if (list.t != jvalue::type::array) bad(v, path + ".normalizers: expected an array");
            for (std::size_t i = 0; i < list.a.size(); ++i) read_normalizer(list.a[i], path + ".normalizers[" + std::to_string(i) + "]", out);
        } else if (type == "NFC") {
            out.push_back({normalizer_step::kind::nfc, {}, {}});
        } else if (type == "Prepend") {
            out.push_back({normalizer_step::kind::prepend, {}, string_member(v, "prepend", path)});
        } else if (type == "Replace") {
            bool regex = false;
            std::string pattern = pattern_of(v, path, regex);
            if (regex) unsupported(v, path + ": a Replace normalizer with a regular expression (" + pattern.substr(0, 80) + ") is not implemented");
            out.push_back({normalizer_step::kind::replace, std::move(pattern), string_member(v, "content", path)});
        } else {
            unsupported(v, path + ": the normalizer " + type + " is not implemented (parley implements NFC, Prepend, Replace of a string and Sequence)");
        }
    }

    void read_pre_tokenizer(const jvalue& v, const std::string& path, std::vector<pre_tokenizer_step>& out) const {
        if (v.is_null()) return;
        const std::string type = type_of(v, path);
        if (type == "Sequence") {
            const jvalue& list = member(v, "pretokenizers", path);
            if (list.t != jvalue::type::array) bad(v, path + ".pretokenizers: expected an array");
            for (std::size_t i = 0; i < list.a.size(); ++i)
                read_pre_tokenizer(list.a[i], path + ".pretokenizers[" + std::to_string(i) + "]", out);
        } else if (type == "Split") {
            pre_tokenizer_step step;
            bool regex = false;
            const std::string pattern = pattern_of(v, path, regex);
            if (regex) {
                const auto known = find_split_pattern(pattern);
                if (!known)
                    unsupported(v, path + ": the split pattern " + pattern.substr(0, 200) +
                                       " is not one parley implements (it implements the patterns of GPT-2, cl100k_base, o200k_base, Qwen 2 and DeepSeek V3)");
                step.type = pre_tokenizer_step::kind::split_regex;
                step.pattern = *known;
            } else {
                step.type = pre_tokenizer_step::kind::split_string;
                step.literal = pattern;
            }
            const std::string behavior = string_member(v, "behavior", path);
            using B = pre_tokenizer_step::behavior;
            if (behavior == "Removed") step.how = B::removed;
            else if (behavior == "Isolated") step.how = B::isolated;
            else if (behavior == "MergedWithPrevious") step.how = B::merged_with_previous;
            else if (behavior == "MergedWithNext") step.how = B::merged_with_next;
            else if (behavior == "Contiguous") step.how = B::contiguous;
            else bad(member(v, "behavior", path), path + ".behavior: unknown split behavior " + behavior);
            step.invert = bool_member(v, "invert", path, false);
            out.push_back(std::move(step));
        } else if (type == "ByteLevel") {
            pre_tokenizer_step step;
            step.type = pre_tokenizer_step::kind::byte_level;
            step.add_prefix_space = bool_member(v, "add_prefix_space", path, true);
            step.use_regex = bool_member(v, "use_regex", path, true);
            out.push_back(std::move(step));
        } else {
            unsupported(v, path + ": the pre-tokenizer " + type + " is not implemented (parley implements Split, ByteLevel and Sequence)");
        }
    }

    void read_decoder(const jvalue& v, const std::string& path, std::vector<decoder_step>& out) const {
        if (v.is_null()) return;
        const std::string type = type_of(v, path);
        decoder_step step;
        if (type == "Sequence") {
            const jvalue& list = member(v, "decoders", path);
            if (list.t != jvalue::type::array) bad(v, path + ".decoders: expected an array");
            for (std::size_t i = 0; i < list.a.size(); ++i) read_decoder(list.a[i], path + ".decoders[" + std::to_string(i) + "]", out);
            return;
        }
        if (type == "ByteLevel") {
            step.type = decoder_step::kind::byte_level;
        } else if (type == "ByteFallback") {
            step.type = decoder_step::kind::byte_fallback;
        } else if (type == "Fuse") {
            step.type = decoder_step::kind::fuse;
        } else if (type == "Replace") {
            bool regex = false;
            step.type = decoder_step::kind::replace;
            step.pattern = pattern_of(v, path, regex);
            if (regex) unsupported(v, path + ": a Replace decoder with a regular expression is not implemented");
            step.content = string_member(v, "content", path);
        } else if (type == "Strip") {
            step.type = decoder_step::kind::strip;
            const std::string c = string_member(v, "content", path);
            unsigned len = 0;
            if (c.empty() || (step.strip_char = decode_utf8(reinterpret_cast<const unsigned char*>(c.data()), len), len != c.size()))
                bad(v, path + ".content: expected one character");
            const jvalue& start = member(v, "start", path);
            const jvalue& stop = member(v, "stop", path);
            if (start.t != jvalue::type::number || stop.t != jvalue::type::number || start.n < 0 || stop.n < 0)
                bad(v, path + ": expected non-negative numbers start and stop");
            step.start = static_cast<std::size_t>(start.n);
            step.stop = static_cast<std::size_t>(stop.n);
        } else {
            unsupported(v, path + ": the decoder " + type + " is not implemented (parley implements ByteLevel, ByteFallback, Fuse, Replace of a string, Strip and Sequence)");
        }
        out.push_back(std::move(step));
    }

    void read_added() {
        r_.begin_array();
        bool first = true;
        while (r_.next_element(first)) {
            const jvalue v = r_.value();
            const std::string path = "added_tokens[" + std::to_string(added_.size()) + "]";
            if (added_.size() >= limits_.max_added_tokens)
                bad(v, "more added tokens than the limit of " + std::to_string(limits_.max_added_tokens));
            added_token t;
            const jvalue& id = member(v, "id", path);
            if (id.t != jvalue::type::number || id.n < 0 || id.n != static_cast<double>(static_cast<std::uint64_t>(id.n)) ||
                id.n >= static_cast<double>(limits_.max_vocabulary))
                bad(id.is_null() ? v : id, path + ".id: expected an integer below " + std::to_string(limits_.max_vocabulary));
            t.id = static_cast<std::uint32_t>(id.n);
            t.content = string_member(v, "content", path);
            if (t.content.size() > limits_.max_token_bytes) bad(v, path + ": a token longer than the limit of " + std::to_string(limits_.max_token_bytes) + " bytes");
            t.single_word = bool_member(v, "single_word", path, false);
            t.lstrip = bool_member(v, "lstrip", path, false);
            t.rstrip = bool_member(v, "rstrip", path, false);
            t.special = bool_member(v, "special", path, false);
            t.normalized = bool_member(v, "normalized", path, !t.special);
            added_.push_back(std::move(t));
            added_at_.push_back(v.offset);
        }
    }

    void read_model() {
        const std::size_t at = r_.offset();
        r_.begin_object();
        std::string key;
        bool first = true;
        model_at_ = at;
        while (r_.next_member(key, first)) {
            if (key == "vocab") {
                vocab_at_ = r_.offset();
                if (r_.peek() != json_reader::kind::object) r_.fail("model.vocab: expected an object of token: id");
                r_.begin_object();
                bool vfirst = true;
                std::string token;
                while (r_.next_member(token, vfirst)) {
                    if (token.size() > limits_.max_token_bytes)
                        r_.fail("model.vocab: a token of " + std::to_string(token.size()) + " bytes, more than the limit of " + std::to_string(limits_.max_token_bytes));
                    if (vocab_ids_.size() >= limits_.max_vocabulary)
                        r_.fail("model.vocab: more tokens than the limit of " + std::to_string(limits_.max_vocabulary));
                    vocab_offsets_.push_back(r_.offset());
                    const auto id = static_cast<std::uint32_t>(r_.unsigned_integer(limits_.max_vocabulary - 1));
                    vocab_ids_.push_back(id);
                    vocab_.push(token);
                }
            } else if (key == "merges") {
                merges_at_ = r_.offset();
                if (r_.peek() != json_reader::kind::array) r_.fail("model.merges: expected an array");
                r_.begin_array();
                bool mfirst = true;
                std::string a, b;
                while (r_.next_element(mfirst)) {
                    if (merge_offsets_.size() >= limits_.max_merges)
                        r_.fail("model.merges: more merges than the limit of " + std::to_string(limits_.max_merges));
                    merge_offsets_.push_back(r_.offset());
                    if (r_.peek() == json_reader::kind::string) {
                        r_.string_into(a);
                        const std::size_t space = a.find(' ');
                        if (space == std::string::npos || a.find(' ', space + 1) != std::string::npos)
                            r_.fail_at(merge_offsets_.back(), "model.merges[" + std::to_string(merge_offsets_.size() - 1) +
                                                                  "]: expected \"LEFT RIGHT\" (two tokens separated by one space)");
                        merge_parts_.push(std::string_view(a).substr(0, space));
                        merge_parts_.push(std::string_view(a).substr(space + 1));
                    } else if (r_.peek() == json_reader::kind::array) {
                        r_.begin_array();
                        bool pfirst = true;
                        int count = 0;
                        while (r_.next_element(pfirst)) {
                            if (count == 2 || r_.peek() != json_reader::kind::string)
                                r_.fail_at(merge_offsets_.back(), "model.merges[" + std::to_string(merge_offsets_.size() - 1) + "]: expected [\"LEFT\", \"RIGHT\"]");
                            r_.string_into(b);
                            merge_parts_.push(b);
                            ++count;
                        }
                        if (count != 2)
                            r_.fail_at(merge_offsets_.back(), "model.merges[" + std::to_string(merge_offsets_.size() - 1) + "]: expected [\"LEFT\", \"RIGHT\"]");
                    } else {
                        r_.fail("model.merges[" + std::to_string(merge_offsets_.size() - 1) + "]: expected \"LEFT RIGHT\" or [\"LEFT\", \"RIGHT\"], found " + r_.describe(r_.offset()));
                    }
                }
            } else {
                model_fields_.members.push_back(r_.value());
                model_fields_.keys.push_back(key);
            }
        }
        model_fields_.t = jvalue::type::object;
        model_fields_.offset = at;
    }

    void build_model(model& m) {
        const jvalue& f = model_fields_;
        const std::string type = string_member(f, "type", "model", false);
        if (type != "BPE")
            unsupported(f, type.empty() ? std::string("model: a model without \"type\" (parley implements BPE)")
                                        : "model: the model " + type + " is not implemented (parley implements BPE)");
        if (const jvalue& d = member(f, "dropout", "model"); !d.is_null() && !(d.t == jvalue::type::number && d.n == 0))
            unsupported(d, "model.dropout: BPE dropout (random merges) is not implemented");
        if (!string_member(f, "continuing_subword_prefix", "model", false).empty() ||
            !string_member(f, "end_of_word_suffix", "model", false).empty())
            unsupported(f, "model: continuing_subword_prefix and end_of_word_suffix are not implemented");
        m.ignore_merges = bool_member(f, "ignore_merges", "model", false);
        m.byte_fallback = bool_member(f, "byte_fallback", "model", false);
        m.fuse_unk = bool_member(f, "fuse_unk", "model", false);
        const std::string unk = string_member(f, "unk_token", "model", false);

        // the vocabulary as written (byte-level characters for byte-level models), by id
        std::uint32_t max_id = 0;
        for (std::uint32_t id : vocab_ids_) max_id = std::max(max_id, id);
        const std::size_t size = vocab_ids_.empty() ? 0 : static_cast<std::size_t>(max_id) + 1;
        std::vector<std::uint32_t> entry_of(size, no_token);
        for (std::uint32_t i = 0; i < vocab_ids_.size(); ++i) {
            if (entry_of[vocab_ids_[i]] != no_token)
                file_error(name_, text_, vocab_offsets_[i], "model.vocab: the id " + std::to_string(vocab_ids_[i]) + " is given to two tokens");
            entry_of[vocab_ids_[i]] = i;
        }
        token_table written;
        written.bytes.reserve(vocab_.bytes.size());
        written.offsets.reserve(size + 1);
        m.hole.assign(size, false);
        for (std::size_t id = 0; id < size; ++id) {
            if (entry_of[id] == no_token) {
                m.hole[id] = true;
                written.push({});
            } else {
                written.push(vocab_.text(entry_of[id]));
            }
        }
        vocab_ = token_table{};
        byte_map written_lookup;
        written_lookup.reserve(written);
        for (std::uint32_t id = 0; id < size; ++id)
            if (!m.hole[id] && written_lookup.insert(written.text(id), id, written) != id)
                file_error(name_, text_, vocab_offsets_[entry_of[id]], "model.vocab: the token is given two ids");

        // merges, in the written vocabulary
        m.merges.reserve(merge_offsets_.size());
        std::string joined;
        for (std::size_t i = 0; i < merge_offsets_.size(); ++i) {
            const std::string_view a = merge_parts_.text(static_cast<std::uint32_t>(2 * i));
            const std::string_view b = merge_parts_.text(static_cast<std::uint32_t>(2 * i + 1));
            const std::uint32_t ia = written_lookup.find(a, written), ib = written_lookup.find(b, written);
            const std::string where = "model.merges[" + std::to_string(i) + "]: ";
            if (ia == no_token) file_error(name_, text_, merge_offsets_[i], where + "the token " + std::string(a) + " is not in the vocabulary");
            if (ib == no_token) file_error(name_, text_, merge_offsets_[i], where + "the token " + std::string(b) + " is not in the vocabulary");
            joined.assign(a);
            joined += b;
            const std::uint32_t merged = written_lookup.find(joined, written);
            if (merged == no_token)
                file_error(name_, text_, merge_offsets_[i], where + "the merged token " + joined + " is not in the vocabulary");
            m.merges.set(ia, ib, merge_info{static_cast<std::uint32_t>(i), merged});
        }
        merge_parts_ = token_table{};

        auto written_id = [&](std::string_view token) { return written_lookup.find(token, written); };
        if (!unk.empty()) {
            m.unk_id = written_id(unk);
            if (m.unk_id == no_token) unsupported(f, "model.unk_token: " + unk + " is not in the vocabulary");
        }
        for (unsigned b = 0; b < 256; ++b) {
            static const char* hex = "0123456789ABCDEF";
            const std::string name = std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">";
            m.byte_fallback_ids[b] = written_id(name);
        }
        if (m.kind == model::family::hf_byte_level) {
            std::string ch;
            for (unsigned b = 0; b < 256; ++b) {
                ch.clear();
                append_utf8(ch, byte_level_chars()[b]);
                m.byte_ids[b] = written_id(ch);
                if (m.byte_ids[b] == no_token)
                    unsupported(f, "model.vocab: the byte-level vocabulary has no token for the byte " + std::to_string(b) + " (" + ch + ")");
            }
            m.byte_pairs.resize(65536);
            for (unsigned a = 0; a < 256; ++a)
                for (unsigned b = 0; b < 256; ++b) m.byte_pairs[(a << 8) | b] = m.merges.merge_of(m.byte_ids[a], m.byte_ids[b]);
            // the vocabulary as bytes: tokens made of byte-level characters are held as their
            // bytes and looked up by them; others (unreachable by the model) keep their text
            m.tokens = token_table{};
            m.tokens.bytes.reserve(written.bytes.size());
            m.tokens.offsets.reserve(size + 1);
            std::string bytes;
            std::vector<bool> reachable(size, false);
            for (std::uint32_t id = 0; id < size; ++id) {
                if (!m.hole[id] && from_byte_level(written.text(id), bytes)) {
                    reachable[id] = true;
                    m.tokens.push(bytes);
                } else {
                    m.tokens.push(written.text(id));
                }
            }
            m.lookup.reserve(m.tokens);
            for (std::uint32_t id = 0; id < size; ++id)
                if (reachable[id]) m.lookup.insert(m.tokens.text(id), id, m.tokens);
            written_texts_ = std::move(written);
            written_lookup_ = std::move(written_lookup);
        } else {
            m.tokens = std::move(written);
            m.lookup = std::move(written_lookup);
        }
        m.vocab_size = static_cast<std::uint32_t>(size);
    }

    /// The token text as the file writes it (byte-level characters for byte-level models).
    std::string_view written_text(const model& m, std::uint32_t id) const {
        if (m.kind == model::family::hf_byte_level) return written_texts_.text(id);
        return m.tokens.text(id);
    }

    void build_added(model& m) {
        std::uint32_t size = m.vocab_size;
        for (const auto& t : added_) size = std::max(size, t.id + 1);
        if (size > limits_.max_vocabulary) throw error(errc::tokenizer_file, std::string(name_) + ": ids reach " + std::to_string(size) + ", beyond the vocabulary limit of " + std::to_string(limits_.max_vocabulary));
        m.vocab_size = size;
        m.special_by_content.assign(size, false);
        std::vector<std::uint32_t> added_of_id(size, 0);
        m.specials.clear();
        std::vector<std::string> special_contents;
        for (std::size_t i = 0; i < added_.size(); ++i) {
            added_token t = added_[i];
            const std::string where = "added_tokens[" + std::to_string(i) + "]: ";
            if (t.content.empty()) continue;  // the reference ignores empty added tokens
            const std::uint32_t v = find_written(m, t.content);
            if (v != no_token && v != t.id)
                file_error(name_, text_, added_at_[i], where + "the token " + t.content + " has the id " + std::to_string(v) +
                                                          " in the vocabulary, not " + std::to_string(t.id));
            if (v == no_token && t.id < m.tokens.size() && !m.hole[t.id])
                file_error(name_, text_, added_at_[i], where + "the id " + std::to_string(t.id) + " is the vocabulary's token " +
                                                          std::string(written_text(m, t.id)) + ", not " + t.content);
            if (added_of_id[t.id]) {
                const auto& before = m.specials[added_of_id[t.id] - 1];
                if (before.content != t.content)
                    file_error(name_, text_, added_at_[i], where + "the id " + std::to_string(t.id) + " is also the added token " + before.content);
                continue;
            }
            if (m.kind == model::family::hf_byte_level) {
                if (!from_byte_level(t.content, t.decoded)) t.decoded = t.content;
            } else {
                t.decoded = t.content;
            }
            if (t.special) special_contents.push_back(t.content);
            m.specials.push_back(std::move(t));
            added_of_id[m.specials.back().id] = static_cast<std::uint32_t>(m.specials.size());
        }
        // decoding skips every id whose text is a special token's content
        std::sort(special_contents.begin(), special_contents.end());
        auto is_special = [&](std::string_view s) { return std::binary_search(special_contents.begin(), special_contents.end(), s); };
        for (std::uint32_t id = 0; id < size; ++id) {
            if (added_of_id[id]) m.special_by_content[id] = is_special(m.specials[added_of_id[id] - 1].content);
            else if (id < m.tokens.size() && !m.hole[id]) m.special_by_content[id] = is_special(written_text(m, id));
        }
        // the tries: special tokens first, then the others (the reference's order)
        auto build = [&](bool normalized, bool with_special, literal_set& set, std::vector<std::uint32_t>& index) {
            std::vector<std::string> literals;
            index.clear();
            for (int pass = 0; pass < 2; ++pass)
                for (std::uint32_t i = 0; i < m.specials.size(); ++i) {
                    const auto& t = m.specials[i];
                    if (t.special != (pass == 0) || t.normalized != normalized || (t.special && !with_special)) continue;
                    if (normalized) {
                        std::string n, tmp;
                        normalize(m.normalizers, t.content, true, n, tmp);
                        literals.push_back(std::move(n));
                    } else {
                        literals.push_back(t.content);
                    }
                    index.push_back(i);
                }
            set.build(literals);
        };
        build(false, true, m.raw_added, m.raw_added_index);
        build(false, false, m.raw_added_plain, m.raw_added_plain_index);
        build(true, true, m.normalized_added, m.normalized_added_index);
        build(true, false, m.normalized_added_plain, m.normalized_added_plain_index);
        m.index_added();
    }

    std::uint32_t find_written(const model& m, std::string_view content) const {
        if (m.kind == model::family::hf_byte_level) {
            std::string bytes;
            if (!from_byte_level(content, bytes)) {
                // a token of non-byte-level characters: look its written text up
                return written_lookup_.find(content, written_texts_);
            }
            const std::uint32_t id = m.lookup.find(bytes, m.tokens);
            return id != no_token && written_texts_.text(id) == content ? id : no_token;
        }
        return m.lookup.find(content, m.tokens);
    }

    void read_post_processor(const jvalue& v, model& m, const std::string& path = "post_processor") const {
        if (v.is_null()) return;
        const std::string type = type_of(v, path);
        if (type == "ByteLevel") return;  // offsets only
        if (type == "Sequence") {
            const jvalue& list = member(v, "processors", path);
            if (list.t != jvalue::type::array) bad(v, path + ".processors: expected an array");
            for (std::size_t i = 0; i < list.a.size(); ++i) read_post_processor(list.a[i], m, path + ".processors[" + std::to_string(i) + "]");
            return;
        }
        if (type != "TemplateProcessing")
            unsupported(v, path + ": the post-processor " + type + " is not implemented (parley implements TemplateProcessing, ByteLevel and Sequence)");
        const jvalue& single = member(v, "single", path);
        const jvalue& specials = member(v, "special_tokens", path);
        if (single.t != jvalue::type::array) bad(v, path + ".single: expected an array");
        std::vector<std::uint32_t> before, after;
        bool seen_a = false;
        for (std::size_t i = 0; i < single.a.size(); ++i) {
            const jvalue& item = single.a[i];
            const std::string ipath = path + ".single[" + std::to_string(i) + "]";
            if (const jvalue* s = item.get("SpecialToken")) {
                const std::string id = string_member(*s, "id", ipath + ".SpecialToken");
                const jvalue* spec = specials.get(id);
                if (!spec) bad(item, ipath + ": the special token " + id + " is not in " + path + ".special_tokens");
                const jvalue& ids = member(*spec, "ids", path + ".special_tokens." + id);
                if (ids.t != jvalue::type::array) bad(*spec, path + ".special_tokens." + id + ".ids: expected an array");
                for (const jvalue& n : ids.a) {
                    if (n.t != jvalue::type::number || n.n < 0 || n.n >= m.vocab_size)
                        bad(n, path + ".special_tokens." + id + ".ids: expected ids below " + std::to_string(m.vocab_size));
                    (seen_a ? after : before).push_back(static_cast<std::uint32_t>(n.n));
                }
            } else if (const jvalue* s = item.get("Sequence")) {
                const std::string id = string_member(*s, "id", ipath + ".Sequence");
                if (id != "A") bad(item, ipath + ": a single text's template can only hold the sequence A");
                seen_a = true;
            } else {
                bad(item, ipath + ": expected {\"SpecialToken\": ...} or {\"Sequence\": ...}");
            }
        }
        if (!seen_a) bad(single, path + ".single: the template has no sequence A");
        m.prefix_ids.insert(m.prefix_ids.begin(), before.begin(), before.end());
        m.suffix_ids.insert(m.suffix_ids.end(), after.begin(), after.end());
    }

    /// Whether a long text may be cut after a newline between two non-space characters without
    /// changing the tokens (see hf_encode).
    bool chunk_safe(const model& m) const {
        for (const auto& step : m.normalizers)
            if (step.type == normalizer_step::kind::replace && step.pattern.find('\n') != std::string::npos) return false;
        for (const auto& t : m.specials)
            if (t.normalized && t.content.find('\n') != std::string::npos) return false;
        for (const auto& step : m.pre_tokenizers) {
            if (step.type == pre_tokenizer_step::kind::byte_level && step.add_prefix_space) return false;
            if (step.type == pre_tokenizer_step::kind::split_regex && step.how != pre_tokenizer_step::behavior::isolated) return false;
            if (step.type == pre_tokenizer_step::kind::split_string &&
                (step.literal.find('\n') != std::string::npos ||
                 (step.how != pre_tokenizer_step::behavior::isolated && !(step.literal[0] == ' ' || step.literal[0] == '\t'))))
                return false;
        }
        if (m.kind == model::family::hf_chars) {
            // no merge may join across the newline: no token of two or more characters holds one,
            // and when the newline is no token, its byte fallback token merges with nothing
            for (std::uint32_t id = 0; id < m.tokens.size(); ++id) {
                const std::string_view t = m.tokens.text(id);
                if (!m.hole[id] && t.size() > 1 && t.find('\n') != std::string_view::npos) return false;
            }
            const char nl = '\n';
            if (m.lookup.find(std::string_view(&nl, 1), m.tokens) == no_token && m.byte_fallback_ids['\n'] != no_token) {
                const std::uint32_t b = m.byte_fallback_ids['\n'];
                for (std::uint32_t id = 0; id < m.tokens.size(); ++id)
                    if (m.merges.find(b, id) || m.merges.find(id, b)) return false;
            }
        }
        return true;
    }

    std::string_view text_;
    std::string_view name_;
    const load_limits& limits_;
    json_reader r_;
    std::vector<added_token> added_;
    std::vector<std::size_t> added_at_;
    token_table vocab_;  ///< as read, in file order
    std::vector<std::uint32_t> vocab_ids_;
    std::vector<std::size_t> vocab_offsets_;
    token_table merge_parts_;  ///< left, right, left, right...
    std::vector<std::size_t> merge_offsets_;
    jvalue model_fields_;
    std::size_t model_at_ = 0, vocab_at_ = 0, merges_at_ = 0;
    token_table written_texts_;  ///< byte-level models: the vocabulary as written
    byte_map written_lookup_;    ///< byte-level models: written text -> id
};

}  // namespace parley::tokens::detail

#endif
