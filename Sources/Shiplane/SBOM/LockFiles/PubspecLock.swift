import Foundation

/// Dart and Flutter's `pubspec.lock`: each package's `version`, `source` (hosted, git, path,
/// sdk), the `sha256` of a hosted package's archive (Dart 3), and whether the pubspec names it
/// (`direct main`, `direct dev`, `direct overridden`) or it is `transitive`. The file does not say
/// which package needs which. Packages from an SDK (`flutter`) and local paths are left out:
/// they come with the toolchain or are the project.
package enum PubspecLock: LockFileReading {
    package static let format = "pubspec.lock"

    package static func matches(path: String) -> Bool { fileName(path) == "pubspec.lock" }

    package static func read(_ data: Data, file: String, siblings: [String: Data]) throws -> LockFileContents {
        let root = try yamlMapping(data, file: file)
        guard let entries = root["packages"] as? [String: Any] else { throw LockFileProblem(file: file, "it has no packages mapping") }
        var packages: [LockedPackage] = []
        var direct: [PackageURL] = []
        for (name, value) in entries {
            guard let entry = value as? [String: Any], let version = entry["version"] as? String else {
                throw LockFileProblem(file: file, "the package \(name) has no version")
            }
            let source = entry["source"] as? String ?? ""
            guard source == "hosted" || source == "git" else { continue }
            let description = entry["description"] as? [String: Any] ?? [:]
            let purl = PackageURL(type: "pub", name: name.lowercased(), version: version)
            let kind = entry["dependency"] as? String ?? ""
            packages.append(LockedPackage(
                purl: purl, hashes: (description["sha256"] as? String).flatMap { PackageHash(.sha256, hex: $0) }.map { [$0] } ?? [],
                isDevelopment: kind == "direct dev", vcsURL: source == "git" ? description["url"] as? String : nil
            ))
            if kind.hasPrefix("direct") { direct.append(purl) }
        }
        return LockFileContents(file: file, format: format, packages: packages, direct: direct.sorted())
    }
}
