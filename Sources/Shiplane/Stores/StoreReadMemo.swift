import Foundation

/// What a store client already read in this step, so the upload's preflight does not ask again
/// what its earlier-upload lookup just asked (App Store Connect's app by bundle ID, Google Play's
/// version codes on the tracks). One memo per client, and a client per step (`Store.connect`):
/// nothing read here outlives the step.
final class StoreReadMemo: @unchecked Sendable {
    // @unchecked: `values` is only touched under `lock`.
    private let lock = NSLock()
    private var values: [String: any Sendable] = [:]

    /// The value read under `key` in this step, if any.
    func value<Value: Sendable>(_ key: String, as type: Value.Type = Value.self) -> Value? {
        lock.withLock { values[key] as? Value }
    }

    /// Keeps `value` under `key` for the rest of the step.
    func keep<Value: Sendable>(_ value: Value, _ key: String) {
        lock.withLock { values[key] = value }
    }

    /// The value under `key`, read with `read` the first time.
    func value<Value: Sendable>(_ key: String, read: () async throws -> Value) async rethrows -> Value {
        if let known: Value = value(key) { return known }
        let read = try await read()
        keep(read, key)
        return read
    }
}
