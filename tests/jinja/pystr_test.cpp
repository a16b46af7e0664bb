// Tests of parley/jinja/detail/pystr.hpp against CPython 3.11 (with Jinja2 3.1.6 and MarkupSafe 3.0:
// tests/harness/reference_python.py).
//
// Every expectation comes from Python at test time: each test case generates inputs, writes them
// to a file, runs tests/harness/pystr_ref.py on it and compares Python's answers with the C++
// functions' answers. Set PARLEY_PYTHON to choose the interpreter (default: python3).
#include <parley/jinja/detail/pystr.hpp>

#include "../harness/subprocess.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace pd = parley::jinja::detail;

// ---------------------------------------------------------------------------------------------
// Running the reference

/// Runs pystr_ref.py MODE A B; false (with a failed check saying why) when it cannot.
bool run_reference(const std::string& mode, const std::filesystem::path& a, const std::filesystem::path& b) {
    return subprocess::run_python("pystr_ref.py", {mode, a.string(), b.string()});
}

// ---------------------------------------------------------------------------------------------
// Tokens shared with pystr_ref.py

std::string hex(std::string_view bytes) {
    static const char* digits = "0123456789abcdef";
    std::string h;
    h.reserve(bytes.size() * 2);
    for (unsigned char c : bytes) {
        h += digits[c >> 4];
        h += digits[c & 15];
    }
    return h;
}

std::string unhex(std::string_view h) {
    std::string out;
    for (std::size_t i = 0; i + 1 < h.size(); i += 2)
        out += static_cast<char>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16));
    return out;
}

std::string tok_s(std::string_view s) { return "s" + hex(s); }
std::string tok_opt(const std::optional<std::string>& s) { return s ? tok_s(*s) : "n"; }
std::string tok_i(long v) { return "i" + std::to_string(v); }
std::string tok_opt_i(std::optional<long> v) { return v ? tok_i(*v) : "n"; }
std::string tok_b(bool v) { return v ? "b1" : "b0"; }
std::string tok_c(char32_t c) { return "c" + std::to_string(static_cast<unsigned long>(c)); }
std::string tok_d(double v) {
    if (v != v) return "dnan";
    std::uint64_t bits;
    std::memcpy(&bits, &v, 8);
    char buf[20];
    std::snprintf(buf, sizeof buf, "d%016llx", static_cast<unsigned long long>(bits));
    return buf;
}
std::string tok_list(const std::vector<std::string_view>& parts) {
    std::string r = "l" + std::to_string(parts.size());
    for (std::string_view p : parts) r += " " + tok_s(p);
    return r;
}

/// A readable form of a token line, for failure messages.
std::string describe(const std::string& line) {
    std::istringstream in(line);
    std::string tok;
    std::string out;
    while (in >> tok) {
        if (!out.empty()) out += ' ';
        if (tok[0] == 's') {
            out += '"';
            for (unsigned char c : unhex(tok.substr(1))) {
                if (c == '"' || c == '\\') {
                    out += '\\';
                    out += static_cast<char>(c);
                } else if (c < 0x20 || c == 0x7f) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\x%02x", c);
                    out += buf;
                } else {
                    out += static_cast<char>(c);
                }
            }
            out += '"';
        } else {
            out += tok;
        }
    }
    return out;
}

/// A batch of cases: each is a Python call (function name and argument tokens) and the C++
/// computation of the same result in the same tokens.
class batch {
public:
    void add(const std::string& func, const std::vector<std::string>& args, std::function<std::string()> run) {
        std::string line = func;
        for (const std::string& a : args) line += " " + a;
        lines_.push_back(std::move(line));
        std::string got;
        try {
            got = run();
        } catch (const std::exception& e) {
            got = "e" + hex(e.what());
        }
        results_.push_back(std::move(got));
    }

    std::size_t size() const { return lines_.size(); }

    /// Runs Python on every case and checks that each answer matches.
    void check() {
        const auto in = subprocess::temp_path("cases.txt");
        const auto out = subprocess::temp_path("answers.txt");
        {
            std::ofstream f(in, std::ios::binary);
            for (const std::string& l : lines_) f << l << '\n';
        }
        const bool ran = run_reference("cases", in, out);
        std::vector<std::string> answers;
        if (ran) {
            std::ifstream f(out, std::ios::binary);
            for (std::string l; std::getline(f, l);) answers.push_back(l);
        }
        std::filesystem::remove(in);
        std::filesystem::remove(out);
        if (!ran) return;
        REQUIRE(answers.size() == lines_.size());
        std::size_t mismatches = 0;
        for (std::size_t i = 0; i < lines_.size(); ++i) {
            if (answers[i] == results_[i]) continue;
            if (++mismatches <= 12) {
                FAIL_CHECK("case:     " << describe(lines_[i]) << "\npython:   " << describe(answers[i])
                                        << "\nparley:   " << describe(results_[i]));
            }
        }
        CHECK_MESSAGE(mismatches == 0, mismatches << " of " << lines_.size() << " cases differ from Python");
    }

private:
    std::vector<std::string> lines_;
    std::vector<std::string> results_;
};

