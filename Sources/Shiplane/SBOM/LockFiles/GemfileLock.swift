import Foundation

/// Bundler's `Gemfile.lock`: the `GEM`, `GIT` and `PATH` sections' specs (`name (version[-platform])`
/// with their dependencies indented below), `DEPENDENCIES` (what the Gemfile names) and, from
/// Bundler 2.5, `CHECKSUMS` (`name (version) sha256=hex`).
package enum GemfileLock: LockFileReading {
    package static let format = "Gemfile.lock"

    package static func matches(path: String) -> Bool { ["Gemfile.lock", "gems.locked"].contains(fileName(path)) }

    private struct Spec {
        var name: String
        var fullVersion: String
        var dependencies: [String] = []
        var vcs: String?
        var isLocal: Bool
    }

    package static func read(_ data: Data, file: String, siblings: [String: Data]) throws -> LockFileContents {
        var section = ""
        var remote: String?
        var specs: [Spec] = []
        var directNames: [String] = []
        var checksums: [String: String] = [:]
        for rawLine in try text(data, file: file).components(separatedBy: "\n") {
            let line = rawLine.hasSuffix("\r") ? String(rawLine.dropLast()) : rawLine
            if line.isEmpty { continue }
            let indent = line.prefix { $0 == " " }.count
            let content = line.trimmingCharacters(in: .whitespaces)
            if indent == 0 {
                section = content
                remote = nil
                continue
            }
            switch section {
            case "GEM", "GIT", "PATH", "PLUGIN SOURCE":
                if indent == 2, content.hasPrefix("remote:") {
                    remote = content.dropFirst("remote:".count).trimmingCharacters(in: .whitespaces)
                } else if indent == 4, let (name, version) = nameAndParenthesis(content), let version {
                    specs.append(Spec(name: name, fullVersion: version, vcs: section == "GIT" ? remote : nil, isLocal: section == "PATH"))
                } else if indent == 6, let (name, _) = nameAndParenthesis(content), !specs.isEmpty {
                    specs[specs.count - 1].dependencies.append(name)
                }
            case "DEPENDENCIES":
                if indent == 2, let (name, _) = nameAndParenthesis(content) { directNames.append(name.hasSuffix("!") ? String(name.dropLast()) : name) }
            case "CHECKSUMS":
                guard indent == 2, let (name, version) = nameAndParenthesis(content), let version,
                      let hash = content.split(separator: " ").last, hash.hasPrefix("sha256=") else { continue }
                checksums["\(name) \(version)"] = String(hash.dropFirst("sha256=".count))
            default:
                continue
            }
        }
        func purl(_ spec: Spec) -> PackageURL {
            // A platform gem's version is `1.13.10-x86_64-linux`.
            let parts = spec.fullVersion.split(separator: "-", maxSplits: 1).map(String.init)
            return PackageURL(type: "gem", name: spec.name, version: parts.first, qualifiers: parts.count == 2 ? ["platform": parts[1]] : [:])
        }
        var byName: [String: [PackageURL]] = [:]
        for spec in specs { byName[spec.name, default: []].append(purl(spec)) }
        var packages: [LockedPackage] = []
        for spec in specs where !spec.isLocal {
            let hash = checksums["\(spec.name) \(spec.fullVersion)"].flatMap { PackageHash(.sha256, hex: $0) }
            packages.append(LockedPackage(
                purl: purl(spec), hashes: hash.map { [$0] } ?? [],
                dependencies: Set(spec.dependencies.flatMap { byName[$0] ?? [] }).sorted(), vcsURL: spec.vcs
            ))
        }
        // A gem from PATH is the project's own: what it depends on is what the project uses.
        let local = specs.filter(\.isLocal).flatMap { $0.dependencies.flatMap { byName[$0] ?? [] } }
        let direct = Set(directNames.flatMap { name in specs.first { $0.name == name && $0.isLocal } == nil ? byName[name] ?? [] : [] } + local)
        return LockFileContents(file: file, format: format, packages: packages, direct: direct.sorted())
    }

    /// `rails (7.0.4)` → ("rails", "7.0.4"); `rake` → ("rake", nil).
    private static func nameAndParenthesis(_ content: String) -> (String, String?)? {
        guard let first = content.split(separator: " ").first else { return nil }
        guard let open = content.firstIndex(of: "("), let close = content.firstIndex(of: ")"), open < close else { return (String(first), nil) }
        return (String(first), String(content[content.index(after: open)..<close]))
    }
}
