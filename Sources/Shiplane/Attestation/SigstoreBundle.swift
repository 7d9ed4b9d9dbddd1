import Foundation

/// A Sigstore bundle (protobuf-specs' `sigstore_bundle.proto`, media type v0.3, in its JSON
/// form) around a DSSE envelope signed with a key the verifier brings: the verification
/// material is a `publicKey` whose `hint` is the envelope's key id, with no certificate, no
/// transparency-log entry and no signed timestamp.
///
/// This is what GitHub's artifact attestations API stores (`POST /repos/{owner}/{repo}/attestations`
/// takes `{"bundle": …}`). Keyless signing (a Fulcio certificate for the CI's OIDC identity and a
/// Rekor entry) would fill `x509CertificateChain`/`certificate` and `tlogEntries`; both services are
/// out of reach here, so Shiplane's bundles carry the key's hint only and are checked against the
/// public key a person is given (`shiplane verify --attestation-key`), not by `gh attestation verify`.
package enum SigstoreBundle {
    /// The bundle media type Shiplane writes.
    package static let mediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"

    /// The envelope document (a DSSE envelope's JSON object) read from an `.intoto.jsonl` file's
    /// first line, or from a whole JSON file.
    /// - Throws: `ShiplaneError` when it is not a DSSE envelope with a payload and signatures.
    package static func envelope(fromFile data: Data, named name: String) throws -> [String: Any] {
        let firstLine = String(decoding: data, as: UTF8.self).split(separator: "\n").first.map { Data($0.utf8) } ?? data
        guard let object = ((try? JSONSerialization.jsonObject(with: firstLine)) ?? (try? JSONSerialization.jsonObject(with: data))) as? [String: Any],
              object["payload"] is String, object["payloadType"] is String,
              let signatures = object["signatures"] as? [[String: Any]], !signatures.isEmpty
        else {
            throw ShiplaneError("\(name) is not a signed DSSE envelope", suggestion: "give the file lane.provenance wrote")
        }
        return object
    }

    /// The bundle's JSON object for `envelope`.
    package static func bundle(envelope: [String: Any]) -> [String: Any] {
        let signatures = (envelope["signatures"] as? [[String: Any]]) ?? []
        let hint = signatures.compactMap { $0["keyid"] as? String }.first { !$0.isEmpty } ?? ""
        return [
            "mediaType": mediaType,
            "verificationMaterial": ["publicKey": ["hint": hint], "tlogEntries": [] as [Any], "timestampVerificationData": [:] as [String: Any]] as [String: Any],
            "dsseEnvelope": [
                "payload": envelope["payload"] ?? "",
                "payloadType": envelope["payloadType"] ?? "",
                "signatures": signatures.map { signature in
                    ["sig": signature["sig"] ?? "", "keyid": signature["keyid"] ?? ""] as [String: Any]
                },
            ] as [String: Any],
        ]
    }

    /// The DSSE envelope a bundle carries, when it carries one (a bundle may hold a message
    /// signature instead).
    package static func envelope(of bundle: [String: Any]) -> [String: Any]? {
        guard let envelope = bundle["dsseEnvelope"] as? [String: Any], envelope["payload"] is String else { return nil }
        return envelope
    }

    /// True when the bundle's verification material is a certificate (keyless Sigstore signing),
    /// which only a Sigstore verifier with Fulcio's roots can check.
    package static func isKeyless(_ bundle: [String: Any]) -> Bool {
        guard let material = bundle["verificationMaterial"] as? [String: Any] else { return false }
        return material["certificate"] != nil || material["x509CertificateChain"] != nil
    }

    /// The SHA-256 subjects of the in-toto statement in `envelope`: name → lowercase hex digest.
    package static func subjects(of envelope: [String: Any]) -> [(name: String, sha256: String)] {
        guard let payload = (envelope["payload"] as? String).flatMap({ Data(base64Encoded: $0) }),
              let statement = (try? JSONSerialization.jsonObject(with: payload)) as? [String: Any],
              let subjects = statement["subject"] as? [[String: Any]] else { return [] }
        return subjects.compactMap { subject in
            guard let name = subject["name"] as? String, let digest = (subject["digest"] as? [String: Any])?["sha256"] as? String else { return nil }
            return (name, digest.lowercased())
        }
    }
}
