// parley/chat/history_file.hpp: conversations kept in JSON files (POSIX): save_history replaces a
// file atomically and durably, load_history reads one back with errors that name the file and
// the place of the problem. The format is that of parley/chat/json.hpp.
#ifndef PARLEY_CHAT_HISTORY_FILE_HPP
#define PARLEY_CHAT_HISTORY_FILE_HPP

#include <parley/chat/json.hpp>
#include <parley/chat/message.hpp>
#include <parley/chat/pretty_json.hpp>
#include <parley/error.hpp>
#include <parley/schema/json_text.hpp>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace parley {

/// How history files are read and written.
struct history_file_options {
    /// The largest file load_history reads; a longer one is a history_file_error
    /// (errc::template_limit).
    std::size_t max_bytes = std::size_t(64) << 20;
    /// The deepest nesting of JSON arrays and objects load_history accepts.
    std::size_t max_depth = 64;
    /// load_history of a file that does not exist gives an empty conversation instead of an
    /// error.
    bool missing_is_empty = false;
    /// Spaces per level of the JSON save_history writes (0: one line).
    int indent = 2;
};

/// An error reading or writing a history file. `what()` begins with the file's name, then the
/// place: `history.json: /3/role: unknown role 'bot'` for a message that breaks a rule (the JSON
/// pointer of the offending value), `history.json:2:10: not valid JSON: ...` for a syntax error.
/// code() is errc::chat_invalid for a rule, errc::conversion for JSON that does not parse,
/// errc::template_limit for a limit, and the system's error code for a file that cannot be
/// opened, read or written (std::errc::no_such_file_or_directory for a missing file).
class history_file_error : public error {
public:
    history_file_error(std::error_code code, std::string file, std::string pointer, std::uint32_t line,
                       std::uint32_t column, const std::string& what)
        : error(code, what), file_(std::move(file)), pointer_(std::move(pointer)), line_(line), column_(column) {}

    /// The file, as given.
    const std::string& file() const noexcept { return file_; }
    /// The JSON pointer of the value that breaks a rule (`/3/role`); empty for other errors.
    const std::string& pointer() const noexcept { return pointer_; }
    /// The line of a JSON syntax error (from 1); 0 for other errors.
    std::uint32_t line() const noexcept { return line_; }
    /// The column of a JSON syntax error (from 1, in code points); 0 for other errors.
    std::uint32_t column() const noexcept { return column_; }

private:
    std::string file_;
    std::string pointer_;
    std::uint32_t line_ = 0;
    std::uint32_t column_ = 0;
};

namespace detail::history_file {

[[noreturn]] inline void system_failure(int err, const std::string& file, const std::string& what) {
    throw history_file_error(std::error_code(err, std::system_category()), file, {}, 0, 0,
                             file + ": " + what + ": " + std::strerror(err));
}

/// Closes a descriptor when it goes out of scope.
struct descriptor {
    int fd = -1;
    descriptor() = default;
    explicit descriptor(int f) noexcept : fd(f) {}
    descriptor(const descriptor&) = delete;
    descriptor& operator=(const descriptor&) = delete;
    ~descriptor() {
        if (fd >= 0) ::close(fd);
    }
    int release() noexcept { return std::exchange(fd, -1); }
};

/// Writes all of `data` to `fd`; false with errno set on failure.
inline bool write_all(int fd, std::string_view data) {
    while (!data.empty()) {
        const ssize_t w = ::write(fd, data.data(), data.size());
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        data.remove_prefix(static_cast<std::size_t>(w));
    }
    return true;
}

/// The file a save replaces: `path`, or the file a symbolic link at `path` leads to.
inline std::filesystem::path target_of(const std::filesystem::path& path) {
    std::error_code ec;
    if (!std::filesystem::is_symlink(path, ec)) return path;
    std::filesystem::path to = path;
    for (int hops = 0; hops < 40 && std::filesystem::is_symlink(to, ec); ++hops) {
        std::filesystem::path next = std::filesystem::read_symlink(to, ec);
        if (ec) return to;
        to = next.is_absolute() ? next : to.parent_path() / next;
    }
    return to;
}

/// Creates a new file `.NAME.tmp-XXXXXXXXXXXX` beside `target` (mode 0666 less the umask, as
/// any new file); returns its descriptor and sets `name`.
inline int create_temporary(const std::filesystem::path& target, std::string& name) {
    static thread_local std::mt19937_64 rng{std::random_device{}() ^
                                               static_cast<std::uint64_t>(::getpid()) << 32};
    const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
    for (int attempt = 0; attempt < 100; ++attempt) {
        static constexpr char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
        std::string suffix;
        std::uint64_t r = rng();
        for (int k = 0; k < 12; ++k, r /= 36) suffix += digits[r % 36];
        name = (dir / ("." + target.filename().string() + ".tmp-" + suffix)).string();
        const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) return fd;
        if (errno != EEXIST && errno != EINTR)
            system_failure(errno, target.string(), "cannot create a temporary file in " + dir.string());
    }
    system_failure(EEXIST, target.string(), "cannot create a temporary file in " + dir.string());
}

}  // namespace detail::history_file

