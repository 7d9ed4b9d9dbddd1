import Foundation

/// Uploads an IPA to App Store Connect and readies the build in TestFlight, from any machine.
///
/// Bundle ID, version and build number come from the IPA's `Payload/*.app/Info.plist`.
/// Preflight reads only and reports every problem at once: credentials, the IPA, the key
/// accepted, the app, the beta groups, and what an earlier run left. A dry run stops there and
/// says what would be uploaded where. A re-run finds the build or the build upload an earlier
/// run made and carries on without a duplicate. Rollback deletes a build upload this run made
/// while Apple has not accepted it; an accepted build cannot be deleted, and rollback says so.
package struct UploadToTestFlight: AsyncAction {
    /// The action's name in steps and reports.
    package static let name = "uploadToTestFlight"
    /// What to upload and what to do with the build.
    package var request: TestFlightRequest
    /// The IPA as the artifact a lane passed; nil: `request.ipa`'s path.
    package var package: Artifact?

    /// Creates the action for `request`, the IPA given as `package` when it is an artifact.
    package init(_ request: TestFlightRequest, package: Artifact? = nil) {
        self.request = request
        self.package = package
    }

    /// The IPA, and the groups, beta review and encryption answer when set.
    package var options: [StepOption] {
        var shown = [StepOption("ipa", request.ipa)]
        if !request.groups.isEmpty { shown.append(StepOption("groups", request.groups.joined(separator: ", "))) }
        if !request.localizedWhatsNew.isEmpty { shown.append(StepOption("localizedWhatsNew", request.localizedWhatsNew.keys.sorted().joined(separator: ", "))) }
        if request.submitForBetaReview { shown.append(StepOption("submitForBetaReview", "true")) }
        if let encryption = request.usesNonExemptEncryption { shown.append(StepOption("usesNonExemptEncryption", String(encryption))) }
        return shown
    }

    /// Uploads the IPA through the `Store` contract: the package is made an artifact (the run's
    /// own when it made the file) and its digest checked before anything is sent.
    /// - Throws: `StorePreflightError` with every problem before anything is sent; store and transport errors after.
    package func run(in step: StepContext) async throws -> TestFlightBuild {
        let artifact = try AppStoreConnectStore.artifact(for: package ?? request.ipa, in: step)
        return try await AppStoreConnectStore.upload([artifact], options: request, in: step)
    }
}

