import Foundation
internal import Git

/// The signing keys a run is configured with, checked before its first step (a dry run's
/// included), so that a key that is set but cannot sign stops the run before anything changes
/// rather than at its signing step, after the bump, the commit and the tag.
///
/// A key is configured when its variable is set (`SHIPLANE_SSH_SIGNING_KEY`,
/// `SHIPLANE_MINISIGN_KEY`, `SHIPLANE_GPG_KEY` with `SHIPLANE_GPG_PASSPHRASE`,
/// `SHIPLANE_ATTESTATION_KEY`, or a variable the lane's code names: `lane.sign(files, key:
/// "MY_KEY")`, `lane.provenance(…, key:)`, found in the lane sources when they are compiled),
/// or when git's configuration or the lane asks for signed commits or tags (`commit.gpgSign`,
/// `tag.gpgSign`, `sign: true`, `shiplane bump --sign`: `gpg.format`, `user.signingKey`). Each is
/// resolved by the same code its signing step uses, then made to sign a probe where no prompt can
/// come: SSH and minisign keys, and OpenPGP keys with the passphrase given or an empty one (a
/// wrong passphrase, or a keyring key that needs one that was not given, fails here).
package enum SigningKeyCheck {
    /// Every configured key that cannot sign, and every signature asked for with no key, each
    /// with what to do. A usage error (exit 2) when each problem is the configuration's own — a
    /// signature asked for with no key configured, a key file it names that cannot be read —
    /// as their steps would report them; an environment one (exit 4) when a key that is there
    /// cannot sign.
    package struct Unusable: ReportableError {
        package var problems: [SigningError]
        package var message: String {
            let missing = problems.filter { $0.kind == .noKeyConfigured }.count
            if missing == problems.count {
                return missing == 1 ? "a signature is asked for and no signing key is configured; nothing was changed"
                    : "\(missing) signatures are asked for and no signing key is configured; nothing was changed"
            }
            if missing > 0 { return "\(problems.count) signing keys are missing or cannot sign; nothing was changed" }
            return problems.count == 1 ? "a signing key is set but cannot sign; nothing was changed"
                : "\(problems.count) signing keys are set but cannot sign; nothing was changed"
        }
        package var suggestion: String? {
            problems.allSatisfy { $0.kind == .noKeyConfigured }
                ? "configure a key as said below, or ask for no signature (sign: false, shiplane bump --no-sign)"
                : "fix each key below, or unset the one the run should not sign with"
        }
        package var underlyingErrors: [any Error] { problems }
        package var category: ErrorCategory { problems.contains { $0.kind == .failed } ? .environment : .usage }
    }

    /// What a probe signature signs.
    static let probe = Array("shiplane: a check that the key signs".utf8)

    /// Checks every configured key, and that a signature asked for has one.
    /// - Throws: `Unusable` naming every key that cannot sign, all at once.
    package static func check(_ lane: LaneContext, named: [NamedSigningKey] = []) throws {
        var found: [(labels: [String], error: SigningError)] = []
        func attempt(_ label: String, _ body: () throws -> Void) {
            do {
                try body()
            } catch {
                let reportable = error as? any ReportableError
                let problem = SigningError(reportable?.message ?? "\(error)", info: reportable?.info ?? [],
                                           suggestion: reportable?.suggestion, kind: (error as? SigningError)?.kind ?? .failed)
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
            attempt("SHIPLANE_ATTESTATION_KEY (lane.provenance)") { try checkAttestationKey(text, variable: "SHIPLANE_ATTESTATION_KEY", environment) }
        }
        // The variables the lane's code names, each once; the default ones were checked above.
        var checked: Set<String> = []
        for key in named {
            guard let variable = key.variable, isSet(variable), let text = environment[variable] else { continue }
            switch key.use {
            case .files(let format):
                let format = format ?? Self.format(ofKey: text)
                guard let format, ArtifactSigner.defaultVariables[format.lowercased() == "gpg" ? "openpgp" : format.lowercased()] != variable,
                      checked.insert("sign \(format) \(variable)").inserted else { continue }
                attempt("\(variable) (lane.sign at \(key.location), format \(format))") {
                    let signer = try ArtifactSigner.resolve(format: format, keyVariable: variable, environment: environment)
                    defer { signer.finish() }
                    try signer.checkUsable()
                }
            case .provenance(let format):
                guard variable != "SHIPLANE_ATTESTATION_KEY" || format != nil, checked.insert("provenance \(format ?? "") \(variable)").inserted else { continue }
                attempt("\(variable) (lane.provenance at \(key.location)\(format.map { ", format \($0)" } ?? ""))") {
                    if let format {
                        let signer = try ArtifactSigner.resolve(format: format, keyVariable: variable, environment: environment)
                        defer { signer.finish() }
                        try signer.checkUsable()
                    } else {
                        try checkAttestationKey(text, variable: variable, environment)
                    }
                }
            case .commit, .tag: continue
            }
        }
        // git's settings through libgit2 (a repository opened, the CA bundle parsed) only when the
        // lane asks for a signed commit or tag, or a configuration file could (GitSigningSettingsScan).
        if named.contains(where: { $0.use == .commit || $0.use == .tag })
            || GitSigningSettingsScan.mayAskForSignatures(workingDirectory: lane.workingDirectory),
           let repository = try? lane.repository() {
            let identity = try? git { try repository.configuredIdentity(environment: environment.variables, role: .committer) }
            let committer = "\(identity?.name ?? "") <\(identity?.email ?? "")>"
            for kind in [GitObjectSigning.Kind.commit, .tag] {
                let setting = kind == .commit ? "commit.gpgSign" : "tag.gpgSign"
                let configured = (try? git { try repository.configString(setting) }).flatMap { $0 }
                // A value git's `bool` does not read counts as asking: its check says so.
                let configAsks = configured.map { (try? GitObjectSigning.bool($0)) ?? true } ?? false
                if !configAsks, let asked = named.first(where: { $0.use == (kind == .commit ? .commit : .tag) }) {
                    // git's configuration does not sign; the lane does (`sign: true`, `--sign`).
                    attempt("\(asked.location) (a signed \(kind.rawValue))") {
                        try GitObjectSigning.resolve(kind, option: true, repository: repository, environment: environment, committer: committer)?.checkUsable()
                    }
                } else {
                    attempt("\(setting) in git config") {
                        try GitObjectSigning.resolve(kind, option: nil, repository: repository, environment: environment, committer: committer)?.checkUsable()
                    }
                }
            }
        }
        guard found.isEmpty else {
            throw Unusable(problems: found.map { labels, error in
                SigningError("\(labels.joined(separator: " and ")): \(error.message)", info: error.info, suggestion: error.suggestion, kind: error.kind)
            })
        }
    }

    /// The format a key's text is for, when the lane's code computes `format:`: an OpenSSH
    /// private or public key, an armored OpenPGP secret key, a minisign secret key; nil otherwise.
    static func format(ofKey text: String) -> String? {
        SSHPrivateKey.looksLikeKey(text) || SSHPublicKey(line: text) != nil ? "ssh"
            : text.contains("-----BEGIN PGP PRIVATE KEY BLOCK-----") ? "openpgp"
            : (try? Minisign.secretKey(from: text)) != nil ? "minisign" : nil
    }

    /// The provenance key, in every form `lane.provenance` reads it: a private key's text (signed
    /// with here), an SSH public key held by ssh-agent, an armored OpenPGP secret key, a minisign
    /// secret key, or the id of a key in gpg's keyring (with `format:`).
    private static func checkAttestationKey(_ text: String, variable: String, _ environment: LaneEnvironment) throws {
        let direct = Result { try DSSESigner(secret: text) }
        if case .success(let signer) = direct {
            _ = try DSSE.envelope(payload: Data(probe), signer: signer)
            return
        }
        if let format = format(ofKey: text), !SSHPrivateKey.looksLikeKey(text) {
            let signer = try ArtifactSigner.resolve(format: format, keyVariable: variable, environment: environment)
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
    /// Signs a probe with gpg where no prompt can come: `--pinentry-mode loopback` with the
    /// passphrase given on fd 3, or an empty one when none is (a key without a passphrase, or one
    /// whose passphrase gpg-agent holds, still signs). A keyring key is first looked up among gpg's
    /// secret keys, so a key that is missing is told from one that needs a passphrase.
    /// - Throws: `SigningError` saying what gpg said and what to do.
    func checkUsable() throws {
        var probing = self
        probing.passphrase = passphrase ?? ""
        if passphrase != nil || temporaryHome != nil {
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
        do {
            _ = try probing.signature(SigningKeyCheck.probe, armored: false)
        } catch let error as SigningError {
            // The key is there but did not sign with no passphrase: it needs one that was not given.
            throw SigningError(
                "gpg key " + (key ?? "(its default key)") + " needs a passphrase, and none was given (SHIPLANE_GPG_PASSPHRASE is not set and gpg-agent does not hold it)",
                info: error.info,
                suggestion: "set SHIPLANE_GPG_PASSPHRASE to the key's passphrase (a CI secret), or unlock the key in gpg-agent before the run (sign something once: `echo | gpg -u KEY -s > /dev/null`), or use a key without a passphrase; Shiplane never prompts")
        }
    }
}

/// A signing key the lane's code names: `lane.sign(files, format: "minisign", key: "MY_KEY")`,
/// `lane.provenance(…, key: "MY_KEY")`, or a commit or tag it signs (`sign: true`). The lane
/// compiler finds them in the lane sources (literal arguments only: a name the code computes is
/// checked at its step), built-in lanes say theirs; the run's preflight checks each key that is set.
package struct NamedSigningKey: Sendable, Equatable {
    /// What the key signs.
    package enum Use: Sendable, Equatable {
        /// `lane.sign`: the format the call spells (nil: the code computes it; read from the key).
        case files(format: String?)
        /// `lane.provenance`: the format the call spells (nil: none, or computed; read from the key).
        case provenance(format: String?)
        /// A signed commit or tag the lane asks for.
        case commit, tag
    }

    package var use: Use
    /// The environment variable that holds the key; nil for commits and tags (git's configuration names theirs).
    package var variable: String?
    /// Where the lane names it (`Lanes/Release.swift:12`, or `shiplane bump --sign`).
    package var location: String

    package init(_ use: Use, variable: String?, location: String) {
        self.use = use
        self.variable = variable
        self.location = location
    }

    /// From the generated entry of a lanes executable: `use` is `sign`, `provenance`, `commit` or `tag`.
    package init?(use: String, format: String?, variable: String?, location: String) {
        switch use {
        case "sign": self.init(.files(format: format), variable: variable, location: location)
        case "provenance": self.init(.provenance(format: format), variable: variable, location: location)
        case "commit": self.init(.commit, variable: nil, location: location)
        case "tag": self.init(.tag, variable: nil, location: location)
        default: return nil
        }
    }
}
