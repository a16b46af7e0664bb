// parley/net/ndjson.hpp: an incremental reader of JSON lines (application/x-ndjson, one JSON
// value per line, as Ollama streams): bytes in, lines out, whatever the chunking.
#ifndef PARLEY_NET_NDJSON_HPP
#define PARLEY_NET_NDJSON_HPP

#include <parley/error.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

namespace parley::net {

/// Splits a byte stream into lines. A line ends with "\n" (a "\r" before it is dropped); blank
/// lines are skipped. The reader does not parse the lines: a JSON parser of them does. Lines
/// wholly inside one `feed` are read in place; only what spans feeds is copied.
class ndjson_reader {
public:
    /// A reader whose lines are at most `max_line` bytes long (without their line end).
    explicit ndjson_reader(std::size_t max_line = std::size_t{1} << 20) : max_line_(max_line) {}

    /// Feeds the next bytes and calls `on_line(std::string_view)` for every line they complete.
    /// When `on_line` returns `bool` and returns false, reading stops right after that line and
    /// the rest of `bytes` is dropped. Returns an empty error code, or `errc::protocol` when a
    /// line exceeds `max_line` (see `failure()`); the reader then stays failed.
    template <class F>
    std::error_code feed(std::string_view bytes, F&& on_line) {
        if (failed_) return make_error_code(errc::protocol);
        std::size_t begin = 0;
        while (begin < bytes.size()) {
            const std::size_t nl = bytes.find('\n', begin);
            if (nl == std::string_view::npos) {
                const std::string_view rest = bytes.substr(begin);
                if (line_.size() + rest.size() > max_line_ + 1) return fail(line_.size() + rest.size());
                line_.append(rest);
                break;
            }
            std::string_view line = bytes.substr(begin, nl - begin);
            begin = nl + 1;
            if (!line_.empty()) {
                if (line_.size() + line.size() > max_line_ + 1) return fail(line_.size() + line.size());
                line_.append(line);
                line = line_;
            }
            if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
            if (line.size() > max_line_) return fail(line.size());
            bool go_on = true;
            if (line.find_first_not_of(" \t") != std::string_view::npos) {
                if constexpr (std::is_same_v<std::invoke_result_t<F&, std::string_view>, bool>) {
                    go_on = on_line(line);
                } else {
                    on_line(line);
                }
            }
            line_.clear();
            if (!go_on) break;
        }
        return {};
    }

    /// At the end of the byte stream: whether an unterminated line is pending (a last line
    /// without its "\n"; `take_pending()` gives it).
    bool pending() const noexcept { return line_.find_first_not_of(" \t\r") != std::string::npos; }
    /// The unterminated last line, taken out of the reader.
    std::string take_pending() {
        std::string line = std::move(line_);
        line_.clear();
        if (!line.empty() && line.back() == '\r') line.pop_back();
        return line;
    }

    /// True after a line exceeded the limit.
    bool failed() const noexcept { return failed_; }
    /// Why the reader failed ("" when it did not).
    const std::string& failure() const noexcept { return failure_; }

private:
    std::error_code fail(std::size_t found) {
        failed_ = true;
        line_.clear();
        failure_ = "a line of more than " + std::to_string(max_line_) + " bytes (at least " + std::to_string(found) +
                   " bytes)";
        return make_error_code(errc::protocol);
    }

    std::size_t max_line_;
    bool failed_ = false;
    std::string line_;  // an unterminated line carried over from earlier feeds
    std::string failure_;
};

}  // namespace parley::net

#endif
