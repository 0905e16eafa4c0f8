#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/crypto.h>

// Inline wrappers for the function-like macros (and the one variadic) that Swift cannot import.
// Each is prefixed with the module name, as swift-nio's C leaves do.

/// `OPENSSL_free` is a macro over `CRYPTO_free` that passes __FILE__/__LINE__.
static inline void COpenSSL_free(void *pointer) {
    OPENSSL_free(pointer);
}

/// `BIO_get_mem_data` is a macro over `BIO_ctrl`: points `*data` at a memory BIO's bytes
/// (owned by the BIO) and returns their count.
static inline long COpenSSL_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

/// `EVP_EC_gen` is a macro over the variadic `EVP_PKEY_Q_keygen`: a new key on a named curve.
static inline EVP_PKEY *COpenSSL_EVP_EC_gen(const char *curve) {
    return EVP_EC_gen(curve);
}

/// `X509V3_set_ctx_nodb` is a statement macro: an extension context without a config database.
static inline void COpenSSL_X509V3_set_ctx_nodb(X509V3_CTX *context) {
    X509V3_set_ctx_nodb(context);
}

/// `SSL_set_tlsext_host_name` is a macro over `SSL_ctrl`: the server name (SNI) a client sends.
static inline int COpenSSL_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

#endif
