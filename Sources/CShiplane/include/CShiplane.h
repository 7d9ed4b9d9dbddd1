#ifndef SHIPLANE_CSHIPLANE_H
#define SHIPLANE_CSHIPLANE_H

#include <stddef.h>
#include <stdint.h>

// C helpers of Shiplane: MD5 of eight files at once (MD5Lanes.c).

/// 1 when this CPU and its operating system run the eight-lane kernel (x86-64 with AVX2 and
/// the YMM state enabled), else 0.
int shiplane_md5x8_available(void);

/// MD5's compression of `blocks` 64-byte blocks of eight independent messages at once: lane i
/// reads `blocks * 64` bytes from `data[i]` and updates `state[4 * i ... 4 * i + 3]` (A, B, C, D).
/// Call it only when `shiplane_md5x8_available()` returned 1.
void shiplane_md5x8_blocks(uint32_t state[32], const uint8_t *const data[8], size_t blocks);

/// MD5's compression of `blocks` 64-byte blocks of one message into `state` (A, B, C, D).
void shiplane_md5_blocks(uint32_t state[4], const uint8_t *data, size_t blocks);

// The CA bundle libgit2 parses when it is initialised, put off until a TLS connection is set up
// (DeferredCACertificates.c).

/// Parses the CA file libgit2's initialisation asked for into the chain it gave, now (once;
/// later calls do nothing). Returns mbedTLS's result: 0 or the number of certificates it could
/// not parse, negative when the file could not be read; 0 when nothing was put off.
int shiplane_ca_certificates_load(void);

/// 0: nothing was put off (libgit2 has not started, parsed its CA bundle itself, or uses another
/// TLS library); 1: the CA bundle is put off, not parsed yet; 2: it was put off and parsed since.
int shiplane_ca_certificates_state(void);

#endif
