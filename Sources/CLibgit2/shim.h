#ifndef SHIPLANE_CLIBGIT2_SHIM_H
#define SHIPLANE_CLIBGIT2_SHIM_H
#include <git2.h>
#include <git2/sys/repository.h>

/* git_libgit2_opts is variadic, which Swift cannot call: one wrapper per option we use. */
static inline int shiplane_set_owner_validation(int enabled) {
    return git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, enabled);
}

static inline int shiplane_set_strict_hash_verification(int enabled) {
    return git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, enabled);
}

/* Turns libgit2's object cache on or off for the process (on by default, up to 256 MiB). */
static inline int shiplane_set_caching(int enabled) {
    return git_libgit2_opts(GIT_OPT_ENABLE_CACHING, enabled);
}


/* How much of the pack files is mapped at once: the window size and the total. Takes effect for
   packs opened afterwards. */
static inline int shiplane_set_mwindow_limits(size_t window, size_t mapped) {
    int result = git_libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE, window);
    if (result < 0) return result;
    return git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, mapped);
}
#endif
