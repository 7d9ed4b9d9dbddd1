import Foundation

/// uv's `uv.lock`: `[[package]]` tables with `source` (a registry, git, or the project itself as
/// `editable`/`virtual`), `dependencies` as `{ name, version? }`, and the `sdist` and `wheels`
/// with their URLs and digests. The package's hash is its source distribution's, or its wheel's
/// when it has only one. The project's own packages (`editable`, `virtual`) are the roots: what
/// they and their dependency groups name is what the project uses directly.
package enum UvLock: LockFileReading {
    package static let format = "uv.lock"

    package static func matches(path: String) -> Bool { fileName(path) == "uv.lock" }

    package static func read(_ data: Data, file: String, siblings: [String: Data]) throws -> LockFileContents {
        let document = try LockFileTOML.parse(try text(data, file: file), file: file)
        let tables = document["package"]?.array?.compactMap(\.table) ?? []
        var byName: [String: [PackageURL]] = [:]
        for table in tables {
            guard let name = table["name"]?.string else { throw LockFileProblem(file: file, "a [[package]] has no name") }
            byName[PackageURL.normalisedPythonName(name), default: []].append(PackageURL.pypi(name, version: table["version"]?.string))
        }
        func resolve(_ entry: TOMLValue) -> PackageURL? {
            guard let name = entry["name"]?.string, let candidates = byName[PackageURL.normalisedPythonName(name)] else { return nil }
            if let version = entry["version"]?.string { return candidates.first { $0.version == version } }
            return candidates.first
        }
        func isProject(_ table: [String: TOMLValue]) -> Bool {
            let source = table["source"]
            return source?["editable"] != nil || source?["virtual"] != nil || source?["path"] != nil || source?["directory"] != nil
        }
        var packages: [LockedPackage] = []
        var direct: Set<PackageURL> = []
        for table in tables {
            guard let name = table["name"]?.string else { continue }
            var dependencies = (table["dependencies"]?.array ?? []).compactMap(resolve)
            if isProject(table) {
                for group in ["optional-dependencies", "dev-dependencies"] {
                    dependencies += (table[group]?.table ?? [:]).values.flatMap { ($0.array ?? []).compactMap(resolve) }
                }
                direct.formUnion(dependencies)
                continue
            }
            let purl = PackageURL.pypi(name, version: table["version"]?.string)
            let sdist = table["sdist"]
            let wheels = table["wheels"]?.array ?? []
            let chosen = sdist ?? (wheels.count == 1 ? wheels.first : nil)
            let git = table["source"]?["git"]?.string
            packages.append(LockedPackage(
                purl: purl, hashes: chosen?["hash"]?.string.flatMap(PackageHash.prefixed).map { [$0] } ?? [],
                dependencies: Set(dependencies).sorted(), vcsURL: git.map { String($0.prefix { $0 != "?" && $0 != "#" }) },
                downloadURL: chosen?["url"]?.string
            ))
        }
        let hasProject = tables.contains(where: isProject)
        return LockFileContents(file: file, format: format, packages: packages, direct: hasProject ? direct.sorted() : nil)
    }
}
