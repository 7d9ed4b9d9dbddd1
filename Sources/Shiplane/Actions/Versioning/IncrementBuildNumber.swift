import Foundation

/// How the build number changes.
public enum BuildNumberChange: Sendable, Equatable, CustomStringConvertible {
    /// The current build number plus one (the last dotted part).
    case increment
    /// Exactly this value (digits and dots).
    case set(String)
    /// From the CI's run number: `GITHUB_RUN_NUMBER`, `BUILD_NUMBER`, `CI_PIPELINE_IID`, ...
    case fromCI
    /// The number of commits reachable from HEAD.
    case commitCount

    public var description: String {
        switch self {
        case .increment: "increment"
        case .set(let value): value
        case .fromCI: "from CI"
        case .commitCount: "commit count"
        }
    }
}

/// Changes the build number in every version file that has one (Info.plist `CFBundleVersion`,
/// pbxproj and xcconfig `CURRENT_PROJECT_VERSION`).
public struct IncrementBuildNumber: Action {
    public static let name = "incrementBuildNumber"
    public var change: BuildNumberChange
    public var files: [VersionFileReference]?

    public init(_ change: BuildNumberChange = .increment, files: [VersionFileReference]? = nil) {
        self.change = change
        self.files = files
    }

    public var options: [StepOption] { [StepOption("change", change.description)] }

    /// Returns the new build number.
    public func run(in step: StepContext) throws -> String {
        let lane = step.lane
        let files = try lane.versionFiles(self.files)
        let current = try lane.agreedVersion(of: files)
        let holders = current.sources.filter { $0.reading.build?.literal != nil }
        guard !holders.isEmpty else {
            throw ShiplaneError(
                "no version file holds a build number",
                info: [("version files", files.map(\.displayPath).joined(separator: ", "))],
                suggestion: "build numbers live in Info.plist (CFBundleVersion), project.pbxproj or .xcconfig (CURRENT_PROJECT_VERSION)"
            )
        }
        let next: String
        switch change {
        case .increment:
            next = try BuildNumber.incremented(current.build ?? "0")
        case .set(let value):
            next = try BuildNumber.validated(value)
        case .fromCI:
            guard let found = try BuildNumber.fromCI(environment: lane.environment.variables) else {
                throw ShiplaneError(
                    "no CI build number variable is set",
                    info: [("looked for", BuildNumber.ciVariables.joined(separator: ", "))],
                    suggestion: "run in CI, or use .increment or .set(\"42\")"
                )
            }
            next = found.value
        case .commitCount:
            next = String(try lane.commitCount())
        }
        for source in holders {
            let path = source.file.url.path
            guard let original = try lane.fileSystem.contents(of: path) else { continue }
            let updated = try source.file.rewritten(original, version: nil, build: next)
            guard updated != original else { continue }
            try step.writeFile(updated, to: path, describedAs: source.file.displayPath)
            lane.state.recordReleaseFile(path)
        }
        step.note("\(current.build ?? "none") → \(next)")
        return next
    }
}

extension LaneContext {
    /// Changes the build number in every version file that has one and returns it.
    @discardableResult
    public func incrementBuildNumber(
        _ change: BuildNumberChange = .increment, files: [VersionFileReference]? = nil,
        file: String = #fileID, line: Int = #line
    ) throws -> String {
        try run(IncrementBuildNumber(change, files: files), file: file, line: line)
    }
}
