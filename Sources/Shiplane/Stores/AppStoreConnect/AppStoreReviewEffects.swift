import Foundation

/// A build this run attached to an App Store version; `previousBuildID` is the one attached
/// before (nil: none). Undo attaches the previous build again while the version still has the
/// run's build (a compare-and-swap: a build someone attached since is left, and the error says
/// so); App Store Connect offers no way to detach a build, so a build attached to a version that
/// had none stays (it is not submitted).
struct AppStoreBuildAttached: Effect, Equatable {
    static let kind = "appstoreconnect.buildAttached"
    var api: String
    var versionID: String
    var version: String
    var buildID: String
    var previousBuildID: String?

    var reach: EffectReach { .service }

    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        guard let previousBuildID else {
            throw EffectStays("build \(buildID) stays attached to App Store version \(version): App Store Connect has no way to detach a build (it is not submitted; choose another build to replace it)")
        }
        let client = try AppStoreListingClient.client(context: context, api: api, what: "the build of App Store version \(version)").client
        let attached = try await client.storeVersion(id: versionID).relationships?["build"]?.data?.id
        if attached == previousBuildID { return }
        guard attached == buildID else {
            throw ShiplaneError("the build of App Store version \(version) changed on App Store Connect since this run attached \(buildID) "
                                + "(it is \(attached ?? "none") now): left as it is",
                                suggestion: "attach build \(previousBuildID) in App Store Connect by hand if it should be")
        }
        try await client.attachBuild(versionID: versionID, buildID: previousBuildID)
    }
}

/// App Review's details this run set on an App Store version: `previous` keeps each text
/// attribute's value before (nil: none; nil `id`: the run created the details). The demo
/// password is never written here: `passwordChanged` says the run set it, `passwordWasSet` that
/// there was one before, which the undo cannot put back (the run keeps no copy of a secret).
struct AppStoreReviewDetailChanged: Effect, Equatable {
    static let kind = "appstoreconnect.reviewDetailChanged"
    var api: String
    var versionID: String
    var version: String
    /// The details' id, once known.
    var id: String?
    /// True when this run created the details.
    var created: Bool
    /// Each changed attribute's previous value (text; `demoAccountRequired` as "true"/"false").
    var previous: [String: String?]
    var passwordChanged: Bool
    var passwordWasSet: Bool
    /// Each changed attribute's value as this run set it (the password left out; nil in records
    /// written before they were kept): the undo puts an attribute back only while it still holds
    /// this value.
    var setTo: [String: String?]? = nil

    var reach: EffectReach { .service }

    /// Puts each changed attribute back while the details still hold the run's value for it: a
    /// compare-and-swap per attribute (the journal's rule). One someone changed in App Store
    /// Connect since is left as it is, and the error names it after the others are put back; one
    /// already at its old value is not written again.
    /// - Throws: an error naming what was left, `EffectStays` for a password the run replaced,
    ///   or when the key is not set or Apple refuses.
    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let client = try AppStoreListingClient.client(context: context, api: api, what: "the review details of \(version)").client
        var current: AppStoreConnectClient.ReviewDetail?
        if setTo != nil || id == nil { current = try await client.reviewDetail(versionID: versionID) }
        guard let target = id ?? current?.id else { return }
        var restore = previous
        var changedSince: [String] = []
        if let setTo {
            for (key, runValue) in setTo {
                guard let old = previous[key] else { continue }
                let now = current?.attributes?[key]?.recorded
                if now == runValue { continue }
                restore.removeValue(forKey: key)
                if now != old { changedSince.append(key) }
            }
        }
        var attributes: [String: Any] = [:]
        for (key, value) in restore {
            if key == AppStoreReviewInformation.required {
                attributes[key] = value.map { $0 == "true" } ?? NSNull()
            } else {
                attributes[key] = value.map { $0 as Any } ?? NSNull()
            }
        }
        // The password has no copy to compare: the run's is taken away only where there was none
        // and nobody changed the details since.
        let passwordStays = passwordChanged && (passwordWasSet || !changedSince.isEmpty)
        if passwordChanged && !passwordStays { attributes[AppStoreReviewInformation.password] = NSNull() }
        if !attributes.isEmpty { try await client.updateReviewDetail(id: target, attributes: attributes) }
        let password = passwordStays ? "; the demo account password stays as this run set it (the run keeps no copy of a password)" : ""
        if !changedSince.isEmpty {
            throw ShiplaneError(
                "the review details of \(version) changed on App Store Connect since this run set them (\(changedSince.sorted().joined(separator: ", "))): "
                    + "left as they are\(restore.isEmpty ? "" : "; the other details are put back")\(password)",
                suggestion: "check the review details in App Store Connect and set the old values by hand if they should be")
        }
        if passwordChanged && passwordWasSet {
            throw EffectStays("the review details of \(version) are put back except the demo account password, which stays as this run set it (the run keeps no copy of a password); set the old one in App Store Connect if it should be")
        }
    }
}

