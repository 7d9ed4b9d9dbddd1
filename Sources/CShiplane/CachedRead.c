// A read that never waits for the disk, so that an event loop can read what is in memory.
#if defined(__linux__)
#define _GNU_SOURCE
#endif
#include "CShiplane.h"

#include <errno.h>
#include <sys/uio.h>

#if defined(__linux__) && defined(RWF_NOWAIT)
ssize_t shiplane_pread_cached(int descriptor, void *buffer, size_t count, off_t offset) {
    struct iovec vector = {.iov_base = buffer, .iov_len = count};
    return preadv2(descriptor, &vector, 1, offset, RWF_NOWAIT);
}
#else
ssize_t shiplane_pread_cached(int descriptor, void *buffer, size_t count, off_t offset) {
    (void)descriptor;
    (void)buffer;
    (void)count;
    (void)offset;
    errno = ENOSYS;
    return -1;
}
#endif
