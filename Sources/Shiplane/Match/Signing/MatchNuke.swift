import Foundation
internal import Git

/// `shiplane match nuke TYPE`: revokes the team's certificates of the type, deletes its profiles
/// (every platform) and removes their files from the store — fastlane's `match nuke`. Without
/// `confirmed` it only lists what it would do and refuses, changing nothing. In a match
/// repository the files go in one commit pushed by compare and swap (`match.storePushed`, undone
/// by a commit that puts them back); in a bucket or a folder, file by file, each with its undo.
///
/// The step of a command, not a lane action: no lane method calls it (revoking a team's
/// certificates from a release lane is not something to make easy), so the action catalog does
/// not list it; its conformance is declared apart for that reason.
package struct MatchNuke {
    package static let name = "matchNuke"

    package var kind: MatchKind
    package var store: String
    package var confirmed: Bool
    /// The match repository's branch (match's `git_branch`), when `store` is a repository.
    package var gitBranch = "master"

    package init(kind: MatchKind, store: String, confirmed: Bool, gitBranch: String = "master") {
        self.kind = kind
        self.store = store
        self.confirmed = confirmed
        self.gitBranch = gitBranch
    }

}

extension MatchNuke: AsyncAction {
    package var options: [StepOption] {
        var options = [StepOption("type", kind.rawValue), StepOption("store", MatchGitStore.withoutCredentials(store)), StepOption("confirmed", String(confirmed))]
        if MatchGitStore.isRepository(store) && gitBranch != "master" { options.append(StepOption("gitBranch", gitBranch)) }
        return options
    }

    /// What was (or would be) revoked, deleted and removed, one line each.
    /// - Throws: `ValidationFailure` (usage) when not confirmed, listing everything; App Store Connect errors.
    package func run(in step: StepContext) async throws -> [String] {
        let lane = step.lane
        // A match repository: its branch read into a private scratch folder (removed at the end).
        var git: MatchGitStore?
        if MatchGitStore.isRepository(store) {
            let credentials = MatchGitStore.credentials(for: store, environment: lane.environment, registerSecret: lane.registerSecret)
            git = try await MatchGitStore.open(store, branch: gitBranch, credentials: credentials, base: MatchScratch.base(lane.environment.variables), keys: false)
        }
        defer { git?.remove() }
        // A bucket store (S3 or Google Cloud Storage): read as match's layout, under FASTLANE_TEAM_ID's folder.
        let bucket = MatchBucketStore.isBucket(store) ? try await MatchBucketStore.open(store, step: step, readonly: true) : nil
        let variables = lane.environment.variables
        let credentials = try AppStoreConnectStore.readCredentials(variables, workingDirectory: lane.workingDirectory)
        let client = AppStoreConnectStore.connect(credentials, app: nil, variables: variables, transport: step.httpTransport(),
                                                  now: lane.state.now).client
        let types = Array(Set(MatchPlatform.allCases.flatMap { kind.certificateTypes(for: $0) })).sorted()
        let certificates = try await client.certificates(types: types)
        var profiles: [AppStoreConnectClient.ProfileResource] = []
        for type in Set(MatchPlatform.allCases.compactMap { kind.profileType(for: $0) }).sorted() {
            profiles += try await client.profiles(type: type)
        }
        let root = git?.shown ?? bucket?.shown ?? step.resolve(store)
        var files: [String] = []
        for folder in ["certs/\(kind.certificateFolder)", "profiles/\(kind.rawValue)"] {
            let names = git?.names(in: folder) ?? bucket?.names(in: folder)
                ?? ((try? FileManager.default.contentsOfDirectory(atPath: root + "/" + folder)) ?? []).sorted()
            for name in names where !name.hasPrefix(".") { files.append(folder + "/" + name) }
        }
        var lines = certificates.map { "revoke certificate \($0.id) (\($0.attributes?.certificateType ?? "?"), \($0.attributes?.displayName ?? $0.attributes?.name ?? ""))" }
        lines += profiles.map { "delete profile \($0.id) (\($0.attributes?.name ?? ""))" }
        lines += files.map { "remove \($0) from the store" }
        guard confirmed, !step.isDryRun else {
            if step.isDryRun { lines.forEach { step.log("would " + $0) }; return lines }
            throw ValidationFailure(
                problems: ["nuke revokes and deletes for good; nothing was changed. It would:"] + lines,
                suggestion: "run it again with --yes (lane: confirmed: true) to do it — every machine that signs with these certificates needs new ones afterwards")
        }
        for certificate in certificates {
            let handle = try step.record(SigningChangeStays(what: "certificate \(certificate.id) revoked by nuke"), "certificate \(certificate.id) stays revoked")
            try await client.revokeCertificate(id: certificate.id)
            step.done(handle)
        }
        for profile in profiles {
            let handle = try step.record(SigningChangeStays(what: "profile \(profile.id) deleted by nuke"), "profile \(profile.id) stays deleted")
            try await client.deleteProfile(id: profile.id)
            step.done(handle)
        }
        if let git, !files.isEmpty {
            // One commit, pushed only while the branch is where it was read; a rollback reverts it.
            let commit = try await git.pushRecorded(files.map { (path: $0, contents: nil) },
                                                    message: "[shiplane] Removed \(kind.rawValue) (nuke)", step: step)
            step.log("pushed the removal of \(files.count) file\(files.count == 1 ? "" : "s") to \(git.shown) (\(git.branch)), commit \(commit.short)")
        }
        if let bucket {
            for file in files { try await bucket.remove(file, step: step) }
        }
        for file in files where bucket == nil && git == nil {
            let path = root + "/" + file
            let before = FileManager.default.contents(atPath: path)
            let handle = try step.record(MatchStoreFileRemoved(path: path, saved: try step.saveCopy(before)), "put \(file) back in the store")
            try lane.fileSystem.remove(path)
            step.done(handle)
        }
        step.note("revoked \(certificates.count), deleted \(profiles.count) profile\(profiles.count == 1 ? "" : "s"), removed \(files.count) file\(files.count == 1 ? "" : "s")")
        return lines
    }
}

/// A store file `nuke` removed: the undo puts the saved (still encrypted) bytes back while
/// nothing else has taken its place.
package struct MatchStoreFileRemoved: Effect, Equatable {
    package static let kind = "match.storeFileRemoved"
    package var path: String
    package var saved: String?

    package init(path: String, saved: String?) {
        self.path = path
        self.saved = saved
    }

    package var reach: EffectReach { .local }

    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        guard try context.fileSystem.contents(of: path) == nil else { return }
        guard let saved, let bytes = context.savedCopies.savedCopy(saved) else {
            throw ShiplaneError("the saved copy of \(context.display(path)) is missing; it stays removed")
        }
        try context.fileSystem.write(bytes, to: path)
    }
}
