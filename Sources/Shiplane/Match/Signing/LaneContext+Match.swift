import Foundation

extension LaneContext {
    /// Makes sure the match store holds a valid signing certificate with its key and a valid
    /// profile for each bundle ID — fastlane's `match`: with `readonly`, from the store alone
    /// (no App Store Connect call, nothing written); otherwise asking App Store Connect and making
    /// what is missing or expires within `renewWithinDays` (each change undone by a rollback
    /// where Apple allows it). `store` is the match repository's URL (match's `git_url`; its
    /// `gitBranch`), changed by one commit pushed by compare and swap; `s3://BUCKET/PREFIX` (match's
    /// S3 storage, the team folder of `FASTLANE_TEAM_ID`) or `gs://BUCKET` (match's Google Cloud
    /// storage), changed object by object; or a folder. `type` is match's type: `.appStore`, `.adHoc`,
    /// `.development`, `.enterprise` or `.developerID` (`MatchKind(rawValue: "appstore")` reads a
    /// Matchfile's word). Returns the values `xcodebuild` needs for manual signing,
    /// also set as the run's outputs: `match_code_sign_identity`, `match_team_id`,
    /// `match_certificate_id`, `match_profile_<bundle id>` and `match_profile_uuid_<bundle id>`
    /// (dots and dashes as `_`).
    /// - Throws: `ValidationFailure` naming every problem (an unknown platform, no bundle
    ///   ID, `MATCH_PASSWORD` unset, a readonly store missing a file); store and App Store Connect errors.
    @discardableResult
    public func match(
        type: MatchKind, appIdentifier: [String], readonly: Bool = false, store: String? = nil, platform: String = "ios",
        renewWithinDays: Int = 30, force: Bool = false, devices: [String: String] = [:], keychain: String? = nil,
        gitBranch: String = "master", file: String = #fileID, line: Int = #line
    ) async throws -> [String: String] {
        var problems: [String] = []
        let chosenPlatform = MatchPlatform(rawValue: platform.lowercased())
        if chosenPlatform == nil { problems.append("platform \(platform) is not ios, tvos or macos") }
        let storePath = store ?? ["MATCH_STORE", "MATCH_GIT_URL"].lazy.compactMap { self.environment[$0].flatMap { $0.isEmpty ? nil : $0 } }.first
            ?? MatchBucketStore.storeFromEnvironment(environment)
        if storePath == nil {
            problems.append("no store: pass store: (the match repository's URL, s3://BUCKET/PREFIX, gs://BUCKET or a folder) or set MATCH_STORE, MATCH_GIT_URL, MATCH_S3_BUCKET or MATCH_GOOGLE_CLOUD_BUCKET_NAME")
        }
        guard problems.isEmpty, let chosenPlatform, let storePath else {
            throw ValidationFailure(problems: problems, suggestion: "fix the match call; nothing was read or changed")
        }
        let action = MatchSigning(kind: type, platform: chosenPlatform, appIdentifiers: appIdentifier, readonly: readonly, store: storePath,
                                  renewWithinDays: renewWithinDays, forceProfiles: force, devices: devices, keychain: keychain, gitBranch: gitBranch)
        let result = try await run(action, file: file, line: line)
        return Dictionary(action.runOutputs(of: result), uniquingKeysWith: { first, _ in first })
    }
}

extension MatchSigning: DocumentedAction {
    /// How `lane.match` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Stores",
        summary: "fastlane match: a valid signing certificate with its key and a profile per bundle ID in match's encrypted store, made through App Store Connect when missing or expiring",
        signature: "try await lane.match(type: MatchKind, appIdentifier: [String], readonly: Bool = false, store: String? = nil, platform: String = \"ios\", renewWithinDays: Int = 30, force: Bool = false, devices: [String: String] = [:], keychain: String? = nil, gitBranch: String = \"master\") -> [String: String]",
        parameters: [
            .init(name: "type", type: "MatchKind", defaultValue: nil, help: ".appStore, .adHoc, .development, .enterprise or .developerID (match's appstore, adhoc, development, enterprise, developer_id)"),
            .init(name: "appIdentifier", type: "[String]", defaultValue: nil, help: "the bundle IDs to sign: [\"com.example.app\"]"),
            .init(name: "readonly", type: "Bool", defaultValue: "false", help: "read the store only: no App Store Connect call, nothing written"),
            .init(name: "store", type: "String?", defaultValue: "nil", help: "the match repository's URL (one commit pushed per run), s3://BUCKET/PREFIX (match's S3 layout, FASTLANE_TEAM_ID's folder), gs://BUCKET (match's Google Cloud layout), or a folder; nil: MATCH_STORE, else MATCH_GIT_URL, else MATCH_S3_BUCKET, else MATCH_GOOGLE_CLOUD_BUCKET_NAME"),
            .init(name: "platform", type: "String", defaultValue: "\"ios\"", help: "ios, tvos or macos"),
            .init(name: "renewWithinDays", type: "Int", defaultValue: "30", help: "renew a certificate or profile expiring within this many days"),
            .init(name: "force", type: "Bool", defaultValue: "false", help: "make every profile again (match's force)"),
            .init(name: "devices", type: "[String: String]", defaultValue: "[:]", help: "development and adhoc: devices to register first, name to UDID"),
            .init(name: "keychain", type: "String?", defaultValue: "nil", help: "macOS: the keychain to import into (made when missing)"),
            .init(name: "gitBranch", type: "String", defaultValue: "\"master\"", help: "the match repository's branch (match's git_branch)"),
        ],
        example: #"try await lane.match(type: .appStore, appIdentifier: ["com.example.app"], readonly: true)"#,
        dryRun: "reads the store and App Store Connect, and says which certificate, bundle IDs, devices and profiles it would make and which store files it would write",
        rollback: "revokes a certificate the run created, deletes profiles and bundle IDs it created, puts back the store files it wrote (in a repository: a commit that reverts its commit, while the branch still ends with it); registered devices and profiles it replaced stay (Apple cannot take them back)"
    )
}
