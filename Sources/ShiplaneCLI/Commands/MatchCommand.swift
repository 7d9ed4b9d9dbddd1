import Foundation
import Shiplane

/// What `shiplane match` does to a match store.
enum MatchOperation: String, CaseIterable, ExpressibleByArgument {
    case decrypt
    case encrypt
    case changePassword = "change-password"
    case appstore
    case adhoc
    case development
    case enterprise
    case developerID = "developer_id"
    case nuke

    /// The match type a sync operation brings up to date (nil: a store operation or nuke).
    var kind: MatchKind? { MatchKind(rawValue: rawValue) }
}

/// The options of `shiplane match`.
struct MatchOptions: ParsableArguments {
    static let summary = "fastlane match: appstore|adhoc|development|enterprise|developer_id (certificates and profiles through App Store Connect), nuke TYPE, decrypt, encrypt, change-password (MATCH_PASSWORD)"

    @Argument(help: "appstore, adhoc, development, enterprise, developer_id, nuke, decrypt, encrypt or change-password")
    var operation: MatchOperation

    @Argument(help: "decrypt and change-password: the store (a checkout of the match repository); encrypt: the decrypted folder; nuke: the type")
    var folder: String?

    @Option(help: "appstore … developer_id and nuke: the match store, the match repository's URL, s3://BUCKET/PREFIX, gs://BUCKET or a folder (default: MATCH_STORE, else MATCH_GIT_URL, else MATCH_S3_BUCKET, else MATCH_GOOGLE_CLOUD_BUCKET_NAME)")
    var store: String?

    @Option(name: .customLong("git-branch"), help: "The match repository's branch (default: MATCH_GIT_BRANCH, else master)")
    var gitBranch: String?

    @Option(name: .customLong("app-identifier"), help: "The bundle IDs to sign (repeat it, or comma-separate; default: MATCH_APP_IDENTIFIER)")
    var appIdentifier: [String] = []

    @Option(help: "ios, tvos or macos")
    var platform: String = "ios"

    @Flag(help: "Only read the store: never call App Store Connect, never write (as match's readonly)")
    var readonly = false

    @Option(name: .customLong("renew-days"), help: "Renew a certificate or profile that expires within this many days")
    var renewDays: Int = 30

    @Flag(help: "Make every profile again, even those still valid (match's force)")
    var force = false

    @Option(name: .customLong("device"), help: "development and adhoc: register a device first, as NAME=UDID (repeatable)")
    var devices: [String] = []

    @Option(help: "macOS: the keychain to import the certificate into (made when missing, e.g. a temporary one in CI)")
    var keychain: String?

    @Flag(help: "nuke: revoke and delete for real (without it, nuke lists what it would do and changes nothing)")
    var yes = false

    @Option(help: "decrypt: a new folder for the decrypted files (default: a private temporary folder); encrypt: the store to write into")
    var output: String?

    @Flag(help: "encrypt and change-password: write match's legacy format (AES-256-CBC, Salted__, MD5: fastlane's force_legacy_encryption) instead of v2")
    var legacy = false
}

/// `shiplane match decrypt|encrypt|change-password FOLDER`: the password comes from
/// `MATCH_PASSWORD` (and the new one from `MATCH_NEW_PASSWORD`), never from the command line.
enum MatchCommand {
    static func run(session: CommandSession, environment: [String: String], options: MatchOptions) throws -> Int32 {
        func absolute(_ path: String) -> String { path.hasPrefix("/") ? path : session.currentDirectory + "/" + path }
        guard let given = options.folder else {
            throw UsageError("\(options.operation.rawValue) needs the store's folder", suggestion: "shiplane match \(options.operation.rawValue) FOLDER")
        }
        let folder = absolute(given)
        let format: MatchEncryptionFormat = options.legacy ? .legacyMD5 : .v2
        let dryRun = session.globals.dryRun
        switch options.operation {
        case .decrypt where options.legacy:
            throw UsageError("--legacy is for encrypt and change-password", suggestion: "decrypt reads every format without it")
        case .encrypt where options.output == nil:
            throw UsageError("encrypt needs --output: the match store to write the encrypted files into", suggestion: "shiplane match encrypt DECRYPTED --output STORE")
        case .changePassword where options.output != nil:
            throw UsageError("change-password changes the store in place: --output is for decrypt and encrypt")
        default: break
        }
        let password = try secret("MATCH_PASSWORD", environment, purpose: "the match store's password")
        switch options.operation {
        case .decrypt:
            let output = try options.output.map(absolute) ?? (dryRun ? "a private temporary folder" : privateTemporaryFolder(environment))
            let outcome: MatchStore.Outcome
            do {
                outcome = try MatchStore.decrypt(store: folder, into: output, password: password, dryRun: dryRun)
            } catch {
                if options.output == nil, !dryRun { try? FileManager.default.removeItem(atPath: output) }
                throw error
            }
            outcome.layout.lines.forEach { session.out.line($0) }
            let formats = Set(outcome.formats.values).map(\.label).sorted().joined(separator: "; ")
            session.out.line((dryRun ? "Would have decrypted " : "Decrypted ") + "\(outcome.files.count) file\(outcome.files.count == 1 ? "" : "s")\(formats.isEmpty ? "" : " (\(formats))") into \(output)")
            if !dryRun { session.out.line("It holds private keys (folder mode 0700, files 0600): remove it when you are done.") }
        case .encrypt:
            let store = absolute(options.output ?? "")
            let outcome = try MatchStore.encrypt(folder: folder, into: store, password: password, format: format, dryRun: dryRun)
            outcome.layout.lines.forEach { session.out.line($0) }
            let copied = outcome.copied.isEmpty ? "" : ", copied \(outcome.copied.joined(separator: ", "))"
            session.out.line((dryRun ? "Would have encrypted " : "Encrypted ") + "\(outcome.files.count) file\(outcome.files.count == 1 ? "" : "s") into \(store) (\(format.label))\(copied)")
        case .changePassword:
            let new = try secret("MATCH_NEW_PASSWORD", environment, purpose: "the new password")
            let outcome = try MatchStore.changePassword(store: folder, from: password, to: new, format: format, dryRun: dryRun)
            session.out.line((dryRun ? "Would have changed" : "Changed") + " the password of \(outcome.files.count) file\(outcome.files.count == 1 ? "" : "s") in \(folder) (now \(format.label))")
            if !outcome.alreadyChanged.isEmpty {
                session.out.line("\(outcome.alreadyChanged.count) of them already had the new password (an earlier run cut short): \(outcome.alreadyChanged.joined(separator: ", "))")
            }
            if !dryRun { session.out.line("Commit and push the store, then give MATCH_PASSWORD its new value wherever match runs.") }
        case .appstore, .adhoc, .development, .enterprise, .developerID, .nuke:
            // Run as the built-in `match` lane (`MatchLane`), never here.
            throw UsageError("match \(options.operation.rawValue) runs as a lane")
        }
        return ShiplaneExitCode.success.rawValue
    }

