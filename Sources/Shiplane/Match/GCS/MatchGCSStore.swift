import Foundation

/// A match store in a Google Cloud Storage bucket, laid out as fastlane match's Google Cloud
/// storage lays it out (`match/lib/match/storage/google_cloud_storage.rb`): every certificate and
/// profile under a folder named after the team id (`TEAMID/certs/distribution/ID.cer`), each file
/// encrypted as in a git store; `match_version.txt` and `README.md` at the bucket's root. Named
/// `gs://BUCKET` (or match's `MATCH_GOOGLE_CLOUD_BUCKET_NAME`); `gs://BUCKET/PREFIX` puts the same
/// layout under a prefix, which match itself never does. Read whole at the start (objects.list
/// and objects.get), written object by object, each write conditional on the generation read
/// (0: the object must not exist yet) and recorded with an undo that holds to the generation it left.
package struct MatchGCSStore {
    let client: GCSClient
    /// Empty (match's layout), or ending with `/`.
    let prefix: String
    /// The team folder; nil when there is none yet and no team id was given.
    let team: String?
    /// The store's objects by their path in a match store (prefix and team folder left out).
    let objects: [String: (bytes: Data, generation: Int64)]
    /// Keys kept for certificates asked for (`<type>-<digest>` → `key.json`'s bytes), under
    /// `PREFIX.shiplane-match-keys/`, which match never reads.
    var pendingKeys: [String: Data] = [:]

    var shown: String { "gs://\(client.target.bucket)/\(prefix)" }

    /// Whether `store` names a Google Cloud Storage bucket (`gs://…`).
    static func isBucket(_ store: String) -> Bool { store.lowercased().hasPrefix("gs://") }

    /// The store match's own variable names (`MATCH_GOOGLE_CLOUD_BUCKET_NAME`), as `gs://BUCKET/`.
    package static func storeFromEnvironment(_ environment: LaneEnvironment) -> String? {
        guard let bucket = environment["MATCH_GOOGLE_CLOUD_BUCKET_NAME"], !bucket.isEmpty else { return nil }
        return "gs://\(bucket)/"
    }

    /// Bucket and prefix of `gs://BUCKET[/PREFIX]`; a prefix gets a closing `/`.
    static func parse(_ store: String) -> (bucket: String, prefix: String)? {
        guard isBucket(store) else { return nil }
        let rest = store.dropFirst("gs://".count)
        let bucket = String(rest.prefix(while: { $0 != "/" }))
        var prefix = String(rest.dropFirst(bucket.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        if !prefix.isEmpty { prefix += "/" }
        guard !bucket.isEmpty else { return nil }
        return (bucket, prefix)
    }

    /// A client for `bucket` with the credentials match would use (`GCSCredentials.from`).
    static func client(bucket: String, variables: [String: String], workingDirectory: String, transport: HTTPTransport,
                       onToken: @escaping @Sendable (String) -> Void) throws -> GCSClient {
        GCSClient(target: GCSTarget.of(bucket: bucket, variables: variables),
                  credentials: try GCSCredentials.from(variables, workingDirectory: workingDirectory), transport: transport, onToken: onToken)
    }

    /// Checks the bucket and the credentials, then reads the store: the team folder of `team`, or,
    /// without one, the only team folder; and the two files at the prefix itself.
    /// - Throws: `GCSFailure` (bucket, credentials); `ShiplaneError` when several teams share it and none was named.
    static func open(_ store: String, team given: String?, client: GCSClient, keys: Bool = false) async throws -> MatchGCSStore {
        guard let (_, prefix) = parse(store) else {
            throw ShiplaneError("\(store) is not gs://BUCKET[/PREFIX]", suggestion: "name the bucket: gs://my-signing-bucket")
        }
        try await client.checkBucket()
        var team = given
        var listed: [GCSClient.ListedObject]
        if let team {
            listed = try await client.list(prefix: prefix + team + "/")
        } else {
            let everything = try await client.list(prefix: prefix)
            let teams = Set(everything.compactMap { object -> String? in
                let rest = object.name.dropFirst(prefix.count)
                guard let slash = rest.firstIndex(of: "/"), !rest.hasPrefix(".") else { return nil }
                return String(rest[..<slash])
            })
            guard teams.count <= 1 else {
                throw ShiplaneError("\(client.target.display(prefix)) holds the stores of several teams (\(teams.sorted().joined(separator: ", ")))",
                                    suggestion: "set FASTLANE_TEAM_ID to the team whose certificates to use (match's team_id); nothing was changed")
            }
            team = teams.first
            listed = everything.filter { object in team.map { object.name.hasPrefix(prefix + $0 + "/") } ?? false }
        }
        var objects: [String: (bytes: Data, generation: Int64)] = [:]
        for object in listed where !object.name.hasSuffix("/") {
            guard let team, let got = try await client.get(object.name) else { continue }
            objects[String(object.name.dropFirst(prefix.count + team.count + 1))] = got
        }
        for name in MatchS3Store.rootFiles.sorted() {
            if let got = try await client.get(prefix + name) { objects[name] = got }
        }
        var pending: [String: Data] = [:]
        if keys {
            for object in try await client.list(prefix: prefix + MatchS3Store.keyFolder) where object.name.hasSuffix(".json") {
                if let got = try await client.get(object.name) {
                    pending[String(object.name.dropFirst(prefix.count + MatchS3Store.keyFolder.count).dropLast(".json".count))] = got.bytes
                }
            }
        }
        return MatchGCSStore(client: client, prefix: prefix, team: team, objects: objects, pendingKeys: pending)
    }

    /// The object a certificate's key is kept in until the store holds the certificate.
    func keyObject(name: String) -> String { prefix + MatchS3Store.keyFolder + name + ".json" }

    /// Puts the key kept under `name` only while there is none (generation 0): a key of that name
    /// is the same key (the name holds its digest), kept by an earlier run, and stays as it is.
    func putKey(_ data: Data, name: String) async throws {
        _ = try await client.put(keyObject(name: name), bytes: data, ifGeneration: 0)
    }

    /// Deletes the key kept under `name`; a failure is only reported (the next run deletes it).
    func deleteKey(name: String) async -> Bool {
        let key = keyObject(name: name)
        guard let generation = try? await client.generation(key) else { return true }
        return (try? await client.delete(key, ifGeneration: generation)) == true
    }

    /// The object name of a store path: at the prefix for match's version file and README, in the
    /// team folder for everything else; nil without a team.
    func key(for path: String) -> String? {
        if MatchS3Store.rootFiles.contains(path) { return prefix + path }
        return team.map { prefix + $0 + "/" + path }
    }

    func contents(_ path: String) -> Data? { objects[path]?.bytes }

    /// The names of the files directly in `folder`.
    func names(in folder: String) -> [String] {
        let start = folder.hasSuffix("/") ? folder : folder + "/"
        return objects.keys.filter { $0.hasPrefix(start) && !$0.dropFirst(start.count).contains("/") }.map { String($0.dropFirst(start.count)) }.sorted()
    }

    /// Writes each changed file through a recorded effect, each only while the object still has
    /// the generation this run read (0 when it read none): another machine's write meanwhile makes
    /// Google refuse it (412), and the step stops there. Returns the names written.
    /// - Throws: `ShiplaneError` when an object changed since it was read; `GCSFailure`.
    func write(_ files: [(path: String, contents: Data)], step: StepContext) async throws -> [String] {
        var written: [String] = []
        for (path, contents) in files {
            guard let name = key(for: path) else {
                throw ShiplaneError("no team folder to write \(path) into in \(shown)",
                                    suggestion: "set FASTLANE_TEAM_ID to the team's id (match's team_id); nothing more was written")
            }
            let before = objects[path]
            if before?.bytes == contents { continue }
            var effect = MatchGCSObjectWritten(target: client.target, name: name, saved: try step.saveCopy(before?.bytes),
                                               sha256: SHA256.hex(of: contents), generation: nil)
            let handle = try step.record(effect, before == nil ? "delete \(client.target.display(name))" : "put the earlier \(client.target.display(name)) back")
            guard let generation = try await client.put(name, bytes: contents, ifGeneration: before?.generation ?? 0) else {
                step.done(handle, effect)
                throw ShiplaneError("\(client.target.display(name)) changed since this run read it (Google refused the write: its generation is no longer \(before?.generation ?? 0)); it was not written",
                                    suggestion: "run match again: it reads the store anew (another machine's match run wrote it meanwhile)")
            }
            effect.generation = generation
            step.done(handle, effect)
            written.append(name)
        }
        return written
    }
}

extension MatchGCSStore {
    /// Deletes a store file (`nuke`) through a recorded effect whose undo puts it back; only
    /// while the object still has the generation read.
    func remove(_ path: String, step: StepContext) async throws {
        guard let name = key(for: path), let object = objects[path] else { return }
        let handle = try step.record(MatchGCSObjectRemoved(target: client.target, name: name, saved: try step.saveCopy(object.bytes)),
                                     "put \(client.target.display(name)) back")
        guard try await client.delete(name, ifGeneration: object.generation) else {
            step.done(handle)
            throw ShiplaneError("\(client.target.display(name)) changed since nuke read it (its generation is no longer \(object.generation)); it was not deleted",
                                suggestion: "run nuke again: it reads the store anew")
        }
        step.done(handle)
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
        let display = target.display(name)
        guard let saved, let bytes = context.savedCopies.savedCopy(saved) else {
            throw ShiplaneError("the saved copy of \(display) is missing; it stays deleted")
        }
        let client = GCSClient(target: target, credentials: try GCSCredentials.from(context.environment.variables, workingDirectory: context.workTree),
                               transport: context.transport())
        _ = try await client.put(name, bytes: bytes, ifGeneration: 0)
    }
}

/// A match store object this run wrote in its Google Cloud Storage bucket (a store file, or a
/// kept key). The undo, while the object still has the generation this run left, puts back the
/// bytes it replaced or deletes it when it was new — both conditional on that generation, so an
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
        let display = target.display(name)
        let client: GCSClient
        do {
            client = GCSClient(target: target, credentials: try GCSCredentials.from(context.environment.variables, workingDirectory: context.workTree),
                               transport: context.transport())
        } catch {
            throw ShiplaneError("\(display) stays as this run wrote it: set MATCH_GOOGLE_CLOUD_KEYS_FILE so rollback can put it back")
        }
        var left = generation
        if left == nil {
            // Killed before Google answered: the object is this run's only when it holds these bytes.
            guard let now = try await client.get(name), sha256 == nil || SHA256.hex(of: now.bytes) == sha256 else { return }
            left = now.generation
        }
        guard let left else { return }
        if let saved {
            guard let bytes = context.savedCopies.savedCopy(saved) else {
                throw ShiplaneError("the bytes \(display) held before this run are no longer saved; it stays as this run wrote it")
            }
            guard try await client.put(name, bytes: bytes, ifGeneration: left) != nil else {
                throw ShiplaneError("\(display) changed since this run wrote it (its generation is no longer \(left)); left as it is")
            }
        } else {
            guard try await client.delete(name, ifGeneration: left) else {
                throw ShiplaneError("\(display) changed since this run wrote it (its generation is no longer \(left)); left as it is")
            }
        }
    }
}
