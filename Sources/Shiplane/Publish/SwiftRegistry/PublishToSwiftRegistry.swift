import Foundation
internal import Git

/// Publishes a release to a Swift package registry (SE-0292, SE-0391): the source archive of
/// HEAD made as `swift package archive-source` makes it, with the release's metadata, PUT to
/// `/{scope}/{name}/{version}`. A version the registry already holds with the same checksum:
/// nothing sent; with another checksum: an error (a published release never changes).
package struct PublishToSwiftRegistry: AsyncAction {
    package static let name = "publishToSwiftRegistry"
    package var package: SwiftRegistryPackage
    package var version: String
    /// The metadata file (relative to the work tree); nil: `package-metadata.json` when there is one.
    package var metadata: String?
    /// The environment variable holding the PEM signing key (SE-0391 `cms-1.0.0`: ECDSA P-256 or RSA of 2048 bits or more); nil: unsigned.
    package var signingKey: String? = nil
    /// The environment variable holding the PEM certificate chain, the signing certificate first.
    package var certificateChain: String = "SWIFT_REGISTRY_CERTIFICATE_CHAIN"

    package var options: [StepOption] {
        [StepOption("package", package.id), StepOption("version", version), StepOption("registry", package.registry)]
            + (metadata.map { [StepOption("metadata", $0)] } ?? [])
            + (signingKey.map { [StepOption("signingKey", $0), StepOption("certificateChain", certificateChain)] } ?? [])
    }

    /// Publishes (or finds) the release and returns its URL on the registry.
    /// - Throws: `ValidationFailure` for bad metadata or an archive that cannot be made,
    ///   `SwiftRegistryFailure` for a registry that refuses, `ShiplaneError` for a version the
    ///   registry holds with other bytes.
    package func run(in step: StepContext) async throws -> String {
        let (authorization, secrets) = SwiftRegistryClient.authorization(from: step.lane.environment.variables,
                                                                         host: URLComponents(string: package.registry)?.host)
        for secret in secrets { step.lane.registerSecret(secret) }
        var transport = step.httpTransport()
        transport.redactor = SecretRedactor(secrets: transport.redactor.secrets + secrets)
        let signer = try Self.signer(signingKey, certificateChain, in: step)
        if let signingKey, let pem = step.lane.environment.variables[signingKey] {
            step.lane.registerSecret(pem)
            transport.redactor = SecretRedactor(secrets: transport.redactor.secrets + [pem])
        }
        let client = SwiftRegistryClient(package: package, transport: transport, authorization: authorization)
        let releaseURL = package.releaseURL(version)

        // Everything that can be checked here is, before any request: the metadata, the archive.
        let metadataBytes = try Self.readMetadata(metadata, in: step)
        let folder = NSTemporaryDirectory() + "shiplane-swift-registry-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let repository = try step.lane.repository()
        let head = try step.lane.headCommit(of: repository)
        // Signed (SE-0391): each root manifest gets its signature line before the archive is made;
        // `published` gives the registry's signed manifests to keep, where their content is HEAD's,
        // so a re-run rebuilds the published bytes (ECDSA signatures differ each time).
        func makeArchive(_ published: [String: Data]) throws -> SwiftSourceArchive {
            try SwiftSourceArchive.make(commit: head, in: repository, fallbackName: package.name, destination: folder + "/\(package.id)-\(version).zip",
                                        signManifest: signer.map { signer in { name, manifest in
                                            if let kept = published[name], RegistrySigner.splitSignedManifest(kept)?.content == manifest { return kept }
                                            return try signer.signManifest(manifest)
                                        } })
        }
        var archive = try makeArchive([:])
        /// Whether the registry holds this archive: the same checksum, or (signed) the same bytes
        /// once the registry's manifest signatures are kept.
        func isPublished(_ checksum: String?) async throws -> Bool {
            if checksum == archive.checksum { return true }
            guard signer != nil, checksum != nil, let published = try await client.publishedManifests(version, in: folder), !published.isEmpty else { return false }
            let again = try makeArchive(published)
            guard again.checksum == checksum else { return false }
            archive = again
            return true
        }
        let signed = signer.map { " signed \(RegistrySigner.format) (\($0.chain.count) certificate\($0.chain.count == 1 ? "" : "s"))" } ?? ""
        var described: String { "\(archive.folder)/ (\(archive.files.count) files, \(ByteCountText.file(archive.size)), sha256 \(archive.checksum))\(signed)" }

        // Preflight, a dry run too: the registry answers, takes the credentials, and does not
        // hold this version with other bytes.
        let state = try await client.release(version)
        if case .published(let checksum) = state, try await isPublished(checksum) {
            step.note("\(package.id) \(version) is already in \(package.registry) with checksum \(archive.checksum): nothing sent")
            return releaseURL
        }
        switch state {
        case .published(let checksum):
            throw ShiplaneError(
                "\(package.id) \(version) is already in \(package.registry) with checksum \(checksum ?? "(none given)"), but HEAD's source archive has \(archive.checksum)",
                info: [("release", releaseURL)],
                suggestion: "a published release never changes: publish the new commit as a new version (bump again), or publish from the commit that was released")
        case .absent:
            break
        }
        if step.isDryRun {
            let sent = metadataBytes.map { "metadata (\(Self.metadataKeys($0)))" + (signer == nil ? "" : " with its signature") } ?? "no metadata"
            step.note("would PUT \(releaseURL): source-archive \(described) and \(sent); files: \(archive.files.joined(separator: ", "))")
            return releaseURL
        }

        // Passed here unless an earlier step (a push) already did; only a point this step passed is
        // taken back when the registry refuses the release.
        let archiveSignature = try signer.map { try $0.sign(fileAt: archive.path) }
        let metadataSignature = try signer.flatMap { signer in try metadataBytes.map { try signer.sign($0) } }
        let ownsPoint = step.lane.state.pointOfNoReturn == nil
        try step.passPointOfNoReturn("published \(package.id) \(version) to \(package.registry)")
        let effect = SwiftPackageReleasePublished(package: package, version: version, checksum: archive.checksum)
        let handle = try step.record(effect, "\(package.id) \(version) stays in the registry (a published release cannot be removed)")
        do {
            let location = try await client.publish(version, archive: archive.path, metadata: metadataBytes, signature: archiveSignature,
                                                  signatureFormat: signer == nil ? nil : RegistrySigner.format, metadataSignature: metadataSignature)
            step.log("the registry took \(package.id) \(version)" + (location.map { " (\($0))" } ?? ""))
        } catch let failure as SwiftRegistryFailure where failure.status == 409 {
            // An earlier attempt landed (its answer lost), or another publisher was first.
            guard case .published(let checksum) = try await client.release(version), try await isPublished(checksum) else { throw failure }
            step.log("\(package.id) \(version) was already there with the same checksum (an earlier attempt landed)")
        } catch let failure as SwiftRegistryFailure where (400..<500).contains(failure.status) {
            // The registry answered that it refuses the release: nothing was published, so the run
            // is not past its point of no return because of it, and can still be undone.
            step.didNotHappen(handle, "the registry refused it (HTTP \(failure.status))")
            if ownsPoint { try step.amendPointOfNoReturn(nil) }
            throw failure
        }
        step.done(handle, effect)
        guard case .published(let checksum) = try await client.release(version), checksum == archive.checksum else {
            throw ShiplaneError("\(package.id) \(version) does not show checksum \(archive.checksum) in \(package.registry) after the publication",
                                suggestion: "read \(releaseURL) and ask the registry's operators: a release must keep the bytes it was published with")
        }
        step.note("\(package.id) \(version) → \(releaseURL) (source-archive \(described))")
        return releaseURL
    }

    /// The signer of the key and chain in two environment variables; nil without a key.
    static func signer(_ keyVariable: String?, _ chainVariable: String, in step: StepContext) throws -> RegistrySigner? {
        guard let keyVariable else { return nil }
        let variables = step.lane.environment.variables
        func value(_ name: String) -> String? { variables[name].flatMap { $0.isEmpty ? nil : $0 } }
        var problems: [String] = []
        if value(keyVariable) == nil { problems.append("\(keyVariable) is not set: it holds the PEM signing key (ECDSA P-256 or RSA 2048+)") }
        if value(chainVariable) == nil { problems.append("\(chainVariable) is not set: it holds the PEM certificate chain, the signing certificate first") }
        guard problems.isEmpty, let key = value(keyVariable), let chain = value(chainVariable) else {
            throw ValidationFailure(problems: problems, suggestion: "set them (as secrets), or leave signingKey out to publish unsigned; nothing was sent")
        }
        return try RegistrySigner(keyPEM: key, chainPEM: chain, keyVariable: keyVariable, chainVariable: chainVariable)
    }

    /// The metadata file's bytes, checked against the specification's schema (Appendix B):
    /// every problem named at once.
    static func readMetadata(_ path: String?, in step: StepContext) throws -> Data? {
        let given = path
        let path = step.resolve(path ?? "package-metadata.json")
        guard let data = FileManager.default.contents(atPath: path) else {
            if let given { throw ValidationFailure(problems: ["the metadata file \(given) does not exist"], suggestion: "write it, or leave metadata out; nothing was sent") }
            return nil
        }
        let problems = metadataProblems(data)
        guard problems.isEmpty else {
            throw ValidationFailure(problems: problems.map { "\(given ?? "package-metadata.json"): \($0)" },
                                    suggestion: "fix the metadata file (SE-0391's schema: author, description, licenseURL, originalPublicationTime, readmeURL, repositoryURLs); nothing was sent")
        }
        return data
    }

    /// What in a metadata document the schema refuses.
    static func metadataProblems(_ data: Data) -> [String] {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return ["not a JSON object"] }
        var problems: [String] = []
        let known: Set = ["author", "description", "licenseURL", "originalPublicationTime", "readmeURL", "repositoryURLs"]
        for key in object.keys.sorted() where !known.contains(key) { problems.append("\(key) is not a metadata property") }
        for key in ["description", "licenseURL", "originalPublicationTime", "readmeURL"] where object[key] != nil && !(object[key] is String) {
            problems.append("\(key) must be a string")
        }
        for key in ["licenseURL", "readmeURL"] {
            if let url = object[key] as? String, URLComponents(string: url)?.scheme == nil { problems.append("\(key) \(url) is not a URL") }
        }
        if let time = object["originalPublicationTime"] as? String, ISO8601DateFormatter().date(from: time) == nil {
            problems.append("originalPublicationTime \(time) is not an ISO 8601 date-time")
        }
        if let urls = object["repositoryURLs"], !((urls as? [Any])?.allSatisfy { $0 is String } ?? false) {
            problems.append("repositoryURLs must be an array of strings")
        }
        func person(_ value: Any?, _ path: String, fields: Set<String>) {
            guard let value else { return }
            guard let person = value as? [String: Any] else { return problems.append("\(path) must be an object") }
            if !(person["name"] is String) { problems.append("\(path).name is required (a string)") }
            for key in person.keys.sorted() where !fields.contains(key) { problems.append("\(path).\(key) is not a property of \(path)") }
        }
        person(object["author"], "author", fields: ["name", "email", "description", "organization", "url"])
        person((object["author"] as? [String: Any])?["organization"], "author.organization", fields: ["name", "email", "description", "url"])
        return problems
    }

    static func metadataKeys(_ data: Data) -> String {
        (((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?.keys.sorted() ?? []).joined(separator: ", ")
    }
}

extension LaneContext {
    /// Publishes HEAD as `version` of the package `id` (`scope.name`) to the Swift package
    /// registry at `registry`: its source archive as `swift package archive-source` makes it and
    /// the metadata file (`package-metadata.json` by default, when there is one); returns the
    /// release's URL. The same version already there with the same checksum: nothing sent.
    /// Credentials come from `SWIFTPM_REGISTRY_TOKEN`, or `SWIFTPM_REGISTRY_LOGIN` and
    /// `SWIFTPM_REGISTRY_PASSWORD`, as SwiftPM reads them. With `signingKey` (the environment
    /// variable holding a PEM ECDSA P-256 or RSA (2048+) key; its certificate chain in `certificateChain`'s variable)
    /// the release is signed as SE-0391's `cms-1.0.0`: each manifest, the archive and the metadata.
    @discardableResult
    public func publishToSwiftRegistry(_ id: String, version: String, registry: String, metadata: String? = nil,
                                       signingKey: String? = nil, certificateChain: String = "SWIFT_REGISTRY_CERTIFICATE_CHAIN",
                                       file: String = #fileID, line: Int = #line) async throws -> String {
        var problems: [String] = []
        let target = SwiftRegistryPackage.parse(id: id, registry: registry)
        if target == nil { problems.append("\(id) is not a package identifier scope.name (Registry.md 3.6: scope of letters, digits and inner hyphens, at most 39; name of letters, digits, inner - or _, at most 100)") }
        if SemanticVersion(version) == nil { problems.append("\(version) is not a semantic version (1.2.0)") }
        let components = URLComponents(string: registry)
        let host = components?.host ?? ""
        let loopback = host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
        switch components?.scheme {
        case "https" where !host.isEmpty: break
        case "http" where loopback: break
        case "http": problems.append("\(registry) is plain HTTP: the registry specification (3.1) requires HTTPS (plain HTTP only on this machine's loopback)")
        default: problems.append("\(registry) is not a registry URL (https://packages.example.com)")
        }
        if components?.user != nil || components?.password != nil { problems.append("the registry URL carries credentials: put them in SWIFTPM_REGISTRY_TOKEN (or SWIFTPM_REGISTRY_LOGIN and SWIFTPM_REGISTRY_PASSWORD)") }
        guard problems.isEmpty, let target else {
            throw ValidationFailure(problems: problems, suggestion: "fix the call to publishToSwiftRegistry; nothing was sent")
        }
        return try await run(PublishToSwiftRegistry(package: target, version: version, metadata: metadata, signingKey: signingKey,
                                                         certificateChain: certificateChain), file: file, line: line)
    }
}

extension PublishToSwiftRegistry: DocumentedAction {
    /// How `lane.publishToSwiftRegistry` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Release",
        summary: "Publish HEAD to a Swift package registry (SE-0292/SE-0391): the source archive as swift package archive-source makes it, with metadata; the same checksum already there: nothing sent",
        signature: #"try await lane.publishToSwiftRegistry(_ id: String, version: String, registry: String, metadata: String? = nil, signingKey: String? = nil, certificateChain: String = "SWIFT_REGISTRY_CERTIFICATE_CHAIN") -> String"#,
        parameters: [
            .init(name: "id", type: "String", defaultValue: nil, help: "the package identifier scope.name (acme.Rocket)"),
            .init(name: "version", type: "String", defaultValue: nil, help: "the release's semantic version"),
            .init(name: "registry", type: "String", defaultValue: nil, help: "the registry's root URL (HTTPS; plain HTTP only on loopback)"),
            .init(name: "metadata", type: "String?", defaultValue: "nil", help: "the release metadata file (SE-0391 schema); nil: package-metadata.json when there is one"),
            .init(name: "signingKey", type: "String?", defaultValue: "nil", help: "the environment variable holding the PEM signing key, ECDSA P-256 or RSA 2048+ (a secret); nil: unsigned. Signs the manifests, the archive and the metadata as SE-0391's cms-1.0.0"),
            .init(name: "certificateChain", type: "String", defaultValue: "SWIFT_REGISTRY_CERTIFICATE_CHAIN", help: "the environment variable holding the PEM certificate chain, the code-signing certificate first"),
        ],
        example: #"try await lane.publishToSwiftRegistry("acme.Rocket", version: version, registry: "https://packages.example.com")"#,
        dryRun: "makes the archive, asks the registry for the version (credentials, an earlier publication) and says what it would PUT: the archive's folder, files, size and checksum, the metadata's keys",
        rollback: "none: a registry keeps a published release (it stays); the run passes its point of no return right before the PUT"
    )
}
