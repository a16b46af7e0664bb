// Tests of parley/net/url.hpp: parsing endpoint and proxy URLs, authorities, joined paths, and
// messages that never show a password.
#include <parley/net/url.hpp>

#include <doctest/doctest.h>

#include <string>

using parley::net::parse_url;
using parley::net::try_parse_url;
using parley::net::url;

namespace {

// The message parse_url throws for `text` ("" when it does not throw).
std::string parse_error(std::string_view text) {
    try {
        (void)parse_url(text);
    } catch (const parley::error& e) {
        CHECK(e.code() == parley::errc::invalid_argument);
        return e.what();
    }
    return {};
}

}  // namespace

TEST_CASE("parse_url: scheme, host, default and explicit ports, path and query") {
    const url a = parse_url("https://api.openai.com/v1");
    CHECK(a.scheme == "https");
    CHECK(a.user.empty());
    CHECK(a.password.empty());
    CHECK(a.host == "api.openai.com");
    CHECK(a.port == 443);
    CHECK(a.path == "/v1");
    CHECK(a.tls());
    CHECK(a.authority() == "api.openai.com");

    const url b = parse_url("http://localhost:8080");
    CHECK(b.scheme == "http");
    CHECK_FALSE(b.tls());
    CHECK(b.host == "localhost");
    CHECK(b.port == 8080);
    CHECK(b.path == "");
    CHECK(b.authority() == "localhost:8080");

    CHECK(parse_url("http://example.com").port == 80);
    CHECK(parse_url("http://example.com:80/").authority() == "example.com");
    CHECK(parse_url("https://example.com:443").authority() == "example.com");
    CHECK(parse_url("https://example.com:80").authority() == "example.com:80");
    CHECK(parse_url("http://example.com:443").authority() == "example.com:443");
    CHECK(parse_url("http://example.com:65535").port == 65535);
    CHECK(parse_url("http://example.com:1").port == 1);
    CHECK(parse_url("http://example.com:0080").port == 80);
    // An empty port is the default one (RFC 3986 allows it).
    CHECK(parse_url("https://example.com:/x").port == 443);

    // Scheme and host in any case; the path keeps its case.
    const url c = parse_url("HTTPS://API.Example.COM/V1/Chat");
    CHECK(c.scheme == "https");
    CHECK(c.host == "api.example.com");
    CHECK(c.path == "/V1/Chat");

    // Query kept, fragment dropped; a query without a path gets "/".
    CHECK(parse_url("https://h.example/openai/deployments/d?api-version=2024-06-01#frag").path ==
          "/openai/deployments/d?api-version=2024-06-01");
    CHECK(parse_url("http://h?x=1").path == "/?x=1");
    CHECK(parse_url("http://h#top").path == "");
    CHECK(parse_url("http://h/#top").path == "/");
    CHECK(parse_url("http://h/a/b/").path == "/a/b/");
    CHECK(parse_url("http://under_score.example").host == "under_score.example");
}

TEST_CASE("parse_url: user and password, percent-decoded") {
    const url p = parse_url("http://alice:s%40cr%3At@proxy.corp:3128");
    CHECK(p.user == "alice");
    CHECK(p.password == "s@cr:t");
    CHECK(p.host == "proxy.corp");
    CHECK(p.port == 3128);
    CHECK(p.authority() == "proxy.corp:3128");

    const url only_user = parse_url("http://bob@proxy");
    CHECK(only_user.user == "bob");
    CHECK(only_user.password == "");
    const url empty_user = parse_url("http://:pw@proxy");
    CHECK(empty_user.user == "");
    CHECK(empty_user.password == "pw");
    CHECK(parse_url("http://a%20b:%7e@h").user == "a b");
    CHECK(parse_url("http://a%20b:%7e@h").password == "~");
    // The last '@' ends the user information (an unencoded '@' in a password).
    const url at = parse_url("http://u:p@ss@h:1");
    CHECK(at.user == "u");
    CHECK(at.password == "p@ss");
    CHECK(at.host == "h");
}

TEST_CASE("parse_url: IPv4 and IPv6 hosts") {
    const url v4 = parse_url("http://127.0.0.1:11434/v1");
    CHECK(v4.host == "127.0.0.1");
    CHECK(v4.authority() == "127.0.0.1:11434");

    const url v6 = parse_url("http://[::1]:8080/v1");
    CHECK(v6.host == "::1");
    CHECK(v6.port == 8080);
    CHECK(v6.authority() == "[::1]:8080");
    CHECK(parse_url("https://[2001:DB8::1]").host == "2001:db8::1");
    CHECK(parse_url("https://[2001:DB8::1]").authority() == "[2001:db8::1]");
    CHECK(parse_url("http://[::ffff:10.0.0.1]/").host == "::ffff:10.0.0.1");
    CHECK(parse_url("http://[1:2:3:4:5:6:7:8]").host == "1:2:3:4:5:6:7:8");
}

