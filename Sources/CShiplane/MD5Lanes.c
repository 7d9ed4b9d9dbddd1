// MD5 of eight messages at once (x86-64 AVX2), and of one.
//
// MD5 is a chain of 64 dependent steps per block: one message cannot go faster than the latency
// of that chain (about 5 cycles a byte). Eight messages side by side, one per 32-bit lane of a
// 256-bit register, take about as many instructions per step as one: the bytes of several files
// are hashed for a fraction of the CPU time. The steps are those of RFC 1321.
#include "CShiplane.h"

#include <string.h>

#define SF(b, c, d) ((d) ^ ((b) & ((c) ^ (d))))
#define SG(b, c, d) ((c) ^ ((d) & ((b) ^ (c))))
#define SH(b, c, d) ((b) ^ (c) ^ (d))
#define SI(b, c, d) ((c) ^ ((b) | ~(d)))
#define SSTEP(f, a, b, c, d, x, k, s)                      \
    do {                                                   \
        a += S##f(b, c, d) + (x) + (k);                    \
        a = ((a << (s)) | (a >> (32 - (s)))) + b;          \
    } while (0)

// The 64 steps of RFC 1321, once for both kernels: STEP(function, a, b, c, d, message word, constant, shift).
#define MD5_STEPS(STEP, x) \
    STEP(F, a, b, c, d, x[0], 0xd76aa478u, 7); \
    STEP(F, d, a, b, c, x[1], 0xe8c7b756u, 12); \
    STEP(F, c, d, a, b, x[2], 0x242070dbu, 17); \
    STEP(F, b, c, d, a, x[3], 0xc1bdceeeu, 22); \
    STEP(F, a, b, c, d, x[4], 0xf57c0fafu, 7); \
    STEP(F, d, a, b, c, x[5], 0x4787c62au, 12); \
    STEP(F, c, d, a, b, x[6], 0xa8304613u, 17); \
    STEP(F, b, c, d, a, x[7], 0xfd469501u, 22); \
    STEP(F, a, b, c, d, x[8], 0x698098d8u, 7); \
    STEP(F, d, a, b, c, x[9], 0x8b44f7afu, 12); \
    STEP(F, c, d, a, b, x[10], 0xffff5bb1u, 17); \
    STEP(F, b, c, d, a, x[11], 0x895cd7beu, 22); \
    STEP(F, a, b, c, d, x[12], 0x6b901122u, 7); \
    STEP(F, d, a, b, c, x[13], 0xfd987193u, 12); \
    STEP(F, c, d, a, b, x[14], 0xa679438eu, 17); \
    STEP(F, b, c, d, a, x[15], 0x49b40821u, 22); \
    STEP(G, a, b, c, d, x[1], 0xf61e2562u, 5); \
    STEP(G, d, a, b, c, x[6], 0xc040b340u, 9); \
    STEP(G, c, d, a, b, x[11], 0x265e5a51u, 14); \
    STEP(G, b, c, d, a, x[0], 0xe9b6c7aau, 20); \
    STEP(G, a, b, c, d, x[5], 0xd62f105du, 5); \
    STEP(G, d, a, b, c, x[10], 0x02441453u, 9); \
    STEP(G, c, d, a, b, x[15], 0xd8a1e681u, 14); \
    STEP(G, b, c, d, a, x[4], 0xe7d3fbc8u, 20); \
    STEP(G, a, b, c, d, x[9], 0x21e1cde6u, 5); \
    STEP(G, d, a, b, c, x[14], 0xc33707d6u, 9); \
    STEP(G, c, d, a, b, x[3], 0xf4d50d87u, 14); \
    STEP(G, b, c, d, a, x[8], 0x455a14edu, 20); \
    STEP(G, a, b, c, d, x[13], 0xa9e3e905u, 5); \
    STEP(G, d, a, b, c, x[2], 0xfcefa3f8u, 9); \
    STEP(G, c, d, a, b, x[7], 0x676f02d9u, 14); \
    STEP(G, b, c, d, a, x[12], 0x8d2a4c8au, 20); \
    STEP(H, a, b, c, d, x[5], 0xfffa3942u, 4); \
    STEP(H, d, a, b, c, x[8], 0x8771f681u, 11); \
    STEP(H, c, d, a, b, x[11], 0x6d9d6122u, 16); \
    STEP(H, b, c, d, a, x[14], 0xfde5380cu, 23); \
    STEP(H, a, b, c, d, x[1], 0xa4beea44u, 4); \
    STEP(H, d, a, b, c, x[4], 0x4bdecfa9u, 11); \
    STEP(H, c, d, a, b, x[7], 0xf6bb4b60u, 16); \
    STEP(H, b, c, d, a, x[10], 0xbebfbc70u, 23); \
    STEP(H, a, b, c, d, x[13], 0x289b7ec6u, 4); \
    STEP(H, d, a, b, c, x[0], 0xeaa127fau, 11); \
    STEP(H, c, d, a, b, x[3], 0xd4ef3085u, 16); \
    STEP(H, b, c, d, a, x[6], 0x04881d05u, 23); \
    STEP(H, a, b, c, d, x[9], 0xd9d4d039u, 4); \
    STEP(H, d, a, b, c, x[12], 0xe6db99e5u, 11); \
    STEP(H, c, d, a, b, x[15], 0x1fa27cf8u, 16); \
    STEP(H, b, c, d, a, x[2], 0xc4ac5665u, 23); \
    STEP(I, a, b, c, d, x[0], 0xf4292244u, 6); \
    STEP(I, d, a, b, c, x[7], 0x432aff97u, 10); \
    STEP(I, c, d, a, b, x[14], 0xab9423a7u, 15); \
    STEP(I, b, c, d, a, x[5], 0xfc93a039u, 21); \
    STEP(I, a, b, c, d, x[12], 0x655b59c3u, 6); \
    STEP(I, d, a, b, c, x[3], 0x8f0ccc92u, 10); \
    STEP(I, c, d, a, b, x[10], 0xffeff47du, 15); \
    STEP(I, b, c, d, a, x[1], 0x85845dd1u, 21); \
    STEP(I, a, b, c, d, x[8], 0x6fa87e4fu, 6); \
    STEP(I, d, a, b, c, x[15], 0xfe2ce6e0u, 10); \
    STEP(I, c, d, a, b, x[6], 0xa3014314u, 15); \
    STEP(I, b, c, d, a, x[13], 0x4e0811a1u, 21); \
    STEP(I, a, b, c, d, x[4], 0xf7537e82u, 6); \
    STEP(I, d, a, b, c, x[11], 0xbd3af235u, 10); \
    STEP(I, c, d, a, b, x[2], 0x2ad7d2bbu, 15); \
    STEP(I, b, c, d, a, x[9], 0xeb86d391u, 21);