// ---------------------------------------------------------------------------------------------
// Inputs

using pool = std::vector<std::string>;

const pool ascii_lower = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m",
                          "n", "o", "p", "q", "r", "s", "t", "u", "v", "w", "x", "y", "z"};
const pool ascii_upper = {"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M",
                          "N", "O", "P", "Q", "R", "S", "T", "U", "V", "W", "X", "Y", "Z"};
const pool digits = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
const pool punct = {"!", "\"", "#", "$", "%", "&", "'", "(", ")", "*", "+", ",", "-", ".", "/", ":",
                    ";", "<", "=", ">", "?", "@", "[", "\\", "]", "^", "_", "`", "{", "|", "}", "~"};
const pool spaces = {" ",        " ",        " ",        "\t",       "\n",       "\r",       "\r\n",
                     "\x0b",     "\x0c",     "\x1c",     "\x1d",     "\x1e",     "\x1f",     "\xc2\x85",
                     "\xc2\xa0", "\u1680",   "\u2000",   "\u2003",   "\u2007",   "\u200a",   "\u2028",
                     "\u2029",   "\u202f",   "\u205f",   "\u3000",   "\u200b",   "\u180e"};
const pool latin1 = {"\xc3\xa9", "\xc3\xa8", "\xc3\x9f", "\xc3\xbf", "\xc2\xb5", "\xc2\xaa", "\xc2\xba",
                     "\xc3\x80", "\xc3\x87", "\xc3\x91", "\xc3\x96", "\xc3\xb8", "\xc3\x86", "\xc3\xa6",
                     "\xc3\x9e", "\xc3\xbe", "\xc3\x97", "\xc3\xb7", "\xc2\xa1", "\xc2\xbf", "\xc2\xab",
                     "\xc2\xbb", "\xc2\xad", "\xc2\xb2", "\xc2\xbd"};
const pool greek = {"\u03a3", "\u03a3", "\u03c3", "\u03c2", "\u0391", "\u03b1", "\u03ac", "\u0386",
                    "\u0390", "\u1fb3", "\u1fbc", "\u1f88", "\u03d0", "\u03d1", "\u03d5", "\u03f0",
                    "\u03f1", "\u03f5", "\u03a9", "\u03c9", "\u0345", "\u1f80", "\u03b0"};
const pool cyrillic = {"\u0416", "\u0436", "\u042f", "\u044f", "\u0401", "\u0451", "\u0501", "\ua640", "\u0460"};
const pool special_case = {"\u0130", "\u0131", "i",      "I",      "\u0149", "\u01c5", "\u01c6", "\u01c4",
                           "\u01c8", "\ufb01", "\ufb00", "\ufb03", "\ufb05", "\u1e9e", "\u01f0", "\u1e96",
                           "\u2126", "\u212a", "\u212b", "\u00df", "\u0587", "\u1e9b", "\u1c80"};
const pool combining = {"\u0300", "\u0301", "\u0307", "\u0345", "\u20dd", "\u1dc0", "\u0308", "\u05b0"};
const pool ignorable = {"'", ".", ":", "^", "`", "\xc2\xad", "\u2019", "\xc2\xb7", "\u02b0", "\u0483", "\u00b8"};
const pool cjk = {"\u4e2d", "\u6587", "\u5b57", "\u3002", "\u3001", "\u3042", "\u30a2",
                  "\ud55c", "\uff71", "\uff21", "\uff41", "\u3007", "\u5341"};
const pool emoji = {"\U0001f600", "\U0001f44d", "\U0001f3fd", "\U0001f468\u200d\U0001f469\u200d\U0001f467",
                    "\u2764\ufe0f", "\U0001f1eb\U0001f1f7", "\U0001f9d1"};
const pool numeric = {"\u0663", "\u06f4", "\xc2\xb2", "\xc2\xb3", "\xc2\xbd", "\xc2\xbc", "\u216b", "\u217b",
                      "\u2460", "\U0001d7d8", "\U0001d7d9", "\u0bf0", "\u2160", "\u0f33", "\U00010107"};
const pool controls = {"\x01", "\x07", "\x1b", "\x7f", "\xc2\x80", "\xc2\x9f", "\u200e",
                       "\ufeff", "\u2060", "\U000e0001", "\u00ad", "\u061c"};
const pool other = {"\u0378", "\ue000", "\U0010ffff", "\ufffd", "\U0001d400", "\U00010400", "\U00010428",
                    "\u13a0", "\uab70", "\u13f8", "\u1c90", "\u10d0", "\u2c00", "\u2c30", "\U0001e900",
                    "\U0001e922", "\u10a0", "\u2d00", "\u24b6", "\u24d0", "\u1d2c", "\u02b0", "\uffff"};
