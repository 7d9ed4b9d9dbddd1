/*
 * The GSSAPI functions libgit2 calls (Kerberos "Negotiate" authentication over HTTPS), loaded on
 * demand: Scripts/bundle links libgit2 statically into bin/shiplane and into lane programs, and
 * this file stands in for libgssapi_krb5 there. The first call dlopen()s the system's
 * libgssapi_krb5.so.2 and forwards to it; without one, each call fails with GSS_S_FAILURE, which
 * libgit2 reports as Negotiate being unavailable (other authentication is unaffected).
 *
 * Linking libgssapi_krb5 itself would load it and its five libraries (krb5, k5crypto, com_err,
 * krb5support, keyutils) at every start, for an authentication scheme a release run seldom uses.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

typedef unsigned int OM_uint32;
#define SHIPLANE_GSS_S_FAILURE (13u << 16)

/* libgit2 passes this name type to gss_import_name; it is swapped for the library's own. */
static char placeholder_oid;
void *GSS_C_NT_HOSTBASED_SERVICE = &placeholder_oid;

static void *library;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    library = dlopen("libgssapi_krb5.so.2", RTLD_NOW | RTLD_LOCAL);
}

static void *resolve(const char *name) {
    pthread_once(&once, load);
    return library ? dlsym(library, name) : NULL;
}

#define FORWARD(name, parameters, arguments)                                  \
    OM_uint32 name parameters {                                               \
        OM_uint32 (*real) parameters = (OM_uint32 (*) parameters)resolve(#name); \
        if (!real) {                                                          \
            if (minor) *minor = 0;                                            \
            return SHIPLANE_GSS_S_FAILURE;                                    \
        }                                                                     \
        return real arguments;                                                \
    }

FORWARD(gss_delete_sec_context, (OM_uint32 *minor, void *context, void *token), (minor, context, token))
FORWARD(gss_display_status,
        (OM_uint32 *minor, OM_uint32 status, int type, void *mechanism, OM_uint32 *context, void *text),
        (minor, status, type, mechanism, context, text))
FORWARD(gss_indicate_mechs, (OM_uint32 *minor, void *mechanisms), (minor, mechanisms))
FORWARD(gss_init_sec_context,
        (OM_uint32 *minor, void *credential, void *context, void *target, void *mechanism, OM_uint32 flags,
         OM_uint32 time, void *bindings, void *input, void *actual, void *output, OM_uint32 *returned,
         OM_uint32 *remaining),
        (minor, credential, context, target, mechanism, flags, time, bindings, input, actual, output, returned,
         remaining))
FORWARD(gss_release_buffer, (OM_uint32 *minor, void *buffer), (minor, buffer))
FORWARD(gss_release_name, (OM_uint32 *minor, void *name), (minor, name))
FORWARD(gss_release_oid_set, (OM_uint32 *minor, void *set), (minor, set))

OM_uint32 gss_import_name(OM_uint32 *minor, void *buffer, void *type, void *name) {
    OM_uint32 (*real)(OM_uint32 *, void *, void *, void *) =
        (OM_uint32 (*)(OM_uint32 *, void *, void *, void *))resolve("gss_import_name");
    if (!real) {
        if (minor) *minor = 0;
        return SHIPLANE_GSS_S_FAILURE;
    }
    if (type == &placeholder_oid) {
        void **hostbased = (void **)resolve("GSS_C_NT_HOSTBASED_SERVICE");
        if (!hostbased) {
            if (minor) *minor = 0;
            return SHIPLANE_GSS_S_FAILURE;
        }
        type = *hostbased;
    }
    return real(minor, buffer, type, name);
}
