import Foundation

/// Uploads an Android App Bundle to a Google Play track, from any machine.
///
/// Preflight reports every problem at once: the service account key, the bundle and its
/// manifest, the release options, the token exchange, access to the app, a version code already
/// used. It opens the edit the upload will use (an edit is a private draft until committed).
/// A dry run deletes that edit again and says what would be uploaded where. A re-run after a
/// kill finds the edit the last run left open and does not upload the same bundle twice.
/// Rollback before the commit deletes the edit this run opened; a committed release stays.
package struct UploadToPlayStore: AsyncAction {
    /// The action's name in steps and reports.
    package static let name = "uploadToPlayStore"
    /// What to upload and where it goes.
    package var request: PlayStoreRequest
    /// The bundle as the artifact a lane passed; nil: `request.bundle`'s path.
    package var package: Artifact?

    /// Creates the action for `request`, the bundle given as `package` when it is an artifact.
    package init(_ request: PlayStoreRequest, package: Artifact? = nil) {
        self.request = request
        self.package = package
    }

    /// The bundle and track, the package, status and rollout when set, and the languages of the notes.
    package var options: [StepOption] {
        var shown = [StepOption("bundle", request.bundle), StepOption("track", request.track)]
        if let packageName = request.packageName { shown.append(StepOption("packageName", packageName)) }
        shown.append(StepOption("status", request.status.rawValue))
        if let fraction = request.rolloutFraction { shown.append(StepOption("rolloutFraction", String(fraction))) }
        if request.review.changesNotSentForReview { shown.append(StepOption("changesNotSentForReview", "true")) }
        if request.review.cancelChangesInReview { shown.append(StepOption("cancelChangesInReview", "true")) }
        if !request.releaseNotes.isEmpty { shown.append(StepOption("releaseNotes", request.releaseNotes.keys.sorted().joined(separator: ", "))) }
        return shown
    }

    /// Uploads the bundle through the `Store` contract: the package is made an artifact (the run's
    /// own when it made the file) and its digest checked before anything is sent. Returns the
    /// version code Google gave the bundle (in a dry run, the manifest's).
    package func run(in step: StepContext) async throws -> Int64 {
        let artifact = try GooglePlayStore.artifact(for: package ?? request.bundle, in: step)
        return try await GooglePlayStore.upload([artifact], options: request, in: step)
    }
}

extension GooglePlayStore {
    /// Opens (or resumes) the edit, uploads the bundle unless the edit has it, sets the track's
    /// release and commits; a dry run deletes the edit again after preflight. Returns the version code.
    /// - Throws: `StorePreflightError` with every problem before anything is sent; store and transport errors after.
    package static func send(_ package: StorePackage, options: PlayStoreRequest, in step: StepContext) async throws -> Int64 {
        let lane = step.lane
        var request = options
        request.bundle = package.file
        request.sha256 = package.checkedSHA256
        var problems: [any Error] = request.problems().map { ShiplaneError($0) }
        var manifest: AndroidBundleManifest?
        do { manifest = try AndroidBundleManifest.read(bundle: request.bundle) } catch { problems.append(error) }
        let account = GooglePlayStore.credentials(from: lane.environment.variables, workingDirectory: lane.workingDirectory, problems: &problems)
        if let given = request.packageName, let manifest, given != manifest.packageName {
            problems.append(StorePackageError(path: request.bundle, problem: "is for \(manifest.packageName), not \(given)",
                                              suggestion: "pass the bundle built for \(given), or leave packageName out to use the bundle's"))
        }
        guard let account, let manifest, let packageName = request.packageName ?? Optional(manifest.packageName) else {
            throw StorePreflightError(target: "Google Play", problems: problems)
        }
        let store = GooglePlayStore.connect(account, app: packageName, variables: lane.environment.variables,
                                            transport: step.httpTransport(), now: lane.state.now)
        let client = store.client
        let publisher = PlayStorePublisher(client: client, state: StoreResumeState(lane: lane), log: { step.log($0) })
        // Earlier work, found in one place: the contract's `uploadStart`, from `earlierUpload`.
        let start: StoreUploadStart
        do {
            try await store.checkAccess()
            start = try await store.uploadStart(of: package, state: publisher.state)
        } catch {
            throw StorePreflightError(target: "Google Play", problems: problems + [error])
        }
        let plan = try await publisher.preflight(request, manifest: manifest, start: start, problems: problems)
        if let earlier = plan.unchanged {
            step.note("\(earlier.summary): not uploading it again")
            return plan.uploadedVersionCode ?? 0
        }
        let what = "\(packageName) version code \(plan.uploadedVersionCode ?? manifest.versionCode ?? 0)" +
            " (\(ByteCountText.file(manifest.fileSize))) to track \(request.track) as \(request.status.rawValue)" +
            (request.rolloutFraction.map { " for \(Int(($0 * 100).rounded()))% of users" } ?? "")
        if step.isDryRun {
            if plan.createdEdit { try await publisher.discard(editID: plan.editID) }
            if let replaced = plan.replacedEdit { step.log("would delete edit \(replaced), left open by an earlier run without this bundle") }
            step.note("would upload \(what)")
            return plan.uploadedVersionCode ?? manifest.versionCode ?? 0
        }
        if case .replace(let earlier) = start {
            try await deleteUnfinished(earlier, as: PlayEditReplaced(api: client.apiBaseURL, packageName: packageName, editID: earlier.id), in: step) {
                try await client.deleteEdit(earlier.id)
            }
        }
        // Written down as data, so a process other than this one (the supervisor after a kill,
        // `shiplane rollback`) can delete it too; once committed it is kept. A resumed edit is
        // this run's too: rolling the run back deletes it and forgets it.
        let effect = try step.record(PlayEditOpened(api: client.apiBaseURL, packageName: packageName, editID: plan.editID,
                                                    expiryTimeSeconds: plan.editExpiry, stateFolder: publisher.state.folder),
                                     "delete Google Play edit \(plan.editID)")
        step.done(effect)
        let handle = effect
        let track = request.track
        let versionCode = try await publisher.publish(plan, request: request) {
            step.keep(handle, "the Google Play edit \(plan.editID) was committed: the release on \(track) stays (halt the rollout in Play Console if it must not reach users)")
        }
        step.note("\(packageName) version code \(versionCode) on \(request.track)")
        return versionCode
    }
}


