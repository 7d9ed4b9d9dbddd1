import Foundation
internal import Git

/// Writes SLSA v1 provenance for the release's files: an in-toto Statement v1 whose subjects are
/// the files' SHA-256, with the builder (the CI, its runner and workflow), the source (the
/// repository, HEAD's commit and the tags on it) and the parameters that are not secret, in a
/// DSSE envelope signed with an Ed25519, RSA or ECDSA key read from a secret (`.intoto.jsonl`, one line).
///
/// The same commit, files, key and CI variables give the same bytes: no time is written (the run's
/// start is not part of what is attested), and Ed25519 and RSA signatures are deterministic (ECDSA's
/// are not: a random nonce; each verifies).
package struct MakeProvenance: Action {
    /// The action's name in steps and reports.
    package static let name = "provenance"
    /// The envelope to write; missing folders are created.
    package var output: String
    /// The files attested.
    package var artifacts: [String]
    /// The environment variable holding the signing key.
    package var keyVariable: String
    /// More parameters to record (values redacted like everything else).
    package var parameters: [String: String]
    /// nil: the key's text in `keyVariable` (Ed25519, RSA or ECDSA); or a format `lane.sign`
    /// takes: `ssh` (a key's text, or a key in ssh-agent), `minisign`, `openpgp` (gpg).
    package var format: String? = nil
    /// Also store the envelope on GitHub as an artifact attestation (a Sigstore bundle).
    package var attestOnGitHub = false

    /// The output, files, key variable (never the key) and parameter names.
    package var options: [StepOption] {
        var options = [StepOption("output", output), StepOption("artifacts", artifacts.joined(separator: ", ")), StepOption("key", keyVariable)]
        if !parameters.isEmpty { options.append(StepOption("parameters", parameters.keys.sorted().joined(separator: ", "))) }
        if let format { options.append(StepOption("format", format)) }
        if attestOnGitHub { options.append(StepOption("attestOnGitHub", "true")) }
        return options
    }

    /// The SLSA build type of a Shiplane lane run.
    static let buildType = "urn:shiplane:buildtype:lane:v1"

    /// Writes the envelope (with its undo) and returns it as an artifact of kind `.provenance`.
    /// - Throws: when the key is missing or unreadable, or every missing file at once.
    package func run(in step: StepContext) throws -> Artifact {
        let lane = step.lane
        let signer = try DSSESigner.resolve(format: format, keyVariable: keyVariable, lane: lane)
        defer { signer.finish() }
        let gitHub = try attestOnGitHub ? gitHubRepository(lane) : nil
        var subjects: [[String: Any]] = []
        var missing: [String] = []
        for artifact in artifacts {
            guard let data = try lane.fileSystem.contents(of: step.resolve(artifact)) else {
                missing.append("the artifact \(artifact) does not exist")
                continue
            }
            subjects.append(["name": (artifact as NSString).lastPathComponent, "digest": ["sha256": SHA256.hex(of: data)]])
        }
        guard missing.isEmpty else { throw ValidationFailure(problems: missing, suggestion: "build the artifacts before their provenance") }
        guard !subjects.isEmpty else { throw ValidationFailure(problems: ["no artifact to attest"], suggestion: "pass the release's files") }
        subjects.sort { ($0["name"] as? String ?? "") < ($1["name"] as? String ?? "") }

        let repository = try lane.repository()
        let head = try lane.headCommit(of: repository)
        let origin = try? git { try repository.remoteURL(named: "origin") }
        let tags = try git { try repository.tags() }.filter { $0.target == head }.map(\.name).sorted()
        let redactor = lane.redactor
        let environment = BuildEnvironment(lane.environment.variables)
        let source = origin.map { CycloneDXDocument.uri(ofRepository: redactor.redact($0)) } ?? "file://" + lane.workingDirectory
        var dependency: [String: Any] = ["uri": "git+" + source + (tags.last.map { "@refs/tags/" + $0 } ?? ""), "digest": ["gitCommit": head.description]]
        if !tags.isEmpty { dependency["annotations"] = ["tags": tags] }
        var external: [String: Any] = ["source": ["repository": source, "commit": head.description] as [String: Any]]
        if let tag = tags.last { external["source"] = ["repository": source, "commit": head.description, "tag": tag] }
        if let record = lane.journal.recorder?.current {
            external["lane"] = ["name": record.lane, "arguments": record.arguments.map { redactor.redact($0) }] as [String: Any]
        }
        if !environment.workflow.isEmpty { external["workflow"] = environment.workflow }
        if !parameters.isEmpty { external["parameters"] = parameters.mapValues { redactor.redact($0) } }
        var internalParameters: [String: Any] = ["shiplane": ShiplaneVersion.current]
        if !environment.runner.isEmpty { internalParameters["runner"] = environment.runner }
        var runDetails: [String: Any] = ["builder": ["id": environment.builderID]]
        if let invocation = environment.invocationID { runDetails["metadata"] = ["invocationId": invocation] }
        let statement: [String: Any] = [
            "_type": "https://in-toto.io/Statement/v1",
            "subject": subjects,
            "predicateType": "https://slsa.dev/provenance/v1",
            "predicate": [
                "buildDefinition": [
                    "buildType": Self.buildType, "externalParameters": external,
                    "internalParameters": internalParameters, "resolvedDependencies": [dependency],
                ] as [String: Any],
                "runDetails": runDetails,
            ] as [String: Any],
        ]
        let payload = try JSONSerialization.data(withJSONObject: statement, options: [.sortedKeys, .withoutEscapingSlashes])
        let envelope = try DSSE.envelope(payload: payload, signer: signer)
        let destination = step.resolve(output)
        try step.createFolder((destination as NSString).deletingLastPathComponent)
        try step.writeFile(envelope, to: destination, describedAs: output)
        let artifact = try step.registerArtifact(output, kind: .provenance)
        step.note("\(output): \(subjects.count) subject\(subjects.count == 1 ? "" : "s"), signed by \(signer.keyID)")
        if let gitHub {
            let upload = GitHubAttestationUpload(repository: gitHub)
            let file = output
            try waitForAsync { try await upload.run(envelopeFile: envelope, file: file, in: step) }
        }
        return artifact
    }

    /// The GitHub repository to store the attestation in: `GITHUB_REPOSITORY` (set in GitHub
    /// Actions), else the origin remote's.
    private func gitHubRepository(_ lane: LaneContext) throws -> GitHubRepository {
        if let named = lane.environment["GITHUB_REPOSITORY"], !named.isEmpty { return try GitHubRepository(remoteURL: named) }
        guard let url = try git({ try lane.repository().configString("remote.origin.url") }) else {
            throw ShiplaneError("the repository has no origin remote to take the GitHub repository from, and GITHUB_REPOSITORY is not set",
                                suggestion: "set GITHUB_REPOSITORY=owner/name, or add the remote")
        }
        return try GitHubRepository(remoteURL: url)
    }
}

