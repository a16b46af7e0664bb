// Other programs run by doctest tests through std::system, their inputs and outputs in
// temporary files: the repository's Python scripts (tests/support/*.py), compilers. For Python,
// PARLEY_PYTHON chooses the interpreter (default: python3); the test binaries get the one CMake
// found. The repository is found through PARLEY_TEST_SOURCE_DIR, which CMake defines for every
// test binary.
#ifndef PARLEY_TESTS_SUPPORT_SUBPROCESS_HPP
#define PARLEY_TESTS_SUPPORT_SUBPROCESS_HPP

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace subprocess {

/// The repository's root, or "" when the test was compiled without PARLEY_TEST_SOURCE_DIR.
inline std::string source_dir() {
#if defined(PARLEY_TEST_SOURCE_DIR)
    return PARLEY_TEST_SOURCE_DIR;
#else
    return {};
#endif
}

/// s as one word of a POSIX shell command.
inline std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) {
        if (c == '\'')
            q += "'\\''";
        else
            q += c;
    }
    return q + "'";
}

/// A new path in the temporary directory whose name ends with `what`.
inline std::filesystem::path temp_path(const std::string& what) {
    static std::mt19937_64 rng{std::random_device{}()};
    char name[32];
    std::snprintf(name, sizeof name, "parley-test-%016llx-", static_cast<unsigned long long>(rng()));
    return std::filesystem::temp_directory_path() / (name + what);
}

/// Runs tests/support/<script> with the arguments; true when it exits with status 0, otherwise
/// false and a failed check saying why.
inline bool run_python(const std::string& script, const std::vector<std::string>& arguments) {
    const std::string dir = source_dir();
    if (dir.empty()) {
        FAIL_CHECK("PARLEY_TEST_SOURCE_DIR is not defined: the test cannot find tests/support/" << script);
        return false;
    }
    const char* env_python = std::getenv("PARLEY_PYTHON");
    const std::string python = env_python && *env_python ? env_python : "python3";
    std::string cmd = shell_quote(python) + " " + shell_quote(dir + "/tests/support/" + script);
    for (const std::string& a : arguments) cmd += " " + shell_quote(a);
    const int status = std::system(cmd.c_str());
    if (status != 0) {
        FAIL_CHECK(script << " failed (status " << status << "): " << cmd);
        return false;
    }
    return true;
}

/// The C++ compiler for snippets: PARLEY_CXX, or the compiler family that built the test
/// (g++ or clang++ from PATH).
inline std::string compiler() {
    if (const char* cxx = std::getenv("PARLEY_CXX"); cxx && *cxx) return cxx;
#if defined(__clang__)
    return "clang++";
#else
    return "g++";
#endif
}

/// What the compiler made of a snippet.
struct compile_result {
    bool compiled = false;  ///< it compiled without error
    std::string output;  ///< everything the compiler wrote
};

/// Runs a compiler command line whose output goes to the last of `files`; reads that output,
/// then removes the files.
inline compile_result run_compiler(const std::string& cmd, const std::vector<std::filesystem::path>& files) {
    compile_result r;
    r.compiled = std::system(cmd.c_str()) == 0;
    std::stringstream text;
    {
        std::ifstream f(files.back());
        text << f.rdbuf();
    }
    r.output = text.str();
    for (const auto& f : files) std::filesystem::remove(f);
    return r;
}

/// Compiles a translation unit against the repository's headers (C++20, syntax and templates
/// only, no code), for tests that a misuse fails with a given message. `flags` are added to the
/// command line (such as clang++'s -ferror-limit=0 for a snippet with many errors).
inline compile_result compile_snippet(const std::string& source, const std::string& flags = {}) {
    const auto file = temp_path("snippet.cpp");
    const auto log = temp_path("snippet.log");
    {
        std::ofstream f(file);
        f << source;
    }
    const std::string cmd = shell_quote(compiler()) + " -std=c++20 -fsyntax-only " + flags + " -I" +
                            shell_quote(source_dir() + "/include") + " " + shell_quote(file.string()) + " > " +
                            shell_quote(log.string()) + " 2>&1";
    return run_compiler(cmd, {file, log});
}

/// Compiles a translation unit into an object file (C++20, `flags` added) and lists the
/// symbols it defines, demangled (`nm -C --defined-only`): for tests of what a header makes
/// the compiler emit. `output` holds the compiler's messages, then nm's listing.
inline compile_result compile_object_symbols(const std::string& source, const std::string& flags = {}) {
    const auto file = temp_path("object.cpp");
    const auto object = temp_path("object.o");
    const auto log = temp_path("object.log");
    {
        std::ofstream f(file);
        f << source;
    }
    const std::string cmd = shell_quote(compiler()) + " -std=c++20 -c " + flags + " -I" +
                            shell_quote(source_dir() + "/include") + " " + shell_quote(file.string()) + " -o " +
                            shell_quote(object.string()) + " > " + shell_quote(log.string()) + " 2>&1 && nm -C --defined-only " +
                            shell_quote(object.string()) + " >> " + shell_quote(log.string()) + " 2>&1";
    return run_compiler(cmd, {file, object, log});
}

}  // namespace subprocess

#endif
