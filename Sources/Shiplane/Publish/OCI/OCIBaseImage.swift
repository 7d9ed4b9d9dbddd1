import Foundation

/// A base image as a lane names it: `registry/repo@sha256:…`, `registry/repo:tag`, or a Docker
/// Hub name (`swift:6.0-slim`); a tag is resolved to its digest once per run (`ResolveBaseImage`).
package struct BaseImageReference: Codable, Sendable, Equatable {
    package var target: RegistryTarget
    /// The tag or `sha256:` digest.
    package var reference: String

    package var isDigest: Bool { reference.hasPrefix("sha256:") }

    /// `host/repository@sha256:…` or `host/repository:tag`, as messages name it.
    package var display: String { "\(target.host)/\(target.repository)\(isDigest ? "@" : ":")\(reference)" }

    /// Parses `name@sha256:<64 hex>`, `name:tag` or `name` (its `latest`); nil when malformed.
    package static func parse(_ text: String) -> BaseImageReference? {
        var name = text
        var reference = "latest"
        if let at = text.firstIndex(of: "@") {
            name = String(text[..<at])
            reference = String(text[text.index(after: at)...])
            guard reference.range(of: "^sha256:[0-9a-f]{64}$", options: .regularExpression) != nil else { return nil }
        } else if let colon = text.lastIndex(of: ":"), !text[colon...].contains("/") {
            name = String(text[..<colon])
            reference = String(text[text.index(after: colon)...])
            guard reference.range(of: "^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$", options: .regularExpression) != nil else { return nil }
        }
        return RegistryTarget.parse(name).map { BaseImageReference(target: $0, reference: reference) }
    }

    /// The credentials for the base's registry: the target's when it is the same host, else
    /// `BASE_REGISTRY_USERNAME` and `BASE_REGISTRY_PASSWORD` (or `BASE_REGISTRY_TOKEN`), else none.
    package func credentials(pushingTo target: RegistryTarget?, environment: [String: String]) -> RegistryCredentials {
        if target?.host == self.target.host { return RegistryCredentials.from(environment) }
        return RegistryCredentials.from(environment, prefix: "BASE_")
    }
}

/// Resolves a base image's tag to the digest of what it names now, once: the step's result is
/// in the run's record, so a resumed run (a fresh clone's too) builds on the same digest even
/// when the tag has moved since. A digest is checked to exist. A dry run resolves it too.
struct ResolveBaseImage: AsyncAction {
    static let name = "resolveBaseImage"
    var base: BaseImageReference
    var pushingTo: RegistryTarget?

    var options: [StepOption] { [StepOption("from", base.display)] }

    /// Returns `host/repository@sha256:…`.
    /// - Throws: `RegistryFailure` when the registry cannot be read or holds no such image.
    func run(in step: StepContext) async throws -> String {
        let credentials = base.credentials(pushingTo: pushingTo, environment: step.lane.environment.variables)
        var transport = step.httpTransport()
        transport.redactor = SecretRedactor(secrets: transport.redactor.secrets + credentials.secrets)
        let client = try await RegistryClient.connect(target: base.target, credentials: credentials, transport: transport, pushing: false)
        guard let digest = try await client.manifestDigest(base.reference) else {
            throw RegistryFailure(message: "the base image \(base.display) does not exist (the registry has no manifest there)",
                                  suggestion: "check the name, tag or digest given as from: (skopeo inspect docker://\(base.display) shows what is there); nothing was sent",
                                  status: 404, codes: ["MANIFEST_UNKNOWN"])
        }
        if base.isDigest, digest != base.reference {
            throw RegistryFailure(message: "the registry answered \(digest) for the base image \(base.display)",
                                  suggestion: "check the registry; nothing was sent", status: 200, codes: [])
        }
        let resolved = "\(base.target.host)/\(base.target.repository)@\(digest)"
        step.note(base.isDigest ? "base \(resolved)" : "base \(base.display) is \(digest) now; this run builds on it (kept in the run's record)")
        return resolved
    }
}

extension OCIImage {
    /// A layer of a base image as its manifest lists it.
    package struct Layer: Sendable, Equatable {
        package var mediaType: String
        package var digest: String
        package var size: Int64
    }

    /// What an image built on a base keeps of it, for one platform: its layers and its config.
    package struct Base: Sendable {
        /// `host/repository@sha256:…` of the platform's manifest.
        package var reference: String
        package var layers: [Layer]
        /// The base's config, as it was read.
        var config: JSONValue
    }

    /// The layer media types Shiplane copies as they are; Docker's are the same bytes under
    /// another name and become the OCI ones in the new manifest.
    static let layerTypes = [
        layerMediaType: layerMediaType, "application/vnd.oci.image.layer.v1.tar": "application/vnd.oci.image.layer.v1.tar",
        "application/vnd.oci.image.layer.v1.tar+zstd": "application/vnd.oci.image.layer.v1.tar+zstd",
        "application/vnd.docker.image.rootfs.diff.tar.gzip": layerMediaType,
    ]
}

