import Foundation
internal import Git

/// Builds an OCI image from the run's files — on `scratch`, or on a base image by digest whose
/// layers and config it keeps — and pushes it to a registry
/// over the OCI Distribution Spec: the base's layers the target lacks (mounted on the same
/// registry, else copied through a file), the blobs the registry lacks (monolithic or chunked uploads, the
/// digests checked by the registry), then the manifest at each tag. Tags already pointing at the
/// same manifest digest: nothing sent. The version's tag at another digest is an error unless
/// `overwrite`; the other tags (`latest`) move.
package struct PushImage: AsyncAction {
    package static let name = "pushImage"
    package var target: RegistryTarget
    package var tags: [String]
    package var files: [OCIImage.File]
    package var settings: OCIImage.Settings
    /// Blobs larger than this go up in PATCH chunks of this size; nil: one PUT each.
    package var chunkSize: Int64?
    /// Move the version's tag (the first) when it points at another image; false: that is an error.
    /// Other tags (`latest`) always move to the new image.
    package var overwrite = false
    /// More platforms, each with its own files: the tags then name an image index of every platform.
    package var morePlatforms: [(settings: OCIImage.Settings, files: [OCIImage.File])] = []
    /// Another repository of the same registry that may hold the blobs: each missing blob is asked
    /// for as a cross-repository mount from it first, and uploaded when the registry does not mount it.
    package var mountFrom: String?
    /// The base image by digest (`host/repo@sha256:…`, as `ResolveBaseImage` gives it); nil: `scratch`.
    package var base: String?

    package var options: [StepOption] {
        [StepOption("image", "\(target.host)/\(target.repository)"), StepOption("tags", tags.joined(separator: ", ")),
         StepOption("from", base ?? "scratch"),
         StepOption("platform", settings.os + "/" + settings.architecture + (settings.variant.map { "/" + $0 } ?? "")),
         StepOption("files", files.map { "\($0.source) → \($0.imagePath)" }.joined(separator: ", "))]
    }

    /// Pushes the image (or finds it there) and returns its reference by digest (`host/repo@sha256:…`).
    /// - Throws: `RegistryFailure` for a registry that refuses a call (with what to do),
    ///   `ValidationFailure` for files that cannot go in the image.
    package func run(in step: StepContext) async throws -> String {
        let credentials = RegistryCredentials.from(step.lane.environment.variables)
        var transport = step.httpTransport()
        transport.redactor = SecretRedactor(secrets: transport.redactor.secrets + credentials.secrets)
        // Preflight, a dry run too: the registry answers and accepts the credentials.
        let baseImage = base.flatMap(BaseImageReference.parse)
        let sameRegistry = baseImage?.target.host == target.host
        let client = try await RegistryClient.connect(target: target, credentials: credentials, transport: transport,
                                                      pulling: (mountFrom.map { [$0] } ?? []) + (sameRegistry ? [baseImage?.target.repository].compactMap { $0 } : []))
        // The base's manifest and config for each platform, before anything is sent: a base that
        // is not there or lacks a platform stops the step here, in a dry run too.
        var baseClient: RegistryClient?
        var bases: [OCIImage.Base?] = Array(repeating: nil, count: 1 + morePlatforms.count)
        if let base, let baseImage {
            if sameRegistry {
                baseClient = client
                baseClient?.target = baseImage.target
            } else {
                let baseCredentials = baseImage.credentials(pushingTo: target, environment: step.lane.environment.variables)
                var baseTransport = transport
                baseTransport.redactor = SecretRedactor(secrets: transport.redactor.secrets + baseCredentials.secrets)
                baseClient = try await RegistryClient.connect(target: baseImage.target, credentials: baseCredentials, transport: baseTransport, pushing: false)
            }
            if let baseClient {
                bases = try await OCIImage.Base.load(base, client: baseClient, platforms: [settings] + morePlatforms.map(\.settings))
            }
        }
        if step.isDryRun, let missing = files.first(where: { !FileManager.default.fileExists(atPath: step.resolve($0.source)) }) {
            step.note("would build an image of \(files.map(\.imagePath).joined(separator: ", ")) and push it to \(tags.map(target.display).joined(separator: ", ")) (\(missing.source) is not built yet, so its digests are not known)")
            return ""
        }
        let folder = NSTemporaryDirectory() + "shiplane-oci-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let epoch = step.lane.environment["SOURCE_DATE_EPOCH"].flatMap(Int.init) ?? 0
        var images: [(image: OCIImage, settings: OCIImage.Settings)] = []
        for (index, platform) in ([(settings: settings, files: files)] + morePlatforms).enumerated() {
            let platformFolder = folder + "/\(index)"
            try FileManager.default.createDirectory(atPath: platformFolder, withIntermediateDirectories: true)
            let resolved = platform.files.map { OCIImage.File(imagePath: $0.imagePath, source: step.resolve($0.source)) }
            images.append((try OCIImage.build(files: resolved, settings: platform.settings, modificationTime: epoch, in: platformFolder, base: bases[index]),
                           platform.settings))
        }
        // One platform: its manifest at the tags; more: each manifest by digest and the index at the tags.
        let index = images.count > 1 ? try OCIImageIndex(images) : nil
        let image = (manifest: index?.bytes ?? images[0].image.manifest, manifestDigest: index?.digest ?? images[0].image.manifestDigest,
                     mediaType: index == nil ? OCIImage.manifestMediaType : OCIImageIndex.mediaType)
        let reference = "\(target.host)/\(target.repository)@\(image.manifestDigest)"

        var current: [String: String?] = [:]
        for tag in tags { current[tag] = try await client.manifestDigest(tag) }
        let toTag = tags.filter { current[$0] != .some(image.manifestDigest) }
        // The version's tag names one image for good: a tag at another digest is another build
        // of this version, which people may have pulled already, so it is not moved silently.
        if let version = tags.first, toTag.contains(version), let other = current[version] ?? nil, !overwrite {
            throw ShiplaneError(
                "\(target.display(version)) already points at \(other), not at this build's \(image.manifestDigest)",
                info: [("image", reference)],
                suggestion: "the version was published from other bytes: bump the version, make the build reproducible (SOURCE_DATE_EPOCH, the same files), or pass overwrite: true to move the tag; nothing was sent")
        }
        if toTag.isEmpty {
            step.note("\(tags.map(target.display).joined(separator: ", ")) already \(tags.count == 1 ? "points" : "point") at \(image.manifestDigest): nothing sent")
            return reference
        }
        var missing: [OCIImage.Blob] = []
        for blob in images.flatMap({ [$0.image.layer, $0.image.config] }) where !missing.contains(where: { $0.digest == blob.digest }) {
            if try await !client.hasBlob(blob.digest) { missing.append(blob) }
        }
        // The base's layers the target lacks: mounted from the base's repository on the same
        // registry, else copied through a file (never whole in memory).
        var missingBase: [OCIImage.Layer] = []
        for layer in images.flatMap(\.image.baseLayers) where !missingBase.contains(layer) {
            if try await !client.hasBlob(layer.digest) { missingBase.append(layer) }
        }
        var platformManifests: [OCIImage] = []
        if index != nil {
            for built in images.map(\.image) where try await client.manifestDigest(built.manifestDigest) == nil { platformManifests.append(built) }
        }

        if step.isDryRun {
            let blobs = missing.isEmpty ? "no blobs (the registry holds both)"
                : missing.map { "\($0.mediaType == OCIImage.layerMediaType ? "layer" : "config") \($0.digest) (\(ByteCountText.file($0.size)))" }.joined(separator: " and ")
            let moves = toTag.map { tag in target.display(tag) + (current[tag].flatMap { $0.map { " (now at \($0))" } } ?? " (new)") }
            let platforms = index == nil ? "" : " (an index of \(images.map { $0.settings.os + "/" + $0.settings.architecture }.joined(separator: ", ")))"
            let mount = mountFrom.map { " (asking to mount each from \($0) first)" } ?? ""
            let baseLayers = baseImage.map { baseImage in
                missingBase.isEmpty ? " on \(base ?? "") (the registry holds its layers)"
                    : " on \(base ?? "") (\(missingBase.count) of its layers, \(ByteCountText.file(missingBase.reduce(0) { $0 + $1.size })), \(sameRegistry ? "mounted from \(baseImage.target.repository), or copied" : "copied from \(baseImage.target.host)"))"
            } ?? ""
            step.note("would push \(blobs)\(mount)\(baseLayers) and manifest \(image.manifestDigest)\(platforms) at \(moves.joined(separator: ", ")); layer: \(images[0].image.entries.joined(separator: ", "))")
            return reference
        }
        if let baseClient, let baseImage {
            for layer in missingBase {
                if sameRegistry, try await client.mountBlob(layer.digest, from: baseImage.target.repository) {
                    step.log("mounted base layer \(layer.digest) from \(baseImage.target.repository) (\(ByteCountText.file(layer.size)) not sent)")
                    continue
                }
                let path = folder + "/base-" + layer.digest.replacingOccurrences(of: ":", with: "-")
                try await baseClient.downloadBlob(layer.digest, size: layer.size, to: path)
                try await client.uploadBlob(OCIImage.Blob(mediaType: layer.mediaType, digest: layer.digest, size: layer.size, body: .file(path: path)),
                                            chunkSize: chunkSize, mountFrom: mountFrom)
                try? FileManager.default.removeItem(atPath: path)
                step.log("copied base layer \(layer.digest) from \(baseImage.target.host)/\(baseImage.target.repository) (\(ByteCountText.file(layer.size)))")
            }
        }
        for blob in missing {
            if try await client.uploadBlob(blob, chunkSize: chunkSize, mountFrom: mountFrom), let mountFrom {
                step.log("mounted \(blob.digest) from \(mountFrom) (\(ByteCountText.file(blob.size)) not sent)")
            } else {
                step.log("sent \(blob.digest) (\(ByteCountText.file(blob.size)))")
            }
        }
        for built in platformManifests {
            // Each platform's manifest by its digest (untagged): undone by deleting it while it is there.
            let effect = ImageTagPushed(target: target, tag: built.manifestDigest, digest: built.manifestDigest, previousDigest: nil,
                                        index: index?.digest)
            let handle = try step.record(effect, "delete \(target.display(built.manifestDigest))")
            try await client.putManifest(built.manifest, mediaType: OCIImage.manifestMediaType, tag: built.manifestDigest)
            step.done(handle, effect)
        }
        // Every tag written down before the first PUT, the new ones first: a rollback (last first)
        // points the moved tags back before it deletes the digest, which takes every tag still on it.
        let newTags = toTag.filter { (current[$0] ?? nil) == nil }
        let effects = (newTags + toTag.filter { !newTags.contains($0) }).map { tag in
            let previous = current[tag] ?? nil
            let effect = ImageTagPushed(target: target, tag: tag, digest: image.manifestDigest, previousDigest: previous, newTags: newTags)
            return (effect: effect, description: previous.map { "point \(target.display(tag)) back at \($0)" } ?? "delete \(target.display(tag))")
        }
        let handles = try step.record(effects)
        for tag in toTag {
            try await client.putManifest(image.manifest, mediaType: image.mediaType, tag: tag)
            if let at = effects.firstIndex(where: { $0.effect.tag == tag }) { step.done(handles[at], effects[at].effect) }
        }
        for tag in toTag where try await client.manifestDigest(tag) != image.manifestDigest {
            throw ShiplaneError("\(target.display(tag)) does not point at \(image.manifestDigest) after the push",
                                suggestion: "run again: the manifest is put again; report it if it persists")
        }
        step.note("\(toTag.map(target.display).joined(separator: ", ")) → \(image.manifestDigest)")
        return reference
    }
}

