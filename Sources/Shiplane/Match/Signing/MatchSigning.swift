import Foundation

/// What a match step left a lane: the signing identity and, per bundle ID, the profile — the
/// values `xcodebuild` takes for manual signing.
package struct MatchSigningResult: Codable, Equatable, Sendable {
    package struct Profile: Codable, Equatable, Sendable {
        package var bundleID: String
        /// The profile's name (`PROVISIONING_PROFILE_SPECIFIER`).
        package var name: String
        package var uuid: String
        /// Its path in the store.
        package var path: String
        package var expires: Date?
    }

    package var type: String
    package var certificateID: String
    /// The certificate's common name (`CODE_SIGN_IDENTITY`).
    package var identity: String?
    /// The team (`DEVELOPMENT_TEAM`).
    package var teamID: String?
    package var certificateExpires: Date
    package var profiles: [Profile]
    /// What changed at Apple and in the store (empty when everything was valid already).
    package var changes: [String]
}

/// `lane.match(…)` and `shiplane match TYPE`: makes sure the match store holds a valid signing
/// certificate with its key and a valid profile for each bundle ID, as fastlane match does —
/// reading the store, asking App Store Connect what is still valid, and (unless `readonly`)
/// creating what is missing or about to expire.
///
/// - `readonly` reads the store only: it never calls App Store Connect and writes nothing (as
///   match's readonly needs no login); every missing or expired file is named at once.
/// - Otherwise every change is a recorded effect: a certificate (revoked by a rollback), a
///   profile (deleted by a rollback), a bundle ID (deleted), devices (they stay), store files
///   (put back). A new certificate's key is kept, encrypted with the match password, under the
///   git folder until the step ends, so a run killed after Apple made the certificate adopts it
///   when it runs again instead of asking for a second one.
package struct MatchSigning: AsyncAction {
    package static let name = "match"
    package static let passwordVariable = "MATCH_PASSWORD"

    package var kind: MatchKind
    package var platform: MatchPlatform = .iOS
    package var appIdentifiers: [String]
    package var readonly = false
    /// The match store: the match repository's URL (match's `git_url`), `s3://BUCKET/PREFIX`
    /// (match's S3 storage), `gs://BUCKET` (match's Google Cloud storage), or a folder (a checkout of the repository; relative to the work tree).
    package var store: String
    /// The repository's branch (match's `git_branch`).
    package var gitBranch = "master"
    /// Renew a certificate or profile that expires within this many days.
    package var renewWithinDays = 30
    /// Make every profile again even when it is valid (match's `force`).
    package var forceProfiles = false
    /// Devices to register first (name → UDID), for development and ad hoc.
    package var devices: [String: String] = [:]
    /// macOS: the keychain to import into (a path; made when missing, as for CI); nil: none.
    package var keychain: String?

    package init(kind: MatchKind, platform: MatchPlatform = .iOS, appIdentifiers: [String], readonly: Bool = false, store: String,
                 renewWithinDays: Int = 30, forceProfiles: Bool = false, devices: [String: String] = [:], keychain: String? = nil,
                 gitBranch: String = "master") {
        self.gitBranch = gitBranch
        self.kind = kind
        self.platform = platform
        self.appIdentifiers = appIdentifiers
        self.readonly = readonly
        self.store = store
        self.renewWithinDays = renewWithinDays
        self.forceProfiles = forceProfiles
        self.devices = devices
        self.keychain = keychain
    }

    package var options: [StepOption] {
        var options = [StepOption("type", kind.rawValue), StepOption("appIdentifier", appIdentifiers.joined(separator: ", ")),
                       StepOption("store", MatchGitStore.withoutCredentials(store))]
        if MatchGitStore.isRepository(store) && gitBranch != "master" { options.append(StepOption("gitBranch", gitBranch)) }
        if platform != .iOS { options.append(StepOption("platform", platform.rawValue)) }
        if readonly { options.append(StepOption("readonly", "true")) }
        options.append(.secret("password"))
        return options
    }

    package func runOutputs(of output: MatchSigningResult) -> [(name: String, value: String)] {
        var outputs: [(name: String, value: String)] = [("match_certificate_id", output.certificateID)]
        if let identity = output.identity { outputs.append(("match_code_sign_identity", identity)) }
        if let team = output.teamID { outputs.append(("match_team_id", team)) }
        for profile in output.profiles {
            let key = profile.bundleID.map { $0.isLetter || $0.isNumber ? $0 : "_" }.reduce(into: "") { $0.append($1) }
            outputs.append(("match_profile_\(key)", profile.name))
            outputs.append(("match_profile_uuid_\(key)", profile.uuid))
        }
        return outputs
    }

    /// Checks the request, reads the store, and brings it (and the team's account) up to date.
    /// - Throws: `ValidationFailure` with every problem of the request or a readonly store;
    ///   `MatchStoreError` for the store; App Store Connect errors.
    package func run(in step: StepContext) async throws -> MatchSigningResult {
        let lane = step.lane
        var problems: [String] = []
        if appIdentifiers.isEmpty { problems.append("no app identifier: name the bundle IDs to sign (appIdentifier: [\"com.example.app\"])") }
        if kind.profileType(for: platform) == nil { problems.append("match has no \(kind.rawValue) profiles for \(platform.rawValue)") }
        if renewWithinDays < 0 { problems.append("renewWithinDays must be 0 or more") }
        let password = lane.environment[Self.passwordVariable] ?? ""
        if password.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            problems.append("\(Self.passwordVariable) is not set: the store's password is read from it (never from the command line)")
        }
        guard problems.isEmpty else {
            throw ValidationFailure(problems: problems, suggestion: "fix the match call (and export MATCH_PASSWORD from the CI's secrets); nothing was read or changed")
        }
        lane.registerSecret(password)
        let base = MatchScratch.base(lane.environment.variables)
        for removed in MatchScratch.removeLeftovers(base: base) { step.log("removed \(removed), decrypted files a killed run left") }
        var git: MatchGitStore?
        if MatchGitStore.isRepository(store) {
            let credentials = MatchGitStore.credentials(for: store, environment: lane.environment, registerSecret: lane.registerSecret)
            git = try await MatchGitStore.open(store, branch: gitBranch, credentials: credentials, base: base, keys: !readonly)
        }
        defer { git?.remove() }
        let bucket = MatchBucketStore.isBucket(store) ? try await MatchBucketStore.open(store, step: step, readonly: readonly) : nil
        let local = git == nil && bucket == nil
        var sync = MatchSync(step: step, request: self, store: local ? step.resolve(store) : store, password: password, git: git, bucket: bucket)
        let result = readonly ? try sync.readStoreOnly() : try await sync.bringUpToDate()
        try await sync.finishWrites()
        try await sync.install(result)
        step.note(result.changes.isEmpty ? "\(kind.rawValue): valid (certificate \(result.certificateID), \(result.profiles.count) profile\(result.profiles.count == 1 ? "" : "s"))"
                  : "\(kind.rawValue): \(result.changes.count) change\(result.changes.count == 1 ? "" : "s")")
        return result
    }
}
