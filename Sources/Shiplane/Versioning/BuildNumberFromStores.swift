import Foundation

/// Where `incrementBuildNumber(.fromStores)` asks for the builds already uploaded.
///
/// `.fromStores` takes the app's bundle identifier from the app target's
/// `PRODUCT_BUNDLE_IDENTIFIER` and the Android package from `applicationId`; name them with
/// `.fromStores(appStore:googlePlay:)` when the project does not write them literally.
public struct StoreBuildNumberSource: Sendable, Equatable, CustomStringConvertible {
    /// The App Store Connect app's bundle identifier; nil: from the Xcode project, if there is one.
    public var appStoreBundleID: String?
    /// The Google Play package name; nil: from the Gradle `applicationId`, if there is one.
    public var playPackageName: String?

    /// The stores of the apps the project holds, identified from the project's files.
    public static var fromStores: StoreBuildNumberSource { StoreBuildNumberSource() }

    /// The stores named: App Store Connect for `appStore`, Google Play for `googlePlay`.
    public static func fromStores(appStore: String? = nil, googlePlay: String? = nil) -> StoreBuildNumberSource {
        StoreBuildNumberSource(appStoreBundleID: appStore, playPackageName: googlePlay)
    }

    /// `from stores`, with the identifiers given.
    public var description: String {
        var named: [String] = []
        if let appStoreBundleID { named.append("App Store \(appStoreBundleID)") }
        if let playPackageName { named.append("Google Play \(playPackageName)") }
        return named.isEmpty ? "from stores" : "from stores (" + named.joined(separator: ", ") + ")"
    }
}

