// Tests of parley/net/proxy.hpp: which proxy the environment gives for a target, NO_PROXY
// (names and ports also against Python's urllib, through tests/net/proxy_reference.py), and the
// Proxy-Authorization header.
#include <parley/net/proxy.hpp>

#include "../harness/subprocess.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

using parley::net::no_proxy_matches;
using parley::net::parse_url;
using parley::net::proxy_authorization;
using parley::net::proxy_for;
using parley::net::url;

namespace {

// An environment for proxy_for: the variables in `vars`, nothing else.
struct fake_env {
    std::map<std::string, std::string> vars;
    const char* operator()(const char* name) const {
        const auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
    }
};

// proxy_for(target) as "scheme://host:port" ("none" when no proxy).
std::string proxy_text(const std::string& target, const fake_env& env) {
    const auto p = proxy_for(parse_url(target), env);
    return p ? p->scheme + "://" + p->authority() : "none";
}

}  // namespace

TEST_CASE("proxy_for: the variable for the target's scheme, then ALL_PROXY") {
    const fake_env env{{{"HTTPS_PROXY", "http://secure-proxy:3128"},
                        {"HTTP_PROXY", "http://plain-proxy:8080"},
                        {"ALL_PROXY", "http://all-proxy:1"}}};
    CHECK(proxy_text("https://api.openai.com/v1", env) == "http://secure-proxy:3128");
    CHECK(proxy_text("http://localhost:11434/v1", env) == "http://plain-proxy:8080");

    CHECK(proxy_text("https://x", fake_env{{{"ALL_PROXY", "http://all-proxy:1"}}}) == "http://all-proxy:1");
    CHECK(proxy_text("http://x", fake_env{{{"all_proxy", "http://all-proxy:1"}}}) == "http://all-proxy:1");
    // https_proxy is not used for http targets, nor http_proxy for https ones.
    CHECK(proxy_text("http://x", fake_env{{{"HTTPS_PROXY", "http://p:1"}}}) == "none");
    CHECK(proxy_text("https://x", fake_env{{{"HTTP_PROXY", "http://p:1"}}}) == "none");
    CHECK(proxy_text("https://x", fake_env{}) == "none");
    // An empty value is no proxy from that variable: ALL_PROXY is asked.
    CHECK(proxy_text("https://x", fake_env{{{"HTTPS_PROXY", ""}, {"ALL_PROXY", "http://all:2"}}}) == "http://all:2");
    CHECK(proxy_text("https://x", fake_env{{{"HTTPS_PROXY", ""}}}) == "none");
}

TEST_CASE("proxy_for: the lower-case spelling wins, even when empty") {
    CHECK(proxy_text("https://x", fake_env{{{"HTTPS_PROXY", "http://upper:1"}, {"https_proxy", "http://lower:2"}}}) ==
          "http://lower:2");
    CHECK(proxy_text("http://x", fake_env{{{"HTTP_PROXY", "http://upper:1"}, {"http_proxy", "http://lower:2"}}}) ==
          "http://lower:2");
    CHECK(proxy_text("http://x", fake_env{{{"ALL_PROXY", "http://upper:1"}, {"all_proxy", "http://lower:2"}}}) ==
          "http://lower:2");
    // https_proxy="" hides HTTPS_PROXY; then all_proxy/ALL_PROXY decide.
    CHECK(proxy_text("https://x", fake_env{{{"HTTPS_PROXY", "http://upper:1"}, {"https_proxy", ""}}}) == "none");
    CHECK(proxy_text("https://x", fake_env{{{"HTTPS_PROXY", "http://upper:1"}, {"https_proxy", ""}, {"ALL_PROXY", "http://a:3"}}}) ==
          "http://a:3");
    // no_proxy likewise.
    const fake_env env{{{"HTTPS_PROXY", "http://p:1"}, {"NO_PROXY", "example.com"}, {"no_proxy", "other.org"}}};
    CHECK(proxy_text("https://example.com", env) == "http://p:1");
    CHECK(proxy_text("https://other.org", env) == "none");
}

