// parley/jinja/detail/lipsum.hpp: lorem ipsum paragraphs built the way Jinja2's lipsum() builds
// them (same word list, sentence and comma rules), from any random source.
#ifndef PARLEY_JINJA_DETAIL_LIPSUM_HPP
#define PARLEY_JINJA_DETAIL_LIPSUM_HPP

#include <parley/jinja/arguments.hpp>
#include <parley/jinja/detail/pystr.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace parley::jinja::detail {

/// The words lipsum() draws from (Jinja2's list, in its order).
inline constexpr std::string_view lorem_ipsum_words[] = {
    "a", "ac", "accumsan", "ad", "adipiscing", "aenean", "aliquam", "aliquet", "amet", "ante", "aptent", "arcu",
    "at", "auctor", "augue", "bibendum", "blandit", "class", "commodo", "condimentum", "congue", "consectetuer",
    "consequat", "conubia", "convallis", "cras", "cubilia", "cum", "curabitur", "curae", "cursus", "dapibus",
    "diam", "dictum", "dictumst", "dignissim", "dis", "dolor", "donec", "dui", "duis", "egestas", "eget",
    "eleifend", "elementum", "elit", "enim", "erat", "eros", "est", "et", "etiam", "eu", "euismod", "facilisi",
    "facilisis", "fames", "faucibus", "felis", "fermentum", "feugiat", "fringilla", "fusce", "gravida",
    "habitant", "habitasse", "hac", "hendrerit", "hymenaeos", "iaculis", "id", "imperdiet", "in", "inceptos",
    "integer", "interdum", "ipsum", "justo", "lacinia", "lacus", "laoreet", "lectus", "leo", "libero", "ligula",
    "litora", "lobortis", "lorem", "luctus", "maecenas", "magna", "magnis", "malesuada", "massa", "mattis",
    "mauris", "metus", "mi", "molestie", "mollis", "montes", "morbi", "mus", "nam", "nascetur", "natoque", "nec",
    "neque", "netus", "nibh", "nisi", "nisl", "non", "nonummy", "nostra", "nulla", "nullam", "nunc", "odio",
    "orci", "ornare", "parturient", "pede", "pellentesque", "penatibus", "per", "pharetra", "phasellus",
    "placerat", "platea", "porta", "porttitor", "posuere", "potenti", "praesent", "pretium", "primis", "proin",
    "pulvinar", "purus", "quam", "quis", "quisque", "rhoncus", "ridiculus", "risus", "rutrum", "sagittis",
    "sapien", "scelerisque", "sed", "sem", "semper", "senectus", "sit", "sociis", "sociosqu", "sodales",
    "sollicitudin", "suscipit", "suspendisse", "taciti", "tellus", "tempor", "tempus", "tincidunt", "torquent",
    "tortor", "tristique", "turpis", "ullamcorper", "ultrices", "ultricies", "urna", "ut", "varius", "vehicula",
    "vel", "velit", "venenatis", "vestibulum", "vitae", "vivamus", "viverra", "volutpat", "vulputate",
};

/// What lipsum() was asked for: paragraphs of min_words to max_words - 1 words each.
struct lorem_ipsum_request {
    std::int64_t paragraphs = 5;
    std::int64_t min_words = 20;
    std::int64_t max_words = 100;
    std::size_t max_size = std::size_t(64) << 20;  ///< bytes of text before a template_limit error
};

/// Python's random.randrange(lo, hi): a number in [lo, hi); an error when the range is empty.
template <class Rng>
std::int64_t random_in_range(Rng& rng, std::int64_t lo, std::int64_t hi) {
    if (hi <= lo) {
        const std::uint64_t gap = static_cast<std::uint64_t>(lo) - static_cast<std::uint64_t>(hi);
        raise(errc::template_value, "empty range for randrange() (" + std::to_string(lo) + ", " + std::to_string(hi) +
                                        ", " + (gap ? "-" : "") + std::to_string(gap) + ")");
    }
    const std::uint64_t width = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
    const std::uint64_t k = std::uniform_int_distribution<std::uint64_t>(0, width - 1)(rng);
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + k);
}

/// The paragraphs of lipsum(): each word differs from the one before it; the first word of a
/// sentence is capitalised; a comma follows a word once more than 3 to 7 words have passed since
/// the last comma, and a sentence ends once more than 10 to 19 words have passed since the last
/// full stop (each comma pushes that mark two words on); every paragraph ends with a period.
template <class Rng>
std::vector<std::string> lorem_ipsum_paragraphs(const lorem_ipsum_request& r, Rng& rng) {
    constexpr std::size_t word_count = std::size(lorem_ipsum_words);
    std::vector<std::string> result;
    std::size_t total = 0;
    for (std::int64_t n = 0; n < r.paragraphs; ++n) {
        const std::int64_t words = random_in_range(rng, r.min_words, r.max_words);
        std::string p;
        bool capitalize = true;
        std::int64_t last_comma = 0, last_fullstop = 0;
        std::size_t last = word_count;
        for (std::int64_t idx = 0; idx < words; ++idx) {
            std::size_t w;
            do w = static_cast<std::size_t>(random_in_range(rng, 0, static_cast<std::int64_t>(word_count)));
            while (w == last);
            last = w;
            if (idx) p += ' ';
            const std::size_t start = p.size();
            p += lorem_ipsum_words[w];
            if (capitalize) {
                p[start] = static_cast<char>(p[start] - 'a' + 'A');
                capitalize = false;
            }
            if (idx - random_in_range(rng, 3, 8) > last_comma) {
                last_comma = idx;
                last_fullstop += 2;
                p += ',';
            }
            if (idx - random_in_range(rng, 10, 20) > last_fullstop) {
                last_comma = last_fullstop = idx;
                p += '.';
                capitalize = true;
            }
            if (total + p.size() > r.max_size) raise(errc::template_limit, "lipsum() text exceeds the output size limit");
        }
        if (!p.empty() && p.back() == ',') p.back() = '.';
        else if (p.empty() || p.back() != '.') p += '.';
        total += p.size() + 9;
        if (total > r.max_size) raise(errc::template_limit, "lipsum() text exceeds the output size limit");
        result.push_back(std::move(p));
    }
    return result;
}

/// The paragraphs as lipsum() returns them: each in `<p>...</p>` on its own line (html), or
/// separated by blank lines.
inline std::string lorem_ipsum_join(const std::vector<std::string>& paragraphs, bool html) {
    std::string out;
    for (std::size_t i = 0; i < paragraphs.size(); ++i) {
        if (i) out += html ? "\n" : "\n\n";
        if (html) {
            out += "<p>";
            html_escape(out, paragraphs[i]);
            out += "</p>";
        } else {
            out += paragraphs[i];
        }
    }
    return out;
}

}  // namespace parley::jinja::detail

#endif
