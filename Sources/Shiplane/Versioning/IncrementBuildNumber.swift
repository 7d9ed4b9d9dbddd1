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
    /// The run's time in UTC as `yyDDDHHmm` (year, day of the year, hour, minute: 263291744 on
    /// 25 November 2026 at 17:44): it grows with time, and fits Google Play's `versionCode`
    /// limit (2,100,000,000) until 2099.
    case timestamp

    /// The current build number plus one: the same as `.increment`.
    public static var next: BuildNumberChange { .increment }

    /// Exactly `number`: the same as `.set("\(number)")`.
    public static func value(_ number: Int) -> BuildNumberChange { .set(String(number)) }

    /// `increment`, the value, `from CI`, `commit count` or `timestamp`.
    public var description: String {
        switch self {
        case .increment: "increment"
        case .set(let value): value
        case .fromCI: "from CI"
        case .commitCount: "commit count"
        case .timestamp: "timestamp"
        }
    }

    /// `date` in UTC as `yyDDDHHmm`, as `.timestamp` writes it (leading zeros of the year dropped).
    public static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .hour, .minute], from: date)
        let day = calendar.ordinality(of: .day, in: .year, for: date) ?? 1
        let value = ((parts.year ?? 2000) % 100) * 10_000_000 + day * 10_000 + (parts.hour ?? 0) * 100 + (parts.minute ?? 0)
        return String(value)
    }
}

/// Changes the build number in every version file that has one (Info.plist `CFBundleVersion`,
/// pbxproj and xcconfig `CURRENT_PROJECT_VERSION`, Gradle `versionCode`, `gradle.properties`,
/// the `+N` of a Flutter `pubspec.yaml`, Expo's `ios.buildNumber` and `android.versionCode`),
/// all in one change set. A new number lower than the current one is refused.
package struct IncrementBuildNumber: Action {
    /// The action's name in steps and reports.
    package static let name = "incrementBuildNumber"
    /// How the build number changes.
    package var change: BuildNumberChange
    /// The version files to rewrite; nil: those detected in the project.
    package var files: [VersionFileReference]?

    /// Creates the action that applies `change` to every file with a build number.
    package init(_ change: BuildNumberChange = .increment, files: [VersionFileReference]? = nil) {
        self.change = change
        self.files = files
    }

    /// The change.
    package var options: [StepOption] { [StepOption("change", change.description)] }

    /// Returns the new build number and every file it rewrote.
    package func run(in step: StepContext) throws -> BuildNumberResult {
        let lane = step.lane
        let current = try lane.readVersion(files)
        let holders = try Self.holders(of: current)
        let next: String
        switch change {
        case .increment where current.separateBuildSeries:
            // Each platform's own series goes on from its own number.
            let series = try current.builds.mapValues { try BuildNumber.incremented($0) }
            return try Self.write(BuildNumbers(series: series), over: current, holders: holders, change: change.description, in: step)
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
        case .timestamp:
            next = BuildNumberChange.timestamp(lane.state.now())
        }
        return try Self.write(BuildNumbers(next), over: current, holders: holders, change: change.description, in: step)
    }

    /// Writes `next` into every holder of the build number (each platform's into its files),
    /// refusing a number lower than the current one where an Android `versionCode` holds it;
    /// one change set, for `commitVersionBump`.
    static func write(_ next: BuildNumbers, over current: AgreedVersion, holders: [AgreedVersion.Source], change: String, in step: StepContext) throws -> BuildNumberResult {
        // Google Play refuses a versionCode that does not grow; App Store build numbers may start
        // again with each new version, so only an Android build number is held to it.
        let android = holders.filter { $0.builds[.android] != nil }
        if let previous = current.builds[.android], let new = next.value(for: .android), !android.isEmpty, BuildNumber.isLower(new, than: previous) {
            throw ShiplaneError(
                "the new build number \(new) is lower than the current \(previous)",
                info: [("change", change), ("versionCode in", android.map(\.file.displayPath).joined(separator: ", "))],
                suggestion: "Google Play refuses a versionCode that does not grow: use .next, or a higher .value(…)"
            )
        }
        var changes: [FileChange] = []
        for source in holders {
            let updated = try source.rewritten(version: nil, builds: next)
            if let change = try step.writeFile(updated, to: source.file.url.path, describedAs: source.file.displayPath, replacing: source.bytes) {
                changes.append(change)
            }
        }
        let shown = next.all ?? BuildSeries.describe(next.series)
        step.note("\(current.shownBuild ?? "none") → \(shown)")
        for follower in current.outOfStepBuilds {
            step.log("\(follower) was out of step with the app; now \(next.value(for: .apple) ?? shown)")
        }
        let perPlatform = next.all == nil ? Dictionary(uniqueKeysWithValues: next.series.map { ($0.key.rawValue, $0.value) }) : nil
        return BuildNumberResult(previous: current.shownBuild, build: shown, builds: perPlatform, fileChanges: changes)
    }

    /// The files holding a build number, or an error naming the version files read.
    static func holders(of current: AgreedVersion) throws -> [AgreedVersion.Source] {
        let holders = current.sources.filter { $0.reading.holdsBuild }
        guard !holders.isEmpty else {
            throw ShiplaneError(
                "no version file holds a build number",
                info: [("version files", current.sources.map(\.file.displayPath).joined(separator: ", "))],
                suggestion: "build numbers live in Info.plist (CFBundleVersion), project.pbxproj or .xcconfig (CURRENT_PROJECT_VERSION), build.gradle (versionCode), pubspec.yaml (version: 1.2.3+45) or app.json"
            )
        }
        return holders
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
    package static let documentation = ActionDocumentation(
        domain: "Versioning",
        summary: "Change the build number in every file that holds it (CFBundleVersion, CURRENT_PROJECT_VERSION, versionCode, pubspec +N, app.json): next, a value, from CI, the commit count, a timestamp or the stores' next",
        signature: "try lane.incrementBuildNumber(_ change: BuildNumberChange = .increment, files: [VersionFileReference]? = nil) -> BuildNumberResult",
        parameters: [
            .init(name: "change", type: "BuildNumberChange", defaultValue: ".increment", help: ".next (= .increment), .value(42) (= .set(\"42\")), .fromCI (GITHUB_RUN_NUMBER, BUILD_NUMBER, CI_PIPELINE_IID, ...), .commitCount, .timestamp (UTC yyDDDHHmm); `try await` with .fromStores (latest App Store Connect build of this version + 1, highest Play versionCode + 1)"),
            .init(name: "files", type: "[VersionFileReference]?", defaultValue: "detected", help: "the files holding the build number (Info.plist, project.pbxproj, .xcconfig, build.gradle versionCode, gradle.properties, pubspec.yaml, app.json)"),
        ],
        example: "let build = try lane.incrementBuildNumber()",
        dryRun: "writes to the overlay", rollback: "restores each file's bytes"
    )
}
