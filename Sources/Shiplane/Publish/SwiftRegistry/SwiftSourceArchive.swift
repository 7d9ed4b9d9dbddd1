import Foundation
internal import Git

/// A package's source archive as `swift package archive-source` makes it in a git repository
/// (`git archive --format zip --prefix <Name>/ HEAD`): the files of a commit, `export-ignore`
/// paths left out, under one top-level folder named as the manifest names the package, every
/// entry at the commit's time. The same commit gives the same bytes, so a re-run finds the same
/// checksum.
package struct SwiftSourceArchive: Sendable {
    /// Where the zip was written.
    package var path: String
    /// The top-level folder (the manifest's package name).
    package var folder: String
    /// Hex SHA-256 of the zip: what `swift package compute-checksum` prints and SwiftPM checks.
    package var checksum: String
    /// The zip's size in bytes.
    package var size: Int64
    /// The files in it (without the folder), sorted.
    package var files: [String]
    /// The manifests in it (`Package.swift`, `Package@swift-*.swift`), by name, with their bytes.
    package var manifests: [String: Data]

    /// Writes the archive of `commit` to `destination`; `fallbackName` names the folder when no
    /// `Package.swift` names the package.
    /// - Throws: `ValidationFailure` when the commit has no `Package.swift` or holds symbolic links
    ///   (which this archive cannot keep), `GitFailure` when the commit cannot be read.
    /// `signManifest` turns each manifest at the root into what the archive holds (SE-0391: the
    /// manifest with its signature line), before the archive is written.
    static func make(commit: ObjectID, in repository: Repository, fallbackName: String, destination: String,
                     signManifest: ((String, Data) throws -> Data)? = nil) throws -> SwiftSourceArchive {
        let (entries, time) = try git { try repository.exportedEntries(of: commit) }
        let links = entries.filter { $0.kind == .symbolicLink }.map(\.path)
        guard links.isEmpty else {
            throw ValidationFailure(problems: links.map { "\($0) is a symbolic link: Shiplane's source archive holds files and folders only" },
                                    suggestion: "mark it export-ignore in .gitattributes, or replace it with the file; nothing was sent")
        }
        guard entries.contains(where: { $0.path == "Package.swift" }) else {
            throw ValidationFailure(problems: ["the commit \(commit.hex.prefix(12)) has no Package.swift at the repository's root"],
                                    suggestion: "publish from the package's own repository; nothing was sent")
        }
        let staging = destination + ".files"
        try? FileManager.default.removeItem(atPath: staging)
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: staging) }

        var manifests: [String: Data] = [:]
        var archiveEntries: [ArchiveEntry] = []
        var files: [String] = []
        var blobCount = 0
        for entry in entries {
            switch entry.kind {
            case .directory, .submodule:
                // git archive writes a submodule as an empty folder.
                archiveEntries.append(ArchiveEntry(name: entry.path, kind: .directory))
            case .file(let executable):
                blobCount += 1
                let staged = staging + "/\(blobCount)"
                try git { try repository.writeBlob(entry.id, to: staged) }
                if let signManifest, !entry.path.contains("/"), Self.isManifest(entry.path) {
                    let signed = try signManifest(entry.path, FileManager.default.contents(atPath: staged) ?? Data())
                    try signed.write(to: URL(fileURLWithPath: staged))
                }
                let size = (try FileManager.default.attributesOfItem(atPath: staged)[.size] as? NSNumber)?.int64Value ?? 0
                archiveEntries.append(ArchiveEntry(name: entry.path, kind: .file(path: staged, size: size), executable: executable))
                files.append(entry.path)
                if !entry.path.contains("/"), Self.isManifest(entry.path) {
                    manifests[entry.path] = FileManager.default.contents(atPath: staged) ?? Data()
                }
            case .symbolicLink:
                break
            }
        }
        let folder = Self.packageName(in: manifests["Package.swift"] ?? Data()) ?? fallbackName
        var named = [ArchiveEntry(name: folder, kind: .directory)]
        for entry in archiveEntries {
            var moved = entry
            moved.name = folder + "/" + entry.name
            named.append(moved)
        }
        try ZipArchive.write(entries: named, to: URL(fileURLWithPath: destination), compression: .deflated, modificationTime: time)
        // Hashed as it is read, never whole in memory (an archive can be larger than the memory).
        let size = (try FileManager.default.attributesOfItem(atPath: destination)[.size] as? NSNumber)?.int64Value ?? 0
        return SwiftSourceArchive(path: destination, folder: folder, checksum: try SHA256.hex(ofFile: destination), size: size,
                                  files: files.sorted(), manifests: manifests)
    }

    /// `Package.swift` or a version-specific manifest (`Package@swift-5.9.swift`), as the registry
    /// specification's pattern says.
    static func isManifest(_ name: String) -> Bool {
        name == "Package.swift" || name.range(of: #"^Package@swift-(\d+)(?:\.(\d+))?(?:\.(\d+))?\.swift$"#, options: .regularExpression) != nil
    }

    /// The `name:` the manifest gives its `Package(…)`, when it is a string literal.
    static func packageName(in manifest: Data) -> String? {
        let text = String(decoding: manifest, as: UTF8.self)
        guard let range = text.range(of: #"Package\s*\(\s*name\s*:\s*"([^"\\]+)""#, options: .regularExpression) else { return nil }
        let match = text[range]
        guard let open = match.firstIndex(of: "\"") else { return nil }
        let name = match[match.index(after: open)...].dropLast()
        return name.isEmpty || name.contains("/") ? nil : String(name)
    }
}
