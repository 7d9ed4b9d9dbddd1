import Foundation
import Hummingbird
import Shiplane

/// GitHub's artifact attestations API for `FakeGitHub`, written from GitHub's OpenAPI description
/// (github/rest-api-description, api.github.com 2022-11-28: `repos/create-attestation` and
/// `repos/list-attestations`):
///
/// - `POST /repos/{owner}/{repo}/attestations` takes a JSON object whose one member is `bundle`
///   (required), an object of `mediaType` (a string), `verificationMaterial` and `dsseEnvelope`
///   (objects); it answers 201 `{"id": N}`. Anything else is a violation and a 422 (the
///   description documents 403 and 422).
/// - `GET /repos/{owner}/{repo}/attestations/{subject_digest}` (`sha256:HEX`) with the query
///   parameters `per_page`, `before`, `after`, `predicate_type` and no others; it answers 200
///   `{"attestations": [{"bundle", "repository_id", "bundle_url", "initiator"}]}` — the
///   attestations whose in-toto statement names the digest among its subjects.
///
/// There is no delete: the description has none.
final class FakeGitHubAttestations: @unchecked Sendable {
    // @unchecked: every mutable member is read and written holding `lock`.
    struct Stored {
        var id: Int
        var bundle: [String: Any]
        /// The statement's subjects' SHA-256 digests.
        var digests: [String]
    }

    private let lock = NSLock()
    private var stored: [Stored] = []
    private var requestViolations: [String] = []
    private var nextID = 1

    /// Every attestation stored, oldest first.
    var all: [Stored] { lock.withLock { stored } }
    /// Requests the description does not describe.
    var violations: [String] { lock.withLock { requestViolations } }

    /// Stores a bundle as another uploader would have (`actions/attest`, an earlier run).
    @discardableResult
    func add(bundle: [String: Any]) -> Int {
        lock.withLock {
            let id = nextID
            nextID += 1
            stored.append(Stored(id: id, bundle: bundle, digests: Self.digests(of: bundle)))
            return id
        }
    }

    private func violation(_ text: String) -> Response {
        lock.withLock { requestViolations.append(text) }
        return Reply.json(422, ["message": "Validation Failed", "errors": [["code": "invalid", "message": text]],
                                "documentation_url": "https://docs.github.com/rest/repos/attestations"])
    }