extension OCIImage.Base {
    /// Reads the base's manifest (an index: the entry of each platform) and config for each of
    /// `platforms`, in their order, checking every digest.
    /// - Throws: `RegistryFailure` for a base that is not there, lacks one of the platforms (the
    ///   ones it has are named) or is not an image Shiplane can build on.
    static func load(_ reference: String, client: RegistryClient, platforms: [OCIImage.Settings]) async throws -> [OCIImage.Base] {
        guard let base = BaseImageReference.parse(reference), base.isDigest else {
            throw ShiplaneError("\(reference) is not a base image by digest")
        }
        let top = try await manifest(base.reference, of: base, client: client)
        let object = try JSONValue.parse(top.bytes)
        var found: [OCIImage.Base] = []
        if case let .array(entries)? = object["manifests"] {
            var available: [String] = []
            for platform in platforms {
                var chosen: String?
                for entry in entries {
                    guard case let .string(digest)? = entry["digest"], case let .string(os)? = entry["platform"]?["os"],
                          case let .string(architecture)? = entry["platform"]?["architecture"] else { continue }
                    let variant: String? = if case let .string(given)? = entry["platform"]?["variant"] { given } else { nil }
                    available.append([os, architecture, variant].compactMap { $0 }.joined(separator: "/"))
                    if chosen == nil, os == platform.os, architecture == platform.architecture, platform.variant == nil || platform.variant == variant {
                        chosen = digest
                    }
                }
                guard let chosen else {
                    throw RegistryFailure(
                        message: "the base image \(base.display) has no \(platform.name) image (it has \(Array(Set(available)).sorted().joined(separator: ", ")))",
                        suggestion: "build for a platform the base has, or choose a base with \(platform.name); nothing was sent", status: 404, codes: [])
                }
                var entryBase = base
                entryBase.reference = chosen
                found.append(try await image(entryBase, client: client, platform: platform))
            }
            return found
        }
        for platform in platforms { found.append(try await image(base, client: client, platform: platform, manifest: top.bytes)) }
        return found
    }

    private static func manifest(_ digest: String, of base: BaseImageReference, client: RegistryClient) async throws -> (bytes: [UInt8], mediaType: String) {
        guard let read = try await client.manifest(digest) else {
            throw RegistryFailure(message: "the base image \(base.target.host)/\(base.target.repository)@\(digest) does not exist",
                                  suggestion: "check the digest given as from:; nothing was sent", status: 404, codes: ["MANIFEST_UNKNOWN"])
        }
        guard OCIImage.digest(of: read.bytes) == digest else {
            throw RegistryFailure(message: "the registry's manifest for \(base.target.host)/\(base.target.repository)@\(digest) has digest \(OCIImage.digest(of: read.bytes))",
                                  suggestion: "the registry is not serving the image named; nothing was sent", status: 200, codes: [])
        }
        return read
    }

    /// One platform's image manifest and config.
    private static func image(_ base: BaseImageReference, client: RegistryClient, platform: OCIImage.Settings,
                              manifest given: [UInt8]? = nil) async throws -> OCIImage.Base {
        var bytes: [UInt8]
        if let given { bytes = given } else { bytes = try await manifest(base.reference, of: base, client: client).bytes }
        let object = try JSONValue.parse(bytes)
        guard case let .array(layerList)? = object["layers"], case let .string(configDigest)? = object["config"]?["digest"] else {
            throw RegistryFailure(message: "\(base.display) is not an image manifest Shiplane can build on (OCI or Docker schema 2)",
                                  suggestion: "choose a base image in the OCI or Docker schema 2 format; nothing was sent", status: 200, codes: [])
        }
        var layers: [OCIImage.Layer] = []
        for layer in layerList {
            guard case let .string(type)? = layer["mediaType"], case let .string(digest)? = layer["digest"], case let .number(size)? = layer["size"],
                  let mapped = OCIImage.layerTypes[type] else {
                throw RegistryFailure(message: "\(base.display) has a layer Shiplane cannot copy (\(layer["mediaType"].map { "\($0)" } ?? "no media type"))",
                                      suggestion: "choose a base whose layers are tar, tar+gzip or tar+zstd; nothing was sent", status: 200, codes: [])
            }
            layers.append(OCIImage.Layer(mediaType: mapped, digest: digest, size: Int64(size)))
        }
        let configBytes = try await client.smallBlob(configDigest, of: base)
        let config = try JSONValue.parse(configBytes)
        let os: String? = if case let .string(value)? = config["os"] { value } else { nil }
        let architecture: String? = if case let .string(value)? = config["architecture"] { value } else { nil }
        guard os == platform.os, architecture == platform.architecture else {
            throw RegistryFailure(
                message: "the base image \(base.display) is \(os ?? "?")/\(architecture ?? "?"), not \(platform.name)",
                suggestion: "build for the base's platform, or name a multi-platform base (an index) that has \(platform.name); nothing was sent", status: 200, codes: [])
        }
        guard case let .array(diffIDs)? = config["rootfs"]?["diff_ids"], diffIDs.count == layers.count else {
            throw RegistryFailure(message: "the config of \(base.display) does not list one diff_id per layer",
                                  suggestion: "choose another base image; nothing was sent", status: 200, codes: [])
        }
        return OCIImage.Base(reference: "\(base.target.host)/\(base.target.repository)@\(base.reference)", layers: layers, config: config)
    }
}

extension OCIImage.Settings {
    /// `os/architecture[/variant]`.
    var name: String { [os, architecture, variant].compactMap { $0 }.joined(separator: "/") }
}

extension JSONValue {
    /// The member `key` of an object; nil for anything else.
    subscript(key: String) -> JSONValue? {
        if case let .object(members) = self { return members[key] }
        return nil
    }
}
