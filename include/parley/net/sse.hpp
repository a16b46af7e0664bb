// parley/net/sse.hpp: an incremental reader of Server-Sent Events (text/event-stream): bytes in,
// events out, whatever the chunking.
#ifndef PARLEY_NET_SSE_HPP
#define PARLEY_NET_SSE_HPP

#include <parley/error.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

namespace parley::net {

/// Bounds on what a server's event stream may make the reader hold. Exceeding one is an
/// `errc::protocol` error, never unbounded growth.
struct sse_limits {
    /// Longest line, in bytes, without its line end (1 MiB by default). Also bounds the `event`
    /// and `id` fields, which are single lines.
    std::size_t max_line = std::size_t{1} << 20;
    /// Largest data of one event, in bytes: its `data:` lines and the '\n' that join them
    /// (8 MiB by default).
    std::size_t max_event = std::size_t{8} << 20;
};

/// One dispatched event. The views are valid only during the callback that receives it.
struct sse_event {
    std::string_view event;  ///< the `event:` field; "" means "message"
    std::string_view data;  ///< the `data:` lines joined with '\n'
    std::string_view id;  ///< the last event ID at the time of dispatch (ids persist across events)
};

/// Reads a `text/event-stream` body incrementally, following the WHATWG HTML rules of "event
/// stream interpretation": lines end with "\r\n", "\n" or a lone "\r" (also split across feeds);
/// a leading UTF-8 byte order mark is dropped; a line starting with ':' is a comment; a field is
/// "name:value" with one optional space after the colon, or a name alone with an empty value;
/// `data` lines are joined with '\n'; `event` sets the type; `id` sets the last event ID unless it
/// contains NUL; `retry` sets the reconnection time when it is all ASCII digits; other fields are
/// ignored; a blank line dispatches the event, unless no `data` line was seen (a `data:` line with
/// an empty value does count: its event has empty data).
///
/// Bytes are passed through as they are: the reader does not decode or validate UTF-8 (a JSON
/// parser of the data does). Lines wholly inside one `feed` are read in place; only what spans
/// feeds is copied.
class sse_reader {
public:
    /// A reader at the start of a stream.
    explicit sse_reader(sse_limits limits = {}) : limits_(limits) {}

    /// Feeds the next bytes of the stream and calls `on_event(const sse_event&)` for every event
    /// they complete. When `on_event` returns `bool` and returns false, reading stops right
    /// after that event (`consumed()` says where) and the rest of `bytes` is dropped. Returns an
    /// empty error code, or `errc::protocol` when a line or an event exceeds the limits (see
    /// `failure()`); the reader then stays failed until `reset()`. An exception from `on_event`
    /// propagates: the event it was given counts as delivered, the rest of `bytes` is not read,
    /// and the reader can go on with later bytes.
    template <class F>
    std::error_code feed(std::string_view bytes, F&& on_event);

    /// At the end of the byte stream: whether bytes of an incomplete event were pending (an
    /// unterminated line, or field lines not yet followed by a blank line). Such an event is
    /// discarded, as the specification says; true tells a caller the stream was cut.
    bool pending() const noexcept { return !line_.empty() || in_event_ || (!started_ && bom_ > 0); }

    /// The last event ID of the stream (set by the `id` field of a dispatched event; "" at first).
    std::string_view last_event_id() const noexcept { return last_id_; }

    /// The reconnection time of the last valid `retry:` field, in milliseconds; none when no
    /// valid one was read (a value that does not fit 64 bits is ignored, like a malformed one).
    std::optional<std::uint64_t> retry_ms() const noexcept { return retry_; }

    /// True after a limit was exceeded: every later `feed` returns `errc::protocol`.
    bool failed() const noexcept { return failed_; }

    /// Why the reader failed ("" when it did not): which limit, and by how much.
    const std::string& failure() const noexcept { return failure_; }

    /// Bytes of the last `feed` that were read: all of them, unless the callback stopped the
    /// reader or it failed.
    std::size_t consumed() const noexcept { return consumed_; }

    /// Bytes of memory the reader's buffers hold. Stays below 2 × (4 × `max_line` + `max_event`)
    /// whatever the input.
    std::size_t buffer_capacity() const noexcept {
        return line_.capacity() + data_.capacity() + event_.capacity() + id_buffer_.capacity() + last_id_.capacity();
    }

    /// Back to the state of a new reader (last event ID, reconnection time and failure
    /// included), keeping the limits.
    void reset() {
        *this = sse_reader(limits_);
    }

private:
    enum class step { next, stop, fail };

