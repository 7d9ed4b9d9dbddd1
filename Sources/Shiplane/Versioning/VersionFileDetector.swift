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
    public static func detect(in root: URL, fileManager: FileManager = .default) throws -> [VersionFile] {
        let root = root.standardizedFileURL
        var candidates: [(URL, any VersionFormat)] = []
        let rootFiles = contents(of: root, fileManager)
        for url in rootFiles {
            let name = url.lastPathComponent
            switch name {
            case "VERSION": candidates.append((url, PlainVersionFormat()))
            case "package.json": candidates.append((url, PackageJSONVersionFormat()))
            case "Cargo.toml": candidates.append((url, CargoVersionFormat()))
            case "pyproject.toml": candidates.append((url, PyprojectVersionFormat()))
            default:
                if name.hasSuffix(".podspec") { candidates.append((url, PodspecVersionFormat())) }
                if name.hasSuffix(".xcconfig") { candidates.append((url, XcconfigVersionFormat())) }
                if name.hasSuffix(".xcodeproj") {
                    let project = url.appendingPathComponent("project.pbxproj")
                    if isFile(project, fileManager) { candidates.append((project, XcodeProjectVersionFormat())) }
                }
            }
        }
        for plist in infoPlists(in: root, depth: 0, fileManager) {
            candidates.append((plist, InfoPlistVersionFormat()))
        }
        for folder in contents(of: root.appendingPathComponent("Sources"), fileManager) where isDirectory(folder, fileManager) {
            let file = folder.appendingPathComponent("Version.swift")
            if isFile(file, fileManager) { candidates.append((file, SwiftConstantVersionFormat())) }
        }

        var found: [VersionFile] = []
        var skipped: [(key: String, value: String)] = []
        for (url, format) in candidates where isFile(url, fileManager) {
            let file = VersionFile(url: url, format: format, displayPath: relativePath(of: url, to: root))
            do {
                _ = try file.read()
                found.append(file)
            } catch let error as VersionFileError where error.kind == .notASource {
                skipped.append((key: "skipped \(file.displayPath)", value: error.message))
            } catch {
                found.append(file)
            }
        }
        guard !found.isEmpty else {
            throw VersionFileError(
                .notFound,
                "No version file found in \(root.path)",
                details: searchedLocations.map { (key: "looked for", value: $0) } + skipped,
                suggestion: "Create a VERSION file holding the current version (for example 0.1.0), or configure a version file and pattern"
            )
        }
        return found.sorted { $0.displayPath < $1.displayPath }
    }

    /// `url`'s path below `root`, or its full path when it is elsewhere.
    public static func relativePath(of url: URL, to root: URL) -> String {
        let rootPath = root.standardizedFileURL.resolvingSymlinksInPath().path
        let path = url.standardizedFileURL.resolvingSymlinksInPath().path
        let prefix = rootPath.hasSuffix("/") ? rootPath : rootPath + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    // MARK: - File system

    private static func infoPlists(in folder: URL, depth: Int, _ fileManager: FileManager) -> [URL] {
        var result: [URL] = []
        for url in contents(of: folder, fileManager) {
            if url.lastPathComponent == "Info.plist", isFile(url, fileManager) {
                result.append(url)
            } else if depth < 2, !skippedFolders.contains(url.lastPathComponent), isDirectory(url, fileManager) {
                result += infoPlists(in: url, depth: depth + 1, fileManager)
            }
        }
        return result
    }

    private static func contents(of folder: URL, _ fileManager: FileManager) -> [URL] {
        let urls = (try? fileManager.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
        return urls.sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    private static func isDirectory(_ url: URL, _ fileManager: FileManager) -> Bool {
        var isDirectory: ObjCBool = false
        return fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    private static func isFile(_ url: URL, _ fileManager: FileManager) -> Bool {
        var isDirectory: ObjCBool = false
        return fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }
}