const pool invalid = {"\x80", "\xbf", "\xc0", "\xc1", "\xc3", "\xe2\x82", "\xed\xa0\x80", "\xf0\x9f\x98",
                      "\xf5", "\xff", "\xf4\x90\x80\x80", "\xe0\x80\xaf", "\xc3\x28", "\xce"};
const pool html_bits = {"&",        "&amp;",         "&lt;",   "&#39;",       "&#x27;",  "&#0;",   "&#128;",
                        "&#x110000;", "&#xD800;",    "&nbsp",  "&notin;",     "&notit;", "&ampx",  "&#",
                        "&#x",      "&;",            "<",      ">",           "<!--",    "-->",    "<b>",
                        "</p>",     "&AElig",        "&#99999999999999;",    "&#65",    "&x",     "&foo;",
                        "&#X6a",    "&#12;",         "&#11;",  "&#x80",       "&#x9F;",  "&NotNestedGreaterGreater;",
                        "&amp",     "&Amp;",         "<a href=\"x\">", "<br/>", "<!---->", "<!-->", "&#x0001F600;",
                        "&#65535;", "&#xfffe;", "&#4294967361;", "&#x100000041;", "&#18446744073709551681;",      "&#x1;",  "&#10;",       "&#9;",    "&NewLine;", "&Tab;",
                        "&CounterClockwiseContourIntegral;", "&CounterClockwiseContourIntegralx;",
                        "&ampxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "&ampxxxxxxxxxxxxxxxxxxxxxxxxxxx;",
                        "&notinxxxxxxxxxxxxxxxxxxxxxxxxxx;", "&gt\xc3\xa9\xc3\xa9;", "&lt\r;"};
const pool tag_bits = {"<", "!", "-", "--", ">", "<!", "<!-", "<!--", "-->", "->", " ", "a", "&", "&amp;"};
const pool tag_alphabet = {"<", "!", "-", ">", "a", " "};
const pool comment_bits = {"<!", "<!--", "-->", "--", ">", "x", "<", "-", "<!-"};
const pool quotes = {"'", "\"", "a", "\\", "\n"};
const pool hyphens = {"-", "-", "--", "---", "-"};

/// Words, for texts that look like prose.
const pool words = {"the",  "quick", "brown",     "fox",   "jumps",  "over",   "lazy",  "dog",
                    "goof-ball",  "well-known", "co-op", "e-mail", "x-ray", "A-B-C", "--option", "-b",
                    "self-contained", "Hello", "WORLD", "café", "naïve", "Straße", "ΟΔΟΣ", "Σίσυφος",
                    "İstanbul", "ıi", "中文字", "😀😀", "ǆemal", "ﬁne", "one--two", "a---b", "x--",
                    "supercalifragilisticexpialidocious", "9-5", "a-1", "1-a", "ab-cd-ef", "a-b", "ab-c",
                    "abc-", "-abc", "!--x", "it's", "U.S.A.", "«quote»", "—", "a\xc2\xa0" "b", "\xc2\xa0",
                    "\u3000", "x\u2003y", "tab\there", "1,000.5", "&amp;", "e.g.", "Zürich", "ΆΈΉ"};

struct generator {
    std::mt19937_64 rng{0x70797374725f7465ull};

    std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng() % n); }
    long between(long lo, long hi) { return lo + static_cast<long>(below(static_cast<std::size_t>(hi - lo + 1))); }
    bool chance(int percent) { return static_cast<int>(below(100)) < percent; }
    const std::string& pick(const pool& p) { return p[below(p.size())]; }

    /// A string of up to max_len pieces from the pools (each pool equally likely).
    std::string text(const std::vector<const pool*>& pools, std::size_t max_len) {
        std::string s;
        const std::size_t n = below(max_len + 1);
        for (std::size_t i = 0; i < n; ++i) s += pick(*pools[below(pools.size())]);
        return s;
    }

    std::vector<const pool*> mixed(bool with_invalid) {
        std::vector<const pool*> all = {&ascii_lower, &ascii_upper, &digits,   &punct,     &spaces,
                                        &latin1,      &greek,       &cyrillic, &special_case, &combining,
                                        &ignorable,   &cjk,         &emoji,    &numeric,   &controls,
                                        &other};
        if (with_invalid) all.push_back(&invalid);
        return all;
    }

    /// A varied string: mostly drawn from two or three pools so that predicates and case rules
    /// see homogeneous text as well as mixtures.
    std::string any(bool with_invalid, std::size_t max_len = 12) {
        const auto all = mixed(with_invalid && chance(20));
        if (chance(30)) return text(all, max_len);
        std::vector<const pool*> some;
        const std::size_t k = 1 + below(3);
        for (std::size_t i = 0; i < k; ++i) some.push_back(all[below(all.size())]);
        return text(some, max_len);
    }

    /// Prose: words separated by spaces of several kinds, sometimes hyphens and line breaks.
    std::string prose(bool with_invalid, std::size_t max_words) {
        std::string s;
        const std::size_t n = below(max_words + 1);
        for (std::size_t i = 0; i < n; ++i) {
            if (i > 0) {
                const std::size_t r = below(20);
                if (r < 12) s += " ";
                else if (r < 14) s += "  ";
                else if (r < 16) s += pick(spaces);
                else if (r < 18) s += pick(hyphens);
                else s += "\n";
            }
            s += chance(80) ? pick(words) : any(with_invalid, 6);
        }
        if (chance(10)) s = " " + s;
        if (chance(10)) s += " ";
        return s;
    }

    /// A substring of s (at code point boundaries) or a fresh string.
    std::string part_of(const std::string& s, bool with_invalid) {
        if (s.empty() || chance(25)) return any(with_invalid, 3);
        const std::size_t len = pd::utf8_length(s);
        const std::size_t b = below(len);
        const std::size_t e = b + below(std::min<std::size_t>(len - b, 4) + 1);
        const std::size_t bb = pd::utf8_offset(s, b);
        return s.substr(bb, pd::utf8_offset(s, e) - bb);
    }

    char32_t code_point() {
        std::string s = any(false, 1);
        if (s.empty()) return U'*';
        std::size_t i = 0;
        return pd::utf8_decode(s, i);
    }

    double bits_double() {
        const std::uint64_t b = rng();
        double v;
        std::memcpy(&v, &b, 8);
        return v;
    }
};

