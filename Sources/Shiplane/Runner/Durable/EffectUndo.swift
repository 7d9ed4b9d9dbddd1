import Foundation
internal import Git

/// Undoes a recorded effect from its data alone, in any process, and only if the world still
/// holds exactly what the run left: a file its bytes (by hash), a branch its commit, a tag its
/// object. Anything else is reported and left alone.
struct EffectUndo: Sendable {
    let store: RunStore
    let workTree: String
    /// The environment a network undo takes its token from.
    var environment = LaneEnvironment(variables: [:])

    /// Undoes `entry`; returns normally when the effect is gone (or never landed).
    /// - Throws: `ShiplaneError` saying what stays and why.
    func undo(_ entry: RecordedEffect) async throws {
        switch entry.effect {
        case .githubRelease(let api, let repository, let id, let tag):
            try await deleteGitHubRelease(api: api, repository: repository, id: id, tag: tag)
        case .appStoreBuildUpload(let api, let uploadID, let label, let appID, let version, let buildNumber):
            try await deleteBuildUpload(api: api, uploadID: uploadID, label: label, appID: appID, version: version, buildNumber: buildNumber)
        case .playStoreEdit(let api, let packageName, let editID):
            try await deletePlayEdit(api: api, packageName: packageName, editID: editID)
        case .file(let path, let saved, let afterHash):
            try undoFile(path: path, saved: saved, afterHash: afterHash)
        case .folders(let paths):
            for folder in paths.reversed() {
                var info = stat()
                guard lstat(folder, &info) == 0 else { continue }
                let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                guard entries.isEmpty else {
                    throw ShiplaneError("\(display(folder)) holds files Shiplane did not write; left as it is")
                }
                rmdir(folder)
            }
        case .commit(let branch, let parent, let message, let commit):
            if entry.status == .intended { removeStaleLocks(["refs/heads/\(branch).lock", "index.lock", "HEAD.lock"]) }
            try undoCommit(branch: branch, parent: parent, message: message, commit: commit)
        case .tag(let name, let target, let object, _):
            if entry.status == .intended { removeStaleLocks(["refs/tags/\(name).lock"]) }
            try undoTag(name: name, target: target, object: object)
        case .push(let remote, let refs):
            throw ShiplaneError("pushed \(refs.joined(separator: ", ")) to \(remote): others may have it, so it stays")
        case .external(let kind, let handle):
            if let staying = StayingEffect(rawValue: kind) { throw staying.stays(handle, certain: entry.status == .done) }
            throw ShiplaneError("not done (\(kind == "effect" ? handle : kind + " " + handle)): only the process that made it can undo it; do it by hand if it should go")
        }
    }

    /// The lock files a git write that was killed midway leaves (libgit2, like git, writes
    /// `NAME.lock` and renames it). Only called for an effect the record shows was in flight, by the
    /// process holding the run lock, and only for files older than this process's first look: what the killed
    /// run left, not what a git command running now holds.
    private func removeStaleLocks(_ names: [String]) {
        let gitFolder = (store.folder as NSString).deletingLastPathComponent
        let started = Self.processStart
        for name in names {
            let path = gitFolder + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, Double(info.st_mtim.tv_sec) < started else { continue }
            unlink(path)
        }
    }

    /// When this process first looked (seconds since 1970): a lock file older than that is stale.
    private static let processStart = Date().timeIntervalSince1970

    private func deleteGitHubRelease(api: String, repository: String, id: Int?, tag: String) async throws {
        let variables = environment.variables.merging(["GITHUB_API_URL": api]) { $1 }
        guard let token = GitHubReleasePublisher.token(from: variables) else {
            throw ShiplaneError("the GitHub release \(tag) stays: set GITHUB_TOKEN (or GH_TOKEN) so rollback can delete it, or delete it by hand")
        }
        let transport = HTTPTransport(
            sender: LiveHTTPClient(), retryPolicy: RetryPolicy(environment: environment),
            redactor: SecretRedactor(secrets: Array(environment.secretValues) + [token])
        )
        let client = try GitHubClient(
            repository: try GitHubRepository(remoteURL: repository), token: token, environment: variables, transport: transport,
            version: ShiplaneVersion.current
        )
        if let id {
            try await client.deleteRelease(id: id)
            return
        }
        // The run was stopped while it asked GitHub to create the draft: whether it exists is
        // only known by looking. Only a draft is deleted; a published release is someone's.
        guard let found = try await client.release(forTag: tag) else { return }
        guard found.draft else {
            throw ShiplaneError("the GitHub release \(tag) is published and was not made by this run's finished steps; left as it is")
        }
        try await client.deleteRelease(id: found.id)
    }

    /// HTTP for an undo made from the record: the environment's retry policy and secrets.
    private func transport(secrets: [String] = []) -> HTTPTransport {
        HTTPTransport(
            sender: LiveHTTPClient(), retryPolicy: RetryPolicy(environment: environment),
            redactor: SecretRedactor(secrets: Array(environment.secretValues) + secrets)
        )
    }

