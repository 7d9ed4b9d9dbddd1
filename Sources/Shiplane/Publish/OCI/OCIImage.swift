import Foundation
internal import Crypto

/// A base-less OCI image (`FROM scratch`) made from files: one reproducible layer, its config and
/// its manifest, each with the digest a registry will check.
///
/// The layer is a ustar archive of the files at their paths in the image (with their parent
/// folders), sorted, uid/gid 0, mtime 0 or `SOURCE_DATE_EPOCH`, modes 0755/0644, gzipped with no
/// timestamp or name; config and manifest are JSON with sorted keys and no creation time. The same
/// files and settings therefore always give the same manifest digest, which is how a re-run knows
/// the registry already holds the image.
package struct OCIImage: Sendable {
    /// Where a file comes from and where it goes in the image.
    package struct File: Sendable, Equatable {
        /// The absolute path inside the image (`/usr/local/bin/app`).
        package var imagePath: String
        /// The file on disk.
        package var source: String
    }

    /// What goes into the image's config.
    package struct Settings: Sendable, Equatable {
        package var os: String
        package var architecture: String
        package var variant: String?
        package var entrypoint: [String]
        package var labels: [String: String]
    }

    /// A blob: what the manifest says of it, and where its bytes are.
    package struct Blob: Sendable {
        package var mediaType: String
        package var digest: String
        package var size: Int64
        package var body: HTTPRequestBody
    }

    package static let manifestMediaType = "application/vnd.oci.image.manifest.v1+json"
    package static let configMediaType = "application/vnd.oci.image.config.v1+json"
    package static let layerMediaType = "application/vnd.oci.image.layer.v1.tar+gzip"

    package var layer: Blob
    /// `sha256:` of the uncompressed layer (the config's `rootfs.diff_ids`).
    package var diffID: String
    package var config: Blob
    package var configBytes: [UInt8]
    package var manifest: [UInt8]
    package var manifestDigest: String
    /// The archive's entries, as the layer holds them.
    package var entries: [String]
    /// The base image's layers, below the built one (none for `scratch`).
    package var baseLayers: [Layer] = []

    /// Writes the layer to `folder/layer.tar.gz` and makes the config and manifest; on a `base`,
    /// the layer goes above the base's layers and the config is the base's, merged (`merged`).
    /// - Throws: `ValidationFailure` for a path that is not absolute, holds `..` or repeats, or a
    ///   missing source file; I/O errors.
    package static func build(files: [File], settings: Settings, modificationTime: Int, in folder: String, base: Base? = nil) throws -> OCIImage {
        let entries = try archiveEntries(files)
        let layerPath = folder + "/layer.tar.gz"
        let output = try ArchiveOutput(destination: URL(fileURLWithPath: layerPath))
        let gzip = try GzipWriter(output: output, level: 9)
        var uncompressed = Crypto.SHA256()
        func write(_ bytes: [UInt8]) throws {
            uncompressed.update(data: bytes)
            try gzip.write(bytes)
        }
        for entry in ArchiveEntry.sorted(entries) {
            try write(try TarGzArchive.header(for: entry, modificationTime: modificationTime))
            guard case let .file(path, size) = entry.kind else { continue }
            var written: Int64 = 0
            try forEachChunk(ofFile: path) { chunk in
                written += Int64(chunk.count)
                guard written <= size else { return }
                uncompressed.update(bufferPointer: chunk)
                try gzip.write(chunk)
            }
            guard written == size else { throw ShiplaneError("\(path) changed size while the image layer was made") }
            try write([UInt8](repeating: 0, count: Int((512 - size % 512) % 512)))
        }
        try write([UInt8](repeating: 0, count: 1024))
        try gzip.finish()
        try output.commit()
        let layerDigests = try FileDigests.read(layerPath)
        let diffID = "sha256:" + hex(Array(uncompressed.finalize()))
        let layer = Blob(mediaType: layerMediaType, digest: "sha256:" + hex(layerDigests.sha256), size: layerDigests.size, body: .file(path: layerPath))

        let configDocument = ConfigDocument(
            architecture: settings.architecture, os: settings.os, variant: settings.variant,
            config: .init(entrypoint: settings.entrypoint.isEmpty ? nil : settings.entrypoint,
                          env: ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
                          labels: settings.labels.isEmpty ? nil : settings.labels),
            rootfs: .init(type: "layers", diffIDs: [diffID]))
        let names = ArchiveEntry.sorted(entries).map { "/" + $0.name }
        let configBytes = try base.map { try canonicalJSON(merged($0.config, settings: settings, diffID: diffID, entries: names, time: modificationTime)) }
            ?? canonicalJSON(configDocument)
        let config = Blob(mediaType: configMediaType, digest: digest(of: configBytes), size: Int64(configBytes.count), body: .bytes(configBytes))
        let below = (base?.layers ?? []).map { Descriptor(mediaType: $0.mediaType, digest: $0.digest, size: $0.size) }
        let manifestDocument = ManifestDocument(
            schemaVersion: 2, mediaType: manifestMediaType,
            config: .init(mediaType: config.mediaType, digest: config.digest, size: config.size),
            layers: below + [.init(mediaType: layer.mediaType, digest: layer.digest, size: layer.size)])
        let manifest = try canonicalJSON(manifestDocument)
        return OCIImage(layer: layer, diffID: diffID, config: config, configBytes: configBytes, manifest: manifest,
                        manifestDigest: digest(of: manifest), entries: names, baseLayers: base?.layers ?? [])
    }

    /// The base's config with the built layer on top: every member kept as the base has it
    /// (`Env`, `Cmd`, `WorkingDir`, `User`, `ExposedPorts`, …) but its creation time; `entrypoint`
    /// given replaces `Entrypoint` and drops the base's `Cmd` (as a Dockerfile's `ENTRYPOINT`
    /// does); the labels go over the base's; the layer's diff_id is added to `rootfs.diff_ids`
    /// and a `history` entry for it (at `time`, so the same build gives the same digest).
    static func merged(_ base: JSONValue, settings: Settings, diffID: String, entries: [String], time: Int) -> JSONValue {
        guard case var .object(document) = base else { return base }
        var runtime: [String: JSONValue] = if case let .object(members)? = document["config"] { members } else { [:] }
        if !settings.entrypoint.isEmpty {
            runtime["Entrypoint"] = .array(settings.entrypoint.map(JSONValue.string))
            runtime["Cmd"] = nil
        }
        var labels: [String: JSONValue] = if case let .object(members)? = runtime["Labels"] { members } else { [:] }
        for (name, value) in settings.labels { labels[name] = .string(value) }
        if !labels.isEmpty { runtime["Labels"] = .object(labels) }
        document["config"] = .object(runtime)
        var rootfs: [String: JSONValue] = if case let .object(members)? = document["rootfs"] { members } else { ["type": .string("layers")] }
        let diffIDs: [JSONValue] = if case let .array(values)? = rootfs["diff_ids"] { values } else { [] }
        rootfs["diff_ids"] = .array(diffIDs + [.string(diffID)])
        document["rootfs"] = .object(rootfs)
        let history: [JSONValue] = if case let .array(values)? = document["history"] { values } else { [] }
        let created = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(time)))
        document["history"] = .array(history + [.object([
            "created": .string(created), "created_by": .string("shiplane pushImage"),
            "comment": .string("the release's files: " + entries.joined(separator: ", ")),
        ])])
        document["created"] = nil
        return .object(document)
    }

    /// The files and every parent folder, as archive entries (names without the leading slash).
    /// A source that is a folder is added whole, at its image path: its files and folders
    /// (empty ones too); a symbolic link in it is an error, as the layer holds no links.
    static func archiveEntries(_ given: [File]) throws -> [ArchiveEntry] {
        var problems: [String] = []
        var entries: [String: ArchiveEntry] = [:]
        var files: [File] = []
        for file in given {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file.source, isDirectory: &isFolder), isFolder.boolValue else {
                files.append(file)
                continue
            }
            let root = file.imagePath.hasSuffix("/") ? String(file.imagePath.dropLast()) : file.imagePath
            files.append(File(imagePath: root + "/", source: file.source))
            for relative in ((try? FileManager.default.subpathsOfDirectory(atPath: file.source)) ?? []).sorted() {
                let source = file.source + "/" + relative
                let type = (try? FileManager.default.attributesOfItem(atPath: source))?[.type] as? FileAttributeType
                switch type {
                case .typeRegular?: files.append(File(imagePath: root + "/" + relative, source: source))
                case .typeDirectory?: files.append(File(imagePath: root + "/" + relative + "/", source: source))
                default: problems.append("\(source) is not a file or a folder (a symbolic link or a device): the image layer holds files and folders only")
                }
            }
        }
        for file in files {
            // A folder (from a source that is a folder): an entry of its own, so empty ones stay.
            var sourceIsFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: file.source, isDirectory: &sourceIsFolder), sourceIsFolder.boolValue {
                let parts = file.imagePath.split(separator: "/").map(String.init)
                guard !parts.contains(".."), !parts.contains("."), file.imagePath.hasPrefix("/") else {
                    problems.append("\(file.imagePath) is not an absolute path inside the image (like /usr/local/bin/app)")
                    continue
                }
                for depth in parts.indices.map({ $0 + 1 }) {
                    let folder = parts[..<depth].joined(separator: "/")
                    if let existing = entries[folder], existing.kind != .directory {
                        problems.append("/\(folder) is both a file and a folder in the image")
                    }
                    entries[folder] = entries[folder] ?? ArchiveEntry(name: folder, kind: .directory)
                }
                continue
            }
            let parts = file.imagePath.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
            guard file.imagePath.hasPrefix("/"), !parts.isEmpty, !parts.contains(".."), !parts.contains(".") else {
                problems.append("\(file.imagePath) is not an absolute path inside the image (like /usr/local/bin/app)")
                continue
            }
            let name = parts.joined(separator: "/")
            guard entries[name] == nil else {
                problems.append("\(file.imagePath) is given twice (or is a folder of another file)")
                continue
            }
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file.source, isDirectory: &isFolder), !isFolder.boolValue,
                  let attributes = try? FileManager.default.attributesOfItem(atPath: file.source),
                  let size = (attributes[.size] as? NSNumber)?.int64Value else {
                problems.append("\(file.source) is not a file (for \(file.imagePath))")
                continue
            }
            let permissions = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0
            entries[name] = ArchiveEntry(name: name, kind: .file(path: file.source, size: size), executable: permissions & 0o111 != 0)
            for depth in 1..<parts.count {
                let folder = parts[..<depth].joined(separator: "/")
                if let existing = entries[folder], existing.kind != .directory {
                    problems.append("/\(folder) is both a file and a folder in the image")
                }
                entries[folder] = entries[folder] ?? ArchiveEntry(name: folder, kind: .directory)
            }
        }
        guard problems.isEmpty else {
            throw ValidationFailure(problems: problems, suggestion: "map each image path (/usr/local/bin/app) to a built file once; nothing was sent")
        }
        return Array(entries.values)
    }

    // MARK: - JSON

    struct ConfigDocument: Encodable {
        /// The image's runtime settings, under the spec's capitalised keys.
        struct Config: Encodable {
            var entrypoint: [String]?
            var env: [String]
            var labels: [String: String]?
            enum CodingKeys: String, CodingKey { case entrypoint = "Entrypoint", env = "Env", labels = "Labels" }
        }
        struct RootFS: Encodable {
            var type: String
            var diffIDs: [String]
            enum CodingKeys: String, CodingKey { case type, diffIDs = "diff_ids" }
        }
        var architecture: String
        var os: String
        var variant: String?
        var config: Config
        var rootfs: RootFS
    }

    struct Descriptor: Encodable {
        var mediaType: String
        var digest: String
        var size: Int64
    }

    struct ManifestDocument: Encodable {
        var schemaVersion: Int
        var mediaType: String
        var config: Descriptor
        var layers: [Descriptor]
    }

    static func canonicalJSON<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    /// `sha256:` and the hex SHA-256 of `bytes`.
    package static func digest(of bytes: [UInt8]) -> String {
        "sha256:" + hex(Array(Crypto.SHA256.hash(data: bytes)))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
