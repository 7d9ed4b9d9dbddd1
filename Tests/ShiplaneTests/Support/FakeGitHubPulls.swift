import Foundation
import Hummingbird
import Shiplane

/// GitHub's pulls API (`/repos/{owner}/{repo}/pulls`) for `FakeGitHub`, written from GitHub's REST
/// reference ("Pull requests": list, create, get, update): the query parameters and body members
/// it describes and no others (anything else is a violation and a 422), `head` as `owner:branch`
/// or `branch` of the same repository, a head branch that must exist in the tap (`tip` reads it,
/// as GitHub reads the repository), 422 "A pull request already exists" for a second open one from
/// the same head into the same base, and `head.sha` following the branch while it exists.
final class FakeGitHubPulls: @unchecked Sendable {
    // @unchecked: every mutable member is read and written holding `lock`.
    struct Pull {
        var number: Int
        var title: String
        var body: String
        var head: String
        var base: String
        var sha: String
        var state = "open"
        var mergedAt: String?
    }

    private let lock = NSLock()
    private var pulls: [Int: Pull] = [:]
    private var nextNumber = 1
    private var requestViolations: [String] = []
    /// The commit a branch of the repository names now; nil when there is no such branch.
    let tip: @Sendable (String) -> String?

    init(tip: @escaping @Sendable (String) -> String?) { self.tip = tip }

    var all: [Pull] { lock.withLock { pulls.values.sorted { $0.number < $1.number } } }
    var open: [Pull] { all.filter { $0.state == "open" } }
    /// Requests the reference does not describe.
    var violations: [String] { lock.withLock { requestViolations } }
    private var openedCount = 0
    /// Pull requests opened (POST answered 201).
    var opened: Int { lock.withLock { openedCount } }

    /// Marks pull request `number` merged (someone clicked the button).
    func merge(_ number: Int) {
        lock.withLock {
            pulls[number]?.state = "closed"
            pulls[number]?.mergedAt = "2026-11-28T12:00:00Z"
        }
    }

    private func violation(_ text: String) -> Response {
        lock.withLock { requestViolations.append(text) }
        return Reply.json(422, ["message": "Validation Failed", "errors": [["code": "invalid", "message": text]],
                                "documentation_url": "https://docs.github.com/rest/pulls/pulls"])
    }

    /// Answers `METHOD /repos/{owner}/{repo}/pulls[/{number}]`; `rest` is what follows `pulls`.
    func route(method: String, owner: String, repo: String, rest: [String], query: [String: String], body bytes: [UInt8],
               baseURL: String) throws -> Response {
        switch (method, rest.count) {
        case ("GET", 0):
            let allowed: Set = ["state", "head", "base", "sort", "direction", "per_page", "page"]
            if let unknown = query.keys.first(where: { !allowed.contains($0) }) { return violation("GET pulls: unknown parameter \(unknown)") }
            if let state = query["state"], !["open", "closed", "all"].contains(state) { return violation("GET pulls: state \(state)") }
            let state = query["state"] ?? "open"
            let head = query["head"].map { $0.contains(":") ? $0 : "\(owner):\($0)" }
            let list = all.filter { pull in
                (state == "all" || pull.state == state) && (head == nil || "\(owner):\(pull.head)" == head) && (query["base"] == nil || pull.base == query["base"])
            }
            return Reply.json(200, list.map { json($0, owner: owner, repo: repo, baseURL: baseURL) })
        case ("POST", 0):
            guard let payload = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
                return Reply.json(400, ["message": "Problems parsing JSON"])
            }
            let allowed: Set = ["title", "head", "head_repo", "base", "body", "maintainer_can_modify", "draft", "issue"]
            if let unknown = payload.keys.first(where: { !allowed.contains($0) }) { return violation("POST pulls: unknown member \(unknown)") }
            guard let head = payload["head"] as? String, let base = payload["base"] as? String, let title = payload["title"] as? String else {
                return violation("POST pulls: head, base and title are required")
            }
            let branch = head.hasPrefix("\(owner):") ? String(head.dropFirst(owner.count + 1)) : head
            guard !branch.contains(":"), let sha = tip(branch) else {
                return Reply.json(422, ["message": "Validation Failed", "errors": [["resource": "PullRequest", "field": "head", "code": "invalid"]]])
            }
            guard tip(base) != nil else {
                return Reply.json(422, ["message": "Validation Failed", "errors": [["resource": "PullRequest", "field": "base", "code": "invalid"]]])
            }
            let made: Pull? = lock.withLock {
                if pulls.values.contains(where: { $0.state == "open" && $0.head == branch && $0.base == base }) { return nil }
                let pull = Pull(number: nextNumber, title: title, body: payload["body"] as? String ?? "", head: branch, base: base, sha: sha)
                pulls[pull.number] = pull
                nextNumber += 1
                openedCount += 1
                return pull
            }
            guard let made else {
                return Reply.json(422, ["message": "Validation Failed",
                                        "errors": [["resource": "PullRequest", "code": "custom", "message": "A pull request already exists for \(owner):\(branch)."]]])
            }
            return Reply.json(201, json(made, owner: owner, repo: repo, baseURL: baseURL))
        case ("GET", 1):
            guard let number = Int(rest[0]), let pull = lock.withLock({ pulls[number] }) else { return Reply.json(404, ["message": "Not Found"]) }
            return Reply.json(200, json(pull, owner: owner, repo: repo, baseURL: baseURL))
        case ("PATCH", 1):
            guard let payload = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
                return Reply.json(400, ["message": "Problems parsing JSON"])
            }
            let allowed: Set = ["title", "body", "state", "base", "maintainer_can_modify"]
            if let unknown = payload.keys.first(where: { !allowed.contains($0) }) { return violation("PATCH pull: unknown member \(unknown)") }
            if let state = payload["state"], !["open", "closed"].contains(state as? String ?? "") { return violation("PATCH pull: state \(state)") }
            let updated: Pull? = lock.withLock {
                guard let number = Int(rest[0]), var pull = pulls[number] else { return nil }
                if let state = payload["state"] as? String, pull.mergedAt == nil { pull.state = state }
                if let title = payload["title"] as? String { pull.title = title }
                if let body = payload["body"] as? String { pull.body = body }
                pulls[number] = pull
                return pull
            }
            guard let updated else { return Reply.json(404, ["message": "Not Found"]) }
            return Reply.json(200, json(updated, owner: owner, repo: repo, baseURL: baseURL))
        default:
            return Reply.json(404, ["message": "Not Found", "documentation_url": "https://docs.github.com/rest"])
        }
    }

    /// A pull request as the reference's "pull-request" schema gives it (the members a client reads).
    private func json(_ pull: Pull, owner: String, repo: String, baseURL: String) -> [String: Any] {
        // An open pull request's head follows its branch, as GitHub's does.
        let sha = pull.state == "open" ? (tip(pull.head) ?? pull.sha) : pull.sha
        return [
            "url": "\(baseURL)/repos/\(owner)/\(repo)/pulls/\(pull.number)", "id": 1000 + pull.number, "number": pull.number,
            "html_url": "https://github.com/\(owner)/\(repo)/pull/\(pull.number)", "state": pull.state, "locked": false,
            "title": pull.title, "body": pull.body, "draft": false, "merged_at": pull.mergedAt ?? NSNull(),
            "head": ["label": "\(owner):\(pull.head)", "ref": pull.head, "sha": sha],
            "base": ["label": "\(owner):\(pull.base)", "ref": pull.base, "sha": tip(pull.base) ?? ""],
        ]
    }
}
