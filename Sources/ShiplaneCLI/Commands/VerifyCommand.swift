import Foundation
import Shiplane

/// The options of `shiplane verify`.
struct VerifyOptions: ParsableArguments {
    static let summary = "Check downloaded release files: every checksum, every signature, and that the SBOM and provenance name exactly the files"

    @Argument(help: "The folder the release's files were downloaded to")
    var folder: String

    @Option(name: .customLong("ssh-allowed-signers"), help: "An allowed_signers file (ssh-keygen's format) for the .sig files")
    var sshAllowedSigners: String?

    @Option(name: .customLong("ssh-key"), help: "An SSH public key file (.pub) trusted for the .sig files; repeatable")
    var sshKeys: [String] = []

    @Option(name: .customLong("minisign-key"), help: "The minisign public key for the .minisig files: the minisign.pub file, or its key (RW…)")
    var minisignKey: String?

    @Option(name: .customLong("gpg-key"), help: "An armored OpenPGP public key file for the .asc files (checked by gpg, against this key alone)")
    var gpgKey: String?

    @Option(name: .customLong("attestation-key"), help: "The provenance key's public half (a PEM public key file, or an ssh-ed25519 .pub file): every provenance envelope must be signed by it")
    var attestationKey: String?

    @Option(name: .customLong("commit"), help: "The commit the release was made from (the tag's commit): every provenance statement must name it as its source")
    var commit: String?
}

/// `shiplane verify FOLDER [keys]`: one line per check that passed; the problems, each naming
/// its file, as the error (exit 1).
enum VerifyCommand {
    static func run(session: CommandSession, environment: [String: String], options: VerifyOptions) throws -> Int32 {
        func absolute(_ path: String) -> String { path.hasPrefix("/") ? path : session.currentDirectory + "/" + path }
        func read(_ path: String, _ option: String) throws -> String {
            guard let data = FileManager.default.contents(atPath: absolute(path)) else {
                throw UsageError("cannot read \(path), given to \(option)", suggestion: "name an existing file")
            }
            return String(decoding: data, as: UTF8.self)
        }
        var keys = ReleaseVerification.Keys()
        keys.sshAllowedSigners = try options.sshAllowedSigners.map { try read($0, "--ssh-allowed-signers") }
        keys.sshPublicKeys = try options.sshKeys.map { try read($0, "--ssh-key") }
        if let minisign = options.minisignKey {
            keys.minisignPublicKey = FileManager.default.fileExists(atPath: absolute(minisign)) ? try read(minisign, "--minisign-key") : minisign
        }
        keys.openPGPPublicKey = try options.gpgKey.map { try read($0, "--gpg-key") }
        keys.attestationPublicKey = try options.attestationKey.map { try read($0, "--attestation-key") }
        keys.sourceCommit = options.commit?.trimmingCharacters(in: .whitespacesAndNewlines)
        let outcome = try ReleaseVerification.verify(folder: absolute(options.folder), keys: keys, environment: environment)
        let width = outcome.passed.map(\.file.count).max() ?? 0
        for passed in outcome.passed {
            session.out.line("✓ " + passed.file.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + passed.check)
        }
        guard outcome.problems.isEmpty else { throw VerificationFailed(problems: outcome.problems) }
        session.out.line("All \(outcome.passed.count) checks passed.")
        return ShiplaneExitCode.success.rawValue
    }
}