TEST_CASE("proxy_for: HTTP_PROXY in upper case is ignored in a CGI program") {
    fake_env cgi{{{"REQUEST_METHOD", "GET"}, {"HTTP_PROXY", "http://injected:1"}}};
    CHECK(proxy_text("http://x", cgi) == "none");
    cgi.vars["http_proxy"] = "http://configured:2";
    CHECK(proxy_text("http://x", cgi) == "http://configured:2");
    CHECK(proxy_text("https://x", fake_env{{{"REQUEST_METHOD", "GET"}, {"HTTPS_PROXY", "http://s:3"}}}) == "http://s:3");
}

TEST_CASE("proxy_for: NO_PROXY exclusions, and loopback is not excluded by itself") {
    const fake_env env{{{"HTTPS_PROXY", "http://p:3128"},
                        {"HTTP_PROXY", "http://p:3128"},
                        {"NO_PROXY", "internal.corp, .example.com,10.0.0.0/8 [::1]:8080,api.local:8443"}}};
    CHECK(proxy_text("https://api.openai.com", env) == "http://p:3128");
    CHECK(proxy_text("https://internal.corp/v1", env) == "none");
    CHECK(proxy_text("https://llm.internal.corp/v1", env) == "none");
    CHECK(proxy_text("https://example.com", env) == "none");
    CHECK(proxy_text("https://a.b.example.com", env) == "none");
    CHECK(proxy_text("https://notexample.com", env) == "http://p:3128");
    CHECK(proxy_text("http://10.1.2.3:8000", env) == "none");
    CHECK(proxy_text("http://11.1.2.3:8000", env) == "http://p:3128");
    CHECK(proxy_text("http://[::1]:8080", env) == "none");
    CHECK(proxy_text("http://[::1]:8081", env) == "http://p:3128");
    CHECK(proxy_text("https://api.local:8443", env) == "none");
    CHECK(proxy_text("https://api.local", env) == "http://p:3128");
    // Not listed: loopback goes through the proxy.
    CHECK(proxy_text("http://localhost:11434", env) == "http://p:3128");
    CHECK(proxy_text("http://127.0.0.1:11434", env) == "http://p:3128");
    CHECK(proxy_text("http://[::1]:11434", env) == "http://p:3128");
    CHECK(proxy_text("http://localhost", fake_env{{{"HTTP_PROXY", "http://p:1"}, {"NO_PROXY", "*"}}}) == "none");
}

TEST_CASE("proxy_for: the proxy URL") {
    const auto p = proxy_for(parse_url("https://api.openai.com"),
                             fake_env{{{"HTTPS_PROXY", "http://alice:s%3Acret@proxy.corp:3128"}}});
    REQUIRE(p);
    CHECK(p->scheme == "http");
    CHECK(p->host == "proxy.corp");
    CHECK(p->port == 3128);
    CHECK(p->user == "alice");
    CHECK(p->password == "s:cret");
    // Without a scheme: http; the port defaults to the scheme's.
    CHECK(proxy_text("https://x", fake_env{{{"HTTPS_PROXY", "proxy.corp:3128"}}}) == "http://proxy.corp:3128");
    CHECK(proxy_for(parse_url("https://x"), fake_env{{{"HTTPS_PROXY", "proxy.corp"}}})->port == 80);
    CHECK(proxy_for(parse_url("https://x"), fake_env{{{"HTTPS_PROXY", "https://proxy.corp"}}})->port == 443);
    CHECK(proxy_for(parse_url("https://x"), fake_env{{{"HTTPS_PROXY", "https://proxy.corp"}}})->tls());

    // A value that is not an http(s) URL is an error naming the variable, never the password.
    try {
        (void)proxy_for(parse_url("https://x"), fake_env{{{"ALL_PROXY", "socks5://bob:hunter2@socks:1080"}}});
        FAIL("no exception");
    } catch (const parley::error& e) {
        CHECK(e.code() == parley::errc::invalid_argument);
        CHECK(std::string(e.what()) ==
              "the proxy setting ALL_PROXY is not usable: invalid URL 'socks5://bob:***@socks:1080': unknown scheme "
              "'socks5' (expected http or https)");
    }
    CHECK_THROWS_WITH_AS(proxy_for(parse_url("http://x"), fake_env{{{"http_proxy", "http://pr oxy:1"}}}),
                         "the proxy setting http_proxy is not usable: invalid URL 'http://pr oxy:1': a space at offset 9 "
                         "(write it as %20)",
                         parley::error);
    // ...but only when the proxy would be used.
    CHECK(proxy_text("https://x", fake_env{{{"ALL_PROXY", "socks5://s:1"}, {"NO_PROXY", "x"}}}) == "none");
}

