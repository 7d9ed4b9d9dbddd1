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

    /// `increment`, the value, `from CI` or `commit count`.
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
    /// The action's name in steps and reports.
    public static let name = "incrementBuildNumber"
    /// How the build number changes.
    public var change: BuildNumberChange
    /// The version files to rewrite; nil: those detected in the project.
    public var files: [VersionFileReference]?

    /// Creates the action that applies `change` to every file with a build number.
    public init(_ change: BuildNumberChange = .increment, files: [VersionFileReference]? = nil) {
        self.change = change
        self.files = files
    }

    /// The change.
    public var options: [StepOption] { [StepOption("change", change.description)] }

    /// Returns the new build number and every file it rewrote.
    public func run(in step: StepContext) throws -> BuildNumberResult {
        let lane = step.lane
        let current = try lane.readVersion(files)
        let holders = current.sources.filter { $0.reading.holdsBuild }
        guard !holders.isEmpty else {
            throw ShiplaneError(
                "no version file holds a build number",
                info: [("version files", current.sources.map(\.file.displayPath).joined(separator: ", "))],
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
        var changes: [FileChange] = []
        for source in holders {
            let updated = try source.rewritten(version: nil, build: next)
            if let change = try step.writeFile(updated, to: source.file.url.path, describedAs: source.file.displayPath, replacing: source.bytes) {
                changes.append(change)
            }
        }
        step.note("\(current.build ?? "none") → \(next)")
        return BuildNumberResult(previous: current.build, build: next, fileChanges: changes)
    }
}

extension LaneContext {
    /// Changes the build number in every version file that has one and returns what it changed:
    /// the new build number (which it reads as in text) and the files, for `commitVersionBump`.
    @discardableResult
    public func incrementBuildNumber(
        _ change: BuildNumberChange = .increment, files: [VersionFileReference]? = nil,
        file: String = #fileID, line: Int = #line
    ) throws -> BuildNumberResult {
        try run(IncrementBuildNumber(change, files: files), file: file, line: line)
    }
}

extension IncrementBuildNumber: DocumentedAction {
    /// How `lane.incrementBuildNumber` appears in the action catalog.
    public static let documentation = ActionDocumentation(
        domain: "Versioning",
        summary: "Change the build number (CFBundleVersion, CURRENT_PROJECT_VERSION): increment, set, from CI, or the commit count",
        signature: "try lane.incrementBuildNumber(_ change: BuildNumberChange = .increment, files: [VersionFileReference]? = nil) -> BuildNumberResult",
        parameters: [
            .init(name: "change", type: "BuildNumberChange", defaultValue: ".increment", help: ".increment, .set(\"42\"), .fromCI (GITHUB_RUN_NUMBER, BUILD_NUMBER, CI_PIPELINE_IID, ...), .commitCount"),
            .init(name: "files", type: "[VersionFileReference]?", defaultValue: "detected", help: "the files holding the build number (Info.plist, project.pbxproj, .xcconfig)"),
        ],
        example: "let build = try lane.incrementBuildNumber()",
        dryRun: "writes to the overlay", rollback: "restores each file's bytes"
    )
}
