import Foundation
import Hummingbird

/// What the fake App Store Connect keeps for App Review: each version's release type, date and
/// build, review details, phased releases, review submissions and their items.
struct FakeReviewState {
    var releaseType: [String: String] = [:]
    var earliestReleaseDate: [String: String] = [:]
    var attachedBuild: [String: String] = [:]
    var details: [String: (versionID: String, attributes: [String: Any])] = [:]
    var phased: [String: (versionID: String, state: String)] = [:]
    var submissions: [String: (appID: String, platform: String, state: String, submittedDate: String?)] = [:]
    var items: [String: (submissionID: String, versionID: String)] = [:]
}

/// App Review's routes (attach a build, review details, release type, phased release, review
/// submissions and items), with the state transitions Apple documents: adding a version to a
/// review submission makes it READY_FOR_REVIEW, submitting makes it WAITING_FOR_REVIEW.
/// Request bodies are checked against Apple's description before they get here.
extension FakeAppStoreConnect {
    /// The review state, read under the lock.
    var reviewState: FakeReviewState { lock.withLock { review } }
    /// A version's state (appVersionState).
    func versionState(_ id: String) -> String? { lock.withLock { storeVersions[id]?.state } }

    func reviewRoute(_ method: String, _ segments: [String], _ query: [String: String], _ body: [UInt8]) -> Response? {
        let data = (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["data"] as? [String: Any]
        let attributes = data?["attributes"] as? [String: Any] ?? [:]
        func relatedID(_ name: String) -> String? {
            ((((data?["relationships"] as? [String: Any])?[name] as? [String: Any])?["data"]) as? [String: Any])?["id"] as? String
        }
        func list(_ name: String) -> Set<String>? { query[name].map { Set($0.split(separator: ",").map(String.init)) } }
        func versionJSON(_ id: String) -> [String: Any] {
            let version = storeVersions[id]
            var values: [String: Any] = ["versionString": version?.version ?? "", "platform": version?.platform ?? "IOS",
                                         "appVersionState": version?.state ?? "", "appStoreState": version?.state ?? ""]
            if let type = review.releaseType[id] { values["releaseType"] = type }
            if let date = review.earliestReleaseDate[id] { values["earliestReleaseDate"] = date }
            var resource: [String: Any] = ["type": "appStoreVersions", "id": id, "attributes": values]
            if (list("include") ?? []).contains("build"), let build = review.attachedBuild[id] {
                resource["relationships"] = ["build": ["data": ["type": "builds", "id": build]]]
            }
            return resource
        }
        func detailJSON(_ id: String) -> [String: Any] {
            ["type": "appStoreReviewDetails", "id": id, "attributes": review.details[id]?.attributes ?? [:]]
        }
        func submissionJSON(_ id: String) -> [String: Any] {
            let submission = review.submissions[id]
            var values: [String: Any] = ["platform": submission?.platform ?? "IOS", "state": submission?.state ?? ""]
            if let date = submission?.submittedDate { values["submittedDate"] = date }
            return ["type": "reviewSubmissions", "id": id, "attributes": values]
        }
        func itemJSON(_ id: String) -> [String: Any] {
            ["type": "reviewSubmissionItems", "id": id, "attributes": ["state": "READY_FOR_REVIEW"],
             "relationships": ["appStoreVersion": ["data": ["type": "appStoreVersions", "id": review.items[id]?.versionID ?? ""]]]]
        }
        let editable: Set<String> = ["PREPARE_FOR_SUBMISSION", "DEVELOPER_REJECTED", "REJECTED", "METADATA_REJECTED", "INVALID_BINARY", "READY_FOR_REVIEW"]
        func notEditable(_ id: String) -> Response {
            error(409, "ENTITY_ERROR.STATE_ERROR", "The request entity is invalid", "App Store version \(id) is \(storeVersions[id]?.state ?? "") and cannot be changed")
        }
        let s = segments
        switch (method, s.count) {
        case ("GET", 3) where s[1] == "appStoreVersions":
            guard storeVersions[s[2]] != nil else { return notFound("appStoreVersions", s[2]) }
            return reply(200, ["data": versionJSON(s[2])])
        case ("PATCH", 3) where s[1] == "appStoreVersions":
            guard let version = storeVersions[s[2]] else { return notFound("appStoreVersions", s[2]) }
            guard editable.contains(version.state) else { return notEditable(s[2]) }
            if let type = attributes["releaseType"] { review.releaseType[s[2]] = type as? String }
            if let date = attributes["earliestReleaseDate"] { review.earliestReleaseDate[s[2]] = date as? String }
            if review.releaseType[s[2]] == "SCHEDULED", review.earliestReleaseDate[s[2]] == nil {
                return error(409, "ENTITY_ERROR.ATTRIBUTE.REQUIRED", "The request entity is invalid", "earliestReleaseDate is required for a SCHEDULED release")
            }
            return reply(200, ["data": versionJSON(s[2])])
        case ("PATCH", 5) where s[1] == "appStoreVersions" && s[3] == "relationships" && s[4] == "build":
            guard let version = storeVersions[s[2]] else { return notFound("appStoreVersions", s[2]) }
            guard editable.contains(version.state) else { return notEditable(s[2]) }
            let buildID = data?["id"] as? String ?? ""
            guard let build = builds[buildID] else { return notFound("builds", buildID) }
            guard build.appID == version.appID, build.shortVersion == version.version, build.platform == version.platform, build.processingState == "VALID" else {
                return error(409, "ENTITY_ERROR.RELATIONSHIP.INVALID", "The request entity is invalid",
                             "build \(buildID) (\(build.shortVersion), \(build.platform), \(build.processingState)) cannot be attached to version \(version.version) (\(version.platform))")
            }
            review.attachedBuild[s[2]] = buildID
            return replyEmpty(204)
        case ("GET", 4) where s[1] == "appStoreVersions" && s[3] == "appStoreReviewDetail":
            guard let id = review.details.first(where: { $0.value.versionID == s[2] })?.key else { return notFound("appStoreReviewDetails", "") }
            return reply(200, ["data": detailJSON(id)])
        case ("POST", 2) where s[1] == "appStoreReviewDetails":
            let versionID = relatedID("appStoreVersion") ?? ""
            guard storeVersions[versionID] != nil else { return notFound("appStoreVersions", versionID) }
            guard !review.details.values.contains(where: { $0.versionID == versionID }) else {
                return error(409, "ENTITY_ERROR.RELATIONSHIP.INVALID", "The request entity is invalid", "the version already has review details")
            }
            let id = newID("ard")
            review.details[id] = (versionID, attributes.filter { !($0.value is NSNull) })
            return reply(201, ["data": detailJSON(id)])
        case ("PATCH", 3) where s[1] == "appStoreReviewDetails":
            guard var detail = review.details[s[2]] else { return notFound("appStoreReviewDetails", s[2]) }
            for (key, value) in attributes { detail.attributes[key] = value is NSNull ? nil : value }
            review.details[s[2]] = detail
            return reply(200, ["data": detailJSON(s[2])])
        case ("GET", 4) where s[1] == "appStoreVersions" && s[3] == "appStoreVersionPhasedRelease":
            guard let (id, phased) = review.phased.first(where: { $0.value.versionID == s[2] }) else { return notFound("appStoreVersionPhasedReleases", "") }
            return reply(200, ["data": ["type": "appStoreVersionPhasedReleases", "id": id, "attributes": ["phasedReleaseState": phased.state]]])
        case ("POST", 2) where s[1] == "appStoreVersionPhasedReleases":
            let versionID = relatedID("appStoreVersion") ?? ""
            guard storeVersions[versionID] != nil else { return notFound("appStoreVersions", versionID) }
            guard !review.phased.values.contains(where: { $0.versionID == versionID }) else {
                return error(409, "ENTITY_ERROR.RELATIONSHIP.INVALID", "The request entity is invalid", "the version already has a phased release")
            }
            let id = newID("phased")
            let state = attributes["phasedReleaseState"] as? String ?? "INACTIVE"
            review.phased[id] = (versionID, state)
            return reply(201, ["data": ["type": "appStoreVersionPhasedReleases", "id": id, "attributes": ["phasedReleaseState": state]]])
        case ("DELETE", 3) where s[1] == "appStoreVersionPhasedReleases":
            guard let phased = review.phased[s[2]] else { return notFound("appStoreVersionPhasedReleases", s[2]) }
            guard phased.state == "INACTIVE" else {
                return error(409, "ENTITY_ERROR.STATE_ERROR", "The request entity is invalid", "a phased release that started cannot be deleted")
            }
            review.phased[s[2]] = nil
            return replyEmpty(204)
        case ("GET", 2) where s[1] == "reviewSubmissions":
            let matching = review.submissions.filter { (list("filter[app]")?.contains($0.value.appID) ?? true)
                && (list("filter[platform]")?.contains($0.value.platform) ?? true) && (list("filter[state]")?.contains($0.value.state) ?? true) }
            return reply(200, ["data": matching.keys.sorted().map(submissionJSON)])
        case ("POST", 2) where s[1] == "reviewSubmissions":
            let appID = relatedID("app") ?? "", platform = attributes["platform"] as? String ?? "IOS"
            guard apps[appID] != nil else { return notFound("apps", appID) }
            guard !review.submissions.values.contains(where: { $0.appID == appID && $0.platform == platform && $0.state == "READY_FOR_REVIEW" }) else {
                return error(409, "ENTITY_ERROR", "The request entity is invalid", "There is already an open review submission for this app and platform")
            }
            let id = newID("rs")
            review.submissions[id] = (appID, platform, "READY_FOR_REVIEW", nil)
            return reply(201, ["data": submissionJSON(id)])
        case ("GET", 4) where s[1] == "reviewSubmissions" && s[3] == "items":
            guard review.submissions[s[2]] != nil else { return notFound("reviewSubmissions", s[2]) }
            return reply(200, ["data": review.items.filter { $0.value.submissionID == s[2] }.keys.sorted().map(itemJSON)])
        case ("POST", 2) where s[1] == "reviewSubmissionItems":
            let submissionID = relatedID("reviewSubmission") ?? "", versionID = relatedID("appStoreVersion") ?? ""
            guard let submission = review.submissions[submissionID] else { return notFound("reviewSubmissions", submissionID) }
            guard let version = storeVersions[versionID] else { return notFound("appStoreVersions", versionID) }
            guard submission.state == "READY_FOR_REVIEW" else {
                return error(409, "ENTITY_ERROR.STATE_ERROR", "The request entity is invalid", "the review submission was already submitted")
            }
            guard editable.contains(version.state), review.attachedBuild[versionID] != nil else {
                return error(409, "ENTITY_ERROR.RELATIONSHIP.INVALID", "The request entity is invalid", "the version cannot be added for review: it needs a build and an editable state")
            }
            guard !review.items.values.contains(where: { $0.versionID == versionID && review.submissions[$0.submissionID]?.state == "READY_FOR_REVIEW" }) else {
                return error(409, "ENTITY_ERROR.RELATIONSHIP.INVALID", "The request entity is invalid", "the version is already in a review submission")
            }
            let id = newID("rsi")
            review.items[id] = (submissionID, versionID)
            storeVersions[versionID]?.state = "READY_FOR_REVIEW"
            return reply(201, ["data": itemJSON(id)])
        case ("DELETE", 3) where s[1] == "reviewSubmissionItems":
            guard let item = review.items.removeValue(forKey: s[2]) else { return notFound("reviewSubmissionItems", s[2]) }
            if storeVersions[item.versionID]?.state == "READY_FOR_REVIEW" { storeVersions[item.versionID]?.state = "PREPARE_FOR_SUBMISSION" }
            return replyEmpty(204)
        case ("PATCH", 3) where s[1] == "reviewSubmissions":
            guard let submission = review.submissions[s[2]] else { return notFound("reviewSubmissions", s[2]) }
            let versions = review.items.values.filter { $0.submissionID == s[2] }.map(\.versionID)
            if attributes["submitted"] as? Bool == true {
                guard submission.state == "READY_FOR_REVIEW" else {
                    return error(409, "ENTITY_ERROR.STATE_ERROR", "The request entity is invalid", "the review submission is \(submission.state)")
                }
                guard !versions.isEmpty else {
                    return error(409, "ENTITY_ERROR", "The request entity is invalid", "the review submission has no items")
                }
                review.submissions[s[2]] = (submission.appID, submission.platform, "WAITING_FOR_REVIEW", "2026-11-25T12:00:00Z")
                for versionID in versions { storeVersions[versionID]?.state = "WAITING_FOR_REVIEW" }
            } else if attributes["canceled"] as? Bool == true {
                guard submission.state != "COMPLETE" else {
                    return error(409, "ENTITY_ERROR.STATE_ERROR", "The request entity is invalid", "the review submission is complete")
                }
                let answer = submissionJSON(s[2])
                // An unsubmitted one is gone; a submitted one is cancelled and its versions go back to the developer.
                review.submissions[s[2]] = submission.state == "READY_FOR_REVIEW" ? nil : (submission.appID, submission.platform, "COMPLETE", submission.submittedDate)
                review.items = review.items.filter { $0.value.submissionID != s[2] }
                for versionID in versions {
                    storeVersions[versionID]?.state = submission.state == "READY_FOR_REVIEW" ? "PREPARE_FOR_SUBMISSION" : "DEVELOPER_REJECTED"
                }
                var canceled = answer
                canceled["attributes"] = ["platform": submission.platform, "state": "CANCELING"]
                return reply(200, ["data": canceled])
            }
            return reply(200, ["data": submissionJSON(s[2])])
        default:
            return nil
        }
    }
}