TEST_CASE("proxy_for: std::getenv by default") {
    // The test's own environment: set a variable proxy_for reads, for a host nobody proxies.
    ::setenv("no_proxy", "parley-test-host.invalid", 1);
    ::setenv("https_proxy", "http://parley-test-proxy:9", 1);
    CHECK(proxy_for(parse_url("https://parley-test-host.invalid")) == std::nullopt);
    const auto p = proxy_for(parse_url("https://other.invalid"));
    REQUIRE(p);
    CHECK(p->host == "parley-test-proxy");
    ::unsetenv("no_proxy");
    ::unsetenv("https_proxy");
}

TEST_CASE("no_proxy_matches: names, subdomains, ports, case, separators") {
    CHECK(no_proxy_matches("example.com", "example.com", 443));
    CHECK(no_proxy_matches("example.com", "api.example.com", 443));
    CHECK(no_proxy_matches(".example.com", "example.com", 443));
    CHECK(no_proxy_matches(".example.com", "api.example.com", 443));
    CHECK(no_proxy_matches("*.example.com", "api.example.com", 443));
    CHECK_FALSE(no_proxy_matches("example.com", "badexample.com", 443));
    CHECK_FALSE(no_proxy_matches("api.example.com", "example.com", 443));
    CHECK_FALSE(no_proxy_matches("example.com", "example.com.evil.org", 443));
    CHECK(no_proxy_matches("EXAMPLE.com", "Api.Example.COM", 443));
    CHECK(no_proxy_matches("example.com.", "example.com", 443));
    CHECK(no_proxy_matches("example.com", "example.com.", 443));
    CHECK(no_proxy_matches("*", "anything", 1));
    CHECK(no_proxy_matches(" a.org , * ", "anything", 1));
    CHECK(no_proxy_matches("a.org b.org\tc.org", "c.org", 1));
    CHECK(no_proxy_matches("a.org,,b.org", "b.org", 1));
    CHECK_FALSE(no_proxy_matches("", "example.com", 443));
    CHECK_FALSE(no_proxy_matches(" , ", "example.com", 443));
    CHECK_FALSE(no_proxy_matches(".", "example.com", 443));
    CHECK_FALSE(no_proxy_matches("example.com", "", 443));
    // Ports.
    CHECK(no_proxy_matches("example.com:8443", "api.example.com", 8443));
    CHECK_FALSE(no_proxy_matches("example.com:8443", "api.example.com", 443));
    CHECK_FALSE(no_proxy_matches("example.com:", "example.com", 443));
    CHECK_FALSE(no_proxy_matches("example.com:x", "example.com", 443));
    CHECK_FALSE(no_proxy_matches("example.com:0", "example.com", 0));
    CHECK_FALSE(no_proxy_matches("example.com:99999", "example.com", 34463));
    // Names are not resolved.
    CHECK_FALSE(no_proxy_matches("localhost", "127.0.0.1", 80));
    CHECK_FALSE(no_proxy_matches("127.0.0.1", "localhost", 80));
}

