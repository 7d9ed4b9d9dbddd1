/// Byte classes the parser needs, on UTF-8 code units.
enum CommitTextBytes {
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let lineFeed: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let colon: UInt8 = 0x3A
    static let hash: UInt8 = 0x23
    static let exclamationMark: UInt8 = 0x21
    static let openParenthesis: UInt8 = 0x28
    static let closeParenthesis: UInt8 = 0x29
    static let hyphen: UInt8 = 0x2D
    static let underscore: UInt8 = 0x5F

    static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    static func isAlphanumeric(_ byte: UInt8) -> Bool { isLetter(byte) || isDigit(byte) }

    static func isSpaceOrTab(_ byte: UInt8) -> Bool { byte == space || byte == tab }

    /// Letters, digits, `-` and `_`: what a commit type may contain.
    static func isTypeByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == hyphen || byte == underscore
    }

    /// Letters, digits and `-`: what a git trailer token may contain.
    static func isTokenByte(_ byte: UInt8) -> Bool { isAlphanumeric(byte) || byte == hyphen }
}
