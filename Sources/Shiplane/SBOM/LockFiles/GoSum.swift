import Foundation

/// Go's `go.sum`: `module version h1:<base64>` for each module whose code the build downloaded,
/// and `module version/go.mod h1:…` for modules whose `go.mod` alone was read (those are not
/// part of the build and are left out). `h1:` is Go's directory hash: a SHA-256 over the sorted
/// list of the module's files and their SHA-256 digests, reported as the module's SHA-256. The
/// `go.mod` beside it says which modules the project requires directly (those without
/// `// indirect`); go.sum does not say which module needs which.
package enum GoSum: LockFileReading {
    package static let format = "go.sum"

    package static func matches(path: String) -> Bool { fileName(path) == "go.sum" }

    package static func read(_ data: Data, file: String, siblings: [String: Data]) throws -> LockFileContents {
        var byPurl: [PackageURL: LockedPackage] = [:]
        for (number, line) in try text(data, file: file).components(separatedBy: "\n").enumerated() {
            let words = line.split(separator: " ").map(String.init)
            if words.isEmpty { continue }
            guard words.count == 3, words[2].hasPrefix("h1:") || words[2].contains(":") else {
                throw LockFileProblem(file: file, line: number + 1, "a line is not `module version h1:hash`")
            }
            if words[1].hasSuffix("/go.mod") { continue }
            let purl = PackageURL.golang(words[0], version: words[1])
            var hashes: [PackageHash] = []
            if words[2].hasPrefix("h1:"), let bytes = Data(base64Encoded: String(words[2].dropFirst(3))), let hash = PackageHash(.sha256, bytes: bytes) {
                hashes = [hash]
            }
            byPurl[purl] = LockedPackage(purl: purl, hashes: hashes)
        }
        var direct: [PackageURL]?
        if let goMod = siblings["go.mod"].flatMap({ String(data: $0, encoding: .utf8) }) {
            direct = requiredModules(goMod).filter { !$0.indirect }.map { PackageURL.golang($0.module, version: $0.version) }.filter { byPurl[$0] != nil }
        }
        return LockFileContents(file: file, format: format, packages: Array(byPurl.values), direct: direct?.sorted())
    }

    /// The `require` lines of a go.mod, one-line and block form.
    static func requiredModules(_ text: String) -> [(module: String, version: String, indirect: Bool)] {
        var result: [(String, String, Bool)] = []
        var inBlock = false
        for rawLine in text.components(separatedBy: "\n") {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if inBlock {
                if line.hasPrefix(")") { inBlock = false; continue }
                let words = line.split(separator: " ").map(String.init)
                if words.count >= 2, !words[0].hasPrefix("//") { result.append((words[0], words[1], line.contains("// indirect"))) }
            } else if line.hasPrefix("require (") || line == "require(" {
                inBlock = true
            } else if line.hasPrefix("require ") {
                let words = line.split(separator: " ").map(String.init)
                if words.count >= 3 { result.append((words[1], words[2], line.contains("// indirect"))) }
            }
        }
        return result
    }
}
