import Foundation

/// CocoaPods' `Podfile.lock` (YAML): `PODS` with each pod's version and dependencies (a subspec
/// `Firebase/Analytics` is the subpath of `pkg:cocoapods/Firebase`), `DEPENDENCIES` from the
/// Podfile, and `EXTERNAL SOURCES` for pods from a git repository.
///
/// `SPEC CHECKSUMS` are digests of each pod's podspec, not of what was downloaded, so they are
/// not reported as the package's hash.
package enum PodfileLock: LockFileReading {
    package static let format = "Podfile.lock"

    package static func matches(path: String) -> Bool { fileName(path) == "Podfile.lock" }

    package static func read(_ data: Data, file: String, siblings: [String: Data]) throws -> LockFileContents {
        let root = try yamlMapping(data, file: file)
        guard let pods = root["PODS"] as? [Any] else { throw LockFileProblem(file: file, "it has no PODS list") }
        var entries: [(name: String, version: String, dependencies: [String])] = []
        for pod in pods {
            if let text = pod as? String, let (name, version) = nameAndVersion(text) {
                entries.append((name, version ?? "", []))
            } else if let mapping = pod as? [String: Any], let (key, value) = mapping.first, let (name, version) = nameAndVersion(key) {
                let dependencies = (value as? [Any] ?? []).compactMap { ($0 as? String).flatMap(nameAndVersion)?.0 }
                entries.append((name, version ?? "", dependencies))
            } else {
                throw LockFileProblem(file: file, "a PODS entry is not `Name (version)`")
            }
        }
        var versions: [String: String] = [:]
        for entry in entries { versions[entry.name] = entry.version }
        let external = root["EXTERNAL SOURCES"] as? [String: Any] ?? [:]
        func podURL(_ name: String) -> PackageURL? {
            guard let version = versions[name] else { return nil }
            let parts = name.split(separator: "/", maxSplits: 1).map(String.init)
            return PackageURL(type: "cocoapods", name: parts[0], version: version, subpath: parts.count == 2 ? parts[1] : nil)
        }
        let packages = entries.compactMap { entry -> LockedPackage? in
            guard let purl = podURL(entry.name) else { return nil }
            let base = String(entry.name.split(separator: "/").first ?? "")
            let git = (external[base] as? [String: Any])?[":git"] as? String
            return LockedPackage(purl: purl, dependencies: Set(entry.dependencies.compactMap(podURL)).sorted(), vcsURL: git)
        }
        let direct = (root["DEPENDENCIES"] as? [Any] ?? []).compactMap { ($0 as? String).flatMap(nameAndVersion)?.0 }.compactMap(podURL)
        return LockFileContents(file: file, format: format, packages: packages, direct: Set(direct).sorted())
    }

    /// `Alamofire (5.6.4)` → ("Alamofire", "5.6.4"); `Firebase/Core` → ("Firebase/Core", nil).
    private static func nameAndVersion(_ text: String) -> (String, String?)? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let name = trimmed.split(separator: " ").first else { return nil }
        guard let open = trimmed.firstIndex(of: "("), let close = trimmed.lastIndex(of: ")"), open < close else { return (String(name), nil) }
        return (String(name), String(trimmed[trimmed.index(after: open)..<close]))
    }
}
