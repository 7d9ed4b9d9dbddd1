import Foundation

/// Gitea's pulls API for `FakeGitea` (`/repos/{owner}/{repo}/pulls`), the requests checked against
/// `GiteaAPIDescription` first. Models, following Gitea's API: a head branch that must exist in
/// the repository (`tip` reads it; 404 otherwise, as Gitea's compare answers), 409 "pull request
/// already exists for these targets" for a second open one from the same head into the same base,
/// a list filtered by `state` (its `limit` and `page` honoured), `head.sha` following the branch
/// while open, and `PATCH … state=closed` answered 201 as the description documents.
final class FakeGiteaPulls: @unchecked Sendable {
    // @unchecked: every mutable member is read and written holding `lock`.
    struct Pull {
        var number: Int
        var title: String
        var body: String
        var head: String
        var base: String
        var sha: String
        var state = "open"
        var merged = false
    }

    private let lock = NSLock()
    private var pulls: [Int: Pull] = [:]
    private var nextNumber = 1
    private var openedCount = 0
    /// The commit a branch of the repository names now; nil when there is no such branch.
    let tip: @Sendable (String) -> String?

    init(tip: @escaping @Sendable (String) -> String?) { self.tip = tip }

    var all: [Pull] { lock.withLock { pulls.values.sorted { $0.number < $1.number } } }
    var open: [Pull] { all.filter { $0.state == "open" } }
    /// Pull requests opened (POST answered 201).
    var opened: Int { lock.withLock { openedCount } }

    /// Marks pull request `number` merged.
    func merge(_ number: Int) {
        lock.withLock {
            pulls[number]?.state = "closed"
            pulls[number]?.merged = true
        }
    }

    /// A status and a JSON body (an error's message as a string).
    func route(method: String, index: Int?, query: [String: String], json: [String: Any], owner: String, repo: String, baseURL: String) -> (Int, Any) {
        switch (method, index) {
        case ("GET", nil):
            let state = query["state"] ?? "open"
            let list = all.filter { state == "all" || $0.state == state }
            let limit = Int(query["limit"] ?? "30") ?? 30, page = max(1, Int(query["page"] ?? "1") ?? 1)
            return (200, list.dropFirst((page - 1) * limit).prefix(limit).map { self.json($0, owner: owner, repo: repo, baseURL: baseURL) })
        case ("POST", nil):
            guard let head = json["head"] as? String, let base = json["base"] as? String, let title = json["title"] as? String else {
                return (422, "head, base and title are required")
            }
            guard let sha = tip(head) else { return (404, "head branch \(head) does not exist") }
            guard tip(base) != nil else { return (404, "base branch \(base) does not exist") }
            let made: Pull? = lock.withLock {
                if pulls.values.contains(where: { $0.state == "open" && $0.head == head && $0.base == base }) { return nil }
                let pull = Pull(number: nextNumber, title: title, body: json["body"] as? String ?? "", head: head, base: base, sha: sha)
                pulls[pull.number] = pull
                nextNumber += 1
                openedCount += 1
                return pull
            }
            guard let made else { return (409, "pull request already exists for these targets") }
            return (201, self.json(made, owner: owner, repo: repo, baseURL: baseURL))
        case ("GET", let number?):
            guard let pull = lock.withLock({ pulls[number] }) else { return (404, "pull request does not exist") }
            return (200, self.json(pull, owner: owner, repo: repo, baseURL: baseURL))
        case ("PATCH", let number?):
            let updated: Pull? = lock.withLock {
                guard var pull = pulls[number] else { return nil }
                if let state = json["state"] as? String, !pull.merged { pull.state = state }
                if let title = json["title"] as? String { pull.title = title }
                pulls[number] = pull
                return pull
            }
            guard let updated else { return (404, "pull request does not exist") }
            return (201, self.json(updated, owner: owner, repo: repo, baseURL: baseURL))
        default:
            return (404, "not found")
        }
    }

    /// A pull request as the description's `PullRequest` gives it (the members a client reads).
    private func json(_ pull: Pull, owner: String, repo: String, baseURL: String) -> [String: Any] {
        let sha = pull.state == "open" ? (tip(pull.head) ?? pull.sha) : pull.sha
        return [
            "id": 900 + pull.number, "number": pull.number, "title": pull.title, "body": pull.body, "state": pull.state, "merged": pull.merged,
            "html_url": "\(baseURL)/\(owner)/\(repo)/pulls/\(pull.number)",
            "head": ["label": pull.head, "ref": pull.head, "sha": sha],
            "base": ["label": pull.base, "ref": pull.base, "sha": tip(pull.base) ?? ""],
        ]
    }
}
