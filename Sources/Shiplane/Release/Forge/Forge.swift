import Foundation

/// A forge's name in settings, records and links (`github`, `gitlab`, `gitea`, `bitbucket`): each
/// forge declares its own in its folder, and `Forges.all` lists them.
package struct ForgeKind: RawRepresentable, Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
    package var rawValue: String

    /// The kind named `name`; each forge declares its own (`ForgeKind.github`).
    package init(_ name: String) { rawValue = name }

    /// The registered forge's kind named `rawValue`; nil when no forge is registered under it.
    package init?(rawValue: String) {
        guard Forges.all.contains(where: { $0.kind.rawValue == rawValue }) else { return nil }
        self.rawValue = rawValue
    }

    /// Reads the name as a plain string, as the record and the changelog's JSON write it.
    package init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }

    /// Writes the name as a plain string.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Every registered forge's kind, in `Forges.all`'s order.
    package static var allCases: [ForgeKind] { Forges.all.map { $0.kind } }

    /// The forge of this kind; nil when none is registered under it.
    package var forge: (any Forge.Type)? { Forges.all.first { $0.kind == self } }

    /// The forge's name as people write it ("GitHub").
    package var displayName: String { forge?.displayName ?? rawValue }

    package var description: String { rawValue }
}

/// The forge `lane.release` publishes to, chosen explicitly with the options that forge takes:
/// `.github(repository:)`, `.gitlab(server:project:)`, `.gitea(server:repository:)`,
/// `.bitbucket(repository:)` — each declared in its forge's folder.
///
/// Without one, `release` picks the forge from the settings file, the origin remote's host or the
/// CI's variables (`ForgeChoice`).
public struct ForgeTarget: Sendable, Equatable {
    /// Which forge this is.
    package var kind: ForgeKind
    /// The forge's server (GitLab, Gitea); nil: from the CI, the settings or the origin.
    package var server: String?
    /// The repository (`owner/name`, a GitLab project path or id); nil: from the CI or the origin.
    package var repository: String?

    /// A target on the forge of `kind`.
    package init(kind: ForgeKind, server: String? = nil, repository: String? = nil) {
        self.kind = kind
        self.server = server
        self.repository = repository
    }
}

/// A link a changelog makes to a forge's web pages.
package enum ForgeLink: Sendable, Equatable {
    /// The page of one commit.
    case commit(String)
    /// The comparison between two refs.
    case compare(from: String, to: String)
    /// The page of one issue.
    case issue(Int)
    /// The page of one tag (its release).
    case tag(String)
}

/// A CI's variable that names a forge, and whether other forges' CIs set it too
/// (`GITHUB_ACTIONS`, which Gitea and Forgejo Actions imitate).
package struct ForgeCISignal: Sendable, Equatable {
    /// The variable, shown as the reason the forge was chosen.
    package var variable: String
    /// False when other forges' CIs set the variable too: a specific signal wins over it.
    package var specific: Bool

    /// A signal from `variable`.
    package init(variable: String, specific: Bool = true) {
        self.variable = variable
        self.specific = specific
    }
}

/// What a release on any forge is made of: the tag, its texts and flags, and the files.
package struct ForgeReleaseRequest: Sendable {
    /// The release's tag.
    package var tag: String
    /// The release's title; nil: the tag.
    package var name: String?
    /// The release notes, in Markdown.
    package var notes: String?
    /// True for a prerelease (where the forge has the flag).
    package var prerelease: Bool
    /// The files to attach, as the lane passed them (relative to the repository unless absolute).
    package var assets: [String]
    /// False to leave the release a draft (where the forge has drafts).
    package var publish: Bool

    /// A request for the release of `tag`.
    package init(tag: String, name: String? = nil, notes: String? = nil, prerelease: Bool = false, assets: [String] = [], publish: Bool = true) {
        self.tag = tag
        self.name = name
        self.notes = notes
        self.prerelease = prerelease
        self.assets = assets
        self.publish = publish
    }

    /// The title: the name, else the tag.
    package var title: String { name ?? tag }
}

/// What attaching the files did, file by file.
package struct ForgeAttachOutcome: Sendable, Equatable {
    /// Files sent.
    package var uploaded: [String] = []
    /// Files already there with the same bytes.
    package var unchanged: [String] = []
    /// Files whose earlier bytes were replaced (on a draft).
    package var replaced: [String] = []

    /// No files.
    package init(uploaded: [String] = [], unchanged: [String] = [], replaced: [String] = []) {
        self.uploaded = uploaded
        self.unchanged = unchanged
        self.replaced = replaced
    }

    /// "uploaded a; unchanged b".
    package var summary: String {
        var parts: [String] = []
        if !uploaded.isEmpty { parts.append("uploaded \(uploaded.joined(separator: ", "))") }
        if !unchanged.isEmpty { parts.append("unchanged \(unchanged.joined(separator: ", "))") }
        if !replaced.isEmpty { parts.append("replaced \(replaced.joined(separator: ", "))") }
        return parts.joined(separator: "; ")
    }
}

