// libgit2 as Debian builds it (with mbedTLS) parses the system's whole CA bundle when it is
// initialised (`git_libgit2_init` → `git_mbedtls_stream_global_init` →
// `mbedtls_x509_crt_parse_file`): about 5 ms of CPU on the start of every command that opens a
// repository, where only a push or a fetch over HTTPS needs the certificates.
//
// This file defines two of mbedTLS's functions itself, weakly; the dynamic loader binds libgit2's
// calls to the first definition in the program, these:
// - the first `mbedtls_x509_crt_parse_file` of the process (libgit2's initialisation: nothing
//   else in Shiplane uses mbedTLS) only notes the chain and the file, and succeeds;
// - `mbedtls_ssl_setup`, which libgit2 calls for every TLS connection before it connects, first
//   parses the noted file into that same chain (which libgit2 already gave its TLS
//   configuration), once, then does mbedTLS's work.
// A TLS connection therefore verifies against the whole bundle, as before; and were one ever set
// up some other way, its chain would be empty, so verification would fail rather than trust
// anyone. Every other call goes straight to mbedTLS. Where libgit2 uses another TLS library
// (OpenSSL, macOS's Security) nothing calls these; where mbedTLS is linked statically (the
// bundle's command) its own definitions win over these weak ones and nothing is put off.
#define _GNU_SOURCE
#include "CShiplane.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct mbedtls_x509_crt;
struct mbedtls_ssl_context;
struct mbedtls_ssl_config;
typedef int (*shiplane_parse_file_function)(struct mbedtls_x509_crt *, const char *);
typedef int (*shiplane_ssl_setup_function)(struct mbedtls_ssl_context *, const struct mbedtls_ssl_config *);

// MBEDTLS_ERR_X509_FILE_IO_ERROR and MBEDTLS_ERR_SSL_BAD_INPUT_DATA: mbedTLS's answers for a file
// it cannot read and for a call it cannot make (here: its function is not in the program).
#define SHIPLANE_X509_FILE_IO_ERROR (-0x2900)
#define SHIPLANE_SSL_BAD_INPUT_DATA (-0x7100)

static pthread_mutex_t shiplane_ca_lock = PTHREAD_MUTEX_INITIALIZER;
static int shiplane_ca_first_parse_seen = 0;
static struct mbedtls_x509_crt *shiplane_ca_chain = NULL;
static char *shiplane_ca_file = NULL;
static int shiplane_ca_deferred = 0;

static int shiplane_real_parse_file(struct mbedtls_x509_crt *chain, const char *path) {
    shiplane_parse_file_function real = (shiplane_parse_file_function)dlsym(RTLD_NEXT, "mbedtls_x509_crt_parse_file");
    if (real == NULL) return SHIPLANE_X509_FILE_IO_ERROR;
    return real(chain, path);
}

__attribute__((weak, visibility("default")))
int mbedtls_x509_crt_parse_file(struct mbedtls_x509_crt *chain, const char *path) {
    pthread_mutex_lock(&shiplane_ca_lock);
    int first = !shiplane_ca_first_parse_seen;
    shiplane_ca_first_parse_seen = 1;
    if (first && chain != NULL && path != NULL) {
        char *copy = strdup(path);
        if (copy != NULL) {
            shiplane_ca_chain = chain;
            shiplane_ca_file = copy;
            shiplane_ca_deferred = 1;
            pthread_mutex_unlock(&shiplane_ca_lock);
            return 0;
        }
    }
    pthread_mutex_unlock(&shiplane_ca_lock);
    return shiplane_real_parse_file(chain, path);
}

__attribute__((weak, visibility("default")))
int mbedtls_ssl_setup(struct mbedtls_ssl_context *ssl, const struct mbedtls_ssl_config *conf) {
    shiplane_ca_certificates_load();
    shiplane_ssl_setup_function real = (shiplane_ssl_setup_function)dlsym(RTLD_NEXT, "mbedtls_ssl_setup");
    if (real == NULL) return SHIPLANE_SSL_BAD_INPUT_DATA;
    return real(ssl, conf);
}

int shiplane_ca_certificates_load(void) {
    pthread_mutex_lock(&shiplane_ca_lock);
    int result = 0;
    if (shiplane_ca_chain != NULL) {
        result = shiplane_real_parse_file(shiplane_ca_chain, shiplane_ca_file);
        free(shiplane_ca_file);
        shiplane_ca_file = NULL;
        shiplane_ca_chain = NULL;
    }
    pthread_mutex_unlock(&shiplane_ca_lock);
    return result;
}

int shiplane_ca_certificates_state(void) {
    pthread_mutex_lock(&shiplane_ca_lock);
    int state = shiplane_ca_chain != NULL ? 1 : (shiplane_ca_deferred ? 2 : 0);
    pthread_mutex_unlock(&shiplane_ca_lock);
    return state;
}
