import Foundation

/// An effect as the run's record keeps it: its kind and its fields, whether or not this process
/// knows the type (a lane's own effect read by the supervisor stays readable and is reported).
package struct AnyEffect: Codable, Sendable, Equatable {
    /// The effect's kind (`git.tag`).
    package let kind: String
    /// The effect's fields as JSON.
    let payload: JSONValue
    /// The decoded effect, when this process knows its kind (a built-in one, or one this process
    /// recorded itself).
    package let value: (any Effect)?

    /// Wraps an effect for the record.
    /// - Throws: `EncodingError` when the effect cannot be encoded.
    package init<E: Effect>(_ effect: E) throws {
        kind = E.kind
        payload = try JSONValue(encoding: effect)
        value = effect
    }

    private init(kind: String, payload: JSONValue, value: (any Effect)?) {
        self.kind = kind
        self.payload = payload
        self.value = value
    }

    /// The same effect with its paths moved (see `Effect.rebased`).
    func rebased(_ move: (String) -> String) -> AnyEffect {
        guard let value, let moved = try? Self.rewrap(value, move) else { return self }
        return moved
    }

    private static func rewrap<E: Effect>(_ effect: E, _ move: (String) -> String) throws -> AnyEffect {
        try AnyEffect(effect.rebased(move))
    }

    private enum CodingKeys: String, CodingKey { case kind, effect }

    /// Reads a recorded effect; a kind this process does not know keeps its fields for reporting.
    /// - Throws: `DecodingError` when the entry is not an effect.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(String.self, forKey: .kind)
        let payload = try container.decode(JSONValue.self, forKey: .effect)
        self.kind = kind
        self.payload = payload
        value = Self.decodeBuiltIn(kind: kind, payload: payload)
    }

    private static func decodeBuiltIn(kind: String, payload: JSONValue) -> (any Effect)? {
        guard let type = Features.effects.first(where: { $0.kind == kind }) ?? LaneEffectTypes.all.first(where: { $0.kind == kind }) else {
            return nil
        }
        return try? payload.decode(type)
    }

    /// Writes the kind and the fields.
    /// - Throws: `EncodingError` from the encoder.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(payload, forKey: .effect)
    }

    /// Equal when of one kind with equal fields.
    package static func == (lhs: AnyEffect, rhs: AnyEffect) -> Bool {
        lhs.kind == rhs.kind && lhs.payload == rhs.payload
    }

    /// The effect as `E`, when it is one.
    package func `as`<E: Effect>(_ type: E.Type) -> E? { value as? E }
}

/// Any JSON value, kept as it was read.
enum JSONValue: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Every string in the value, however deep.
    var strings: [String] {
        switch self {
        case .string(let text): [text]
        case .array(let values): values.flatMap(\.strings)
        case .object(let members): members.values.flatMap(\.strings)
        case .null, .bool, .number: []
        }
    }

    /// The value's JSON as the record writes it. Read back by `JSONValue.parse`, not through
    /// `Decodable`: that tries each kind of value in turn and builds an error for each miss, a
    /// cost paid for every effect recorded (a screenshot upload records one per file while the
    /// other files' bytes go up).
    init<Value: Encodable>(encoding value: Value) throws {
        let data = try Self.encoder.encode(value)
        self = try Self.parse(Array(data))
    }

    /// The record's encoder without its line breaks and indentation (the same values).
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = RecordDates.encoding
        return encoder
    }()

    /// Parses JSON text (RFC 8259) into a value.
    /// - Throws: `DecodingError.dataCorrupted` for text that is not one JSON value.
    static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        var parser = JSONValueParser(bytes: bytes)
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.at == bytes.count else { throw parser.failure("text after the value") }
        return value
    }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try RunStore.decoder.decode(type, from: try RunStore.encoder.encode(self))
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if value.rounded() == value, abs(value) < 9e15 { try container.encode(Int64(value)) } else { try container.encode(value) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

/// A recursive-descent JSON reader for `JSONValue.parse`.
private struct JSONValueParser {
    let bytes: [UInt8]
    var at = 0

    func failure(_ what: String) -> DecodingError {
        DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not JSON: \(what) at byte \(at)"))
    }

    mutating func skipSpace() {
        while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x0A || bytes[at] == 0x0D || bytes[at] == 0x09 { at += 1 }
    }

    mutating func value(depth: Int) throws -> JSONValue {
        guard depth < 512 else { throw failure("nesting too deep") }
        skipSpace()
        guard at < bytes.count else { throw failure("end of text") }
        switch bytes[at] {
        case UInt8(ascii: "{"):
            at += 1
            var object: [String: JSONValue] = [:]
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "}") { at += 1; return .object(object) }
            while true {
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw failure("a member name expected") }
                let key = try string()
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { throw failure("':' expected") }
                at += 1
                let member = try value(depth: depth + 1)
                // A name given twice keeps its first value, as `JSONDecoder` does.
                if object[key] == nil { object[key] = member }
                skipSpace()
                guard at < bytes.count else { throw failure("end of text in an object") }
                if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                guard bytes[at] == UInt8(ascii: "}") else { throw failure("',' or '}' expected") }
                at += 1
                return .object(object)
            }
        case UInt8(ascii: "["):
            at += 1
            var array: [JSONValue] = []
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "]") { at += 1; return .array(array) }
            while true {
                array.append(try value(depth: depth + 1))
                skipSpace()
                guard at < bytes.count else { throw failure("end of text in an array") }
                if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                guard bytes[at] == UInt8(ascii: "]") else { throw failure("',' or ']' expected") }
                at += 1
                return .array(array)
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default:
            return .number(try number())
        }
    }

    private mutating func literal(_ word: String) throws {
        let expected = Array(word.utf8)
        guard at + expected.count <= bytes.count, bytes[at..<(at + expected.count)].elementsEqual(expected) else { throw failure("\(word) expected") }
        at += expected.count
    }

    private mutating func number() throws -> Double {
        let start = at
        while at < bytes.count, "+-0123456789.eE".utf8.contains(bytes[at]) { at += 1 }
        guard at > start, let number = Double(String(decoding: bytes[start..<at], as: UTF8.self)), number.isFinite else {
            throw failure("a value expected")
        }
        return number
    }

    /// A string from its opening quotation mark.
    private mutating func string() throws -> String {
        at += 1
        var text: [UInt8] = []
        while true {
            guard at < bytes.count else { throw failure("end of text in a string") }
            let byte = bytes[at]
            at += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard at < bytes.count else { throw failure("end of text in an escape") }
                let escape = bytes[at]
                at += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard at + 1 < bytes.count, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") else {
                            throw failure("a lone surrogate")
                        }
                        at += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw failure("a lone surrogate") }
                    text += Array(String(Character(unicode)).utf8)
                default:
                    throw failure("an unknown escape")
                }
            case 0x00..<0x20:
                throw failure("a control character in a string")
            default:
                text.append(byte)
            }
        }
    }

    private mutating func hex4() throws -> UInt32 {
        guard at + 4 <= bytes.count else { throw failure("end of text in an escape") }
        var value: UInt32 = 0
        for byte in bytes[at..<(at + 4)] {
            value <<= 4
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value += UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value += UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value += UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("a bad \\u escape")
            }
        }
        at += 4
        return value
    }
}
