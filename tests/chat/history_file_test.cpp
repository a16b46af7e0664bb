// Tests of parley/chat/history_file.hpp: history files saved and loaded, the old file's
// permissions, symbolic links, every error with the file and the place, and a writer killed with
// SIGKILL at many points of its writes (tests/chat/history_writer/), after which the file is
// always one of the two conversations, whole.
#include <parley/chat/history_file.hpp>

#include "../harness/subprocess.hpp"

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

using namespace parley;

namespace history_file_test {

namespace fs = std::filesystem;

/// A fresh directory, removed with the object.
struct temp_dir {
    fs::path path = subprocess::temp_path("history");
    temp_dir() { fs::create_directories(path); }
    ~temp_dir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;
    fs::path operator/(const std::string& name) const { return path / name; }
    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const auto& e : fs::directory_iterator(path)) out.push_back(e.path().filename().string());
        std::sort(out.begin(), out.end());
        return out;
    }
};

std::string bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void put(const fs::path& p, std::string_view text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
}

std::vector<message> small_conversation() {
    std::vector<message> c;
    message d;
    d.role = role::default_request;
    d.params.model = "gpt-4o-mini";
    d.params.temperature = 0.2;
    c.push_back(d);
    c.push_back(make_message(role::system, "Be brief."));
    message u;
    u.role = role::user;
    u.content = std::vector<content_part>{content_part::make_text("What is this?"),
                                          content_part::make_image("https://example.com/a.png", "low")};
    c.push_back(u);
    message a;
    a.role = role::assistant;
    a.tool_calls.push_back({"call_1", {"get_weather", R"({"city": "Paris"})"}});
    c.push_back(a);
    message t = make_message(role::tool, "18 degrees \xC3\xA9t\xC3\xA9");
    t.tool_call_id = "call_1";
    c.push_back(t);
    message request;
    request.role = role::request;
    c.push_back(request);
    return c;
}

/// A conversation of about `size` bytes of JSON whose texts all carry `mark`.
std::vector<message> big_conversation(std::size_t size, char mark) {
    std::vector<message> c;
    const std::string text(4000, mark);
    for (std::size_t n = 0; n * 4050 < size; ++n)
        c.push_back(make_message(n % 2 ? role::assistant : role::user, text + std::to_string(n)));
    return c;
}

/// The history_file_error load_history throws for a file holding `text`.
history_file_error load_error(const temp_dir& dir, std::string_view text, const history_file_options& options = {}) {
    const fs::path p = dir / "h.json";
    put(p, text);
    try {
        load_history(p, options);
    } catch (const history_file_error& e) {
        CHECK(e.file() == p.string());
        return e;
    }
    FAIL("no error for " << text);
    return history_file_error({}, {}, {}, 0, 0, {});
}

TEST_CASE("history files: saved and loaded back, in the JSON of conversation_to_json") {
    temp_dir dir;
    const fs::path p = dir / "chat.json";
    const auto c = small_conversation();
    save_history(p, c);
    CHECK(bytes(p) == pretty_json(conversation_to_json(c)) + "\n");
    CHECK(load_history(p) == c);
    CHECK(dir.names() == std::vector<std::string>{"chat.json"});  // no temporary file left

    history_file_options one_line;
    one_line.indent = 0;
    save_history(p, c, one_line);
    CHECK(bytes(p) == pretty_json(conversation_to_json(c), 0) + "\n");
    CHECK(load_history(p) == c);

    save_history(p, {});
    CHECK(bytes(p) == "[]\n");
    CHECK(load_history(p).empty());

    // a relative path: the temporary file goes to the working directory
    const fs::path cwd = fs::current_path();
    fs::current_path(dir.path);
    save_history("rel.json", c);
    fs::current_path(cwd);
    CHECK(load_history(dir / "rel.json") == c);
    CHECK(dir.names() == std::vector<std::string>{"chat.json", "rel.json"});
}

