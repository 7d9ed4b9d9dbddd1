import Foundation

/// Poetry's `poetry.lock`: `[[package]]` tables with `name`, `version`, `[package.dependencies]`
/// and the digests of every file of the release (`files`, or `[metadata.files]` before lock
/// format 2.0). The package's hash is its source distribution's (`.tar.gz`, `.zip`) SHA-256, or
/// its wheel's when it has only one; the others are one per platform, not the package's. Which
/// packages the project names is in `pyproject.toml`, read when it is beside the lock file.
package enum PoetryLock: LockFileReading {
    package static let format = "poetry.lock"

    package static func matches(path: String) -> Bool { fileName(path) == "poetry.lock" }

    package static func read(_ data: Data, file: String, siblings: [String: Data]) throws -> LockFileContents {
        let document = try LockFileTOML.parse(try text(data, file: file), file: file)
        let tables = document["package"]?.array?.compactMap(\.table) ?? []
        let oldFiles = document["metadata"]?["files"]?.table ?? [:]
        var byName: [String: PackageURL] = [:]
        for table in tables {
            guard let name = table["name"]?.string, let version = table["version"]?.string else {
                throw LockFileProblem(file: file, "a [[package]] has no name or version")
            }
            byName[PackageURL.normalisedPythonName(name)] = PackageURL.pypi(name, version: version)
        }
        var packages: [LockedPackage] = []
        for table in tables {
            guard let name = table["name"]?.string, let purl = byName[PackageURL.normalisedPythonName(name)] else { continue }
            let files = (table["files"]?.array ?? oldFiles[name]?.array ?? []).compactMap { entry -> (String, PackageHash)? in
                guard let fileName = entry["file"]?.string, let hash = entry["hash"]?.string.flatMap(PackageHash.prefixed) else { return nil }
                return (fileName, hash)
            }
            let sdist = files.first { $0.0.hasSuffix(".tar.gz") || $0.0.hasSuffix(".zip") || $0.0.hasSuffix(".tar.bz2") }
            let chosen = sdist ?? (files.count == 1 ? files.first : nil)
            let dependencies = (table["dependencies"]?.table ?? [:]).keys.compactMap { byName[PackageURL.normalisedPythonName($0)] }
            let source = table["source"]
            packages.append(LockedPackage(
                purl: purl, hashes: chosen.map { [$0.1] } ?? [], dependencies: Set(dependencies).sorted(),
                isDevelopment: table["category"]?.string == "dev",
                vcsURL: source?["type"]?.string == "git" ? source?["url"]?.string : nil
            ))
        }
        var direct: [PackageURL]?
        if let pyproject = siblings["pyproject.toml"].flatMap({ String(data: $0, encoding: .utf8) }),
           let project = try? LockFileTOML.parse(pyproject, file: "pyproject.toml") {
            var names = Array((project["tool"]?["poetry"]?["dependencies"]?.table ?? [:]).keys)
            names += (project["tool"]?["poetry"]?["group"]?.table ?? [:]).values.flatMap { ($0["dependencies"]?.table ?? [:]).keys }
            names += (project["tool"]?["poetry"]?["dev-dependencies"]?.table ?? [:]).keys
            names += (project["project"]?["dependencies"]?.array ?? []).compactMap(\.string).map(requirementName)
            direct = Set(names.compactMap { byName[PackageURL.normalisedPythonName($0)] }).sorted()
        }
        return LockFileContents(file: file, format: format, packages: packages, direct: direct)
    }

    /// The name at the start of a PEP 508 requirement (`requests[socks]>=2.0; python_version<"4"`).
    static func requirementName(_ requirement: String) -> String {
        String(requirement.prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." })
    }
}
