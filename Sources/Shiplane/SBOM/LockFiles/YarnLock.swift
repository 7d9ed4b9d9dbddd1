import Foundation

/// Yarn's `yarn.lock`: Yarn 1's own format (`"name@range", "name@range2":` entries with
/// `version`, `resolved`, `integrity` and `dependencies`) and Yarn 2+ ("berry", YAML with
/// `__metadata`, `resolution: "name@npm:1.0.0"`, and workspaces as `name@workspace:path`).
///
/// Berry's `checksum` is the digest of the zip Yarn keeps in its cache, not of the package as
/// published, so it is not reported as the package's hash.
package enum YarnLock: LockFileReading {
    package static let format = "yarn.lock"

    package static func matches(path: String) -> Bool { fileName(path) == "yarn.lock" }

    package static func read(_ data: Data, file: String, siblings: [String: Data]) throws -> LockFileContents {
        let text = try text(data, file: file)
        if text.split(separator: "\n").contains(where: { $0.hasPrefix("__metadata:") }) {
            return try readBerry(yamlMapping(data, file: file), file: file)
        }
        return try readClassic(text, file: file)
    }

    /// The name in a descriptor `@scope/name@range` (the `@` after the first character).
    static func name(ofDescriptor descriptor: String) -> String {
        let body = descriptor.dropFirst()
        guard let at = body.firstIndex(of: "@") else { return descriptor }
        return String(descriptor[..<at])
    }

    // MARK: - Yarn 1

    private struct ClassicEntry {
        var descriptors: [String]
        var fields: [String: String] = [:]
        var dependencies: [(String, String)] = []
        var line: Int
    }

    private static func readClassic(_ text: String, file: String) throws -> LockFileContents {
        var entries: [ClassicEntry] = []
        var inDependencies = false
        for (number, rawLine) in text.components(separatedBy: "\n").enumerated() {
            let line = rawLine.hasSuffix("\r") ? String(rawLine.dropLast()) : rawLine
            if line.trimmingCharacters(in: .whitespaces).isEmpty || line.hasPrefix("#") { continue }
            let indent = line.prefix { $0 == " " }.count
            let content = line.dropFirst(indent)
            if indent == 0 {
                guard content.hasSuffix(":") else { throw LockFileProblem(file: file, line: number + 1, "an entry does not end with ':'") }
                let descriptors = content.dropLast().split(separator: ",").map { unquote($0.trimmingCharacters(in: .whitespaces)) }
                entries.append(ClassicEntry(descriptors: descriptors, line: number + 1))
                inDependencies = false
                continue
            }
            guard !entries.isEmpty else { throw LockFileProblem(file: file, line: number + 1, "a field stands before any entry") }
            if indent == 2 {
                if content.hasSuffix(":") {
                    let section = content.dropLast()
                    inDependencies = section == "dependencies" || section == "optionalDependencies"
                    continue
                }
                let (key, value) = keyAndValue(String(content))
                entries[entries.count - 1].fields[key] = value
            } else if inDependencies {
                entries[entries.count - 1].dependencies.append(keyAndValue(String(content)))
            }
        }
        var byDescriptor: [String: PackageURL] = [:]
        for entry in entries {
            guard let first = entry.descriptors.first, let version = entry.fields["version"] else {
                throw LockFileProblem(file: file, line: entry.line, "an entry has no version")
            }
            for descriptor in entry.descriptors { byDescriptor[descriptor] = PackageURL.npm(name(ofDescriptor: first), version: version) }
        }
        var packages: [LockedPackage] = []
        for entry in entries {
            guard let first = entry.descriptors.first, let purl = byDescriptor[first] else { continue }
            var hashes = PackageHash.integrity(entry.fields["integrity"] ?? "")
            let resolved = entry.fields["resolved"]
            if hashes.isEmpty, let resolved, let hash = resolved.split(separator: "#").last, resolved.contains("#"),
               let sha1 = PackageHash(.sha1, hex: String(hash)) {
                hashes = [sha1]
            }
            let dependencies = entry.dependencies.compactMap { byDescriptor["\($0.0)@\($0.1)"] }
            let download = resolved.map { String($0.prefix { $0 != "#" }) }.flatMap { $0.hasPrefix("http") ? $0 : nil }
            packages.append(LockedPackage(purl: purl, hashes: hashes, dependencies: Set(dependencies).sorted(), downloadURL: download))
        }
        return LockFileContents(file: file, format: "\(format) v1", packages: packages, direct: nil)
    }

    private static func keyAndValue(_ content: String) -> (String, String) {
        let trimmed = content.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("\"") {
            let body = trimmed.dropFirst()
            if let close = body.firstIndex(of: "\"") {
                return (String(body[..<close]), unquote(body[body.index(after: close)...].trimmingCharacters(in: .whitespaces)))
            }
        }
        guard let space = trimmed.firstIndex(of: " ") else { return (trimmed, "") }
        return (String(trimmed[..<space]), unquote(trimmed[trimmed.index(after: space)...].trimmingCharacters(in: .whitespaces)))
    }

    private static func unquote(_ text: String) -> String {
        text.count >= 2 && text.hasPrefix("\"") && text.hasSuffix("\"") ? String(text.dropFirst().dropLast()) : text
    }

    // MARK: - Yarn 2 and later

    private static func readBerry(_ root: [String: Any], file: String) throws -> LockFileContents {
        var byDescriptor: [String: PackageURL] = [:]
        var workspaces: [String: [String: Any]] = [:]
        var registryEntries: [(PackageURL, [String: Any])] = []
        for (key, value) in root where key != "__metadata" {
            guard let entry = value as? [String: Any] else { continue }
            let descriptors = key.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let resolution = entry["resolution"] as? String ?? descriptors.first ?? key
            let resolvedName = name(ofDescriptor: resolution)
            let reference = String(resolution.dropFirst(resolvedName.count + 1))
            if reference.hasPrefix("workspace:") || reference.hasPrefix("link:") || reference.hasPrefix("portal:") {
                workspaces[resolution] = entry
                continue
            }
            let version = entry["version"] as? String
            let purl = PackageURL.npm(resolvedName, version: version)
            for descriptor in descriptors { byDescriptor[descriptor] = purl }
            registryEntries.append((purl, entry))
        }
        func resolve(_ name: String, _ range: String) -> PackageURL? {
            byDescriptor["\(name)@\(range)"] ?? byDescriptor["\(name)@npm:\(range)"]
        }
        func dependencies(of entry: [String: Any]) -> [PackageURL] {
            Set(["dependencies", "optionalDependencies"].flatMap { group in
                (entry[group] as? [String: Any] ?? [:]).compactMap { name, range in (range as? String).flatMap { resolve(name, $0) } }
            }).sorted()
        }
        let packages = registryEntries.map { purl, entry in
            var vcs: String?
            if let resolution = entry["resolution"] as? String, let hash = resolution.range(of: "@https://"), resolution.contains(".git") {
                vcs = String(resolution[resolution.index(after: hash.lowerBound)...].prefix { $0 != "#" })
            }
            return LockedPackage(purl: purl, dependencies: dependencies(of: entry), vcsURL: vcs)
        }
        let direct = Set(workspaces.values.flatMap { dependencies(of: $0) })
        return LockFileContents(file: file, format: "\(format) berry", packages: packages, direct: workspaces.isEmpty ? nil : direct.sorted())
    }
}
