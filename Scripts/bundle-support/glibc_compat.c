/*
 * What the bundle's code needs from glibc releases newer than 2.31, which the bundle is linked
 * against (Scripts/bundle-support/old-glibc-root): bin/shiplane and lane programs then start on
 * glibc 2.31 and later.
 *
 * - __libc_single_threaded (glibc 2.32): GCC 12's libstdc++ reads it to skip atomic reference
 *   counting while a process has one thread. 0 says "maybe several threads": always atomic, which
 *   is correct everywhere (Shiplane runs threads from its first moments anyway).
 * - arc4random (glibc 2.36): Foundation's random numbers. The kernel's getrandom(2) (glibc 2.25,
 *   Linux 3.17) gives the same quality: it blocks only until the kernel's pool is first seeded.
 *
 * The executable's own definitions are used even where the running glibc has these symbols too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/types.h>
#include <unistd.h>

char __libc_single_threaded = 0;

uint32_t arc4random(void) {
    uint32_t value = 0;
    size_t filled = 0;
    while (filled < sizeof value) {
        ssize_t got = getrandom((char *)&value + filled, sizeof value - filled, 0);
        if (got > 0) filled += (size_t)got;
        else if (got < 0 && errno == ENOSYS) {
            /* A kernel before 3.17: the device, as glibc's own arc4random falls back to it. */
            int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
            if (fd < 0) abort();
            while (filled < sizeof value) {
                ssize_t read_now = read(fd, (char *)&value + filled, sizeof value - filled);
                if (read_now > 0) filled += (size_t)read_now;
                else if (read_now < 0 && errno == EINTR) continue;
                else abort();
            }
            close(fd);
        } else if (got < 0 && errno != EINTR) {
            /* glibc's arc4random ends the process when no randomness can be had: so does this. */
            abort();
        }
    }
    return value;
}
