import Foundation

/// A match store's S3 calls (`MatchBucketClient`): ListObjectsV2, GetObject with its ETag, a PUT
/// conditional on that ETag (`If-Match`; `If-None-Match: *` for a new object) and a DELETE
/// `If-Match` it, each signed with SigV4. Named `s3://BUCKET/PREFIX` (or match's
/// `MATCH_S3_BUCKET` and `MATCH_S3_OBJECT_PREFIX`).
struct MatchS3Bucket: MatchBucketClient {
    let client: S3Client

    /// The store match's own variables name (`MATCH_S3_BUCKET`, `MATCH_S3_OBJECT_PREFIX`), as `s3://BUCKET/PREFIX`.
    static func storeFromEnvironment(_ environment: LaneEnvironment) -> String? {
        guard let bucket = environment["MATCH_S3_BUCKET"], !bucket.isEmpty else { return nil }
        return "s3://\(bucket)/\(environment["MATCH_S3_OBJECT_PREFIX"] ?? "")"
    }

    /// Where the bucket is and how it is reached: match's `MATCH_S3_REGION`, else `AWS_REGION`,
    /// `AWS_DEFAULT_REGION`, `us-east-1`; the endpoint `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`
    /// or AWS's (another endpoint is addressed path-style).
    static func target(bucket: String, variables: [String: String]) -> S3Target {
        func value(_ names: String...) -> String? { names.lazy.compactMap { variables[$0].flatMap { $0.isEmpty ? nil : $0 } }.first }
        let region = value("MATCH_S3_REGION", "AWS_REGION", "AWS_DEFAULT_REGION") ?? "us-east-1"
        let endpoint = value("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
        return S3Target(endpoint: endpoint ?? "https://s3.\(region).amazonaws.com", region: region, bucket: bucket, pathStyle: endpoint != nil)
    }

    /// match's `MATCH_S3_ACCESS_KEY`, `MATCH_S3_SECRET_ACCESS_KEY` and `MATCH_S3_SESSION_TOKEN`,
    /// else `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`.
    static func credentials(_ variables: [String: String]) throws -> SignatureV4.Credentials {
        if let id = variables["MATCH_S3_ACCESS_KEY"], !id.isEmpty {
            guard let secret = variables["MATCH_S3_SECRET_ACCESS_KEY"], !secret.isEmpty else {
                throw ShiplaneError("MATCH_S3_ACCESS_KEY is set but MATCH_S3_SECRET_ACCESS_KEY is not",
                                    suggestion: "set both (or neither, to use AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY); nothing was read or changed")
            }
            let token = variables["MATCH_S3_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
            return SignatureV4.Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: token)
        }
        return try S3Client.credentials(from: variables)
    }

    /// A client for `target` with the credentials of `variables`; each secret registered.
    static func client(target: S3Target, variables: [String: String], transport: (_ secrets: [String]) -> HTTPTransport,
                       now: @escaping @Sendable () -> Date) throws -> S3Client {
        let credentials = try credentials(variables)
        let secrets = [credentials.secretAccessKey] + (credentials.sessionToken.map { [$0] } ?? [])
        return S3Client(target: target, signer: SignatureV4(credentials: credentials, region: target.region), transport: transport(secrets), now: now)
    }

    /// The bucket reached with the run's credentials (each secret registered), checked.
    /// - Throws: `ShiplaneError` for unusable credentials; `S3Failure` from the bucket.
    static func connect(bucket: String, step: StepContext) async throws -> MatchS3Bucket {
        let lane = step.lane
        let variables = lane.environment.variables
        let client = try client(target: target(bucket: bucket, variables: variables), variables: variables,
                                transport: { secrets in
                                    for secret in secrets { lane.registerSecret(secret) }
                                    return step.httpTransport()
                                }, now: lane.state.now)
        try await client.checkBucket()
        return MatchS3Bucket(client: client)
    }

    /// The client an undo uses, with the credentials set where it runs.
    /// - Throws: `ShiplaneError` saying what stays when they are not set.
    static func forUndo(_ target: S3Target, key: String, in context: EffectContext) throws -> MatchS3Bucket {
        do {
            return MatchS3Bucket(client: try client(target: target, variables: context.environment.variables,
                                                    transport: { context.transport(secrets: $0) }, now: { Date() }))
        } catch {
            throw ShiplaneError("\(target.display(key)) stays as this run left it: set MATCH_S3_ACCESS_KEY and MATCH_S3_SECRET_ACCESS_KEY (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) so rollback can put it back")
        }
    }

    // MARK: - MatchBucketClient

    func display(_ key: String) -> String { client.target.display(key) }

    func list(prefix: String) async throws -> [String] { try await client.list(prefix: prefix).map(\.key) }

    func get(_ key: String) async throws -> (bytes: Data, version: String)? {
        try await client.get(key).map { (Data($0.bytes), $0.etag) }
    }

    func put(_ key: String, bytes: Data, ifVersion version: String?) async throws -> String? {
        try await client.put(key, bytes: Array(bytes), ifUnchangedFrom: version)
    }

    func delete(_ key: String, ifVersion version: String) async throws -> Bool {
        do {
            try await client.delete(key, ifMatch: version)
            return true
        } catch let failure as S3Failure where failure.status == 412 {
            return false
        }
    }

    func written(key: String, saved: String?, sha256: String?, version: String?) -> any Effect {
        MatchS3ObjectWritten(target: client.target, key: key, saved: saved, sha256: sha256, etag: version)
    }

    func removed(key: String, saved: String?) -> any Effect {
        MatchS3ObjectRemoved(target: client.target, key: key, saved: saved)
    }
}

/// A match store object `nuke` deleted from its S3 bucket: the undo puts the saved (encrypted)
/// bytes back only while nothing has taken its place (`If-None-Match: *`).
package struct MatchS3ObjectRemoved: Effect, Equatable {
    package static let kind = "match.s3ObjectRemoved"
    var target: S3Target
    var key: String
    var saved: String?

    package var reach: EffectReach { .service }

    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        try await MatchS3Bucket.forUndo(target, key: key, in: context).undoRemoval(key: key, saved: saved, savedCopies: context.savedCopies)
    }
}

/// A match store object this run put in its S3 bucket (a store file, or a kept key). The undo
/// (`MatchBucketClient.undoWrite`), while the object still has the ETag this run left, puts back
/// the bytes it replaced or deletes it when it was new; an object someone wrote since is kept.
package struct MatchS3ObjectWritten: Effect, Equatable {
    package static let kind = "match.s3ObjectWritten"
    var target: S3Target
    var key: String
    /// The saved copy of the (encrypted) bytes replaced; nil when the object was new.
    var saved: String?
    /// Hex SHA-256 of the bytes put (a PUT whose answer was lost is recognised by them); nil for
    /// a kept key, whose object is this run's whatever it holds (its name is the key's digest).
    var sha256: String?
    /// The object's ETag once S3 answered.
    var etag: String?

    package var reach: EffectReach { .service }

    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        try await MatchS3Bucket.forUndo(target, key: key, in: context)
            .undoWrite(key: key, saved: saved, sha256: sha256, version: etag, savedCopies: context.savedCopies)
    }
}
