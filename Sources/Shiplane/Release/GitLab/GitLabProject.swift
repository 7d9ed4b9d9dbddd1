import Foundation

/// A GitLab project and the API it is reached through: gitlab.com or a self-managed instance.
///
/// The project is its numeric id or its full path (`group/subgroup/project`); in URLs it is sent
/// percent-encoded (`group%2Fsubgroup%2Fproject`), as GitLab's REST API requires.
struct GitLabProject: Sendable, Equatable, CustomStringConvertible {
    /// The REST API base without a trailing slash (`https://gitlab.com/api/v4`).
    var apiURL: String
    /// The project's id (`12345`) or full path (`group/project`).
    var id: String

    /// The id as one URL path segment: every `/` encoded.
    var encodedID: String { URITemplate.percentEncode(id, allowReserved: false) }

    /// The project's id or path.
    var description: String { id }

    /// Finds the project and its API from, in order: the `project`/`server` options, GitLab CI's
    /// variables (`CI_PROJECT_ID`, `CI_API_V4_URL`, `CI_SERVER_URL`), and the origin remote
    /// (`https://HOST/group/project.git` → `https://HOST/api/v4`, project `group/project`).
    /// - Throws: `GitLabError.projectUnknown` when neither names a project or a server.
    static func locate(project: String?, server: String?, environment: [String: String], originURL: String?) throws -> GitLabProject {
        func value(_ name: String) -> String? {
            guard let text = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
            return text
        }
        let origin = originURL.flatMap { RemoteLinks.hostAndPath(of: $0) }
        let originPath = origin.flatMap { RemoteLinks.repositoryPathComponents($0.path) }.map { $0.joined(separator: "/") }
        let api: String
        if let server = server?.trimmingCharacters(in: .whitespacesAndNewlines), !server.isEmpty {
            api = apiBase(fromServer: server)
        } else if let v4 = value("CI_API_V4_URL") {
            api = trimmed(v4)
        } else if let serverURL = value("CI_SERVER_URL") {
            api = apiBase(fromServer: serverURL)
        } else if let host = origin?.host, originPath != nil {
            api = "https://\(host)/api/v4"
        } else {
            throw GitLabError.projectUnknown(reason: "no GitLab server: no server option, no CI_API_V4_URL or CI_SERVER_URL, and no origin remote to take it from")
        }
        let id: String
        if let project = project?.trimmingCharacters(in: .whitespacesAndNewlines), !project.isEmpty {
            id = project.hasPrefix("http") || project.contains("@") || project.hasSuffix(".git")
                ? try pathOfRemote(project) : project.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        } else if let ciProject = value("CI_PROJECT_ID") {
            id = ciProject
        } else if let originPath, originPath.contains("/") {
            id = originPath
        } else {
            throw GitLabError.projectUnknown(reason: "no GitLab project: no project option, no CI_PROJECT_ID, and the origin remote names none")
        }
        return GitLabProject(apiURL: api, id: id)
    }

    /// `https://HOST[/prefix]` → `https://HOST[/prefix]/api/v4` (a URL already ending in `/api/v4` is kept).
    static func apiBase(fromServer server: String) -> String {
        let base = trimmed(server)
        return base.hasSuffix("/api/v4") ? base : base + "/api/v4"
    }

    private static func trimmed(_ url: String) -> String {
        var text = url.trimmingCharacters(in: .whitespacesAndNewlines)
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    private static func pathOfRemote(_ remote: String) throws -> String {
        guard let location = RemoteLinks.hostAndPath(of: remote),
              let components = RemoteLinks.repositoryPathComponents(location.path), components.count >= 2 else {
            throw GitLabError.projectUnknown(reason: "cannot find a GitLab project path in \(SecretRedactor().redact(remote))")
        }
        return components.joined(separator: "/")
    }
}
