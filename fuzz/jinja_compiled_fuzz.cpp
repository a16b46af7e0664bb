// Fuzz target: the compile-time front end's parse (parley/jinja/detail/ct_program.hpp, the code
// behind parley/jinja/compiled.hpp's compiled_template), run at run time on the fuzz input, against
// the run-time engine's parse of the same text with the same options.
//
// What is compared, and why the program rather than the output: a compiled_template renders
// through code generated from its program's arrays as template arguments (one instantiation per
// template), which cannot exist for a text known only at run time. What both front ends share is
// the constexpr code that turns the text into those arrays; this target runs it as
// ct_parsed<Source, Options> does (the source normalised, or its final newline dropped; one
// parse with parse_or_report, whose syntax error throws at run time what is a compile error in
// constant evaluation; parse_capacity, fits_in and copy_program into a fixed_program, or a second
// parse when the program does not fit) and checks that:
// - it rejects exactly the texts that environment::parse rejects with errc::template_syntax, with
//   the same message, line and column (the run-time engine's further checks, unknown filters and
//   expressions nested too deeply, come after a successful parse);
// - when both accept, the fixed_program's source view equals parsed_template::source(), and its
//   nodes, lists, pool, symbols and root equal the program of that source parsed with the
//   run-time engine's syntax options (program-for-program: a difference in normalisation, option
//   mapping, capacity or copying shows up here);
// - a second parse gives the same program.
//
// Input: byte 0's low four bits are the compile_options (trim_blocks, lstrip_blocks,
// keep_trailing_newline, loop_controls); the rest is the template.
#include <parley/jinja.hpp>
#include <parley/jinja/detail/ct_program.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace pj = parley::jinja;
namespace pjd = parley::jinja::detail;

/// Longest template this target reads (run.sh passes a smaller -max_len).
constexpr std::size_t fuzz_max_source = 64 * 1024;
constexpr pjd::ct_sizes fuzz_capacity = pjd::parse_capacity(fuzz_max_source);

/// Stops the run: the two front ends disagree (`what` says how).
[[noreturn]] void disagreement(const char* what) {
    std::fprintf(stderr, "compile-time and run-time front ends disagree: %s\n", what);
    std::abort();
}

bool same_node(const pjd::node& x, const pjd::node& y) {
    return x.kind == y.kind && x.oper == y.oper && x.flags == y.flags && x.pos == y.pos && x.a == y.a && x.b == y.b &&
           x.c == y.c && x.d == y.d && x.e == y.e && x.f == y.f && x.sym == y.sym && x.sym2 == y.sym2 &&
           x.ival == y.ival && x.fval == y.fval;
}

template <class P>
bool same_program(const P& f, const pjd::ct_sizes& n, const pjd::program& p) {
    if (n.nodes != p.nodes.size() || n.lists != p.lists.size() || n.pool != p.pool.size() ||
        n.symbols != p.symbols.size() || f.root != p.root)
        return false;
    for (std::size_t k = 0; k < n.nodes; ++k)
        if (!same_node(f.nodes[k], p.nodes[k])) return false;
    for (std::size_t k = 0; k < n.lists; ++k)
        if (f.lists[k] != p.lists[k]) return false;
    for (std::size_t k = 0; k < n.pool; ++k)
        if (f.pool[k] != p.pool[k]) return false;
    for (std::size_t k = 0; k < n.symbols; ++k)
        if (f.symbols[k].off != p.symbols[k].off || f.symbols[k].len != p.symbols[k].len) return false;
    return true;
}

