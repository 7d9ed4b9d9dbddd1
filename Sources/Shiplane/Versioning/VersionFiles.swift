import Foundation
internal import Git

/// Names a version file for a lane: by path (its format from the file name) or with a pattern.
public struct VersionFileReference: Sendable, ExpressibleByStringLiteral {
    enum Kind: Sendable {
        case path(String)
        case pattern(String, String, maxMatches: Int?)
    }

    let kind: Kind

    /// A file whose format follows from its name: `VERSION`, `package.json`, `Cargo.toml`,
    /// `pyproject.toml`, `*.podspec`, `*.xcconfig`, `project.pbxproj`, `Info.plist`, `*.swift`,
    /// `pubspec.yaml`, `app.json`, `app.config.js`, `build.gradle`, `build.gradle.kts`,
    /// `gradle.properties`, `libs.versions.toml`.
    public static func file(_ path: String) -> VersionFileReference { VersionFileReference(kind: .path(path)) }

    /// Any file, with a regular expression whose one capture group is the version. Every match
    /// is the version (they must agree, and a bump rewrites them all); `maxMatches: 1` takes only
    /// the first.
    public static func pattern(_ path: String, _ regularExpression: String, maxMatches: Int? = nil) -> VersionFileReference {
        VersionFileReference(kind: .pattern(path, regularExpression, maxMatches: maxMatches))
    }

    /// A file named by its path, its format from the name, as `file(_:)` does.
    public init(stringLiteral value: String) { kind = .path(value) }
    init(kind: Kind) { self.kind = kind }

    /// The file, with a format, relative to `root`.
    func resolve(root: String) throws -> VersionFile {
        switch kind {
        case .path(let path):
            let url = URL(fileURLWithPath: path.hasPrefix("/") ? path : root + "/" + path)
            guard let format = Self.format(forFileName: url.lastPathComponent) else {
                throw ValidationFailure(
                    problems: ["Shiplane does not know the version format of \(path)"],
                    suggestion: "name it with .pattern(\"\(path)\", #\"version = \"(.+)\"\"#): one capture group holding the version"
                )
            }
            return VersionFile(url: url, format: format, displayPath: path)
        case .pattern(let path, let expression, let maxMatches):
            let url = URL(fileURLWithPath: path.hasPrefix("/") ? path : root + "/" + path)
            return VersionFile(url: url, format: try PatternVersionFormat(pattern: expression, maxMatches: maxMatches), displayPath: path)
        }
    }

    static func format(forFileName name: String) -> (any VersionFormat)? {
        switch name {
        case "VERSION": return PlainVersionFormat()
        case "package.json": return PackageJSONVersionFormat()
        case "Cargo.toml": return CargoVersionFormat()
        case "pyproject.toml": return PyprojectVersionFormat()
        case "project.pbxproj": return XcodeProjectVersionFormat()
        case "Info.plist": return InfoPlistVersionFormat()
        case "pubspec.yaml": return FlutterPubspecVersionFormat()
        case "app.json": return ExpoAppJSONVersionFormat()
        case "app.config.js", "app.config.ts": return ExpoAppConfigVersionFormat(name: name)
        case "build.gradle": return GradleVersionFormat()
        case "build.gradle.kts": return GradleVersionFormat(kotlin: true)
        case "gradle.properties": return GradlePropertiesVersionFormat()
        case "libs.versions.toml": return GradleVersionCatalogFormat()
        default:
            if name.hasSuffix(".podspec") { return PodspecVersionFormat() }
            if name.hasSuffix(".xcconfig") { return XcconfigVersionFormat() }
            if name.hasSuffix(".swift") { return SwiftConstantVersionFormat() }
            if name.hasSuffix(".plist") { return InfoPlistVersionFormat() }
            return nil
        }
    }
}