    private static func secret(_ name: String, _ environment: [String: String], purpose: String) throws -> String {
        guard let value = environment[name], !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw MatchStoreError(
                "\(name) is not set: \(purpose) is read from it (never from the command line)",
                suggestion: "export \(name) (in CI, from the CI's secret store)", category: .environment
            )
        }
        return value
    }

    /// A new folder only this user can read, in the temporary folder.
    private static func privateTemporaryFolder(_ environment: [String: String]) throws -> String {
        let base = (environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp")
        var template = Array(((base.hasSuffix("/") ? base : base + "/") + "shiplane-match-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw MatchStoreError("cannot make a temporary folder in \(base)", suggestion: "set TMPDIR to a writable folder, or pass --output", category: .environment)
        }
        return String(cString: made)
    }
}

/// `shiplane match appstore|adhoc|development|enterprise|developer_id|nuke …`, run as a built-in
/// lane: steps, a run record, rollback of what it made, and a re-run that finishes a killed one.
struct MatchLane: Lane, BuiltInLane {
    static let name = "match"
    static let summary = MatchOptions.summary

    @OptionGroup var options: MatchOptions

    func validate() throws {
        let problems = MatchLane.problems(options)
        guard problems.isEmpty else { throw ValidationError(problems.joined(separator: "; ")) }
    }

    /// Every mistake in the words, at once.
    static func problems(_ options: MatchOptions) -> [String] {
        var problems: [String] = []
        if options.operation == .nuke {
            if options.folder.flatMap(MatchKind.init(matchName:)) == nil {
                problems.append("nuke needs a type: appstore, adhoc, development, enterprise or developer_id")
            }
        } else if options.folder != nil {
            problems.append("\(options.operation.rawValue) takes no folder: name the store with --store")
        }
        if MatchPlatform(rawValue: options.platform.lowercased()) == nil { problems.append("--platform must be ios, tvos or macos") }
        for device in options.devices where !device.contains("=") { problems.append("--device \(device): write it as NAME=UDID") }
        return problems
    }

    func run(_ lane: LaneContext) async throws {
        guard let store = options.store ?? ["MATCH_STORE", "MATCH_GIT_URL"].lazy.compactMap({ lane.environment[$0].flatMap { $0.isEmpty ? nil : $0 } }).first
                ?? MatchBucketStore.storeFromEnvironment(lane.environment) else {
            throw UsageError("match needs the store: --store URL|s3://BUCKET/PREFIX|gs://BUCKET|FOLDER (the match repository, its bucket, or a checkout of it) or MATCH_STORE / MATCH_GIT_URL / MATCH_S3_BUCKET / MATCH_GOOGLE_CLOUD_BUCKET_NAME")
        }
        let branch = options.gitBranch ?? lane.environment["MATCH_GIT_BRANCH"].flatMap { $0.isEmpty ? nil : $0 } ?? "master"
        if options.operation == .nuke {
            guard let kind = options.folder.flatMap(MatchKind.init(matchName:)) else { return }
            let lines = try await lane.run(MatchNuke(kind: kind, store: store, confirmed: options.yes, gitBranch: branch))
            if !lane.isDryRun { lane.log("nuke \(kind.rawValue): " + (lines.isEmpty ? "nothing to revoke or delete" : lines.joined(separator: "; "))) }
            return
        }
        guard let kind = options.operation.kind else { return }
        var identifiers = options.appIdentifier.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        if identifiers.isEmpty, let fromEnvironment = lane.environment["MATCH_APP_IDENTIFIER"] {
            identifiers = fromEnvironment.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        var devices: [String: String] = [:]
        for device in options.devices {
            let parts = device.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { devices[parts[0]] = parts[1] }
        }
        let result = try await lane.run(MatchSigning(
            kind: kind, platform: MatchPlatform(rawValue: options.platform.lowercased()) ?? .iOS, appIdentifiers: identifiers.filter { !$0.isEmpty },
            readonly: options.readonly, store: store, renewWithinDays: options.renewDays, forceProfiles: options.force, devices: devices,
            keychain: options.keychain, gitBranch: branch))
        lane.log("certificate \(result.certificateID)" + (result.identity.map { " (\($0))" } ?? "") + (result.teamID.map { ", team \($0)" } ?? ""))
        for profile in result.profiles { lane.log("profile \(profile.name) for \(profile.bundleID): \(profile.uuid)") }
    }
}
