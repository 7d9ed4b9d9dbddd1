import Foundation

/// Brings the App Store listing of a version in line with fastlane `deliver`'s metadata folder:
/// finds (or creates) the App Store version for the platform, then sets each locale's version
/// localization (description, keywords, What's New, promotional text, marketing and support URLs)
/// and app info localization (name, subtitle, privacy policy URL), sending only what differs.
///
/// Preflight reads only and reports every problem at once. A dry run prints the difference field
/// by field and changes nothing. Every write is an effect in the run's record keeping the value it
/// replaced; rollback puts those back (a field changed on App Store Connect since is left and
/// reported), deletes a locale or version this run created. A re-run with nothing changed sends no write.
package struct AppStoreListingUpdate: Sendable {
    /// The app's bundle ID.
    package var bundleID: String
    /// The version being released (`CFBundleShortVersionString`).
    package var version: String
    /// IOS, MAC_OS, TV_OS or VISION_OS.
    package var platform: String
    /// deliver's metadata folder, relative to the repository.
    package var metadataPath: String
    /// deliver's screenshots folder (`<locale>/*.png`), relative to the repository; nil leaves screenshots alone.
    package var screenshotsPath: String?
    /// deliver's app previews folder (`<locale>/*_IPHONE_67.mp4`, …); nil leaves app previews alone.
    package var appPreviewsPath: String?
    /// Screenshots and previews uploaded at once.
    package var uploadConcurrency: Int
    /// The still frame of each app preview uploaded, as `hh:mm:ss:ff` (frames, as deliver's
    /// `preview_frame_time_code`); nil lets App Store Connect choose.
    package var previewFrameTimeCode: String?

    /// deliver's default `preview_frame_time_code`.
    static let defaultPreviewFrameTimeCode = "00:00:05:00"

    /// The default screenshots folder; when it does not exist, screenshots are left alone.
    static let defaultScreenshotsPath = "fastlane/screenshots"
    /// The default app previews folder; when it does not exist, app previews are left alone.
    static let defaultAppPreviewsPath = "fastlane/app_previews"

    /// Creates the update.
    package init(bundleID: String, version: String, platform: String = "IOS", metadataPath: String = "fastlane/metadata",
                screenshotsPath: String? = "fastlane/screenshots", appPreviewsPath: String? = "fastlane/app_previews", uploadConcurrency: Int = 4,
                previewFrameTimeCode: String? = defaultPreviewFrameTimeCode) {
        self.bundleID = bundleID
        self.version = version
        self.platform = platform
        self.metadataPath = metadataPath
        self.screenshotsPath = screenshotsPath
        self.appPreviewsPath = appPreviewsPath
        self.uploadConcurrency = uploadConcurrency
        self.previewFrameTimeCode = previewFrameTimeCode
    }

    /// Bundle ID, version, platform and folders.
    package var options: [StepOption] {
        [StepOption("bundleID", bundleID), StepOption("version", version), StepOption("platform", platform), StepOption("metadataPath", metadataPath),
         StepOption("screenshotsPath", screenshotsPath ?? "nil"), StepOption("appPreviewsPath", appPreviewsPath ?? "nil"),
         StepOption("uploadConcurrency", String(uploadConcurrency)), StepOption("previewFrameTimeCode", previewFrameTimeCode ?? "nil")]
    }

    /// Reads the screenshot and app preview folders that are asked for; a default folder that does not exist is skipped.
    func mediaFolders(in step: StepContext, problems: inout [any Error]) -> [AppStoreMediaFolder] {
        var folders: [AppStoreMediaFolder] = []
        for (path, fallback, kind) in [(screenshotsPath, Self.defaultScreenshotsPath, AppStoreMediaKind.screenshots),
                                       (appPreviewsPath, Self.defaultAppPreviewsPath, AppStoreMediaKind.previews)] {
            guard let path else { continue }
            let folder = step.resolve(path)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                if path == fallback {
                    step.log("no \(path) folder: \(kind.noun)s are left as they are")
                } else {
                    problems.append(ShiplaneError("the \(kind.noun)s folder \(folder) does not exist",
                                                  suggestion: "pass the folder holding one folder per locale, or nil to leave \(kind.noun)s alone"))
                }
                continue
            }
            folders.append(kind == .screenshots ? AppStoreMediaFolder.screenshots(folder: folder, problems: &problems)
                                                : AppStoreMediaFolder.previews(folder: folder, problems: &problems))
        }
        return folders
    }

    /// One field to change.
    struct Change { var resource: String; var id: String?; var parentID: String?; var locale: String; var attribute: String; var old: String?; var new: String }


    /// `hh:mm:ss:ff`: two digits each, minutes and seconds below 60.
    static func isTimeCode(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }) else { return false }
        return (Int(parts[1]) ?? 60) < 60 && (Int(parts[2]) ?? 60) < 60
    }

    static func quote(_ text: String?) -> String {
        guard let text else { return "(none)" }
        let flat = text.replacingOccurrences(of: "\n", with: "⏎")
        return "\"" + (flat.count > 60 ? String(flat.prefix(59)) + "…" : flat) + "\""
    }
}