/// Waits on this thread for `work`, which runs as a task of its own.
///
/// A synchronous action (`provenance`) that also talks to a service waits here: lane code runs on
/// `BlockingThreadPool.lanes`, whose threads are there to wait, and the task runs on Swift's
/// cooperative pool, which such a wait leaves free.
func waitForAsync<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = WaitedOutcome<T>()
    Task {
        do { outcome.set(.success(try await work())) } catch { outcome.set(.failure(error)) }
    }
    return try outcome.wait().get()
}

/// The outcome `waitForAsync` waits for.
private final class WaitedOutcome<T: Sendable>: @unchecked Sendable {
    // @unchecked: `result` is written once, before `done` is signalled, and read after the wait.
    private var result: Result<T, any Error>?
    private let done = DispatchSemaphore(value: 0)

    func set(_ value: Result<T, any Error>) {
        result = value
        done.signal()
    }

    func wait() -> Result<T, any Error> {
        done.wait()
        return result ?? .failure(CancellationError())
    }
}

extension MakeProvenance: MakesLocalArtifacts {}

extension LaneContext {
    /// Writes signed SLSA v1 provenance (an in-toto statement in a DSSE envelope) for `artifacts`
    /// to `output`, signed with the key in the environment variable `key` (Ed25519: PKCS#8 PEM,
    /// OpenSSH or the base64 seed; RSA or ECDSA: an unencrypted OpenSSH key); returns it as an artifact.
    ///
    /// `format` signs as `lane.sign` does instead: `ssh` (the key's text in `key`, or a key in
    /// ssh-agent through `SSH_AUTH_SOCK`, `key` then holding its public key when the agent has
    /// several), `minisign` or `openpgp` (gpg). `attestOnGitHub` also stores the envelope as an
    /// artifact attestation of the GitHub repository (`GITHUB_REPOSITORY` or origin's, with
    /// `GITHUB_TOKEN`), once: GitHub cannot delete one, so the run passes its point of no return.
    @discardableResult
    public func provenance(
        for artifacts: [any ArtifactConvertible], to output: String, key: String = "SHIPLANE_ATTESTATION_KEY", parameters: [String: String] = [:],
        format: String? = nil, attestOnGitHub: Bool = false,
        file: String = #fileID, line: Int = #line
    ) throws -> Artifact {
        try run(MakeProvenance(output: output, artifacts: try ArtifactInputs.paths(artifacts), keyVariable: key, parameters: parameters,
                               format: format, attestOnGitHub: attestOnGitHub), file: file, line: line)
    }
}

