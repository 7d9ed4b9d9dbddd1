import Foundation

/// A file a release makes and publishes: an archive, a checksum file, a binary, a signature, an
/// SBOM, a provenance statement. The run keeps every artifact its steps made (`LaneContext.artifacts`),
/// in the order they were made, and its record keeps each one's SHA-256: a resumed run or a fresh
/// clone that makes the file again must make the same bytes.
///
/// `archive`, `checksums` and `artifact` return one; forges, stores and announcers take them
/// wherever they take files (`assets: [archive, sums]`), beside plain paths.
public struct Artifact: ReplayableOutput, Hashable, CustomStringConvertible, ArtifactConvertible {
    /// What an artifact is, for the steps that pick some of a release's artifacts (a signer signs
    /// archives and binaries, a checksum file lists everything but signatures).
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// A `.tar.gz` or `.zip` of the release.
        case archive
        /// A checksum file (`SHA256SUMS`, `*.sha256`).
        case checksums
        /// A program or library as built.
        case binary
        /// A detached signature (`.sig`, `.asc`, `.minisig`).
        case signature
        /// A software bill of materials (SPDX, CycloneDX).
        case sbom
        /// A build provenance statement (in-toto, SLSA).
        case provenance
        /// Anything else a release publishes.
        case other
    }

    /// What the file is.
    public var kind: Kind
    /// The name it is published under: its file name unless given.
    public var name: String
    /// Where it is, relative to the repository root (absolute only for a file outside it).
    public var path: String
    /// The SHA-256 of its bytes, in lowercase hex.
    public var sha256: String
    /// The operating system it runs on (`linux`, `macos`, `windows`), for builds of one platform.
    public var os: String?
    /// The CPU architecture it runs on (`x86_64`, `arm64`), for builds of one platform.
    public var arch: String?

    /// The path, so an artifact reads as its file in messages and string interpolation.
    public var description: String { path }

    package init(kind: Kind, name: String? = nil, path: String, sha256: String, os: String? = nil, arch: String? = nil) {
        self.kind = kind
        self.name = name ?? URL(fileURLWithPath: path).lastPathComponent
        self.path = path
        self.sha256 = sha256
        self.os = os
        self.arch = arch
    }

    /// The kind a file's name suggests: a checksum file, a signature, an SBOM, a provenance
    /// statement, an archive, else `other`.
    package static func kind(forFileName fileName: String) -> Kind {
        let lower = fileName.lowercased()
        if lower.hasSuffix("sha256sums") || lower.hasSuffix("checksums.txt") || lower.hasSuffix(".sha256") || lower.hasSuffix(".sha512") {
            return .checksums
        }
        if lower.hasSuffix(".sig") || lower.hasSuffix(".asc") || lower.hasSuffix(".minisig") || lower.hasSuffix(".sigstore.json") {
            return .signature
        }
        if lower.hasSuffix(".spdx.json") || lower.hasSuffix(".spdx") || lower.hasSuffix(".cdx.json") || lower.hasSuffix(".bom.json") {
            return .sbom
        }
        if lower.hasSuffix(".intoto.jsonl") || lower.hasSuffix(".intoto.json") || lower.hasSuffix(".provenance.json") { return .provenance }
        if ArchiveFormat(fileName: lower) != nil { return .archive }
        return .other
    }
}

/// A file a step publishes or reads: a path (`"dist/app.tar.gz"`) or an `Artifact` a step made.
/// Parameters that take files take `[any ArtifactConvertible]`, so a lane passes literals, its
/// own `[String]` and artifacts alike; only `String` and `Artifact` conform.
public protocol ArtifactConvertible: Sendable {}

extension String: ArtifactConvertible {}

/// Turns what a lane passed as files into paths, and checks the artifacts among them.
package enum ArtifactInputs {
    /// The paths of `files`, as given (relative to the repository root unless absolute).
    /// - Throws: `ValidationFailure` for a value of another type.
    package static func paths(_ files: [any ArtifactConvertible]) throws -> [String] {
        try files.map { file in
            if let path = file as? String { return path }
            if let artifact = file as? Artifact { return artifact.path }
            throw ValidationFailure(problems: ["\(type(of: file)) is not a file"], suggestion: "pass a path (String) or an Artifact a step returned")
        }
    }
}