/// `lane.updateAppStoreMetadata`: the App Store listing of a version, through the `Store`
/// contract (`AppStoreConnectStore.updateListing`).
package struct UpdateAppStoreMetadata: AsyncAction {
    /// The action's name in steps and reports.
    package static let name = "updateAppStoreMetadata"
    /// What to set.
    package var update: AppStoreListingUpdate

    /// Creates the action for `update`.
    package init(_ update: AppStoreListingUpdate) {
        self.update = update
    }

    /// Bundle ID, version, platform and folders.
    package var options: [StepOption] { update.options }

    /// Updates the listing; returns the number of fields changed (in a dry run, that would change).
    package func run(in step: StepContext) async throws -> Int {
        try await AppStoreConnectStore.updateListing(update, in: step)
    }
}

extension AppStoreConnectStore {
    /// Updates the listing of a version from deliver's folder (`lane.updateAppStoreMetadata`); returns the number of fields changed (in a dry run, that would change).
    /// - Throws: `StorePreflightError` before anything is sent; store and transport errors after.
    package static func updateListing(_ update: AppStoreListingUpdate, in step: StepContext) async throws -> Int {
        let (bundleID, version, platform, metadataPath) = (update.bundleID, update.version, update.platform, update.metadataPath)
        let (uploadConcurrency, previewFrameTimeCode) = (update.uploadConcurrency, update.previewFrameTimeCode)
        let lane = step.lane
        let variables = lane.environment.variables
        var problems: [any Error] = []
        if !["IOS", "MAC_OS", "TV_OS", "VISION_OS"].contains(platform) {
            problems.append(ShiplaneError("platform \(platform) is not one of IOS, MAC_OS, TV_OS, VISION_OS"))
        }
        var listing: AppStoreListing?
        do { listing = try AppStoreListing.read(folder: step.resolve(metadataPath)) } catch { problems.append(error) }
        if uploadConcurrency < 1 { problems.append(ShiplaneError("uploadConcurrency is \(uploadConcurrency); it must be 1 or more")) }
        if let previewFrameTimeCode, !AppStoreListingUpdate.isTimeCode(previewFrameTimeCode) {
            problems.append(ShiplaneError("previewFrameTimeCode \"\(previewFrameTimeCode)\" is not a time code hh:mm:ss:ff",
                                          suggestion: "write it as deliver's preview_frame_time_code, e.g. \"00:00:05:00\" for the frame at 5 seconds, or pass nil to let App Store Connect choose"))
        }
        let mediaFolders = update.mediaFolders(in: step, problems: &problems)
        let credentials = AppStoreConnectStore.credentials(from: variables, workingDirectory: lane.workingDirectory, problems: &problems)
        guard let credentials, let listing, problems.isEmpty else { throw StorePreflightError(target: "the App Store listing", problems: problems) }
        let client = AppStoreConnectStore.connect(credentials, app: nil, variables: variables, transport: step.httpTransport(), now: lane.state.now).client
        let listings = AppStoreListingClient(client: client)
        // The first request: a refused key or an unreachable API is a preflight problem, nothing sent yet.
        let foundApp: AppStoreConnectClient.App?
        do { foundApp = try await client.app(bundleID: bundleID) } catch { throw StorePreflightError(target: "the App Store listing", problems: [error]) }
        guard let app = foundApp else {
            throw StorePreflightError(target: "the App Store listing", problems: [ShiplaneError(
                "App Store Connect has no app with bundle ID \(bundleID) for this API key's team",
                suggestion: "create the app in App Store Connect (My Apps → +), or check the bundle ID")])
        }
        let versions = try await client.getAll("/v1/apps/\(app.id)/appStoreVersions", query: [
            ("filter[versionString]", version), ("filter[platform]", platform), ("limit", "200"),
        ], as: ASCResource<ASCAppStoreVersion>.self, operation: "look for App Store version \(version)")
        let existingVersion = versions.first { $0.attributes?.versionString == version }
        let appInfos = try await client.getAll("/v1/apps/\(app.id)/appInfos", query: [("limit", "200")], as: ASCResource<ASCAppInfo>.self,
                                               operation: "read the app's app infos")
        // The app info being prepared; the live one is read-only once a version is on sale.
        let appInfo = appInfos.first { ["PREPARE_FOR_SUBMISSION", "DEVELOPER_REJECTED", "REJECTED", "METADATA_REJECTED"].contains($0.attributes?.state ?? "") }
            ?? appInfos.first
        var changes: [AppStoreListingUpdate.Change] = []
        func diff(resource: String, parentID: String?, current: [AppStoreListingClient.Localization], wanted: [String: [String: String]]) {
            for (locale, fields) in wanted.sorted(by: { $0.key < $1.key }) {
                let existing = current.first { ($0.attributes?["locale"] ?? nil) == locale }
                for (attribute, value) in fields.sorted(by: { $0.key < $1.key }) {
                    let old = existing?.attributes?[attribute] ?? nil
                    if old != value {
                        changes.append(AppStoreListingUpdate.Change(resource: resource, id: existing?.id, parentID: parentID, locale: locale, attribute: attribute, old: old, new: value))
                    }
                }
            }
        }
        var versionLocalizations: [AppStoreListingClient.Localization] = []
        if let existingVersion { versionLocalizations = try await listings.localizations(resource: "appStoreVersionLocalizations", parentID: existingVersion.id) }
        diff(resource: "appStoreVersionLocalizations", parentID: existingVersion?.id, current: versionLocalizations, wanted: listing.version)
        if !listing.appInfo.isEmpty {
            guard let appInfo else {
                throw StorePreflightError(target: "the App Store listing", problems: [ShiplaneError("the app has no app info to set name, subtitle or privacy policy URL on")])
            }
            let current = try await listings.localizations(resource: "appInfoLocalizations", parentID: appInfo.id)
            // App Store Connect creates an app info localization only with its name (`name` is
            // required in AppInfoLocalizationCreateRequest): a new locale without name.txt would be
            // refused after the listing's other writes. Every such locale is named now, before any.
            let existing = Set(current.compactMap { $0.attributes?["locale"] ?? nil })
            let nameless = listing.appInfo.filter { !existing.contains($0.key) && ($0.value["name"] ?? "").isEmpty }.keys.sorted()
            if !nameless.isEmpty {
                throw StorePreflightError(target: "the App Store listing", problems: nameless.map { locale in
                    ShiplaneError("\(locale) has no app info localization on App Store Connect yet, and one is created only with the app's name",
                                  suggestion: "add \(metadataPath)/\(locale)/name.txt, or remove that locale's subtitle.txt and privacy_url.txt")
                })
            }
            diff(resource: "appInfoLocalizations", parentID: appInfo.id, current: current, wanted: listing.appInfo)
        }
        if existingVersion == nil { step.log("App Store version \(version) (\(platform)) does not exist yet: it will be created") }
        for change in changes {
            step.log("\(change.locale) \(change.attribute): \(AppStoreListingUpdate.quote(change.old)) → \(AppStoreListingUpdate.quote(change.new))")
        }
        let sync = AppStoreMediaSync(media: AppStoreMediaClient(client: client), partTransport: step.httpTransport(),
                                     concurrency: uploadConcurrency, now: lane.state.now, previewFrameTimeCode: previewFrameTimeCode)
        func localizationIDs(_ localizations: [AppStoreListingClient.Localization]) -> [String: String] {
            Dictionary(localizations.compactMap { item in (item.attributes?["locale"] ?? nil).map { ($0, item.id) } }, uniquingKeysWith: { a, _ in a })
        }
        let mediaPlans = try await sync.plan(mediaFolders, localizationIDs: localizationIDs(versionLocalizations))
        for line in mediaPlans.flatMap(\.lines) { step.log(line) }
        let mediaChanges = mediaPlans.filter(\.changes).count
        if changes.isEmpty && existingVersion != nil && mediaChanges == 0 {
            step.note("the listing of \(version) is up to date")
            return 0
        }
        if step.isDryRun {
            step.note("would change \(changes.count) field\(changes.count == 1 ? "" : "s") and \(mediaChanges) screenshot or preview set\(mediaChanges == 1 ? "" : "s") of the listing of \(version)")
            return changes.count
        }
        let api = client.apiBaseURL
        var versionID = existingVersion?.id
        if versionID == nil {
            let effect = AppStoreListingCreated(api: api, resource: "appStoreVersions", id: nil, parentID: nil, label: "App Store version \(version)")
            let handle = try step.record(effect, "delete App Store version \(version)")
            let body: [String: Any] = ["data": ["type": "appStoreVersions", "attributes": ["versionString": version, "platform": platform],
                                                "relationships": ["app": ["data": ["type": "apps", "id": app.id]]]]]
            let created = try await client.send(.post, "/v1/appStoreVersions", body: body, as: ASCDocument<ASCResource<ASCAppStoreVersion>>.self,
                                                operation: "create App Store version \(version)").data
            var done = effect
            done.id = created.id
            step.done(handle, done)
            versionID = created.id
        }
        // One write per localization: its changed fields together.
        let grouped = Dictionary(grouping: changes) { "\($0.resource)|\($0.locale)" }
        for key in grouped.keys.sorted() {
            guard let fields = grouped[key], let first = fields.first else { continue }
            let parentID = first.resource == "appStoreVersionLocalizations" ? versionID : first.parentID
            let values = Dictionary(uniqueKeysWithValues: fields.map { ($0.attribute, $0.new) })
            if let id = first.id {
                let effect = AppStoreLocalizationUpdated(api: api, resource: first.resource, id: id, locale: first.locale,
                                                         previous: Dictionary(uniqueKeysWithValues: fields.map { ($0.attribute, $0.old) }), values: values)
                let handle = try step.record(effect, "put back \(first.locale)'s \(fields.map(\.attribute).joined(separator: ", "))")
                try await listings.updateLocalization(resource: first.resource, id: id, attributes: values)
                step.done(handle)
            } else if let parentID {
                let effect = AppStoreListingCreated(api: api, resource: first.resource, id: nil, parentID: parentID, label: first.locale)
                let handle = try step.record(effect, "delete the \(first.locale) \(first.resource == "appInfoLocalizations" ? "app info" : "version") localization")
                var done = effect
                done.id = try await listings.createLocalization(resource: first.resource, parentID: parentID, locale: first.locale, attributes: values)
                step.done(handle, done)
            }
        }
        if mediaChanges > 0, let versionID {
            // Media go to the version's localizations; a locale that has only screenshots gets one, as deliver does.
            var ids = localizationIDs(try await listings.localizations(resource: "appStoreVersionLocalizations", parentID: versionID))
            let needed = Set(mediaPlans.filter(\.changes).map(\.locale)).subtracting(ids.keys).sorted()
            for locale in needed {
                let effect = AppStoreListingCreated(api: api, resource: "appStoreVersionLocalizations", id: nil, parentID: versionID, label: locale)
                let handle = try step.record(effect, "delete the \(locale) version localization")
                var done = effect
                done.id = try await listings.createLocalization(resource: "appStoreVersionLocalizations", parentID: versionID, locale: locale, attributes: [:])
                step.done(handle, done)
                ids[locale] = done.id
            }
            try await sync.apply(mediaPlans, localizationIDs: ids, in: step)
        }
        step.note("changed \(changes.count) field\(changes.count == 1 ? "" : "s") and \(mediaChanges) screenshot or preview set\(mediaChanges == 1 ? "" : "s") of the listing of \(version)")
        return changes.count
    }
}

