import Foundation

/// Gets an App Store version ready for App Review and, when asked, submits it — what fastlane
/// `deliver` does with `submit_for_review: true`: attaches the build, sets the review details
/// from deliver's `review_information` folder, the release type and the phased release, then
/// opens a review submission with the version and submits it. Only what differs is sent.
///
/// The version must exist and be editable (as deliver, which never creates it here:
/// `updateAppStoreMetadata` does). Submission is the store's point of no return: a run that fails
/// before it is rolled back (the previous build, review details, release type and phased release
/// put back, a review submission this run opened cancelled); after it, nothing is undone. A
/// version already waiting for review is reported and never submitted twice.
package struct AppStoreSubmission: Sendable {
    static let editableStates: Set<String> = ["PREPARE_FOR_SUBMISSION", "DEVELOPER_REJECTED", "REJECTED", "METADATA_REJECTED", "INVALID_BINARY", "READY_FOR_REVIEW"]
    static let inReviewStates: Set<String> = ["WAITING_FOR_REVIEW", "IN_REVIEW"]
    static let target = "the App Store submission"

    var bundleID: String
    var version: String
    var platform: String
    /// The build number to attach (nil: leave the attached build).
    var build: String?
    var metadataPath: String
    /// MANUAL, AFTER_APPROVAL or SCHEDULED (nil: leave it).
    var releaseType: String?
    /// For SCHEDULED: ISO 8601 date and time.
    var earliestReleaseDate: String?
    /// True: release in phases over 7 days; false: to everyone at once; nil: leave it.
    var phasedRelease: Bool?
    /// Submit for review (only then).
    var submit: Bool
    /// Seconds to wait for a build still processing before attaching it; 0 (the default): a build
    /// still processing stops the run in preflight.
    var processingTimeout: Double = 0
    /// Seconds between two looks at a processing build (`SHIPLANE_POLL_INTERVAL` overrides it, as for `uploadToTestFlight`).
    var pollInterval: Double = 30

    /// The options as the step shows them.
    package var options: [StepOption] {
        var list = [StepOption("bundleID", bundleID), StepOption("version", version), StepOption("platform", platform)]
        if let build { list.append(StepOption("build", build)) }
        list.append(StepOption("metadataPath", metadataPath))
        if let releaseType { list.append(StepOption("releaseType", releaseType)) }
        if let earliestReleaseDate { list.append(StepOption("earliestReleaseDate", earliestReleaseDate)) }
        if let phasedRelease { list.append(StepOption("phasedRelease", phasedRelease ? "true" : "false")) }
        list.append(StepOption("submit", submit ? "true" : "false"))
        if processingTimeout > 0 { list.append(StepOption("processingTimeout", String(processingTimeout))) }
        return list
    }

    /// Checks the options; every problem at once.
    func optionProblems() -> [any Error] {
        var problems: [any Error] = []
        if !["IOS", "MAC_OS", "TV_OS", "VISION_OS"].contains(platform) {
            problems.append(ShiplaneError("platform \(platform) is not one of IOS, MAC_OS, TV_OS, VISION_OS"))
        }
        if let releaseType, !["MANUAL", "AFTER_APPROVAL", "SCHEDULED"].contains(releaseType) {
            problems.append(ShiplaneError("releaseType \(releaseType) is not one of MANUAL, AFTER_APPROVAL, SCHEDULED"))
        }
        if releaseType == "SCHEDULED" {
            if let date = earliestReleaseDate {
                if ISO8601DateFormatter().date(from: date) == nil {
                    problems.append(ShiplaneError("earliestReleaseDate \(date) is not an ISO 8601 date and time",
                                                  suggestion: "write it as 2026-12-01T08:00:00Z"))
                }
            } else {
                problems.append(ShiplaneError("releaseType SCHEDULED needs earliestReleaseDate", suggestion: "pass earliestReleaseDate: \"2026-12-01T08:00:00Z\""))
            }
        } else if earliestReleaseDate != nil {
            problems.append(ShiplaneError("earliestReleaseDate is only for releaseType SCHEDULED", suggestion: "pass releaseType: \"SCHEDULED\", or leave the date out"))
        }
        if let build, build.isEmpty { problems.append(ShiplaneError("build is empty", suggestion: "pass the build number (CFBundleVersion), or leave it out")) }
        if !(processingTimeout >= 0) || !processingTimeout.isFinite {
            problems.append(ShiplaneError("processingTimeout is \(processingTimeout); it must be 0 (do not wait) or a number of seconds"))
        }
        if !(pollInterval > 0) || !pollInterval.isFinite {
            problems.append(ShiplaneError("pollInterval is \(pollInterval); it must be a number of seconds above 0"))
        }
        return problems
    }


    /// Opens (or reuses) the app's review submission for the platform, adds the version, submits.
    func submitForReview(step: StepContext, client: AppStoreConnectClient, appID: String, versionID: String, changeCount: Int) async throws -> Bool {
        let api = client.apiBaseURL
        let open = try await client.reviewSubmissions(appID: appID, platform: platform,
                                                      states: ["READY_FOR_REVIEW", "WAITING_FOR_REVIEW", "IN_REVIEW", "UNRESOLVED_ISSUES"])
        if let busy = open.first(where: { $0.attributes?.state != "READY_FOR_REVIEW" }) {
            throw ShiplaneError("the app already has a review submission in progress for \(platform) (\(busy.id), \(busy.attributes?.state ?? "")): a second one cannot be submitted",
                                suggestion: "wait for App Review to finish it, or cancel it in App Store Connect, then run again")
        }
        var submissionID = open.first?.id
        var hasItem = false
        if let submissionID {
            let items = try await client.reviewItems(submissionID: submissionID)
            hasItem = items.contains { $0.relationships?["appStoreVersion"]?.data?.id == versionID }
            if !hasItem && !items.isEmpty {
                throw ShiplaneError("the app's open review submission \(submissionID) holds items this lane did not add",
                                    suggestion: "submit or remove them in App Store Connect, then run again")
            }
            step.log("reusing the open review submission \(submissionID)")
        } else {
            var effect = AppStoreReviewSubmissionCreated(api: api, appID: appID, platform: platform, id: nil)
            let handle = try step.record(effect, "cancel the review submission")
            let id = try await client.createReviewSubmission(appID: appID, platform: platform)
            effect.id = id
            step.done(handle, effect)
            submissionID = id
        }
        guard let submissionID else { return false }
        if !hasItem {
            var effect = AppStoreReviewItemAdded(api: api, submissionID: submissionID, versionID: versionID, id: nil)
            let handle = try step.record(effect, "remove \(version) from the review submission")
            effect.id = try await client.addReviewItem(submissionID: submissionID, versionID: versionID)
            step.done(handle, effect)
        }
        let reason = "App Store version \(version) (\(platform)) submitted for review"
        try step.passPointOfNoReturn(reason)
        let handle = try step.record(AppStoreSubmittedForReview(submissionID: submissionID, version: version), "App Store version \(version) stays submitted for review")
        try await client.submitReviewSubmission(id: submissionID)
        step.done(handle)
        step.note("changed \(changeCount) setting\(changeCount == 1 ? "" : "s") of \(version) and submitted it for review")
        return true
    }

    /// Looks at a processing build every `pollInterval` seconds until it is processed, before
    /// anything is written; a dry run does not wait. Returns the build as last read.
    /// - Throws: `StoreProcessingError` when `processingTimeout` passes first.
    func waitForProcessing(_ build: AppStoreConnectClient.Build, label: String, client: AppStoreConnectClient, in step: StepContext) async throws -> AppStoreConnectClient.Build {
        guard !step.isDryRun else { return build }
        let lane = step.lane
        let interval = Double(lane.environment["SHIPLANE_POLL_INTERVAL"] ?? "").flatMap { $0 >= 0 ? $0 : nil } ?? pollInterval
        let deadline = lane.state.now().addingTimeInterval(processingTimeout)
        step.log("build \(label) is still processing on App Store Connect: waiting for it (at most \(Self.seconds(processingTimeout)))")
        var current = build
        while current.attributes?.processingState == "PROCESSING" {
            guard lane.state.now() < deadline else {
                throw StoreProcessingError("build \(label) is still processing on App Store Connect after \(Self.seconds(processingTimeout))", errors: [],
                                           suggestion: "raise processingTimeout, or run again later: nothing was changed")
            }
            try await Task.sleep(nanoseconds: UInt64(interval * 1_000_000_000))
            current = try await client.build(id: build.id)
        }
        step.log("build \(label) is \(current.attributes?.processingState ?? "in no state")")
        return current
    }

    static func seconds(_ value: Double) -> String { value == value.rounded() ? "\(Int(value)) s" : "\(value) s" }

    static func show(_ value: ASCJSONValue?) -> String {
        switch value {
        case .none: "(none)"
        case .some(.flag(let flag)): flag ? "true" : "false"
        case .some(.text(let text)): AppStoreListingUpdate.quote(text)
        case .some(.other): "(other)"
        }
    }

    /// Whether two ISO 8601 dates are the same instant (false when `old` is nil or unreadable).
    static func sameInstant(_ old: String?, _ new: String) -> Bool {
        let formatter = ISO8601DateFormatter()
        guard let old, let a = formatter.date(from: old) ?? ISO8601DateFormatter.withFractions(old), let b = formatter.date(from: new) else { return false }
        return a == b
    }
}

