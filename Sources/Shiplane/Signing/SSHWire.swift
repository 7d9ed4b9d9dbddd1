import Foundation

/// Reads the SSH wire encoding (RFC 4251: `uint32`, `string`, `mpint`) that keys, agent messages
/// and `sshsig` signatures are made of.
struct SSHWireReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// True once every byte was read.
    var isAtEnd: Bool { offset >= bytes.count }

    /// The next `count` bytes as they are.
    /// - Throws: `SigningError` when fewer are left.
    mutating func raw(_ count: Int) throws -> [UInt8] {
        guard count >= 0, bytes.count - offset >= count else { throw SigningError("the SSH data ends early") }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    /// A big-endian 32-bit number.
    mutating func uint32() throws -> UInt32 {
        try raw(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// A length-prefixed byte string.
    mutating func string() throws -> [UInt8] {
        try raw(Int(try uint32()))
    }

    /// A length-prefixed string read as UTF-8.
    mutating func text() throws -> String {
        String(decoding: try string(), as: UTF8.self)
    }

    /// One byte.
    mutating func byte() throws -> UInt8 { try raw(1)[0] }
}

/// Writes the SSH wire encoding.
struct SSHWireWriter {
    private(set) var bytes: [UInt8] = []

    mutating func raw(_ data: [UInt8]) { bytes += data }

    mutating func uint32(_ value: UInt32) {
        bytes += [UInt8(value >> 24 & 0xff), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    mutating func string(_ data: [UInt8]) {
        uint32(UInt32(data.count))
        bytes += data
    }

    mutating func string(_ text: String) { string(Array(text.utf8)) }

    /// A positive big-endian number as an `mpint`: no leading zero bytes, one added when the top bit is set.
    mutating func mpint(_ magnitude: [UInt8]) {
        var trimmed = Array(magnitude.drop { $0 == 0 })
        if let first = trimmed.first, first & 0x80 != 0 { trimmed.insert(0, at: 0) }
        string(trimmed)
    }

    mutating func byte(_ value: UInt8) { bytes.append(value) }
}

/// An `mpint` without its sign byte, padded to `length` bytes (for fixed-size scalars and coordinates).
func unsignedFixed(_ mpint: [UInt8], length: Int) -> [UInt8] {
    let trimmed = Array(mpint.drop { $0 == 0 })
    return trimmed.count >= length ? Array(trimmed.suffix(length)) : [UInt8](repeating: 0, count: length - trimmed.count) + trimmed
}

/// A problem with a key, a signature or a signing tool: says what is wrong and what to do.
package struct SigningError: ReportableError {
    /// What kind of problem it is, where a caller acts on that (the preflight's exit code, see
    /// `SigningKeyCheck.Unusable`): said by the code that throws it, never guessed from `category`.
    package enum Kind: Sendable, Equatable {
        /// A key that is there did not sign, or signing or checking failed.
        case failed
        /// A signature is asked for and no key is configured to make it (nothing names one).
        case noKeyConfigured
        /// The key file the configuration names cannot be read (missing, a folder, no permission).
        case keyUnreadable
    }

    package var message: String
    package var suggestion: String?
    package var info: [(key: String, value: String)]
    package var category: ErrorCategory
    package var kind: Kind

    package init(_ message: String, info: [(key: String, value: String)] = [], suggestion: String? = nil, category: ErrorCategory = .failure,
                 kind: Kind = .failed) {
        self.message = message
        self.info = info
        self.suggestion = suggestion
        self.category = category
        self.kind = kind
    }
}
