import Foundation

/// pnpm's `pnpm-lock.yaml`: lockfile versions 5 (`/name/1.0.0_peer` keys), 6 (`/name@1.0.0(peer@2.0.0)`)
/// and 9 (`packages` with the integrity, `snapshots` with the dependencies), and the importers
/// (the project and its workspace packages) with what each names directly.
package enum PnpmLock: LockFileReading {
    package static let format = "pnpm-lock.yaml"

    package static func matches(path: String) -> Bool { fileName(path) == "pnpm-lock.yaml" }

    package static func read(_ data: Data, file: String, siblings: [String: Data]) throws -> LockFileContents {
        let root = try yamlMapping(data, file: file)
        guard let versionText = root["lockfileVersion"] as? String else { throw LockFileProblem(file: file, "it has no lockfileVersion") }
        let major = Int(versionText.split(separator: ".").first ?? "") ?? 0
        guard (5...9).contains(major) else { throw LockFileProblem(file: file, "lockfileVersion \(versionText) is not one pnpm 7 to 10 writes") }
        let packages = root["packages"] as? [String: Any] ?? [:]
        let snapshots = root["snapshots"] as? [String: Any] ?? [:]

        func purl(ofKey key: String) -> PackageURL? {
            guard let (name, version) = nameAndVersion(key, major: major) else { return nil }
            return PackageURL.npm(name, version: version)
        }
        /// A dependency entry: `name: 1.0.0(peer@2)`, an alias `name: npm:real@1.0.0` or `/real/1.0.0`, or a link.
        func purl(dependency name: String, reference: String) -> PackageURL? {
            if reference.hasPrefix("link:") || reference.hasPrefix("file:") { return nil }
            if reference.hasPrefix("npm:") { return purl(ofKey: String(reference.dropFirst(4))) }
            if reference.hasPrefix("/") { return purl(ofKey: reference) }
            let version = String(reference.prefix { $0 != "(" && $0 != "_" })
            if version.contains("@") { return purl(ofKey: version) }
            return PackageURL.npm(name, version: version)
        }
        func dependencies(of entry: [String: Any]) -> [PackageURL] {
            let found = ["dependencies", "optionalDependencies"].flatMap { group -> [PackageURL] in
                (entry[group] as? [String: Any] ?? [:]).compactMap { name, value in (value as? String).flatMap { purl(dependency: name, reference: $0) } }
            }
            return Set(found).sorted()
        }

        var byPurl: [PackageURL: LockedPackage] = [:]
        for (key, value) in packages {
            guard let purl = purl(ofKey: key) else { continue }
            let entry = value as? [String: Any] ?? [:]
            let resolution = entry["resolution"] as? [String: Any] ?? [:]
            var package = byPurl[purl] ?? LockedPackage(purl: purl, dependencies: [])
            package.hashes = PackageHash.integrity(resolution["integrity"] as? String ?? "")
            package.isDevelopment = entry["dev"] as? String == "true"
            if major < 9 { package.dependencies = Array(Set((package.dependencies ?? []) + dependencies(of: entry))).sorted() }
            if let tarball = resolution["tarball"] as? String, tarball.hasPrefix("http") { package.downloadURL = tarball }
            if let repository = resolution["repo"] as? String { package.vcsURL = repository }
            byPurl[purl] = package
        }
        for (key, value) in snapshots {
            guard let purl = purl(ofKey: key), let entry = value as? [String: Any] else { continue }
            var package = byPurl[purl] ?? LockedPackage(purl: purl, dependencies: [])
            package.dependencies = Array(Set((package.dependencies ?? []) + dependencies(of: entry))).sorted()
            byPurl[purl] = package
        }

        var importers = root["importers"] as? [String: Any] ?? [:]
        if importers.isEmpty { importers["."] = root }
        var direct: Set<PackageURL> = []
        for (_, value) in importers {
            let importer = value as? [String: Any] ?? [:]
            for group in ["dependencies", "devDependencies", "optionalDependencies"] {
                for (name, reference) in importer[group] as? [String: Any] ?? [:] {
                    // Version 6 and later write `{specifier, version}`; version 5 the version alone.
                    let version = (reference as? [String: Any])?["version"] as? String ?? reference as? String
                    if let version, let found = purl(dependency: name, reference: version) { direct.insert(found) }
                }
            }
        }
        return LockFileContents(file: file, format: "\(format) v\(versionText)", packages: Array(byPurl.values), direct: direct.sorted())
    }

    /// The name and version in a package key: `/@scope/name/1.0.0_peer@2` (version 5),
    /// `/@scope/name@1.0.0(peer@2)` (6) or `@scope/name@1.0.0(peer@2)` (9).
    static func nameAndVersion(_ key: String, major: Int) -> (String, String)? {
        var text = key.hasPrefix("/") ? String(key.dropFirst()) : key
        if let parenthesis = text.firstIndex(of: "(") { text = String(text[..<parenthesis]) }
        if major == 5 {
            guard let slash = text.lastIndex(of: "/") else { return nil }
            let version = String(text[text.index(after: slash)...].prefix { $0 != "_" })
            return (String(text[..<slash]), version)
        }
        guard let at = text.lastIndex(of: "@"), at != text.startIndex else { return nil }
        return (String(text[..<at]), String(text[text.index(after: at)...]))
    }
}