    /// Deletes the build upload `uploadID`; with no id (the create call's answer never came), the
    /// upload of that app, version and build number that still awaits its file, if any.
    private func deleteBuildUpload(
        api: String, uploadID: String?, label: String, appID: String?, version: String?, buildNumber: String?
    ) async throws {
        let variables = environment.variables.merging([AppStoreConnectCredentials.apiURLVariable: api]) { $1 }
        let credentials: AppStoreConnectCredentials
        do {
            credentials = try AppStoreConnectCredentials.fromEnvironment(variables, workingDirectory: workTree)
        } catch {
            throw ShiplaneError(
                "the build upload for \(label) stays: the App Store Connect key is not set here (\(describe(error)))",
                suggestion: "set APP_STORE_CONNECT_KEY_ID, APP_STORE_CONNECT_ISSUER_ID and the key, then run `shiplane rollback`, or delete it by hand")
        }
        let client = AppStoreConnectClient(credentials: credentials, environment: variables, transport: transport(), version: ShiplaneVersion.current)
        guard let uploadID else {
            // Asked for, but the answer was lost: only an upload still awaiting its file is this run's.
            if let appID, let version, let buildNumber {
                _ = try await client.deleteUnfinishedUploads(appID: appID, version: version, buildNumber: buildNumber)
            }
            return
        }
        // Once Apple has made the build, it cannot be deleted: say so rather than delete the upload record under it.
        if let upload = try? await client.buildUpload(id: uploadID), upload.attributes?.state?.state == "COMPLETE" {
            throw ShiplaneError(
                "App Store Connect accepted build \(label); a build cannot be deleted, so it stays",
                suggestion: "expire it in TestFlight if testers must not get it; the next upload needs a new build number")
        }
        try await client.deleteBuildUpload(id: uploadID)
    }

    private func deletePlayEdit(api: String, packageName: String, editID: String) async throws {
        let variables = environment.variables.merging([GooglePlayServiceAccount.apiURLVariable: api]) { $1 }
        let account: GooglePlayServiceAccount
        do {
            account = try GooglePlayServiceAccount.fromEnvironment(variables, workingDirectory: workTree)
        } catch {
            throw ShiplaneError(
                "the Google Play edit \(editID) stays: the service account is not set here (\(describe(error)))",
                suggestion: "set GOOGLE_PLAY_SERVICE_ACCOUNT_JSON, then run `shiplane rollback`; an open edit expires on its own")
        }
        let client = GooglePlayClient(account: account, packageName: packageName, environment: variables, transport: transport())
        try await client.deleteEdit(editID)
    }

    private func display(_ path: String) -> String {
        path.hasPrefix(workTree + "/") ? String(path.dropFirst(workTree.count + 1)) : path
    }

    private func undoFile(path: String, saved: String?, afterHash: String) throws {
        removeTemporaryCopies(of: path)
        let current = FileManager.default.contents(atPath: path)
        let before = saved.flatMap { store.savedCopy($0) }
        if saved != nil && before == nil {
            throw ShiplaneError("the saved copy of \(display(path)) is missing; left as it is")
        }
        guard let current else {
            // Gone: either never written (an interrupted first write) or removed since.
            if before == nil { return }
            throw ShiplaneError("\(display(path)) was deleted after Shiplane wrote it; left as it is")
        }
        if let before, current == before { return }
        guard afterHash == Effect.writtenByATool || SHA256.hex(of: current) == afterHash else {
            throw ShiplaneError("\(display(path)) changed after Shiplane wrote it; left as it is")
        }
        if let before {
            try writeAtomically(before, to: path)
        } else if unlink(path) != 0 {
            throw ShiplaneError("could not remove \(display(path)): \(String(cString: strerror(errno)))")
        }
    }

    /// Temporary files an interrupted atomic write left next to `path` (`.NAME.shiplane-PID-N`).
    private func removeTemporaryCopies(of path: String) {
        let folder = (path as NSString).deletingLastPathComponent
        let prefix = "." + (path as NSString).lastPathComponent + ".shiplane-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(prefix) {
            unlink(folder + "/" + name)
        }
    }

    private func undoCommit(branch: String, parent: String, message: String, commit: String?) throws {
        let repository = try RepositoryAccess.open(at: workTree)
        let state = try git { try repository.head() }
        if case .unborn(let name) = state, name == branch, parent.isEmpty { return }
        guard case .branch(let name, let head) = state, name == branch else {
            throw ShiplaneError("HEAD is no longer on \(branch): the release commit is left as it is")
        }
        if head.hex == parent { return }
        let ours: Bool
        if let commit {
            ours = head.hex == commit
        } else {
            // The commit was being made when the run stopped: it is ours if it sits right on the
            // recorded parent with the recorded message.
            let read = try git { try repository.commitParentsAndMessage(head) }
            ours = (read.parents.first?.hex ?? "") == parent && read.message.trimmingCharacters(in: .whitespacesAndNewlines)
                == message.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard ours, try git({ try repository.undoCommit(head) }) else {
            throw ShiplaneError("\(branch) moved on after the release commit: the commit is kept")
        }
    }

    private func undoTag(name: String, target: String, object: String?) throws {
        let repository = try RepositoryAccess.open(at: workTree)
        guard let tag = try git({ try repository.tag(named: name) }) else { return }
        let ours = object.map { tag.object.hex == $0 } ?? (tag.target.hex == target)
        guard ours, try git({ try repository.deleteTag(name: name, ifPointsAt: tag.object) }) else {
            throw ShiplaneError("tag \(name) was moved after Shiplane created it: kept")
        }
    }
}