/// `lane.submitToAppStore`: an App Store version made ready for App Review and submitted when
/// asked, through the `Store` contract (`AppStoreConnectStore.submit`).
package struct SubmitToAppStore: AsyncAction {
    /// The action's name in steps and reports.
    package static let name = "submitToAppStore"
    /// What to set and whether to submit.
    var submission: AppStoreSubmission

    /// Creates the action.
    init(bundleID: String, version: String, platform: String, build: String?, metadataPath: String, releaseType: String?,
         earliestReleaseDate: String?, phasedRelease: Bool?, submit: Bool, processingTimeout: Double = 0, pollInterval: Double = 30) {
        submission = AppStoreSubmission(bundleID: bundleID, version: version, platform: platform, build: build, metadataPath: metadataPath,
                                        releaseType: releaseType, earliestReleaseDate: earliestReleaseDate, phasedRelease: phasedRelease,
                                        submit: submit, processingTimeout: processingTimeout, pollInterval: pollInterval)
    }

    /// The options as the step shows them.
    package var options: [StepOption] { submission.options }

    /// Checks the options; every problem at once.
    func optionProblems() -> [any Error] { submission.optionProblems() }

    /// Returns true when this run submitted the version for review.
    package func run(in step: StepContext) async throws -> Bool {
        try await AppStoreConnectStore.submit(submission, in: step)
    }
}