std::string str_of(void (*fn)(std::string&, std::string_view), std::string_view s) {
    std::string out;
    fn(out, s);
    return tok_s(out);
}

} // namespace

// =============================================================================================

TEST_CASE("pystr: every code point has Python's character classes and case mappings") {
    const auto planes_path = subprocess::temp_path("planes.bin");
    const auto mappings_path = subprocess::temp_path("mappings.txt");
    if (!run_reference("codepoints", planes_path, mappings_path)) return;
    std::string planes;
    {
        std::ifstream f(planes_path, std::ios::binary);
        planes.resize(static_cast<std::size_t>(std::filesystem::file_size(planes_path)));
        f.read(planes.data(), static_cast<std::streamsize>(planes.size()));
    }
    // Rows in code point order: cp, then upper, lower, casefold, title, swapcase.
    std::vector<std::pair<char32_t, std::array<std::string, 5>>> mappings;
    {
        std::ifstream f(mappings_path, std::ios::binary);
        std::string cp_hex;
        while (f >> cp_hex) {
            std::array<std::string, 5> row;
            for (std::string& r : row) {
                std::string h;
                f >> h;
                r = unhex(h);
            }
            mappings.emplace_back(static_cast<char32_t>(std::stoul(cp_hex, nullptr, 16)), std::move(row));
        }
    }
    std::filesystem::remove(planes_path);
    std::filesystem::remove(mappings_path);

    const std::size_t count = 0x110000 - 0x800;
    REQUIRE(planes.size() == 11 * count);
    CHECK(mappings.size() > 2000);

    using predicate = bool (*)(char32_t);
    const predicate predicates[10] = {
        pd::py_isspace, pd::py_isprintable, pd::py_isalpha, pd::py_isdigit, pd::py_isdecimal,
        pd::py_isnumeric, pd::py_isalnum,   pd::py_isupper, pd::py_islower, pd::py_is_word,
    };
    const char* predicate_names[11] = {"isspace", "isprintable", "isalpha", "isdigit", "isdecimal", "isnumeric",
                                       "isalnum", "isupper",     "islower", "\\w",     "istitle"};
    using mapping = void (*)(std::string&, std::string_view);
    const mapping maps[5] = {pd::py_upper, pd::py_lower, pd::py_casefold, pd::py_title, pd::py_swapcase};
    const char* map_names[5] = {"upper", "lower", "casefold", "title", "swapcase"};

    std::size_t mismatches = 0;
    std::size_t index = 0;
    std::size_t next_row = 0;
    std::string ch;
    std::string got;
    for (char32_t cp = 0; cp < 0x110000; ++cp) {
        if (cp >= 0xD800 && cp <= 0xDFFF) continue;
        ch.clear();
        pd::utf8_append(ch, cp);
        for (std::size_t p = 0; p < 11; ++p) {
            const bool expected = planes[p * count + index] != 0;
            const bool actual = p < 10 ? predicates[p](cp) : pd::py_str_istitle(ch);
            if (actual != expected && ++mismatches <= 12)
                FAIL_CHECK("U+" << std::hex << static_cast<unsigned long>(cp) << " " << predicate_names[p]
                                << ": python says " << expected);
        }
        const bool listed = next_row < mappings.size() && mappings[next_row].first == cp;
        for (std::size_t m = 0; m < 5; ++m) {
            got.clear();
            maps[m](got, ch);
            const std::string& expected = listed ? mappings[next_row].second[m] : ch;
            if (got != expected && ++mismatches <= 12)
                FAIL_CHECK("U+" << std::hex << static_cast<unsigned long>(cp) << " " << map_names[m]
                                << ": python " << describe(tok_s(expected)) << ", parley " << describe(tok_s(got)));
        }
        if (listed) ++next_row;
        ++index;
    }
    CHECK(next_row == mappings.size());
    CHECK_MESSAGE(mismatches == 0, mismatches << " code point answers differ from Python");
}