extension LaneContext {
    /// Sets the App Store listing of `version` from deliver's metadata folder (only what differs);
    /// returns the number of fields changed. `previewFrameTimeCode` is the still frame of each app
    /// preview uploaded (`hh:mm:ss:ff`, deliver's `preview_frame_time_code`; nil: App Store Connect chooses).
    @discardableResult
    public func updateAppStoreMetadata(bundleID: String, version: String, platform: String = "IOS", metadataPath: String = "fastlane/metadata",
                                       screenshotsPath: String? = "fastlane/screenshots", appPreviewsPath: String? = "fastlane/app_previews",
                                       uploadConcurrency: Int = 4, previewFrameTimeCode: String? = "00:00:05:00",
                                       file: String = #fileID, line: Int = #line) async throws -> Int {
        try await run(UpdateAppStoreMetadata(AppStoreListingUpdate(
            bundleID: bundleID, version: version, platform: platform, metadataPath: metadataPath, screenshotsPath: screenshotsPath,
            appPreviewsPath: appPreviewsPath, uploadConcurrency: uploadConcurrency, previewFrameTimeCode: previewFrameTimeCode)),
                      file: file, line: line)
    }
}

extension UpdateAppStoreMetadata: DocumentedAction {
    /// How `lane.updateAppStoreMetadata` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Stores",
        summary: "Set the App Store listing of a version from fastlane deliver's folder (fastlane/metadata/<locale>/description.txt, keywords.txt, release_notes.txt, promotional_text.txt, marketing_url.txt, support_url.txt, name.txt, subtitle.txt, privacy_url.txt) and its screenshots and app previews (fastlane/screenshots/<locale>/*.png|jpg, the display type from the pixel size as deliver reads it; fastlane/app_previews/<locale>/*_IPHONE_67.mp4, …): finds or creates the App Store version for the platform, sends only the fields that differ, uploads only images whose MD5 is not in the set yet, deletes the ones the folder replaced or dropped once the new ones are in, and puts each set in file-name order. Credentials as for uploadToTestFlight.",
        signature: "try await lane.updateAppStoreMetadata(bundleID: String, version: String, platform: String = \"IOS\", metadataPath: String = \"fastlane/metadata\", screenshotsPath: String? = \"fastlane/screenshots\", appPreviewsPath: String? = \"fastlane/app_previews\", uploadConcurrency: Int = 4, previewFrameTimeCode: String? = \"00:00:05:00\") -> Int",
        parameters: [
            .init(name: "bundleID", type: "String", defaultValue: nil, help: "the app's bundle ID"),
            .init(name: "version", type: "String", defaultValue: nil, help: "the App Store version being released"),
            .init(name: "platform", type: "String", defaultValue: "\"IOS\"", help: "IOS, MAC_OS, TV_OS or VISION_OS"),
            .init(name: "metadataPath", type: "String", defaultValue: "\"fastlane/metadata\"", help: "deliver's metadata folder, one folder per locale"),
            .init(name: "screenshotsPath", type: "String?", defaultValue: "\"fastlane/screenshots\"", help: "deliver's screenshots folder (<locale>/, iMessage/<locale>/, appleTV/<locale>/); nil leaves screenshots alone; the default folder missing leaves them alone too"),
            .init(name: "appPreviewsPath", type: "String?", defaultValue: "\"fastlane/app_previews\"", help: "deliver's app previews folder (<locale>/<name with the preview type>.mp4|mov|m4v); nil leaves previews alone"),
            .init(name: "uploadConcurrency", type: "Int", defaultValue: "4", help: "screenshots and previews uploaded at once"),
            .init(name: "previewFrameTimeCode", type: "String?", defaultValue: "\"00:00:05:00\"", help: "the still frame of each app preview, hh:mm:ss:ff (deliver's preview_frame_time_code and its default); sent with the preview's reservation and commit, and alone (no upload) for a preview already uploaded whose still frame differs; nil lets App Store Connect choose and leaves uploaded previews as they are"),
        ],
        example: #"try await lane.updateAppStoreMetadata(bundleID: "com.acme.rocket", version: "1.4.0")"#,
        dryRun: "reads only, and prints each field that would change with its old and new text, and per locale and display type each image that would be uploaded, kept or deleted, each uploaded app preview's still frame that would change (old → new) and the order that would be set",
        rollback: "puts back each field's previous text (a field changed on App Store Connect since is left and reported); deletes a locale, App Store version, screenshot set or uploaded screenshot this run created, puts a set's order back and an app preview's earlier still frame; a screenshot replaced and deleted once its set was complete cannot come back, so that set keeps the new images and rollback says so"
    )
}
