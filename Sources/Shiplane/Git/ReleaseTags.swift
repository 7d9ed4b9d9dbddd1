import Foundation
internal import Git

/// Release tags and the commits since the last one, as version bumps and changelogs need them.
///
/// A release tag is a tag whose name is a SemVer version, with or without a leading `v`
/// (`v1.2.0`, `1.2.0`, `v2.0.0-rc.1`), or two numbers (`v7.76`, read as 7.76.0); other tags are
/// not releases.
enum ReleaseHistory {
    static func isReleaseTag(_ name: String, includePrereleases: Bool = true) -> Bool {
        guard let version = SemanticVersion(tagged: name) else { return false }
        return includePrereleases || !version.isPrerelease
    }
}

extension SemanticVersion {
    /// The version a tag names: SemVer with an optional `v` (`v1.2.3`, `1.2.3-rc.1`), or two
    /// numbers as apps tag their releases (`v1.2` is 1.2.0, `7.76-beta.1` is 7.76.0-beta.1).
    init?(tagged name: String) {
        if let version = try? SemanticVersion(parsing: name) {
            self = version
            return
        }
        guard let style = ReleaseTagStyle(tag: name), style.numbers == 2 else { return nil }
        let body = name.dropFirst(style.prefix.count)
        let end = body.firstIndex { $0 == "-" || $0 == "+" } ?? body.endIndex
        guard let version = try? SemanticVersion(parsing: String(body[..<end]) + ".0" + String(body[end...])) else { return nil }
        self = version
    }
}

/// Which tags are releases: by default a SemVer name with an optional `v` (`v1.2.0`, `1.2.0`);
/// with a pattern, any tag the glob matches (`app-v*`), its version read from the first digit on.
public struct ReleaseTags: Sendable, Equatable {
    /// An `fnmatch` glob for tag names, or nil for SemVer names.
    public var pattern: String?
    /// Whether prerelease tags (`v2.0.0-rc.1`) count as releases.
    public var includePrereleases: Bool
    /// A regular expression of tag names that are never releases (git-cliff's `ignore_tags`):
    /// their commits belong to the next release.
    public var ignore: String?
    /// A package's tag prefix (`core-v`): its releases are the prefix and a SemVer version.
    public var prefix: String?

    /// Creates the rule; with no arguments, every SemVer name (`v` optional) is a release.
    public init(pattern: String? = nil, includePrereleases: Bool = true, ignore: String? = nil, prefix: String? = nil) {
        self.pattern = pattern
        self.includePrereleases = includePrereleases
        self.ignore = ignore
        self.prefix = prefix
    }

    /// True when a tag named `name` is a release under this rule.
    public func matches(_ name: String) -> Bool {
        matcher()(name)
    }

    /// `matches` with the `ignore` expression compiled once, for checking many tags.
    package func matcher() -> (String) -> Bool {
        let ignored = ignore.flatMap { try? NSRegularExpression(pattern: $0) }
        return { name in
            if let ignored, ignored.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil { return false }
            return self.matchesIgnoringIgnore(name)
        }
    }

    private func matchesIgnoringIgnore(_ name: String) -> Bool {
        if let prefix {
            guard name.hasPrefix(prefix), let version = SemanticVersion(tagged: String(name.dropFirst(prefix.count))) else { return false }
            return includePrereleases || !version.isPrerelease
        }
        if let pattern {
            guard fnmatch(pattern, name, 0) == 0 else { return false }
            return includePrereleases || !(Self.version(of: name)?.isPrerelease ?? false)
        }
        guard let version = SemanticVersion(tagged: name) else { return false }
        return includePrereleases || !version.isPrerelease
    }

    /// The version a release tag names: the whole name, else from its first digit on.
    static func version(of name: String) -> SemanticVersion? {
        if let version = SemanticVersion(tagged: name) { return version }
        // `app2-v1.0.0`: the version starts at the first digit from which the rest parses.
        var index = name.startIndex
        while let digit = name[index...].firstIndex(where: \.isASCIIDigit) {
            if digit == name.startIndex || !name[name.index(before: digit)].isASCIIDigit,
               let version = SemanticVersion(tagged: String(name[digit...])) {
                return version
            }
            index = name.index(after: digit)
        }
        return nil
    }
}
