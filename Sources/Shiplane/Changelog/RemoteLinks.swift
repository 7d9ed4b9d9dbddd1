import Foundation

/// Web links to commits, comparisons, tags and issues of a repository hosted on a registered forge
/// (`Forges.all`: GitHub, GitLab, Gitea/Forgejo, Bitbucket), derived from its git remote URL; each
/// forge gives its own link shapes (`Forge.url(of:repositoryURL:)`).
///
/// Understood remote forms (with or without `.git`, with or without a trailing `/`):
/// `https://github.com/o/r.git`, `http://…`, `git://…`, `ssh://git@github.com/o/r`,
/// `ssh://git@github.com:22/o/r`, `git+ssh://…`, `git@github.com:o/r.git` and `github.com:o/r`.
/// Credentials (`https://user:token@github.com/…`) and ports are dropped: links hold only the
/// host and the repository path, so a token never reaches a changelog.
///
/// Known hosts are the forges' public hosts (`Forge.publicHosts`): `github.com` (also `www.` and
/// `ssh.github.com`), `gitlab.com` (also `www.` and `altssh.gitlab.com`), `codeberg.org` and
/// `gitea.com`, `bitbucket.org`; GitLab paths may have subgroups (`group/sub/repo`), the others'
/// must be exactly `owner/repo`. Self-hosted GitLab, Gitea and GitHub Enterprise are not detected from the URL;
/// pass their host names in `additionalHosts` (`forge.hosts` in `.shiplane.yml`). Any other host
/// gives nil (no links).
package struct RemoteLinks: Sendable, Hashable, Codable {
    /// The kind of hosting service, which decides the shape of the links: a registered forge.
    package typealias Host = ForgeKind

    /// The hosting service.
    package var host: Host
    /// The repository's web address without a trailing slash (`https://github.com/o/r`).
    package var repositoryURL: String

    /// Creates links for a repository web address; prefer ``init(remoteURL:additionalHosts:)``.
    package init(host: Host, repositoryURL: String) {
        self.host = host
        self.repositoryURL = repositoryURL
    }

    /// Derives links from a git remote URL; nil when the host is unknown or the path is not a
    /// repository path.
    /// - Parameters:
    ///   - remoteURL: the remote as written in the git config (https, ssh or scp form).
    ///   - additionalHosts: extra host names (lowercase, e.g. `git.example.com`) and the
    ///     service they run, for self-hosted instances.
    package init?(remoteURL: String, additionalHosts: [String: Host] = [:]) {
        guard let location = Self.hostAndPath(of: remoteURL) else { return nil }
        let webHost: String
        let service: any Forge.Type
        if let known = Forges.publicHost(location.host) {
            (webHost, service) = (known.webHost, known.forge)
        } else {
            guard let configured = additionalHosts[location.host]?.forge else { return nil }
            (webHost, service) = (location.host, configured)
        }
        guard let components = Self.repositoryPathComponents(location.path), service.isRepositoryPath(components.count) else { return nil }
        self.init(host: service.kind, repositoryURL: "https://\(webHost)/" + components.joined(separator: "/"))
    }

    // MARK: - Links

    /// The page of one commit.
    package func commitURL(_ id: String) -> String { url(.commit(id)) }

    /// The comparison between two refs (`/compare/v1.1.0...v1.2.0`).
    package func compareURL(from base: String, to head: String) -> String { url(.compare(from: base, to: head)) }

    /// The page of one issue (GitHub redirects to the pull request when the number is one).
    package func issueURL(_ number: Int) -> String { url(.issue(number)) }

    /// The page of one tag (GitHub: its release page).
    package func tagURL(_ tag: String) -> String { url(.tag(tag)) }

    /// The link in the shape of the forge's pages (GitHub's when no forge is registered as `host`).
    private func url(_ link: ForgeLink) -> String {
        (host.forge ?? GitHubForge.self).url(of: link, repositoryURL: repositoryURL)
    }

    // MARK: - Parsing

    private static let schemes: Set<String> = ["https", "http", "ssh", "git", "git+ssh", "ssh+git"]

    /// Splits a remote URL into a lowercased host (no credentials, no port) and the path after it.
    static func hostAndPath(of remoteURL: String) -> (host: String, path: Substring)? {
        let text = Substring(ChangelogTextLines.trimmed(Substring(remoteURL).unicodeScalars))
        let authority: Substring
        let path: Substring
        if let schemeEnd = text.range(of: "://") {
            guard schemes.contains(text[..<schemeEnd.lowerBound].lowercased()) else { return nil }
            let rest = text[schemeEnd.upperBound...]
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            authority = rest[..<slash]
            path = rest[slash...]
            var host = authority
            if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
            if let colon = host.lastIndex(of: ":") { host = host[..<colon] }
            return host.isEmpty ? nil : (host.lowercased(), path)
        }
        // scp-like syntax: [user@]host:path, where the colon comes before any slash.
        guard let colon = text.firstIndex(of: ":") else { return nil }
        if let slash = text.firstIndex(of: "/"), slash < colon { return nil }
        var host = text[..<colon]
        if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
        path = text[text.index(after: colon)...]
        return host.isEmpty ? nil : (host.lowercased(), path)
    }

    /// The repository path's components without `.git`, query or fragment; nil when a component
    /// is empty, `.`/`..`, or holds characters other than letters, digits, `.`, `_` and `-`.
    static func repositoryPathComponents(_ path: Substring) -> [Substring]? {
        var path = path
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        while path.hasPrefix("/") { path = path.dropFirst() }
        while path.hasSuffix("/") { path = path.dropLast() }
        if path.lowercased().hasSuffix(".git") { path = path.dropLast(4) }
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        for component in components {
            guard !component.isEmpty, component != ".", component != "..",
                component.utf8.allSatisfy({ CommitTextBytes.isTypeByte($0) || $0 == 0x2E })
            else { return nil }
        }
        return components
    }

    /// Percent-encodes everything but letters, digits and `-._~/+`, so a ref is safe in a URL and
    /// inside a Markdown link.
    package static func percentEncoded(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if CommitTextBytes.isTypeByte(byte) || byte == 0x2E || byte == 0x7E || byte == 0x2F || byte == 0x2B {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return result
    }
}