TEST_CASE("history files: the old file's permissions are kept; a new file gets 0666 less the umask") {
    temp_dir dir;
    const fs::path p = dir / "chat.json";
    put(p, "[]");
    ::chmod(p.c_str(), 0640);
    save_history(p, small_conversation());
    struct stat st {};
    REQUIRE(::stat(p.c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0640);
    ::chmod(p.c_str(), 0604);
    save_history(p, {});
    REQUIRE(::stat(p.c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0604);

    const mode_t old_mask = ::umask(027);
    save_history(dir / "new.json", {});
    ::umask(old_mask);
    REQUIRE(::stat((dir / "new.json").c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0640);

    // owner and group are kept where the process may set them (a privileged test run)
    put(dir / "owned.json", "[]");
    if (::geteuid() == 0 && ::chown((dir / "owned.json").c_str(), 1234, 5678) == 0) {
        save_history(dir / "owned.json", small_conversation());
        REQUIRE(::stat((dir / "owned.json").c_str(), &st) == 0);
        CHECK(st.st_uid == 1234u);
        CHECK(st.st_gid == 5678u);
    }
}

TEST_CASE("history files: a symbolic link is followed, and stays a link") {
    temp_dir dir;
    fs::create_directories(dir / "real");
    put(dir / "real" / "chat.json", "[]");
    fs::create_symlink(fs::path("real") / "chat.json", dir / "link.json");
    const auto c = small_conversation();
    save_history(dir / "link.json", c);
    CHECK(fs::is_symlink(dir / "link.json"));
    CHECK(load_history(dir / "real" / "chat.json") == c);
    CHECK(load_history(dir / "link.json") == c);
    CHECK(dir.names() == std::vector<std::string>{"link.json", "real"});
    // a link to a file that does not exist yet makes it
    fs::create_symlink(fs::path("real") / "later.json", dir / "later.json");
    save_history(dir / "later.json", c);
    CHECK(fs::is_symlink(dir / "later.json"));
    CHECK(load_history(dir / "real" / "later.json") == c);
}

TEST_CASE("history files: errors name the file, and the JSON pointer or line and column") {
    temp_dir dir;
    const std::string file = (dir / "h.json").string();

    SUBCASE("a message that breaks a rule: the JSON pointer") {
        history_file_error e = load_error(dir, R"([{"role": "user", "content": "a"}, {"role": "bot", "content": "b"}])");
        CHECK(std::string(e.what()) == file + ": /1/role: unknown role 'bot' (expected system, user, assistant, "
                                              "function, tool, default-request, request or truncate)");
        CHECK(e.pointer() == "/1/role");
        CHECK(e.code() == errc::chat_invalid);
        CHECK(e.line() == 0);

        e = load_error(dir, R"([{"role": "user", "content": [{"type": "image_url",
                                 "image_url": {"url": "https://x/a.png", "detail": "huge"}}]}])");
        CHECK(e.pointer() == "/0/content/0/image_url/detail");
        CHECK(std::string(e.what()).rfind(file + ": /0/content/0/image_url/detail: ", 0) == 0);

        e = load_error(dir, R"([{"role": "user", "contnet": "a"}])");
        CHECK(e.pointer() == "/0/contnet");

        e = load_error(dir, R"({"role": "user"})");
        CHECK(std::string(e.what()) == file + ": /: expected an array, found an object");
        CHECK(e.pointer() == "/");

        e = load_error(dir, R"([{"role": "tool", "content": "x"}])");
        CHECK(e.pointer() == "/0");
    }
    SUBCASE("JSON that does not parse: line and column") {
        const std::string text = "[{\"role\": \"user\", \"content\": \"\xC3\xA9t\xC3\xA9\"},\n {\"role\": \"user\" \"content\": \"b\"}]";
        history_file_error e = load_error(dir, text);
        // the second line's `"content"`, column 18 (after 17 characters)
        CHECK(e.line() == 2);
        CHECK(e.column() == 18);
        CHECK(e.code() == errc::conversion);
        CHECK(e.pointer().empty());
        CHECK(std::string(e.what()) == file + ":2:18: not valid JSON: expected valid JSON, found \"\\\"content\\\": \\\"b\\\"}]\" at line "
                                              "2, column 18, offset " + std::to_string(text.find("\"content\": \"b\"")) +
                                              " (syntax error)");
        // a column counts characters, not bytes
        e = load_error(dir, "[\"\xC3\xA9\xC3\xA9\" x]");
        CHECK(e.line() == 1);
        CHECK(e.column() == 7);

        e = load_error(dir, "[{\"role\": \"user\",\n");
        CHECK(e.line() == 2);
        CHECK(e.column() == 1);
        CHECK(std::string(e.what()).find("found the end of the text") != std::string::npos);

        e = load_error(dir, "[] []");
        CHECK(e.column() == 4);
        CHECK(std::string(e.what()).find("(text after the JSON value)") != std::string::npos);

        e = load_error(dir, "");
        CHECK(e.line() == 1);
        CHECK(e.code() == errc::conversion);
    }
    SUBCASE("limits") {
        history_file_options small;
        small.max_bytes = 10;
        history_file_error e = load_error(dir, "[                ]", small);
        CHECK(e.code() == errc::template_limit);
        CHECK(std::string(e.what()) == file + ": the file is longer than the limit of 10 bytes");
        std::string deep = "[{\"role\": \"user\", \"content\": \"a\", \"response_format\": ";
        for (int i = 0; i < 70; ++i) deep += "[";
        for (int i = 0; i < 70; ++i) deep += "]";
        deep += "}]";
        e = load_error(dir, deep);
        CHECK(e.code() == errc::conversion);
        CHECK(std::string(e.what()).find("JSON nested at most 64 levels deep") != std::string::npos);
    }
    SUBCASE("files that cannot be read or written") {
        try {
            load_history(dir / "missing.json");
            FAIL("no error");
        } catch (const history_file_error& e) {
            CHECK(e.code() == std::errc::no_such_file_or_directory);
            CHECK(std::string(e.what()) == (dir / "missing.json").string() + ": cannot open the file: No such file or directory");
        }
        history_file_options lenient;
        lenient.missing_is_empty = true;
        CHECK(load_history(dir / "missing.json", lenient).empty());
        try {
            load_history(dir.path);
            FAIL("no error");
        } catch (const history_file_error& e) {
            CHECK(e.code() == std::errc::is_a_directory);
            CHECK(std::string(e.what()) == dir.path.string() + ": cannot read the file: Is a directory");
        }
        try {
            save_history(dir / "no-such-dir" / "h.json", {});
            FAIL("no error");
        } catch (const history_file_error& e) {
            CHECK(e.code() == std::errc::no_such_file_or_directory);
            CHECK(std::string(e.what()) == (dir / "no-such-dir" / "h.json").string() + ": cannot create a temporary file in " +
                                               (dir / "no-such-dir").string() + ": No such file or directory");
        }
        // a directory in the file's place: the rename fails, the temporary file goes
        fs::create_directories(dir / "taken" / "inside");
        try {
            save_history(dir / "taken", {});
            FAIL("no error");
        } catch (const history_file_error& e) {
            CHECK(e.code() == std::errc::is_a_directory);
            CHECK(std::string(e.what()).find(": cannot rename ") != std::string::npos);
        }
        CHECK(dir.names() == std::vector<std::string>{"taken"});
    }
}

