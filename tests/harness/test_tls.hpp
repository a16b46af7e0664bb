// tests/harness/test_tls.hpp: certificates made at run time for TLS tests (OpenSSL 3): a
// self-signed certificate authority and a server certificate it signs for given names, with
// their private keys, as PEM; and temporary files to hand a PEM to code that wants a path.
#ifndef PARLEY_TESTS_HARNESS_TEST_TLS_HPP
#define PARLEY_TESTS_HARNESS_TEST_TLS_HPP

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace parley::test {

/// A certificate authority and a server certificate signed by it, each with its private key.
struct test_certificates {
    std::string ca_certificate_pem;      ///< self-signed, CA:TRUE
    std::string ca_private_key_pem;
    std::string server_certificate_pem;  ///< signed by the CA, with the subjectAltNames asked for
    std::string server_private_key_pem;

    /// The chain a server presents: its certificate, then the CA's.
    std::string server_chain_pem() const { return server_certificate_pem + ca_certificate_pem; }
};

namespace test_tls_detail {

struct pkey_free {
    void operator()(EVP_PKEY* p) const noexcept { EVP_PKEY_free(p); }
};
struct x509_free {
    void operator()(X509* p) const noexcept { X509_free(p); }
};
struct bio_free {
    void operator()(BIO* p) const noexcept { BIO_free(p); }
};
using pkey_ptr = std::unique_ptr<EVP_PKEY, pkey_free>;
using x509_ptr = std::unique_ptr<X509, x509_free>;
using bio_ptr = std::unique_ptr<BIO, bio_free>;

inline void check(bool ok, const char* what) {
    if (ok) return;
    char text[256] = "no OpenSSL error";
    if (const unsigned long e = ERR_get_error()) ERR_error_string_n(e, text, sizeof text);
    ERR_clear_error();
    throw std::runtime_error(std::string("test certificates: ") + what + ": " + text);
}

inline pkey_ptr new_key() {
    pkey_ptr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
    check(key != nullptr, "EC key generation");
    return key;
}

inline void add_extension(X509* cert, X509V3_CTX* ctx, int nid, const std::string& value) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, ctx, nid, value.c_str());
    check(ext != nullptr, "certificate extension");
    const int added = X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
    check(added == 1, "adding a certificate extension");
}

/// A certificate for `key` named `common_name`, signed by issuer / issuer_key (itself when null).
inline x509_ptr new_certificate(EVP_PKEY* key, const std::string& common_name, X509* issuer, EVP_PKEY* issuer_key,
                                const std::vector<std::pair<int, std::string>>& extensions) {
    x509_ptr cert(X509_new());
    check(cert != nullptr, "X509_new");
    check(X509_set_version(cert.get(), 2) == 1, "certificate version");
    unsigned char serial_bytes[16];
    check(RAND_bytes(serial_bytes, sizeof serial_bytes) == 1, "random serial number");
    serial_bytes[0] &= 0x7f;  // positive
    BIGNUM* serial = BN_bin2bn(serial_bytes, sizeof serial_bytes, nullptr);
    check(serial != nullptr && BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(cert.get())) != nullptr, "serial number");
    BN_free(serial);
    check(X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) != nullptr, "notBefore");
    check(X509_gmtime_adj(X509_getm_notAfter(cert.get()), 30L * 24 * 3600) != nullptr, "notAfter");
    check(X509_set_pubkey(cert.get(), key) == 1, "public key");
    X509_NAME* name = X509_get_subject_name(cert.get());
    check(X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("parley tests"), -1,
                                     -1, 0) == 1,
          "subject O");
    check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                     reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1, 0) == 1,
          "subject CN");
    check(X509_set_issuer_name(cert.get(), issuer ? X509_get_subject_name(issuer) : name) == 1, "issuer name");
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer ? issuer : cert.get(), cert.get(), nullptr, nullptr, 0);
    for (const auto& [nid, value] : extensions) add_extension(cert.get(), &ctx, nid, value);
    check(X509_sign(cert.get(), issuer_key ? issuer_key : key, EVP_sha256()) > 0, "signing the certificate");
    return cert;
}

inline std::string pem_of(X509* cert) {
    bio_ptr bio(BIO_new(BIO_s_mem()));
    check(bio && PEM_write_bio_X509(bio.get(), cert) == 1, "certificate to PEM");
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<std::size_t>(size));
}

inline std::string pem_of(EVP_PKEY* key) {
    bio_ptr bio(BIO_new(BIO_s_mem()));
    check(bio && PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) == 1, "key to PEM");
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<std::size_t>(size));
}

}  // namespace test_tls_detail

/// A new CA (EC P-256, valid from an hour ago for 30 days) and a server certificate it signs,
/// whose subjectAltName lists `subject_alt_names` in OpenSSL's syntax ("DNS:localhost",
/// "IP:127.0.0.1"). Throws std::runtime_error naming the OpenSSL step that failed.
inline test_certificates make_test_certificates(const std::vector<std::string>& subject_alt_names = {"DNS:localhost",
                                                                                                      "IP:127.0.0.1"}) {
    using namespace test_tls_detail;
    if (subject_alt_names.empty()) throw std::invalid_argument("test certificates: no subjectAltName given");
    const pkey_ptr ca_key = new_key();
    const x509_ptr ca = new_certificate(ca_key.get(), "parley test CA", nullptr, nullptr,
                                        {{NID_basic_constraints, "critical,CA:TRUE"},
                                         {NID_key_usage, "critical,keyCertSign,cRLSign"},
                                         {NID_subject_key_identifier, "hash"},
                                         {NID_authority_key_identifier, "keyid:always"}});
    std::string names;
    for (const auto& n : subject_alt_names) names += (names.empty() ? "" : ",") + n;
    const std::string& first = subject_alt_names.front();
    const std::string common_name = first.substr(first.find(':') == std::string::npos ? 0 : first.find(':') + 1);
    const pkey_ptr key = new_key();
    const x509_ptr cert = new_certificate(key.get(), common_name, ca.get(), ca_key.get(),
                                          {{NID_basic_constraints, "critical,CA:FALSE"},
                                           {NID_key_usage, "critical,digitalSignature,keyEncipherment"},
                                           {NID_ext_key_usage, "serverAuth"},
                                           {NID_subject_key_identifier, "hash"},
                                           {NID_authority_key_identifier, "keyid,issuer"},
                                           {NID_subject_alt_name, names}});
    return {pem_of(ca.get()), pem_of(ca_key.get()), pem_of(cert.get()), pem_of(key.get())};
}

/// A file in the temporary directory, removed when the object goes away.
class temp_file {
public:
    /// Writes `content` to a new file whose name ends with `suffix`; throws std::runtime_error
    /// when it cannot.
    explicit temp_file(std::string_view content, std::string_view suffix = ".pem") {
        static std::mt19937_64 rng{std::random_device{}()};
        char name[48];
        std::snprintf(name, sizeof name, "parley-test-%016llx", static_cast<unsigned long long>(rng()));
        path_ = std::filesystem::temp_directory_path() / (std::string(name) + std::string(suffix));
        std::ofstream out(path_, std::ios::binary);
        out.write(content.data(), static_cast<std::streamsize>(content.size()));
        if (!out) throw std::runtime_error("cannot write " + path_.string());
    }
    temp_file(const temp_file&) = delete;
    temp_file& operator=(const temp_file&) = delete;
    ~temp_file() {
        std::error_code ignored;
        std::filesystem::remove(path_, ignored);
    }
    /// Where the file is.
    const std::filesystem::path& path() const noexcept { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace parley::test

#endif
