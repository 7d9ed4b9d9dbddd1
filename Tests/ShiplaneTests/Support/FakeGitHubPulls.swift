import Foundation
import Hummingbird
import Shiplane

/// GitHub's pulls API (`/repos/{owner}/{repo}/pulls`) for `FakeGitHub`. Every request has passed
/// the description's check first (`pulls/list`, `pulls/create`, `pulls/get`, `pulls/update`,
/// transcribed into the GitHub subset), and every answer is checked against the schema documented
/// for its status: a list of `pull-request-simple`, a `pull-request`, a `validation-error`, a
/// `basic-error`.
///
/// What the description leaves to GitHub's behaviour: `head` as `owner:branch` or `branch` of the
/// same repository, a head branch that must exist in the tap (`tip` reads it, as GitHub reads the
/// repository), 422 "A pull request already exists" for a second open one from the same head into
/// the same base, and `head.sha` following the branch while the pull request is open.
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
        var closedAt: String?
    }

    /// What the answers are made of that the pulls stand-in does not own: the accounts and the
    /// repository as `FakeGitHub` gives them.
    struct Context {
        var owner: String
        var repo: String
        var baseURL: String
        /// The repository's owner as a `simple-user`.
        var user: [String: Any]
        /// The repository as the description's `repository` schema gives it.
        var repository: [String: Any]
    }

    private let lock = NSLock()
    private var pulls: [Int: Pull] = [:]
    private var nextNumber = 1
    /// The commit a branch of the repository names now; nil when there is no such branch.
    let tip: @Sendable (String) -> String?

    init(tip: @escaping @Sendable (String) -> String?) { self.tip = tip }

    var all: [Pull] { lock.withLock { pulls.values.sorted { $0.number < $1.number } } }
    var open: [Pull] { all.filter { $0.state == "open" } }
    private var openedCount = 0
    /// Pull requests opened (POST answered 201).
    var opened: Int { lock.withLock { openedCount } }

    private static let time = "2026-11-28T12:00:00Z"
    private static let documentation = "https://docs.github.com/rest/pulls/pulls"

    /// Marks pull request `number` merged (someone clicked the button).
    func merge(_ number: Int) {
        lock.withLock {
            pulls[number]?.state = "closed"
            pulls[number]?.mergedAt = Self.time
            pulls[number]?.closedAt = Self.time
        }
    }

    /// A JSON answer, kept for the description's check.
    private func reply(_ status: Int, _ body: Any) -> Response {
        RecordedAnswer.current?.record(status, body)
        return Reply.json(status, body)
    }

    /// GitHub's `Validation Failed` (the description's `validation-error`).
    private func validationFailed(_ error: [String: Any]) -> Response {
        reply(422, ["message": "Validation Failed", "errors": [error], "documentation_url": Self.documentation])
    }

    private func notFound() -> Response { reply(404, ["message": "Not Found", "documentation_url": Self.documentation]) }

    /// Answers `METHOD /repos/{owner}/{repo}/pulls[/{number}]` (already checked against the
    /// description); `rest` is what follows `pulls`.
    func route(method: String, rest: [String], query: [String: String], body bytes: [UInt8], context: Context) throws -> Response {
        let payload = (try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]) ?? [:]
        switch (method, rest.count) {
        case ("GET", 0):
            let state = query["state"] ?? "open"
            let head = query["head"].map { $0.contains(":") ? $0 : "\(context.owner):\($0)" }
            let list = all.filter { pull in
                (state == "all" || pull.state == state) && (head == nil || "\(context.owner):\(pull.head)" == head)
                    && (query["base"] == nil || pull.base == query["base"])
            }
            return reply(200, list.map { json($0, context, full: false) })
        case ("POST", 0):
            guard let head = payload["head"] as? String, let base = payload["base"] as? String else {
                return validationFailed(["resource": "PullRequest", "code": "missing_field", "field": "head"])
            }
            let branch = head.hasPrefix("\(context.owner):") ? String(head.dropFirst(context.owner.count + 1)) : head
            guard !branch.contains(":"), let sha = tip(branch) else {
                return validationFailed(["resource": "PullRequest", "field": "head", "code": "invalid"])
            }
            guard tip(base) != nil else { return validationFailed(["resource": "PullRequest", "field": "base", "code": "invalid"]) }
            let made: Pull? = lock.withLock {
                if pulls.values.contains(where: { $0.state == "open" && $0.head == branch && $0.base == base }) { return nil }
                let pull = Pull(number: nextNumber, title: payload["title"] as? String ?? branch, body: payload["body"] as? String ?? "",
                                head: branch, base: base, sha: sha)
                pulls[pull.number] = pull
                nextNumber += 1
                openedCount += 1
                return pull
            }
            guard let made else {
                return validationFailed(["resource": "PullRequest", "code": "custom", "message": "A pull request already exists for \(context.owner):\(branch)."])
            }
            return reply(201, json(made, context, full: true))
        case ("GET", 1):
            guard let number = Int(rest[0]), let pull = lock.withLock({ pulls[number] }) else { return notFound() }
            return reply(200, json(pull, context, full: true))
        case ("PATCH", 1):
            let updated: Pull? = lock.withLock {
                guard let number = Int(rest[0]), var pull = pulls[number] else { return nil }
                if let state = payload["state"] as? String, pull.mergedAt == nil {
                    pull.state = state
                    pull.closedAt = state == "closed" ? Self.time : nil
                }
                if let title = payload["title"] as? String { pull.title = title }
                if let body = payload["body"] as? String { pull.body = body }
                pulls[number] = pull
                return pull
            }
            guard let updated else { return notFound() }
            return reply(200, json(updated, context, full: true))
        default:
            return notFound()
        }
    }

    /// A pull request as the description's `pull-request` (`full`) or `pull-request-simple` gives it.
    private func json(_ pull: Pull, _ context: Context, full: Bool) -> [String: Any] {
        let api = "\(context.baseURL)/repos/\(context.owner)/\(context.repo)"
        let web = "https://github.com/\(context.owner)/\(context.repo)"
        // An open pull request's head follows its branch, as GitHub's does.
        let sha = pull.state == "open" ? (tip(pull.head) ?? pull.sha) : pull.sha
        func side(_ branch: String, _ sha: String) -> [String: Any] {
            ["label": "\(context.owner):\(branch)", "ref": branch, "sha": sha, "user": context.user, "repo": context.repository]
        }
        let links: [String: String] = [
            "self": "\(api)/pulls/\(pull.number)", "html": "\(web)/pull/\(pull.number)", "issue": "\(api)/issues/\(pull.number)",
            "comments": "\(api)/issues/\(pull.number)/comments", "review_comments": "\(api)/pulls/\(pull.number)/comments",
            "review_comment": "\(api)/pulls/comments{/number}", "commits": "\(api)/pulls/\(pull.number)/commits",
            "statuses": "\(api)/statuses/\(sha)",
        ]
        var json: [String: Any] = [
            "url": links["self"] ?? "", "id": 1000 + pull.number, "node_id": "PR_\(pull.number)", "html_url": links["html"] ?? "",
            "diff_url": "\(web)/pull/\(pull.number).diff", "patch_url": "\(web)/pull/\(pull.number).patch", "issue_url": links["issue"] ?? "",
            "commits_url": links["commits"] ?? "", "review_comments_url": links["review_comments"] ?? "",
            "review_comment_url": links["review_comment"] ?? "", "comments_url": links["comments"] ?? "", "statuses_url": links["statuses"] ?? "",
            "number": pull.number, "state": pull.state, "locked": false, "title": pull.title, "user": context.user, "body": pull.body,
            "labels": [[String: Any]](), "milestone": NSNull(), "active_lock_reason": NSNull(),
            "created_at": Self.time, "updated_at": Self.time, "closed_at": pull.closedAt ?? NSNull() as Any,
            "merged_at": pull.mergedAt ?? NSNull() as Any, "merge_commit_sha": NSNull(), "assignee": NSNull(),
            "assignees": [[String: Any]](), "requested_reviewers": [[String: Any]](), "requested_teams": [[String: Any]](),
            "head": side(pull.head, sha), "base": side(pull.base, tip(pull.base) ?? ""),
            "_links": links.mapValues { ["href": $0] }, "author_association": "OWNER", "auto_merge": NSNull(), "draft": false,
        ]
        if full {
            json.merge([
                "merged": pull.mergedAt != nil, "mergeable": NSNull(), "rebaseable": NSNull(), "mergeable_state": "unknown",
                "merged_by": pull.mergedAt != nil ? context.user as Any : NSNull() as Any, "comments": 0, "review_comments": 0,
                "maintainer_can_modify": true, "commits": 1, "additions": 1, "deletions": 0, "changed_files": 1,
            ]) { $1 }
        }
        return json
    }
}