/// Starts the writer: `mode` TARGET A B; returns its pid once it said it is ready.
pid_t start_writer(const std::string& mode, const fs::path& target, const fs::path& a, const fs::path& b) {
    int out[2];
    REQUIRE(::pipe(out) == 0);
    posix_spawn_file_actions_t actions;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    ::posix_spawn_file_actions_addclose(&actions, out[0]);
    const std::string program = PARLEY_TEST_HISTORY_WRITER;
    const std::string args[] = {program, mode, target.string(), a.string(), b.string()};
    std::vector<char*> argv;
    for (const auto& s : args) argv.push_back(const_cast<char*>(s.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int spawned = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
    ::posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    REQUIRE(spawned == 0);
    char ready = 0;
    pollfd p{out[0], POLLIN, 0};
    const bool said = ::poll(&p, 1, 30'000) == 1 && ::read(out[0], &ready, 1) == 1 && ready == 'r';
    ::close(out[0]);
    if (!said) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        FAIL("the writer did not start");
    }
    return pid;
}

/// Whether `dir` holds a file other than chat.json (the writer's temporary file).
bool has_temporary_file(const fs::path& dir) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().filename() != "chat.json") return true;
    return false;
}

/// The time the writer takes to replace `target` once, measured over four replacements (each gives
/// the file a new inode): a build under the sanitizers takes many times longer than an optimised
/// one, and the kills must be spread over a few writes on either.
std::chrono::microseconds write_time(const std::string& mode, const fs::path& target, const fs::path& a, const fs::path& b) {
    const auto inode = [&] {
        struct stat st {};
        return ::stat(target.c_str(), &st) == 0 ? st.st_ino : ino_t(0);
    };
    const pid_t pid = start_writer(mode, target, a, b);
    ino_t last = inode();
    int replaced = 0;
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = std::chrono::steady_clock::duration();
    while (replaced < 4 && elapsed < std::chrono::seconds(60)) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        if (const ino_t now = inode(); now != last) {
            last = now;
            ++replaced;
        }
        elapsed = std::chrono::steady_clock::now() - start;
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    REQUIRE_MESSAGE(replaced == 4, "the writer replaced the file " << replaced << " times in a minute");
    return std::chrono::duration_cast<std::chrono::microseconds>(elapsed) / 4;
}