/// Sets the build number to the stores' next one: the latest build of this version on App Store
/// Connect (TestFlight) + 1, and the highest `versionCode` in any Google Play track + 1 — the
/// larger where the project keeps one series for both, each platform's own where it keeps
/// them apart (iOS's files get App Store Connect's, Android's Google Play's) — through the same APIs and credentials as the uploads
/// (`APP_STORE_CONNECT_*`, `GOOGLE_PLAY_SERVICE_ACCOUNT_JSON`), each store reached through the
/// `Store` contract (its credentials read and its client made by `connect`). The Play edit it opens to read
/// the tracks is deleted, never committed. Never lower than the current build number + 1.
package struct IncrementBuildNumberFromStores: AsyncAction {
    /// The action's name in steps and reports.
    package static let name = "incrementBuildNumber"
    /// Which stores to ask.
    package var source: StoreBuildNumberSource
    /// The version files to rewrite; nil: those detected in the project.
    package var files: [VersionFileReference]?

    /// Creates the action asking `source`.
    package init(_ source: StoreBuildNumberSource, files: [VersionFileReference]? = nil) {
        self.source = source
        self.files = files
    }

    /// The change.
    package var options: [StepOption] { [StepOption("change", source.description)] }

    /// Asks the stores, then writes the build number as `incrementBuildNumber` does (also in a
    /// dry run: the stores are only read).
    /// - Throws: when no store can be identified, credentials are missing, or a store refuses.
    package func run(in step: StepContext) async throws -> BuildNumberResult {
        let lane = step.lane
        let current = try lane.readVersion(files)
        let holders = try IncrementBuildNumber.holders(of: current)
        // Every store through the contract, none named: its app, its credentials, its latest build.
        let asked = Stores.all.compactMap { store in store.buildNumberApp(named: source, in: current).map { (store, $0) } }
        guard !asked.isEmpty else {
            throw ShiplaneError(
                "no store app to ask for its builds",
                info: [("looked for", "PRODUCT_BUNDLE_IDENTIFIER of the Xcode app target, applicationId in build.gradle")],
                suggestion: "name them: .fromStores(appStore: \"com.example.app\", googlePlay: \"com.example.app\")"
            )
        }
        var candidates: [(series: BuildSeries, next: Int)] = []
        // Each series keeps its shape: after Apple's 1.7.0.4 comes 1.7.0.5.
        var seriesNext: [BuildSeries: String] = [:]
        for (store, app) in asked {
            let latest = try await store.latestBuild(of: app, version: current.shown, in: step)
            step.log(store.sayLatest(latest, version: current.shown))
            candidates.append((store.buildSeries, (latest.flatMap { Int($0.split(separator: ".").last ?? "") } ?? 0) + 1))
            seriesNext[store.buildSeries] = try latest.map { try BuildNumber.incremented($0) } ?? "1"
        }
        // Never go back on Google Play: a versionCode in the files already above the store's (a
        // build not uploaded yet) wins.
        func floor(_ next: Int) -> Int {
            guard let currentNumber = current.builds[.android].flatMap({ Int($0) }), currentNumber >= next,
                  holders.contains(where: { $0.builds[.android] != nil }) else { return next }
            return currentNumber + 1
        }
        if current.separateBuildSeries {
            // Each platform keeps its own series: each store's own next number goes to its files.
            var series = current.builds
            for candidate in candidates { series[candidate.series] = candidate.series == .android ? String(floor(candidate.next)) : seriesNext[candidate.series] ?? String(candidate.next) }
            return try IncrementBuildNumber.write(BuildNumbers(series: series), over: current, holders: holders, change: source.description, in: step)
        }
        let next = floor(candidates.map(\.next).max() ?? 1)
        return try IncrementBuildNumber.write(BuildNumbers(String(next)), over: current, holders: holders, change: source.description, in: step)
    }

    /// The app target's literal `PRODUCT_BUNDLE_IDENTIFIER` in the project's pbxproj.
    static func bundleID(in current: AgreedVersion) -> String? {
        for source in current.sources where source.file.format is XcodeProjectVersionFormat {
            guard let model = try? XcodeProjectModel(source.bytes), let app = model.targets.first(where: { $0.role == .app }) else { continue }
            let identifiers = app.configurations.compactMap { $0.settings["PRODUCT_BUNDLE_IDENTIFIER"] }.filter { !$0.contains("$") }
            if let first = identifiers.first { return first }
        }
        return nil
    }

    /// The literal `applicationId` of the Gradle app module.
    static func packageName(in current: AgreedVersion) -> String? {
        for source in current.sources where source.file.format is GradleVersionFormat {
            let text = String(decoding: source.bytes, as: UTF8.self)
            guard let regex = try? NSRegularExpression(pattern: #"applicationId\s*(?:=\s*|\(\s*|\s+)["']([^"'$]+)["']"#),
                  let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                  let range = Range(match.range(at: 1), in: text) else { continue }
            return String(text[range])
        }
        return nil
    }
}

extension AppStoreConnectClient {
    /// The highest build number uploaded for `version` of the app, or nil before the first.
    func latestBuildNumber(appID: String, version: String) async throws -> String? {
        let builds = try await get("/v1/builds", query: [
            ("filter[app]", appID), ("filter[preReleaseVersion.version]", version), ("limit", "200"),
        ], as: ASCDocument<[Build]>.self, operation: "read the builds of \(version)").data
        return builds.compactMap { $0.attributes?.version }.max { BuildNumber.isLower($0, than: $1) }
    }
}

extension Store {
    /// The latest build number of `version` of `app` in this store, reached with the lane's
    /// credentials through `connect`.
    /// - Throws: `StorePreflightError` naming what to set when the credentials are missing or unusable.
    static func latestBuild(of app: String, version: String, in step: StepContext) async throws -> String? {
        let lane = step.lane
        let variables = lane.environment.variables
        var problems: [any Error] = []
        guard let credentials = credentials(from: variables, workingDirectory: lane.workingDirectory, problems: &problems) else {
            throw StorePreflightError(target: displayName, problems: problems)
        }
        let store = connect(credentials, app: app, variables: variables, transport: step.httpTransport(), now: lane.state.now)
        return try await store.latestBuildNumber(app: app, version: version)
    }
}

extension LaneContext {
    /// Sets the build number to the stores' next one (`.fromStores`): the latest build of this
    /// version on App Store Connect + 1, the highest `versionCode` across Google Play's tracks + 1,
    /// in every file that holds it, and returns what it changed.
    @discardableResult
    public func incrementBuildNumber(
        _ change: StoreBuildNumberSource, files: [VersionFileReference]? = nil,
        file: String = #fileID, line: Int = #line
    ) async throws -> BuildNumberResult {
        try await run(IncrementBuildNumberFromStores(change, files: files), file: file, line: line)
    }
}
