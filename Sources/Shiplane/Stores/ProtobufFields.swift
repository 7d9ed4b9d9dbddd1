import Foundation

/// The fields of one protocol-buffer message, read from its wire format.
///
/// Written here rather than taken from swift-protobuf: Shiplane reads three fields of one
/// message (aapt2's `XmlNode` in an AAB's manifest) and needs neither generated code nor a
/// protoc plugin in its build.
struct ProtobufFields {
    enum Value {
        case varint(UInt64)
        case fixed64(UInt64)
        case bytes([UInt8])
        case fixed32(UInt32)
    }

    private(set) var fields: [(number: Int, value: Value)] = []

    /// Parses a message.
    /// - Throws: `ProtobufFields.Malformed` when the bytes are not a well-formed message.
    init(_ bytes: [UInt8]) throws {
        var index = 0
        func varint() throws -> UInt64 {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard index < bytes.count, shift < 64 else { throw Malformed() }
                let byte = bytes[index]
                index += 1
                result |= UInt64(byte & 0x7f) << shift
                if byte & 0x80 == 0 { return result }
                shift += 7
            }
        }
        while index < bytes.count {
            let key = try varint()
            let number = Int(key >> 3)
            guard number > 0 else { throw Malformed() }
            switch key & 7 {
            case 0:
                fields.append((number, .varint(try varint())))
            case 1:
                guard index + 8 <= bytes.count else { throw Malformed() }
                var value: UInt64 = 0
                for offset in 0..<8 { value |= UInt64(bytes[index + offset]) << (8 * UInt64(offset)) }
                index += 8
                fields.append((number, .fixed64(value)))
            case 2:
                let length = try varint()
                guard length <= UInt64(bytes.count - index) else { throw Malformed() }
                fields.append((number, .bytes(Array(bytes[index..<(index + Int(length))]))))
                index += Int(length)
            case 5:
                guard index + 4 <= bytes.count else { throw Malformed() }
                var value: UInt32 = 0
                for offset in 0..<4 { value |= UInt32(bytes[index + offset]) << (8 * UInt32(offset)) }
                index += 4
                fields.append((number, .fixed32(value)))
            default:
                throw Malformed()
            }
        }
    }

    struct Malformed: Error {}

    /// Every length-delimited value of field `number`.
    func bytes(_ number: Int) -> [[UInt8]] {
        fields.compactMap { field in
            if field.number == number, case .bytes(let bytes) = field.value { return bytes }
            return nil
        }
    }

    /// The last string value of field `number` (protobuf's rule for a repeated scalar).
    func string(_ number: Int) -> String? {
        bytes(number).last.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The last varint value of field `number`.
    func varint(_ number: Int) -> UInt64? {
        fields.last { $0.number == number }.flatMap { field in
            if case .varint(let value) = field.value { return value }
            return nil
        }
    }
}
