import Foundation

/// Signs files (a release's archives, or its checksum file) with a key from the environment or
/// an agent, and writes each signature beside its file: `FILE.sig` (SSH, `sshsig`, namespace
/// `file`: `ssh-keygen -Y verify -n file`), `FILE.minisig` (minisign) or `FILE.asc` (OpenPGP,
/// by gpg). The signatures are files of the run like any other: published with the release,
/// removed by a rollback.
///
/// The key never appears in the step's options, its notes or the record: the lane names the
/// environment variable that holds it, and only the key's fingerprint or id is shown.
package struct SignFiles: Action {
    /// The action's name in steps and reports.
    package static let name = "sign"
    /// The files to sign, relative to the repository root unless absolute.
    package var files: [String]
    /// `ssh`, `minisign` or `openpgp` (`gpg`).
    package var format: String
    /// The environment variable that holds the key; nil: the format's default.
    package var keyVariable: String?

    /// Creates the action that signs `files` in `format`.
    package init(files: [String], format: String, keyVariable: String?) {
        self.files = files
        self.format = format
        self.keyVariable = keyVariable
    }

    /// The files, the format and the key's variable (its name, never its value).
    package var options: [StepOption] {
        [StepOption("files", files.joined(separator: ", ")), StepOption("format", format)]
            + (keyVariable.map { [StepOption("key", "$" + $0)] } ?? [])
    }

    /// Signs every file and returns the signatures' paths, as the files were named plus the
    /// format's extension; a dry run checks the key and the files and writes placeholders to its
    /// overlay only.
    /// - Throws: `SigningError` for a missing or unusable key, or a file that is missing.
    package func run(in step: StepContext) throws -> [String] {
        let lane = step.lane
        let signer = try ArtifactSigner.resolve(format: format, keyVariable: keyVariable, environment: lane.environment)
        defer { signer.finish() }
        var written: [String] = []
        for file in files {
            let path = step.resolve(file)
            guard let data = try lane.fileSystem.contents(of: path) else {
                throw SigningError("cannot sign \(file): there is no such file", suggestion: "make it first (archive, checksums), or name it as the lane wrote it")
            }
            let output = file + signer.fileExtension
            if step.isDryRun {
                try step.writeFile(Data("(dry run: the \(signer.origin) would sign \(file) here)\n".utf8), to: step.resolve(output), describedAs: output)
                step.log("would sign \(file) with the \(signer.origin) → \(output)")
            } else {
                let name = (file as NSString).lastPathComponent
                let signature = try signer.sign(Array(data), name: name, timestamp: Self.timestamp(lane))
                try step.writeFile(Data(signature.utf8), to: step.resolve(output), describedAs: output)
                step.log("\(output): \(file) signed with the \(signer.origin)")
            }
            written.append(output)
        }
        step.note((step.isDryRun ? "would write " : "") + written.joined(separator: ", "))
        return written
    }

    /// The time minisign's trusted comment names: `SOURCE_DATE_EPOCH` when set (a reproducible
    /// build's), else now.
    private static func timestamp(_ lane: LaneContext) -> Int {
        lane.environment["SOURCE_DATE_EPOCH"].flatMap { Int($0) } ?? Int(Date().timeIntervalSince1970)
    }
}

extension SignFiles: MakesLocalArtifacts {}

