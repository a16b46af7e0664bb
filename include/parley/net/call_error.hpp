// parley/net/call_error.hpp: the error of a failed call (transport, HTTP status or the API's error
// body), and the exception that carries it.
#ifndef PARLEY_NET_CALL_ERROR_HPP
#define PARLEY_NET_CALL_ERROR_HPP

#include <parley/error.hpp>
#include <parley/net/headers.hpp>

#include <string>
#include <system_error>
#include <utility>

namespace parley {

/// Why a call failed. `code` is one of parley's (errc::http_status, errc::api_error,
/// errc::protocol, errc::timeout, errc::tls_verification) or a system, Asio or TLS error code
/// (connection refused, operation aborted...). An API's error body fills `type`, `message`,
/// `param` and `api_code`. The client removes its API key from every text of it (the reply's
/// header fields are kept as the server sent them).
struct call_error {
    std::error_code code;
    int status = 0;  ///< the HTTP status; 0 when no status was received
    std::string type;  ///< the API's error type ("rate_limit_error", "invalid_request_error", ...)
    std::string message;  ///< the API's message, or parley's description of the failure
    std::string param;  ///< the parameter the API blames (OpenAI); "" when none
    std::string api_code;  ///< the API's error code ("rate_limit_exceeded", ...); "" when none
    http_headers headers;  ///< the reply's header fields when a reply arrived
    unsigned attempts = 0;  ///< how many attempts were made (1 + retries)
    /// The failure may pass: another attempt may succeed (a connection refused or broken, a
    /// time-out, a body or stream cut short). Set by the transport; a reply with an HTTP status
    /// is judged by its status instead (net::should_retry).
    bool transient = false;

    /// One line for humans: what failed, the status, the API's type and message.
    std::string what() const {
        std::string s = code.message();
        if (status != 0) s += " (HTTP " + std::to_string(status) + ")";
        if (!type.empty()) s += " [" + type + "]";
        if (!message.empty()) s += ": " + message;
        if (!param.empty()) s += " (param '" + param + "')";
        if (!api_code.empty()) s += " (code '" + api_code + "')";
        if (attempts > 1) s += " after " + std::to_string(attempts) + " attempts";
        return s;
    }
};

/// The exception `result<T, call_error>::value()` throws: a parley::error with the call's code and
/// the whole call_error.
class call_exception : public error {
public:
    explicit call_exception(call_error e) : error(e.code, e.what()), detail_(std::move(e)) {}
    const call_error& detail() const noexcept { return detail_; }

private:
    call_error detail_;
};

/// Found by ADL from boost::system::result<T, call_error>::value().
[[noreturn]] inline void throw_exception_from_error(const call_error& e, const auto& /*location*/) {
    throw call_exception(e);
}

}  // namespace parley

#endif
