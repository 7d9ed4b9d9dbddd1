import Foundation

/// Uploads an IPA through App Store Connect's build-upload API and readies the build for testers.
///
/// Preflight reads only. The upload: build upload → upload file → every upload operation →
/// commit with the SHA-256 → poll until Apple's processing completes or fails → wait for the
/// build to be valid → export compliance, What to Test, beta groups, beta review.
struct TestFlightUploader: Sendable {
    let client: AppStoreConnectClient
    /// For the upload operations: Apple's storage URLs, no token.
    let partTransport: HTTPTransport
    let log: @Sendable (String) -> Void
    let sleep: @Sendable (Double) async throws -> Void
    let now: @Sendable () -> Date

    // MARK: - Preflight

    /// Reads the API and checks the request against it; every problem at once.
    /// - Throws: `StorePreflightError`.
    /// `start` is where the contract's `uploadStart` says the upload begins.
    func preflight(_ request: TestFlightRequest, metadata: IPAMetadata, start: StoreUploadStart) async throws -> TestFlightPlan {
        var problems: [any Error] = []
        if let expected = request.expectedVersion, expected != metadata.version {
            problems.append(ShiplaneError("the IPA is version \(metadata.version), not \(expected)",
                                          suggestion: "the artifact is stale: build the IPA from this version's commit"))
        }
        if let expected = request.expectedBuildNumber, expected != metadata.buildNumber {
            problems.append(ShiplaneError("the IPA is build \(metadata.buildNumber), not \(expected)",
                                          suggestion: "the artifact is stale: build the IPA from this version's commit"))
        }
        if let whatsNew = request.whatsNew, whatsNew.count > 4000 {
            problems.append(ShiplaneError("What to Test is \(whatsNew.count) characters; App Store Connect takes at most 4000"))
        }
        for (locale, text) in request.localizedWhatsNew.sorted(by: { $0.key < $1.key }) where text.count > 4000 {
            problems.append(ShiplaneError("What to Test for \(locale) is \(text.count) characters; App Store Connect takes at most 4000",
                                          suggestion: "make the notes with lane.storeNotes(for: .testFlight), which cuts them with a visible …"))
        }
        guard let app = try await client.app(bundleID: metadata.bundleID) else {
            problems.append(ShiplaneError(
                "App Store Connect has no app with bundle ID \(metadata.bundleID) for this API key's team",
                suggestion: "create the app in App Store Connect (My Apps → +), or check that the IPA and the key belong to the same team"))
            throw StorePreflightError(target: "TestFlight", problems: problems)
        }
        var groupIDs: [(name: String, id: String)] = []
        if !request.groups.isEmpty {
            let groups = try await client.betaGroups(appID: app.id)
            let missing = request.groups.filter { name in !groups.contains { $0.attributes?.name == name } }
            if !missing.isEmpty {
                let known = groups.compactMap { $0.attributes?.name }.sorted()
                problems.append(ShiplaneError(
                    "no beta group named \(missing.joined(separator: ", ")) in the app",
                    info: [("groups", known.isEmpty ? "none" : known.joined(separator: ", "))],
                    suggestion: "create the group in TestFlight, or pass one of the existing names"))
            }
            groupIDs = request.groups.compactMap { name in groups.first { $0.attributes?.name == name }.map { (name, $0.id) } }
        }
        guard problems.isEmpty else { throw StorePreflightError(target: "TestFlight", problems: problems) }
        return TestFlightPlan(metadata: metadata, appID: app.id, appName: app.attributes?.name, groupIDs: groupIDs, start: start)
    }

    // MARK: - Upload

