import Foundation

/// The four calls a match store makes of a bucket service, each object read with its version
/// (S3's ETag, Google Cloud Storage's generation, as a string) and each change conditional on
/// it. S3 (`MatchS3Bucket`) and Google Cloud Storage (`MatchGCSBucket`) implement it in their
/// own files, with the recorded values of their writes; `MatchBucketStore` and the undo of those
/// values are written once over it.
package protocol MatchBucketClient: Sendable {
    /// How messages name an object: `s3://BUCKET/KEY`, `gs://BUCKET/NAME`.
    func display(_ key: String) -> String
    /// Every object key under `prefix`, page after page.
    func list(prefix: String) async throws -> [String]
    /// An object's bytes and their version; nil when there is none.
    func get(_ key: String) async throws -> (bytes: Data, version: String)?
    /// Writes `bytes` only while the object still has `version` (nil: only while there is none);
    /// the new version, or nil when the service refused the precondition (412).
    func put(_ key: String, bytes: Data, ifVersion version: String?) async throws -> String?
    /// Deletes the object only while it has `version`; false when it has another (412). An object
    /// already gone counts as deleted.
    func delete(_ key: String, ifVersion version: String) async throws -> Bool

    /// The recorded value of a write of `key` (`saved`: the bytes it replaced; `sha256`: of the
    /// bytes written, nil for a kept key; `version`: once the service answered).
    func written(key: String, saved: String?, sha256: String?, version: String?) -> any Effect
    /// The recorded value of `nuke` deleting `key` (`saved`: its bytes).
    func removed(key: String, saved: String?) -> any Effect
}