/// The release type (and scheduled date) this run set on an App Store version, with the values
/// before and the ones the run set (`releaseType`, `earliestReleaseDate`; nil in records written
/// before they were kept).
struct AppStoreReleaseTypeChanged: Effect, Equatable {
    static let kind = "appstoreconnect.releaseTypeChanged"
    var api: String
    var versionID: String
    var version: String
    var previousReleaseType: String?
    var previousEarliestReleaseDate: String?
    /// The release type the run set.
    var releaseType: String?
    /// The date the run set, when it set one.
    var earliestReleaseDate: String?

    var reach: EffectReach { .service }

    /// Puts the previous release type and date back while the version still has the run's (or
    /// already the previous) release type: a compare-and-swap, so a release type someone chose
    /// in App Store Connect since is left as it is, and the error says so.
    /// - Throws: an error naming the release type found, or when the key is not set or Apple refuses.
    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let client = try AppStoreListingClient.client(context: context, api: api, what: "the release type of \(version)").client
        if let releaseType {
            let now = try await client.storeVersion(id: versionID).attributes
            let nowType = now?.releaseType
            let changedSince = nowType != releaseType && nowType != previousReleaseType
                || (nowType == releaseType && earliestReleaseDate != nil
                    && AppStoreSubmission.sameInstant(now?.earliestReleaseDate, earliestReleaseDate ?? "") == false)
            if changedSince {
                throw ShiplaneError("the release type of \(version) changed on App Store Connect since this run set it to \(releaseType) "
                                    + "(it is \(nowType ?? "(none)") now): left as it is",
                                    suggestion: "set \(previousReleaseType ?? "the old release type") in App Store Connect by hand if it should be")
            }
        }
        var attributes: [String: Any] = ["earliestReleaseDate": previousEarliestReleaseDate.map { $0 as Any } ?? NSNull()]
        if let previousReleaseType { attributes["releaseType"] = previousReleaseType }
        try await client.updateStoreVersion(id: versionID, attributes: attributes)
    }
}

/// A phased release this run turned on (`created`: undo deletes it) or off (undo turns it on
/// again) for an App Store version.
struct AppStorePhasedReleaseChanged: Effect, Equatable {
    static let kind = "appstoreconnect.phasedReleaseChanged"
    var api: String
    var versionID: String
    var version: String
    var created: Bool
    /// The phased release's id (the one created, once known).
    var id: String?

    var reach: EffectReach { .service }

    /// Deletes the phased release the run created while it is still that one (its id, once
    /// known), or turns it on again while the version has none: one made in App Store Connect
    /// in place of the run's is left as it is, and the error says so.
    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let client = try AppStoreListingClient.client(context: context, api: api, what: "the phased release of \(version)").client
        let current = try await client.phasedRelease(versionID: versionID)
        if created {
            guard let current else { return }
            if let id, current.id != id {
                throw ShiplaneError("the phased release of \(version) was replaced on App Store Connect since this run turned it on (it is \(current.id) now, the run's was \(id)): left as it is",
                                    suggestion: "turn the phased release off in App Store Connect by hand if it should be")
            }
            try await client.deletePhasedRelease(id: current.id)
        } else if current == nil {
            _ = try await client.createPhasedRelease(versionID: versionID)
        }
    }
}

/// A review submission this run opened for an app and platform (nil `id`: its answer never
/// came; found as the app's open submission). Undo cancels it while it is not yet submitted.
struct AppStoreReviewSubmissionCreated: Effect, Equatable {
    static let kind = "appstoreconnect.reviewSubmissionCreated"
    var api: String
    var appID: String
    var platform: String
    var id: String?

