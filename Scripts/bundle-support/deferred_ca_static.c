/*
 * libgit2's CA bundle put off until a TLS connection needs it, where mbedTLS is linked statically
 * (bin/shiplane and lane programs built from the bundle, Scripts/install's command).
 *
 * libgit2 as Debian builds it (with mbedTLS) parses the system's whole CA bundle when it starts
 * (git_libgit2_init -> git_mbedtls_stream_global_init -> mbedtls_x509_crt_parse_file): about
 * 6.5 ms at the start of every command that opens a repository, where only a push or a fetch over
 * HTTPS needs the certificates. With the shared libraries, Sources/CShiplane/DeferredCACertificates.c
 * overrides the two functions weakly; a static mbedTLS's own definitions win over weak ones, so
 * bundle-support/static-git renames libgit2's two calls instead (objcopy --redefine-sym on its
 * archive) to the functions below, which call mbedTLS's:
 * - the first shiplane_static_x509_crt_parse_file of the process (libgit2's initialisation) only
 *   notes the chain and the file, and succeeds;
 * - shiplane_static_ssl_setup, which libgit2 calls for every TLS connection before it connects,
 *   first parses the noted file into that same chain (which libgit2 already gave its TLS
 *   configuration), once, then sets the session up.
 * A TLS connection therefore verifies against the whole bundle, as before. If the parse fails,
 * the session is not set up (mbedTLS's error goes back to libgit2), so nothing connects on an
 * empty chain. Every later parse (a CA file or folder set through libgit2's options) goes
 * straight to mbedTLS.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct mbedtls_x509_crt;
struct mbedtls_ssl_context;
struct mbedtls_ssl_config;
int mbedtls_x509_crt_parse_file(struct mbedtls_x509_crt *chain, const char *path);
int mbedtls_ssl_setup(struct mbedtls_ssl_context *ssl, const struct mbedtls_ssl_config *conf);

int shiplane_static_x509_crt_parse_file(struct mbedtls_x509_crt *chain, const char *path);
int shiplane_static_ssl_setup(struct mbedtls_ssl_context *ssl, const struct mbedtls_ssl_config *conf);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int first_parse_seen = 0;
static struct mbedtls_x509_crt *deferred_chain = NULL;
static char *deferred_file = NULL;

int shiplane_static_x509_crt_parse_file(struct mbedtls_x509_crt *chain, const char *path) {
    pthread_mutex_lock(&lock);
    int first = !first_parse_seen;
    first_parse_seen = 1;
    if (first && chain != NULL && path != NULL) {
        char *copy = strdup(path);
        if (copy != NULL) {
            deferred_chain = chain;
            deferred_file = copy;
            pthread_mutex_unlock(&lock);
            return 0;
        }
    }
    pthread_mutex_unlock(&lock);
    return mbedtls_x509_crt_parse_file(chain, path);
}

int shiplane_static_ssl_setup(struct mbedtls_ssl_context *ssl, const struct mbedtls_ssl_config *conf) {
    pthread_mutex_lock(&lock);
    int result = 0;
    if (deferred_chain != NULL) {
        result = mbedtls_x509_crt_parse_file(deferred_chain, deferred_file);
        free(deferred_file);
        deferred_file = NULL;
        deferred_chain = NULL;
    }
    pthread_mutex_unlock(&lock);
    if (result < 0) return result;
    return mbedtls_ssl_setup(ssl, conf);
}
