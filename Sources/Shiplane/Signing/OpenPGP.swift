import Foundation

/// OpenPGP signatures made by the `gpg` program, as git makes them (`gpg --status-fd=2 -bsau KEY`):
/// the bytes go in on standard input and a secret key or passphrase on descriptors, never in
/// its arguments.
struct OpenPGPSigner: Sendable {
    /// `gpg`, or what `gpg.program` names.
    var program: String
    /// The key: a fingerprint, a key id or a user id (`Name <email>`); nil: gpg's default key.
    var key: String?
    /// The environment gpg runs with (`GNUPGHOME`, `PATH`).
    var environment: [String: String]
    /// A passphrase for the key, handed over on fd 3 (`--pinentry-mode loopback`).
    var passphrase: String?
    /// A keyring folder made for this run (a secret key imported from the environment), removed by `finish`.
    var temporaryHome: String?

    /// Where the signature comes from, for notes (never key material).
    var origin: String { "OpenPGP key " + (key ?? "(gpg's default key)") + (temporaryHome == nil ? "" : " (imported from the environment)") }

    /// An ASCII-armored detached signature of `data`.
    /// - Throws: `SigningError` with what gpg said when it did not sign; `CommandNotFound` without gpg.
    func sign(_ data: [UInt8]) throws -> String {
        String(decoding: try signature(data, armored: true), as: UTF8.self)
    }

    /// A detached signature of `data`: ASCII-armored, or gpg's binary packets.
    /// - Throws: `SigningError` with what gpg said when it did not sign; `CommandNotFound` without gpg.
    func signature(_ data: [UInt8], armored: Bool) throws -> [UInt8] {
        var arguments = ["--status-fd=2", "--batch", "--no-tty"]
        if let temporaryHome { arguments += ["--homedir", temporaryHome] }
        var extra: [Int32: [UInt8]] = [:]
        if let passphrase {
            arguments += ["--pinentry-mode", "loopback", "--passphrase-fd", "3"]
            extra[3] = Array((passphrase + "\n").utf8)
        }
        arguments += [armored ? "-bsa" : "-bs"] + (key.map { ["-u", $0] } ?? [])
        let result = try SigningProgram.run(program, arguments, environment: environment, input: data, extraInputs: extra)
        guard result.status == .exited(0), result.errors.contains("[GNUPG:] SIG_CREATED ") else {
            let said = result.errors.split(separator: "\n").filter { !$0.hasPrefix("[GNUPG:]") }.suffix(5).joined(separator: "\n")
            throw SigningError(
                "gpg did not sign with " + (key ?? "its default key"),
                info: [("gpg said", said.isEmpty ? "(nothing; exit code \(result.status.code))" : said)],
                suggestion: "check the key exists (`gpg --list-secret-keys`) and can sign without a prompt (gpg-agent, or a passphrase in SHIPLANE_GPG_PASSPHRASE)")
        }
        return Array(result.output)
    }

    /// A signer with the armored secret key `armored` imported into a keyring folder of its own.
    /// - Throws: `SigningError` when gpg does not import it.
    static func importing(_ armored: String, program: String, environment: [String: String], passphrase: String?) throws -> OpenPGPSigner {
        // A short path: gpg-agent's socket lives in the folder, and a socket's path is at most 107 bytes.
        // Named with this process's id, so a folder left behind is told from one in use.
        var template = Array("/tmp/shiplane-gpg-\(getpid())-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw SigningError("cannot make a keyring folder in /tmp: \(String(cString: strerror(errno)))", category: .environment)
        }
        let home = String(cString: made)
        var signer = OpenPGPSigner(program: program, key: nil, environment: environment, passphrase: passphrase, temporaryHome: home)
        let result: SigningProgram.Result
        do {
            result = try SigningProgram.run(
                program, ["--homedir", home, "--batch", "--no-tty", "--status-fd=2", "--import"], environment: environment,
                input: Array(armored.utf8))
        } catch {
            signer.finish()
            throw error
        }
        let fingerprints = result.errors.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            // IMPORT_OK <reasons> <fingerprint>: 16 and up mean a secret key.
            guard words.count >= 4, words[1] == "IMPORT_OK", let reasons = Int(words[2]), reasons & 16 != 0 else { return nil }
            return String(words[3])
        }
        guard let fingerprint = fingerprints.first else {
            signer.finish()
            throw SigningError(
                "gpg did not import a secret key from the environment",
                suggestion: "export it with `gpg --armor --export-secret-keys KEY` and keep the whole text in the secret")
        }
        signer.key = fingerprint
        return signer
    }

    /// Stops the keyring folder's gpg-agent and removes the folder (a no-op without one).
    func finish() {
        guard let temporaryHome else { return }
        _ = try? SigningProgram.run("gpgconf", ["--homedir", temporaryHome, "--kill", "all"], environment: environment, input: [])
        // The agent may still be ending (removing its sockets, writing the folder) while the
        // folder goes: a removal that fails or finds it made again is tried again.
        for _ in 0..<20 {
            try? FileManager.default.removeItem(atPath: temporaryHome)
            usleep(50_000)
            if !FileManager.default.fileExists(atPath: temporaryHome) { break }
        }
    }
}