    template <class F>
    step process_line(std::string_view line, bool in_place, F& on_event);
    template <class F>
    step dispatch(F& on_event);
    step add_data(std::string_view value, bool in_place);
    void set_event(std::string_view value, bool in_place);
    void set_retry(std::string_view value) noexcept;
    bool carry(std::string_view part);
    void keep_views();
    void fail(std::string message);
    std::error_code stopped_at(std::size_t pos) noexcept {
        consumed_ = pos;
        return make_error_code(errc::protocol);
    }

    std::string_view data_view() const noexcept { return data_owned_ ? std::string_view(data_) : data_view_; }
    std::string_view event_view() const noexcept { return event_owned_ ? std::string_view(event_) : event_view_; }

    sse_limits limits_;
    bool failed_ = false;
    bool started_ = false;  // past the place of the byte order mark
    unsigned bom_ = 0;  // bytes of the byte order mark matched while !started_
    bool skip_lf_ = false;  // the last line ended with '\r': a '\n' right after it belongs to it
    bool in_event_ = false;  // a field line of the current event was read
    bool has_data_ = false;  // the current event has a data line
    bool data_owned_ = false;  // its data is in data_ rather than data_view_
    bool event_owned_ = false;  // its type is in event_ rather than event_view_
    bool id_changed_ = false;  // id_buffer_ differs from last_id_
    std::string line_;  // an unterminated line carried over from earlier feeds
    std::string data_;
    std::string_view data_view_;  // data lying in the bytes of the current feed
    std::string event_;
    std::string_view event_view_;
    std::string id_buffer_;  // the specification's "last event ID buffer"
    std::string last_id_;  // its "last event ID string"
    std::optional<std::uint64_t> retry_;
    std::size_t consumed_ = 0;
    std::string failure_;
};

// ---------------------------------------------------------------------------------------------

template <class F>
std::error_code sse_reader::feed(std::string_view bytes, F&& on_event) {
    consumed_ = 0;
    if (failed_) return make_error_code(errc::protocol);
    const char* const text = bytes.data();
    const std::size_t n = bytes.size();
    std::size_t pos = 0;

    // One byte order mark is ignored at the very start of the stream, even split across feeds.
    while (!started_ && pos < n) {
        static constexpr char bom[3] = {'\xEF', '\xBB', '\xBF'};
        if (text[pos] == bom[bom_]) {
            ++pos;
            if (++bom_ == 3) started_ = true;
        } else {
            line_.assign(bom, bom_);  // a partial match was the start of the first line
            started_ = true;
        }
    }
    if (skip_lf_ && pos < n) {
        if (text[pos] == '\n') ++pos;
        skip_lf_ = false;
    }

    // Lines end at '\n' or '\r'. Searching '\r' once for the whole input (and again only after
    // passing it) keeps the common "\n only" stream at one memchr per line.
    auto find = [&](std::size_t from, std::size_t to, char c) noexcept -> std::size_t {
        const void* hit = from < to ? std::memchr(text + from, c, to - from) : nullptr;
        return hit ? static_cast<std::size_t>(static_cast<const char*>(hit) - text) : to;
    };
    std::size_t cr = find(pos, n, '\r');
    while (pos < n) {
        if (cr < pos) cr = find(pos, n, '\r');
        const std::size_t eol = find(pos, cr, '\n');
        if (eol == n) {
            if (!carry(bytes.substr(pos))) return stopped_at(pos);
            pos = n;
            break;
        }
        std::string_view line(text + pos, eol - pos);
        bool in_place = true;
        if (!line_.empty()) {
            if (!carry(line)) return stopped_at(pos);
            line = line_;
            in_place = false;
        } else if (line.size() > limits_.max_line) {
            fail("an event-stream line of " + std::to_string(line.size()) +
                 " bytes is longer than the limit (sse_limits::max_line = " + std::to_string(limits_.max_line) + ")");
            return stopped_at(pos);
        }
        pos = eol + 1;
        if (text[eol] == '\r') {
            if (pos == n)
                skip_lf_ = true;
            else if (text[pos] == '\n')
                ++pos;
        }
        const step s = process_line(line, in_place, on_event);
        if (!in_place && !failed_) line_.clear();
        if (s == step::fail) return stopped_at(pos);
        if (s == step::stop) {
            consumed_ = pos;
            keep_views();
            return {};
        }
    }
    consumed_ = n;
    keep_views();
    return {};
}

template <class F>
sse_reader::step sse_reader::process_line(std::string_view line, bool in_place, F& on_event) {
    if (line.empty()) return dispatch(on_event);
    if (line.front() == ':') return step::next;  // a comment
    in_event_ = true;
    if (line.size() >= 5 && std::memcmp(line.data(), "data:", 5) == 0) {  // the common case first
        std::string_view value = line.substr(5);
        if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
        return add_data(value, in_place);
    }
    std::string_view name = line;
    std::string_view value;
    if (const void* colon = std::memchr(line.data(), ':', line.size())) {
        const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(colon) - line.data());
        name = line.substr(0, at);
        value = line.substr(at + 1);
        if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    }
    if (name == "data") return add_data(value, in_place);
    if (name == "event") {
        set_event(value, in_place);
    } else if (name == "id") {
        if (value.find('\0') == std::string_view::npos) {
            id_buffer_.assign(value);
            id_changed_ = true;
        }
    } else if (name == "retry") {
        set_retry(value);
    }
    return step::next;
}

