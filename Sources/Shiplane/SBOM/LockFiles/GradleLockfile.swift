import Foundation

/// Gradle's dependency lock state: `gradle.lockfile` (one per project, Gradle 6 and later) and the
/// older `gradle/dependency-locks/<configuration>.lockfile`: `group:name:version=configurations`
/// lines. It pins versions but records neither hashes nor which module needs which (those are in
/// `gradle/verification-metadata.xml` and Gradle's resolution). A module only in test
/// configurations is a development dependency.
package enum GradleLockfile: LockFileReading {
    package static let format = "gradle.lockfile"

    package static func matches(path: String) -> Bool {
        fileName(path) == "gradle.lockfile" || (path.contains("dependency-locks/") && path.hasSuffix(".lockfile"))
    }

    package static func read(_ data: Data, file: String, siblings: [String: Data]) throws -> LockFileContents {
        var packages: [LockedPackage] = []
        for (number, rawLine) in try text(data, file: file).components(separatedBy: "\n").enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix("empty=") { continue }
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            let coordinates = parts[0].split(separator: ":").map(String.init)
            guard coordinates.count == 3 else {
                throw LockFileProblem(file: file, line: number + 1, "`\(parts[0])` is not group:name:version")
            }
            let configurations = parts.count == 2 ? parts[1].split(separator: ",").map(String.init) : []
            let testOnly = !configurations.isEmpty && configurations.allSatisfy { $0.lowercased().contains("test") }
            packages.append(LockedPackage(
                purl: PackageURL(type: "maven", namespace: coordinates[0], name: coordinates[1], version: coordinates[2]),
                isDevelopment: testOnly
            ))
        }
        return LockFileContents(file: file, format: format, packages: packages, direct: nil)
    }
}
