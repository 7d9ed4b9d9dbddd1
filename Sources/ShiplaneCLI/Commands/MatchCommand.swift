import Foundation
import Shiplane

/// What `shiplane match` does to a match store.
enum MatchOperation: String, CaseIterable, ExpressibleByArgument {
    case decrypt
    case encrypt
    case changePassword = "change-password"
}

/// The options of `shiplane match`.
struct MatchOptions: ParsableArguments {
    static let summary = "fastlane match's encrypted store of certificates and profiles: decrypt, encrypt, change-password (MATCH_PASSWORD)"

    @Argument(help: "decrypt, encrypt or change-password")
    var operation: MatchOperation

    @Argument(help: "decrypt and change-password: the store (a checkout of the match repository); encrypt: the decrypted folder")
    var folder: String

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
        let folder = absolute(options.folder)
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