TEST_CASE("parse_url: a proxy setting without a scheme is http") {
    const url p = parse_url("proxy:3128");
    CHECK(p.scheme == "http");
    CHECK(p.host == "proxy");
    CHECK(p.port == 3128);
    CHECK(parse_url("proxy.corp").port == 80);
    const url auth = parse_url("user:pw@proxy:3128");
    CHECK(auth.user == "user");
    CHECK(auth.password == "pw");
    CHECK(auth.host == "proxy");
    CHECK(parse_url("[::1]:3128").host == "::1");
}

TEST_CASE("parse_url: bad input is errc::invalid_argument naming the text") {
    struct bad_case {
        const char* text;
        const char* message;
    };
    const bad_case cases[] = {
        {"", "invalid URL '': the text is empty"},
        {"http://", "invalid URL 'http://': the host is empty"},
        {"http:///v1", "invalid URL 'http:///v1': the host is empty"},
        {"http://:80", "invalid URL 'http://:80': the host is empty"},
        {"https://user@", "invalid URL 'https://user@': the host is empty"},
        {"http://[]:80", "invalid URL 'http://[]:80': '' is not a valid IPv6 address"},
        {"http://h:0", "invalid URL 'http://h:0': the port '0' is not a number from 1 to 65535"},
        {"http://h:65536", "invalid URL 'http://h:65536': the port '65536' is not a number from 1 to 65535"},
        {"http://h:123456", "invalid URL 'http://h:123456': the port '123456' is not a number from 1 to 65535"},
        {"http://h:8o", "invalid URL 'http://h:8o': the port '8o' is not a number from 1 to 65535"},
        {"http://h:-1", "invalid URL 'http://h:-1': the port '-1' is not a number from 1 to 65535"},
        {"ftp://h/x", "invalid URL 'ftp://h/x': unknown scheme 'ftp' (expected http or https)"},
        {"socks5://h:1080", "invalid URL 'socks5://h:1080': unknown scheme 'socks5' (expected http or https)"},
        {"://h", "invalid URL '://h': unknown scheme '' (expected http or https)"},
        {"http://ex ample.com", "invalid URL 'http://ex ample.com': a space at offset 9 (write it as %20)"},
        {"http://h/a b", "invalid URL 'http://h/a b': a space at offset 10 (write it as %20)"},
        {" http://h", "invalid URL ' http://h': a space at offset 0 (write it as %20)"},
        {"http://h\n", "invalid URL 'http://h\n': a control character or non-ASCII byte at offset 8 "
                       "(percent-encode it; write a host name in its ASCII form)"},
        {"http://b\xC3\xBC" "cher.de", "invalid URL 'http://b\xC3\xBC" "cher.de': a control character or non-ASCII byte at "
                                    "offset 8 (percent-encode it; write a host name in its ASCII form)"},
        {"http://a:b:c", "invalid URL 'http://a:b:c': more than one ':' in the host (write an IPv6 address in brackets: [::1])"},
        {"http://::1/", "invalid URL 'http://::1/': more than one ':' in the host (write an IPv6 address in brackets: [::1])"},
        {"http://[::1", "invalid URL 'http://[::1': an IPv6 address without its closing ']'"},
        {"http://[::1]x", "invalid URL 'http://[::1]x': text after the IPv6 address (expected ':port')"},
        {"http://[1::2::3]", "invalid URL 'http://[1::2::3]': '1::2::3' is not a valid IPv6 address"},
        {"http://[fe80::1%25eth0]", "invalid URL 'http://[fe80::1%25eth0]': 'fe80::1%25eth0' is not a valid IPv6 address"},
        {"http://h%41st", "invalid URL 'http://h%41st': '%' is not allowed in a host name (letters, digits, '-', '.', '_')"},
        {"http://256.1.1.1", "invalid URL 'http://256.1.1.1': '256.1.1.1' is not a valid IPv4 address (four numbers from 0 to 255)"},
        {"http://1.2.3", "invalid URL 'http://1.2.3': '1.2.3' is not a valid IPv4 address (four numbers from 0 to 255)"},
        {"http://u%zz@h", "invalid URL 'http://u%zz@h': a bad percent-encoding in the user name or password (expected % and two hex digits)"},
    };
    for (const bad_case& c : cases) {
        CAPTURE(c.text);
        CHECK(parse_error(c.text) == c.message);
        CHECK_FALSE(try_parse_url(c.text));
    }
    CHECK(try_parse_url("http://ok.example"));
}