    var reach: EffectReach { .service }

    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let client = try AppStoreListingClient.client(context: context, api: api, what: "the review submission").client
        let open = try await client.reviewSubmissions(appID: appID, platform: platform, states: ["READY_FOR_REVIEW", "WAITING_FOR_REVIEW", "IN_REVIEW", "UNRESOLVED_ISSUES"])
        guard let submission = open.first(where: { id == nil || $0.id == id }) else { return }
        guard submission.attributes?.state == "READY_FOR_REVIEW" else {
            throw EffectStays("review submission \(submission.id) was submitted (\(submission.attributes?.state ?? "?")): it stays; cancel it in App Store Connect if it should not be reviewed")
        }
        try await client.cancelReviewSubmission(id: submission.id)
    }
}

/// The App Store version this run added to a review submission (nil `id`: the answer never came).
struct AppStoreReviewItemAdded: Effect, Equatable {
    static let kind = "appstoreconnect.reviewItemAdded"
    var api: String
    var submissionID: String
    var versionID: String
    var id: String?

    var reach: EffectReach { .service }

    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let client = try AppStoreListingClient.client(context: context, api: api, what: "the review submission's item").client
        var target = id
        if target == nil {
            target = try await client.reviewItems(submissionID: submissionID).first { $0.relationships?["appStoreVersion"]?.data?.id == versionID }?.id
        }
        guard let target else { return }
        _ = try await client.perform(.delete, "/v1/reviewSubmissionItems/\(target)", operation: "remove the version from the review submission", accepting: [404])
    }
}

/// An App Store version submitted for review: the store's point of no return. It stays.
struct AppStoreSubmittedForReview: Effect, Equatable {
    static let kind = "appstoreconnect.submittedForReview"
    var submissionID: String
    var version: String

    var reach: EffectReach { .service }

    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        throw EffectStays("App Store version \(version) was sent to App Review (review submission \(submissionID)): it stays; cancel the submission in App Store Connect if it should not be reviewed")
    }
}

/// The review submission's reads and writes, shared by the action and the undos.
extension AppStoreConnectClient {
    typealias ReviewSubmission = ASCResource<ASCReviewSubmission>
    typealias ReviewItem = ASCResource<ASCReviewSubmissionItem>
    typealias ReviewDetail = ASCResource<[String: ASCJSONValue]>

    /// The version with its release type and attached build.
    func storeVersion(id: String) async throws -> ASCResource<ASCAppStoreVersion> {
        try await get("/v1/appStoreVersions/\(id)", query: [("include", "build")], as: ASCDocument<ASCResource<ASCAppStoreVersion>>.self,
                      operation: "read App Store version \(id)").data
    }

    func updateStoreVersion(id: String, attributes: [String: Any]) async throws {
        let body: [String: Any] = ["data": ["type": "appStoreVersions", "id": id, "attributes": attributes]]
        _ = try await send(.patch, "/v1/appStoreVersions/\(id)", body: body, as: ASCDocument<ASCResource<ASCAppStoreVersion>>.self,
                           operation: "set the release type")
    }

    func attachBuild(versionID: String, buildID: String) async throws {
        _ = try await perform(.patch, "/v1/appStoreVersions/\(versionID)/relationships/build", body: ["data": ["type": "builds", "id": buildID]],
                              operation: "attach build \(buildID) to the App Store version")
    }

    /// The version's review details, or nil when it has none (404).
    func reviewDetail(versionID: String) async throws -> ReviewDetail? {
        do {
            return try await get("/v1/appStoreVersions/\(versionID)/appStoreReviewDetail", as: ASCDocument<ReviewDetail>.self,
                                 operation: "read the review details").data
        } catch let missing as StoreAPIError where missing.status == 404 {
            return nil
        }
    }

    func updateReviewDetail(id: String, attributes: [String: Any]) async throws {
        let body: [String: Any] = ["data": ["type": "appStoreReviewDetails", "id": id, "attributes": attributes]]
        _ = try await send(.patch, "/v1/appStoreReviewDetails/\(id)", body: body, as: ASCDocument<ReviewDetail>.self, operation: "update the review details")
    }

    func createReviewDetail(versionID: String, attributes: [String: Any]) async throws -> String {
        let body: [String: Any] = ["data": ["type": "appStoreReviewDetails", "attributes": attributes,
                                            "relationships": ["appStoreVersion": ["data": ["type": "appStoreVersions", "id": versionID]]]]]
        return try await send(.post, "/v1/appStoreReviewDetails", body: body, as: ASCDocument<ReviewDetail>.self, operation: "set the review details").data.id
    }

