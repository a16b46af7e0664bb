// Compile-fail tests: snippets that must not compile, each case on a line of its own, and what
// the compiler says about each (for the constexpr builders' rules, which break as compile
// errors). Used by the doctest tests of tests/chat.
#ifndef PARLEY_TESTS_HARNESS_COMPILE_FAIL_HPP
#define PARLEY_TESTS_HARNESS_COMPILE_FAIL_HPP

#include "subprocess.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace compile_fail {

// Whether the snippets' compiler (subprocess::compiler(): PARLEY_CXX, or the family that built
// this test) is clang++, whose messages the expectations are written for.
inline bool is_clang() { return subprocess::compiler_is_clang(); }

// A case: a line of the snippet that must not compile, and what its diagnostics must contain.
struct fail_case {
    std::string name;
    std::string code;
    std::vector<std::string> expected;
};

// What the compiler said about a batch of cases.
struct batch_result {
    bool compiled = false;
    std::string output;
    std::map<std::string, std::string> per_case;  // the lines about each case's line, by name
};

// Compiles the prelude followed by one line per case and the lines that must compile, and sorts
// the compiler's lines by the line of the snippet they name (both compilers go on after an error
// in a constexpr initializer, and name the initializer's line first).
inline batch_result compile_batch(const std::string& prelude, const std::vector<fail_case>& cases,
                                  const std::vector<std::string>& fine) {
    std::string source = prelude;
    std::map<long, std::string> case_at_line;
    long line = static_cast<long>(std::count(prelude.begin(), prelude.end(), '\n')) + 1;
    for (const auto& c : cases) {
        source += "constexpr auto " + c.name + " = " + c.code + ";\n";
        case_at_line[line++] = c.name;
    }
    for (const auto& code : fine) {
        source += code + "\n";
        case_at_line[line++] = "fine";
    }
    const subprocess::compile_result compiled =
        subprocess::compile_snippet(source, is_clang() ? "-ferror-limit=0" : "-fmax-errors=0");
    batch_result r;
    r.compiled = compiled.compiled;
    r.output = compiled.output;
    std::istringstream in(compiled.output);
    std::string current;
    const std::string file = "snippet.cpp:";
    for (std::string l; std::getline(in, l);) {
        const std::size_t at = l.find(file);
        if (at != std::string::npos && l.find(' ') > at) {  // a line that starts with the snippet's path
            const auto it = case_at_line.find(std::atol(l.c_str() + at + file.size()));
            current = it == case_at_line.end() ? std::string() : it->second;
        }
        if (!current.empty()) r.per_case[current] += l + "\n";
    }
    return r;
}

}  // namespace compile_fail

#endif