template <class F>
sse_reader::step sse_reader::dispatch(F& on_event) {
    if (id_changed_) {
        last_id_ = id_buffer_;
        id_changed_ = false;
    }
    in_event_ = false;
    if (!has_data_) {
        event_owned_ = false;
        event_view_ = {};
        return step::next;
    }
    const sse_event ev{event_view(), data_view(), last_id_};
    // The buffers keep their bytes until the next field line, so the views stay valid while the
    // callback runs; the event is already consumed if it throws.
    has_data_ = false;
    data_owned_ = false;
    data_view_ = {};
    event_owned_ = false;
    event_view_ = {};
    if constexpr (std::is_convertible_v<std::invoke_result_t<F&, const sse_event&>, bool>) {
        if (!static_cast<bool>(on_event(ev))) return step::stop;
    } else {
        on_event(ev);
    }
    return step::next;
}

inline sse_reader::step sse_reader::add_data(std::string_view value, bool in_place) {
    const std::size_t size = has_data_ ? data_view().size() + 1 + value.size() : value.size();
    if (size > limits_.max_event) {
        fail("the data of an event exceeds the limit (sse_limits::max_event = " + std::to_string(limits_.max_event) +
             " bytes)");
        return step::fail;
    }
    if (!has_data_) {
        has_data_ = true;
        if (in_place) {
            data_view_ = value;
            data_owned_ = false;
        } else {
            data_.assign(value);
            data_owned_ = true;
        }
        return step::next;
    }
    if (!data_owned_) {
        data_.assign(data_view_);
        data_owned_ = true;
    }
    data_ += '\n';
    data_ += value;
    return step::next;
}

inline void sse_reader::set_event(std::string_view value, bool in_place) {
    if (in_place) {
        event_view_ = value;
        event_owned_ = false;
    } else {
        event_.assign(value);
        event_owned_ = true;
    }
}

inline void sse_reader::set_retry(std::string_view value) noexcept {
    if (value.empty()) return;
    std::uint64_t ms = 0;
    for (char c : value) {
        if (c < '0' || c > '9') return;
        const auto digit = static_cast<std::uint64_t>(c - '0');
        if (ms > (UINT64_MAX - digit) / 10) return;
        ms = ms * 10 + digit;
    }
    retry_ = ms;
}

// Appends part of an unterminated line to line_; false (and failed) past max_line.
inline bool sse_reader::carry(std::string_view part) {
    if (part.size() > limits_.max_line - line_.size()) {
        fail("an event-stream line is longer than the limit (sse_limits::max_line = " +
             std::to_string(limits_.max_line) + " bytes)");
        return false;
    }
    line_.append(part);
    return true;
}

// Copies what still points into the caller's bytes before they go away.
inline void sse_reader::keep_views() {
    if (has_data_ && !data_owned_) {
        data_.assign(data_view_);
        data_owned_ = true;
    }
    if (!event_owned_ && !event_view_.empty()) {
        event_.assign(event_view_);
        event_owned_ = true;
    }
    data_view_ = {};
    event_view_ = {};
}

inline void sse_reader::fail(std::string message) {
    if (!failed_) {
        failed_ = true;
        failure_ = std::move(message);
        // Give the memory back: nothing read so far will be used.
        line_ = std::string();
        data_ = std::string();
        event_ = std::string();
        data_view_ = {};
        event_view_ = {};
        has_data_ = data_owned_ = event_owned_ = in_event_ = false;
    }
}

}  // namespace parley::net

#endif