extension AppStoreConnectStore {
    /// Uploads the IPA (or carries on an earlier run's upload), waits for processing and readies the build;
    /// in a dry run stops after preflight and returns the build it would make.
    /// - Throws: `StorePreflightError` with every problem before anything is sent; store and transport errors after.
    package static func send(_ package: StorePackage, options: TestFlightRequest, in step: StepContext) async throws -> TestFlightBuild {
        let lane = step.lane
        var request = options
        request.ipa = package.file
        request.sha256 = package.checkedSHA256
        // For CI and tests: look at Apple's processing more (or less) often than the lane says.
        if let interval = Double(lane.environment["SHIPLANE_POLL_INTERVAL"] ?? ""), interval >= 0 { request.pollInterval = interval }
        let variables = lane.environment.variables
        var problems: [any Error] = []
        var metadata: IPAMetadata?
        do { metadata = try IPAMetadata.read(ipa: request.ipa) } catch { problems.append(error) }
        guard let credentials = AppStoreConnectStore.credentials(from: variables, workingDirectory: lane.workingDirectory, problems: &problems) else {
            throw StorePreflightError(target: "TestFlight", problems: problems)
        }
        let transport = step.httpTransport()
        let store = AppStoreConnectStore.connect(credentials, app: nil, variables: variables, transport: transport, now: lane.state.now)
        let client = store.client
        let uploader = TestFlightUploader(client: client, partTransport: transport, log: { step.log($0) },
                                          sleep: { try await Task.sleep(nanoseconds: UInt64(max(0, $0) * 1_000_000_000)) },
                                          now: lane.state.now)
        guard let metadata else {
            // The IPA is unusable; still check the key with one cheap read, so both are reported now.
            do { try await store.checkAccess() } catch { problems.append(error) }
            throw StorePreflightError(target: "TestFlight", problems: problems)
        }
        // Earlier work, found in one place: the contract's `uploadStart`, from `earlierUpload`.
        let start: StoreUploadStart
        do {
            start = try await store.uploadStart(of: package, state: StoreResumeState(lane: lane))
        } catch {
            throw StorePreflightError(target: "TestFlight", problems: [error])
        }
        let plan: TestFlightPlan
        do {
            plan = try await uploader.preflight(request, metadata: metadata, start: start)
        } catch let failure as StorePreflightError {
            throw failure
        } catch {
            throw StorePreflightError(target: "TestFlight", problems: [error])
        }
        if step.isDryRun {
            step.note(plan.summary)
            var buildID = "(dry run)"
            if case .unchanged(let earlier) = plan.start { buildID = earlier.id }
            return TestFlightBuild(id: buildID, appID: plan.appID, bundleID: metadata.bundleID, version: metadata.version,
                                   buildNumber: metadata.buildNumber, processingState: "DRY_RUN")
        }
        let acceptance = Acceptance()
        let label = "\(metadata.version) (\(metadata.buildNumber))"
        let api = client.apiBaseURL
        let effect: @Sendable (String?) -> BuildUploadCreated = { uploadID in
            BuildUploadCreated(api: api, uploadID: uploadID, label: label, appID: plan.appID,
                               version: metadata.version, buildNumber: metadata.buildNumber, platform: metadata.platform)
        }
        if case .replace(let earlier) = plan.start {
            try await deleteUnfinished(earlier, as: BuildUploadReplaced(api: api, uploadID: earlier.id, label: label), in: step) {
                try await client.deleteBuildUpload(id: earlier.id)
            }
        }
        let build = try await uploader.upload(plan, request: request, beforeCreatingUpload: {
            // Written down as data before the create call, so any process (this one, the
            // supervisor after a kill, `shiplane rollback`) can delete it, even when the answer
            // with its id never came.
            acceptance.recorded(try step.record(effect(nil), "delete the build upload for \(label)"))
        }, onUploadCreated: { uploadID in
            step.done(acceptance.handle, effect(uploadID))
        }, onAccepted: { buildID in
            step.keep(acceptance.handle, "App Store Connect accepted build \(label) (\(buildID)); a build cannot be deleted, so it stays (expire it in TestFlight if testers must not get it)")
        })
        step.note("\(build.bundleID) \(build.version) (\(build.buildNumber)) in TestFlight" +
                  (plan.groupIDs.isEmpty ? "" : " for \(plan.groupIDs.map(\.name).joined(separator: ", "))"))
        return build
    }
}

/// The build upload's effect handle once written down, shared with the upload's callbacks.
private final class Acceptance: @unchecked Sendable {
    // @unchecked: `recordedHandle` is only touched under `lock`.
    private let lock = NSLock()
    private var recordedHandle: EffectHandle?

    func recorded(_ handle: EffectHandle?) { lock.withLock { recordedHandle = handle } }
    var handle: EffectHandle? { lock.withLock { recordedHandle } }
}

extension LaneContext {
    /// Uploads an IPA (a path or an artifact, whose recorded SHA-256 the file must still have) to
    /// TestFlight: reads its bundle ID, version and build number, uploads it,
    /// waits for Apple's processing (at most `processingTimeout` seconds), sets What to Test and
    /// adds the build to `groups`. Returns the build. `expectedVersion` / `expectedBuildNumber`
    /// make preflight refuse an IPA built for another version (a stale artifact).
    @discardableResult
    public func uploadToTestFlight(
        ipa: any ArtifactConvertible, whatsNew: String? = nil, groups: [String] = [], locale: String = "en-US",
        localizedWhatsNew: [String: String] = [:], submitForBetaReview: Bool = false, usesNonExemptEncryption: Bool? = nil,
        processingTimeout: Double = 3600, pollInterval: Double = 30, uploadConcurrency: Int = 4,
        expectedVersion: String? = nil, expectedBuildNumber: String? = nil,
        file: String = #fileID, line: Int = #line
    ) async throws -> TestFlightBuild {
        var request = TestFlightRequest(
            ipa: try ArtifactInputs.paths([ipa])[0], whatsNew: whatsNew, locale: locale, groups: groups, submitForBetaReview: submitForBetaReview,
            usesNonExemptEncryption: usesNonExemptEncryption, processingTimeout: processingTimeout,
            pollInterval: pollInterval, uploadConcurrency: uploadConcurrency,
            expectedVersion: expectedVersion, expectedBuildNumber: expectedBuildNumber)
        request.localizedWhatsNew = localizedWhatsNew
        return try await run(UploadToTestFlight(request, package: ipa as? Artifact), file: file, line: line)
    }
}