/// Replaces the file `path` with `text` atomically and durably (POSIX): the text is written to a
/// new file in the same directory (`.NAME.tmp-` and 12 random characters), which gets the old
/// file's permissions (and its owner and group where the process may set them; a new file gets
/// 0666 less the umask), is flushed to disk (fsync), and is renamed over `path`; then the
/// directory is flushed, so that the rename itself is on disk. Whenever the process dies, a
/// reader sees the old file or the new one, whole; a process killed before the rename may leave
/// its temporary file behind. A symbolic link at `path` is followed: the file it leads to is
/// replaced. Throws history_file_error (the system's error code) naming the file and the step
/// that failed; the old file is then unchanged (except when only the last step, flushing the
/// directory, fails: the error says the file was replaced).
inline void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
    namespace hf = detail::history_file;
    const std::filesystem::path target = hf::target_of(path);
    const std::string shown = path.string();
    std::string temp;
    hf::descriptor fd(hf::create_temporary(target, temp));
    try {
        struct stat old {};
        if (::stat(target.c_str(), &old) == 0) {
            if (::fchmod(fd.fd, old.st_mode & 07777) != 0)
                hf::system_failure(errno, shown, "cannot give the new file the permissions of the old one");
            if (old.st_uid != ::geteuid() || old.st_gid != ::getegid()) {
                // best effort: only a privileged process may give a file away
                [[maybe_unused]] const int ignored = ::fchown(fd.fd, old.st_uid, old.st_gid);
            }
        } else if (errno != ENOENT) {
            hf::system_failure(errno, shown, "cannot read the permissions of the file");
        }
        if (!hf::write_all(fd.fd, text)) hf::system_failure(errno, shown, "cannot write " + temp);
        if (::fsync(fd.fd) != 0) hf::system_failure(errno, shown, "cannot flush " + temp + " to disk");
        if (::close(fd.release()) != 0) hf::system_failure(errno, shown, "cannot write " + temp);
        if (::rename(temp.c_str(), target.c_str()) != 0) hf::system_failure(errno, shown, "cannot rename " + temp + " over it");
    } catch (...) {
        ::unlink(temp.c_str());
        throw;
    }
    const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
    hf::descriptor d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    // file systems that cannot flush a directory say EINVAL; the rename is then as durable as
    // they make it
    if (d.fd < 0 || (::fsync(d.fd) != 0 && errno != EINVAL && errno != ENOTSUP))
        hf::system_failure(errno, shown, "the file was replaced, but its directory could not be flushed to disk");
}

/// Saves `conversation` to the file `path` as a JSON array of messages (conversation_to_json,
/// written by pretty_json with `options.indent`, then a new line), with the guarantees of
/// write_file_atomically: the old file stays whole whatever happens before the new one is in
/// place. Throws history_file_error.
inline void save_history(const std::filesystem::path& path, const std::vector<message>& conversation,
                         const history_file_options& options = {}) {
    write_file_atomically(path, pretty_json(conversation_to_json(conversation), options.indent) + "\n");
}

/// Reads the conversation `text` holds (a JSON array of messages, see conversation_from_json);
/// `file` names it in errors. Throws history_file_error as load_history.
inline std::vector<message> parse_history(std::string_view text, const std::string& file,
                                         const history_file_options& options = {}) {
    if (text.size() > options.max_bytes)
        throw history_file_error(make_error_code(errc::template_limit), file, {}, 0, 0,
                                 file + ": the file is longer than the limit of " + std::to_string(options.max_bytes) +
                                     " bytes");
    json_text_options jo;
    jo.max_depth = options.max_depth;
    const detail::json_text::attempt a = detail::json_text::parse_at(text, 0, text.size(), jo, true);
    if (a.error) {
        const json_text_error& e = *a.error;
        throw history_file_error(make_error_code(errc::conversion), file, {}, e.line, e.column,
                                 file + ":" + std::to_string(e.line) + ":" + std::to_string(e.column) +
                                     ": not valid JSON: " + e.message());
    }
    detail::chat_json_reader r;
    try {
        std::vector<message> out;
        const auto& list = r.array(*a.value);
        out.reserve(list.size());
        for (std::size_t i = 0; i < list.size(); ++i) {
            detail::chat_json_reader::step s(r, i);
            out.push_back(r.read_message(list[i]));
        }
        return out;
    } catch (const error& e) {  // the reader's message begins with the pointer
        throw history_file_error(e.code(), file, r.failed_at, 0, 0, file + ": " + e.what());
    }
}

/// Reads the conversation of the history file `path` (written by save_history, or any JSON array
/// of messages in the format of conversation_from_json). Throws history_file_error naming the
/// file: with the JSON pointer of a message that breaks a rule (`history.json: /3/role: unknown
/// role 'bot'`), the line and column of a JSON syntax error (`history.json:2:10: not valid JSON:
/// expected valid JSON, found "Oslo}" at line 2, column 10, offset 25 (syntax error)`), the
/// system's error for a file that cannot be read, or the limit passed. A missing file is an
/// error unless `options.missing_is_empty`.
inline std::vector<message> load_history(const std::filesystem::path& path, const history_file_options& options = {}) {
    namespace hf = detail::history_file;
    const std::string file = path.string();
    hf::descriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.fd < 0) {
        if (errno == ENOENT && options.missing_is_empty) return {};
        hf::system_failure(errno, file, "cannot open the file");
    }
    std::string text;
    char buffer[65536];
    for (;;) {
        const ssize_t got = ::read(fd.fd, buffer, sizeof buffer);
        if (got < 0) {
            if (errno == EINTR) continue;
            hf::system_failure(errno, file, "cannot read the file");
        }
        if (got == 0) break;
        text.append(buffer, static_cast<std::size_t>(got));
        if (text.size() > options.max_bytes) break;  // parse_history reports the limit
    }
    return parse_history(text, file, options);
}

}  // namespace parley

#endif