TEST_CASE("no_proxy_matches: IP addresses and CIDR blocks") {
    CHECK(no_proxy_matches("127.0.0.1", "127.0.0.1", 80));
    CHECK_FALSE(no_proxy_matches("127.0.0.1", "127.0.0.2", 80));
    CHECK(no_proxy_matches("127.0.0.1:8080", "127.0.0.1", 8080));
    CHECK_FALSE(no_proxy_matches("127.0.0.1:8080", "127.0.0.1", 80));
    // An address is not a domain suffix.
    CHECK_FALSE(no_proxy_matches("0.0.1", "127.0.0.1", 80));
    // IPv6, with or without brackets on either side, in any spelling.
    CHECK(no_proxy_matches("::1", "::1", 80));
    CHECK(no_proxy_matches("::1", "[::1]", 80));
    CHECK(no_proxy_matches("[::1]", "::1", 80));
    CHECK(no_proxy_matches("0:0:0:0:0:0:0:1", "::1", 80));
    CHECK(no_proxy_matches("2001:DB8::1", "2001:db8:0::1", 80));
    CHECK_FALSE(no_proxy_matches("::1", "::2", 80));
    CHECK(no_proxy_matches("[::1]:8080", "::1", 8080));
    CHECK_FALSE(no_proxy_matches("[::1]:8080", "::1", 8081));
    CHECK_FALSE(no_proxy_matches("[::1", "::1", 80));
    // CIDR.
    CHECK(no_proxy_matches("10.0.0.0/8", "10.255.3.4", 80));
    CHECK_FALSE(no_proxy_matches("10.0.0.0/8", "11.0.0.1", 80));
    CHECK(no_proxy_matches("192.168.0.0/16", "192.168.77.1", 80));
    CHECK_FALSE(no_proxy_matches("192.168.0.0/16", "192.169.0.1", 80));
    CHECK(no_proxy_matches("172.16.0.0/12", "172.31.255.255", 80));
    CHECK_FALSE(no_proxy_matches("172.16.0.0/12", "172.32.0.0", 80));
    CHECK(no_proxy_matches("10.1.2.3/32", "10.1.2.3", 80));
    CHECK_FALSE(no_proxy_matches("10.1.2.3/32", "10.1.2.4", 80));
    CHECK(no_proxy_matches("0.0.0.0/0", "8.8.8.8", 80));
    CHECK_FALSE(no_proxy_matches("0.0.0.0/0", "::1", 80));
    CHECK(no_proxy_matches("::1/128", "::1", 80));
    CHECK(no_proxy_matches("[::1]/128", "[::1]", 80));
    CHECK_FALSE(no_proxy_matches("::1/128", "::2", 80));
    CHECK(no_proxy_matches("fd00::/8", "fd12:3456::1", 80));
    CHECK_FALSE(no_proxy_matches("fd00::/8", "fe80::1", 80));
    CHECK(no_proxy_matches("2001:db8::/33", "2001:db8:7fff::1", 80));
    CHECK_FALSE(no_proxy_matches("2001:db8::/33", "2001:db8:8000::1", 80));
    // Malformed blocks cover nothing; a block covers no name.
    CHECK_FALSE(no_proxy_matches("10.0.0.0/33", "10.0.0.1", 80));
    CHECK_FALSE(no_proxy_matches("10.0.0.0/", "10.0.0.1", 80));
    CHECK_FALSE(no_proxy_matches("10.0.0.0/x", "10.0.0.1", 80));
    CHECK_FALSE(no_proxy_matches("::/129", "::1", 80));
    CHECK_FALSE(no_proxy_matches("example.com/8", "example.com", 80));
    CHECK_FALSE(no_proxy_matches("10.0.0.0/8", "ten.example", 80));
}

