// parley/schema/detail/json_parser.hpp: Boost.JSON's parser with numbers read exactly.
//
// Boost.JSON 1.81 computes the double of a number like 0.1234567890123 quickly but not always
// exactly: about one in four 17-digit numbers (and some short ones) comes out one unit in the
// last place away, so a value written with full precision does not always read back equal.
// This parser is Boost's own (same grammar, limits and errors) with a handler that reads every
// floating-point number from its text with std::from_chars, which rounds correctly.
#ifndef PARLEY_SCHEMA_DETAIL_JSON_PARSER_HPP
#define PARLEY_SCHEMA_DETAIL_JSON_PARSER_HPP

#include <parley/config.hpp>

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/parse_options.hpp>
#include <boost/json/value.hpp>
#include <boost/json/value_stack.hpp>

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <system_error>

namespace parley::detail::json_text {

struct exact_number_handler {
    static constexpr std::size_t max_array_size = static_cast<std::size_t>(-1);
    static constexpr std::size_t max_object_size = static_cast<std::size_t>(-1);
    static constexpr std::size_t max_string_size = static_cast<std::size_t>(-1);
    static constexpr std::size_t max_key_size = static_cast<std::size_t>(-1);

    boost::json::value_stack st;
    std::string number;  // the text of a number split across writes

    using error_code = boost::system::error_code;
    using string_view = boost::json::string_view;

    bool on_document_begin(error_code&) { return true; }
    bool on_document_end(error_code&) { return true; }
    bool on_object_begin(error_code&) { return true; }
    bool on_object_end(std::size_t n, error_code&) {
        st.push_object(n);
        return true;
    }
    bool on_array_begin(error_code&) { return true; }
    bool on_array_end(std::size_t n, error_code&) {
        st.push_array(n);
        return true;
    }
    bool on_key_part(string_view s, std::size_t, error_code&) {
        st.push_chars(s);
        return true;
    }
    bool on_key(string_view s, std::size_t, error_code&) {
        st.push_key(s);
        return true;
    }
    bool on_string_part(string_view s, std::size_t, error_code&) {
        st.push_chars(s);
        return true;
    }
    bool on_string(string_view s, std::size_t, error_code&) {
        st.push_string(s);
        return true;
    }
    bool on_number_part(string_view s, error_code&) {
        number.append(s.data(), s.size());
        return true;
    }
    bool on_int64(std::int64_t i, string_view, error_code&) {
        number.clear();
        st.push_int64(i);
        return true;
    }
    bool on_uint64(std::uint64_t u, string_view, error_code&) {
        number.clear();
        st.push_uint64(u);
        return true;
    }
    bool on_double(double d, string_view s, error_code&) {
        number.append(s.data(), s.size());
        double exact = 0;
        auto r = std::from_chars(number.data(), number.data() + number.size(), exact);
        // Out of range (1e400) keeps Boost's infinity or zero.
        if (r.ec == std::errc() && r.ptr == number.data() + number.size()) d = exact;
        number.clear();
        st.push_double(d);
        return true;
    }
    bool on_bool(bool b, error_code&) {
        st.push_bool(b);
        return true;
    }
    bool on_null(error_code&) {
        st.push_null();
        return true;
    }
    bool on_comment_part(string_view, error_code&) { return true; }
    bool on_comment(string_view, error_code&) { return true; }
};

/// An incremental parser like boost::json::stream_parser whose doubles are correctly rounded.
class exact_parser {
public:
    explicit exact_parser(const boost::json::parse_options& options) : p_(options) {
        p_.handler().st.reset();
    }

    /// Parses up to the end of one complete value; returns the characters used.
    std::size_t write_some(const char* data, std::size_t size, boost::system::error_code& ec) {
        return p_.write_some(true, data, size, ec);
    }
    /// Ends the text: completes a number at its very end, or reports an incomplete value.
    void finish(boost::system::error_code& ec) { p_.write_some(false, nullptr, 0, ec); }
    /// Whether a complete value has been read.
    bool done() const noexcept { return p_.done(); }
    /// The value read; only after `done()`.
    boost::json::value release() { return p_.handler().st.release(); }

private:
    boost::json::basic_parser<exact_number_handler> p_;
};

/// Parses the whole of `text` as one JSON value; `consumed` is where an error was found.
inline boost::json::value parse_exact(std::string_view text, const boost::json::parse_options& options,
                                      boost::system::error_code& ec, std::size_t& consumed) {
    exact_parser p(options);
    consumed = p.write_some(text.data(), text.size(), ec);
    if (!ec && consumed < text.size()) ec = boost::json::error::extra_data;
    if (!ec && !p.done()) {
        p.finish(ec);
        if (ec) consumed = text.size();
    }
    if (ec) return nullptr;
    return p.release();
}

}  // namespace parley::detail::json_text

#endif