    /// Uploads (or resumes) and readies the build.
    /// - Parameters:
    ///   - beforeCreatingUpload: called just before the create call (write it down; a throw stops the upload).
    ///   - onUploadCreated: called with a build upload's id as soon as it exists.
    ///   - onAccepted: called once Apple has accepted the build (it can no longer be deleted).
    func upload(
        _ plan: TestFlightPlan, request: TestFlightRequest, beforeCreatingUpload: @Sendable () throws -> Void,
        onUploadCreated: @Sendable (String) -> Void, onAccepted: @Sendable (String) -> Void
    ) async throws -> TestFlightBuild {
        let metadata = plan.metadata
        var polls = request.maxPolls
        let buildID: String
        switch plan.start {
        case .unchanged(let earlier):
            log("build \(metadata.version) (\(metadata.buildNumber)) is already on App Store Connect: not uploading it again")
            onAccepted(earlier.id)
            buildID = earlier.id
        case .carryOn(let earlier):
            log("build upload \(earlier.id) from an earlier run is being processed: waiting for it")
            buildID = try await awaitProcessing(uploadID: earlier.id, plan: plan, request: request, polls: &polls, onAccepted: onAccepted)
        case .fresh, .replace:
            // An unfinished upload to replace is deleted before this, as a recorded effect (`AppStoreConnectStore.send`).
            let uploadID = try await send(plan, request: request, beforeCreatingUpload: beforeCreatingUpload, onUploadCreated: onUploadCreated)
            buildID = try await awaitProcessing(uploadID: uploadID, plan: plan, request: request, polls: &polls, onAccepted: onAccepted)
        }
        let build = try await awaitValidBuild(buildID, polls: &polls, request: request)
        try await readyForTesters(buildID: buildID, plan: plan, request: request, answered: build.attributes?.usesNonExemptEncryption)
        return TestFlightBuild(id: buildID, appID: plan.appID, bundleID: metadata.bundleID, version: metadata.version,
                               buildNumber: metadata.buildNumber, processingState: build.attributes?.processingState ?? "VALID")
    }

    /// Creates the build upload and its file, sends every part and commits; returns the upload's id.
    private func send(
        _ plan: TestFlightPlan, request: TestFlightRequest, beforeCreatingUpload: @Sendable () throws -> Void,
        onUploadCreated: @Sendable (String) -> Void
    ) async throws -> String {
        let metadata = plan.metadata
        // The checksum is only needed for the commit: compute it while the parts go up (an
        // unreadable file still fails the step, and rollback deletes the upload).
        let checksum = request.sha256.map(FileDigest.known) ?? FileDigest.startSHA256(of: request.ipa)
        defer { checksum.cancel() }
        try beforeCreatingUpload()
        let upload = try await client.createBuildUpload(appID: plan.appID, version: metadata.version,
                                                        buildNumber: metadata.buildNumber, platform: metadata.platform)
        onUploadCreated(upload.id)
        let fileName = URL(fileURLWithPath: request.ipa).lastPathComponent
        let file = try await client.createBuildUploadFile(uploadID: upload.id, fileName: fileName, fileSize: metadata.fileSize)
        let operations = try UploadOperations(file.attributes?.uploadOperations ?? [], file: request.ipa,
                                              fileSize: metadata.fileSize, now: now())
        log("uploading \(fileName) (\(ByteCountText.file(metadata.fileSize))) in \(operations.operations.count) part\(operations.operations.count == 1 ? "" : "s")")
        let progress = UploadProgress(total: metadata.fileSize, parts: operations.operations.count)
        // 512 KiB reads, as for screenshots: `uploadConcurrency` parts go up at once, about two
        // chunks of each in memory (Scripts/bench stores, 2026-11-26: peak 60–62 MiB with 1 MiB).
        try await operations.perform(with: partTransport, concurrency: max(1, request.uploadConcurrency), timeout: 600,
                                     chunkSize: 512 << 10) { [log] length in
            log(progress.partDone(length))
        }
        try await client.commitBuildUploadFile(id: file.id, sha256: try await checksum.value)
        log("uploaded; App Store Connect is processing build upload \(upload.id)")
        return upload.id
    }

    /// Polls the build upload until it completes (returns the build's id) or fails.
    private func awaitProcessing(uploadID: String, plan: TestFlightPlan, request: TestFlightRequest, polls: inout Int, onAccepted: @Sendable (String) -> Void) async throws -> String {
        var lastState = ""
        var warned: Set<String> = []
        while polls > 0 {
            polls -= 1
            let upload = try await client.buildUpload(id: uploadID)
            let state = upload.attributes?.state
            let name = state?.state ?? "UNKNOWN"
            if name != lastState { log("build upload \(uploadID): \(name)"); lastState = name }
            for warning in state?.warnings ?? [] where warned.insert(warning.text).inserted {
                log("App Store Connect warns: \(warning.text)")
            }
            switch name {
            case "COMPLETE":
                var buildID = upload.relatedID("build")
                if buildID == nil {
                    buildID = try await client.build(appID: plan.appID, version: plan.metadata.version, buildNumber: plan.metadata.buildNumber,
                                                     platform: plan.metadata.platform)?.id
                }
                if let buildID {
                    onAccepted(buildID)
                    return buildID
                }
            case "FAILED":
                throw StoreProcessingError(
                    "App Store Connect could not process build \(plan.metadata.version) (\(plan.metadata.buildNumber))",
                    errors: (state?.errors ?? []).map(\.text), warnings: (state?.warnings ?? []).map(\.text),
                    suggestion: "fix what Apple lists, bump the build number and upload again")
            default:
                break
            }
            if polls > 0 { try await sleep(request.pollInterval) }
        }
        throw timeout(plan)
    }

