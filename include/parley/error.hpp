// parley/error.hpp: error codes, exception types and source locations.
#ifndef PARLEY_ERROR_HPP
#define PARLEY_ERROR_HPP

#include <parley/config.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace parley {

/// Every error condition parley reports, as an `std::error_code` value.
enum class errc {
    template_syntax = 1,  ///< a template does not parse
    template_unknown_name,  ///< an unknown filter, test or tag
    template_undefined,  ///< an undefined value used where a defined one is needed
    template_type,  ///< an operation applied to values of the wrong type
    template_value,  ///< an argument with the right type but a bad value
    template_security,  ///< the sandbox refused an operation
    template_limit,  ///< a recursion, loop, output or size limit was reached
    template_raised,  ///< the template called raise_exception()
    invalid_argument,  ///< a bad argument from C++ code
    template_callback,  ///< a filter, test or function written in C++ threw an exception
    chat_invalid,  ///< a message, request parameter, conversation or template set breaks a rule of the chat model
    yaml_syntax,  ///< a YAML file does not parse
    conversion,  ///< a value does not convert between JSON (or a model's text) and its C++ type
    http_status,  ///< a server answered with an HTTP error status and no error body parley understands
    api_error,  ///< a model API reported an error (an error body, or an error event in a stream)
    protocol,  ///< a server's reply breaks the protocol: malformed JSON or SSE, wrong Content-Type, a limit exceeded
    timeout,  ///< a connect, idle-read or total time limit was reached
    tls_verification,  ///< the server's certificate or host name did not verify
    bad_function_arguments,  ///< a model's function calls did not fit, more often than a bot allows
    bot_limit,  ///< a bot's bound was reached: function rounds, template switches, the context window
    connection_closed,  ///< a peer (an MCP server) closed the connection or exited while a request was open
    tokenizer_file,  ///< a tokenizer file (.tiktoken, tokenizer.json) is malformed, or larger than a limit
    tokenizer_unsupported,  ///< a tokenizer file uses a component (model, normalizer, pattern...) parley does not implement
    tokenizer_input,  ///< a text or token id the tokenizer cannot take: invalid UTF-8, a refused special token, an unknown id
    schema_invalid,  ///< a JSON Schema is malformed, larger than a limit, or uses what the validator does not implement
    schema_limit,  ///< a validation's work limit was reached (schema_limits::max_steps, max_ref_depth)
};

}  // namespace parley

template <>
struct std::is_error_code_enum<parley::errc> : std::true_type {};

namespace parley {

namespace detail {
class error_category_impl final : public std::error_category {
public:
    const char* name() const noexcept override { return "parley"; }
    std::string message(int ev) const override {
        switch (static_cast<errc>(ev)) {
        case errc::template_syntax: return "template syntax error";
        case errc::template_unknown_name: return "unknown name in template";
        case errc::template_undefined: return "undefined value in template";
        case errc::template_type: return "type error in template";
        case errc::template_value: return "bad value in template";
        case errc::template_security: return "operation refused by the sandbox";
        case errc::template_limit: return "template limit reached";
        case errc::template_raised: return "error raised by the template";
        case errc::invalid_argument: return "invalid argument";
        case errc::template_callback: return "a C++ filter, test or function failed";
        case errc::chat_invalid: return "invalid message, request or conversation template";
        case errc::yaml_syntax: return "YAML syntax error";
        case errc::conversion: return "value does not convert between JSON and its C++ type";
        case errc::http_status: return "HTTP error status";
        case errc::api_error: return "error reported by the model API";
        case errc::protocol: return "malformed reply from the server";
        case errc::timeout: return "timed out";
        case errc::tls_verification: return "TLS certificate verification failed";
        case errc::bad_function_arguments: return "the model's function arguments did not fit, too many times";
        case errc::bot_limit: return "a bot's limit was reached";
        case errc::connection_closed: return "the server closed the connection";
        case errc::tokenizer_file: return "malformed tokenizer file";
        case errc::tokenizer_unsupported: return "tokenizer component not implemented";
        case errc::tokenizer_input: return "input the tokenizer cannot take";
        case errc::schema_invalid: return "invalid or unsupported JSON Schema";
        case errc::schema_limit: return "a JSON Schema validation limit was reached";
        }
        return "unknown parley error";
    }
};
}  // namespace detail

/// The category of parley's error codes.
inline const std::error_category& error_category() noexcept {
    static const detail::error_category_impl instance;
    return instance;
}

/// Makes an `std::error_code` from a parley error condition.
inline std::error_code make_error_code(errc e) noexcept { return {static_cast<int>(e), error_category()}; }

/// A place in a named source text: `name:line:column`, both counted from 1.
struct source_location {
    std::string name;  ///< file or template name; may be empty
    std::uint32_t line = 0;  ///< 1-based line, 0 when unknown
    std::uint32_t column = 0;  ///< 1-based column in code points, 0 when unknown
};

/// Base of every exception parley throws; carries an error code.
class error : public std::runtime_error {
public:
    error(errc code, const std::string& what) : std::runtime_error(what), code_(make_error_code(code)) {}
    /// An error with any error code (a system, Asio or TLS error, for instance).
    error(std::error_code code, const std::string& what) : std::runtime_error(what), code_(code) {}
    /// The error condition.
    const std::error_code& code() const noexcept { return code_; }

private:
    std::error_code code_;
};

/// An error in a template (syntax or rendering) or in another located source text such as YAML.
/// `what()` reads `name:line:col: message`, then the source line and a caret under the column.
class located_error : public error {
public:
    located_error(errc code, std::string message, source_location where, std::string_view source_line)
        : error(code, format(message, where, source_line)),
          message_(std::move(message)),
          where_(std::move(where)) {}

    /// The message alone, without location or excerpt.
    const std::string& message() const noexcept { return message_; }
    /// Where the error is.
    const source_location& where() const noexcept { return where_; }

private:
    static std::string format(const std::string& message, const source_location& where, std::string_view line) {
        std::string s;
        s += where.name.empty() ? std::string_view("<template>") : std::string_view(where.name);
        if (where.line != 0) {
            s += ':';
            s += std::to_string(where.line);
            s += ':';
            s += std::to_string(where.column);
        }
        s += ": ";
        s += message;
        if (where.line != 0) {
            s += "\n  ";
            s += line;
            s += "\n  ";
            for (std::uint32_t i = 1; i < where.column; ++i) s += ' ';
            s += '^';
        }
        return s;
    }

    std::string message_;
    source_location where_;
};

/// An error in a template: syntax, unknown filter, undefined value, type error, limit...
class template_error : public located_error {
public:
    using located_error::located_error;
};

}  // namespace parley

#endif
