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

    init<Value: Encodable>(encoding value: Value) throws {
        let data = try RunStore.encoder.encode(value)
        self = try RunStore.decoder.decode(JSONValue.self, from: data)
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
