#ifndef MOCKAPNS_COPENSSL_SHIM_H
#define MOCKAPNS_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/bio.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/evp.h>

// OpenSSL exposes several operations only as function-like macros, which Swift cannot
// import. These thin wrappers give them a callable name; they add no behaviour.

static inline int mockapns_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

static inline int mockapns_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_max_proto_version(ctx, version);
}

static inline int mockapns_SSL_CTX_add1_chain_cert(SSL_CTX *ctx, X509 *cert) {
    return (int)SSL_CTX_add1_chain_cert(ctx, cert);
}

/// Server-side options: the server picks the cipher, and renegotiation is refused.
static inline void mockapns_SSL_CTX_set_server_options(SSL_CTX *ctx) {
    SSL_CTX_set_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_RENEGOTIATION);
}

/// Send exactly the configured certificate chain; without this OpenSSL completes the chain
/// from the trust store, which holds the roots meant for verifying clients.
static inline void mockapns_SSL_CTX_set_no_auto_chain(SSL_CTX *ctx) {
    SSL_CTX_set_mode(ctx, SSL_MODE_NO_AUTO_CHAIN);
}

static inline int mockapns_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// An empty memory BIO reports "retry" instead of end-of-file, so OpenSSL waits for more
/// bytes from the socket rather than treating a drained buffer as the peer hanging up.
static inline void mockapns_BIO_set_mem_eof_return(BIO *bio, int value) {
    (void)BIO_set_mem_eof_return(bio, value);
}

static inline void mockapns_BIO_set_retry_read(BIO *bio) {
    BIO_set_retry_read(bio);
}

static inline void mockapns_BIO_clear_retry_flags(BIO *bio) {
    BIO_clear_retry_flags(bio);
}

static inline int mockapns_BIO_flush(BIO *bio) {
    return (int)BIO_flush(bio);
}

/// A fresh ex_data index for per-connection state attached to an SSL object.
static inline int mockapns_SSL_get_ex_new_index(void) {
    return SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL);
}

static inline int mockapns_sk_X509_num(const STACK_OF(X509) *stack) {
    return sk_X509_num(stack);
}

static inline X509 *mockapns_sk_X509_value(const STACK_OF(X509) *stack, int index) {
    return sk_X509_value(stack, index);
}

#endif