TEST_CASE("pystr: UTF-8 length, offsets and predicates") {
    generator g;
    batch b;
    for (int i = 0; i < 400; ++i) {
        const std::string s = g.any(true, 16);
        b.add("length", {tok_s(s)}, [s] { return tok_i(static_cast<long>(pd::utf8_length(s))); });
        const long cp = g.between(0, static_cast<long>(pd::utf8_length(s)) + 2);
        b.add("offset", {tok_s(s), tok_i(cp)},
              [s, cp] { return tok_i(static_cast<long>(pd::utf8_offset(s, static_cast<std::size_t>(cp)))); });
    }
    using string_predicate = bool (*)(std::string_view);
    const std::pair<const char*, string_predicate> predicates[] = {
        {"isspace", pd::py_str_isspace},     {"isalpha", pd::py_str_isalpha}, {"isdigit", pd::py_str_isdigit},
        {"isalnum", pd::py_str_isalnum},     {"isdecimal", pd::py_str_isdecimal},
        {"isnumeric", pd::py_str_isnumeric}, {"islower", pd::py_str_islower}, {"isupper", pd::py_str_isupper},
        {"istitle", pd::py_str_istitle},
    };
    for (const auto& [name, fn] : predicates) {
        for (int i = 0; i < 400; ++i) {
            std::string s;
            switch (g.below(4)) {
            case 0: s = g.any(true, 6); break;
            case 1: s = g.text({&spaces}, 4); break;
            case 2: s = g.text({&digits, &numeric}, 4); break;
            default: s = g.prose(true, 3); break;
            }
            if (g.chance(20)) {  // title-like text
                std::string t;
                pd::py_title(t, s);
                s = t;
            }
            b.add(name, {tok_s(s)}, [s, fn = fn] { return tok_b(fn(s)); });
        }
    }
    b.check();
    MESSAGE(b.size() << " cases compared");
}

TEST_CASE("pystr: case mapping") {
    generator g;
    batch b;
    using fn = void (*)(std::string&, std::string_view);
    const std::pair<const char*, fn> funcs[] = {
        {"upper", pd::py_upper},           {"lower", pd::py_lower},     {"casefold", pd::py_casefold},
        {"swapcase", pd::py_swapcase},     {"capitalize", pd::py_capitalize}, {"title", pd::py_title},
        {"jinja_title", pd::jinja_title},  {"jinja_capitalize", pd::jinja_capitalize},
    };
    for (const auto& [name, f] : funcs) {
        for (int i = 0; i < 700; ++i) {
            std::string s;
            switch (g.below(4)) {
            case 0: s = g.text({&greek, &ignorable, &combining, &spaces, &ascii_upper}, 8); break;
            case 1: s = g.prose(true, 5); break;
            case 2: s = g.text({&special_case, &latin1, &other, &greek, &punct, &hyphens}, 8); break;
            default: s = g.any(true, 12); break;
            }
            b.add(name, {tok_s(s)}, [s, f = f] { return str_of(f, s); });
        }
    }
    b.check();
    MESSAGE(b.size() << " cases compared");
}

TEST_CASE("pystr: repr, JSON and HTML escaping of strings") {
    generator g;
    batch b;
    for (int i = 0; i < 800; ++i) {
        const std::string s = g.chance(40)   ? g.any(false, 12)
                              : g.chance(50) ? g.text({&quotes}, 6)
                                             : g.text({&punct, &controls, &spaces, &other, &emoji}, 10);
        b.add("str_repr", {tok_s(s)}, [s] { return str_of(pd::py_str_repr, s); });
        b.add("json_string", {tok_s(s), tok_b(true)}, [s] {
            std::string o;
            pd::json_string(o, s, true);
            return tok_s(o);
        });
        // Invalid bytes are copied through, as Python does with surrogateescape.
        const std::string t = g.chance(50) ? s : g.any(true, 12);
        b.add("json_string", {tok_s(t), tok_b(false)}, [t] {
            std::string o;
            pd::json_string(o, t, false);
            return tok_s(o);
        });
        const std::string h = g.text({&punct, &html_bits, &latin1, &invalid}, 8);
        b.add("html_escape", {tok_s(h)}, [h] { return str_of(pd::html_escape, h); });
    }
    b.check();
    MESSAGE(b.size() << " cases compared");
}

