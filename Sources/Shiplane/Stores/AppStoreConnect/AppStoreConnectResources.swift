import Foundation

/// The App Store Connect resources a TestFlight upload reads and writes.
extension AppStoreConnectClient {
    typealias App = ASCResource<ASCApp>
    typealias BuildUpload = ASCResource<ASCBuildUpload>
    typealias BuildUploadFile = ASCResource<ASCBuildUploadFile>
    typealias Build = ASCResource<ASCBuild>
    typealias BetaGroup = ASCResource<ASCBetaGroup>
    typealias BetaBuildLocalization = ASCResource<ASCBetaBuildLocalization>

    // MARK: - Apps and builds

    /// The app with exactly this bundle ID, or nil.
    /// Asked once per client (per step): the earlier-upload lookup and the upload's preflight both need it.
    func app(bundleID: String) async throws -> App? {
        // What the callers use of it (id, bundle ID, name), kept as a Sendable value.
        typealias Known = (id: String, bundleID: String?, name: String?)
        if let known: Known = memo.value("app " + bundleID) {
            return App(type: "apps", id: known.id, attributes: ASCApp(bundleId: known.bundleID, name: known.name), relationships: nil)
        }
        let apps = try await get("/v1/apps", query: [("filter[bundleId]", bundleID)], as: ASCDocument<[App]>.self,
                                 operation: "look up the app \(bundleID)").data
        let found = apps.first { $0.attributes?.bundleId == bundleID }
        if let found { memo.keep((found.id, found.attributes?.bundleId, found.attributes?.name) as Known, "app " + bundleID) }
        return found
    }

    /// The build of `appID` for `platform` (IOS, MAC_OS, TV_OS, VISION_OS) with this version and
    /// build number, or nil: a tvOS build of the same numbers is another build.
    func build(appID: String, version: String, buildNumber: String, platform: String) async throws -> Build? {
        let builds = try await getAll("/v1/builds", query: [
            ("filter[app]", appID), ("filter[version]", buildNumber), ("filter[preReleaseVersion.version]", version),
            ("filter[preReleaseVersion.platform]", platform), ("limit", "200"),
        ], as: Build.self, operation: "look for build \(version) (\(buildNumber))")
        return builds.first { $0.attributes?.version == buildNumber }
    }

    func build(id: String) async throws -> Build {
        try await get("/v1/builds/\(id)", as: ASCDocument<Build>.self, operation: "read build \(id)").data
    }

    // MARK: - Build uploads

    /// The app's build uploads of `version` (`buildNumber`) for `platform` (nil: any), every page,
    /// filtered by App Store Connect with the filters its description declares.
    func buildUploads(appID: String, version: String, buildNumber: String, platform: String?) async throws -> [BuildUpload] {
        var query = [("filter[cfBundleShortVersionString]", version), ("filter[cfBundleVersion]", buildNumber)]
        if let platform { query.append(("filter[platform]", platform)) }
        query.append(("limit", "200"))
        let uploads = try await getAll("/v1/apps/\(appID)/buildUploads", query: query, as: BuildUpload.self,
                                       operation: "list the app's build uploads of \(version) (\(buildNumber))")
        // Checked here too: what is not this version's is never acted on.
        return uploads.filter {
            $0.attributes?.cfBundleShortVersionString == version && $0.attributes?.cfBundleVersion == buildNumber
                && (platform == nil || $0.attributes?.platform == nil || $0.attributes?.platform == platform)
        }
    }

    func createBuildUpload(appID: String, version: String, buildNumber: String, platform: String) async throws -> BuildUpload {
        let body: [String: Any] = ["data": [
            "type": "buildUploads",
            "attributes": ["cfBundleShortVersionString": version, "cfBundleVersion": buildNumber, "platform": platform],
            "relationships": ["app": ["data": ["type": "apps", "id": appID]]],
        ]]
        return try await send(.post, "/v1/buildUploads", body: body, as: ASCDocument<BuildUpload>.self,
                              operation: "create a build upload for \(version) (\(buildNumber))").data
    }

    func buildUpload(id: String) async throws -> BuildUpload {
        try await get("/v1/buildUploads/\(id)", query: [("include", "build")], as: ASCDocument<BuildUpload>.self,
                      operation: "read build upload \(id)").data
    }

    /// Deletes the app's build uploads of `version` (`buildNumber`, `platform`) that still await
    /// their file: what a create call whose answer was lost left. Returns the ids deleted and the
    /// uploads of that version Apple is processing or has accepted (those cannot be deleted).
    func deleteUnfinishedUploads(appID: String, version: String, buildNumber: String,
                                 platform: String?) async throws -> (deleted: [String], accepted: [String]) {
        let uploads = try await buildUploads(appID: appID, version: version, buildNumber: buildNumber, platform: platform)
        let unfinished = uploads.filter { $0.attributes?.state?.state == "AWAITING_UPLOAD" }
        for upload in unfinished { try await deleteBuildUpload(id: upload.id) }
        let accepted = uploads.filter { ["PROCESSING", "COMPLETE"].contains($0.attributes?.state?.state ?? "") }
        return (unfinished.map(\.id), accepted.map(\.id))
    }

