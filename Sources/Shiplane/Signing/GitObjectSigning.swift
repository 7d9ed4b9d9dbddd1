import Foundation
internal import Git

/// How a commit or a tag is signed, as git decides it: `commit.gpgSign` / `tag.gpgSign` (or the
/// lane's `sign:`), `gpg.format` (`openpgp`, `ssh`), `user.signingKey` and `gpg.program`.
///
/// SSH signatures are made natively, from `SHIPLANE_SSH_SIGNING_KEY` (a private key's text, a
/// secret), from the key file `user.signingKey` names, or through ssh-agent when it names a
/// public key. OpenPGP signatures are made by `gpg`, as git makes them.
struct GitObjectSigning {
    /// The variable that may hold an SSH private key's text for signing commits and tags.
    static let sshKeyVariable = "SHIPLANE_SSH_SIGNING_KEY"

    enum Kind: String { case commit, tag }

    enum Method {
        case ssh(SSHSigner)
        case openPGP(OpenPGPSigner)
    }

    let method: Method

    /// What signs, for notes (a fingerprint or a key id, never key material).
    var origin: String {
        switch method {
        case .ssh(let signer): signer.origin
        case .openPGP(let signer): signer.origin
        }
    }

    /// The signature of a commit's or tag's text, as git stores it.
    func sign(_ text: String) throws -> String {
        switch method {
        case .ssh(let signer): try SSHSignature.sign(Array(text.utf8), namespace: "git", with: signer)
        case .openPGP(let signer): try signer.sign(Array(text.utf8))
        }
    }

    /// The signing a commit or tag gets: nil when it is not to be signed (`option` false, or nil
    /// and git's configuration does not ask).
    /// - Throws: `SigningError` when signing is asked for and no key can sign.
    static func resolve(_ kind: Kind, option: Bool?, repository: Repository, environment: LaneEnvironment, committer: String) throws -> GitObjectSigning? {
        let setting = kind == .commit ? "commit.gpgSign" : "tag.gpgSign"
        guard try option ?? bool(try git { try repository.configString(setting) }) else { return nil }
        let why = option == nil ? "\(setting) is true in git config" : "the lane asks for a signed \(kind.rawValue)"
        let format = (try git { try repository.configString("gpg.format") } ?? "openpgp").lowercased()
        let signingKey = try git { try repository.configString("user.signingKey") }
        switch format {
        case "ssh":
            return GitObjectSigning(method: .ssh(try sshSigner(signingKey: signingKey, environment: environment, why: why)))
        case "openpgp":
            let program = try git { try repository.configString("gpg.openpgp.program") ?? repository.configString("gpg.program") } ?? "gpg"
            return GitObjectSigning(method: .openPGP(OpenPGPSigner(
                program: program, key: signingKey ?? committer, environment: environment.variables,
                passphrase: environment["SHIPLANE_GPG_PASSPHRASE"], temporaryHome: nil)))
        default:
            throw SigningError(
                "gpg.format is \(format), which Shiplane does not sign with",
                info: [("why signed", why)], suggestion: "use gpg.format ssh or openpgp, or pass sign: false", category: .usage)
        }
    }

    /// The SSH signer: the environment's key, else the key file or public key `user.signingKey` names.
    private static func sshSigner(signingKey: String?, environment: LaneEnvironment, why: String) throws -> SSHSigner {
        if let text = environment[sshKeyVariable], !text.isEmpty {
            return SSHSigner(key: try SSHPrivateKey(openSSH: text))
        }
        guard let signingKey, !signingKey.isEmpty else {
            throw SigningError(
                "no SSH key to sign with", info: [("why signed", why)],
                suggestion: "set git config user.signingKey to your key file (~/.ssh/id_ed25519) or public key, or put a private key's text in \(sshKeyVariable)",
                category: .usage, kind: .noKeyConfigured)
        }
        if let key = SSHPublicKey(line: signingKey) { return try agentSigner(for: key, named: "user.signingKey", socket: environment["SSH_AUTH_SOCK"]) }
        let path = signingKey.hasPrefix("~/") ? (environment["HOME"] ?? NSHomeDirectory()) + String(signingKey.dropFirst(1)) : signingKey
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw SigningError("cannot read the SSH key \(path) that user.signingKey names", suggestion: "set user.signingKey to an existing key file",
                               category: .usage, kind: .keyUnreadable)
        }
        if SSHPrivateKey.looksLikeKey(text) { return SSHSigner(key: try SSHPrivateKey(openSSH: text)) }
        guard let key = SSHPublicKey(line: text) else {
            throw SigningError("\(path), which user.signingKey names, is neither an OpenSSH private key nor a public key", category: .usage)
        }
        if environment["SSH_AUTH_SOCK"] == nil, path.hasSuffix(".pub"),
           let privateText = try? String(contentsOfFile: String(path.dropLast(4)), encoding: .utf8), SSHPrivateKey.looksLikeKey(privateText) {
            return SSHSigner(key: try SSHPrivateKey(openSSH: privateText))
        }
        return try agentSigner(for: key, named: path, socket: environment["SSH_AUTH_SOCK"])
    }

    /// ssh-agent's signer for `key`, checked to be among the agent's identities.
    private static func agentSigner(for key: SSHPublicKey, named name: String, socket: String?) throws -> SSHSigner {
        guard let socket, !socket.isEmpty else {
            throw SigningError(
                "\(name) names a public key (\(key.fingerprint)) and no ssh-agent is running to sign with it",
                suggestion: "start ssh-agent, `ssh-add` the key and set SSH_AUTH_SOCK", category: .environment)
        }
        guard try SSHAgent(socket: socket).identities().contains(where: { $0.key == key }) else {
            throw SigningError("ssh-agent does not hold the key \(key.fingerprint) that \(name) names", suggestion: "add it with `ssh-add`")
        }
        return SSHSigner(agent: socket, publicKey: key)
    }

    /// git's reading of a boolean setting (`true`, `yes`, `on`, `1`; unset is false).
    static func bool(_ value: String?) throws -> Bool {
        guard let value else { return false }
        switch value.lowercased() {
        case "true", "yes", "on", "1", "": return true
        case "false", "no", "off", "0": return false
        default: throw SigningError("the git setting is \(value), not a boolean", category: .usage)
        }
    }
}