extension LaneContext {
    /// Builds an OCI image from files (`["/usr/local/bin/app": ".build/release/app"]`: image path
    /// to built file) on `scratch` or on the base image `base` (by digest, or a tag resolved to
    /// its digest once per run) and pushes it to a registry at the version's tag and `tags`;
    /// returns its reference by digest. Tags already holding the same image: nothing sent.
    /// Credentials come from `REGISTRY_USERNAME` and `REGISTRY_PASSWORD`, or `REGISTRY_TOKEN`.
    @discardableResult
    public func pushImage(
        _ files: [String: any ArtifactConvertible], to image: String, version: String, from base: String? = nil, tags: [String] = [],
        platform: String = "linux/amd64", entrypoint: [String] = [], labels: [String: String] = [:],
        source: String? = nil, revision: String? = nil, chunkSize: Int? = nil, overwrite: Bool = false,
        morePlatforms: [String: [String: any ArtifactConvertible]] = [:], mountFrom: String? = nil,
        file: String = #fileID, line: Int = #line
    ) async throws -> String {
        var problems: [String] = []
        let target = RegistryTarget.parse(image)
        if target == nil { problems.append("\(image) is not an image name (like ghcr.io/acme/app or 127.0.0.1:5000/app, without a tag)") }
        let allTags = [version] + tags.filter { $0 != version }
        for tag in allTags where tag.range(of: "^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$", options: .regularExpression) == nil {
            problems.append("\(tag) is not a valid tag (letters, digits, _ . -, at most 128, not starting with . or -)")
        }
        let platformParts = platform.split(separator: "/").map(String.init)
        for given in [platform] + morePlatforms.keys.sorted() where !(2...3).contains(given.split(separator: "/").count) {
            problems.append("platform \(given) is not os/architecture[/variant] (linux/amd64, linux/arm64)")
        }
        if morePlatforms[platform] != nil { problems.append("platform \(platform) is given twice (platform: and morePlatforms:)") }
        if morePlatforms.values.contains(where: \.isEmpty) { problems.append("a platform in morePlatforms has no files") }
        if let chunkSize, chunkSize < 1 << 20 { problems.append("chunkSize \(chunkSize) is below 1 MiB") }
        if files.isEmpty { problems.append("no files given") }
        if let mountFrom, RegistryTarget.parse("registry.invalid/" + mountFrom)?.repository != mountFrom || mountFrom == target?.repository {
            problems.append("mountFrom \(mountFrom) is not another repository of the same registry (like acme/base, without host or tag)")
        }
        let baseImage = base == "scratch" ? nil : base.flatMap(BaseImageReference.parse)
        if let base, base != "scratch", baseImage == nil {
            problems.append("from \(base) is not a base image (like ghcr.io/acme/base@sha256:<64 hex digits>, ghcr.io/acme/base:1.0, swift:6.0-slim, or scratch)")
        }
        let sorted = files.sorted { $0.key < $1.key }
        let paths = try ArtifactInputs.paths(sorted.map(\.value))
        guard problems.isEmpty, let target else {
            throw ValidationFailure(problems: problems, suggestion: "fix the call to pushImage; nothing was sent")
        }
        var allLabels = labels
        allLabels["org.opencontainers.image.version"] = version
        if let source { allLabels["org.opencontainers.image.source"] = source }
        if let revision = revision ?? (try? headCommit(of: repository()).hex) { allLabels["org.opencontainers.image.revision"] = revision }
        let settings = OCIImage.Settings(os: platformParts[0], architecture: platformParts[1], variant: platformParts.count > 2 ? platformParts[2] : nil,
                                         entrypoint: entrypoint, labels: allLabels)
        let imageFiles = zip(sorted, paths).map { OCIImage.File(imagePath: $0.0.key, source: $0.1) }
        var others: [(settings: OCIImage.Settings, files: [OCIImage.File])] = []
        for (name, platformFiles) in morePlatforms.sorted(by: { $0.key < $1.key }) {
            let parts = name.split(separator: "/").map(String.init)
            let sortedFiles = platformFiles.sorted { $0.key < $1.key }
            let sources = try ArtifactInputs.paths(sortedFiles.map(\.value))
            var other = settings
            other.os = parts[0]
            other.architecture = parts[1]
            other.variant = parts.count > 2 ? parts[2] : nil
            others.append((other, zip(sortedFiles, sources).map { OCIImage.File(imagePath: $0.0.key, source: $0.1) }))
        }
        var action = PushImage(target: target, tags: allTags, files: imageFiles, settings: settings, chunkSize: chunkSize.map(Int64.init),
                               overwrite: overwrite)
        action.morePlatforms = others
        action.mountFrom = mountFrom
        if let baseImage {
            // Its own step, so the digest is in the run's record: a resumed run builds on it.
            action.base = try await run(ResolveBaseImage(base: baseImage, pushingTo: target), file: file, line: line)
        }
        return try await run(action,
                             file: file, line: line)
    }
}