extension LaneContext {
    /// Uploads an Android App Bundle (a path or an artifact, whose recorded SHA-256 the file must
    /// still have) to a Google Play track and commits the release; returns the version code. `packageName` defaults to the bundle's.
    @discardableResult
    public func uploadToPlayStore(
        bundle: any ArtifactConvertible, packageName: String? = nil, track: String = "internal", releaseNotes: [String: String] = [:],
        status: PlayReleaseStatus = .completed, rolloutFraction: Double? = nil, releaseName: String? = nil,
        changesNotSentForReview: Bool = false, cancelChangesInReview: Bool = false,
        file: String = #fileID, line: Int = #line
    ) async throws -> Int64 {
        try await run(UploadToPlayStore(PlayStoreRequest(
            bundle: try ArtifactInputs.paths([bundle])[0], packageName: packageName, track: track, releaseNotes: releaseNotes, status: status,
            rolloutFraction: rolloutFraction, releaseName: releaseName,
            review: PlayReviewOptions(changesNotSentForReview: changesNotSentForReview, cancelChangesInReview: cancelChangesInReview)),
            package: bundle as? Artifact),
            file: file, line: line)
    }
}

extension UploadToPlayStore: DocumentedAction {
    /// How `lane.uploadToPlayStore` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Stores",
        summary: "Upload an Android App Bundle to a Google Play track through one edit (resumable for large bundles) and commit the release. Credentials: GOOGLE_PLAY_SERVICE_ACCOUNT_JSON (a path or the JSON); GOOGLE_PLAY_API_URL overrides the API base.",
        signature: "try await lane.uploadToPlayStore(bundle: any ArtifactConvertible, packageName: String? = nil, track: String = \"internal\", releaseNotes: [String: String] = [:], status: PlayReleaseStatus = .completed, rolloutFraction: Double? = nil, releaseName: String? = nil, changesNotSentForReview: Bool = false, cancelChangesInReview: Bool = false) -> Int64",
        parameters: [
            .init(name: "bundle", type: "any ArtifactConvertible", defaultValue: nil, help: "the .aab (a path, or the Artifact a step returned: its SHA-256 is checked before the upload); package name and version code are read from its manifest"),
            .init(name: "packageName", type: "String?", defaultValue: "the bundle's", help: "the app's package name; must match the bundle's"),
            .init(name: "track", type: "String", defaultValue: "\"internal\"", help: "internal, alpha, beta, production or a custom track"),
            .init(name: "releaseNotes", type: "[String: String]", defaultValue: "[:]", help: "notes per language tag (\"en-US\"), at most 500 characters each"),
            .init(name: "status", type: "PlayReleaseStatus", defaultValue: ".completed", help: ".draft, .inProgress (staged, needs rolloutFraction), .halted, .completed"),
            .init(name: "rolloutFraction", type: "Double?", defaultValue: "nil", help: "share of users for a staged rollout, 0 < f < 1"),
            .init(name: "releaseName", type: "String?", defaultValue: "nil", help: "the release's name in Play Console"),
            .init(name: "changesNotSentForReview", type: "Bool", defaultValue: "false", help: "commit without sending for review (the changes wait in Play Console); Google's error says when an app needs it"),
            .init(name: "cancelChangesInReview", type: "Bool", defaultValue: "false", help: "cancel changes already in review and send these instead; by default the commit fails rather than cancel a review"),
        ],
        example: #"try await lane.uploadToPlayStore(bundle: "build/app.aab", track: "internal", releaseNotes: ["en-US": notes])"#,
        dryRun: "preflight (token, app, version code), opening a private edit that is deleted again; says what would be uploaded where",
        rollback: "deletes the edit this run opened before it was committed; a committed release stays (rollback says so)"
    )
}