TEST_CASE("pystr: strip, split, rsplit and splitlines") {
    generator g;
    batch b;
    for (int i = 0; i < 800; ++i) {
        const std::string s = g.chance(50) ? g.prose(true, 5) : g.any(true, 12);
        std::optional<std::string> chars;
        if (g.chance(60)) chars = g.chance(70) ? g.part_of(s, true) : g.any(true, 3);
        const bool left = g.chance(70);
        const bool right = g.chance(70);
        b.add("strip", {tok_s(s), tok_opt(chars), tok_b(left), tok_b(right)}, [=] {
            return tok_s(pd::py_strip(s, chars ? std::optional<std::string_view>(*chars) : std::nullopt, left, right));
        });
        std::optional<std::string> sep;
        if (g.chance(55)) sep = g.chance(70) ? g.part_of(s, true) : g.any(true, 2);
        const long maxsplit = g.between(-2, 4);
        const auto sep_view = sep ? std::optional<std::string_view>(*sep) : std::nullopt;
        b.add("split", {tok_s(s), tok_opt(sep), tok_i(maxsplit)},
              [=] { return tok_list(pd::py_split(s, sep_view, maxsplit)); });
        b.add("rsplit", {tok_s(s), tok_opt(sep), tok_i(maxsplit)},
              [=] { return tok_list(pd::py_rsplit(s, sep_view, maxsplit)); });
        const std::string l = g.text({&ascii_lower, &spaces, &spaces, &invalid, &emoji}, 12);
        const bool keepends = g.chance(50);
        b.add("splitlines", {tok_s(l), tok_b(keepends)}, [=] { return tok_list(pd::py_splitlines(l, keepends)); });
    }
    b.check();
    MESSAGE(b.size() << " cases compared");
}

TEST_CASE("pystr: find, rfind, count and replace") {
    generator g;
    batch b;
    for (int i = 0; i < 800; ++i) {
        const std::string s = g.chance(30) ? g.text({&ascii_lower, &hyphens}, 14) : g.any(true, 14);
        const std::string sub = g.chance(10) ? std::string() : g.part_of(s, true);
        const long len = static_cast<long>(pd::utf8_length(s));
        std::optional<long> start;
        std::optional<long> end;
        if (g.chance(50)) start = g.between(-len - 3, len + 3);
        if (g.chance(40)) end = g.between(-len - 3, len + 3);
        const std::vector<std::string> args = {tok_s(s), tok_s(sub), tok_opt_i(start), tok_opt_i(end)};
        b.add("find", args, [=] { return tok_i(pd::py_find(s, sub, start, end)); });
        b.add("rfind", args, [=] { return tok_i(pd::py_rfind(s, sub, start, end)); });
        b.add("count", args, [=] { return tok_i(pd::py_count(s, sub, start, end)); });
        const std::string repl = g.any(false, 3);
        const long count = g.between(-1, 3);
        b.add("replace", {tok_s(s), tok_s(sub), tok_s(repl), tok_i(count)}, [=] {
            std::string o;
            pd::py_replace(o, s, sub, repl, count);
            return tok_s(o);
        });
    }
    b.check();
    MESSAGE(b.size() << " cases compared");
}

TEST_CASE("pystr: center, ljust, rjust and zfill") {
    generator g;
    batch b;
    using pad = void (*)(std::string&, std::string_view, long, char32_t);
    const std::pair<const char*, pad> funcs[] = {
        {"center", pd::py_center}, {"ljust", pd::py_ljust}, {"rjust", pd::py_rjust}};
    for (int i = 0; i < 500; ++i) {
        const std::string s = g.any(true, 8);
        const long width = g.between(-2, static_cast<long>(pd::utf8_length(s)) + 8);
        const char32_t fill = g.chance(40) ? U' ' : g.code_point();
        for (const auto& [name, f] : funcs) {
            b.add(name, {tok_s(s), tok_i(width), tok_c(fill)}, [=, f = f] {
                std::string o;
                f(o, s, width, fill);
                return tok_s(o);
            });
        }
        std::string z = g.chance(50) ? g.text({&digits, &punct, &latin1}, 5) : g.any(true, 5);
        if (g.chance(40)) z.insert(0, g.chance(50) ? "-" : "+");
        const long zw = g.between(-1, static_cast<long>(pd::utf8_length(z)) + 5);
        b.add("zfill", {tok_s(z), tok_i(zw)}, [=] {
            std::string o;
            pd::py_zfill(o, z, zw);
            return tok_s(o);
        });
    }
    b.check();
    MESSAGE(b.size() << " cases compared");
}

TEST_CASE("pystr: Jinja wordwrap") {
    generator g;
    batch b;
    const pool wrapstrings = {"\n", "\n", "<br>", "", "\u2192", "\r\n"};
    for (int i = 0; i < 1500; ++i) {
        std::string s;
        switch (g.below(4)) {
        case 0: s = g.text({&ascii_lower, &hyphens, &spaces, &punct}, 40); break;
        case 1: s = g.text({&ascii_lower, &ascii_lower, &hyphens, &digits, &latin1}, 40); break;
        default: s = g.prose(true, 14); break;
        }
        const long width = g.chance(3) ? g.between(-1, 0) : g.between(1, 24);
        const bool break_long = g.chance(70);
        const bool break_hyphens = g.chance(70);
        const std::string wrapstring = g.pick(wrapstrings);
        b.add("wordwrap", {tok_s(s), tok_i(width), tok_b(break_long), tok_s(wrapstring), tok_b(break_hyphens)},
              [=] {
                  std::string o;
                  pd::jinja_wordwrap(o, s, width, break_long, wrapstring, break_hyphens);
                  return tok_s(o);
              });
    }
    b.check();
    MESSAGE(b.size() << " cases compared");
}

