import Foundation
internal import Crypto
internal import _CryptoExtras

/// Checks a folder of downloaded release files, as `shiplane verify` does: every checksum in
/// every checksum file, every signature (`.sig`, `.minisig`, `.asc`) against the keys given,
/// that every file is covered by a checksum or a signature, that a checksum file is signed when
/// keys are given, and that an SBOM or provenance statement names exactly the release's files
/// with their digests.
package struct ReleaseVerification {
    /// The keys a person trusts.
    package struct Keys {
        /// An `allowed_signers` file's text (ssh-keygen's format), for `.sig` files.
        package var sshAllowedSigners: String?
        /// SSH public keys (`ssh-ed25519 AAAA…` lines), for `.sig` files.
        package var sshPublicKeys: [String] = []
        /// A minisign public key (the `.pub` file's text or its base64 line), for `.minisig` files.
        package var minisignPublicKey: String?
        /// An armored OpenPGP public key, for `.asc` files (checked by gpg).
        package var openPGPPublicKey: String?
        /// The Ed25519 public key provenance envelopes are signed with (a PEM `PUBLIC KEY`, or an
        /// `ssh-ed25519 AAAA…` line); given, every provenance document must carry its signature.
        package var attestationPublicKey: String?
        /// The commit the release was made from; given, every provenance statement must name it
        /// as its source (`resolvedDependencies[].digest.gitCommit`).
        package var sourceCommit: String?

        package init() {}

        var isEmpty: Bool { sshAllowedSigners == nil && sshPublicKeys.isEmpty && minisignPublicKey == nil && openPGPPublicKey == nil }
    }

    /// One thing checked and found good.
    package struct Passed: Equatable {
        package var file: String
        package var check: String
    }

    /// What was checked: the good, and the problems (each names its file).
    package struct Outcome {
        package var passed: [Passed] = []
        package var problems: [VerificationProblem] = []
        /// The files carry no signature at all (no `.sig`, `.minisig` or `.asc` file and no
        /// provenance): what passed proves the files match the checksums published beside them,
        /// not who made them. Nil for a signed release; else the checksum files that were checked.
        package var unsigned: [String]?
    }

    private static let signatureExtensions = [".sig", ".minisig", ".asc"]

    /// Checks `folder`.
    /// - Throws: `SigningError` (usage) for a folder that cannot be read or keys that do not read as keys.
    package static func verify(folder: String, keys: Keys, environment: [String: String]) throws -> Outcome {
        var outcome = Outcome()
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { name in
                var isFolder: ObjCBool = false
                return FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder) && !isFolder.boolValue && !name.hasPrefix(".")
            }.sorted()
        } catch {
            throw SigningError("cannot read the folder \(folder)", suggestion: "name the folder the release's files were downloaded to", category: .usage)
        }
        guard !names.isEmpty else { throw SigningError("\(folder) holds no files to verify", category: .usage) }
        let allowed = try keys.sshAllowedSigners.map { try AllowedSigners(text: $0, source: "the allowed signers file") }
        let sshKeys = try keys.sshPublicKeys.map { line in
            guard let key = SSHPublicKey(line: line) else { throw SigningError("\(line.prefix(30))… is not an SSH public key", category: .usage) }
            return key
        }
        let minisignKey = try keys.minisignPublicKey.map { try Minisign.publicKey(from: $0) }
        let attestationKey = try keys.attestationPublicKey.map { try AttestationPublicKey(text: $0) }
        if let commit = keys.sourceCommit, commit.count < 7 || !commit.allSatisfy(\.isHexDigit) {
            throw SigningError("\(commit) is not a commit id (at least 7 hexadecimal digits)", category: .usage)
        }
        var digests: [String: String] = [:]
        func digest(_ name: String) throws -> String {
            if let known = digests[name] { return known }
            let value = try SHA256.hex(ofFile: folder + "/" + name)
            digests[name] = value
            return value
        }

        let checksumFiles = names.filter(isChecksumFile)
        let signatures = names.filter { name in signatureExtensions.contains { name.hasSuffix($0) } }
        let documents = names.filter { isSBOM($0) || isProvenance($0) }
        var covered = Set<String>(checksumFiles + signatures)

        // Checksums.
        for sums in checksumFiles {
            let text = String(decoding: FileManager.default.contents(atPath: folder + "/" + sums) ?? Data(), as: UTF8.self)
            for (number, line) in text.split(separator: "\n").enumerated() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
                guard parts.count == 2, parts[0].count == 64 else {
                    outcome.problems.append(VerificationProblem(file: sums, "line \(number + 1) is not `<sha256>  <name>`"))
                    continue
                }
                let expected = parts[0].lowercased()
                var name = String(parts[1]).trimmingCharacters(in: .whitespaces)
                if name.hasPrefix("*") { name.removeFirst() }
                guard names.contains(name) else {
                    outcome.problems.append(VerificationProblem(file: name, "\(sums) names it, and it is not in the folder"))
                    continue
                }
                let actual = try digest(name)
                covered.insert(name)
                if actual == expected {
                    outcome.passed.append(Passed(file: name, check: "SHA-256 matches \(sums)"))
                } else {
                    outcome.problems.append(VerificationProblem(
                        file: name, "its SHA-256 does not match \(sums): the file was changed or damaged",
                        info: [("expected", expected), ("actual", actual)]))
                }
            }
        }

        // Signatures.
        var signed = Set<String>()
        for signature in signatures {
            let ext = signatureExtensions.first { signature.hasSuffix($0) } ?? ""
            let target = String(signature.dropLast(ext.count))
            guard names.contains(target) else {
                outcome.problems.append(VerificationProblem(file: signature, "it signs \(target), which is not in the folder"))
                continue
            }
            covered.insert(target)
            let data = Array(FileManager.default.contents(atPath: folder + "/" + target) ?? Data())
            let text = String(decoding: FileManager.default.contents(atPath: folder + "/" + signature) ?? Data(), as: UTF8.self)
            do {
                let who: String
                switch ext {
                case ".sig": who = try checkSSH(data, text, allowed: allowed, keys: sshKeys)
                case ".minisig":
                    guard let minisignKey else { throw SigningError("it is a minisign signature, and no minisign public key was given (--minisign-key)") }
                    _ = try Minisign.verify(data, signature: text, key: minisignKey)
                    who = "minisign key \(Minisign.hexID(minisignKey.keyID))"
                default: who = try checkOpenPGP(folder + "/" + target, folder + "/" + signature, key: keys.openPGPPublicKey, environment: environment)
                }
                outcome.passed.append(Passed(file: target, check: "\(signature) is a good signature by \(who)"))
                signed.insert(target)
            } catch let error as SigningError {
                outcome.problems.append(VerificationProblem(file: target, "\(signature) does not verify: \(error.message)", info: error.info))
            }
        }

        // A release with no signature at all (published `--unsigned`) is said as such, not as a
        // problem per checksum file: `verify` ends with its own exit code.
        if signatures.isEmpty && !documents.contains(where: isProvenance) {
            outcome.unsigned = checksumFiles
        } else if !keys.isEmpty {
            // A checksum file proves nothing against a changed download unless it is signed.
            for sums in checksumFiles where !signed.contains(sums) {
                outcome.problems.append(VerificationProblem(file: sums, "it has no good signature by the keys given: its checksums prove nothing against a changed download"))
            }
        }

        // SBOMs and provenance name exactly the release's files.
        let released = Set(names).subtracting(checksumFiles).subtracting(signatures).subtracting(documents)
        for document in documents {
            do {
                let named = try subjects(of: folder + "/" + document, provenance: isProvenance(document))
                var wrong: [String] = []
                for (name, sha256) in named.sorted(by: { $0.key < $1.key }) {
                    if !names.contains(name) { wrong.append("\(name): named, not in the folder") }
                    else if try digest(name) != sha256 { wrong.append("\(name): its SHA-256 differs from the one named") }
                }
                for name in released.sorted() where named[name] == nil { wrong.append("\(name): in the folder, not named") }
                if wrong.isEmpty {
                    outcome.passed.append(Passed(file: document, check: "names exactly the \(named.count) release file\(named.count == 1 ? "" : "s") with their SHA-256"))
                } else {
                    outcome.problems.append(VerificationProblem(file: document, "it does not name exactly the release's files", info: [("differences", wrong.joined(separator: "\n"))]))
                }
                if isProvenance(document) {
                    let verifier = EnvelopeVerifier(key: attestationKey, minisign: minisignKey, openPGP: keys.openPGPPublicKey, environment: environment)
                    try checkProvenance(folder + "/" + document, name: document, verifier: verifier, commit: keys.sourceCommit, outcome: &outcome)
                }
                covered.insert(document)
            } catch let error as SigningError {
                outcome.problems.append(VerificationProblem(file: document, error.message))
            }
        }

        for name in names where !covered.contains(name) {
            outcome.problems.append(VerificationProblem(file: name, "no checksum file names it and no signature signs it: nothing proves it is the released file"))
        }
        return outcome
    }

    /// The files of a release that attestations are about: not checksum files, signatures, SBOMs or provenance.
    package static func releasedFiles(_ names: [String]) -> [String] {
        names.filter { name in !isChecksumFile(name) && !signatureExtensions.contains { name.hasSuffix($0) } && !isSBOM(name) && !isProvenance(name) }
    }

    /// Checks the attestations GitHub stores for each released file: at least one per file whose
    /// statement names the file with its SHA-256, signed by a key given (when keys are given),
    /// with `commit` as its source (when given). Keyless (Sigstore certificate) bundles are
    /// counted but not checked here: `gh attestation verify` checks those.
    package static func checkGitHubAttestations(_ found: [(file: String, bundles: [[String: Any]])], folder: String, keys: Keys,
                                                environment: [String: String]) throws -> Outcome {
        var outcome = Outcome()
        let verifier = EnvelopeVerifier(
            key: try keys.attestationPublicKey.map { try AttestationPublicKey(text: $0) },
            minisign: try keys.minisignPublicKey.map { try Minisign.publicKey(from: $0) },
            openPGP: keys.openPGPPublicKey, environment: environment)
        for (file, bundles) in found {
            let digest = try SHA256.hex(ofFile: folder + "/" + file)
            var good = false
            var reasons: [String] = []
            var keyless = 0
            for (index, bundle) in bundles.enumerated() {
                if SigstoreBundle.isKeyless(bundle) { keyless += 1; continue }
                guard let envelope = SigstoreBundle.envelope(of: bundle) else { reasons.append("attestation \(index + 1) carries no DSSE envelope"); continue }
                guard SigstoreBundle.subjects(of: envelope).contains(where: { $0.name == file && $0.sha256 == digest }) else {
                    reasons.append("attestation \(index + 1) does not name \(file) with its SHA-256")
                    continue
                }
                var checked = Outcome()
                let what = "GitHub attestation \(index + 1)"
                checkEnvelope(envelope, name: file, what: what, verifier: verifier, commit: keys.sourceCommit, outcome: &checked)
                if checked.problems.isEmpty {
                    good = true
                    outcome.passed.append(Passed(file: file, check: "\(what) names it with its SHA-256"))
                    outcome.passed += checked.passed
                } else {
                    reasons += checked.problems.map(\.reason)
                }
            }
            if !good {
                let none = bundles.isEmpty ? "GitHub holds no attestation of it (sha256:\(digest))"
                    : "no attestation GitHub holds for it checks out" + (keyless > 0 ? " (\(keyless) keyless Sigstore attestation\(keyless == 1 ? "" : "s") not checked here: use gh attestation verify)" : "")
                outcome.problems.append(VerificationProblem(file: file, none, info: reasons.map { ("attestation", $0) }))
            }
        }
        return outcome
    }

    /// Checks a provenance document's DSSE signature with the keys given and its source commit
    /// against `commit`, each when given; what passes and what does not goes into `outcome`.
    private static func checkProvenance(_ path: String, name: String, verifier: EnvelopeVerifier, commit: String?,
                                        outcome: inout Outcome) throws {
        let envelope = try jsonDocument(at: path)
        checkEnvelope(envelope, name: name, what: "its DSSE envelope", verifier: verifier, commit: commit, outcome: &outcome)
    }

    /// Checks a DSSE envelope (a provenance file's, or one GitHub stores): its signature with the
    /// keys given, and that its statement's source is `commit`.
    static func checkEnvelope(_ envelope: [String: Any], name: String, what: String, verifier: EnvelopeVerifier, commit: String?,
                              outcome: inout Outcome) {
        let payload = (envelope["payload"] as? String).flatMap { Data(base64Encoded: $0) }
        let signatures = (envelope["signatures"] as? [[String: Any]] ?? []).compactMap { ($0["sig"] as? String).flatMap { Data(base64Encoded: $0) } }
        if let payload, let type = envelope["payloadType"] as? String, !signatures.isEmpty {
            let signed = Array(DSSE.preAuthenticationEncoding(payloadType: type, payload: payload))
            switch verifier.check(signatures.map(Array.init), over: signed) {
            case .notChecked: break
            case .good(let who): outcome.passed.append(Passed(file: name, check: "\(what) is signed by \(who)"))
            case .bad(let why): outcome.problems.append(VerificationProblem(file: name, "\(what == "its DSSE envelope" ? "its DSSE signature" : what + "'s signature") does not verify with \(why)"))
            }
        } else if verifier.key != nil {
            outcome.problems.append(VerificationProblem(file: name, "\(what) is not a signed DSSE envelope, and an attestation key was given: nothing proves who made it"))
        }
        if let commit {
            // The statement inside the envelope, or the document itself when it is not wrapped.
            let object = payload.flatMap { (try? JSONSerialization.jsonObject(with: $0)) as? [String: Any] } ?? envelope
            let definition = ((object["predicate"] as? [String: Any])?["buildDefinition"] as? [String: Any])
            let commits = (definition?["resolvedDependencies"] as? [[String: Any]] ?? []).compactMap { ($0["digest"] as? [String: Any])?["gitCommit"] as? String }
            if commits.contains(where: { $0.lowercased().hasPrefix(commit.lowercased()) }) {
                outcome.passed.append(Passed(file: name, check: "\(what == "its DSSE envelope" ? "its" : what + "'s") source is commit \(commit)"))
            } else {
                outcome.problems.append(VerificationProblem(file: name, "\(what == "its DSSE envelope" ? "its" : what + "'s") source is not commit \(commit)",
                                                            info: [("named", commits.isEmpty ? "no source commit" : commits.joined(separator: ", "))]))
            }
        }
    }

    /// Checks DSSE signatures with the keys a person gave: the attestation key (Ed25519, RSA,
    /// ECDSA: the key's raw signature, from a key file or ssh-agent), the minisign key (a
    /// `.minisig` text over the encoding) and the OpenPGP key (gpg's binary signature).
    struct EnvelopeVerifier {
        var key: AttestationPublicKey?
        var minisign: Minisign.PublicKey?
        var openPGP: String?
        var environment: [String: String]

        enum Verdict { case notChecked, good(String), bad(String) }

        /// Good when one signature verifies with a key given; bad when a key that must check it
        /// (the attestation key, or a minisign or OpenPGP key for a signature of that kind) finds none.
        func check(_ signatures: [[UInt8]], over message: [UInt8]) -> Verdict {
            var mustCheck = key != nil
            for signature in signatures {
                if let minisign, let text = String(bytes: signature, encoding: .utf8), text.hasPrefix("untrusted comment:") {
                    mustCheck = true
                    if (try? Minisign.verify(message, signature: text, key: minisign)) != nil {
                        return .good("minisign key \(Minisign.hexID(minisign.keyID))")
                    }
                } else if let openPGP, Self.isOpenPGPSignature(signature) {
                    mustCheck = true
                    if let who = try? Self.checkOpenPGP(signature, message, key: openPGP, environment: environment) { return .good(who) }
                } else if let key, key.isValidSignature(signature, for: message) {
                    return .good("the attestation key given")
                }
            }
            let given = [key.map { _ in "the attestation key" }, minisign.map { _ in "the minisign key" }, openPGP.map { _ in "the OpenPGP key" }].compactMap { $0 }
            return mustCheck ? .bad(given.joined(separator: " or ") + " given: the statement was changed, or another key signed it") : .notChecked
        }

        /// An OpenPGP signature packet (tag 2), old or new packet format.
        static func isOpenPGPSignature(_ bytes: [UInt8]) -> Bool {
            guard let first = bytes.first, first & 0x80 != 0 else { return false }
            return first & 0x40 != 0 ? first & 0x3f == 2 : (first >> 2) & 0x0f == 2
        }

        /// gpg's verdict on a binary signature of `message` (written to a folder of its own).
        static func checkOpenPGP(_ signature: [UInt8], _ message: [UInt8], key: String, environment: [String: String]) throws -> String {
            var template = Array("/tmp/shiplane-dsse-\(getpid())-XXXXXX".utf8CString)
            guard let made = template.withUnsafeMutableBufferPointer({ buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }) else {
                throw SigningError("cannot make a folder in /tmp", category: .environment)
            }
            let folder = String(cString: made)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            guard FileManager.default.createFile(atPath: folder + "/pae", contents: Data(message)),
                  FileManager.default.createFile(atPath: folder + "/pae.sig", contents: Data(signature)) else {
                throw SigningError("cannot write to \(folder)", category: .environment)
            }
            return try ReleaseVerification.checkOpenPGP(folder + "/pae", folder + "/pae.sig", key: key, environment: environment)
        }
    }

    /// A JSON object document: a whole file (an SBOM or a statement, often pretty-printed), or
    /// JSON Lines (`.intoto.jsonl`: its first line).
    private static func jsonDocument(at path: String) throws -> [String: Any] {
        guard let data = FileManager.default.contents(atPath: path),
              let object = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])
                ?? (try? JSONSerialization.jsonObject(with: Data(String(decoding: data, as: UTF8.self).split(separator: "\n").first.map { Data($0.utf8) } ?? data)) as? [String: Any])
        else { throw SigningError("it is not a JSON document") }
        return object
    }

    /// The public half of a provenance key: an SSH public key line of any type `DSSESigner`
    /// signs with (`ssh-ed25519`, `ssh-rsa`, `ecdsa-sha2-nistp256/384/521`), or a PEM `PUBLIC KEY`
    /// (SubjectPublicKeyInfo, `openssl pkey -pubout`, `ssh-keygen -e -m PKCS8`) of Ed25519, RSA or
    /// ECDSA P-256/P-384/P-521.
    enum AttestationPublicKey {
        case ed25519(Curve25519.Signing.PublicKey)
        case ssh(SSHPublicKey)
        case rsa(_RSA.Signing.PublicKey)
        case p256(P256.Signing.PublicKey)
        case p384(P384.Signing.PublicKey)
        case p521(P521.Signing.PublicKey)

        init(text: String) throws {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if let key = SSHPublicKey(line: trimmed) {
                self = .ssh(key)
            } else if let key = try? ReleaseVerification.ed25519PublicKey(from: trimmed) {
                self = .ed25519(key)
            } else if trimmed.hasPrefix("-----BEGIN PUBLIC KEY-----") || trimmed.hasPrefix("-----BEGIN RSA PUBLIC KEY-----") {
                if let key = try? P256.Signing.PublicKey(pemRepresentation: trimmed) { self = .p256(key) }
                else if let key = try? P384.Signing.PublicKey(pemRepresentation: trimmed) { self = .p384(key) }
                else if let key = try? P521.Signing.PublicKey(pemRepresentation: trimmed) { self = .p521(key) }
                else if let key = try? _RSA.Signing.PublicKey(pemRepresentation: trimmed) { self = .rsa(key) }
                else { throw Self.unreadable }
            } else {
                throw Self.unreadable
            }
        }

        static let unreadable = SigningError(
            "the attestation key is not a public key Shiplane reads (an SSH public key line, or a PEM public key of Ed25519, RSA or ECDSA)",
            suggestion: "give the public half of the provenance key: its .pub file, or openssl pkey -in key.pem -pubout", category: .usage)

        /// True when `signature` is a DSSE signature of `data` by this key.
        func isValidSignature(_ signature: [UInt8], for data: [UInt8]) -> Bool {
            switch self {
            case .ed25519(let key): return key.isValidSignature(signature, for: data)
            case .ssh(let key): return key.isValidDSSESignature(signature, for: data)
            case .rsa(let key):
                return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: Crypto.SHA256.hash(data: data), padding: .insecurePKCS1v1_5)
            case .p256(let key):
                return (try? P256.Signing.ECDSASignature(derRepresentation: signature)).map { key.isValidSignature($0, for: Crypto.SHA256.hash(data: data)) } ?? false
            case .p384(let key):
                return (try? P384.Signing.ECDSASignature(derRepresentation: signature)).map { key.isValidSignature($0, for: SHA384.hash(data: data)) } ?? false
            case .p521(let key):
                return (try? P521.Signing.ECDSASignature(derRepresentation: signature)).map { key.isValidSignature($0, for: SHA512.hash(data: data)) } ?? false
            }
        }
    }

    /// An Ed25519 public key from a PEM `PUBLIC KEY` (SubjectPublicKeyInfo) or an `ssh-ed25519` line.
    static func ed25519PublicKey(from text: String) throws -> Curve25519.Signing.PublicKey {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let unreadable = SigningError("the attestation key is neither an Ed25519 PEM public key nor an ssh-ed25519 line",
                                      suggestion: "give the public half of the provenance key: openssl pkey -in key.pem -pubout", category: .usage)
        var raw: Data?
        if trimmed.hasPrefix("-----BEGIN PUBLIC KEY-----") {
            let body = trimmed.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
            // SubjectPublicKeyInfo of Ed25519 (RFC 8410): a fixed 12-byte prefix, then the key.
            let prefix = Data([0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00])
            if let der = Data(base64Encoded: body), der.count == 44, der.prefix(12) == prefix { raw = der.suffix(32) }
        } else if trimmed.hasPrefix("ssh-ed25519 "), let key = SSHPublicKey(line: trimmed), key.blob.count == 51 {
            raw = Data(key.blob.suffix(32))
        }
        guard let raw, let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else { throw unreadable }
        return key
    }

    /// True for `SHA256SUMS`, `…SHA256SUMS…`, `checksums.txt`, `*.sha256`.
    static func isChecksumFile(_ name: String) -> Bool {
        let lower = name.lowercased()
        return !signatureExtensions.contains { lower.hasSuffix($0) }
            && (lower.contains("sha256sums") || lower.hasSuffix("checksums.txt") || lower.hasSuffix(".sha256"))
    }

    static func isSBOM(_ name: String) -> Bool { name.hasSuffix(".cdx.json") || name.hasSuffix(".spdx.json") }

    static func isProvenance(_ name: String) -> Bool {
        name.hasSuffix(".intoto.json") || name.hasSuffix(".intoto.jsonl") || name.hasSuffix(".provenance.json")
    }

    /// The files a document names, with their SHA-256: a CycloneDX document's `file`
    /// components, an SPDX document's files, an in-toto statement's (or its DSSE envelope's)
    /// subjects.
    private static func subjects(of path: String, provenance: Bool) throws -> [String: String] {
        var object = try jsonDocument(at: path)
        if let payload = object["payload"] as? String, let decoded = Data(base64Encoded: payload),
           let statement = try? JSONSerialization.jsonObject(with: decoded) as? [String: Any] {
            object = statement
        }
        var named: [String: String] = [:]
        if let subjects = object["subject"] as? [[String: Any]] {
            for subject in subjects {
                if let name = subject["name"] as? String, let sha = (subject["digest"] as? [String: Any])?["sha256"] as? String { named[name] = sha.lowercased() }
            }
        } else if let components = object["components"] as? [[String: Any]] {
            for component in components where component["type"] as? String == "file" {
                guard let name = component["name"] as? String else { continue }
                let hash = (component["hashes"] as? [[String: Any]])?.first { $0["alg"] as? String == "SHA-256" }?["content"] as? String
                named[name] = hash?.lowercased() ?? ""
            }
        } else if let files = object["files"] as? [[String: Any]] {
            for file in files {
                guard var name = file["fileName"] as? String else { continue }
                if name.hasPrefix("./") { name.removeFirst(2) }
                let hash = (file["checksums"] as? [[String: Any]])?.first { $0["algorithm"] as? String == "SHA256" }?["checksumValue"] as? String
                named[name] = hash?.lowercased() ?? ""
            }
        } else if !provenance {
            return [:]
        } else {
            throw SigningError("it names no subjects")
        }
        return named
    }

    /// Checks an SSH signature against the allowed signers and keys; returns who signed.
    private static func checkSSH(_ data: [UInt8], _ text: String, allowed: AllowedSigners?, keys: [SSHPublicKey]) throws -> String {
        guard allowed != nil || !keys.isEmpty else {
            throw SigningError("it is an SSH signature, and no allowed signers file (--ssh-allowed-signers) or SSH public key (--ssh-key) was given")
        }
        let parsed = try SSHSignature.parse(text)
        guard parsed.namespace == "file" else { throw SigningError("it was made for the namespace \(parsed.namespace), not file") }
        let principals = allowed?.principals(for: parsed.publicKey, namespace: "file") ?? []
        guard !principals.isEmpty || keys.contains(parsed.publicKey) else {
            throw SigningError("it was made by \(parsed.publicKey.type) key \(parsed.publicKey.fingerprint), which is not among the keys given")
        }
        guard SSHSignature.isValid(parsed, for: data, namespace: "file") else {
            throw SigningError("the signature does not match the file's bytes: the file was changed, or the signature is not for it")
        }
        return (principals.first.map { $0 + " with " } ?? "") + "\(parsed.publicKey.type) key \(parsed.publicKey.fingerprint)"
    }

    /// Checks an OpenPGP signature with gpg, against only the key given (a keyring of its own).
    static func checkOpenPGP(_ file: String, _ signature: String, key: String?, environment: [String: String]) throws -> String {
        guard let key else { throw SigningError("it is an OpenPGP signature, and no OpenPGP public key was given (--gpg-key)") }
        // Named with this process's id, so a folder left behind is told from one in use.
        var template = Array("/tmp/shiplane-gpg-\(getpid())-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw SigningError("cannot make a keyring folder in /tmp", category: .environment)
        }
        let home = String(cString: made)
        let signer = OpenPGPSigner(program: "gpg", key: nil, environment: environment, passphrase: nil, temporaryHome: home)
        defer { signer.finish() }
        let imported = try SigningProgram.run("gpg", ["--homedir", home, "--batch", "--no-tty", "--import"], environment: environment, input: Array(key.utf8))
        guard imported.status == .exited(0) else { throw SigningError("gpg did not import the OpenPGP public key given", info: [("gpg said", imported.errors)]) }
        let checked = try SigningProgram.run(
            "gpg", ["--homedir", home, "--batch", "--no-tty", "--status-fd=1", "--verify", signature, file], environment: environment, input: [])
        let status = String(decoding: checked.output, as: UTF8.self)
        guard checked.status == .exited(0), let valid = status.split(separator: "\n").first(where: { $0.hasPrefix("[GNUPG:] VALIDSIG ") }) else {
            throw SigningError("gpg says it is not a good signature by the key given: the file was changed, or another key signed it")
        }
        let fingerprint = valid.split(separator: " ").dropFirst(2).first.map(String.init) ?? "?"
        return "OpenPGP key \(fingerprint)"
    }
}