    /// Answers `METHOD /repos/{owner}/{repo}/attestations[/{subject_digest}]`; `rest` is what follows `attestations`.
    func route(method: String, rest: [String], query: [String: String], body bytes: [UInt8], repositoryID: Int, baseURL: String, owner: String, repo: String) -> Response {
        switch (method, rest.count) {
        case ("POST", 0):
            if let unknown = query.keys.sorted().first { return violation("POST attestations: unknown parameter \(unknown)") }
            guard let payload = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
                return Reply.json(400, ["message": "Problems parsing JSON"])
            }
            if let unknown = payload.keys.sorted().first(where: { $0 != "bundle" }) { return violation("POST attestations: unknown member \(unknown)") }
            guard let bundle = payload["bundle"] as? [String: Any] else { return violation("POST attestations: bundle (an object) is required") }
            let members: Set = ["mediaType", "verificationMaterial", "dsseEnvelope"]
            if let unknown = bundle.keys.sorted().first(where: { !members.contains($0) }) { return violation("POST attestations: bundle.\(unknown) is not described") }
            if let mediaType = bundle["mediaType"], !(mediaType is String) { return violation("POST attestations: bundle.mediaType must be a string") }
            for key in ["verificationMaterial", "dsseEnvelope"] where bundle[key] != nil && !(bundle[key] is [String: Any]) {
                return violation("POST attestations: bundle.\(key) must be an object")
            }
            if let problem = Self.sigstoreBundleProblems(bundle).first { return violation("POST attestations: \(problem)") }
            let created: [String: Any] = ["id": add(bundle: bundle)]
            RecordedAnswer.current?.record(201, created)
            return Reply.json(201, created)
        case ("GET", 1):
            let allowed: Set = ["per_page", "before", "after", "predicate_type"]
            if let unknown = query.keys.sorted().first(where: { !allowed.contains($0) }) { return violation("GET attestations: unknown parameter \(unknown)") }
            if let perPage = query["per_page"], Int(perPage) == nil { return violation("GET attestations: per_page \(perPage) is not an integer") }
            let subject = rest[0].removingPercentEncoding ?? rest[0]
            guard subject.hasPrefix("sha256:") else { return violation("GET attestations: subject_digest \(subject) is not sha256:HEX_DIGEST") }
            let digest = String(subject.dropFirst("sha256:".count)).lowercased()
            let found = all.filter { $0.digests.contains(digest) }
            let list: [String: Any] = ["attestations": found.map { item in
                ["bundle": item.bundle, "repository_id": repositoryID, "initiator": "user",
                 "bundle_url": "\(baseURL)/repos/\(owner)/\(repo)/attestations/\(item.id)/bundle"] as [String: Any]
            }]
            RecordedAnswer.current?.record(200, list)
            return Reply.json(200, list)
        default:
            return Reply.json(404, ["message": "Not Found", "documentation_url": "https://docs.github.com/rest"])
        }
    }

    /// What is wrong with `bundle` as a Sigstore bundle in protobuf's JSON form, checked against
    /// the published layout (sigstore/protobuf-specs `protos/sigstore_bundle.proto`, `Bundle`:
    /// `media_type`, `verification_material`, one of `message_signature`/`dsse_envelope`;
    /// `VerificationMaterial`: one of `public_key` (`PublicKeyIdentifier.hint`),
    /// `x509_certificate_chain`, `certificate`, then `tlog_entries` and
    /// `timestamp_verification_data` (`rfc3161_timestamps`); `envelope.proto`'s `Envelope`:
    /// `payload` (bytes), `payload_type`, `signatures` of `sig` (bytes) and `keyid`), written here
    /// from the .proto, not copied. Bytes are base64 in JSON; an unknown member is a problem, as
    /// the generated JSON schema's `additionalProperties: false` makes it.
    static func sigstoreBundleProblems(_ bundle: [String: Any]) -> [String] {
        var problems: [String] = []
        func members(_ object: [String: Any], _ allowed: Set<String>, at path: String) {
            for key in object.keys.sorted() where !allowed.contains(key) { problems.append("\(path).\(key) is not a member of the Sigstore bundle layout") }
        }
        func isBase64(_ value: Any?) -> Bool { (value as? String).map { Data(base64Encoded: $0) != nil } ?? false }
        members(bundle, ["mediaType", "verificationMaterial", "messageSignature", "dsseEnvelope"], at: "bundle")
        let mediaTypes: Set = ["application/vnd.dev.sigstore.bundle+json;version=0.1", "application/vnd.dev.sigstore.bundle+json;version=0.2",
                               "application/vnd.dev.sigstore.bundle+json;version=0.3", "application/vnd.dev.sigstore.bundle.v0.3+json"]
        if !mediaTypes.contains(bundle["mediaType"] as? String ?? "") { problems.append("bundle.mediaType \(bundle["mediaType"] ?? "(none)") is not a Sigstore bundle media type") }
        if let material = bundle["verificationMaterial"] as? [String: Any] {
            members(material, ["publicKey", "x509CertificateChain", "certificate", "tlogEntries", "timestampVerificationData"], at: "bundle.verificationMaterial")
            let contents = ["publicKey", "x509CertificateChain", "certificate"].filter { material[$0] != nil }
            if contents.count != 1 { problems.append("bundle.verificationMaterial holds \(contents.isEmpty ? "none" : contents.joined(separator: " and ")) of publicKey, x509CertificateChain, certificate (one is required)") }
            if let key = material["publicKey"] {
                if let key = key as? [String: Any] {
                    members(key, ["hint"], at: "bundle.verificationMaterial.publicKey")
                    if let hint = key["hint"], !(hint is String) { problems.append("bundle.verificationMaterial.publicKey.hint must be a string") }
                } else { problems.append("bundle.verificationMaterial.publicKey must be an object") }
            }
            if let entries = material["tlogEntries"], !(entries is [Any]) { problems.append("bundle.verificationMaterial.tlogEntries must be an array") }
            if let data = material["timestampVerificationData"] {
                if let data = data as? [String: Any] {
                    members(data, ["rfc3161Timestamps"], at: "bundle.verificationMaterial.timestampVerificationData")
                    if let stamps = data["rfc3161Timestamps"] {
                        if let stamps = stamps as? [[String: Any]] {
                            for stamp in stamps where !isBase64(stamp["signedTimestamp"]) { problems.append("an rfc3161Timestamps entry's signedTimestamp must be base64") }
                        } else { problems.append("bundle.verificationMaterial.timestampVerificationData.rfc3161Timestamps must be an array") }
                    }
                } else { problems.append("bundle.verificationMaterial.timestampVerificationData must be an object") }
            }
        } else {
            problems.append("bundle.verificationMaterial (an object) is required")
        }
        let contents = ["messageSignature", "dsseEnvelope"].filter { bundle[$0] != nil }
        if contents.count != 1 { problems.append("bundle holds \(contents.isEmpty ? "none" : "both") of messageSignature and dsseEnvelope (one is required)") }
        if let envelope = bundle["dsseEnvelope"] {
            if let envelope = envelope as? [String: Any] {
                members(envelope, ["payload", "payloadType", "signatures"], at: "bundle.dsseEnvelope")
                if !isBase64(envelope["payload"]) { problems.append("bundle.dsseEnvelope.payload must be base64") }
                if !(envelope["payloadType"] is String) { problems.append("bundle.dsseEnvelope.payloadType must be a string") }
                if let signatures = envelope["signatures"] as? [[String: Any]], !signatures.isEmpty {
                    for (index, signature) in signatures.enumerated() {
                        members(signature, ["sig", "keyid"], at: "bundle.dsseEnvelope.signatures[\(index)]")
                        if !isBase64(signature["sig"]) { problems.append("bundle.dsseEnvelope.signatures[\(index)].sig must be base64") }
                        if let keyid = signature["keyid"], !(keyid is String) { problems.append("bundle.dsseEnvelope.signatures[\(index)].keyid must be a string") }
                    }
                } else { problems.append("bundle.dsseEnvelope.signatures must be a non-empty array") }
            } else { problems.append("bundle.dsseEnvelope must be an object") }
        }
        return problems
    }

    /// The SHA-256 digests a bundle's in-toto statement names.
    static func digests(of bundle: [String: Any]) -> [String] {
        guard let envelope = bundle["dsseEnvelope"] as? [String: Any],
              let payload = (envelope["payload"] as? String).flatMap({ Data(base64Encoded: $0) }),
              let statement = (try? JSONSerialization.jsonObject(with: payload)) as? [String: Any],
              let subjects = statement["subject"] as? [[String: Any]] else { return [] }
        return subjects.compactMap { (($0["digest"] as? [String: Any])?["sha256"] as? String)?.lowercased() }
    }
}