/// A key that signs files, in one of the three formats (and DSSE envelopes, for `lane.provenance`).
package struct ArtifactSigner: Sendable {
    enum Method {
        case ssh(SSHSigner)
        case minisign(Minisign.SecretKey)
        case openPGP(OpenPGPSigner)
    }

    let method: Method

    /// The default variable of each format, and the formats' names.
    static let defaultVariables = ["ssh": "SHIPLANE_SSH_SIGNING_KEY", "minisign": "SHIPLANE_MINISIGN_KEY", "openpgp": "SHIPLANE_GPG_KEY"]

    /// What signs, for notes: a fingerprint or a key id.
    var origin: String {
        switch method {
        case .ssh(let signer): signer.origin
        case .minisign(let key): "minisign key \(key.shownID)"
        case .openPGP(let signer): signer.origin
        }
    }

    /// The signature file's extension.
    var fileExtension: String {
        switch method {
        case .ssh: ".sig"
        case .minisign: ".minisig"
        case .openPGP: ".asc"
        }
    }

    /// The signature file's text for `data` (a file called `name`).
    func sign(_ data: [UInt8], name: String, timestamp: Int) throws -> String {
        switch method {
        case .ssh(let signer): try SSHSignature.sign(data, namespace: "file", with: signer)
        case .minisign(let key): try Minisign.sign(data, trustedComment: "timestamp:\(timestamp)\tfile:\(name)\thashed", with: key)
        case .openPGP(let signer): try signer.sign(data)
        }
    }

    /// The signature over a DSSE envelope's pre-authentication encoding, in the form each kind's
    /// own verifier reads: SSH as `SSHPrivateKey.dsseSignature` (Ed25519, RSA PKCS#1 v1.5 SHA-256,
    /// ECDSA DER; through ssh-agent too), minisign as the `.minisig` file's text (prehashed, trusted
    /// comment `dsse`: `minisign -V` checks the encoding with it), OpenPGP as gpg's binary detached
    /// signature (`gpg --verify SIG PAE`).
    func dsseSignature(_ message: [UInt8]) throws -> [UInt8] {
        switch method {
        case .ssh(let signer): try signer.dsseSignature(message)
        case .minisign(let key): Array(try Minisign.sign(message, trustedComment: "dsse", with: key).utf8)
        case .openPGP(let signer): try signer.signature(message, armored: false)
        }
    }

    /// The key's id in a DSSE envelope: the SSH fingerprint, the minisign key id, the OpenPGP key.
    var dsseKeyID: String {
        switch method {
        case .ssh(let signer): signer.publicKey.fingerprint
        case .minisign(let key): "minisign:" + Minisign.hexID(key.keyID)
        case .openPGP(let signer): "openpgp:" + (signer.key ?? "default")
        }
    }

    /// The key's kind, for notes: the SSH key type, `minisign` or `openpgp`.
    var dsseKeyType: String {
        switch method {
        case .ssh(let signer): signer.publicKey.type
        case .minisign: "minisign"
        case .openPGP: "openpgp"
        }
    }

    /// Removes a keyring imported for the run.
    func finish() {
        if case .openPGP(let signer) = method { signer.finish() }
    }

    /// The signer for `format` with the key `keyVariable` (or the format's default variable) holds.
    /// - Throws: `SigningError` (usage) for an unknown format or a missing key.
    static func resolve(format given: String, keyVariable: String?, environment: LaneEnvironment) throws -> ArtifactSigner {
        let format = given.lowercased() == "gpg" ? "openpgp" : given.lowercased()
        guard let defaultVariable = defaultVariables[format] else {
            throw SigningError("\(given) is not a signature format Shiplane makes", suggestion: "use ssh, minisign or openpgp", category: .usage)
        }
        let variable = keyVariable ?? defaultVariable
        let value = environment[variable].flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
        switch format {
        case "ssh":
            if let value, SSHPrivateKey.looksLikeKey(value) { return ArtifactSigner(method: .ssh(SSHSigner(key: try SSHPrivateKey(openSSH: value)))) }
            guard let socket = environment["SSH_AUTH_SOCK"], !socket.isEmpty else {
                throw SigningError(
                    value == nil ? "no SSH key to sign with: \(variable) is not set and no ssh-agent is running" : "\(variable) holds neither an OpenSSH private key nor a public key",
                    suggestion: "put the text of a private key (ssh-keygen -t ed25519) in the secret \(variable), or a public key there and the key in ssh-agent",
                    category: .usage)
            }
            let identities = try SSHAgent(socket: socket).identities()
            if let value {
                guard let key = SSHPublicKey(line: value) else {
                    throw SigningError("\(variable) holds neither an OpenSSH private key nor a public key", category: .usage)
                }
                guard identities.contains(where: { $0.key == key }) else {
                    throw SigningError("ssh-agent does not hold the key \(key.fingerprint) that \(variable) names", suggestion: "add it with `ssh-add`")
                }
                return ArtifactSigner(method: .ssh(SSHSigner(agent: socket, publicKey: key)))
            }
            guard identities.count == 1, let only = identities.first else {
                throw SigningError(
                    identities.isEmpty ? "ssh-agent holds no key to sign with" : "ssh-agent holds \(identities.count) keys: which one signs is not said",
                    suggestion: "put the public key to sign with in \(variable)", category: .usage)
            }
            return ArtifactSigner(method: .ssh(SSHSigner(agent: socket, publicKey: only.key)))
        case "minisign":
            guard let value else {
                throw SigningError(
                    "no minisign key to sign with: \(variable) is not set",
                    suggestion: "put the text of a minisign secret key made without a password (`minisign -G -W`) in the secret \(variable)",
                    category: .usage)
            }
            return ArtifactSigner(method: .minisign(try Minisign.secretKey(from: value)))
        default:
            let program = environment["SHIPLANE_GPG_PROGRAM"] ?? "gpg"
            let passphrase = environment["SHIPLANE_GPG_PASSPHRASE"]
            guard let value else {
                throw SigningError(
                    "no OpenPGP key to sign with: \(variable) is not set",
                    suggestion: "put an armored secret key (`gpg --armor --export-secret-keys KEY`) in the secret \(variable), or the id of a key in your keyring",
                    category: .usage)
            }
            if value.contains("-----BEGIN PGP PRIVATE KEY BLOCK-----") {
                return ArtifactSigner(method: .openPGP(try OpenPGPSigner.importing(value, program: program, environment: environment.variables, passphrase: passphrase)))
            }
            return ArtifactSigner(method: .openPGP(OpenPGPSigner(
                program: program, key: value, environment: environment.variables, passphrase: passphrase, temporaryHome: nil)))
        }
    }
}