extension UploadToTestFlight: DocumentedAction {
    /// How `lane.uploadToTestFlight` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Stores",
        summary: "Upload an IPA to App Store Connect from any machine (no Xcode, no Transporter), wait for processing, set What to Test and add the build to beta groups. Credentials: APP_STORE_CONNECT_KEY_ID, APP_STORE_CONNECT_ISSUER_ID, APP_STORE_CONNECT_PRIVATE_KEY (PEM) or APP_STORE_CONNECT_PRIVATE_KEY_PATH; APP_STORE_CONNECT_API_URL overrides the API base.",
        signature: "try await lane.uploadToTestFlight(ipa: any ArtifactConvertible, whatsNew: String? = nil, groups: [String] = [], locale: String = \"en-US\", localizedWhatsNew: [String: String] = [:], submitForBetaReview: Bool = false, usesNonExemptEncryption: Bool? = nil, processingTimeout: Double = 3600, pollInterval: Double = 30, uploadConcurrency: Int = 4, expectedVersion: String? = nil, expectedBuildNumber: String? = nil) -> TestFlightBuild",
        parameters: [
            .init(name: "ipa", type: "any ArtifactConvertible", defaultValue: nil, help: "the IPA (a path, or the Artifact a step returned: its SHA-256 is checked before the upload); bundle ID, version and build number are read from its Payload/*.app/Info.plist"),
            .init(name: "whatsNew", type: "String?", defaultValue: "nil", help: "What to Test, at most 4000 characters"),
            .init(name: "localizedWhatsNew", type: "[String: String]", defaultValue: "[:]", help: "What to Test per locale, as lane.storeNotes(for: .testFlight, locales: [...]) returns it"),
            .init(name: "groups", type: "[String]", defaultValue: "[]", help: "beta group names to add the build to (checked in preflight)"),
            .init(name: "locale", type: "String", defaultValue: "\"en-US\"", help: "the language of What to Test"),
            .init(name: "submitForBetaReview", type: "Bool", defaultValue: "false", help: "submit the build for external beta review"),
            .init(name: "usesNonExemptEncryption", type: "Bool?", defaultValue: "nil", help: "export compliance answer; nil leaves it to Info.plist (ITSAppUsesNonExemptEncryption)"),
            .init(name: "processingTimeout", type: "Double", defaultValue: "3600", help: "seconds to wait for Apple's processing at most"),
            .init(name: "pollInterval", type: "Double", defaultValue: "30", help: "seconds between two looks at the processing state"),
            .init(name: "uploadConcurrency", type: "Int", defaultValue: "4", help: "upload parts sent at once"),
            .init(name: "expectedVersion", type: "String?", defaultValue: "nil", help: "refuse an IPA of another version in preflight (a stale artifact)"),
            .init(name: "expectedBuildNumber", type: "String?", defaultValue: "nil", help: "refuse an IPA of another build number in preflight"),
        ],
        example: #"let build = try await lane.uploadToTestFlight(ipa: "build/App.ipa", whatsNew: notes, groups: ["QA"])"#,
        dryRun: "preflight reads only (key, IPA, app, groups, earlier uploads), then says what would be uploaded where",
        rollback: "deletes the build upload this run made while Apple has not accepted it; an accepted build cannot be deleted and is left (rollback says so)"
    )
}
