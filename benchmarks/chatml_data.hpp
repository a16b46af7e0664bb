// benchmarks/chatml_data.hpp: what the ChatML benchmarks share (jinja_bench.cpp and
// compiled_bench.cpp): the conversations they render, made by a seeded generator so that every
// program and every run renders the same bytes, and a file reader.
#ifndef PARLEY_BENCHMARKS_CHATML_DATA_HPP
#define PARLEY_BENCHMARKS_CHATML_DATA_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace parley_bench {

/// SplitMix64: a small generator whose sequence does not depend on the standard library.
class splitmix64 {
public:
    explicit splitmix64(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15u);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
        return z ^ (z >> 31);
    }
    std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }

private:
    std::uint64_t state_;
};

/// The words messages are made of: plain, quoted, non-ASCII, and JSON- and C++-looking text.
inline constexpr std::array<std::string_view, 48> chatml_words = {
    "the", "a", "function", "returns", "value", "when", "input", "is", "empty", "and",
    "we", "should", "check", "that", "error", "handling", "works", "for", "every", "case",
    "could", "you", "explain", "why", "this", "loop", "allocates", "memory", "in", "C++",
    "Python", "template", "JSON", "string", "it's", "don't", "\"quoted\"", "naïve", "café",
    "—", "20 °C", "`std::vector<int>`", "{\"key\": 1}", "performance", "test", "of", "with", "data",
};

struct chatml_message {
    std::string role;
    std::string content;
};

/// A conversation of n messages, alternating user and assistant, each 100 to ~310 bytes of text
/// (assistant replies with some line breaks). The same seed for every size: the shorter
/// conversations are prefixes of the longer ones.
inline std::vector<chatml_message> chatml_messages(std::size_t n) {
    splitmix64 rng(20240726);
    std::vector<chatml_message> messages;
    for (std::size_t i = 0; i < n; ++i) {
        const bool user = i % 2 == 0;
        const std::size_t target = 100 + rng.below(201);
        std::string content;
        while (content.size() < target) {
            if (!content.empty()) content += (!user && rng.below(12) == 0) ? '\n' : ' ';
            content += chatml_words[rng.below(chatml_words.size())];
            if (rng.below(9) == 0) content += ',';
        }
        content += user ? '?' : '.';
        messages.push_back({user ? "user" : "assistant", std::move(content)});
    }
    return messages;
}

inline std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path.string());
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace parley_bench

#endif