/// One forge (GitHub, GitLab, Gitea, Bitbucket, …): how it is recognised, where its pages are,
/// and the life of a release on it. Each forge is one folder that implements it, listed once in
/// `Forges.all`; `lane.release`, the settings, the changelog's links and the journal name none.
///
/// A value is the forge bound to one repository and its credentials for one step (`connect`).
/// `ForgeReleaseRun` drives every forge through the same life: preflight (every problem at once,
/// before any change), `findRelease` by tag, `createDraft` (or bring an earlier run's draft up to
/// date), `attach` the artifacts, `publish`. Each change is written down as an `Effect` of the
/// forge's folder through `ReleaseEffectRecording` before it happens, and each effect's undo
/// checks that the world is as the run left it before it deletes anything (compare and swap: an
/// id, a digest or a date the run saw), so a rollback never removes what someone else put there.
package protocol Forge: Sendable {
    /// The release as the forge describes it.
    associatedtype Release: Sendable

    /// The forge's name in settings and records (`forge.type: bitbucket`).
    static var kind: ForgeKind { get }
    /// The forge's name as people write it ("Bitbucket").
    static var displayName: String { get }
    /// Public hosts that run this forge, each with the host of its web pages
    /// (`ssh.github.com` → `github.com`).
    static var publicHosts: [String: String] { get }
    /// The CI variable that says the run is on this forge's CI, if `environment` has one.
    static func recognise(ci environment: [String: String]) -> ForgeCISignal?
    /// Whether a repository path of `components` parts is one of this forge's (`owner/name`: 2).
    static func isRepositoryPath(_ components: Int) -> Bool
    /// The web address of `link` in the repository at `repositoryURL` (no trailing slash).
    static func url(of link: ForgeLink, repositoryURL: String) -> String
    /// The step that publishes `request` on `target` (the forge's own action, as `release` runs it).
    static func releaseStep(_ request: ForgeReleaseRequest, target: ForgeTarget) -> any ForgeReleaseStep
    /// The forge's own lane action (`githubRelease`), for the catalog.
    static var action: any DocumentedAction.Type { get }
    /// The effect types the forge's folder declares, so any process reads a record back.
    static var effects: [any Effect.Type] { get }
    /// The forge's pull-request operation for `repository` on `server` (nil: the forge's own
    /// default), its token from `variables`; nil where the forge has none (`ForgeProposals.swift`).
    static func proposals(server: String?, repository: String, variables: [String: String], transport: HTTPTransport) throws -> (any ForgeProposals)?

    /// The forge for `target`'s repository with this lane's credentials; `origin` is the origin
    /// remote's URL. Sends nothing.
    /// - Throws: when nothing names the repository or the server.
    static func connect(_ target: ForgeTarget, origin: String?, in step: StepContext) throws -> Self

    /// Where the release goes, for messages, with its preposition ("on Bitbucket acme/rocket",
    /// "in GitLab project acme/rocket").
    var place: String { get }
    /// Checks the token, repository access, the tag and the files (`artifacts`); every problem at
    /// once, before any change. A dry run only notes what a real run would refuse that a later
    /// step may fix (the tag not pushed yet).
    func preflight(_ request: ForgeReleaseRequest, artifacts: [Artifact], dryRun: Bool, note: @Sendable (String) -> Void) async throws
    /// The release for `tag`, drafts included; nil when there is none.
    func findRelease(tag: String) async throws -> Release?
    /// Creates the release as a draft (where the forge has drafts), or brings `existing`, an
    /// earlier run's, up to this request. Written down before it happens.
    func createDraft(_ request: ForgeReleaseRequest, existing: Release?, recording: any ReleaseEffectRecording) async throws -> Release
    /// Attaches `artifacts`: the same bytes are kept, missing ones sent, other bytes replaced only
    /// where nobody can have downloaded them yet (never deleted before the replacement is up).
    func attach(_ artifacts: [Artifact], to release: Release, request: ForgeReleaseRequest,
                recording: any ReleaseEffectRecording) async throws -> (Release, ForgeAttachOutcome)
    /// Makes the release public (passing the run's point of no return right before).
    func publish(_ release: Release, request: ForgeReleaseRequest, recording: any ReleaseEffectRecording) async throws -> Release
    /// The release's web address, the step's `release_url`.
    func webURL(of release: Release) -> String?
}