extension LaneContext {
    /// Reads the version files — the ones named, or the ones detected in the repository — once
    /// each through this context's file system (so a dry run sees what earlier steps would have
    /// written), and checks that they agree.
    /// - Throws: `VersionFileError` when none is found, one cannot be read, or they disagree.
    func readVersion(_ references: [VersionFileReference]?) throws -> AgreedVersion {
        guard let references, !references.isEmpty else {
            // A monorepo's root has no version of its own: its packages do. Reading the files
            // found under it would read the packages' versions as one (app packages' Gradle
            // scripts and Xcode projects are found at any depth) and release them all as one
            // version; with no file, it would release the whole repository as `v0.1.0`.
            if package == nil, let packages = try? ProjectSettings.load(root: workingDirectory).packages, !packages.isEmpty {
                throw MonorepoRootError(packages: packages)
            }
            var found: VersionFileDetector.Search
            do {
                let folder = package.map { workingDirectory + "/" + $0.path } ?? workingDirectory
                let rules = (try? ProjectSettings.load(root: workingDirectory))?.bumpRules
                found = try VersionFileDetector.read(
                    in: URL(fileURLWithPath: folder), fileSystem: fileSystem, listedTargets: rules?.targets ?? [], independentModules: rules?.independent ?? []
                )
                if let package {
                    // Paths relative to the repository, as commits and messages name them.
                    found.sources = found.sources.map { source in
                        AgreedVersion.Source(
                            file: VersionFile(url: source.file.url, format: source.file.format, displayPath: package.path + "/" + source.file.displayPath),
                            bytes: source.bytes, reading: source.reading
                        )
                    }
                }
            } catch let error as VersionFileError where error.kind == .notFound {
                // No version file: the version lives in tags (Go, SwiftPM, Cargo workspaces).
                // Outside a repository, or before its first commit, there are no tags to ask.
                guard let repository = try? repository(), (try? git { try repository.head() }).map({ if case .unborn = $0 { false } else { true } }) == true else {
                    throw error
                }
                return try versionFromTags()
            }
            var agreed = try AgreedVersion.agree(found.sources, failures: found.unreadable.map(\.error))
            agreed.leftAlone = found.leftAlone
            agreed.ignored = found.ignored
            return agreed
        }
        var files: [VersionFile] = []
        var problems: [any Error] = []
        for reference in references {
            do { files.append(try reference.resolve(root: workingDirectory)) } catch { problems.append(error) }
        }
        if !problems.isEmpty {
            throw ShiplaneError("\(problems.count) version file\(problems.count == 1 ? "" : "s") cannot be used", underlying: problems)
        }
        return try AgreedVersion.read(files) { file in
            guard let data = try fileSystem.contents(of: file.url.path) else {
                throw VersionFileError(.fileSystem, "The version file does not exist", file: file.displayPath)
            }
            return data
        }
    }

    /// `path` relative to the working directory when it is inside it, else as given.
    func displayPath(_ path: String) -> String {
        let root = workingDirectory.hasSuffix("/") ? workingDirectory : workingDirectory + "/"
        return path.hasPrefix(root) ? String(path.dropFirst(root.count)) : path
    }
}

/// A version asked of a monorepo's root, which has none: each declared package has its own.
package struct MonorepoRootError: ReportableError {
    /// The packages `.shiplane.yml` declares.
    package let packages: [ProjectPackage]
    /// The command that was refused, as each package's command starts (`shiplane bump patch --commit --tag`).
    package var command: String

    /// The error for `packages`; `command` is the refused command line without `--package`.
    package init(packages: [ProjectPackage], command: String = "shiplane bump patch") {
        self.packages = packages
        self.command = command
    }

    /// A usage mistake: the command needs a package.
    package var category: ErrorCategory { .usage }

    /// Says that the root has no version and names the packages.
    package var message: String {
        "This repository declares \(packages.count) package\(packages.count == 1 ? "" : "s") (\(packages.map(\.name).joined(separator: ", "))) and has no version of its own at the root"
    }

    /// Each package with its folder and the command that bumps it.
    package var info: [(key: String, value: String)] {
        packages.map { (key: "\($0.name) (\($0.path)/)", value: "\(command) --package \($0.name)") }
    }

    /// How to name one, or all.
    package var suggestion: String? {
        let first = packages.first?.name ?? "NAME"
        return "Bump one package with its command above, or each in turn, each with its own commit and tag: \(command) --all"
            + " (in lanes: `try lane.package(\"\(first)\")`)"
    }
}