    /// The version's phased release, or nil when it has none (404).
    func phasedRelease(versionID: String) async throws -> ASCResource<ASCPhasedRelease>? {
        do {
            return try await get("/v1/appStoreVersions/\(versionID)/appStoreVersionPhasedRelease", as: ASCDocument<ASCResource<ASCPhasedRelease>>.self,
                                 operation: "read the phased release").data
        } catch let missing as StoreAPIError where missing.status == 404 {
            return nil
        }
    }

    func createPhasedRelease(versionID: String) async throws -> String {
        let body: [String: Any] = ["data": ["type": "appStoreVersionPhasedReleases",
                                            "relationships": ["appStoreVersion": ["data": ["type": "appStoreVersions", "id": versionID]]]]]
        return try await send(.post, "/v1/appStoreVersionPhasedReleases", body: body, as: ASCDocument<ASCResource<ASCPhasedRelease>>.self,
                              operation: "turn on the phased release").data.id
    }

    func deletePhasedRelease(id: String) async throws {
        _ = try await perform(.delete, "/v1/appStoreVersionPhasedReleases/\(id)", operation: "turn off the phased release", accepting: [404])
    }

    /// The app's review submissions for `platform` in `states`.
    func reviewSubmissions(appID: String, platform: String, states: [String]) async throws -> [ReviewSubmission] {
        try await getAll("/v1/reviewSubmissions", query: [
            ("filter[app]", appID), ("filter[platform]", platform), ("filter[state]", states.joined(separator: ",")), ("limit", "200"),
        ], as: ReviewSubmission.self, operation: "look for the app's review submissions")
    }

    func reviewItems(submissionID: String) async throws -> [ReviewItem] {
        try await getAll("/v1/reviewSubmissions/\(submissionID)/items", query: [("include", "appStoreVersion"), ("limit", "200")],
                         as: ReviewItem.self, operation: "read the review submission's items")
    }

    func createReviewSubmission(appID: String, platform: String) async throws -> String {
        let body: [String: Any] = ["data": ["type": "reviewSubmissions", "attributes": ["platform": platform],
                                            "relationships": ["app": ["data": ["type": "apps", "id": appID]]]]]
        return try await send(.post, "/v1/reviewSubmissions", body: body, as: ASCDocument<ReviewSubmission>.self,
                              operation: "open a review submission").data.id
    }

    func addReviewItem(submissionID: String, versionID: String) async throws -> String {
        let body: [String: Any] = ["data": ["type": "reviewSubmissionItems", "relationships": [
            "reviewSubmission": ["data": ["type": "reviewSubmissions", "id": submissionID]],
            "appStoreVersion": ["data": ["type": "appStoreVersions", "id": versionID]],
        ]]]
        return try await send(.post, "/v1/reviewSubmissionItems", body: body, as: ASCDocument<ReviewItem>.self,
                              operation: "add the version to the review submission").data.id
    }

    func submitReviewSubmission(id: String) async throws {
        let body: [String: Any] = ["data": ["type": "reviewSubmissions", "id": id, "attributes": ["submitted": true]]]
        _ = try await send(.patch, "/v1/reviewSubmissions/\(id)", body: body, as: ASCDocument<ReviewSubmission>.self, operation: "submit for review")
    }

    func cancelReviewSubmission(id: String) async throws {
        let body: [String: Any] = ["data": ["type": "reviewSubmissions", "id": id, "attributes": ["canceled": true]]]
        _ = try await send(.patch, "/v1/reviewSubmissions/\(id)", body: body, as: ASCDocument<ReviewSubmission>.self, operation: "cancel the review submission")
    }
}

struct ASCReviewSubmission: Decodable { var platform: String?; var state: String? }
struct ASCReviewSubmissionItem: Decodable { var state: String? }
struct ASCPhasedRelease: Decodable { var phasedReleaseState: String? }

/// A JSON attribute value of a text or boolean kind (others read as nil).
enum ASCJSONValue: Decodable, Equatable {
    case text(String), flag(Bool), other
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) { self = .text(text) } else if let flag = try? container.decode(Bool.self) { self = .flag(flag) } else { self = .other }
    }
    /// The value as the effects record it ("true"/"false" for a flag).
    var recorded: String? {
        switch self {
        case .text(let text): text
        case .flag(let flag): flag ? "true" : "false"
        case .other: nil
        }
    }
}
