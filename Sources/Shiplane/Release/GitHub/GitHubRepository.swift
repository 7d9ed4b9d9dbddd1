import Foundation

/// An owner/name pair on a GitHub host, parsed from a git remote URL.
package struct GitHubRepository: Sendable, Equatable, CustomStringConvertible {
    /// The host, lowercased (`github.com`, or a GitHub Enterprise host).
    package var host: String
    /// The owner: a user or an organisation.
    package var owner: String
    /// The repository's name, without `.git`.
    package var name: String

    /// Creates the repository `owner/name` on `host`.
    package init(owner: String, name: String, host: String = "github.com") {
        self.owner = owner
        self.name = name
        self.host = host
    }

    /// "owner/name".
    package var description: String { "\(owner)/\(name)" }

    /// Parses https, http, git, ssh (`ssh://git@host[:port]/o/r.git`) and scp-like (`git@host:o/r.git`)
    /// remotes, and plain `owner/name`; credentials in the URL are dropped.
    /// - Throws: `GitHubError.invalidRemoteURL` when no owner/name can be found (the URL is shown redacted).
    package init(remoteURL: String) throws {
        let trimmed = remoteURL.trimmingCharacters(in: .whitespacesAndNewlines)
        let invalid = GitHubError.invalidRemoteURL(SecretRedactor().redact(trimmed))
        var host = "github.com"
        var path: Substring
        if let schemeRange = trimmed.range(of: "://") {
            var rest = trimmed[schemeRange.upperBound...]
            let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
            var authority = rest[..<authorityEnd]
            if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
            if let colon = authority.lastIndex(of: ":"), !authority.hasPrefix("[") { authority = authority[..<colon] }
            host = String(authority)
            rest = rest[authorityEnd...]
            path = rest
        } else if let colon = trimmed.firstIndex(of: ":"), !trimmed[..<colon].contains("/") {
            var authority = trimmed[..<colon]
            if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
            host = String(authority)
            path = trimmed[trimmed.index(after: colon)...]
        } else {
            path = Substring(trimmed)
        }
        path = path.drop { $0 == "/" }
        while path.hasSuffix("/") { path = path.dropLast() }
        if path.hasSuffix(".git") { path = path.dropLast(4) }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !host.isEmpty, parts.count == 2, let owner = parts.first, let name = parts.last,
              !owner.isEmpty, !name.isEmpty else {
            throw invalid
        }
        self.init(owner: String(owner), name: String(name), host: host.lowercased())
    }
}
