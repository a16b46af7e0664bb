// The writer that tests/chat/history_file_test.cpp kills with SIGKILL while it writes:
//
//   parley-history-writer text|save TARGET A.json B.json
//
// Reads the two history files A and B, writes one byte to standard output once it is ready, then
// replaces TARGET with B, A, B, A... until it is killed: `text` with write_file_atomically and
// the files' bytes as they are, `save` with save_history and the conversations load_history read
// (which gives the same bytes for files save_history wrote).
#include <parley/chat/history_file.hpp>

#include <cstdio>
#include <exception>
#include <fstream>
#include <iterator>
#include <string>

namespace {

std::string bytes_of(const char* path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(std::string("cannot read ") + path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 5 || (std::string(argv[1]) != "text" && std::string(argv[1]) != "save")) {
        std::fputs("usage: parley-history-writer text|save TARGET A.json B.json\n", stderr);
        return 2;
    }
    try {
        const bool text = std::string(argv[1]) == "text";
        const std::string target = argv[2];
        const std::string a = bytes_of(argv[3]), b = bytes_of(argv[4]);
        const auto ca = parley::load_history(argv[3]), cb = parley::load_history(argv[4]);
        std::fputc('r', stdout);
        std::fflush(stdout);
        for (bool next_b = true;; next_b = !next_b) {
            if (text) parley::write_file_atomically(target, next_b ? b : a);
            else parley::save_history(target, next_b ? cb : ca);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "parley-history-writer: %s\n", e.what());
        return 1;
    }
}
