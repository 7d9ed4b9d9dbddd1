import Foundation

/// A repository on a Gitea or Forgejo server, and the API it is reached through (`SERVER/api/v1`).
struct GiteaRepository: Sendable, Equatable, CustomStringConvertible {
    /// The REST API base without a trailing slash (`https://code.example.org/api/v1`).
    var apiURL: String
    var owner: String
    var name: String

    /// "owner/name".
    var description: String { "\(owner)/\(name)" }

    /// Finds the repository and its server: the one resolution `lane.release`, `giteaRelease` and
    /// a part's `.gitea()` draft share (`GiteaForge.connect`). The server is, in order, the
    /// `server` argument, `declared` (`forge.url` of `.shiplane.yml`: what the project wrote
    /// comes before what a CI sets for every job), the CI's variables (`GITEA_SERVER_URL`,
    /// `FORGEJO_SERVER_URL`, or `GITHUB_SERVER_URL` under Gitea/Forgejo Actions), and `https://`
    /// with the origin's host; the repository is the `repository` argument, the CI's
    /// (`FORGEJO_REPOSITORY`, `GITHUB_REPOSITORY` under Actions), or the origin's path.
    /// - Throws: `GiteaError.repositoryUnknown` when nothing names them.
    static func locate(repository: String?, server: String?, declared: String? = nil, environment: [String: String], originURL: String?) throws -> GiteaRepository {
        func value(_ name: String) -> String? {
            guard let text = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
            return text
        }
        let inActions = environment["GITEA_ACTIONS"] == "true" || environment["FORGEJO_ACTIONS"] == "true"
        let origin = originURL.flatMap { RemoteLinks.hostAndPath(of: $0) }
        let originPath = origin.flatMap { RemoteLinks.repositoryPathComponents($0.path) }.map { $0.map(String.init) }
        var base: String
        if let server = server?.trimmingCharacters(in: .whitespacesAndNewlines), !server.isEmpty {
            base = server
        } else if let declared = declared?.trimmingCharacters(in: .whitespacesAndNewlines), !declared.isEmpty {
            base = declared
        } else if let ci = value("GITEA_SERVER_URL") ?? value("FORGEJO_SERVER_URL") ?? (inActions ? value("GITHUB_SERVER_URL") : nil) {
            base = ci
        } else if let host = origin?.host, originPath != nil {
            base = "https://\(host)"
        } else {
            throw GiteaError.repositoryUnknown(reason: "no Gitea server: no server option, no forge.url in .shiplane.yml, no GITEA_SERVER_URL, and no origin remote to take it from")
        }
        while base.hasSuffix("/") { base.removeLast() }
        if !base.hasSuffix("/api/v1") { base += "/api/v1" }
        let path: [String]
        if let repository = repository?.trimmingCharacters(in: .whitespacesAndNewlines), !repository.isEmpty {
            path = repository.split(separator: "/").map(String.init)
        } else if let ci = value("FORGEJO_REPOSITORY") ?? (inActions ? value("GITHUB_REPOSITORY") : nil) {
            path = ci.split(separator: "/").map(String.init)
        } else if let originPath {
            path = originPath
        } else {
            throw GiteaError.repositoryUnknown(reason: "no repository: no repository option and no origin remote")
        }
        guard path.count == 2 else {
            throw GiteaError.repositoryUnknown(reason: "\(path.joined(separator: "/")) is not owner/name")
        }
        return GiteaRepository(apiURL: base, owner: path[0], name: path[1])
    }
}
