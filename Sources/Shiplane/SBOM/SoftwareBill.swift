import Foundation

/// What a release is made of: the project, the packages its lock files pin (one entry per
/// package URL, merged across lock files), the dependency graph where the lock files give it,
/// and the files the release ships. Written as CycloneDX or SPDX.
package struct SoftwareBill: Sendable {
    /// One package, merged from every lock file that pins it.
    package struct Component: Sendable {
        package var package: LockedPackage
        /// The lock files that pin it, sorted.
        package var lockFiles: [String]
    }

    /// A file the release ships, named by its file name.
    package struct File: Sendable {
        package var name: String
        package var sha256: String
    }

    package var projectName: String
    package var projectVersion: String?
    /// Sorted by package URL.
    package var components: [Component]
    /// What the project uses, as far as the lock files say; where one does not say, each of its packages.
    package var direct: [PackageURL]
    package var files: [File]
    /// The document's time: the commit's, or `SOURCE_DATE_EPOCH`.
    package var timestamp: Date
    /// The lock files read, with their formats, sorted by path.
    package var lockFiles: [(file: String, format: String)]

    /// Merges what lock files say into one bill.
    package init(projectName: String, projectVersion: String?, lockFiles contents: [LockFileContents], files: [File], timestamp: Date) {
        self.projectName = projectName
        self.projectVersion = projectVersion
        self.files = files.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        self.timestamp = timestamp
        self.lockFiles = contents.map { ($0.file, $0.format) }.sorted { $0.0 < $1.0 }

        // A version catalog asks for versions; a Gradle lock file says what was resolved.
        let locked = Set(contents.filter { $0.format != GradleVersionCatalog.format }.flatMap { $0.packages.map(\.purl.unversioned) })
        var merged: [String: Component] = [:]
        var direct: Set<PackageURL> = []
        for content in contents {
            let packages = content.format == GradleVersionCatalog.format
                ? content.packages.filter { !locked.contains($0.purl.unversioned) } : content.packages
            for package in packages {
                let key = package.purl.description
                guard var existing = merged[key] else {
                    merged[key] = Component(package: package, lockFiles: [content.file])
                    continue
                }
                existing.package.hashes = Array(Set(existing.package.hashes + package.hashes))
                    .sorted { ($0.algorithm.rawValue, $0.hex) < ($1.algorithm.rawValue, $1.hex) }
                if let more = package.dependencies {
                    existing.package.dependencies = Array(Set((existing.package.dependencies ?? []) + more)).sorted()
                }
                existing.package.isDevelopment = existing.package.isDevelopment && package.isDevelopment
                existing.package.vcsURL = existing.package.vcsURL ?? package.vcsURL
                existing.package.downloadURL = existing.package.downloadURL ?? package.downloadURL
                existing.lockFiles = Array(Set(existing.lockFiles + [content.file])).sorted()
                merged[key] = existing
            }
            if let named = content.direct {
                direct.formUnion(named)
            } else {
                // Where the file has a graph, its roots; where it has none, every package it pins.
                let needed = Set(packages.flatMap { $0.dependencies ?? [] })
                direct.formUnion(packages.map(\.purl).filter { !needed.contains($0) })
            }
        }
        components = merged.values.sorted { $0.package.purl < $1.package.purl }
        let known = Set(components.map(\.package.purl))
        self.direct = direct.filter { known.contains($0) }.sorted()
    }
}
