// A program of a project that makes chat calls with parley, built by the find_package consumer
// project: Beast, OpenSSL and threads all come through parley::net.
#include <parley/provider/chat_client.hpp>

#include <cstdio>

int main() {
    parley::client_config config;
    config.api = parley::api::echo;
    parley::blocking_client client(config);
    parley::chat_request request;
    request.messages.push_back(parley::make_message(parley::role::user, "ping"));
    auto reply = client.chat(request);
    if (!reply || reply->text() != "ping") {
        std::fprintf(stderr, "net consumer check failed: %s\n", reply ? "wrong text" : reply.error().what().c_str());
        return 1;
    }
    // The TLS context is built with the system CA store.
    const parley::net::http_client http(client.client().get_executor());
    (void)http;
    std::puts("parley net consumer: ok");
    return 0;
}
