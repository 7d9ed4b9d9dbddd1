import Foundation

/// SwiftPM's `Package.resolved`, versions 1 (`object.pins[].repositoryURL`), 2 and 3
/// (`pins[].identity`, `location`, `kind`). It pins versions and commits but says nothing of
/// which package needs which.
package enum SwiftPackageResolved: LockFileReading {
    package static let format = "Package.resolved"

    package static func matches(path: String) -> Bool { fileName(path) == "Package.resolved" }

    package static func read(_ data: Data, file: String, siblings: [String: Data]) throws -> LockFileContents {
        let root = try jsonObject(data, file: file)
        let version = root["version"] as? Int ?? 0
        let pins: [[String: Any]]
        switch version {
        case 1:
            guard let object = root["object"] as? [String: Any], let list = object["pins"] as? [[String: Any]] else {
                throw LockFileProblem(file: file, "a version 1 file has no object.pins list")
            }
            pins = list
        case 2, 3:
            guard let list = root["pins"] as? [[String: Any]] else { throw LockFileProblem(file: file, "a version \(version) file has no pins list") }
            pins = list
        default:
            throw LockFileProblem(file: file, "its version \(root["version"].map { "\($0)" } ?? "(none)") is not 1, 2 or 3")
        }
        var packages: [LockedPackage] = []
        for pin in pins {
            let location = (pin["location"] ?? pin["repositoryURL"]) as? String ?? ""
            let identity = (pin["identity"] ?? pin["package"]) as? String ?? ""
            let state = pin["state"] as? [String: Any] ?? [:]
            let pinned = (state["version"] as? String) ?? (state["revision"] as? String)
            if pin["kind"] as? String == "registry" {
                // A registry identity is `scope.name`.
                let parts = identity.split(separator: ".", maxSplits: 1).map(String.init)
                packages.append(LockedPackage(purl: PackageURL(type: "swift", namespace: parts.count == 2 ? parts[0] : nil, name: parts.last ?? identity, version: pinned)))
                continue
            }
            if pin["kind"] as? String == "localSourceControl" || location.hasPrefix("/") { continue }
            guard let (namespace, name) = hostAndPath(of: location) else {
                throw LockFileProblem(file: file, "the pin \(identity) has no repository location it can be named by")
            }
            packages.append(LockedPackage(purl: PackageURL(type: "swift", namespace: namespace, name: name, version: pinned), vcsURL: location))
        }
        return LockFileContents(file: file, format: "\(format) v\(version)", packages: packages, direct: nil)
    }

    /// `github.com/apple` and `swift-nio` from `https://github.com/apple/swift-nio.git` or `git@github.com:apple/swift-nio.git`.
    static func hostAndPath(of location: String) -> (String, String)? {
        var rest = location
        if let scheme = rest.range(of: "://") {
            rest = String(rest[scheme.upperBound...])
            if let at = rest.firstIndex(of: "@"), at < (rest.firstIndex(of: "/") ?? rest.endIndex) { rest = String(rest[rest.index(after: at)...]) }
        } else if let at = rest.firstIndex(of: "@"), let colon = rest.firstIndex(of: ":"), at < colon {
            rest = String(rest[rest.index(after: at)...]).replacingOccurrences(of: ":", with: "/")
        }
        if rest.hasSuffix(".git") { rest.removeLast(4) }
        while rest.hasSuffix("/") { rest.removeLast() }
        var parts = rest.split(separator: "/").map(String.init)
        if let host = parts.first, let colon = host.firstIndex(of: ":") { parts[0] = String(host[..<colon]) }
        guard parts.count >= 2, let name = parts.last else { return nil }
        return (([parts[0].lowercased()] + parts.dropFirst().dropLast()).joined(separator: "/"), name)
    }
}