extension AppStoreConnectStore {
    /// Gets an App Store version ready for App Review and submits it when asked (`lane.submitToAppStore`);
    /// returns true when this run submitted the version for review.
    /// - Throws: `StorePreflightError` before anything is sent; store and transport errors after.
    package static func submit(_ submission: AppStoreSubmission, in step: StepContext) async throws -> Bool {
        let (bundleID, version, platform, build, metadataPath) = (submission.bundleID, submission.version, submission.platform, submission.build, submission.metadataPath)
        let (releaseType, earliestReleaseDate, phasedRelease, submit) = (submission.releaseType, submission.earliestReleaseDate, submission.phasedRelease, submission.submit)
        let processingTimeout = submission.processingTimeout
        let lane = step.lane
        let variables = lane.environment.variables
        var problems = submission.optionProblems()
        var review: AppStoreReviewInformation?
        do { review = try AppStoreReviewInformation.read(folder: step.resolve(metadataPath) + "/review_information") } catch { problems.append(error) }
        if let password = review?.values[AppStoreReviewInformation.password] { lane.registerSecret(password) }
        let credentials = AppStoreConnectStore.credentials(from: variables, workingDirectory: lane.workingDirectory, problems: &problems)
        guard let credentials, problems.isEmpty else { throw StorePreflightError(target: AppStoreSubmission.target, problems: problems) }
        var transport = step.httpTransport()
        if let password = review?.values[AppStoreReviewInformation.password] { transport.redactor = transport.redactor.adding([password]) }
        let client = AppStoreConnectStore.connect(credentials, app: nil, variables: variables, transport: transport, now: lane.state.now).client
        let api = client.apiBaseURL
        func preflight(_ message: String, _ suggestion: String) -> StorePreflightError {
            StorePreflightError(target: AppStoreSubmission.target, problems: [ShiplaneError(message, suggestion: suggestion)])
        }
        // The first request: a refused key or an unreachable API is a preflight problem, nothing sent yet.
        let foundApp: AppStoreConnectClient.App?
        do { foundApp = try await client.app(bundleID: bundleID) } catch { throw StorePreflightError(target: AppStoreSubmission.target, problems: [error]) }
        guard let app = foundApp else {
            throw preflight("App Store Connect has no app with bundle ID \(bundleID) for this API key's team", "create the app in App Store Connect (My Apps → +), or check the bundle ID")
        }
        let versions = try await client.getAll("/v1/apps/\(app.id)/appStoreVersions", query: [
            ("filter[versionString]", version), ("filter[platform]", platform), ("limit", "200"),
        ], as: ASCResource<ASCAppStoreVersion>.self, operation: "look for App Store version \(version)")
        guard let found = versions.first(where: { $0.attributes?.versionString == version && ($0.attributes?.platform ?? platform) == platform }) else {
            throw preflight("App Store Connect has no App Store version \(version) for \(platform)",
                            "run lane.updateAppStoreMetadata(bundleID:version:platform:) first: it creates the version and sets its listing")
        }
        let storeVersion = try await client.storeVersion(id: found.id)
        let state = storeVersion.attributes?.appVersionState ?? storeVersion.attributes?.appStoreState ?? ""
        if AppStoreSubmission.inReviewStates.contains(state) {
            step.note("App Store version \(version) (\(platform)) is already \(state): nothing is changed and it is not submitted again")
            return false
        }
        guard AppStoreSubmission.editableStates.contains(state) else {
            throw preflight("App Store version \(version) (\(platform)) is \(state): it can no longer be edited or submitted",
                            "release a new version: create it with updateAppStoreMetadata and a higher version")
        }
        // The build: this version and build number, this platform, processed.
        var newBuildID: String?
        let currentBuildID = storeVersion.relationships?["build"]?.data?.id
        if let build {
            guard var found = try await client.build(appID: app.id, version: version, buildNumber: build, platform: platform) else {
                throw preflight("App Store Connect has no \(platform) build \(version) (\(build))",
                                "upload it first (lane.uploadToTestFlight), or check the version and build number")
            }
            if found.attributes?.processingState == "PROCESSING" && processingTimeout > 0 {
                found = try await submission.waitForProcessing(found, label: "\(version) (\(build))", client: client, in: step)
            }
            switch found.attributes?.processingState {
            case "VALID": break
            case "PROCESSING" where step.isDryRun && processingTimeout > 0:
                step.log("build \(version) (\(build)) is still processing on App Store Connect: the run would wait for it (at most \(AppStoreSubmission.seconds(processingTimeout)))")
            case "PROCESSING":
                throw preflight("build \(version) (\(build)) is still processing on App Store Connect",
                                "pass processingTimeout: to wait for it (as uploadToTestFlight does), or run again once App Store Connect has processed it")
            case let other:
                throw preflight("build \(version) (\(build)) is \(other ?? "in an unknown state"): it cannot be submitted", "upload a new build")
            }
            if found.id != currentBuildID {
                newBuildID = found.id
                step.log("build: \(currentBuildID ?? "(none)") → \(found.id) (\(version) (\(build)))")
            }
        } else if submit && currentBuildID == nil {
            throw preflight("App Store version \(version) has no build to submit", "pass build: the build number to attach")
        }
        // Review details.
        var detailChanges: [(attribute: String, old: ASCJSONValue?, new: ASCJSONValue)] = []
        var detail: AppStoreConnectClient.ReviewDetail?
        if let review {
            detail = try await client.reviewDetail(versionID: found.id)
            var wanted = review.values.mapValues { ASCJSONValue.text($0) }
            wanted[AppStoreReviewInformation.required] = .flag(review.demoAccountRequired)
            for (attribute, value) in wanted.sorted(by: { $0.key < $1.key }) {
                let old = detail?.attributes?[attribute]
                if old != value { detailChanges.append((attribute, old, value)) }
            }
            for change in detailChanges {
                if change.attribute == AppStoreReviewInformation.password {
                    step.log("review \(change.attribute): \(change.old == nil ? "(none)" : "(hidden)") → (hidden)")
                } else {
                    step.log("review \(change.attribute): \(AppStoreSubmission.show(change.old)) → \(AppStoreSubmission.show(change.new))")
                }
            }
        }
        // Release type.
        var releaseAttributes: [String: Any] = [:]
        if let releaseType {
            let oldType = storeVersion.attributes?.releaseType, oldDate = storeVersion.attributes?.earliestReleaseDate
            if oldType != releaseType { releaseAttributes["releaseType"] = releaseType }
            if releaseType == "SCHEDULED", let date = earliestReleaseDate, AppStoreSubmission.sameInstant(oldDate, date) == false {
                releaseAttributes["earliestReleaseDate"] = date
            }
            if !releaseAttributes.isEmpty {
                step.log("releaseType: \(oldType ?? "(none)") → \(releaseType)" + (releaseType == "SCHEDULED" ? " \(earliestReleaseDate ?? "")" : ""))
            }
        }
        // Phased release.
        var phased: ASCResource<ASCPhasedRelease>?
        var phasedChange: Bool?
        if let phasedRelease {
            phased = try await client.phasedRelease(versionID: found.id)
            if phasedRelease && phased == nil { phasedChange = true }
            if !phasedRelease, phased != nil {
                guard phased?.attributes?.phasedReleaseState == "INACTIVE" || phased?.attributes?.phasedReleaseState == nil else {
                    throw preflight("the phased release of \(version) is \(phased?.attributes?.phasedReleaseState ?? ""): it can no longer be turned off here",
                                    "complete or pause it in App Store Connect")
                }
                phasedChange = false
            }
            if let phasedChange { step.log("phasedRelease: \(phasedChange ? "off → on" : "on → off")") }
        }
        let changeCount = (newBuildID == nil ? 0 : 1) + detailChanges.count + (releaseAttributes.isEmpty ? 0 : 1) + (phasedChange == nil ? 0 : 1)
        if step.isDryRun {
            step.log(submit ? "would submit App Store version \(version) (\(platform)) for review" : "would not submit for review (submit: false)")
            step.note("would change \(changeCount) setting\(changeCount == 1 ? "" : "s") of \(version)\(submit ? " and submit it for review" : "")")
            return false
        }
        let label = "\(version) (\(platform))"
        if let newBuildID {
            let effect = AppStoreBuildAttached(api: api, versionID: found.id, version: label, buildID: newBuildID, previousBuildID: currentBuildID)
            let handle = try step.record(effect, currentBuildID == nil ? "build \(newBuildID) stays attached (no detach in App Store Connect)" : "attach build \(currentBuildID ?? "") again")
            try await client.attachBuild(versionID: found.id, buildID: newBuildID)
            step.done(handle)
        }
        if !detailChanges.isEmpty {
            var attributes: [String: Any] = [:]
            var previous: [String: String?] = [:]
            var setTo: [String: String?] = [:]
            for change in detailChanges {
                switch change.new {
                case .text(let text): attributes[change.attribute] = text
                case .flag(let flag): attributes[change.attribute] = flag
                case .other: break
                }
                if change.attribute != AppStoreReviewInformation.password {
                    previous[change.attribute] = change.old?.recorded
                    setTo[change.attribute] = change.new.recorded
                }
            }
            let passwordChanged = detailChanges.contains { $0.attribute == AppStoreReviewInformation.password }
            var effect = AppStoreReviewDetailChanged(api: api, versionID: found.id, version: label, id: detail?.id, created: detail == nil, previous: previous,
                                                     passwordChanged: passwordChanged, passwordWasSet: detail?.attributes?[AppStoreReviewInformation.password]?.recorded.map { !$0.isEmpty } ?? false,
                                                     setTo: setTo)
            let handle = try step.record(effect, "put back the review details of \(version)")
            if let id = detail?.id {
                try await client.updateReviewDetail(id: id, attributes: attributes)
                step.done(handle)
            } else {
                effect.id = try await client.createReviewDetail(versionID: found.id, attributes: attributes)
                step.done(handle, effect)
            }
        }
        if !releaseAttributes.isEmpty {
            let effect = AppStoreReleaseTypeChanged(api: api, versionID: found.id, version: label, previousReleaseType: storeVersion.attributes?.releaseType,
                                                    previousEarliestReleaseDate: storeVersion.attributes?.earliestReleaseDate,
                                                    releaseType: releaseType, earliestReleaseDate: releaseAttributes["earliestReleaseDate"] as? String)
            let handle = try step.record(effect, "put back the release type \(storeVersion.attributes?.releaseType ?? "(none)")")
            try await client.updateStoreVersion(id: found.id, attributes: releaseAttributes)
            step.done(handle)
        }
        if let phasedChange {
            var effect = AppStorePhasedReleaseChanged(api: api, versionID: found.id, version: label, created: phasedChange, id: phased?.id)
            let handle = try step.record(effect, phasedChange ? "turn the phased release off" : "turn the phased release on again")
            if phasedChange {
                effect.id = try await client.createPhasedRelease(versionID: found.id)
            } else if let id = phased?.id {
                try await client.deletePhasedRelease(id: id)
            }
            step.done(handle, effect)
        }
        guard submit else {
            step.note("changed \(changeCount) setting\(changeCount == 1 ? "" : "s") of \(version); not submitted for review (submit: false)")
            return false
        }
        return try await submission.submitForReview(step: step, client: client, appID: app.id, versionID: found.id, changeCount: changeCount)
    }
}