static inline uint32_t load_le32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

void shiplane_md5_blocks(uint32_t state[4], const uint8_t *data, size_t blocks) {
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    for (size_t n = 0; n < blocks; n++, data += 64) {
        uint32_t m[16];
        for (int i = 0; i < 16; i++) m[i] = load_le32(data + 4 * i);
        uint32_t a0 = a, b0 = b, c0 = c, d0 = d;
        MD5_STEPS(SSTEP, m)
        a += a0; b += b0; c += c0; d += d0;
    }
    state[0] = a; state[1] = b; state[2] = c; state[3] = d;
}

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

int shiplane_md5x8_available(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    // AVX and OSXSAVE: the operating system saves the YMM registers (XCR0 bits 1 and 2).
    if (!(ecx & (1u << 27)) || !(ecx & (1u << 28))) return 0;
    unsigned int xcr0_low, xcr0_high;
    __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    if ((xcr0_low & 6u) != 6u) return 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    return (ebx & (1u << 5)) ? 1 : 0;
}

#define VROTL(x, s) _mm256_or_si256(_mm256_slli_epi32((x), (s)), _mm256_srli_epi32((x), 32 - (s)))
#define VF(b, c, d) _mm256_xor_si256((d), _mm256_and_si256((b), _mm256_xor_si256((c), (d))))
#define VG(b, c, d) _mm256_xor_si256((c), _mm256_and_si256((d), _mm256_xor_si256((b), (c))))
#define VH(b, c, d) _mm256_xor_si256(_mm256_xor_si256((b), (c)), (d))
#define VI(b, c, d) _mm256_xor_si256((c), _mm256_or_si256((b), _mm256_xor_si256((d), ones)))
#define VSTEP(f, a, b, c, d, x, k, s)                                                                       \
    do {                                                                                                    \
        a = _mm256_add_epi32(a, _mm256_add_epi32(V##f(b, c, d), _mm256_add_epi32((x), _mm256_set1_epi32((int)(k))))); \
        a = _mm256_add_epi32(VROTL(a, s), b);                                                               \
    } while (0)

// Eight rows of eight 32-bit words in, eight columns out: out[i] holds word i of each row.
#define TRANSPOSE8(r, out)                                                                      \
    do {                                                                                        \
        __m256i t0 = _mm256_unpacklo_epi32(r[0], r[1]), t1 = _mm256_unpackhi_epi32(r[0], r[1]); \
        __m256i t2 = _mm256_unpacklo_epi32(r[2], r[3]), t3 = _mm256_unpackhi_epi32(r[2], r[3]); \
        __m256i t4 = _mm256_unpacklo_epi32(r[4], r[5]), t5 = _mm256_unpackhi_epi32(r[4], r[5]); \
        __m256i t6 = _mm256_unpacklo_epi32(r[6], r[7]), t7 = _mm256_unpackhi_epi32(r[6], r[7]); \
        __m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);         \
        __m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);         \
        __m256i u4 = _mm256_unpacklo_epi64(t4, t6), u5 = _mm256_unpackhi_epi64(t4, t6);         \
        __m256i u6 = _mm256_unpacklo_epi64(t5, t7), u7 = _mm256_unpackhi_epi64(t5, t7);         \
        out[0] = _mm256_permute2x128_si256(u0, u4, 0x20);                                       \
        out[1] = _mm256_permute2x128_si256(u1, u5, 0x20);                                       \
        out[2] = _mm256_permute2x128_si256(u2, u6, 0x20);                                       \
        out[3] = _mm256_permute2x128_si256(u3, u7, 0x20);                                       \
        out[4] = _mm256_permute2x128_si256(u0, u4, 0x31);                                       \
        out[5] = _mm256_permute2x128_si256(u1, u5, 0x31);                                       \
        out[6] = _mm256_permute2x128_si256(u2, u6, 0x31);                                       \
        out[7] = _mm256_permute2x128_si256(u3, u7, 0x31);                                       \
    } while (0)