TEST_CASE("no_proxy_matches: names and ports agree with Python's urllib") {
    // Python splits on commas only and knows no CIDR blocks or IPv6 forms: the cases here are
    // those its rules are meant for.
    const std::vector<std::string> lists = {"example.com",       ".example.com",        "example.com:8443",
                                            "EXAMPLE.com",       "localhost,127.0.0.1", "a.org, api.example.com",
                                            "*",                 "example.com.au",      "internal,corp.local:443",
                                            "foo.example.com:80"};
    const std::vector<std::string> hosts = {"example.com",  "api.example.com", "badexample.com", "example.com.au",
                                            "localhost",    "127.0.0.1",       "other.org",      "Api.EXAMPLE.com",
                                            "x.corp.local", "internal",        "foo.example.com", "a.org"};
    const std::vector<std::uint16_t> ports = {80, 443, 8443};
    std::vector<std::tuple<std::string, std::string, std::uint16_t>> questions;
    for (const auto& l : lists)
        for (const auto& h : hosts)
            for (auto p : ports) questions.emplace_back(l, h, p);

    const auto in = subprocess::temp_path("no-proxy-questions.tsv");
    const auto out = subprocess::temp_path("no-proxy-answers.txt");
    {
        std::ofstream f(in);
        for (const auto& [l, h, p] : questions) f << l << '\t' << h << '\t' << p << '\n';
    }
    const char* env_python = std::getenv("PARLEY_PYTHON");
    const std::string python = env_python && *env_python ? env_python : "python3";
    const std::string cmd = subprocess::shell_quote(python) + " " +
                            subprocess::shell_quote(subprocess::source_dir() + "/tests/net/proxy_reference.py") + " " +
                            subprocess::shell_quote(in.string()) + " " + subprocess::shell_quote(out.string());
    REQUIRE_MESSAGE(std::system(cmd.c_str()) == 0, "failed: " << cmd);
    std::ifstream answers(out);
    std::size_t checked = 0, bypassed = 0;
    for (const auto& q : questions) {
        std::string answer;
        REQUIRE(std::getline(answers, answer));
        const std::string& list = std::get<0>(q);
        const std::string& host = std::get<1>(q);
        const std::uint16_t port = std::get<2>(q);
        CAPTURE(list);
        CAPTURE(host);
        CAPTURE(port);
        CHECK(no_proxy_matches(list, host, port) == (answer == "1"));
        ++checked;
        if (answer == "1") ++bypassed;
    }
    CHECK(checked == questions.size());
    CHECK(bypassed > 20);
    CHECK(bypassed < checked / 2);
    std::filesystem::remove(in);
    std::filesystem::remove(out);
}

TEST_CASE("proxy_authorization: Basic with base64(user:password)") {
    // Values from `printf 'user:pass' | base64` and RFC 7617's example.
    CHECK(proxy_authorization(parse_url("http://user:pass@p:1")) == "Basic dXNlcjpwYXNz");
    CHECK(proxy_authorization(parse_url("http://Aladdin:open%20sesame@p:1")) == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
    // Decoded before encoding: "al\xC3\xAFce:p@ss:w" (`printf 'al\xc3\xafce:p@ss:w' | base64`).
    CHECK(proxy_authorization(parse_url("http://al%C3%AFce:p%40ss%3Aw@p:1")) == "Basic YWzDr2NlOnBAc3M6dw==");
    // Padding: "a:" and "ab:" (`printf 'a:' | base64`: YTo=; 'ab:': YWI6).
    CHECK(proxy_authorization(parse_url("http://a@p:1")) == "Basic YTo=");
    CHECK(proxy_authorization(parse_url("http://ab@p:1")) == "Basic YWI6");
    CHECK(proxy_authorization(parse_url("http://:x@p:1")) == "Basic Ong=");
    CHECK(proxy_authorization(parse_url("http://p:1")) == "");
    CHECK(proxy_authorization(url{}) == "");
}