extension ISO8601DateFormatter {
    static func withFractions(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}

extension LaneContext {
    /// Gets App Store version `version` ready for App Review — attaches build `build`, sets the
    /// review details from deliver's `review_information` folder, the release type and phased
    /// release — sending only what differs; submits it for review only when `submit` is true.
    /// Returns true when this run submitted it.
    @discardableResult
    public func submitToAppStore(bundleID: String, version: String, platform: String = "IOS", build: String? = nil,
                                 metadataPath: String = "fastlane/metadata", releaseType: String? = nil, earliestReleaseDate: String? = nil,
                                 phasedRelease: Bool? = nil, submit: Bool = false, processingTimeout: Double = 0, pollInterval: Double = 30,
                                 file: String = #fileID, line: Int = #line) async throws -> Bool {
        try await run(SubmitToAppStore(bundleID: bundleID, version: version, platform: platform, build: build, metadataPath: metadataPath,
                                       releaseType: releaseType, earliestReleaseDate: earliestReleaseDate, phasedRelease: phasedRelease, submit: submit,
                                       processingTimeout: processingTimeout, pollInterval: pollInterval),
                      file: file, line: line)
    }
}

extension SubmitToAppStore: DocumentedAction {
    /// How `lane.submitToAppStore` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Stores",
        summary: "Get an App Store version ready for App Review and, with submit: true, submit it (deliver's submit_for_review): attaches the build (version, build number and platform; it must be processed), sets the review details from deliver's fastlane/metadata/review_information/ (first_name.txt, last_name.txt, phone_number.txt, email_address.txt, demo_user.txt, demo_password.txt, notes.txt), the release type and the phased release, then opens a review submission with the version and submits it. Only what differs is sent; the demo password is a secret. The version must exist (updateAppStoreMetadata creates it). Submission is the store's point of no return. Credentials as for uploadToTestFlight.",
        signature: "try await lane.submitToAppStore(bundleID: String, version: String, platform: String = \"IOS\", build: String? = nil, metadataPath: String = \"fastlane/metadata\", releaseType: String? = nil, earliestReleaseDate: String? = nil, phasedRelease: Bool? = nil, submit: Bool = false, processingTimeout: Double = 0, pollInterval: Double = 30) -> Bool",
        parameters: [
            .init(name: "bundleID", type: "String", defaultValue: nil, help: "the app's bundle ID"),
            .init(name: "version", type: "String", defaultValue: nil, help: "the App Store version (it must exist and be editable)"),
            .init(name: "platform", type: "String", defaultValue: "\"IOS\"", help: "IOS, MAC_OS, TV_OS or VISION_OS"),
            .init(name: "build", type: "String?", defaultValue: "nil", help: "the build number to attach (nil: keep the attached build)"),
            .init(name: "metadataPath", type: "String", defaultValue: "\"fastlane/metadata\"", help: "deliver's metadata folder; review details come from its review_information folder (absent: left as they are)"),
            .init(name: "releaseType", type: "String?", defaultValue: "nil", help: "MANUAL, AFTER_APPROVAL or SCHEDULED (nil: leave it)"),
            .init(name: "earliestReleaseDate", type: "String?", defaultValue: "nil", help: "for SCHEDULED: ISO 8601, e.g. 2026-12-01T08:00:00Z"),
            .init(name: "phasedRelease", type: "Bool?", defaultValue: "nil", help: "true: release in phases over 7 days; false: to everyone at once; nil: leave it"),
            .init(name: "submit", type: "Bool", defaultValue: "false", help: "submit for review; never done unless true"),
            .init(name: "processingTimeout", type: "Double", defaultValue: "0", help: "seconds to wait for the build while App Store Connect still processes it, before anything is changed (0: a build still processing stops the run)"),
            .init(name: "pollInterval", type: "Double", defaultValue: "30", help: "seconds between two looks at a processing build"),
        ],
        example: #"try await lane.submitToAppStore(bundleID: "com.acme.rocket", version: "1.4.0", build: "42", releaseType: "AFTER_APPROVAL", submit: true)"#,
        dryRun: "reads only, and prints each setting that would change (the demo password as hidden) and whether it would submit",
        rollback: "before the submission: attaches the previous build again (a version that had none keeps the build: App Store Connect cannot detach one), puts back the review details (except a previous demo password, which the run never keeps), the release type and the phased release, and cancels a review submission this run opened; the submission itself is the point of no return: after it, everything stays"
    )
}
