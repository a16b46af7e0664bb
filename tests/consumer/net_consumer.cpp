// A program of a project that uses parley's chat layer through parley::net, built by the
// find_package consumer project: OpenSSL comes through parley::net (found again by parley's
// package configuration). It stays small: the client's coroutines are compiled by parley's own
// build, once per compiler (parley-net-compiled).
#include <parley/net/tls.hpp>
#include <parley/provider/in_process.hpp>

#include <cstdio>

int main() {
    // A TLS client context with the system CA store: OpenSSL is linked.
    auto tls = parley::net::make_tls_context(parley::net::tls_options{});
    if (tls.native_handle() == nullptr) {
        std::fputs("net consumer check failed: no TLS context\n", stderr);
        return 1;
    }
    parley::echo_model echo;
    parley::chat_request request;
    request.messages.push_back(parley::make_message(parley::role::user, "ping"));
    if (echo.answer(request).text() != "ping") {
        std::fputs("net consumer check failed: echo\n", stderr);
        return 1;
    }
    std::puts("parley net consumer: ok");
    return 0;
}