TEST_CASE("pystr: Jinja wordcount, striptags, urlencode quoting and truncate") {
    generator g;
    batch b;
    const pool safes = {"/", "", "/:?=&", "\xc3\xa9/", "~", "%", "abc"};
    const pool ends = {"...", "", "\u2026", " >>", "..."};
    for (int i = 0; i < 800; ++i) {
        const std::string w = g.chance(50) ? g.prose(true, 8) : g.any(true, 12);
        b.add("wordcount", {tok_s(w)}, [=] { return tok_i(pd::jinja_wordcount(w)); });

        std::string h;
        const std::size_t pieces = g.below(12);
        const bool tags = g.chance(40);  // fragments that join into new comment or tag marks
        for (std::size_t k = 0; k < pieces; ++k)
            h += tags ? g.pick(tag_bits) : g.chance(50) ? g.pick(html_bits) : g.chance(50) ? g.pick(words) : g.pick(spaces);
        if (g.chance(30)) h = g.text({&tag_alphabet}, 18);
        if (g.chance(20)) h = g.text({&comment_bits}, 14);
        if (g.chance(20)) {  // numeric references of every size
            const bool hex_ref = g.chance(50);
            std::string ref = hex_ref ? (g.chance(50) ? "&#x" : "&#X") : "&#";
            const std::size_t n_digits = 1 + g.below(20);
            for (std::size_t k = 0; k < n_digits; ++k) ref += (hex_ref ? "0123456789abcdefABCDEF" : "0123456789")[g.below(hex_ref ? 22 : 10)];
            h += ref + (g.chance(60) ? ";" : " ");
        }
        if (g.chance(10)) h += g.pick(invalid);
        b.add("striptags", {tok_s(h)}, [=] { return str_of(pd::jinja_striptags, h); });

        const std::string q = g.any(true, 10) + (g.chance(30) ? g.pick(punct) : "");
        const std::string safe = g.pick(safes);
        b.add("url_quote", {tok_s(q), tok_s(safe)}, [=] {
            std::string o;
            pd::url_quote(o, q, safe);
            return tok_s(o);
        });

        const std::string t = g.prose(true, 10);
        const std::string end = g.pick(ends);
        const long end_len = static_cast<long>(pd::utf8_length(end));
        const long length = g.chance(5) ? end_len - 1 : g.between(end_len, static_cast<long>(pd::utf8_length(t)) + 6);
        const long leeway = g.chance(5) ? -1 : g.between(0, 6);
        const bool killwords = g.chance(40);
        b.add("truncate", {tok_s(t), tok_i(length), tok_b(killwords), tok_s(end), tok_i(leeway)}, [=] {
            std::string o;
            pd::jinja_truncate(o, t, length, killwords, end, leeway);
            return tok_s(o);
        });
    }
    b.check();
    MESSAGE(b.size() << " cases compared");
}

TEST_CASE("pystr: float repr, JSON floats and round") {
    generator g;
    batch b;
    std::vector<double> values = {0.0, -0.0, 1.0, -1.0, 0.1, 0.5, 1.5, 2.5, 1e16, 1e-5, 1e-4, 9999999999999998.0,
                                  123456789012345.0, 1.2345678901234567e16, 1e20, 1e-7, 5e-324, 2.2250738585072014e-308,
                                  1.7976931348623157e308, std::numeric_limits<double>::infinity(),
                                  -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(),
                                  0.125, 0.375, 2.675, 1.005, 0.285, 1234.5, 2675.0, 1e22, 1e23, 4.35, 0.045};
    for (int e = -330; e <= 310; ++e) {
        const double p = std::pow(10.0, e);
        values.push_back(p);
        values.push_back(std::nextafter(p, 0.0));
        values.push_back(std::nextafter(p, std::numeric_limits<double>::infinity()));
    }
    for (int i = 0; i < 1500; ++i) values.push_back(g.bits_double());
    for (int i = 0; i < 300; ++i) values.push_back(static_cast<double>(static_cast<std::int64_t>(g.rng() >> g.below(64))));
    for (int i = 0; i < 300; ++i) {  // subnormals
        const std::uint64_t bits = g.rng() & 0x000fffffffffffffull;
        double v;
        std::memcpy(&v, &bits, 8);
        values.push_back(g.chance(50) ? v : -v);
    }
    for (const double v : values) {
        b.add("float_repr", {tok_d(v)}, [v] {
            std::string o;
            pd::py_float_repr(o, v);
            return tok_s(o);
        });
        b.add("json_float", {tok_d(v)}, [v] {
            std::string o;
            pd::json_float(o, v);
            return tok_s(o);
        });
    }
    // round: ties on the decimal grid, decimals that are not exact in binary, any doubles.
    std::vector<std::pair<double, int>> rounds;
    for (int i = 0; i < 1500; ++i) {
        const int nd = static_cast<int>(g.between(-3, 6));
        const double tie = (static_cast<double>(g.between(-100000, 100000)) + 0.5) / std::pow(10.0, nd);
        rounds.push_back({tie, nd});
        const double dec = static_cast<double>(g.between(-10000000, 10000000)) / std::pow(10.0, g.between(0, 8));
        rounds.push_back({dec, static_cast<int>(g.between(-4, 8))});
        rounds.push_back({static_cast<double>(g.between(-4096, 4096)) / 8.0, static_cast<int>(g.between(-1, 3))});
        rounds.push_back({g.bits_double(), static_cast<int>(g.between(-30, 30))});
    }
    for (const double v : values) rounds.push_back({v, static_cast<int>(g.between(-20, 20))});
    for (const int nd : {-400, -309, -308, -307, -300, 300, 322, 323, 324, 400}) {
        for (const double v : {1.7976931348623157e308, 5e-324, 1.5e-300, 1e300, 0.5, -2.5e-308, 4.9406564584124654e-322})
            rounds.push_back({v, nd});
    }
    for (const auto& [v, nd] : rounds) {
        b.add("round", {tok_d(v), tok_i(nd)}, [v = v, nd = nd] { return tok_d(pd::py_round(v, nd)); });
    }
    b.check();
    MESSAGE(b.size() << " cases compared");
}