    /// Polls the build until Apple calls it VALID.
    private func awaitValidBuild(_ buildID: String, polls: inout Int, request: TestFlightRequest) async throws -> AppStoreConnectClient.Build {
        var lastState = ""
        while true {
            let build = try await client.build(id: buildID)
            let state = build.attributes?.processingState ?? "VALID"
            if state != lastState, state != "VALID" { log("build \(buildID): \(state)"); lastState = state }
            switch state {
            case "VALID":
                return build
            case "FAILED", "INVALID":
                throw StoreProcessingError("App Store Connect marked build \(buildID) \(state)", errors: [],
                                           suggestion: "see the build in App Store Connect → TestFlight for Apple's reasons")
            default:
                guard polls > 0 else {
                    throw ShiplaneError("build \(buildID) was still \(state) when the wait for processing ran out",
                                        suggestion: "raise processingTimeout, or run again later: the run resumes with this build")
                }
                polls -= 1
                try await sleep(request.pollInterval)
            }
        }
    }

    /// Export compliance (only when the build has no answer yet, as fastlane does), What to Test, groups, beta review.
    private func readyForTesters(buildID: String, plan: TestFlightPlan, request: TestFlightRequest, answered: Bool?) async throws {
        if let encryption = request.usesNonExemptEncryption {
            if let answered {
                log("export compliance already answered for this build (usesNonExemptEncryption = \(answered)): left as it is")
            } else {
                try await client.setUsesNonExemptEncryption(buildID: buildID, encryption)
                log("export compliance: usesNonExemptEncryption = \(encryption)")
            }
        }
        if let whatsNew = request.whatsNew {
            try await client.setWhatToTest(buildID: buildID, locale: request.locale, text: whatsNew)
            log("What to Test set (\(request.locale))")
        }
        for (locale, text) in request.localizedWhatsNew.sorted(by: { $0.key < $1.key }) where !(request.whatsNew != nil && locale == request.locale) {
            try await client.setWhatToTest(buildID: buildID, locale: locale, text: text)
            log("What to Test set (\(locale))")
        }
        if !plan.groupIDs.isEmpty {
            try await client.addBuild(buildID, toGroups: plan.groupIDs.map(\.id))
            log("added to \(plan.groupIDs.map(\.name).joined(separator: ", "))")
        }
        if request.submitForBetaReview {
            if let state = try await client.submitForBetaReview(buildID: buildID) {
                log("already submitted for beta app review (\(state))")
            } else {
                log("submitted for beta app review")
            }
        }
    }

    private func timeout(_ plan: TestFlightPlan) -> ShiplaneError {
        ShiplaneError("App Store Connect was still processing \(plan.metadata.version) (\(plan.metadata.buildNumber)) when the wait ran out",
                      suggestion: "raise processingTimeout, or run again later: the run finds the upload and waits for it")
    }
}

/// Counts the parts sent, for progress lines ("part 2 of 3 sent, 67%").
final class UploadProgress: @unchecked Sendable {
    // @unchecked: the counters are only touched under `lock`.
    private let lock = NSLock()
    private let total: Int64
    private let parts: Int
    private var sentParts = 0
    private var sentBytes: Int64 = 0

    init(total: Int64, parts: Int) {
        self.total = max(1, total)
        self.parts = parts
    }

    func partDone(_ length: Int64) -> String {
        lock.withLock {
            sentParts += 1
            sentBytes += length
            return "part \(sentParts) of \(parts) sent, \(Int((Double(sentBytes) * 100 / Double(total)).rounded()))%"
        }
    }
}