struct ct_outcome {
    std::optional<pjd::program> prog;  // accepted
    std::string message;  // rejected: the parser's message, line and column
    std::uint32_t line = 0, column = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1 || size - 1 > fuzz_max_source) return 0;
    pj::compile_options copt;
    copt.trim_blocks = (data[0] & 1) != 0;
    copt.lstrip_blocks = (data[0] & 2) != 0;
    copt.keep_trailing_newline = (data[0] & 4) != 0;
    copt.loop_controls = (data[0] & 8) != 0;
    const std::string_view written(reinterpret_cast<const char*>(data) + 1, size - 1);

    // ---- the compile-time front end, as ct_parsed<Source, copt> runs it ----
    const bool own_source = written.find('\r') != std::string_view::npos;
    std::vector<char> normalised;
    std::string_view parsed_source;
    if (own_source) {
        normalised = pjd::normalised_source(written, copt);
        parsed_source = std::string_view(normalised.data(), normalised.size());
    } else {
        const std::size_t source_size = !copt.keep_trailing_newline && !written.empty() && written.back() == '\n'
                                            ? written.size() - 1
                                            : written.size();
        parsed_source = written.substr(0, source_size);
        // the shortcut ct_parsed takes without a '\r' is the normalisation's result
        const std::vector<char> full = pjd::normalised_source(written, copt);
        if (std::string_view(full.data(), full.size()) != parsed_source)
            disagreement("the source without a final newline is not the normalised source");
    }
    ct_outcome ct;
    try {
        ct.prog = pjd::parse_or_report(parsed_source, copt, "fuzz");
    } catch (const parley::template_error& e) {
        if (e.code() != parley::errc::template_syntax)
            disagreement("parse_or_report threw an error other than a syntax error");
        ct.message = e.message();
        ct.line = e.where().line;
        ct.column = e.where().column;
    }

    // ---- the run-time engine ----
    pj::options ropt;
    ropt.trim_blocks = copt.trim_blocks;
    ropt.lstrip_blocks = copt.lstrip_blocks;
    ropt.keep_trailing_newline = copt.keep_trailing_newline;
    ropt.loop_controls = copt.loop_controls;
    std::optional<pj::parsed_template> rt;
    try {
        rt.emplace(pj::environment(ropt).parse(written, "fuzz"));
    } catch (const parley::template_error& e) {
        if (e.code() == parley::errc::template_syntax) {
            if (ct.prog) disagreement("the run-time engine rejects a text the constexpr parser accepts");
            if (e.message() != ct.message || e.where().line != ct.line || e.where().column != ct.column) {
                std::fprintf(stderr, "run time %u:%u: %s\nconstexpr %u:%u: %s\n", e.where().line, e.where().column,
                             e.message().c_str(), ct.line, ct.column, ct.message.c_str());
                disagreement("the syntax errors differ (message, line or column)");
            }
            return 0;
        }
        // unknown filter or test, expression too deep: checks after a successful parse
    }
    if (!ct.prog) disagreement("the constexpr parser rejects a text the run-time engine accepts");

    // ---- the fixed-size program, as ct_parsed builds it ----
    const pjd::ct_sizes sizes = pjd::sizes_of(*ct.prog, parsed_source.size(), own_source);
    const pjd::ct_sizes capacity = pjd::parse_capacity(written.size());
    // one program for every input (about a megabyte): copy_program fills, and same_program
    // reads, only the first entries of each array
    static const auto fixed = std::make_unique<pjd::fixed_program<fuzz_capacity>>();
    if (pjd::fits_in(sizes, capacity)) {
        pjd::copy_program(*fixed, *ct.prog, sizes);
    } else {
        // ct_parsed parses a second time, into arrays of the exact sizes
        if (!pjd::fits_in(sizes, fuzz_capacity)) return 0;
        const pjd::program again = pjd::parse_or_report(parsed_source, copt, "fuzz");
        pjd::copy_program(*fixed, again, sizes);
    }
    if (!same_program(*fixed, sizes, *ct.prog)) disagreement("the fixed_program differs from the parsed program");

    if (rt) {
        if (rt->source() != parsed_source) disagreement("the parsed sources differ");
        pjd::program runtime_program;
        const pjd::syntax_error err = pjd::parse_program(rt->source(), pjd::to_syntax_options(copt), runtime_program);
        if (err) disagreement("the run-time engine's source does not parse again");
        if (!same_program(*fixed, sizes, runtime_program)) disagreement("the programs differ");
        // text nodes read the same text through the fixed program's view of the source (the
        // written source, or the normalised one that ct_parsed keeps in the program)
        fixed->written = own_source ? parsed_source : written;
        for (std::size_t k = 0; k < sizes.nodes; ++k) {
            const pjd::node& n = fixed->nodes[k];
            if (n.kind == pjd::nk::text && fixed->text(n.a, n.b) != rt->source().substr(n.a, n.b))
                disagreement("a text node reads different text");
        }
    }
    return 0;
}