    /// Deletes a build upload; one that is already gone counts as deleted.
    func deleteBuildUpload(id: String) async throws {
        _ = try await perform(.delete, "/v1/buildUploads/\(id)", operation: "delete build upload \(id)", accepting: [404])
    }

    func createBuildUploadFile(uploadID: String, fileName: String, fileSize: Int64) async throws -> BuildUploadFile {
        let body: [String: Any] = ["data": [
            "type": "buildUploadFiles",
            "attributes": ["fileName": fileName, "fileSize": fileSize, "uti": "com.apple.ipa", "assetType": "ASSET"],
            "relationships": ["buildUpload": ["data": ["type": "buildUploads", "id": uploadID]]],
        ]]
        return try await send(.post, "/v1/buildUploadFiles", body: body, as: ASCDocument<BuildUploadFile>.self,
                              operation: "reserve the upload of \(fileName)").data
    }

    /// Marks the file uploaded with its SHA-256, which starts Apple's processing.
    func commitBuildUploadFile(id: String, sha256: String) async throws {
        let body: [String: Any] = ["data": [
            "type": "buildUploadFiles", "id": id,
            "attributes": ["uploaded": true, "sourceFileChecksums": ["file": ["hash": sha256, "algorithm": "SHA_256"]]],
        ]]
        _ = try await send(.patch, "/v1/buildUploadFiles/\(id)", body: body, as: ASCDocument<BuildUploadFile>.self,
                           operation: "commit the uploaded file")
    }

    // MARK: - TestFlight

    func betaGroups(appID: String) async throws -> [BetaGroup] {
        try await get("/v1/apps/\(appID)/betaGroups", query: [("limit", "200")], as: ASCDocument<[BetaGroup]>.self,
                      operation: "list the app's beta groups").data
    }

    /// Sets "What to Test" for `locale`, updating the localization when there is one.
    func setWhatToTest(buildID: String, locale: String, text: String) async throws {
        let existing = try await get("/v1/builds/\(buildID)/betaBuildLocalizations", query: [("limit", "200")],
                                     as: ASCDocument<[BetaBuildLocalization]>.self, operation: "read the build's What to Test").data
        if let current = existing.first(where: { $0.attributes?.locale == locale }) {
            let body: [String: Any] = ["data": ["type": "betaBuildLocalizations", "id": current.id, "attributes": ["whatsNew": text]]]
            _ = try await send(.patch, "/v1/betaBuildLocalizations/\(current.id)", body: body,
                               as: ASCDocument<BetaBuildLocalization>.self, operation: "update What to Test (\(locale))")
        } else {
            let body: [String: Any] = ["data": [
                "type": "betaBuildLocalizations", "attributes": ["locale": locale, "whatsNew": text],
                "relationships": ["build": ["data": ["type": "builds", "id": buildID]]],
            ]]
            _ = try await send(.post, "/v1/betaBuildLocalizations", body: body,
                               as: ASCDocument<BetaBuildLocalization>.self, operation: "set What to Test (\(locale))")
        }
    }

    func addBuild(_ buildID: String, toGroups groupIDs: [String]) async throws {
        let body: [String: Any] = ["data": groupIDs.map { ["type": "betaGroups", "id": $0] }]
        _ = try await perform(.post, "/v1/builds/\(buildID)/relationships/betaGroups", body: body, operation: "add the build to beta groups")
    }

    func setUsesNonExemptEncryption(buildID: String, _ value: Bool) async throws {
        let body: [String: Any] = ["data": ["type": "builds", "id": buildID, "attributes": ["usesNonExemptEncryption": value]]]
        _ = try await send(.patch, "/v1/builds/\(buildID)", body: body, as: ASCDocument<Build>.self, operation: "set export compliance")
    }

    /// Submits the build for external beta review. Returns nil when submitted now, or the state of
    /// the submission the build already has: Apple answers 409 for any entity error, so a 409 is
    /// "already submitted" only when the build's beta review submission says so; otherwise it is
    /// the error it is.
    /// - Throws: `StoreAPIError` with Apple's errors.
    func submitForBetaReview(buildID: String) async throws -> String? {
        let body: [String: Any] = ["data": [
            "type": "betaAppReviewSubmissions", "relationships": ["build": ["data": ["type": "builds", "id": buildID]]],
        ]]
        do {
            _ = try await perform(.post, "/v1/betaAppReviewSubmissions", body: body, operation: "submit the build for beta review")
            return nil
        } catch let refusal as StoreAPIError where refusal.status == 409 {
            let existing = try? await get("/v1/builds/\(buildID)/betaAppReviewSubmission", as: ASCDocument<ASCResource<ASCBetaAppReviewSubmission>>.self,
                                          operation: "read the build's beta review submission").data
            if let state = existing?.attributes?.betaReviewState, ["WAITING_FOR_REVIEW", "IN_REVIEW", "APPROVED"].contains(state) {
                return state
            }
            var refusal = refusal
            if let state = existing?.attributes?.betaReviewState { refusal.details.append("the build's beta review submission is \(state)") }
            throw refusal
        }
    }
}
