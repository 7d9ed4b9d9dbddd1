import Foundation

/// Bitbucket Cloud's pull requests for `FakeBitbucket`, transcribed from Atlassian's published
/// OpenAPI description of the REST API 2.0 (`swagger.v3.json`, `info.version` 2.0, as
/// dac-static.atlassian.com/cloud/bitbucket/swagger.v3.json serves it; read from the copy in
/// coderabbitai/bitbucket `src/cloud/openapi/swagger.v3.json` at 1b75b1e8, 2026-06-22). Only the
/// operations and schemas a tap's pull request uses:
///
/// - `GET /repositories/{workspace}/{repo_slug}/pullrequests`: query `state` (`OPEN`, `MERGED`,
///   `DECLINED`, `SUPERSEDED`; only open ones by default), paginated (`pagelen`, `page`); answers
///   `paginated_pullrequests` (`size`, `page`, `pagelen`, `next`, `values`).
/// - `POST …/pullrequests`: a `pullrequest` as JSON; `title` and `source` (a branch name) are
///   required, `destination` defaults to the main branch, other fields the operation names:
///   `description` (a string), `close_source_branch`, `draft`, `reviewers`. 201 with the
///   `pullrequest`; 400 "if the input document was invalid" (here: a source or destination branch
///   the repository lacks, and a second open pull request from the same branch into the same one).
/// - `GET …/pullrequests/{pull_request_id}`: the `pullrequest`, 404 when there is none.
/// - `POST …/pullrequests/{pull_request_id}/decline`: no body; 200 with the declined `pullrequest`.
/// - `GET …/commit/{commit}`: the `commit` (`hash`), 404 when there is none.
///
/// `pullrequest` as answered: `type`, `id`, `title`, `state`, `source` and `destination`
/// (`pullrequest_endpoint`: `branch.name`, `commit.hash`, whose pattern `[0-9a-f]{7,}?` allows a
/// short hash: the source's is given as 12 digits, as Bitbucket shows them), `links.html.href`,
/// `summary.raw`, `close_source_branch`, `created_on`, `updated_on`. A request outside this (another field,
/// a query parameter, a body to decline) is refused and kept in `violations`.
final class FakeBitbucketPulls: @unchecked Sendable {
    // @unchecked: every mutable member is read and written holding `lock`.
    struct Pull {
        var id: Int
        var title: String
        var description: String
        var source: String
        var destination: String
        var sha: String
        var state = "OPEN"
    }

    static let postFields: Set<String> = ["title", "description", "source", "destination", "close_source_branch", "draft", "reviewers"]
    static let states: Set<String> = ["OPEN", "MERGED", "DECLINED", "SUPERSEDED"]

    private let lock = NSLock()
    private var pulls: [Int: Pull] = [:]
    private var nextID = 1
    private var openedCount = 0
    private var problems: [String] = []
    /// The commit a branch of the repository names now; nil when there is no such branch.
    let tip: @Sendable (String) -> String?
    /// The repository's main branch, the destination when a POST names none.
    let mainBranch: String

    init(mainBranch: String = "main", tip: @escaping @Sendable (String) -> String?) {
        self.mainBranch = mainBranch
        self.tip = tip
    }

    var all: [Pull] { lock.withLock { pulls.values.sorted { $0.id < $1.id } } }
    var open: [Pull] { all.filter { $0.state == "OPEN" } }
    /// Pull requests opened (POST answered 201).
    var opened: Int { lock.withLock { openedCount } }
    var violations: [String] { lock.withLock { problems } }

    /// Marks pull request `id` merged.
    func merge(_ id: Int) { lock.withLock { pulls[id]?.state = "MERGED" } }

    private func refuse(_ status: Int, _ message: String) -> (Int, Any) {
        lock.withLock { problems.append("\(status): \(message)") }
        return (status, message)
    }

