import Foundation

/// A match store in an S3 bucket, laid out as fastlane match's S3 storage lays it out
/// (`match/lib/match/storage/s3_storage.rb`): every certificate and profile under the object
/// prefix and a folder named after the team id (`PREFIX` + `TEAMID/certs/distribution/ID.cer`,
/// `PREFIX` + `TEAMID/profiles/appstore/AppStore_com.example.app.mobileprovision`), each file
/// encrypted as in a git store; `match_version.txt` and `README.md` under the prefix itself.
/// Named `s3://BUCKET/PREFIX` (or match's `MATCH_S3_BUCKET` and `MATCH_S3_OBJECT_PREFIX`); read
/// whole at the start (ListObjectsV2 and GetObject, SigV4), written object by object, each PUT
/// conditional on the ETag read (`If-Match`; `If-None-Match: *` for a new object) and a
/// recorded effect whose undo puts the earlier bytes back (or deletes the object) while it still
/// holds this run's.
package struct MatchS3Store {
    let client: S3Client
    /// The object prefix as match joins it: empty, or ending with `/`.
    let prefix: String
    /// The team folder; nil when there is none yet and no team id was given (readonly then finds nothing).
    let team: String?
    /// The store's objects by their path in a match store (the prefix and team folder left out).
    let objects: [String: (bytes: Data, etag: String)]
    /// Keys kept for certificates asked for (`<type>-<digest>` → `key.json`'s bytes), under
    /// `PREFIX.shiplane-match-keys/`, which match never reads.
    var pendingKeys: [String: Data] = [:]

    static let keyFolder = ".shiplane-match-keys/"

    /// Files match keeps under the prefix itself, outside the team folder.
    static let rootFiles: Set<String> = ["match_version.txt", "README.md"]

    var shown: String { "s3://\(client.target.bucket)/\(prefix)" }

    /// Whether `store` names a bucket (`s3://…`).
    static func isBucket(_ store: String) -> Bool { store.lowercased().hasPrefix("s3://") }

    /// The store match's own variables name (`MATCH_S3_BUCKET`, `MATCH_S3_OBJECT_PREFIX`), as `s3://BUCKET/PREFIX`.
    package static func storeFromEnvironment(_ environment: LaneEnvironment) -> String? {
        guard let bucket = environment["MATCH_S3_BUCKET"], !bucket.isEmpty else { return nil }
        return "s3://\(bucket)/\(environment["MATCH_S3_OBJECT_PREFIX"] ?? "")"
    }

    /// Bucket and prefix of `s3://BUCKET/PREFIX`; a prefix gets a closing `/` (match's download
    /// joins it as a folder).
    static func parse(_ store: String) -> (bucket: String, prefix: String)? {
        guard isBucket(store) else { return nil }
        let rest = store.dropFirst("s3://".count)
        let bucket = String(rest.prefix(while: { $0 != "/" }))
        var prefix = String(rest.dropFirst(bucket.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        if !prefix.isEmpty { prefix += "/" }
        guard !bucket.isEmpty else { return nil }
        return (bucket, prefix)
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

    /// Checks the bucket and the credentials, then reads the store: the team folder of `team`
    /// (match's `FASTLANE_TEAM_ID`), or, without one, the only team folder under the prefix;
    /// and the two files under the prefix itself.
    /// - Throws: `S3Failure` (the bucket, the credentials), `ShiplaneError` when several teams
    ///   share the prefix and none was named.
    static func open(_ store: String, team given: String?, client: S3Client, keys: Bool = false) async throws -> MatchS3Store {
        guard let (_, prefix) = parse(store) else {
            throw ShiplaneError("\(store) is not s3://BUCKET[/PREFIX]", suggestion: "name the bucket: s3://my-signing-bucket/")
        }
        try await client.checkBucket()
        var team = given
        var listed: [S3Client.ListedObject]
        if let team {
            listed = try await client.list(prefix: prefix + team + "/")
        } else {
            let everything = try await client.list(prefix: prefix)
            let teams = Set(everything.compactMap { object -> String? in
                let rest = object.key.dropFirst(prefix.count)
                guard let slash = rest.firstIndex(of: "/"), !rest.hasPrefix(".") else { return nil }
                return String(rest[..<slash])
            })
            guard teams.count <= 1 else {
                throw ShiplaneError("\(client.target.display(prefix)) holds the stores of several teams (\(teams.sorted().joined(separator: ", ")))",
                                    suggestion: "set FASTLANE_TEAM_ID to the team whose certificates to use (match's team_id); nothing was changed")
            }
            team = teams.first
            listed = everything.filter { object in team.map { object.key.hasPrefix(prefix + $0 + "/") } ?? false }
        }
        var objects: [String: (bytes: Data, etag: String)] = [:]
        for object in listed where !object.key.hasSuffix("/") {
            guard let team, let got = try await client.get(object.key) else { continue }
            objects[String(object.key.dropFirst(prefix.count + team.count + 1))] = (Data(got.bytes), got.etag)
        }
        for name in rootFiles.sorted() {
            if let got = try await client.get(prefix + name) { objects[name] = (Data(got.bytes), got.etag) }
        }
        var pending: [String: Data] = [:]
        if keys {
            for object in try await client.list(prefix: prefix + keyFolder) where object.key.hasSuffix(".json") {
                if let got = try await client.get(object.key) {
                    pending[String(object.key.dropFirst(prefix.count + keyFolder.count).dropLast(".json".count))] = Data(got.bytes)
                }
            }
        }
        return MatchS3Store(client: client, prefix: prefix, team: team, objects: objects, pendingKeys: pending)
    }

    /// The object a certificate's key is kept in until the store holds the certificate.
    func keyObject(name: String) -> String { prefix + Self.keyFolder + name + ".json" }

    /// Puts the key kept under `name`.
    func putKey(_ data: Data, name: String) async throws {
        _ = try await client.put(keyObject(name: name), bytes: Array(data))
    }

    /// Deletes the key kept under `name`; a failure is only reported (the next run deletes it).
    func deleteKey(name: String) async -> Bool {
        let key = keyObject(name: name)
        guard let head = try? await client.head(key) else { return true }
        return (try? await client.delete(key, ifMatch: head.etag)) != nil
    }

    /// The object key of a store path: under the prefix for match's version file and README,
    /// under the team folder for everything else; nil without a team.
    func key(for path: String) -> String? {
        if Self.rootFiles.contains(path) { return prefix + path }
        return team.map { prefix + $0 + "/" + path }
    }

    func contents(_ path: String) -> Data? { objects[path]?.bytes }

    /// The names of the files directly in `folder`.
    func names(in folder: String) -> [String] {
        let start = folder.hasSuffix("/") ? folder : folder + "/"
        return objects.keys.filter { $0.hasPrefix(start) && !$0.dropFirst(start.count).contains("/") }.map { String($0.dropFirst(start.count)) }.sorted()
    }

    /// Puts each changed file through a recorded effect (its undo puts the earlier bytes back),
    /// each PUT conditional on the object still being as it was read (another machine's match
    /// run may have written it meanwhile: S3 answers 412). Files holding the same bytes are not sent. Returns the keys put.
    /// - Throws: `ShiplaneError` when an object changed since it was read; `S3Failure`.
    func write(_ files: [(path: String, contents: Data)], step: StepContext) async throws -> [String] {
        var put: [String] = []
        for (path, contents) in files {
            guard let key = key(for: path) else {
                throw ShiplaneError("no team folder to write \(path) into in \(shown)",
                                    suggestion: "set FASTLANE_TEAM_ID to the team's id (match's team_id); nothing more was written")
            }
            let before = objects[path]
            if before?.bytes == contents { continue }
            var effect = MatchS3ObjectWritten(target: client.target, key: key, saved: try step.saveCopy(before?.bytes),
                                              sha256: SHA256.hex(of: contents), etag: nil)
            let handle = try step.record(effect, before == nil ? "delete \(client.target.display(key))" : "put the earlier \(client.target.display(key)) back")
            // S3's conditional write: If-Match the ETag read, or If-None-Match: * for a new object.
            guard let etag = try await client.put(key, bytes: Array(contents), ifUnchangedFrom: before?.etag) else {
                step.done(handle, effect)
                throw ShiplaneError("\(client.target.display(key)) changed since this run read it (S3 refused the conditional write: 412); it was not written",
                                    suggestion: "run match again: it reads the store anew (another machine's match run wrote it meanwhile)")
            }
            effect.etag = etag
            step.done(handle, effect)
            put.append(key)
        }
        return put
    }
}

extension MatchS3Store {
    /// Deletes a store file (`nuke`) through a recorded effect whose undo puts it back; only
    /// while the object still has the ETag read (`If-Match`).
    func remove(_ path: String, step: StepContext) async throws {
        guard let key = key(for: path), let object = objects[path] else { return }
        let handle = try step.record(MatchS3ObjectRemoved(target: client.target, key: key, saved: try step.saveCopy(object.bytes)),
                                     "put \(client.target.display(key)) back")
        try await client.delete(key, ifMatch: object.etag)
        step.done(handle)
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
        let display = target.display(key)
        guard let saved, let bytes = context.savedCopies.savedCopy(saved) else {
            throw ShiplaneError("the saved copy of \(display) is missing; it stays deleted")
        }
        let client = try MatchS3Store.client(target: target, variables: context.environment.variables,
                                             transport: { context.transport(secrets: $0) }, now: { Date() })
        _ = try await client.put(key, bytes: Array(bytes), ifUnchangedFrom: nil)
    }
}

/// A match store file this run put in its bucket. The undo, while the object still holds this
/// run's bytes (its `x-amz-meta-sha256`), puts back the bytes it replaced or deletes it when it
/// was new (If-Match on the ETag just read); an object someone wrote since is kept.
package struct MatchS3ObjectWritten: Effect, Equatable {
    package static let kind = "match.s3ObjectWritten"
    var target: S3Target
    var key: String
    /// The saved copy of the (encrypted) bytes replaced; nil when the object was new.
    var saved: String?
    /// Hex SHA-256 of the bytes put.
    var sha256: String
    /// The object's ETag once S3 answered.
    var etag: String?

    package var reach: EffectReach { .service }

    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let display = target.display(key)
        let client: S3Client
        do {
            client = try MatchS3Store.client(target: target, variables: context.environment.variables,
                                             transport: { context.transport(secrets: $0) }, now: { Date() })
        } catch {
            throw ShiplaneError("\(display) stays as this run wrote it: set MATCH_S3_ACCESS_KEY and MATCH_S3_SECRET_ACCESS_KEY (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) so rollback can put it back")
        }
        // The PUT never landed, or someone wrote the object since: nothing of this run's to undo there.
        guard let head = try await client.head(key), head.sha256 == sha256 else {
            if etag == nil { return }
            throw ShiplaneError("\(display) changed since this run put it (it holds other bytes now); left as it is")
        }
        if let saved {
            guard let bytes = context.savedCopies.savedCopy(saved) else {
                throw ShiplaneError("the bytes \(display) held before this run are no longer saved; it stays as this run wrote it")
            }
            guard try await client.put(key, bytes: Array(bytes), ifUnchangedFrom: head.etag) != nil else {
                throw ShiplaneError("\(display) changed since this run put it (S3 refused the conditional write); left as it is")
            }
        } else {
            try await client.delete(key, ifMatch: head.etag)
        }
    }
}
