// Other programs run by doctest tests through std::system, their inputs and outputs in
// temporary files: the repository's Python scripts (tests/harness/*.py), compilers. For Python,
// PARLEY_PYTHON chooses the interpreter (default: python3); the test binaries get the one CMake
// found. The repository is found through PARLEY_TEST_SOURCE_DIR, which CMake defines for every
// test binary.
#ifndef PARLEY_TESTS_HARNESS_SUBPROCESS_HPP
#define PARLEY_TESTS_HARNESS_SUBPROCESS_HPP

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
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

/// Runs tests/harness/<script> with the arguments; true when it exits with status 0, otherwise
/// false and a failed check saying why.
inline bool run_python(const std::string& script, const std::vector<std::string>& arguments) {
    const std::string dir = source_dir();
    if (dir.empty()) {
        FAIL_CHECK("PARLEY_TEST_SOURCE_DIR is not defined: the test cannot find tests/harness/" << script);
        return false;
    }
    const char* env_python = std::getenv("PARLEY_PYTHON");
    const std::string python = env_python && *env_python ? env_python : "python3";
    std::string cmd = shell_quote(python) + " " + shell_quote(dir + "/tests/harness/" + script);
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

/// Whether compiler() is clang++ (which defines __clang__), asked once: the compiler of the
/// snippets, which need not be the one that built the test (PARLEY_CXX).
inline bool compiler_is_clang() {
    static const bool clang = [] {
        const std::string cmd = shell_quote(compiler()) + " -dM -E -x c++ /dev/null 2>/dev/null | grep -q __clang__";
        return std::system(cmd.c_str()) == 0;
    }();
    return clang;
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

namespace detail {

/// A prelude written as a header, and the compiler's precompiled form of it.
struct precompiled_prelude {
    std::filesystem::path header, pch;
    bool clang = false;  ///< the compiler is clang++ (-include-pch) rather than g++ (header.gch)
    bool ok = false;  ///< the precompiled header was made
};

/// The preludes precompiled by this process, by prelude and flags; their files are removed at exit.
struct precompiled_preludes {
    std::vector<std::pair<std::string, precompiled_prelude>> made;
    ~precompiled_preludes() {
        std::error_code ec;
        for (const auto& [key, p] : made) {
            std::filesystem::remove(p.header, ec);
            std::filesystem::remove(p.pch, ec);
        }
    }
};

/// `prelude` precompiled with `flags`, once per process: the snippets that start with the same
/// prelude then compile in a fraction of the time (most of a snippet's time is the headers).
inline const precompiled_prelude& precompile(const std::string& prelude, const std::string& flags) {
    static precompiled_preludes cache;
    const std::string key = flags + '\n' + prelude;
    for (const auto& [k, p] : cache.made)
        if (k == key) return p;
    precompiled_prelude p;
    p.clang = compiler_is_clang();
    p.header = temp_path("prelude.hpp");
    // g++ finds the precompiled form beside the header; clang++ is given it with -include-pch
    p.pch = p.header.string() + (p.clang ? ".pch" : ".gch");
    const auto log = temp_path("prelude.log");
    {
        std::ofstream f(p.header);
        f << prelude;
    }
    const std::string cmd = shell_quote(compiler()) + " -std=c++20 " + flags + " -I" +
                            shell_quote(source_dir() + "/include") + " -x c++-header " + shell_quote(p.header.string()) +
                            " -o " + shell_quote(p.pch.string()) + " > " + shell_quote(log.string()) + " 2>&1";
    p.ok = std::system(cmd.c_str()) == 0;
    std::filesystem::remove(log);
    cache.made.emplace_back(key, p);
    return cache.made.back().second;
}

}  // namespace detail

/// Compiles a translation unit against the repository's headers (C++20, syntax and templates
/// only, no code), for tests that a misuse fails with a given message. `flags` are added to the
/// command line (such as clang++'s -ferror-limit=0 for a snippet with many errors). The
/// translation unit is `prelude` followed by `source`; the prelude (the includes and declarations
/// many snippets share) is precompiled the first time it is seen, and when that fails it is
/// compiled as text with the snippet, which gives the same messages, only slower.
inline compile_result compile_snippet(const std::string& source, const std::string& flags = {},
                                      const std::string& prelude = {}) {
    const auto file = temp_path("snippet.cpp");
    const auto log = temp_path("snippet.log");
    std::string include;
    {
        std::ofstream f(file);
        if (!prelude.empty()) {
            const detail::precompiled_prelude& p = detail::precompile(prelude, flags);
            if (p.ok)
                include = p.clang ? " -include-pch " + shell_quote(p.pch.string())
                                  : " -include " + shell_quote(p.header.string());
            else
                f << prelude;
        }
        f << source;
    }
    const std::string cmd = shell_quote(compiler()) + " -std=c++20 -fsyntax-only " + flags + " -I" +
                            shell_quote(source_dir() + "/include") + include + " " + shell_quote(file.string()) +
                            " > " + shell_quote(log.string()) + " 2>&1";
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
