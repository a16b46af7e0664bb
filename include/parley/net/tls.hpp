// parley/net/tls.hpp: the TLS client context of parley's connections: system CA store, extra
// CAs, TLS 1.2 at least, peer verification on unless turned off by name.
#ifndef PARLEY_NET_TLS_HPP
#define PARLEY_NET_TLS_HPP

#include <parley/error.hpp>
#include <parley/net/options.hpp>

#include <boost/asio/buffer.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/system/error_code.hpp>

#include <openssl/ssl.h>

#include <string>

namespace parley::net {

/// A TLS client context set up from `options`: trusts the system CA store (unless
/// `use_system_store` is false) plus `ca_file` and `ca_pem`; refuses protocols older than
/// TLS 1.2; verifies peers unless `danger_accept_invalid_certificates()` was called (each
/// connection also checks the host name and sends SNI). Throws parley::error
/// (errc::invalid_argument) when a CA file cannot be read or a PEM text holds no certificate.
inline boost::asio::ssl::context make_tls_context(const tls_options& options) {
    namespace ssl = boost::asio::ssl;
    ssl::context ctx(ssl::context::tls_client);
    SSL_CTX_set_min_proto_version(ctx.native_handle(), TLS1_2_VERSION);
    boost::system::error_code ec;
    if (options.use_system_store) {
        ctx.set_default_verify_paths(ec);
        if (ec) throw error(errc::invalid_argument, "cannot load the system CA store: " + ec.message());
    }
    if (!options.ca_file.empty()) {
        ctx.load_verify_file(options.ca_file, ec);
        if (ec)
            throw error(errc::invalid_argument,
                        "cannot load CA file '" + options.ca_file + "': " + ec.message() + " (expected PEM certificates)");
    }
    if (!options.ca_pem.empty()) {
        ctx.add_certificate_authority(boost::asio::buffer(options.ca_pem), ec);
        if (ec) throw error(errc::invalid_argument, "cannot use the CA PEM text: " + ec.message());
    }
    ctx.set_verify_mode(options.verifies() ? ssl::verify_peer : ssl::verify_none);
    return ctx;
}

}  // namespace parley::net

#endif
