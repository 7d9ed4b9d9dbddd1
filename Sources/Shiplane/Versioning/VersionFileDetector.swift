import Foundation

/// Finds the files that hold a project's version, for use without configuration.
package enum VersionFileDetector {
    /// Folders never searched: dependencies, build output, generated Flutter files.
    package static let skippedFolders: Set<String> = [
        ".build", "node_modules", "Pods", ".git", "DerivedData", "Carthage", "build", "vendor", "ephemeral", ".gradle", ".dart_tool",
    ]

    /// How deep the search for Xcode projects, xcconfigs and Gradle scripts goes.
    static let maximumDepth = 8

    /// Every file or pattern `detect(in:)` looks for, relative to the root, for messages.
    package static let searchedLocations = [
        "VERSION",
        "package.json",
        "Cargo.toml",
        "pyproject.toml",
        "*.podspec",
        "pubspec.yaml (Flutter: version: 1.2.3+45)",
        "app.json, app.config.js, app.config.ts (Expo: version, ios.buildNumber, android.versionCode)",
        "**/*.xcodeproj/project.pbxproj (MARKETING_VERSION, CURRENT_PROJECT_VERSION in the app's targets)",
        "**/*.xcconfig",
        "project.yml and the files it includes (XcodeGen: MARKETING_VERSION, CURRENT_PROJECT_VERSION in settings)",
        "Info.plist, */Info.plist, */*/Info.plist, and each app target's INFOPLIST_FILE",
        "**/build.gradle, **/build.gradle.kts (versionName, versionCode), **/gradle.properties, gradle/libs.versions.toml",
        "Sources/*/Version.swift",
        "(skipping \(skippedFolders.sorted().joined(separator: ", ")))",
    ]

    /// What a search found: the version sources, the files that could not be read, and the
    /// Xcode targets whose own version was left alone.
    package struct Search: Sendable {
        /// The version files read, sorted by path.
        package var sources: [AgreedVersion.Source]
        /// Files that should hold a version but could not be read, each with why.
        package var unreadable: [(file: VersionFile, error: any Error)]
        /// Targets with a version of their own that a release does not move, named with it.
        package var leftAlone: [String]
        /// Files not read although they look like version files, each named with why.
        package var ignored: [String] = []
    }

    /// The version files in `root`, sorted by path.
    ///
    /// Looks at the root for `VERSION`, `package.json`, `Cargo.toml`, `pyproject.toml`,
    /// `*.podspec`, `pubspec.yaml`, `app.json` and `app.config.*`; at any depth (skipping
    /// `skippedFolders`) for Xcode projects, `.xcconfig` files and Gradle scripts; for
    /// `Info.plist` files at most two folders down and wherever an app target's
    /// `INFOPLIST_FILE` says; and for `Sources/*/Version.swift`. A file of a known format that
    /// holds no version of its own is skipped; a file that cannot be read is kept so that
    /// reading it reports the problem.
    /// - Throws: `VersionFileError.notFound` naming everything looked for and everything skipped.
    package static func detect(in root: URL, fileSystem: any FileSystem = LiveFileSystem()) throws -> [VersionFile] {
        let found = try read(in: root, fileSystem: fileSystem)
        // A file read as a source can also carry a problem (a reference nothing sets): list it once.
        var seen: Set<String> = []
        return (found.sources.map(\.file) + found.unreadable.map(\.file))
            .filter { seen.insert($0.url.standardizedFileURL.path).inserted }
            .sorted { $0.displayPath < $1.displayPath }
    }

    /// Finds the version files in `root` and reads each one through `fileSystem` (in a dry
    /// run, an overlay): the sources with their bytes, the files that could not be read, and
    /// the targets left alone. `listedTargets` are Xcode targets whose own version moves with
    /// the app's (`versions.targets` in `.shiplane.yml`); `independentModules` are Gradle module
    /// folders with a release of their own (`versions.independent`), never read.
    /// - Throws: `VersionFileError.notFound` as `detect(in:)` does when the project has no
    ///   version file at all; `.missingVersion` when the project is an app (an Xcode project, an
    ///   Android app, a Flutter or Expo app) whose version is not found, or a value refers to a
    ///   setting that nothing sets.
    package static func read(in root: URL, fileSystem: any FileSystem, listedTargets: Set<String> = [], independentModules: Set<String> = []) throws -> Search {
        let root = root.standardizedFileURL
        let tree = ProjectTree(root: root, fileSystem: fileSystem)
        var search = VersionSourceSearch(root: root, fileSystem: fileSystem, tree: tree, listedTargets: listedTargets, independentModules: independentModules)
        return try search.run()
    }

    /// Where `url` leads when it is a symbolic link (or lies under one) resolving outside `root`.
    static func linkLeaving(_ root: URL, _ url: URL) -> String? {
        LinkGuard.destinationOutside(root.path, of: url.path)
    }

    /// `url`'s path below `root`, or its full path when it is elsewhere.
    package static func relativePath(of url: URL, to root: URL) -> String {
        let rootPath = root.standardizedFileURL.resolvingSymlinksInPath().path
        let path = url.standardizedFileURL.resolvingSymlinksInPath().path
        let prefix = rootPath.hasSuffix("/") ? rootPath : rootPath + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}

/// The files of a project that can hold versions, found in one walk of its folders.
struct ProjectTree {
    var xcodeProjects: [URL] = []
    var xcconfigs: [URL] = []
    var gradleScripts: [URL] = []
    var gradleProperties: [URL] = []
    var versionCatalogs: [URL] = []
    var shallowInfoPlists: [URL] = []

    init(root: URL, fileSystem: any FileSystem) {
        walk(root, depth: 0, fileSystem)
    }

    private mutating func walk(_ folder: URL, depth: Int, _ fileSystem: any FileSystem) {
        for name in (try? fileSystem.list(folder.path)) ?? [] {
            let url = folder.appendingPathComponent(name)
            let isFolder = fileSystem.isFolder(url.path)
            if isFolder {
                // A submodule, a nested clone or a linked worktree is another project: not searched.
                if OtherProjects.isRepository(url.path, fileSystem: fileSystem) { continue }
                if name.hasSuffix(".xcodeproj") {
                    xcodeProjects.append(url)
                } else if !VersionFileDetector.skippedFolders.contains(name), !name.hasSuffix(".xcassets"), !name.hasSuffix(".lproj"),
                          depth < VersionFileDetector.maximumDepth {
                    walk(url, depth: depth + 1, fileSystem)
                }
                continue
            }
            switch name {
            case "Info.plist" where depth <= 2: shallowInfoPlists.append(url)
            case "build.gradle", "build.gradle.kts": gradleScripts.append(url)
            case "gradle.properties": gradleProperties.append(url)
            case "libs.versions.toml": versionCatalogs.append(url)
            default:
                // Flutter writes Generated.xcconfig from pubspec.yaml: the value lives there.
                if name.hasSuffix(".xcconfig"), name != "Generated.xcconfig", !name.hasPrefix("Pods-") { xcconfigs.append(url) }
            }
        }
    }
}