/// A match store in a bucket, laid out as fastlane match's S3 and Google Cloud storages lay it
/// out (`match/lib/match/storage/s3_storage.rb`, `google_cloud_storage.rb`): every certificate
/// and profile under the prefix and a folder named after the team id
/// (`PREFIX` + `TEAMID/certs/distribution/ID.cer`), each file encrypted as in a git store;
/// `match_version.txt` and `README.md` under the prefix itself. Read whole at the start, written
/// object by object, each write conditional on the version read (create-only for a new object)
/// and a recorded effect whose undo holds to the version it left.
package struct MatchBucketStore {
    let client: any MatchBucketClient
    /// `s3://BUCKET/PREFIX` or `gs://BUCKET/PREFIX`, as messages name the store.
    let shown: String
    /// The object prefix as match joins it: empty, or ending with `/`.
    let prefix: String
    /// The team folder; nil when there is none yet and no team id was given (readonly then finds nothing).
    let team: String?
    /// The store's objects by their path in a match store (the prefix and team folder left out).
    let objects: [String: (bytes: Data, version: String)]
    /// Keys kept for certificates asked for (`<type>-<digest>` → `key.json`'s bytes), under
    /// `PREFIX.shiplane-match-keys/`, which match never reads.
    var pendingKeys: [String: Data] = [:]

    static let keyFolder = ".shiplane-match-keys/"

    /// Files match keeps under the prefix itself, outside the team folder.
    static let rootFiles: Set<String> = ["match_version.txt", "README.md"]

    /// The services a store can name, by scheme.
    static let schemes = ["s3://", "gs://"]

    /// Whether `store` names a bucket (`s3://…` or `gs://…`).
    static func isBucket(_ store: String) -> Bool { schemes.contains { store.lowercased().hasPrefix($0) } }

    /// The store match's own variables name (`MATCH_S3_BUCKET` and `MATCH_S3_OBJECT_PREFIX`, or
    /// `MATCH_GOOGLE_CLOUD_BUCKET_NAME`).
    package static func storeFromEnvironment(_ environment: LaneEnvironment) -> String? {
        MatchS3Bucket.storeFromEnvironment(environment) ?? MatchGCSBucket.storeFromEnvironment(environment)
    }

    /// Scheme, bucket and prefix of `SCHEME://BUCKET[/PREFIX]`; a prefix gets a closing `/` (match
    /// joins it as a folder).
    static func parse(_ store: String) -> (scheme: String, bucket: String, prefix: String)? {
        guard let scheme = schemes.first(where: { store.lowercased().hasPrefix($0) }) else { return nil }
        let rest = store.dropFirst(scheme.count)
        let bucket = String(rest.prefix(while: { $0 != "/" }))
        var prefix = String(rest.dropFirst(bucket.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        if !prefix.isEmpty { prefix += "/" }
        guard !bucket.isEmpty else { return nil }
        return (scheme, bucket, prefix)
    }

    /// Reaches the bucket `store` names with the credentials match would use (each secret
    /// registered), then reads the store under the team of `FASTLANE_TEAM_ID`.
    /// - Throws: `ValidationFailure` for a store that is not `SCHEME://BUCKET[/PREFIX]`, unusable
    ///   credentials, or no team to write under (`readonly` may find none); the service's failure.
    static func open(_ store: String, step: StepContext, readonly: Bool) async throws -> MatchBucketStore {
        let variables = step.lane.environment.variables
        guard let (scheme, bucket, _) = parse(store) else {
            throw ValidationFailure(problems: ["\(store) is not s3://BUCKET[/PREFIX] or gs://BUCKET[/PREFIX]"],
                                    suggestion: "name the bucket: s3://my-signing-bucket/ or gs://my-signing-bucket; nothing was read or changed")
        }
        let client: any MatchBucketClient
        let service: String
        do {
            switch scheme {
            case "s3://": (client, service) = (try await MatchS3Bucket.connect(bucket: bucket, step: step), "S3")
            default: (client, service) = (try await MatchGCSBucket.connect(bucket: bucket, step: step), "Google Cloud")
            }
        } catch let failure as ShiplaneError {
            throw ValidationFailure(problems: [failure.message], suggestion: failure.suggestion ?? "nothing was read or changed")
        }
        let team = ["FASTLANE_TEAM_ID", "MATCH_TEAM_ID"].lazy.compactMap { variables[$0].flatMap { $0.isEmpty ? nil : $0 } }.first
        let opened = try await read(store, team: team, client: client, keys: !readonly)
        if opened.team == nil && !readonly {
            throw ValidationFailure(problems: ["\(opened.shown) holds no team folder and FASTLANE_TEAM_ID is not set: match's \(service) storage keeps each team's files under its team id"],
                                    suggestion: "set FASTLANE_TEAM_ID to the team's id (match's team_id); nothing was changed")
        }
        return opened
    }

    /// Reads the store: the team folder of `team`, or, without one, the only team folder under
    /// the prefix; and the two files under the prefix itself.
    /// - Throws: the service's failure; `ShiplaneError` when several teams share the prefix and none was named.
    static func read(_ store: String, team given: String?, client: any MatchBucketClient, keys: Bool = false) async throws -> MatchBucketStore {
        guard let (scheme, bucket, prefix) = parse(store) else {
            throw ShiplaneError("\(store) is not s3://BUCKET[/PREFIX] or gs://BUCKET[/PREFIX]", suggestion: "name the bucket: s3://my-signing-bucket/")
        }
        var team = given
        var listed: [String]
        if let team {
            listed = try await client.list(prefix: prefix + team + "/")
        } else {
            let everything = try await client.list(prefix: prefix)
            let teams = Set(everything.compactMap { key -> String? in
                let rest = key.dropFirst(prefix.count)
                guard let slash = rest.firstIndex(of: "/"), !rest.hasPrefix(".") else { return nil }
                return String(rest[..<slash])
            })
            guard teams.count <= 1 else {
                throw ShiplaneError("\(client.display(prefix)) holds the stores of several teams (\(teams.sorted().joined(separator: ", ")))",
                                    suggestion: "set FASTLANE_TEAM_ID to the team whose certificates to use (match's team_id); nothing was changed")
            }
            team = teams.first
            listed = everything.filter { key in team.map { key.hasPrefix(prefix + $0 + "/") } ?? false }
        }
        var objects: [String: (bytes: Data, version: String)] = [:]
        for key in listed where !key.hasSuffix("/") {
            guard let team, let got = try await client.get(key) else { continue }
            objects[String(key.dropFirst(prefix.count + team.count + 1))] = got
        }
        for name in rootFiles.sorted() {
            if let got = try await client.get(prefix + name) { objects[name] = got }
        }
        var pending: [String: Data] = [:]
        if keys {
            for key in try await client.list(prefix: prefix + keyFolder) where key.hasSuffix(".json") {
                if let got = try await client.get(key) {
                    pending[String(key.dropFirst(prefix.count + keyFolder.count).dropLast(".json".count))] = got.bytes
                }
            }
        }
        return MatchBucketStore(client: client, shown: scheme + bucket + "/" + prefix, prefix: prefix, team: team, objects: objects, pendingKeys: pending)
    }

    // MARK: - Kept keys

    /// The object a certificate's key is kept in until the store holds the certificate.
    func keyObject(name: String) -> String { prefix + Self.keyFolder + name + ".json" }

    /// Puts the key kept under `name` only while there is none: a key of that name is the same
    /// key (the name holds its digest), kept by an earlier run, and stays as it is.
    func putKey(_ data: Data, name: String) async throws {
        _ = try await client.put(keyObject(name: name), bytes: data, ifVersion: nil)
    }

    /// Deletes the key kept under `name`; a failure is only reported (the next run deletes it).
    func deleteKey(name: String) async -> Bool {
        let key = keyObject(name: name)
        guard let got = try? await client.get(key) else { return true }
        return (try? await client.delete(key, ifVersion: got.version)) == true
    }

    /// The recorded value of keeping the key `name`: its undo deletes whatever the object holds.
    func keptKey(name: String) -> any Effect { client.written(key: keyObject(name: name), saved: nil, sha256: nil, version: nil) }

    // MARK: - Files

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

    /// Writes each changed file through a recorded effect (its undo puts the earlier bytes back,
    /// or deletes a new object), each conditional on the object still being as it was read
    /// (another machine's match run may have written it meanwhile: the service answers 412 and
    /// the step stops there). Files holding the same bytes are not sent. Returns the keys written.
    /// - Throws: `ShiplaneError` when an object changed since it was read; the service's failure.
    func write(_ files: [(path: String, contents: Data)], step: StepContext) async throws -> [String] {
        var written: [String] = []
        for (path, contents) in files {
            guard let key = key(for: path) else {
                throw ShiplaneError("no team folder to write \(path) into in \(shown)",
                                    suggestion: "set FASTLANE_TEAM_ID to the team's id (match's team_id); nothing more was written")
            }
            let before = objects[path]
            if before?.bytes == contents { continue }
            let saved = try step.saveCopy(before?.bytes), sha256 = SHA256.hex(of: contents)
            let handle = try step.record(client.written(key: key, saved: saved, sha256: sha256, version: nil),
                                         before == nil ? "delete \(client.display(key))" : "put the earlier \(client.display(key)) back")
            guard let version = try await client.put(key, bytes: contents, ifVersion: before?.version) else {
                step.done(handle)
                throw ShiplaneError("\(client.display(key)) changed since this run read it (the bucket refused the conditional write: 412); it was not written",
                                    suggestion: "run match again: it reads the store anew (another machine's match run wrote it meanwhile)")
            }
            step.done(handle, client.written(key: key, saved: saved, sha256: sha256, version: version))
            written.append(key)
        }
        return written
    }

    /// Deletes a store file (`nuke`) through a recorded effect whose undo puts it back; only
    /// while the object still has the version read.
    /// - Throws: `ShiplaneError` when it changed since it was read; the service's failure.
    func remove(_ path: String, step: StepContext) async throws {
        guard let key = key(for: path), let object = objects[path] else { return }
        let handle = try step.record(client.removed(key: key, saved: try step.saveCopy(object.bytes)), "put \(client.display(key)) back")
        guard try await client.delete(key, ifVersion: object.version) else {
            step.done(handle)
            throw ShiplaneError("\(client.display(key)) changed since nuke read it (the bucket refused the conditional delete: 412); it was not deleted",
                                suggestion: "run nuke again: it reads the store anew")
        }
        step.done(handle)
    }
}

// MARK: - Undo

extension MatchBucketClient {
    /// The undo of a write: while the object still holds what this run left (the `version` the
    /// service answered; without one — killed before the answer — an object holding bytes of
    /// `sha256`, or any for a kept key), puts back the bytes it replaced or deletes it when it
    /// was new, conditional on that version. An object someone wrote since is kept.
    /// - Throws: `ShiplaneError` saying what was kept and why.
    func undoWrite(key: String, saved: String?, sha256: String?, version: String?, savedCopies: any SavedCopies) async throws {
        let display = display(key)
        var left = version
        if left == nil {
            // The write never landed, or someone wrote the object since: nothing of this run's there.
            guard let now = try await get(key), sha256 == nil || SHA256.hex(of: now.bytes) == sha256 else { return }
            left = now.version
        }
        guard let left else { return }
        let kept = ShiplaneError("\(display) changed since this run wrote it (it is no longer at the version this run left); left as it is")
        if let saved {
            guard let bytes = savedCopies.savedCopy(saved) else {
                throw ShiplaneError("the bytes \(display) held before this run are no longer saved; it stays as this run wrote it")
            }
            guard try await put(key, bytes: bytes, ifVersion: left) != nil else { throw kept }
        } else {
            guard try await delete(key, ifVersion: left) else { throw kept }
        }
    }

    /// The undo of `nuke`'s delete: puts the saved (encrypted) bytes back only while nothing has
    /// taken the object's place (create-only).
    /// - Throws: `ShiplaneError` when the saved copy is gone.
    func undoRemoval(key: String, saved: String?, savedCopies: any SavedCopies) async throws {
        guard let saved, let bytes = savedCopies.savedCopy(saved) else {
            throw ShiplaneError("the saved copy of \(display(key)) is missing; it stays deleted")
        }
        _ = try await put(key, bytes: bytes, ifVersion: nil)
    }
}
