import Foundation

/// npm's `package-lock.json` (and `npm-shrinkwrap.json`): version 1's nested `dependencies`
/// tree, versions 2 and 3's flat `packages` map keyed by `node_modules/…` paths. A dependency is
/// found as Node finds it: in the requiring package's own `node_modules`, then in each folder above.
package enum NpmPackageLock: LockFileReading {
    package static let format = "package-lock.json"

    package static func matches(path: String) -> Bool { ["package-lock.json", "npm-shrinkwrap.json"].contains(fileName(path)) }

    package static func read(_ data: Data, file: String, siblings: [String: Data]) throws -> LockFileContents {
        let root = try jsonObject(data, file: file)
        let version = root["lockfileVersion"] as? Int ?? 1
        if let packages = root["packages"] as? [String: Any], version >= 2 {
            return try readPackages(packages, file: file, version: version)
        }
        guard version == 1 || root["dependencies"] != nil else { throw LockFileProblem(file: file, "lockfileVersion \(version) has no packages map") }
        return readVersion1(root["dependencies"] as? [String: Any] ?? [:], file: file)
    }

    // MARK: - Versions 2 and 3

    private static func readPackages(_ entries: [String: Any], file: String, version: Int) throws -> LockFileContents {
        var purls: [String: PackageURL] = [:]
        for (path, value) in entries where path.contains("node_modules/") {
            guard let entry = value as? [String: Any], entry["link"] as? Bool != true else { continue }
            guard let packageVersion = entry["version"] as? String else { continue }
            let name = entry["name"] as? String ?? packageName(fromPath: path)
            purls[path] = PackageURL.npm(name, version: packageVersion)
        }
        // A link (a workspace package) resolves to the folder it points at.
        var links: [String: String] = [:]
        for (path, value) in entries {
            if let entry = value as? [String: Any], entry["link"] as? Bool == true, let target = entry["resolved"] as? String { links[path] = target }
        }
        func resolve(_ name: String, from path: String) -> PackageURL? {
            var base = path
            while true {
                let candidate = (base.isEmpty ? "" : base + "/") + "node_modules/" + name
                if let found = purls[candidate] { return found }
                if links[candidate] != nil { return nil }
                guard !base.isEmpty else { return nil }
                if let range = base.range(of: "/node_modules/", options: .backwards) {
                    base = String(base[..<range.lowerBound])
                } else if base.hasPrefix("node_modules/") {
                    base = ""
                } else if let slash = base.lastIndex(of: "/") {
                    base = String(base[..<slash])
                } else {
                    base = ""
                }
            }
        }
        func dependencyNames(_ entry: [String: Any]) -> [String] {
            ["dependencies", "optionalDependencies", "peerDependencies"].flatMap { (entry[$0] as? [String: Any])?.keys.map { $0 } ?? [] }
        }
        var packages: [LockedPackage] = []
        for (path, purl) in purls {
            guard let entry = entries[path] as? [String: Any] else { continue }
            let dependencies = Set(dependencyNames(entry).compactMap { resolve($0, from: path) })
            packages.append(LockedPackage(
                purl: purl, hashes: PackageHash.integrity(entry["integrity"] as? String ?? ""),
                dependencies: dependencies.sorted(), isDevelopment: entry["dev"] as? Bool == true || entry["devOptional"] as? Bool == true,
                downloadURL: (entry["resolved"] as? String).flatMap { $0.hasPrefix("http") ? $0 : nil }
            ))
        }
        var direct: Set<PackageURL> = []
        if let project = entries[""] as? [String: Any] {
            let names = dependencyNames(project) + ((project["devDependencies"] as? [String: Any])?.keys.map { $0 } ?? [])
            direct.formUnion(names.compactMap { resolve($0, from: "") })
        }
        return LockFileContents(file: file, format: "\(format) v\(version)", packages: packages, direct: direct.sorted())
    }

    /// `@scope/name` or `name` after the last `node_modules/` of a path.
    static func packageName(fromPath path: String) -> String {
        guard let range = path.range(of: "node_modules/", options: .backwards) else { return path }
        return String(path[range.upperBound...])
    }

    // MARK: - Version 1

    private static func readVersion1(_ top: [String: Any], file: String) -> LockFileContents {
        var packages: [LockedPackage] = []
        // Each level: its entries by name, and the levels above it.
        func walk(_ level: [String: Any], ancestors: [[String: Any]]) {
            let scopes = [level] + ancestors
            for (name, value) in level {
                guard let entry = value as? [String: Any], let version = entry["version"] as? String else { continue }
                let nested = entry["dependencies"] as? [String: Any] ?? [:]
                let lookup = [nested] + scopes
                let requires = (entry["requires"] as? [String: Any])?.keys.map { $0 } ?? []
                let dependencies = Set(requires.compactMap { required -> PackageURL? in
                    for scope in lookup {
                        if let found = scope[required] as? [String: Any], let foundVersion = found["version"] as? String {
                            return PackageURL.npm(required, version: npmVersion(foundVersion))
                        }
                    }
                    return nil
                })
                packages.append(LockedPackage(
                    purl: PackageURL.npm(name, version: npmVersion(version)), hashes: PackageHash.integrity(entry["integrity"] as? String ?? ""),
                    dependencies: dependencies.sorted(), isDevelopment: entry["dev"] as? Bool == true,
                    downloadURL: (entry["resolved"] as? String).flatMap { $0.hasPrefix("http") ? $0 : nil }
                ))
                walk(nested, ancestors: scopes)
            }
        }
        walk(top, ancestors: [])
        // Version 1 does not say which are the project's own; the top level holds them and the hoisted ones.
        return LockFileContents(file: file, format: "\(format) v1", packages: packages, direct: nil)
    }

    /// A version 1 entry's version is a URL or path for packages that are not from the registry; only a version is one.
    private static func npmVersion(_ text: String) -> String? {
        text.contains(":") || text.contains("/") ? nil : text
    }
}