__attribute__((target("avx2")))
void shiplane_md5x8_blocks(uint32_t state[32], const uint8_t *const data[8], size_t blocks) {
    const __m256i ones = _mm256_set1_epi32(-1);
    // The state as columns: register a holds A of every lane, and so on.
    __m256i rows[8], cols[8];
    for (int i = 0; i < 8; i++) rows[i] = _mm256_setr_epi32((int)state[4 * i], (int)state[4 * i + 1], (int)state[4 * i + 2], (int)state[4 * i + 3], 0, 0, 0, 0);
    TRANSPOSE8(rows, cols);
    __m256i a = cols[0], b = cols[1], c = cols[2], d = cols[3];
    for (size_t n = 0; n < blocks; n++) {
        __m256i lo[8], hi[8], w[16];
        for (int i = 0; i < 8; i++) {
            const uint8_t *p = data[i] + 64 * n;
            lo[i] = _mm256_loadu_si256((const __m256i *)p);
            hi[i] = _mm256_loadu_si256((const __m256i *)(p + 32));
        }
        TRANSPOSE8(lo, w);
        TRANSPOSE8(hi, (w + 8));
        __m256i a0 = a, b0 = b, c0 = c, d0 = d;
        MD5_STEPS(VSTEP, w)
        a = _mm256_add_epi32(a, a0); b = _mm256_add_epi32(b, b0); c = _mm256_add_epi32(c, c0); d = _mm256_add_epi32(d, d0);
    }
    // Back to rows: lane i's A, B, C, D.
    const __m256i zero = _mm256_setzero_si256();
    __m256i back[8] = {a, b, c, d, zero, zero, zero, zero}, out[8];
    TRANSPOSE8(back, out);
    for (int i = 0; i < 8; i++) {
        uint32_t words[8];
        _mm256_storeu_si256((__m256i *)words, out[i]);
        memcpy(state + 4 * i, words, 4 * sizeof(uint32_t));
    }
}
#else
int shiplane_md5x8_available(void) { return 0; }

void shiplane_md5x8_blocks(uint32_t state[32], const uint8_t *const data[8], size_t blocks) {
    for (int i = 0; i < 8; i++) shiplane_md5_blocks(state + 4 * i, data[i], blocks);
}
#endif