extension MakeProvenance: DocumentedAction {
    /// How `lane.provenance` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Release",
        summary: "Write SLSA v1 provenance for files (in-toto Statement v1: SHA-256 subjects, builder from the CI, source commit and tag, non-secret parameters) in a DSSE envelope signed with an Ed25519, RSA or ECDSA key; with Ed25519 or RSA the same commit gives the same bytes",
        signature: #"try lane.provenance(for artifacts: [any ArtifactConvertible], to output: String, key: String = "SHIPLANE_ATTESTATION_KEY", parameters: [String: String] = [:], format: String? = nil, attestOnGitHub: Bool = false) -> Artifact"#,
        parameters: [
            .init(name: "for", type: "[any ArtifactConvertible]", defaultValue: nil, help: "the files attested (their SHA-256 are the statement's subjects)"),
            .init(name: "to", type: "String", defaultValue: nil, help: "the envelope to write (e.g. dist/app.intoto.jsonl)"),
            .init(name: "key", type: "String", defaultValue: "\"SHIPLANE_ATTESTATION_KEY\"", help: "the environment variable with the private key: Ed25519 as PKCS#8 PEM, unencrypted OpenSSH or the base64 seed; RSA or ECDSA as unencrypted OpenSSH"),
            .init(name: "parameters", type: "[String: String]", defaultValue: "[:]", help: "more parameters to record (redacted)"),
            .init(name: "format", type: "String?", defaultValue: "nil", help: "sign as lane.sign does instead: ssh (a key, or ssh-agent), minisign or openpgp (gpg)"),
            .init(name: "attestOnGitHub", type: "Bool", defaultValue: "false", help: "also store the envelope as a GitHub artifact attestation (a Sigstore bundle), once; it cannot be deleted"),
        ],
        example: #"try lane.provenance(for: [archive], to: "dist/app.intoto.jsonl")"#,
        dryRun: "signs and writes to the overlay; with attestOnGitHub, lists GitHub's attestations and says what it would store", rollback: "restores or removes the file; an attestation stored on GitHub stays (GitHub has no delete), and a re-run finds it and sends nothing"
    )
}