extension PushImage: DocumentedAction {
    /// How `lane.pushImage` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Release",
        summary: "Build an OCI image from built files (one reproducible layer, on scratch or on a base image by digest whose layers and config it keeps) and push it to a registry; unchanged tags not sent",
        signature: "try await lane.pushImage(_ files: [String: any ArtifactConvertible], to image: String, version: String, from base: String? = nil, tags: [String] = [], platform: String = \"linux/amd64\", entrypoint: [String] = [], labels: [String: String] = [:], source: String? = nil, revision: String? = nil, chunkSize: Int? = nil, overwrite: Bool = false, morePlatforms: [String: [String: any ArtifactConvertible]] = [:], mountFrom: String? = nil) -> String",
        parameters: [
            .init(name: "files", type: "[String: any ArtifactConvertible]", defaultValue: nil, help: "image path to built file or folder (added whole): [\"/usr/local/bin/app\": \".build/release/app\", \"/usr/share/app\": \"Public\"]"),
            .init(name: "to", type: "String", defaultValue: nil, help: "the image without a tag: ghcr.io/acme/app (loopback registries over HTTP)"),
            .init(name: "version", type: "String", defaultValue: nil, help: "the first tag and the org.opencontainers.image.version label"),
            .init(name: "from", type: "String?", defaultValue: "nil", help: "the base image: ghcr.io/acme/base@sha256:…, or a tag (swift:6.0-slim) resolved to its digest once per run and kept in the run's record; nil or \"scratch\": none. Its layers are mounted (same registry) or copied, its config kept (Env, Cmd, WorkingDir, User, …) with the layer and labels added"),
            .init(name: "tags", type: "[String]", defaultValue: "[]", help: "more tags (latest)"),
            .init(name: "platform", type: "String", defaultValue: "\"linux/amd64\"", help: "os/architecture[/variant] of the files"),
            .init(name: "entrypoint", type: "[String]", defaultValue: "[]", help: "what the container runs: [\"/usr/local/bin/app\"]"),
            .init(name: "labels", type: "[String: String]", defaultValue: "[:]", help: "more config labels"),
            .init(name: "source", type: "String?", defaultValue: "nil", help: "the org.opencontainers.image.source label (the repository's URL)"),
            .init(name: "revision", type: "String?", defaultValue: "nil", help: "the org.opencontainers.image.revision label; HEAD's commit when nil"),
            .init(name: "chunkSize", type: "Int?", defaultValue: "nil", help: "blobs larger than this go up in PATCH chunks (at least 1 MiB); nil: one PUT"),
            .init(name: "overwrite", type: "Bool", defaultValue: "false", help: "move the version's tag when it points at another image (false: an error; other tags always move)"),
            .init(name: "morePlatforms", type: "[String: [String: any ArtifactConvertible]]", defaultValue: "[:]", help: "more platforms, each with its files (\"linux/arm64\": [...]): the tags name an image index (multi-architecture) of them all"),
            .init(name: "mountFrom", type: "String?", defaultValue: "nil", help: "another repository of the same registry (acme/base): each missing blob is mounted from it (POST ?mount=&from=), uploaded when the registry answers 202"),
        ],
        example: #"try await lane.pushImage(["/usr/local/bin/app": ".build/release/app"], to: "ghcr.io/acme/app", version: version, tags: ["latest"], entrypoint: ["/usr/local/bin/app"])"#,
        dryRun: "signs in to the registry (GET /v2/), resolves the base's tag to a digest and reads its manifest and config for each platform (a missing base or platform is an error here), builds the image and says which blobs (and base layers) and which manifest digest would be pushed at which tags",
        rollback: "while a tag still points at the digest this run pushed: points it back at its earlier manifest, or deletes the manifest (not while a tag this run did not put points at it too, nor a platform's manifest while its index is there); a registry that refuses deletes keeps it (it stays)"
    )
}
