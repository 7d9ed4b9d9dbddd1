import Foundation

/// The parts of Gitea's published API description (go-gitea/gitea `templates/swagger/v1_json.tmpl`,
/// Swagger 2.0) that the Gitea stand-in serves, written down as a table: each operation's method
/// and path template, its query parameters, its body (a definition, or the multipart form of an
/// attachment), and the statuses it documents. The stand-in refuses a request the table does not
/// allow and records a violation, so a test fails; it records one too when it would answer with a
/// status the operation does not document.
enum GiteaAPIDescription {
    struct Operation {
        var method: String
        var path: String
        var query: Set<String> = []
        var body: Body = .none
        var statuses: Set<Int>
    }

    enum Body: Equatable {
        case none
        /// `in: body` with `$ref: #/definitions/NAME`.
        case json(String)
        /// `consumes: multipart/form-data` with these `in: formData` parameters (name → required).
        case form([String: Bool])
    }

    struct Definition {
        var properties: Set<String>
        var required: Set<String> = []
    }

    /// Security: `AuthorizationHeaderToken` — "API tokens must be prepended with "token" followed by a space."
    static let tokenPrefix = "token "

    static let operations: [Operation] = [
        Operation(method: "GET", path: "/repos/{owner}/{repo}", statuses: [200, 404]),
        Operation(method: "GET", path: "/repos/{owner}/{repo}/tags/{tag}", statuses: [200, 404]),
        Operation(method: "GET", path: "/repos/{owner}/{repo}/releases", query: ["draft", "pre-release", "per_page", "page", "limit"], statuses: [200]),
        Operation(method: "POST", path: "/repos/{owner}/{repo}/releases", body: .json("CreateReleaseOption"), statuses: [201, 404, 409]),
        Operation(method: "GET", path: "/repos/{owner}/{repo}/releases/tags/{tag}", statuses: [200, 404]),
        Operation(method: "DELETE", path: "/repos/{owner}/{repo}/releases/tags/{tag}", statuses: [204, 404, 405]),
        Operation(method: "GET", path: "/repos/{owner}/{repo}/releases/{id}", statuses: [200, 404]),
        Operation(method: "DELETE", path: "/repos/{owner}/{repo}/releases/{id}", statuses: [204, 404, 405]),
        Operation(method: "PATCH", path: "/repos/{owner}/{repo}/releases/{id}", body: .json("EditReleaseOption"), statuses: [200, 404]),
        Operation(method: "GET", path: "/repos/{owner}/{repo}/releases/{id}/assets", statuses: [200]),
        Operation(method: "POST", path: "/repos/{owner}/{repo}/releases/{id}/assets", query: ["name"], body: .form(["attachment": true]), statuses: [201, 400]),
        Operation(method: "GET", path: "/repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}", statuses: [200]),
        Operation(method: "DELETE", path: "/repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}", statuses: [204]),
        Operation(method: "PATCH", path: "/repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}", body: .json("EditAttachmentOptions"), statuses: [201]),
        // The pulls (a Homebrew tap's pull request), from the same file at 002a46fe: repoListPullRequests,
        // repoCreatePullRequest, repoGetPullRequest, repoEditPullRequest (whose success is 201).
        Operation(method: "GET", path: "/repos/{owner}/{repo}/pulls", query: ["state", "sort", "milestone", "labels", "page", "limit"], statuses: [200]),
        Operation(method: "POST", path: "/repos/{owner}/{repo}/pulls", body: .json("CreatePullRequestOption"), statuses: [201, 409, 422]),
        Operation(method: "GET", path: "/repos/{owner}/{repo}/pulls/{index}", statuses: [200, 404]),
        Operation(method: "PATCH", path: "/repos/{owner}/{repo}/pulls/{index}", body: .json("EditPullRequestOption"), statuses: [201, 403, 409, 412, 422]),
    ]

    static let definitions: [String: Definition] = [
        "CreateReleaseOption": Definition(properties: ["body", "draft", "name", "prerelease", "tag_name", "target_commitish"], required: ["tag_name"]),
        "EditReleaseOption": Definition(properties: ["body", "draft", "name", "prerelease", "tag_name", "target_commitish"]),
        "EditAttachmentOptions": Definition(properties: ["name"]),
        "CreatePullRequestOption": Definition(properties: ["assignee", "assignees", "base", "body", "due_date", "head", "labels", "milestone", "title"]),
        "EditPullRequestOption": Definition(properties: ["allow_maintainer_edit", "assignee", "assignees", "base", "body", "due_date", "labels", "milestone",
                                                        "state", "title", "unset_due_date"]),
    ]

    /// The operation for a method and the path below `/api/v1`, with the path's parameters.
    static func match(method: String, segments: [String]) -> (Operation, [String: String])? {
        for operation in operations where operation.method == method {
            let template = operation.path.split(separator: "/").map(String.init)
            guard template.count == segments.count else { continue }
            var parameters: [String: String] = [:]
            var matches = true
            for (part, segment) in zip(template, segments) {
                if part.hasPrefix("{") { parameters[String(part.dropFirst().dropLast())] = segment } else if part != segment { matches = false; break }
            }
            // An integer parameter (`format: int64`) must be one, so `releases/tags` is not `releases/{id}`.
            for key in ["id", "attachment_id", "index"] where parameters[key] != nil && Int(parameters[key] ?? "") == nil { matches = false }
            if matches { return (operation, parameters) }
        }
        return nil
    }
}
