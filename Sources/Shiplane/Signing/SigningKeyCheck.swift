import Foundation
internal import Git

/// The signing keys a run is configured with, checked before its first step (a dry run's
/// included), so that a key that is set but cannot sign stops the run before anything changes
/// rather than at its signing step, after the bump, the commit and the tag.
///
/// A key is configured when its variable is set (`SHIPLANE_SSH_SIGNING_KEY`,
/// `SHIPLANE_MINISIGN_KEY`, `SHIPLANE_GPG_KEY` with `SHIPLANE_GPG_PASSPHRASE`,
/// `SHIPLANE_ATTESTATION_KEY`) or when git's configuration asks for signed commits or tags
/// (`commit.gpgSign`, `tag.gpgSign`: `gpg.format`, `user.signingKey`). Each is resolved by the
/// same code its signing step uses, then made to sign a probe where that needs no prompt: SSH and
/// minisign keys always, OpenPGP keys when a passphrase is given or the key was imported from the
/// environment (a wrong passphrase fails here); a key in gpg's keyring without one is looked up
/// among its secret keys. Keys a lane names by another variable (`lane.sign(key: "MY_KEY")`) are
/// checked at their step.
package enum SigningKeyCheck {
    /// Every configured key that cannot sign, each with what to do (exit 4).
    package struct Unusable: ReportableError {
        package var problems: [SigningError]
        package var message: String {
            problems.count == 1 ? "a signing key is set but cannot sign; nothing was changed"
                : "\(problems.count) signing keys are set but cannot sign; nothing was changed"
        }
        package var suggestion: String? { "fix each key below, or unset the one the run should not sign with" }
        package var underlyingErrors: [any Error] { problems }
        package var category: ErrorCategory { .environment }
    }

    /// What a probe signature signs.
    static let probe = Array("shiplane: a check that the key signs".utf8)

    /// Checks every configured key.
    /// - Throws: `Unusable` naming every key that cannot sign, all at once.
    package static func check(_ lane: LaneContext) throws {
        var found: [(labels: [String], error: SigningError)] = []
        func attempt(_ label: String, _ body: () throws -> Void) {
            do {
                try body()
            } catch {
                let reportable = error as? any ReportableError
                let problem = SigningError(reportable?.message ?? "\(error)", info: reportable?.info ?? [],
                                           suggestion: reportable?.suggestion)
                // One key reached two ways (SHIPLANE_SSH_SIGNING_KEY and gpg.format ssh): once.
                if let index = found.firstIndex(where: { $0.error.message == problem.message }) {
                    found[index].labels.append(label)
                } else {
                    found.append(([label], problem))
                }
            }
        }
        let environment = lane.environment
        func isSet(_ variable: String) -> Bool { !(environment[variable] ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }

        for (format, variable) in ArtifactSigner.defaultVariables.sorted(by: { $0.value < $1.value }) where isSet(variable) {
            attempt("\(variable) (lane.sign, format \(format))") {
                let signer = try ArtifactSigner.resolve(format: format, keyVariable: variable, environment: environment)
                defer { signer.finish() }
                try signer.checkUsable()
            }
        }
        if isSet("SHIPLANE_ATTESTATION_KEY"), let text = environment["SHIPLANE_ATTESTATION_KEY"] {
            attempt("SHIPLANE_ATTESTATION_KEY (lane.provenance)") { try checkAttestationKey(text, environment) }
        }
        if let repository = try? lane.repository() {
            let identity = try? git { try repository.configuredIdentity(environment: environment.variables, role: .committer) }
            let committer = "\(identity?.name ?? "") <\(identity?.email ?? "")>"
            for kind in [GitObjectSigning.Kind.commit, .tag] {
                attempt("\(kind == .commit ? "commit.gpgSign" : "tag.gpgSign") in git config") {
                    try GitObjectSigning.resolve(kind, option: nil, repository: repository, environment: environment, committer: committer)?.checkUsable()
                }
            }
        }
        guard found.isEmpty else {
            throw Unusable(problems: found.map { labels, error in
                SigningError("\(labels.joined(separator: " and ")): \(error.message)", info: error.info, suggestion: error.suggestion)
            })
        }
    }

    /// The provenance key, in every form `lane.provenance` reads it: a private key's text (signed
    /// with here), an SSH public key held by ssh-agent, an armored OpenPGP secret key, a minisign
    /// secret key, or the id of a key in gpg's keyring (with `format:`).
    private static func checkAttestationKey(_ text: String, _ environment: LaneEnvironment) throws {
        let direct = Result { try DSSESigner(secret: text) }
        if case .success(let signer) = direct {
            _ = try DSSE.envelope(payload: Data(probe), signer: signer)
            return
        }
        let format: String? = SSHPublicKey(line: text) != nil ? "ssh"
            : text.contains("-----BEGIN PGP PRIVATE KEY BLOCK-----") ? "openpgp"
            : (try? Minisign.secretKey(from: text)) != nil ? "minisign" : nil
        if let format {
            let signer = try ArtifactSigner.resolve(format: format, keyVariable: "SHIPLANE_ATTESTATION_KEY", environment: environment)
            defer { signer.finish() }
            try signer.checkUsable()
            return
        }
        let oneLine = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if !oneLine.contains("\n"), oneLine.count <= 200, !SSHPrivateKey.looksLikeKey(text), !text.contains("-----BEGIN") {
            let keyring = OpenPGPSigner(program: environment["SHIPLANE_GPG_PROGRAM"] ?? "gpg", key: oneLine, environment: environment.variables,
                                        passphrase: environment["SHIPLANE_GPG_PASSPHRASE"], temporaryHome: nil)
            if (try? keyring.checkUsable()) != nil { return }
        }
        _ = try direct.get()
    }
}

extension ArtifactSigner {
    /// Signs a probe where that needs no prompt (see `SigningKeyCheck`).
    /// - Throws: what signing throws.
    func checkUsable() throws {
        switch method {
        case .ssh(let signer): _ = try SSHSignature.sign(SigningKeyCheck.probe, namespace: "file", with: signer)
        case .minisign(let key): _ = try Minisign.sign(SigningKeyCheck.probe, trustedComment: "check", with: key)
        case .openPGP(let signer): try signer.checkUsable()
        }
    }
}

extension GitObjectSigning {
    /// Signs a probe where that needs no prompt (see `SigningKeyCheck`).
    /// - Throws: what signing throws.
    func checkUsable() throws {
        switch method {
        case .ssh(let signer): _ = try SSHSignature.sign(SigningKeyCheck.probe, namespace: "git", with: signer)
        case .openPGP(let signer): try signer.checkUsable()
        }
    }
}

extension OpenPGPSigner {
    /// With a passphrase, or a key imported for the run: a probe signature, the passphrase given
    /// on fd 3 (an imported key without one is tried with an empty one, never a prompt), so a
    /// wrong passphrase fails here. Otherwise the key is looked up among gpg's secret keys (a
    /// passphrase gpg-agent holds is not tried: that could prompt).
    /// - Throws: `SigningError` saying what gpg said.
    func checkUsable() throws {
        if passphrase != nil || temporaryHome != nil {
            var probing = self
            probing.passphrase = passphrase ?? ""
            _ = try probing.signature(SigningKeyCheck.probe, armored: false)
            return
        }
        let result = try SigningProgram.run(program, ["--batch", "--no-tty", "--with-colons", "--list-secret-keys"] + (key.map { [$0] } ?? []),
                                            environment: environment, input: [])
        let listed = String(decoding: result.output, as: UTF8.self).split(separator: "\n").contains { $0.hasPrefix("sec:") }
        guard result.status == .exited(0), listed else {
            throw SigningError(
                "gpg has no secret key " + (key ?? "(its default key)") + (environment["GNUPGHOME"].map { " in \($0)" } ?? " in its keyring"),
                suggestion: "import the key (`gpg --import`), or name one `gpg --list-secret-keys` shows (user.signingKey, or SHIPLANE_GPG_KEY), or put the armored secret key in SHIPLANE_GPG_KEY")
        }
    }
}
