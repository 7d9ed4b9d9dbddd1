import Foundation

/// A match store's Google Cloud Storage calls (`MatchBucketClient`): objects.list, objects.get
/// with its generation, a media upload with `ifGenerationMatch` (0 for a new object) and a
/// delete with `ifGenerationMatch`. Named `gs://BUCKET` (or match's
/// `MATCH_GOOGLE_CLOUD_BUCKET_NAME`); `gs://BUCKET/PREFIX` puts the same layout under a prefix,
/// which match itself never does.
struct MatchGCSBucket: MatchBucketClient {
    let client: GCSClient

    /// The store match's own variable names (`MATCH_GOOGLE_CLOUD_BUCKET_NAME`), as `gs://BUCKET/`.
    static func storeFromEnvironment(_ environment: LaneEnvironment) -> String? {
        guard let bucket = environment["MATCH_GOOGLE_CLOUD_BUCKET_NAME"], !bucket.isEmpty else { return nil }
        return "gs://\(bucket)/"
    }

    /// A client for `bucket` with the credentials match would use (`GCSCredentials.from`).
    static func client(bucket: String, variables: [String: String], workingDirectory: String, transport: HTTPTransport,
                       onToken: @escaping @Sendable (String) -> Void) throws -> GCSClient {
        GCSClient(target: GCSTarget.of(bucket: bucket, variables: variables),
                  credentials: try GCSCredentials.from(variables, workingDirectory: workingDirectory), transport: transport, onToken: onToken)
    }

    /// The bucket reached with the credentials match would use (the key's secrets and every
    /// access token registered), checked.
    /// - Throws: `ShiplaneError` for unusable credentials; `GCSFailure` from the bucket.
    static func connect(bucket: String, step: StepContext) async throws -> MatchGCSBucket {
        let lane = step.lane
        let client = try client(bucket: bucket, variables: lane.environment.variables, workingDirectory: lane.workingDirectory,
                                transport: step.httpTransport(), onToken: { lane.registerSecret($0) })
        if case .serviceAccount(let account, _) = client.credentials {
            for secret in account.secretTexts { lane.registerSecret(secret) }
        }
        if case .accessToken(let token) = client.credentials { lane.registerSecret(token) }
        try await client.checkBucket()
        return MatchGCSBucket(client: client)
    }

    /// The client an undo uses, with the credentials set where it runs.
    /// - Throws: `ShiplaneError` saying what stays when they are unusable.
    static func forUndo(_ target: GCSTarget, name: String, in context: EffectContext) throws -> MatchGCSBucket {
        do {
            return MatchGCSBucket(client: GCSClient(target: target, credentials: try GCSCredentials.from(context.environment.variables, workingDirectory: context.workTree),
                                                    transport: context.transport()))
        } catch {
            throw ShiplaneError("\(target.display(name)) stays as this run left it: set MATCH_GOOGLE_CLOUD_KEYS_FILE so rollback can put it back")
        }
    }

    // MARK: - MatchBucketClient

    func display(_ key: String) -> String { client.target.display(key) }

    func list(prefix: String) async throws -> [String] { try await client.list(prefix: prefix).map(\.name) }

    func get(_ key: String) async throws -> (bytes: Data, version: String)? {
        try await client.get(key).map { ($0.bytes, String($0.generation)) }
    }

    func put(_ key: String, bytes: Data, ifVersion version: String?) async throws -> String? {
        try await client.put(key, bytes: bytes, ifGeneration: try Self.generation(version, of: key)).map(String.init)
    }

    func delete(_ key: String, ifVersion version: String) async throws -> Bool {
        try await client.delete(key, ifGeneration: try Self.generation(version, of: key))
    }

    /// The generation a version names; 0 (must not exist yet) for none.
    private static func generation(_ version: String?, of key: String) throws -> Int64 {
        guard let version else { return 0 }
        guard let generation = Int64(version) else { throw ShiplaneError("\(key): \(version) is not a Cloud Storage generation") }
        return generation
    }

    func written(key: String, saved: String?, sha256: String?, version: String?) -> any Effect {
        MatchGCSObjectWritten(target: client.target, name: key, saved: saved, sha256: sha256, generation: version.flatMap { Int64($0) })
    }

    func removed(key: String, saved: String?) -> any Effect {
        MatchGCSObjectRemoved(target: client.target, name: key, saved: saved)
    }
}

/// A match store object `nuke` deleted from its Google Cloud Storage bucket: the undo puts the
/// saved (encrypted) bytes back only while nothing has taken its place (`ifGenerationMatch=0`).
package struct MatchGCSObjectRemoved: Effect, Equatable {
    package static let kind = "match.gcsObjectRemoved"
    var target: GCSTarget
    var name: String
    var saved: String?

    package var reach: EffectReach { .service }

    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        try await MatchGCSBucket.forUndo(target, name: name, in: context).undoRemoval(key: name, saved: saved, savedCopies: context.savedCopies)
    }
}

/// A match store object this run wrote in its Google Cloud Storage bucket (a store file, or a
/// kept key). The undo (`MatchBucketClient.undoWrite`), while the object still has the
/// generation this run left, puts back the bytes it replaced or deletes it when it was new; an
/// object someone wrote since is kept.
package struct MatchGCSObjectWritten: Effect, Equatable {
    package static let kind = "match.gcsObjectWritten"
    var target: GCSTarget
    var name: String
    /// The saved copy of the (encrypted) bytes replaced; nil when the object was new.
    var saved: String?
    /// Hex SHA-256 of the bytes written (a write whose answer was lost is recognised by them); nil
    /// for a kept key, whose object is this run's whatever it holds (its name is the key's digest).
    var sha256: String?
    /// The generation Google gave the write; nil until it answered.
    var generation: Int64?

    package var reach: EffectReach { .service }

    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        try await MatchGCSBucket.forUndo(target, name: name, in: context)
            .undoWrite(key: name, saved: saved, sha256: sha256, version: generation.map(String.init), savedCopies: context.savedCopies)
    }
}
