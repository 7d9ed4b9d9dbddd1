import Foundation

// GitHub's artifact attestations REST API, as its OpenAPI description (rest-api-description,
// api.github.com 2022-11-28) gives it:
//   POST /repos/{owner}/{repo}/attestations                   {"bundle": {...}} → 201 {"id": N}
//   GET  /repos/{owner}/{repo}/attestations/{subject_digest}  → 200 {"attestations": [{"bundle", "repository_id", "bundle_url", "initiator"}]}
// There is no call to delete an attestation.
extension GitHubClient {
    /// One attestation GitHub holds for a digest.
    struct StoredAttestation {
        /// The Sigstore bundle as JSON.
        var bundle: [String: Any]
        var bundleURL: String?
    }

    private var attestationsPath: String {
        "/repos/\(URITemplate.percentEncode(repository.owner, allowReserved: false))/\(URITemplate.percentEncode(repository.name, allowReserved: false))/attestations"
    }

    /// The attestations stored for `sha256` (hex) in this repository, following `Link: rel="next"`
    /// (at most `maxPages` pages of 100). GitHub answers 404 where it holds none; that is an empty list.
    /// - Throws: `GitHubError` for a refused token, a missing permission or another answer.
    func attestations(forSHA256 sha256: String, maxPages: Int = 10) async throws -> [StoredAttestation] {
        var found: [StoredAttestation] = []
        var next: String? = apiBaseURL + attestationsPath + "/sha256:\(sha256)?per_page=100"
        var pages = 0
        while let url = next, pages < maxPages {
            pages += 1
            let response = try await transport.send(HTTPRequest(method: .get, url: url, headers: headers))
            if response.status == 404 { return found }
            guard response.isSuccess else { throw failure(response, operation: "list the attestations of sha256:\(sha256)") }
            guard let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any],
                  let list = object["attestations"] as? [[String: Any]] else {
                throw GitHubError.unexpectedStatus(operation: "list the attestations of sha256:\(sha256)", status: response.status,
                                                   serverMessage: "the answer is not an attestation list", details: [redactor.redact(response.bodySnippet())])
            }
            found += list.compactMap { item in (item["bundle"] as? [String: Any]).map { StoredAttestation(bundle: $0, bundleURL: item["bundle_url"] as? String) } }
            next = LinkHeader.url(for: "next", in: response.header("link"))
        }
        return found
    }

    /// Stores `bundle` as an attestation of this repository; returns its id.
    /// - Throws: `GitHubError` for a refused token, a missing permission (`attestations: write`) or a 422.
    func createAttestation(bundle: [String: Any]) async throws -> Int? {
        let body = try JSONSerialization.data(withJSONObject: ["bundle": bundle], options: [.sortedKeys, .withoutEscapingSlashes])
        let request = HTTPRequest(method: .post, url: apiBaseURL + attestationsPath, headers: headers + [("Content-Type", "application/json")], body: .bytes(Array(body)))
        let response = try await transport.send(request)
        guard response.status == 201 || response.status == 200 else { throw failure(response, operation: "create an attestation") }
        return ((try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any])?["id"] as? Int
    }
}

/// An attestation this run stored on GitHub (`POST /repos/{owner}/{repo}/attestations`). GitHub's
/// API has no call to delete one, so it stays: the run passes its point of no return right
/// before the upload, and a rollback reports it as staying. A re-run lists the attestations of
/// the first subject's digest first and sends nothing when one carries the same statement.
struct GitHubAttestationUploaded: Effect, Equatable {
    static let kind = "github.attestation"
    /// `owner/name`.
    var repository: String
    /// `sha256:HEX` of the statement's first subject, under which GitHub lists it.
    var subjectDigest: String
    /// The envelope file it was made from.
    var file: String
    /// GitHub's id for it, once GitHub answered.
    var id: Int?

    var reach: EffectReach { .permanent }

    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        throw EffectStays("the attestation of \(file) stays in \(repository)'s attestations (\(subjectDigest)\(id.map { ", id \($0)" } ?? "")): GitHub's API offers no call to delete an attestation")
    }
}

/// Stores a provenance envelope on GitHub as an attestation (a Sigstore bundle), once.
struct GitHubAttestationUpload {
    var repository: GitHubRepository

    /// Uploads the envelope at `path` (named `file` in notes) unless GitHub already holds an
    /// attestation with the same statement; a dry run checks the token and the list and says
    /// what it would send.
    /// - Throws: `ShiplaneError` without a token, `GitHubError` when GitHub refuses.
    func run(envelopeFile data: Data, file: String, in step: StepContext) async throws {
        let lane = step.lane
        guard let token = GitHubReleasePublisher.token(from: lane.environment.variables) else {
            throw ShiplaneError("no token to store the attestation on GitHub: GITHUB_TOKEN is not set",
                                suggestion: "set GITHUB_TOKEN to a token with the attestations: write permission (in GitHub Actions: permissions: attestations: write, id-token: write)")
        }
        let envelope = try SigstoreBundle.envelope(fromFile: data, named: file)
        guard let first = SigstoreBundle.subjects(of: envelope).first else {
            throw ShiplaneError("\(file) names no SHA-256 subject to store an attestation under")
        }
        let client = try GitHubClient(repository: repository, token: token, environment: lane.environment.variables,
                                      transport: step.httpTransport(), version: ShiplaneVersion.current)
        let payload = envelope["payload"] as? String
        let stored = try await client.attestations(forSHA256: first.sha256)
        if stored.contains(where: { SigstoreBundle.envelope(of: $0.bundle)?["payload"] as? String == payload }) {
            step.note("\(repository) already holds the attestation of \(file) (sha256:\(first.sha256)): nothing sent")
            return
        }
        let bundle = SigstoreBundle.bundle(envelope: envelope)
        if step.isDryRun {
            step.note("would store \(file) as an attestation of \(repository) (POST /repos/\(repository)/attestations, a Sigstore bundle with the key hint \((envelope["signatures"] as? [[String: Any]])?.first?["keyid"] as? String ?? "")); GitHub cannot delete it")
            return
        }
        let ownsPoint = lane.state.pointOfNoReturn == nil
        try step.passPointOfNoReturn("stored the attestation of \(file) on GitHub \(repository)")
        var effect = GitHubAttestationUploaded(repository: repository.description, subjectDigest: "sha256:" + first.sha256, file: file, id: nil)
        let handle = try step.record(effect, "the attestation of \(file) on \(repository) (GitHub cannot delete it)")
        do {
            effect.id = try await client.createAttestation(bundle: bundle)
        } catch let error as GitHubError where error.isRefusal {
            // GitHub answered that it refuses it: nothing was stored, so nothing stays.
            step.didNotHappen(handle, "GitHub refused it")
            if ownsPoint { try step.amendPointOfNoReturn(nil) }
            throw error
        }
        step.done(handle, effect)
        step.log("stored the attestation of \(file) on \(repository)" + (effect.id.map { " (id \($0))" } ?? ""))
    }
}

extension GitHubError {
    /// True for an answer that says the request was refused and nothing changed (401, 403, 404, 422).
    var isRefusal: Bool {
        switch self {
        case .tokenRefused, .permissionDenied, .repositoryNotFound: return true
        case .unexpectedStatus(_, let status, _, _): return (400..<500).contains(status) && status != 408 && status != 429
        default: return false
        }
    }
}