/// A downloaded file that does not verify: names the file and says why.
package struct VerificationProblem: ReportableError {
    package var file: String
    package var reason: String
    package var info: [(key: String, value: String)]

    package init(file: String, _ reason: String, info: [(key: String, value: String)] = []) {
        self.file = file
        self.reason = reason
        self.info = info
    }

    package var message: String { "\(file): \(reason)" }
}

/// `shiplane verify` found no problem, and no signature either: the release was published
/// without one (`--unsigned`). What was checked is said; the exit code is 9, not 0.
package struct ReleaseUnsigned: ReportableError {
    /// The checksum files whose digests were checked (none: nothing could be).
    package var checksumFiles: [String]
    /// How many files' SHA-256 matched them.
    package var matched: Int

    package init(checksumFiles: [String], matched: Int) {
        self.checksumFiles = checksumFiles
        self.matched = matched
    }

    package var message: String {
        "the release carries no signature (no .sig, .minisig or .asc file, no provenance): "
            + (checksumFiles.isEmpty ? "nothing could be checked, not even a checksum"
                : "only the SHA-256 of \(matched) file\(matched == 1 ? "" : "s") against \(checksumFiles.joined(separator: ", ")) was checked, and they match")
    }
    package var info: [(key: String, value: String)] {
        [("what that proves", checksumFiles.isEmpty ? "nothing" : "the files are the ones the checksum file lists; not who made them, since whoever could change a file could change the list beside it")]
    }
    package var suggestion: String? {
        "compare \(checksumFiles.first ?? "the files' SHA-256") with a copy from another channel you trust, or ask the project for a signed release; scripts can tell this outcome by its exit code, 9"
    }
    package var category: ErrorCategory { .failure }

    /// True when `error` or any error under it is a `ReleaseUnsigned`.
    package static func isIn(_ error: any Error) -> Bool {
        if error is ReleaseUnsigned { return true }
        if let reportable = error as? any ReportableError { return reportable.underlyingErrors.contains(where: isIn) }
        return false
    }
}

/// `shiplane verify` found problems: each one names its file.
package struct VerificationFailed: ReportableError {
    package var problems: [VerificationProblem]
    package var message: String { "\(problems.count) problem\(problems.count == 1 ? "" : "s") found: do not use these files" }
    package var underlyingErrors: [any Error] { problems }
    package var suggestion: String? { "download the release again from where it is published; if it still fails, tell its maintainers" }

    package init(problems: [VerificationProblem]) { self.problems = problems }
}
