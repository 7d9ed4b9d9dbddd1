import Foundation

/// The forges a release can go to.
public enum ForgeKind: String, Sendable, Equatable, CaseIterable, Codable {
    /// GitHub or GitHub Enterprise Server.
    case github
    /// gitlab.com or a self-managed GitLab.
    case gitlab
    /// A Gitea or Forgejo server (codeberg.org is Forgejo).
    case gitea

    /// The forge's name as people write it.
    package var displayName: String {
        switch self {
        case .github: "GitHub"
        case .gitlab: "GitLab"
        case .gitea: "Gitea"
        }
    }
}

/// The forge `lane.release` publishes to, chosen explicitly, with the options only that forge takes.
///
/// Without one, `release` picks the forge from the settings file, the origin remote's host or the
/// CI's variables (`ForgeChoice`).
public enum Forge: Sendable, Equatable {
    /// GitHub; `repository` is `owner/name` or a remote URL (nil: the origin remote).
    case github(repository: String? = nil)
    /// GitLab; `server` is its URL (nil: `CI_SERVER_URL`, else the origin's host), `project` its
    /// path or id (nil: `CI_PROJECT_ID`, else the origin's path).
    case gitlab(server: String? = nil, project: String? = nil)
    /// Gitea or Forgejo; `server` is its URL (nil: the settings file, the CI's server variable,
    /// else the origin's host), `repository` is `owner/name` (nil: the origin's path).
    case gitea(server: String? = nil, repository: String? = nil)

    /// Which forge this is.
    package var kind: ForgeKind {
        switch self {
        case .github: .github
        case .gitlab: .gitlab
        case .gitea: .gitea
        }
    }
}

/// The forge settings of `.shiplane.yml`:
///
/// ```yaml
/// forge:
///   type: gitea                      # always release on this forge (github | gitlab | gitea)
///   url: https://code.example.org    # its server, when not https://<origin's host>
///   hosts:                           # self-hosted hosts and the forge each runs
///     git.example.com: gitlab
///     code.example.org: gitea
/// ```
package struct ForgeSettings: Sendable, Equatable {
    /// The forge every release goes to (`forge.type`); nil: chosen from the origin or the CI.
    package var kind: ForgeKind?
    /// The GitLab or Gitea server's URL (`forge.url`), when its API is not at the origin's host
    /// (GitHub Enterprise takes `GITHUB_API_URL` instead).
    package var url: String?
    /// Self-hosted host names (lowercase) and the forge each runs (`forge.hosts`).
    package var hosts: [String: ForgeKind]

    /// Creates forge settings; with no arguments, those of a project that declares none.
    package init(kind: ForgeKind? = nil, url: String? = nil, hosts: [String: ForgeKind] = [:]) {
        self.kind = kind
        self.url = url
        self.hosts = hosts
    }
}

/// The forge a release goes to, and why: the first of the explicit `forge:` argument, the
/// settings file's `forge.type`, the origin remote's host (github.com, gitlab.com, codeberg.org,
/// or a host in `forge.hosts`), and the CI's variables (`GITLAB_CI`; `GITEA_ACTIONS` or
/// `FORGEJO_*`, before `GITHUB_ACTIONS`, which Gitea and Forgejo Actions set too).
struct ForgeChoice: Sendable, Equatable {
    var forge: Forge
    var reason: String

    /// Well-known public hosts.
    static let knownHosts: [String: ForgeKind] = [
        "github.com": .github, "www.github.com": .github, "ssh.github.com": .github,
        "gitlab.com": .gitlab, "www.gitlab.com": .gitlab, "altssh.gitlab.com": .gitlab,
        "codeberg.org": .gitea, "gitea.com": .gitea,
    ]

    /// - Throws: `ForgeUnknown` (a usage error) when nothing names the forge, saying how to declare it.
    static func choose(explicit: Forge?, settings: ForgeSettings, environment: [String: String], originURL: String?) throws -> ForgeChoice {
        if let explicit { return ForgeChoice(forge: explicit, reason: "forge: argument") }
        if let kind = settings.kind {
            return ForgeChoice(forge: forge(kind, server: settings.url), reason: "forge.type in \(ProjectSettings.fileName)")
        }
        let host = originURL.flatMap { RemoteLinks.hostAndPath(of: $0)?.host }
        if let host, let kind = settings.hosts[host] {
            return ForgeChoice(forge: forge(kind, server: settings.url), reason: "\(host) in forge.hosts of \(ProjectSettings.fileName)")
        }
        if let host, let kind = knownHosts[host] {
            return ForgeChoice(forge: forge(kind, server: settings.url), reason: "the origin remote's host \(host)")
        }
        func set(_ name: String) -> Bool { !(environment[name] ?? "").trimmingCharacters(in: .whitespaces).isEmpty }
        if environment["GITLAB_CI"] == "true" { return ForgeChoice(forge: forge(.gitlab, server: settings.url), reason: "GITLAB_CI") }
        if environment["GITEA_ACTIONS"] == "true" { return ForgeChoice(forge: forge(.gitea, server: settings.url), reason: "GITEA_ACTIONS") }
        if let forgejo = environment.keys.sorted().first(where: { $0.hasPrefix("FORGEJO_") && set($0) }) {
            return ForgeChoice(forge: forge(.gitea, server: settings.url), reason: forgejo)
        }
        if environment["GITHUB_ACTIONS"] == "true" { return ForgeChoice(forge: .github(), reason: "GITHUB_ACTIONS") }
        throw ForgeUnknown(host: host)
    }

    private static func forge(_ kind: ForgeKind, server: String?) -> Forge {
        switch kind {
        case .github: .github()
        case .gitlab: .gitlab(server: server)
        case .gitea: .gitea(server: server)
        }
    }
}

/// No forge could be recognised for a release.
struct ForgeUnknown: ReportableError {
    var host: String?

    var message: String {
        if let host { return "cannot tell which forge \(host) runs (the origin remote's host), so the release has nowhere to go" }
        return "cannot tell which forge to release on: the repository has no origin remote and no CI names one"
    }

    var suggestion: String? {
        let name = host ?? "git.example.com"
        return "declare it in \(ProjectSettings.fileName):\n  forge:\n    hosts:\n      \(name): gitlab   # or gitea, github\nor pass it to the action: lane.release(..., forge: .gitlab(server: \"https://\(name)\"))"
    }

    var category: ErrorCategory { .usage }
}
