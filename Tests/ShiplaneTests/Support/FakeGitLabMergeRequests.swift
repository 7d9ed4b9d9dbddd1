import Foundation

/// GitLab's merge requests for `FakeGitLab` (`/projects/:id/merge_requests`), following GitLab's
/// merge requests API documentation; the stand-in checks every request and answer against the
/// published description first (the fixture's merge request operations). Models: the source branch
/// must exist in the repository (`tip` reads it, as GitLab reads the project's repository), a
/// second open merge request from the same source into the same target is GitLab's 409 "Another
/// open merge request already exists for this source branch: !N", the list filters by `state`,
/// `source_branch` and `target_branch`, `sha` follows the source branch while the merge request is
/// open, and `PUT … state_event=close` closes it (a merged one stays merged).
final class FakeGitLabMergeRequests: @unchecked Sendable {
    // @unchecked: every mutable member is read and written holding `lock`.
    struct MergeRequest {
        var iid: Int
        var title: String
        var description: String
        var source: String
        var target: String
        var sha: String
        var state = "opened"
    }

    private let lock = NSLock()
    private var requests: [Int: MergeRequest] = [:]
    private var nextIID = 1
    private var openedCount = 0
    /// The commit a branch of the repository names now; nil when there is no such branch.
    let tip: @Sendable (String) -> String?

    init(tip: @escaping @Sendable (String) -> String?) { self.tip = tip }

    var all: [MergeRequest] { lock.withLock { requests.values.sorted { $0.iid < $1.iid } } }
    var open: [MergeRequest] { all.filter { $0.state == "opened" } }
    /// Merge requests opened (POST answered 201).
    var opened: Int { lock.withLock { openedCount } }

    /// Marks merge request `iid` merged.
    func merge(_ iid: Int) { lock.withLock { requests[iid]?.state = "merged" } }

    /// Answers `METHOD …/merge_requests[/{iid}]` (`rest` is what follows `merge_requests`) with a
    /// status and a JSON body; the request was checked against the description already.
    func route(method: String, rest: [String], query: [String: String], payload: [String: Any]?, projectID: Int, baseURL: String) -> (Int, Any) {
        switch (method, rest.count) {
        case ("GET", 0):
            let state = query["state"] ?? "all"
            let list = all.filter { request in
                (state == "all" || request.state == state) && (query["source_branch"].map { $0 == request.source } ?? true)
                    && (query["target_branch"].map { $0 == request.target } ?? true)
            }
            return (200, list.map { json($0, projectID: projectID, baseURL: baseURL) })
        case ("POST", 0):
            guard let payload, let title = payload["title"] as? String, let source = payload["source_branch"] as? String,
                  let target = payload["target_branch"] as? String else { return (400, ["error": "title is missing"]) }
            guard let sha = tip(source) else { return (422, ["message": "Source branch \"\(source)\" does not exist"]) }
            guard tip(target) != nil else { return (422, ["message": "Target branch \"\(target)\" does not exist"]) }
            enum Outcome { case made(MergeRequest), exists(Int) }
            let outcome: Outcome = lock.withLock {
                if let existing = requests.values.first(where: { $0.state == "opened" && $0.source == source && $0.target == target }) {
                    return .exists(existing.iid)
                }
                let request = MergeRequest(iid: nextIID, title: title, description: payload["description"] as? String ?? "", source: source,
                                           target: target, sha: sha)
                requests[request.iid] = request
                nextIID += 1
                openedCount += 1
                return .made(request)
            }
            switch outcome {
            case .made(let request): return (201, json(request, projectID: projectID, baseURL: baseURL))
            case .exists(let iid): return (409, ["message": "Another open merge request already exists for this source branch: !\(iid)"])
            }
        case ("GET", 1):
            guard let iid = Int(rest[0]), let request = lock.withLock({ requests[iid] }) else { return (404, ["message": "404 Not found"]) }
            return (200, json(request, projectID: projectID, baseURL: baseURL))
        case ("PUT", 1):
            let updated: MergeRequest? = lock.withLock {
                guard let iid = Int(rest[0]), var request = requests[iid] else { return nil }
                if let event = payload?["state_event"] as? String, request.state != "merged" {
                    request.state = event == "close" ? "closed" : "opened"
                }
                if let title = payload?["title"] as? String { request.title = title }
                requests[iid] = request
                return request
            }
            guard let updated else { return (404, ["message": "404 Not found"]) }
            return (200, json(updated, projectID: projectID, baseURL: baseURL))
        default:
            return (404, ["message": "404 Not Found"])
        }
    }

    /// A merge request with the members of `API_Entities_MergeRequest` whose values fit the
    /// description's types (no null members).
    private func json(_ request: MergeRequest, projectID: Int, baseURL: String) -> [String: Any] {
        // An open merge request's head follows its source branch, as GitLab's does.
        let sha = request.state == "opened" ? (tip(request.source) ?? request.sha) : request.sha
        var body: [String: Any] = [
            "id": 500 + request.iid, "iid": request.iid, "project_id": projectID, "title": request.title, "description": request.description,
            "state": request.state, "created_at": "2026-11-28T12:00:00Z", "updated_at": "2026-11-28T12:00:00Z",
            "source_branch": request.source, "target_branch": request.target, "sha": sha,
            "web_url": "\(baseURL)/acme/homebrew-tap/-/merge_requests/\(request.iid)",
        ]
        if request.state == "merged" { body["merged_at"] = "2026-11-28T12:30:00Z" }
        if request.state == "closed" { body["closed_at"] = "2026-11-28T12:30:00Z" }
        return body
    }
}
