import Foundation

/// Finds the files that hold a project's version, for use without configuration.
public enum VersionFileDetector {
    /// Folders never searched for Info.plist files.
    public static let skippedFolders: Set<String> = [".build", "node_modules", "Pods", ".git", "DerivedData"]

    /// Every file or pattern `detect(in:)` looks for, relative to the root, for messages.
    public static let searchedLocations = [
        "VERSION",
        "package.json",
        "Cargo.toml",
        "pyproject.toml",
        "*.podspec",
        "*.xcconfig",
        "*.xcodeproj/project.pbxproj",
        "Info.plist, */Info.plist, */*/Info.plist (skipping \(skippedFolders.sorted().joined(separator: ", ")))",
        "Sources/*/Version.swift",
    ]

    /// The version files in `root`, sorted by path.
    ///
    /// Looks at the root for `VERSION`, `package.json`, `Cargo.toml`, `pyproject.toml`,
    /// `*.podspec`, `*.xcconfig` and `*.xcodeproj/project.pbxproj`, for `Info.plist` files at
    /// most two folders down, and for `Sources/*/Version.swift`. A file of a known format that
    /// holds no version of its own (an xcconfig without `MARKETING_VERSION`, a Cargo.toml with
    /// `version.workspace = true`) is skipped; a file that cannot be read is kept so that reading
    /// it reports the problem.
    /// - Throws: `VersionFileError.notFound` naming everything looked for and everything skipped.
    public static func detect(in root: URL, fileSystem: any FileSystem = LiveFileSystem()) throws -> [VersionFile] {
        let found = try read(in: root, fileSystem: fileSystem)
        return (found.sources.map(\.file) + found.unreadable.map(\.file)).sorted { $0.displayPath < $1.displayPath }
    }

    /// Finds the version files in `root` and reads each one once, through `fileSystem` (in a dry
    /// run, an overlay): the sources with their bytes, and the files that could not be read.
    /// - Throws: `VersionFileError.notFound` as `detect(in:)` does.
    public static func read(
        in root: URL, fileSystem: any FileSystem
    ) throws -> (sources: [AgreedVersion.Source], unreadable: [(file: VersionFile, error: any Error)]) {
        let root = root.standardizedFileURL
        var candidates: [(URL, any VersionFormat)] = []
        for name in list(root, fileSystem) {
            let url = root.appendingPathComponent(name)
            switch name {
            case "VERSION": candidates.append((url, PlainVersionFormat()))
            case "package.json": candidates.append((url, PackageJSONVersionFormat()))
            case "Cargo.toml": candidates.append((url, CargoVersionFormat()))
            case "pyproject.toml": candidates.append((url, PyprojectVersionFormat()))
            default:
                if name.hasSuffix(".podspec") { candidates.append((url, PodspecVersionFormat())) }
                if name.hasSuffix(".xcconfig") { candidates.append((url, XcconfigVersionFormat())) }
                if name.hasSuffix(".xcodeproj") {
                    candidates.append((url.appendingPathComponent("project.pbxproj"), XcodeProjectVersionFormat()))
                }
            }
        }
        for plist in infoPlists(in: root, depth: 0, fileSystem) {
            candidates.append((plist, InfoPlistVersionFormat()))
        }
        let sources = root.appendingPathComponent("Sources")
        for name in list(sources, fileSystem) where fileSystem.isFolder(sources.appendingPathComponent(name).path) {
            candidates.append((sources.appendingPathComponent(name).appendingPathComponent("Version.swift"), SwiftConstantVersionFormat()))
        }

        var found: [AgreedVersion.Source] = []
        var unreadable: [(file: VersionFile, error: any Error)] = []
        var skipped: [(key: String, value: String)] = []
        for (url, format) in candidates where fileSystem.kind(of: url.path).map({ $0 != .folder }) ?? false {
            let file = VersionFile(url: url, format: format, displayPath: relativePath(of: url, to: root))
            if let target = linkLeaving(root, url) {
                unreadable.append((file, VersionFileError(
                    .fileSystem, "\(file.displayPath) is a symbolic link to \(target), outside the repository",
                    suggestion: "Shiplane only writes inside the repository: replace the link with the file itself"
                )))
                continue
            }
            do {
                guard let bytes = try fileSystem.contents(of: url.path) else { continue }
                found.append(try AgreedVersion.Source(file: file, bytes: bytes))
            } catch let error as VersionFileError where error.kind == .notASource {
                skipped.append((key: "skipped \(file.displayPath)", value: error.message))
            } catch {
                unreadable.append((file, error))
            }
        }
        guard !found.isEmpty || !unreadable.isEmpty else {
            throw VersionFileError(
                .notFound,
                "No version file found in \(root.path)",
                details: searchedLocations.map { (key: "looked for", value: $0) } + skipped,
                suggestion: "Create a VERSION file holding the current version (for example 0.1.0), or configure a version file and pattern"
            )
        }
        return (found.sorted { $0.file.displayPath < $1.file.displayPath }, unreadable)
    }

    /// Where `url` leads when it is a symbolic link (or lies under one) resolving outside `root`.
    static func linkLeaving(_ root: URL, _ url: URL) -> String? {
        LinkGuard.destinationOutside(root.path, of: url.path)
    }

    /// `url`'s path below `root`, or its full path when it is elsewhere.
    public static func relativePath(of url: URL, to root: URL) -> String {
        let rootPath = root.standardizedFileURL.resolvingSymlinksInPath().path
        let path = url.standardizedFileURL.resolvingSymlinksInPath().path
        let prefix = rootPath.hasSuffix("/") ? rootPath : rootPath + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    // MARK: - File system

    private static func infoPlists(in folder: URL, depth: Int, _ fileSystem: any FileSystem) -> [URL] {
        var result: [URL] = []
        for name in list(folder, fileSystem) {
            let url = folder.appendingPathComponent(name)
            if name == "Info.plist", !fileSystem.isFolder(url.path) {
                result.append(url)
            } else if depth < 2, !skippedFolders.contains(name), fileSystem.isFolder(url.path) {
                result += infoPlists(in: url, depth: depth + 1, fileSystem)
            }
        }
        return result
    }

    private static func list(_ folder: URL, _ fileSystem: any FileSystem) -> [String] {
        (try? fileSystem.list(folder.path)) ?? []
    }
}