extension Forge {
    /// GitHub's link shapes, which Gitea and Forgejo share.
    package static func githubStyleURL(of link: ForgeLink, repositoryURL: String) -> String {
        switch link {
        case .commit(let id): "\(repositoryURL)/commit/\(RemoteLinks.percentEncoded(id))"
        case let .compare(base, head): "\(repositoryURL)/compare/\(RemoteLinks.percentEncoded(base))...\(RemoteLinks.percentEncoded(head))"
        case .issue(let number): "\(repositoryURL)/issues/\(number)"
        case .tag(let tag): "\(repositoryURL)/releases/tag/\(RemoteLinks.percentEncoded(tag))"
        }
    }
}

/// Every forge, listed once: `release` chooses among them, the settings file names them, the
/// changelog links through them. A new forge is one folder and one line in this list. The order
/// decides nothing but the catalog's and the error messages' order: a CI is recognised by its
/// specific variable before a borrowed one, whatever the order.
package enum Forges {
    /// The forges.
    package static var all: [any Forge.Type] { [
        GitHubForge.self, GitLabForge.self, GiteaForge.self,
        BitbucketForge.self,
    ] }

    /// The forge of a public host, and the host of its web pages.
    package static func publicHost(_ host: String) -> (forge: any Forge.Type, webHost: String)? {
        for forge in all { if let web = forge.publicHosts[host] { return (forge, web) } }
        return nil
    }
}

/// The forge settings of `.shiplane.yml`:
///
/// ```yaml
/// forge:
///   type: gitea                      # always release on this forge (github | gitlab | gitea | bitbucket)
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

    /// The server `forge.url` names for a forge of `kind`: the URL, unless `forge.type` names
    /// another forge. Each forge's `connect` reads it after an explicit `server:` argument and
    /// before the CI's variables, however the forge was chosen.
    package func server(for kind: ForgeKind) -> String? {
        self.kind == nil || self.kind == kind ? url : nil
    }

    /// Creates forge settings; with no arguments, those of a project that declares none.
    package init(kind: ForgeKind? = nil, url: String? = nil, hosts: [String: ForgeKind] = [:]) {
        self.kind = kind
        self.url = url
        self.hosts = hosts
    }
}

/// The forge a release goes to, and why: the first of the explicit `forge:` argument, the
/// settings file's `forge.type`, the origin remote's host (a forge's public host, or a host in
/// `forge.hosts`), and the CI's variables (a forge's own before one other CIs borrow:
/// `GITEA_ACTIONS` before `GITHUB_ACTIONS`).
struct ForgeChoice: Sendable, Equatable {
    var forge: ForgeTarget
    var reason: String

    /// - Throws: `ForgeUnknown` (a usage error) when nothing names the forge, saying how to declare it.
    static func choose(explicit: ForgeTarget?, settings: ForgeSettings, environment: [String: String], originURL: String?) throws -> ForgeChoice {
        if let explicit { return ForgeChoice(forge: explicit, reason: "forge: argument") }
        // The server is the forge's to find (`forge.url` among the rest: `ForgeSettings.server(for:)`).
        func target(_ kind: ForgeKind) -> ForgeTarget { ForgeTarget(kind: kind) }
        if let kind = settings.kind {
            return ForgeChoice(forge: target(kind), reason: "forge.type in \(ProjectSettings.fileName)")
        }
        let host = originURL.flatMap { RemoteLinks.hostAndPath(of: $0)?.host }
        if let host, let kind = settings.hosts[host] {
            return ForgeChoice(forge: target(kind), reason: "\(host) in forge.hosts of \(ProjectSettings.fileName)")
        }
        if let host, let known = Forges.publicHost(host) {
            return ForgeChoice(forge: target(known.forge.kind), reason: "the origin remote's host \(host)")
        }
        let signals = Forges.all.compactMap { forge in forge.recognise(ci: environment).map { (forge, $0) } }
        if let (forge, signal) = signals.first(where: { $0.1.specific }) ?? signals.first {
            return ForgeChoice(forge: target(forge.kind), reason: signal.variable)
        }
        throw ForgeUnknown(host: host)
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
        let others = ForgeKind.allCases.filter { $0.rawValue != "gitlab" }.map(\.rawValue).joined(separator: ", ")
        return "declare it in \(ProjectSettings.fileName):\n  forge:\n    hosts:\n      \(name): gitlab   # or \(others)\nor pass it to the action: lane.release(..., forge: .gitlab(server: \"https://\(name)\"))"
    }

    var category: ErrorCategory { .usage }
}
