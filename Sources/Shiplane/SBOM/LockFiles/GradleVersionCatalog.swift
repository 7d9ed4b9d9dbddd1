import Foundation

/// Gradle's version catalog, `gradle/libs.versions.toml` (or another `gradle/*.versions.toml`):
/// `[libraries]` as `"group:name:version"`, `{ module = "group:name", version = "…" }`,
/// `{ group, name, version.ref = "…" }` or a rich version (`{ strictly, require, prefer }`), and
/// `[plugins]` as their marker artifacts (`id:id.gradle.plugin`). A catalog names the versions a
/// build asks for, not what Gradle resolved: where a `gradle.lockfile` pins the same module, the
/// SBOM takes the lock file's version. A library whose version a platform (BOM) sets has none.
package enum GradleVersionCatalog: LockFileReading {
    package static let format = "Gradle version catalog"

    package static func matches(path: String) -> Bool {
        let parent = ((path as NSString).deletingLastPathComponent as NSString).lastPathComponent
        return parent == "gradle" && path.hasSuffix(".versions.toml")
    }

    package static func read(_ data: Data, file: String, siblings: [String: Data]) throws -> LockFileContents {
        let document = try LockFileTOML.parse(try text(data, file: file), file: file)
        let versions = document["versions"]?.table ?? [:]
        func version(_ value: TOMLValue?) throws -> String? {
            guard let value else { return nil }
            if let text = value.string { return text }
            if let reference = value["ref"]?.string {
                guard let resolved = versions[reference] else { throw LockFileProblem(file: file, "version.ref \"\(reference)\" names no entry of [versions]") }
                return try version(resolved)
            }
            for key in ["strictly", "require", "prefer"] { if let text = value[key]?.string { return text } }
            return nil
        }
        var packages: [LockedPackage] = []
        for (alias, value) in (document["libraries"]?.table ?? [:]).sorted(by: { $0.key < $1.key }) {
            if let text = value.string {
                let parts = text.split(separator: ":").map(String.init)
                guard parts.count >= 2, let purl = PackageURL.maven("\(parts[0]):\(parts[1])", version: parts.count >= 3 ? parts[2] : nil) else {
                    throw LockFileProblem(file: file, "the library \(alias) is not group:name:version")
                }
                packages.append(LockedPackage(purl: purl))
                continue
            }
            let coordinates = value["module"]?.string ?? value["group"]?.string.flatMap { group in value["name"]?.string.map { "\(group):\($0)" } }
            guard let coordinates, let purl = PackageURL.maven(coordinates, version: try version(value["version"])) else {
                throw LockFileProblem(file: file, "the library \(alias) has neither module nor group and name")
            }
            packages.append(LockedPackage(purl: purl))
        }
        for (alias, value) in (document["plugins"]?.table ?? [:]).sorted(by: { $0.key < $1.key }) {
            let text = value.string.map { String($0.split(separator: ":").first ?? "") } ?? value["id"]?.string
            guard let id = text, !id.isEmpty else { throw LockFileProblem(file: file, "the plugin \(alias) has no id") }
            let pluginVersion = try value.string.flatMap { $0.split(separator: ":").dropFirst().first.map(String.init) } ?? version(value["version"])
            packages.append(LockedPackage(purl: PackageURL(type: "maven", namespace: id, name: id + ".gradle.plugin", version: pluginVersion)))
        }
        return LockFileContents(file: file, format: format, packages: packages, direct: packages.map(\.purl))
    }
}
