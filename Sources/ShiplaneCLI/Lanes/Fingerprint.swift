/// A 128-bit content fingerprint (two FNV-1a 64 lanes with different seeds) for cache keys.
///
/// Not cryptographic: it names cache entries built from files the user controls, where a
/// collision would need two different lane folders with the same 128-bit value.
struct Fingerprint {
    private var first: UInt64 = 0xcbf2_9ce4_8422_2325
    private var second: UInt64 = 0x8422_2325_cbf2_9ce4
    private static let prime: UInt64 = 0x0000_0100_0000_01b3

    mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            first = (first ^ UInt64(byte)) &* Self.prime
            second = (second ^ UInt64(byte ^ 0x5c)) &* Self.prime
        }
        // A separator, so ("ab", "c") and ("a", "bc") differ.
        first = (first ^ 0xff) &* Self.prime
        second = (second ^ 0xa3) &* Self.prime
    }

    mutating func add(_ text: String) { add(text.utf8) }

    var hex: String {
        func pad(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return pad(first) + pad(second)
    }
}
