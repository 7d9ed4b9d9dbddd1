import Foundation

extension VersionBump: ExpressibleByArgument {
    public var defaultValueDescription: String { description }
}

/// Moves the version in every version file: major, minor, patch, auto (from the commits since
/// the last release tag), a prerelease, release, or an exact version.
///
/// Every file is rewritten in place with every other byte kept, atomically, with its undo in the
/// journal. The files must agree before the bump; if not, the error lists each file and version.
public struct BumpVersion: Action {
    public static let name = "bumpVersion"
    public var bump: VersionBump
    public var files: [VersionFileReference]?

    public init(_ bump: VersionBump, files: [VersionFileReference]? = nil) {
        self.bump = bump
        self.files = files
    }

    public var options: [StepOption] { [StepOption("bump", bump.description)] }

    /// Returns the new version.
    public func run(in step: StepContext) throws -> SemanticVersion {
        let lane = step.lane
        let files = try lane.versionFiles(self.files)
        let current = try lane.agreedVersion(of: files)
        let next = try bump.apply(to: current.version) {
            try lane.releaseLevelSinceLastTag(currentVersion: current.version)
        }
        var changed: [String] = []
        for source in current.sources where source.reading.version.literal != nil {
            let path = source.file.url.path
            guard let original = try lane.fileSystem.contents(of: path) else { continue }
            let updated = try source.file.rewritten(original, version: next, build: nil)
            guard updated != original else { continue }
            try step.writeFile(updated, to: path, describedAs: source.file.displayPath)
            lane.state.recordReleaseFile(path)
            changed.append(source.file.displayPath)
        }
        step.note("\(current.version) → \(next)" + (changed.isEmpty ? "" : " (\(changed.joined(separator: ", ")))"))
        for delegated in current.delegated {
            step.log("\(delegated.displayPath) takes its version from build settings; left as it is")
        }
        return next
    }
}

/// Reads the version the version files agree on.
public struct CurrentVersion: Action {
    public static let name = "version"
    public var files: [VersionFileReference]?

    public init(files: [VersionFileReference]? = nil) {
        self.files = files
    }

    public func run(in step: StepContext) throws -> SemanticVersion {
        let agreed = try step.lane.agreedVersion(of: try step.lane.versionFiles(files))
        step.note(agreed.version.description + (agreed.build.map { " (\($0))" } ?? ""))
        return agreed.version
    }
}

extension LaneContext {
    /// Bumps the version in every version file (detected, or those named) and returns it.
    @discardableResult
    public func bumpVersion(
        _ bump: VersionBump, files: [VersionFileReference]? = nil, file: String = #fileID, line: Int = #line
    ) throws -> SemanticVersion {
        try run(BumpVersion(bump, files: files), file: file, line: line)
    }

    /// The version the version files agree on (after any bump earlier in this run).
    public func version(files: [VersionFileReference]? = nil, file: String = #fileID, line: Int = #line) throws -> SemanticVersion {
        try run(CurrentVersion(files: files), file: file, line: line)
    }
}
