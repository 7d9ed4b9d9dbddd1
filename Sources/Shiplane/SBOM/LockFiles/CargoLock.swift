import Foundation

/// Cargo's `Cargo.lock` (versions 1 to 4): `[[package]]` tables with the checksum of each crate
/// from a registry and its dependencies (`"name"`, or `"name version"` where two versions are
/// locked). Packages without a `source` are the workspace's own crates: the project itself.
package enum CargoLock: LockFileReading {
    package static let format = "Cargo.lock"

    package static func matches(path: String) -> Bool { fileName(path) == "Cargo.lock" }

    package static func read(_ data: Data, file: String, siblings: [String: Data]) throws -> LockFileContents {
        let document = try LockFileTOML.parse(try text(data, file: file), file: file)
        let tables = document["package"]?.array?.compactMap(\.table) ?? []
        // Version 1 kept checksums in [metadata] as "checksum name version (source)" = "hex".
        var oldChecksums: [String: String] = [:]
        for (key, value) in document["metadata"]?.table ?? [:] where key.hasPrefix("checksum ") {
            let words = key.split(separator: " ")
            if words.count >= 3, let hex = value.string { oldChecksums["\(words[1]) \(words[2])"] = hex }
        }
        var byName: [String: [(version: String, purl: PackageURL)]] = [:]
        for table in tables {
            guard let name = table["name"]?.string, let version = table["version"]?.string else {
                throw LockFileProblem(file: file, "a [[package]] has no name or version")
            }
            byName[name, default: []].append((version, PackageURL(type: "cargo", name: name, version: version)))
        }
        func resolve(_ dependency: String) -> PackageURL? {
            let words = dependency.split(separator: " ").map(String.init)
            guard let name = words.first, let candidates = byName[name] else { return nil }
            if words.count >= 2 { return candidates.first { $0.version == words[1] }?.purl }
            return candidates.first?.purl
        }
        var packages: [LockedPackage] = []
        var direct: Set<PackageURL> = []
        for table in tables {
            guard let name = table["name"]?.string, let version = table["version"]?.string else { continue }
            let dependencies = (table["dependencies"]?.array ?? []).compactMap(\.string).compactMap(resolve)
            guard let source = table["source"]?.string else {
                direct.formUnion(dependencies)
                continue
            }
            let checksum = table["checksum"]?.string ?? oldChecksums["\(name) \(version)"]
            let vcs = source.hasPrefix("git+") ? String(source.dropFirst(4).prefix { $0 != "?" && $0 != "#" }) : nil
            packages.append(LockedPackage(
                purl: PackageURL(type: "cargo", name: name, version: version),
                hashes: checksum.flatMap { PackageHash(.sha256, hex: $0) }.map { [$0] } ?? [],
                dependencies: dependencies, vcsURL: vcs
            ))
        }
        let version = document["version"].flatMap { if case .integer(let number) = $0 { return number } else { return nil } } ?? 1
        let workspace = tables.contains { $0["source"] == nil }
        return LockFileContents(file: file, format: "\(format) v\(version)", packages: packages, direct: workspace ? direct.sorted() : nil)
    }
}