    /// A status and a JSON body (an error's message as a string) for `rest`, the path after
    /// `/2.0/repositories/{workspace}/{repo_slug}/`; nil when it is not one of these operations.
    func route(method: String, rest: [String], query: [String: String], body: [UInt8], apiURL: String, repository: String) -> (Int, Any)? {
        let hasBody = !body.isEmpty
        switch (method, rest.count, rest.first) {
        case ("GET", 1, "pullrequests"):
            if let unknown = query.keys.sorted().first(where: { !["state", "pagelen", "page"].contains($0) }) { return refuse(400, "query parameter \(unknown) is not described") }
            let state = query["state"] ?? "OPEN"
            guard Self.states.contains(state) else { return refuse(400, "state \(state) is not one of \(Self.states.sorted())") }
            let pagelen = Int(query["pagelen"] ?? "10") ?? 0, page = Int(query["page"] ?? "1") ?? 0
            guard (1...50).contains(pagelen), page >= 1 else { return refuse(400, "pagelen \(pagelen) or page \(page) out of range") }
            let list = all.filter { $0.state == state }
            var answer: [String: Any] = ["size": list.count, "page": page, "pagelen": pagelen,
                                         "values": list.dropFirst((page - 1) * pagelen).prefix(pagelen).map { json($0, apiURL: apiURL, repository: repository) }]
            if page * pagelen < list.count { answer["next"] = "\(apiURL)/repositories/\(repository)/pullrequests?state=\(state)&pagelen=\(pagelen)&page=\(page + 1)" }
            return (200, answer)
        case ("POST", 1, "pullrequests"):
            guard query.isEmpty else { return refuse(400, "POST pullrequests takes no query") }
            guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else { return refuse(400, "the body is not a JSON object") }
            if let unknown = object.keys.sorted().first(where: { !Self.postFields.contains($0) }) { return refuse(400, "\(unknown) is not a field of a new pull request") }
            func branch(_ key: String) -> String?? {
                guard let endpoint = object[key] else { return .some(nil) }
                guard let endpoint = endpoint as? [String: Any], endpoint.keys.allSatisfy({ $0 == "branch" }),
                      let branch = endpoint["branch"] as? [String: Any], branch.keys.allSatisfy({ $0 == "name" }), let name = branch["name"] as? String else { return nil }
                return .some(name)
            }
            guard let title = object["title"] as? String, !title.isEmpty else { return refuse(400, "title is required") }
            guard let sourceName = branch("source"), let source = sourceName else { return refuse(400, "source.branch.name is required") }
            guard let destinationName = branch("destination") else { return refuse(400, "destination is {\"branch\": {\"name\": …}}") }
            if let description = object["description"], !(description is String) { return refuse(400, "description is a string") }
            let destination = destinationName ?? mainBranch
            guard let sha = tip(source) else { return (400, "The source branch \(source) does not exist") }
            guard tip(destination) != nil else { return (400, "The destination branch \(destination) does not exist") }
            let made: Pull? = lock.withLock {
                if pulls.values.contains(where: { $0.state == "OPEN" && $0.source == source && $0.destination == destination }) { return nil }
                let pull = Pull(id: nextID, title: title, description: object["description"] as? String ?? "", source: source, destination: destination, sha: sha)
                pulls[pull.id] = pull
                nextID += 1
                openedCount += 1
                return pull
            }
            guard let made else { return (400, "There is already an open pull request from \(source) to \(destination)") }
            return (201, json(made, apiURL: apiURL, repository: repository))
        case ("GET", 2, "pullrequests"):
            guard query.isEmpty, !hasBody else { return refuse(400, "GET pullrequests/{id} takes no query and no body") }
            guard let id = Int(rest[1]), let pull = lock.withLock({ pulls[id] }) else { return (404, "Pull request not found") }
            return (200, json(pull, apiURL: apiURL, repository: repository))
        case ("POST", 3, "pullrequests") where rest[2] == "decline":
            guard query.isEmpty, !hasBody else { return refuse(400, "decline takes no query and no body") }
            let declined: Pull? = lock.withLock {
                guard let id = Int(rest[1]), var pull = pulls[id] else { return nil }
                guard pull.state == "OPEN" else { return pull }
                pull.sha = tip(pull.source) ?? pull.sha
                pull.state = "DECLINED"
                pulls[id] = pull
                return pull
            }
            guard let declined else { return (404, "Pull request not found") }
            guard declined.state == "DECLINED" else { return (400, "Only an open pull request can be declined") }
            return (200, json(declined, apiURL: apiURL, repository: repository))
        case ("GET", 2, "commit"):
            guard query.isEmpty, !hasBody else { return refuse(400, "GET commit/{commit} takes no query and no body") }
            let known = all.map(\.sha) + all.compactMap { tip($0.source) }
            guard rest[1].count >= 7, let hash = known.first(where: { $0.hasPrefix(rest[1].lowercased()) }) else { return (404, "Commit not found") }
            return (200, ["type": "commit", "hash": hash, "links": ["html": ["href": "https://bitbucket.org/\(repository)/commits/\(hash)"]]])
        default:
            if rest.first == "pullrequests" || rest.first == "commit" { return refuse(404, "\(method) \(rest.joined(separator: "/")) is not an operation of the API") }
            return nil
        }
    }

    /// A `pullrequest` as the description gives it (the members a client reads, and a few more).
    private func json(_ pull: Pull, apiURL: String, repository: String) -> [String: Any] {
        let sha = pull.state == "OPEN" ? (tip(pull.source) ?? pull.sha) : pull.sha
        return [
            "type": "pullrequest", "id": pull.id, "title": pull.title, "state": pull.state, "close_source_branch": false,
            "summary": ["raw": pull.description, "markup": "markdown", "html": ""],
            "source": ["branch": ["name": pull.source], "commit": ["hash": String(sha.prefix(12))]],
            "destination": ["branch": ["name": pull.destination], "commit": ["hash": String((tip(pull.destination) ?? "").prefix(12))]],
            "links": ["html": ["href": "https://bitbucket.org/\(repository)/pull-requests/\(pull.id)"],
                      "self": ["href": "\(apiURL)/repositories/\(repository)/pullrequests/\(pull.id)"]],
            "created_on": "2026-11-29T12:00:00.000000+00:00", "updated_on": "2026-11-29T12:00:00.000000+00:00",
        ]
    }
}
