internal import CLibgit2

/// A git object id (SHA-1), comparable and printable as 40 hex digits.
public struct ObjectID: Hashable, Sendable, CustomStringConvertible {
    /// The 20 raw bytes.
    public let bytes: [UInt8]

    init(_ oid: git_oid) {
        var copy = oid
        bytes = withUnsafeBytes(of: &copy.id) { Array($0) }
    }

    init?(_ pointer: UnsafePointer<git_oid>?) {
        guard let pointer else { return nil }
        self.init(pointer.pointee)
    }

    /// Parses 40 hex digits; nil for anything else.
    public init?(hex: String) {
        guard hex.utf8.count == 40 else { return nil }
        var oid = git_oid()
        guard git_oid_fromstr(&oid, hex) == 0 else { return nil }
        self.init(oid)
    }

    var raw: git_oid {
        var oid = git_oid()
        withUnsafeMutableBytes(of: &oid.id) { buffer in
            for (index, byte) in bytes.enumerated() where index < buffer.count { buffer[index] = byte }
        }
        return oid
    }

    private static let digits = Array("0123456789abcdef".utf8)

    public var hex: String {
        var out = [UInt8]()
        out.reserveCapacity(40)
        for byte in bytes {
            out.append(Self.digits[Int(byte >> 4)])
            out.append(Self.digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The first seven hex digits, as `git log --oneline` prints them.
    public var short: String { String(hex.prefix(7)) }

    public var description: String { hex }
}
