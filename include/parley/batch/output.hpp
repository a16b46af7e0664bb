// parley/batch/output.hpp: where a batch writes its lines. batch_sink is what the runner needs
// (which ids are done, and the writing of one whole line); batch_file is the JSON-lines file of
// `parley batch --output` (POSIX): each line goes out in one write(2) to a file opened with
// O_APPEND, the ids already in the file are read when it is opened (a run resumes where the last
// one stopped), and a last line cut short (a writer killed in the middle of a long line) is cut
// off with a notice.
#ifndef PARLEY_BATCH_OUTPUT_HPP
#define PARLEY_BATCH_OUTPUT_HPP

#include <parley/batch/lines.hpp>
#include <parley/error.hpp>

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace parley {

/// Where a batch's lines go, and what it already holds.
class batch_sink {
public:
    virtual ~batch_sink() = default;
    /// Whether the input with this id key (batch_id_key) already has its line.
    virtual bool done(std::string_view id_key) const = 0;
    /// Writes one whole line (ending with '\n'). Throws parley::error when it cannot.
    virtual void write(std::string_view line) = 0;
};

/// What an output file held when it was opened.
struct batch_file_state {
    std::size_t lines = 0;  ///< complete output lines
    std::size_t results = 0;  ///< of which results
    std::size_t errors = 0;  ///< of which errors
    std::size_t cut_bytes = 0;  ///< bytes of a last line without its line break, cut off (0: none)
    std::size_t cut_line = 0;  ///< the number of that line
    std::size_t dropped_errors = 0;  ///< error lines removed by `retry_failed`
};

/// How a batch_file is opened.
struct batch_file_options {
    /// Error lines are removed from the file before the run (the file is rewritten atomically),
    /// so that their inputs run again.
    bool retry_failed = false;
    /// Flush each line to disk (fdatasync) after writing it: the lines survive a crash of the
    /// machine, not only of the process, at the price of a disk flush per line.
    bool sync_each_line = false;
    batch_line_limits limits;
};

namespace detail::batch {

[[noreturn]] inline void system_failure(int err, const std::string& what) {
    throw error(std::error_code(err, std::generic_category()), what + ": " + std::strerror(err));
}

/// A file descriptor closed on destruction.
struct descriptor {
    int fd = -1;
    explicit descriptor(int f = -1) noexcept : fd(f) {}
    descriptor(descriptor&& o) noexcept : fd(std::exchange(o.fd, -1)) {}
    descriptor& operator=(descriptor&& o) noexcept {
        if (this != &o) {
            if (fd >= 0) ::close(fd);
            fd = std::exchange(o.fd, -1);
        }
        return *this;
    }
    ~descriptor() {
        if (fd >= 0) ::close(fd);
    }
};

/// Writes all of `bytes` at the end of `fd` (opened with O_APPEND), in one write(2) unless the
/// system takes fewer bytes.
inline void append_all(int fd, std::string_view bytes, const std::string& name) {
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            system_failure(errno, "cannot write to " + name);
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
}

}  // namespace detail::batch

/// The output file of a batch: JSON lines, one per input, appended. Opening it reads the lines it
/// holds: their ids are done (a run skips them), a last line without its line break is cut off
/// (the file is truncated after the last complete line, and `state().cut_bytes` says how much
/// went), and a complete line that is not an output line of a batch, or an id that appears
/// twice, is an error that names the line (the file is left as it is). Then each write() is one
/// write(2) of a whole line, at the end of the file (O_APPEND): a process killed at any moment
/// leaves whole lines, but for the rare write of a line longer than a page that a SIGKILL cuts
/// short, which the next opening cuts off. One writer at a time: a second process appending to
/// the same file is not detected. Not thread-safe.
class batch_file final : public batch_sink {
public:
    /// Opens `path` for appending (creating it, mode 0666 less the umask). Throws parley::error:
    /// errc::invalid_argument for a line of the file that is not an output line of a batch or a
    /// repeated id (naming the line), a system error code when the file cannot be read, created
    /// or truncated.
    explicit batch_file(std::filesystem::path path, batch_file_options options = {})
        : path_(std::move(path)), name_(path_.string()), options_(std::move(options)) {
        if (options_.retry_failed) drop_errors();
        fd_ = detail::batch::descriptor(::open(name_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0666));
        if (fd_.fd < 0) detail::batch::system_failure(errno, "cannot open " + name_);
        const std::uint64_t complete = scan(fd_.fd, [this](const batch_output_line& line, std::size_t number) {
            if (!done_.insert(line.id_key).second)
                throw error(errc::invalid_argument, name_ + ":" + std::to_string(number) + ": the id " + line.id_key +
                                                        " has a line already: the file is not the output of one batch");
        });
        if (state_.cut_bytes != 0 && ::ftruncate(fd_.fd, static_cast<off_t>(complete)) != 0)
            detail::batch::system_failure(errno, "cannot cut the incomplete last line off " + name_);
    }

    bool done(std::string_view id_key) const override { return done_.find(std::string(id_key)) != done_.end(); }

    void write(std::string_view line) override {
        detail::batch::append_all(fd_.fd, line, name_);
        if (options_.sync_each_line && ::fdatasync(fd_.fd) != 0) detail::batch::system_failure(errno, "cannot flush " + name_);
    }

    /// What the file held when it was opened.
    const batch_file_state& state() const noexcept { return state_; }
    /// The number of ids done when the file was opened.
    std::size_t done_count() const noexcept { return done_.size(); }
    const std::filesystem::path& path() const noexcept { return path_; }

private:
    /// Reads the output lines of `fd` from its start; returns the offset past the last complete
    /// line. Fills state_ (cut_bytes: what follows that offset).
    template <class OnLine>
    std::uint64_t scan(int fd, OnLine&& on_line) {
        std::string buffer;
        std::uint64_t consumed = 0;  // offset of buffer[0] in the file
        std::size_t number = 1;
        bool at_start = true;
        std::vector<char> block(1 << 20);
        for (;;) {
            const ssize_t n = ::pread(fd, block.data(), block.size(), static_cast<off_t>(consumed + buffer.size()));
            if (n < 0) {
                if (errno == EINTR) continue;
                detail::batch::system_failure(errno, "cannot read " + name_);
            }
            if (n == 0) break;
            buffer.append(block.data(), static_cast<std::size_t>(n));
            const std::size_t used = for_each_line(buffer, number, at_start, [&](std::string_view text, std::size_t at) {
                std::optional<batch_line_error> failure;
                auto line = read_batch_output_line(text, at, name_, failure, options_.limits);
                if (!line) throw error(errc::invalid_argument, failure->message);
                ++state_.lines;
                ++(line->failed ? state_.errors : state_.results);
                on_line(*line, at);
                number = at + 1;
            });
            at_start = false;
            consumed += used;
            buffer.erase(0, used);
            if (buffer.size() > options_.limits.max_line_bytes)
                throw error(errc::invalid_argument, name_ + ":" + std::to_string(number) + ": the line is longer than " +
                                                        std::to_string(options_.limits.max_line_bytes) + " bytes");
        }
        state_.cut_bytes = buffer.size();
        state_.cut_line = buffer.empty() ? 0 : number;
        return consumed;
    }

    /// Rewrites the file without its error lines (and without a last line cut short): a new
    /// file beside it, flushed, renamed over it.
    void drop_errors() {
        detail::batch::descriptor in(::open(name_.c_str(), O_RDONLY | O_CLOEXEC));
        if (in.fd < 0) {
            if (errno == ENOENT) return;
            detail::batch::system_failure(errno, "cannot open " + name_);
        }
        struct stat st {};
        if (::fstat(in.fd, &st) != 0) detail::batch::system_failure(errno, "cannot read " + name_);
        const std::string temp = name_ + ".parley-tmp";
        detail::batch::descriptor out(::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, st.st_mode & 07777));
        if (out.fd < 0) detail::batch::system_failure(errno, "cannot create " + temp);
        std::string kept;
        std::size_t dropped = 0;
        try {
            std::string all;
            {
                std::vector<char> block(1 << 20);
                for (;;) {
                    const ssize_t n = ::read(in.fd, block.data(), block.size());
                    if (n < 0) {
                        if (errno == EINTR) continue;
                        detail::batch::system_failure(errno, "cannot read " + name_);
                    }
                    if (n == 0) break;
                    all.append(block.data(), static_cast<std::size_t>(n));
                    // whole lines go out as they come, so that memory stays bounded
                    const std::size_t used = for_each_line(all, 0, false, [&](std::string_view text, std::size_t) {
                        std::optional<batch_line_error> failure;
                        auto line = read_batch_output_line(text, 0, name_, failure, options_.limits);
                        if (!line || !line->failed) {
                            kept.append(text);
                            kept += '\n';
                        } else {
                            ++dropped;
                        }
                    });
                    all.erase(0, used);
                    if (kept.size() >= (1u << 20)) {
                        detail::batch::append_all(out.fd, kept, temp);
                        kept.clear();
                    }
                }
            }
            kept += all;  // a last line cut short stays, for the scan to cut off and report
            detail::batch::append_all(out.fd, kept, temp);
            if (::fsync(out.fd) != 0) detail::batch::system_failure(errno, "cannot flush " + temp + " to disk");
            if (::rename(temp.c_str(), name_.c_str()) != 0) detail::batch::system_failure(errno, "cannot rename " + temp + " over " + name_);
        } catch (...) {
            ::unlink(temp.c_str());
            throw;
        }
        state_.dropped_errors = dropped;
    }

    std::filesystem::path path_;
    std::string name_;
    batch_file_options options_;
    detail::batch::descriptor fd_;
    std::unordered_set<std::string> done_;
    batch_file_state state_;
};

/// A sink that keeps the lines in memory (tests, small batches): `lines()` in the order written.
class batch_memory_sink final : public batch_sink {
public:
    bool done(std::string_view id_key) const override { return done_.find(std::string(id_key)) != done_.end(); }
    void write(std::string_view line) override { lines_.emplace_back(line); }
    /// Marks an id as done before a run (as if its line were there).
    void mark_done(std::string id_key) { done_.insert(std::move(id_key)); }
    const std::vector<std::string>& lines() const noexcept { return lines_; }

private:
    std::unordered_set<std::string> done_;
    std::vector<std::string> lines_;
};

}  // namespace parley

#endif