TEST_CASE("history files: a writer killed with SIGKILL at any point leaves one of the files whole") {
    temp_dir dir;
    const fs::path a = dir / "a.json", b = dir / "b.json";
    const auto ca = big_conversation(std::size_t(1) << 20, 'a');
    const auto cb = big_conversation((std::size_t(3) << 20) / 2, 'b');
    save_history(a, ca);
    save_history(b, cb);
    const std::string bytes_a = bytes(a), bytes_b = bytes(b);
    fs::create_directories(dir / "w");
    const fs::path target = dir / "w" / "chat.json";

    std::mt19937 random(12345);
    for (const std::string mode : {"text", "save"}) {
        CAPTURE(mode);
        save_history(target, ca);
        const auto write = write_time(mode, target, a, b);
        MESSAGE(mode << ": one write takes " << write.count() << " us");
        for (const auto& e : fs::directory_iterator(dir / "w"))
            if (e.path().filename() != "chat.json") fs::remove(e.path());
        save_history(target, ca);
        int kills = 0, mid_write = 0, became_b = 0;
        // until 15 kills have hit a write between the temporary file's creation and the rename
        // (the temporary file is left behind) and one has left the second conversation, at delays
        // spread over three writes
        const int spread = static_cast<int>(std::min<std::int64_t>(3 * write.count(), 10'000'000));
        while ((mid_write < 15 || became_b == 0) && kills < 400) {
            const pid_t pid = start_writer(mode, target, a, b);
            if (std::bernoulli_distribution(0.5)(random)) {
                std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution<int>(0, spread)(random)));
            } else {
                // at the write's last part (the temporary file's bytes, the flush, the rename), which
                // `save` reaches after serialising for most of its time: wait for the temporary file
                const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(spread);
                while (std::chrono::steady_clock::now() < until && !has_temporary_file(dir / "w"))
                    std::this_thread::sleep_for(std::chrono::microseconds(50));
                std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution<int>(0, 2000)(random)));
            }
            ::kill(pid, SIGKILL);
            int status = 0;
            REQUIRE(::waitpid(pid, &status, 0) == pid);
            REQUIRE(WIFSIGNALED(status));
            ++kills;
            const std::string now = bytes(target);
            const bool whole = now == bytes_a || now == bytes_b;
            CHECK_MESSAGE(whole, "after kill " << kills << " the file has " << now.size() << " bytes");
            if (!whole) break;
            became_b += now == bytes_b;
            std::vector<std::string> left;
            for (const auto& e : fs::directory_iterator(dir / "w"))
                if (e.path().filename() != "chat.json") left.push_back(e.path().filename().string());
            CHECK(left.size() <= 1);
            for (const auto& name : left) {
                CHECK(name.rfind(".chat.json.tmp-", 0) == 0);
                CHECK(name.size() == std::string(".chat.json.tmp-").size() + 12);
                fs::remove(dir / "w" / name);
                ++mid_write;
            }
            CHECK(load_history(target) == (now == bytes_b ? cb : ca));
        }
        MESSAGE(mode << ": " << kills << " kills, " << mid_write << " in the middle of a write, " << became_b
                     << " left the second conversation");
        CHECK(mid_write >= 15);
        CHECK(became_b > 0);
    }
}

}  // namespace history_file_test