TEST_CASE("pystr: invalid UTF-8 is decoded one byte at a time and copied through") {
    generator g;
    // The decoding contract (not a Python behaviour: Python has no invalid str).
    for (const std::string& bad : invalid) {
        std::size_t i = 0;
        const char32_t c = pd::utf8_decode(bad, i);
        CHECK(c == 0xFFFD);
        CHECK(i == 1);
        CHECK(pd::utf8_length(bad) == bad.size());
    }
    {
        const std::string s = "\xe2\x82\xac";  // a valid sequence is one unit
        std::size_t i = 0;
        CHECK(pd::utf8_decode(s, i) == 0x20AC);
        CHECK(i == 3);
        i = 5;
        CHECK(pd::utf8_decode(s, i) == 0xFFFD);  // past the end: no crash, still advances
        CHECK(i == 6);
    }
    // Random bytes through every function: no crash, no endless loop, and the mappings that copy
    // text copy invalid bytes: f(a + bad + b) == f(a) + bad + f(b) for context-free mappings.
    std::string out;
    for (int n = 0; n < 3000; ++n) {
        std::string s;
        const std::size_t len = g.below(24);
        for (std::size_t k = 0; k < len; ++k) s += static_cast<char>(g.rng() & 0xFF);
        out.clear();
        pd::py_upper(out, s);
        pd::py_lower(out, s);
        pd::py_casefold(out, s);
        pd::py_swapcase(out, s);
        pd::py_title(out, s);
        pd::py_capitalize(out, s);
        pd::jinja_title(out, s);
        pd::py_str_repr(out, s);
        pd::json_string(out, s, true);
        pd::json_string(out, s, false);
        pd::html_escape(out, s);
        pd::jinja_wordwrap(out, s, 1 + static_cast<long>(g.below(8)), g.chance(50), "\n", g.chance(50));
        pd::jinja_striptags(out, s);
        pd::url_quote(out, s, "/");
        pd::py_center(out, s, 30, U'\u00b7');
        pd::py_replace(out, s, s.substr(0, g.below(3)), "x", -1);
        (void)pd::py_strip(s, std::nullopt, true, true);
        (void)pd::py_strip(s, s.substr(0, g.below(4)), true, true);
        (void)pd::py_split(s, std::nullopt, -1);
        (void)pd::py_rsplit(s, std::nullopt, -1);
        if (s.size() > 2) {
            (void)pd::py_split(s, s.substr(1, 2), -1);
            (void)pd::py_rsplit(s, s.substr(1, 2), -1);
        }
        (void)pd::py_splitlines(s, true);
        (void)pd::py_find(s, s.substr(g.below(s.size() + 1), 2), std::nullopt, std::nullopt);
        (void)pd::py_rfind(s, s.substr(g.below(s.size() + 1), 2), -3, std::nullopt);
        (void)pd::py_count(s, s.substr(g.below(s.size() + 1), 1), std::nullopt, std::nullopt);
        (void)pd::jinja_wordcount(s);
        (void)pd::py_str_istitle(s);

        const std::string a = g.any(false, 5);
        const std::string z = g.any(false, 5);
        const std::string& bad = g.pick(invalid);
        using mapping = void (*)(std::string&, std::string_view);
        for (const mapping f : {mapping(pd::py_upper), mapping(pd::py_casefold), mapping(pd::html_escape)}) {
            std::string whole;
            f(whole, a + bad + z);
            std::string parts;
            f(parts, a);
            parts += bad;
            f(parts, z);
            CHECK(whole == parts);
        }
    }
}
