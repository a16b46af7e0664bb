// `parley jinja --batch`: JSON lines in, one JSON result line out for each, in order.
//
// Standard input is read in blocks and cut into lines here (no per-character stream reads), the
// results are gathered in a buffer that is written when it is large and whenever the program is
// about to wait for more input (so that a client that writes one line and waits for its result
// gets it), and templates parsed once are kept, keyed by their environment and text, for the lines
// that repeat them.
#include "commands.hpp"

#include <parley/jinja.hpp>

#include <boost/json.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace parley_cli {

namespace {

/// Standard output through one buffer.
class output_buffer {
public:
    ~output_buffer() { flush(); }
    std::string& text() noexcept { return buf_; }
    /// Writes the buffer when it holds more than `threshold` bytes.
    void write_if_large() {
        if (buf_.size() >= threshold) write();
    }
    /// Writes what is buffered and flushes the stream.
    void flush() {
        write();
        std::fflush(stdout);
    }

private:
    static constexpr std::size_t threshold = std::size_t{1} << 20;
    void write() {
        if (!buf_.empty()) std::fwrite(buf_.data(), 1, buf_.size(), stdout);
        buf_.clear();
    }
    std::string buf_;
};

/// Lines of standard input, read in blocks. A line views the reader's buffer until the next call.
class line_reader {
public:
    /// The next line, without its '\n' (the last line may have none); nullopt at the end of the
    /// input. Flushes `out` before waiting for input.
    std::optional<std::string_view> next(output_buffer& out) {
        for (;;) {
            const std::size_t nl = buf_.find('\n', scan_);
            if (nl != std::string::npos) {
                const std::string_view line(buf_.data() + begin_, nl - begin_);
                begin_ = scan_ = nl + 1;
                return line;
            }
            scan_ = buf_.size();
            if (eof_) {
                if (begin_ == buf_.size()) return std::nullopt;
                const std::string_view line(buf_.data() + begin_, buf_.size() - begin_);
                begin_ = scan_ = buf_.size();
                return line;
            }
            out.flush();  // the results so far, before waiting
            fill();
        }
    }

private:
    static constexpr std::size_t block = std::size_t{1} << 16;
    void fill() {
        // drop the lines already returned, keep the start of the next one
        if (begin_ > 0) {
            buf_.erase(0, begin_);
            scan_ -= begin_;
            begin_ = 0;
        }
        const std::size_t old = buf_.size();
        buf_.resize(old + block);
        for (;;) {
            const ssize_t n = ::read(STDIN_FILENO, buf_.data() + old, block);
            if (n < 0 && errno == EINTR) continue;
            buf_.resize(old + (n > 0 ? static_cast<std::size_t>(n) : 0));
            if (n <= 0) eof_ = true;  // the end, or an error reading (treated as the end)
            return;
        }
    }
    std::string buf_;
    std::size_t begin_ = 0;  // start of the next line
    std::size_t scan_ = 0;  // where the search for its '\n' goes on
    bool eof_ = false;
};

/// Templates already parsed, by environment and source text: at most `max_entries` of them and
/// `max_bytes` of source; the least recently used goes first.
class template_cache {
public:
    /// The template for `source` in environment `env` (0 or 1), parsed on first use. Throws what
    /// parse throws (a template that does not parse is not kept).
    const parley::jinja::parsed_template& get(int env_index, const parley::jinja::environment& env, std::string_view source) {
        key_.assign(1, static_cast<char>('0' + env_index));
        key_.append(source);
        if (auto it = map_.find(key_); it != map_.end()) {
            it->second.used = ++clock_;
            return it->second.t;
        }
        parley::jinja::parsed_template t = env.parse(source);
        while (!map_.empty() && (map_.size() >= max_entries || bytes_ + key_.size() > max_bytes)) evict();
        bytes_ += key_.size();
        auto [it, inserted] = map_.emplace(key_, entry{std::move(t), ++clock_});
        return it->second.t;
    }

private:
    static constexpr std::size_t max_entries = 64;
    static constexpr std::size_t max_bytes = std::size_t{32} << 20;
    struct entry {
        parley::jinja::parsed_template t;
        std::uint64_t used;
    };
    void evict() {
        auto oldest = map_.begin();
        for (auto it = map_.begin(); it != map_.end(); ++it)
            if (it->second.used < oldest->second.used) oldest = it;
        bytes_ -= oldest->first.size();
        map_.erase(oldest);
    }
    std::unordered_map<std::string, entry> map_;
    std::string key_;
    std::size_t bytes_ = 0;
    std::uint64_t clock_ = 0;
};

/// Appends `{"<key>":<s as a JSON string>}` and a newline, as boost::json::serialize writes it.
void append_result(std::string& out, std::string_view key, std::string_view s) {
    out += "{\"";
    out += key;
    out += "\":";
    boost::json::serializer sr;
    sr.reset(boost::json::string_view(s.data(), s.size()));
    char chunk[4096];
    while (!sr.done()) out += sr.read(chunk, sizeof(chunk));
    out += "}\n";
}

bool blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

}  // namespace

int jinja_batch(const std::string& default_env, const parley::jinja::environment& hf, const parley::jinja::environment& plain) {
    const parley::jinja::environment* envs[2] = {&hf, &plain};
    output_buffer out;
    line_reader in;
    template_cache cache;
    std::string rendered;
    // the input line's JSON is parsed into memory of its own, reused from line to line
    constexpr std::size_t arena_size = std::size_t{1} << 20;
    const std::unique_ptr<unsigned char[]> arena(new unsigned char[arena_size]);
    static const boost::json::value empty = boost::json::object();
    while (const std::optional<std::string_view> line = in.next(out)) {
        if (blank(*line)) continue;
        try {
            boost::json::monotonic_resource memory(arena.get(), arena_size);
            const boost::json::value c = boost::json::parse(*line, &memory);
            const boost::json::object& obj = c.as_object();
            std::string_view env_name = default_env;
            if (auto* e = obj.if_contains("env"); e && e->is_string()) env_name = e->get_string();
            if (env_name != "hf" && env_name != "plain") throw std::runtime_error("unknown environment " + std::string(env_name));
            const int env_index = env_name == "hf" ? 0 : 1;
            const std::string_view src = obj.at("template").as_string();
            const boost::json::value* ctx = obj.if_contains("context");
            if (!ctx || ctx->is_null()) ctx = &empty;
            const parley::jinja::parsed_template& t = cache.get(env_index, *envs[env_index], src);
            rendered.clear();
            t.render_to(rendered, *ctx);
            append_result(out.text(), "output", rendered);
        } catch (const std::exception& e) {
            append_result(out.text(), "error", e.what());
        }
        out.write_if_large();
    }
    out.flush();
    return 0;
}

}  // namespace parley_cli