extension LaneContext {
    /// Signs `files` (`ssh`, `minisign` or `openpgp`) with the key the environment variable `key`
    /// holds (a secret; by default `SHIPLANE_SSH_SIGNING_KEY`, `SHIPLANE_MINISIGN_KEY` or
    /// `SHIPLANE_GPG_KEY`), or through ssh-agent; returns the signature files (`.sig`,
    /// `.minisig`, `.asc`) to publish with the release.
    @discardableResult
    public func sign(_ files: [any ArtifactConvertible], format: String = "ssh", key: String? = nil, file: String = #fileID, line: Int = #line) throws -> [String] {
        try run(SignFiles(files: try ArtifactInputs.paths(files), format: format, keyVariable: key), file: file, line: line)
    }
}

extension SignFiles: DocumentedAction {
    /// How `lane.sign` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Release",
        summary: "Sign files (SSH sshsig, minisign or OpenPGP) with a key from a secret or an agent; the signatures are files to publish",
        signature: "try lane.sign(_ files: [any ArtifactConvertible], format: String = \"ssh\", key: String? = nil) -> [String]",
        parameters: [
            .init(name: "files", type: "[any ArtifactConvertible]", defaultValue: nil, help: "the files to sign (archives, or the SHA256SUMS file)"),
            .init(name: "format", type: "String", defaultValue: "\"ssh\"", help: "ssh (FILE.sig), minisign (FILE.minisig) or openpgp (FILE.asc, by gpg)"),
            .init(name: "key", type: "String?", defaultValue: "SHIPLANE_SSH_SIGNING_KEY, SHIPLANE_MINISIGN_KEY or SHIPLANE_GPG_KEY", help: "the environment variable that holds the key (its value is a secret)"),
        ],
        example: #"let signatures = try lane.sign(["dist/SHA256SUMS"])"#,
        dryRun: "checks the key and the files, says what it would sign", rollback: "removes the signature files"
    )
}
