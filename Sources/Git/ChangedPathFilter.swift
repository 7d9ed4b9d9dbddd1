import Foundation

/// How git wrote a commit-graph's changed-path Bloom filters (the BDAT chunk's header).
///
/// Version 1 is what git before 2.46 wrote: its murmur3 read the last one to three bytes of a
/// path as signed `char`, so a path with a byte of 0x80 or more there hashes differently from
/// murmur3; version 2 is murmur3 proper. Both are read, each with its own hash, so a filter is
/// asked exactly what its writer put in it. Bits per entry only matter to the writer.
struct ChangedPathSettings: Equatable {
    var version: UInt8
    var hashCount: Int
}

/// One commit's changed-path filter: a Bloom filter of every path that differs between the
/// commit and its first parent, and of each of their leading folders (`a/b/c.txt` adds `a`,
/// `a/b` and `a/b/c.txt`). "No" is certain; "maybe" means read the trees.
///
/// git's `Documentation/gitformat-commit-graph.txt` and `bloom.c`: a key's k positions are
/// `h0 + i * h1` (i from 0, 32-bit arithmetic), with h0 and h1 murmur3 of the path seeded with
/// 0x293ae76f and 0x7e646e2c; each position is taken modulo the filter's bits, bit `p % 8` of
/// byte `p / 8`. A commit with more than 512 changed paths has the one-byte filter 0xff ("maybe"
/// for everything), one with none the one-byte filter 0x00.
struct ChangedPathFilter {
    let bytes: UnsafeRawBufferPointer
    let hashCount: Int

    /// False when the path certainly did not change in this commit.
    func mayContain(_ key: ChangedPathKey) -> Bool {
        // A 32-bit division, cheaper than git's 64-bit one and the same for any filter under 2^32
        // bits (git writes at most 640 bytes); a plan asks millions of keys.
        guard bytes.count > 0, bytes.count <= Int(UInt32.max / 8) else { return true }
        let bits = UInt32(bytes.count) * 8
        var hash = key.first
        for _ in 0..<hashCount {
            let position = hash % bits
            if bytes[Int(position / 8)] & (1 << UInt8(position % 8)) == 0 { return false }
            hash = hash &+ key.second
        }
        return true
    }
}

/// A path's two murmur3 hashes, computed once and asked of many commits' filters.
struct ChangedPathKey {
    let first: UInt32
    let second: UInt32

    /// The key of `path` (no leading or trailing slash; folders as `a/b`) for filters of `version`.
    init(_ path: String, version: UInt8) {
        let bytes = Array(path.utf8)
        first = Self.murmur3(bytes, seed: 0x293a_e76f, signedTail: version == 1)
        second = Self.murmur3(bytes, seed: 0x7e64_6e2c, signedTail: version == 1)
    }

    /// 32-bit murmur3 of `bytes`; `signedTail` reproduces version 1's reading of the last bytes
    /// as signed (sign-extended) values.
    static func murmur3(_ bytes: [UInt8], seed: UInt32, signedTail: Bool = false) -> UInt32 {
        let c1: UInt32 = 0xcc9e_2d51, c2: UInt32 = 0x1b87_3593
        func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 { (value << count) | (value >> (32 - count)) }
        var hash = seed
        let blocks = bytes.count / 4
        for block in 0..<blocks {
            var k = UInt32(bytes[4 * block]) | UInt32(bytes[4 * block + 1]) << 8
                | UInt32(bytes[4 * block + 2]) << 16 | UInt32(bytes[4 * block + 3]) << 24
            k = rotate(k &* c1, 15) &* c2
            hash = rotate(hash ^ k, 13) &* 5 &+ 0xe654_6b64
        }
        let tail = bytes.count & 3
        if tail > 0 {
            func byte(_ index: Int) -> UInt32 {
                let value = bytes[4 * blocks + index]
                return signedTail ? UInt32(bitPattern: Int32(Int8(bitPattern: value))) : UInt32(value)
            }
            var k: UInt32 = 0
            if tail == 3 { k ^= byte(2) << 16 }
            if tail >= 2 { k ^= byte(1) << 8 }
            k ^= byte(0)
            hash ^= rotate(k &* c1, 15) &* c2
        }
        hash ^= UInt32(truncatingIfNeeded: bytes.count)
        hash ^= hash >> 16
        hash = hash &* 0x85eb_ca6b
        hash ^= hash >> 13
        hash = hash &* 0xc2b2_ae35
        hash ^= hash >> 16
        return hash
    }
}
