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
        let apple = source.appStoreBundleID ?? Self.bundleID(in: current)
        let android = source.playPackageName ?? Self.packageName(in: current)
        guard apple != nil || android != nil else {
            throw ShiplaneError(
                "no store app to ask for its builds",
                info: [("looked for", "PRODUCT_BUNDLE_IDENTIFIER of the Xcode app target, applicationId in build.gradle")],
                suggestion: "name them: .fromStores(appStore: \"com.example.app\", googlePlay: \"com.example.app\")"
            )
        }
        let variables = lane.environment.variables
        var candidates: [(series: BuildSeries, next: Int)] = []
        var appleNext: String?
        if let apple {
            var problems: [any Error] = []
            guard let credentials = AppStoreConnectStore.credentials(from: variables, workingDirectory: lane.workingDirectory, problems: &problems) else {
                throw StorePreflightError(target: AppStoreConnectStore.displayName, problems: problems)
            }
            let client = AppStoreConnectStore.connect(credentials, app: apple, variables: variables, transport: step.httpTransport(),
                                                      now: lane.state.now).client
            guard let app = try await client.app(bundleID: apple) else {
                throw ShiplaneError("App Store Connect has no app \(apple)", suggestion: "create the app in App Store Connect, or name the right bundle ID")
            }
            let latest = try await client.latestBuildNumber(appID: app.id, version: current.shown)
            step.log("App Store Connect: " + (latest.map { "latest build of \(current.shown) is \($0)" } ?? "no build of \(current.shown) yet"))
            candidates.append((.apple, (latest.flatMap { Int($0.split(separator: ".").last ?? "") } ?? 0) + 1))
            // Apple's own series keeps its shape: after 1.7.0.4 comes 1.7.0.5.
            appleNext = try latest.map { try BuildNumber.incremented($0) } ?? "1"
        }
        if let android {
            let account = try GooglePlayStore.readCredentials(variables, workingDirectory: lane.workingDirectory)
            let client = GooglePlayStore.connect(account, app: android, variables: variables, transport: step.httpTransport(),
                                                 now: lane.state.now).client
            let edit = try await client.insertEdit()
            let codes: Set<Int64>
            do {
                codes = try await client.versionCodesInTracks(editID: edit)
            } catch {
                try? await client.deleteEdit(edit)
                throw error
            }
            try await client.deleteEdit(edit)
            step.log("Google Play: " + (codes.max().map { "highest versionCode in any track is \($0)" } ?? "no release in any track yet"))
            candidates.append((.android, Int(codes.max() ?? 0) + 1))
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
            for candidate in candidates { series[candidate.series] = candidate.series == .android ? String(floor(candidate.next)) : appleNext ?? String(candidate.next) }
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