TEST_CASE("parse_url: messages never show a password") {
    const char* secret = "hunter2";
    const char* texts[] = {
        "http://alice:hunter2@h:99999",     "ftp://alice:hunter2@h",        "http://alice:hunter2@",
        "http://alice:hunter2@h o",         "http://alice:hunter2@[::g]",   "alice:hunter2@proxy:port",
        "http://alice:hunter2%zz@h",        "http://alice:hunter2@h:80\x01",
        // A password with characters that end the authority: the parse goes wrong, the message
        // still hides it (and names no part it took apart).
        "http://alice:hun/ter2@h",          "http://alice:hunter2#x@h",     "http://alice:hunter2?x@h",
        "u:hunter2://x@h",
    };
    for (const char* text : texts) {
        CAPTURE(text);
        const std::string message = parse_error(text);
        CHECK_FALSE(message.empty());
        CHECK(message.find(secret) == std::string::npos);
        CHECK(message.find("hun") == std::string::npos);
        CHECK(message.find("***") != std::string::npos);
    }
    CHECK(parse_error("http://alice:hunter2@h:99999") ==
          "invalid URL 'http://alice:***@h:99999': the port is not a number from 1 to 65535");
    CHECK(parley::net::redact_url_text("https://u:p@h/x") == "https://u:***@h/x");
    CHECK(parley::net::redact_url_text("https://h/x") == "https://h/x");
    CHECK(parley::net::redact_url_text("https://tok@h/x") == "https://tok@h/x");
    CHECK(parley::net::redacted(parse_url("http://u:p%40ss@[::1]:3128/x")) == "http://u:***@[::1]:3128/x");
    CHECK(parley::net::redacted(parse_url("https://h")) == "https://h:443");
}

TEST_CASE("join_path: exactly one '/' between base and endpoint, as the SDKs join them") {
    using parley::net::join_path;
    CHECK(join_path("/v1", "/chat/completions") == "/v1/chat/completions");
    CHECK(join_path("/v1/", "/chat/completions") == "/v1/chat/completions");
    CHECK(join_path("/v1", "chat/completions") == "/v1/chat/completions");
    CHECK(join_path("/v1/", "chat/completions") == "/v1/chat/completions");
    CHECK(join_path("/v1//", "//messages") == "/v1/messages");
    CHECK(join_path("", "/v1/messages") == "/v1/messages");
    CHECK(join_path("/", "/v1/messages") == "/v1/messages");
    CHECK(join_path(parse_url("https://api.openai.com/v1").path, "/chat/completions") == "/v1/chat/completions");
    CHECK(join_path(parse_url("https://api.anthropic.com").path, "/v1/messages") == "/v1/messages");
    // A query of the base (Azure's api-version) goes after the endpoint.
    CHECK(join_path("/openai/deployments/gpt?api-version=2024-06-01", "/chat/completions") ==
          "/openai/deployments/gpt/chat/completions?api-version=2024-06-01");
    CHECK(join_path("/d/?v=1", "/x?y=2") == "/d/x?y=2&v=1");
}

TEST_CASE("detail::parse_ipv4 and parse_ipv6") {
    using parley::net::detail::parse_ipv4;
    using parley::net::detail::parse_ipv6;
    std::array<std::uint8_t, 4> v4{};
    CHECK(parse_ipv4("10.20.30.255", v4));
    CHECK(v4 == std::array<std::uint8_t, 4>{10, 20, 30, 255});
    for (const char* bad : {"", "1.2.3", "1.2.3.4.5", "1.2.3.256", "01.2.3.4", "1..3.4", "1.2.3.4.", "a.b.c.d", " 1.2.3.4"}) {
        CAPTURE(std::string(bad));
        CHECK_FALSE(parse_ipv4(bad, v4));
    }
    std::array<std::uint8_t, 16> v6{};
    CHECK(parse_ipv6("::1", v6));
    CHECK(v6 == std::array<std::uint8_t, 16>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
    CHECK(parse_ipv6("::", v6));
    CHECK(v6 == std::array<std::uint8_t, 16>{});
    CHECK(parse_ipv6("2001:db8::8:800:200c:417a", v6));
    CHECK(v6 == std::array<std::uint8_t, 16>{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0x08, 0x08, 0, 0x20, 0x0c, 0x41, 0x7a});
    CHECK(parse_ipv6("1::", v6));
    CHECK(v6 == std::array<std::uint8_t, 16>{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    CHECK(parse_ipv6("::ffff:192.0.2.1", v6));
    CHECK(v6 == std::array<std::uint8_t, 16>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1});
    CHECK(parse_ipv6("1:2:3:4:5:6:7::", v6));
    CHECK(v6 == std::array<std::uint8_t, 16>{0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 0});
    for (const char* bad : {"", ":", ":::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "1::2::3", "12345::", "g::",
                            "1:2:3:4:5:6:7:8::", ":1::", "1:", "::1.2.3.4.5", "1.2.3.4::", "::1:"}) {
        CAPTURE(std::string(bad));
        CHECK_FALSE(parse_ipv6(bad, v6));
    }
}
