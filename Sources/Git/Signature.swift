import Foundation
internal import CLibgit2

/// Who made a commit or a tag, and when (whole seconds, with the time zone it was made in).
public struct Signature: Equatable, Sendable {
    /// Which identity of a commit a signature is for; each has its own environment variables.
    public enum Role: String, Sendable {
        case author, committer
    }

    public var name: String
    public var email: String
    public var date: Date
    /// Minutes east of UTC (`+0200` is 120).
    public var timeZoneOffsetMinutes: Int

    public init(name: String, email: String, date: Date, timeZoneOffsetMinutes: Int) {
        self.name = name
        self.email = email
        self.date = date
        self.timeZoneOffsetMinutes = timeZoneOffsetMinutes
    }

    /// Reads a libgit2 signature (which the caller keeps owning).
    init(_ signature: UnsafePointer<git_signature>) {
        let raw = signature.pointee
        self.init(
            name: raw.name.map { String(cString: $0) } ?? "",
            email: raw.email.map { String(cString: $0) } ?? "",
            date: Date(timeIntervalSince1970: TimeInterval(raw.when.time)),
            timeZoneOffsetMinutes: Int(raw.when.offset))
    }

    /// Runs `body` with a libgit2 copy of this signature, freed afterwards.
    func withLibgit2Signature<T>(_ operation: String, _ body: (UnsafePointer<git_signature>) throws -> T) throws -> T {
        var signature: UnsafeMutablePointer<git_signature>?
        let seconds = git_time_t(date.timeIntervalSince1970.rounded(.down))
        try check(git_signature_new(&signature, name, email, seconds, Int32(timeZoneOffsetMinutes)), operation)
        defer { git_signature_free(signature) }
        guard let signature else {
            throw GitError(code: .other(-1), operation: operation, message: "no signature returned")
        }
        return try body(signature)
    }
}

extension Repository {
    /// The author or committer identity git would use: the environment, then git config.
    ///
    /// Like git, `GIT_AUTHOR_NAME`, `GIT_AUTHOR_EMAIL` and `GIT_AUTHOR_DATE` (for the committer:
    /// `GIT_COMMITTER_*`) win over `author.name`/`committer.name`, then `user.name` (and the same for
    /// the email, with `EMAIL` as a last resort). libgit2's `git_signature_default` reads only the
    /// config, which is why this exists. The date accepts `@<unix> [+hhmm]`, `<unix> +hhmm`,
    /// ISO 8601 and RFC 2822; without a date it is `now` in the local time zone.
    /// - Throws: `GitError` `.missingIdentity` when no name or email is set, `.invalid` for a date
    ///   git would not accept either.
    public func signature(
        environment: [String: String], role: Signature.Role, now: Date = Date(), timeZone: TimeZone = .current
    ) throws -> Signature {
        lock.lock(); defer { lock.unlock() }
        let prefix = role == .author ? "GIT_AUTHOR_" : "GIT_COMMITTER_"
        let (name, email) = try configuredIdentity(environment: environment, role: role)
        guard let name, let email else {
            let missing = [name == nil ? "name" : nil, email == nil ? "email" : nil].compactMap { $0 }
            throw GitError(
                code: .missingIdentity, operation: "find the \(role.rawValue) identity",
                message: "no \(role.rawValue) \(missing.joined(separator: " or ")) is set: run "
                    + "`git config --global user.name \"Your Name\"` and `git config --global user.email you@example.com`, "
                    + "or set \(prefix)NAME and \(prefix)EMAIL")
        }
        guard let text = Self.nonEmpty(environment[prefix + "DATE"]) else {
            return Signature(
                name: name, email: email, date: Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down)),
                timeZoneOffsetMinutes: timeZone.secondsFromGMT(for: now) / 60)
        }
        guard let parsed = GitDate.parse(text, timeZone: timeZone) else {
            throw GitError(
                code: .invalid, operation: "read \(prefix)DATE",
                message: "invalid date format: \(text) (use `@<unix seconds> +hhmm`, ISO 8601 like "
                    + "2024-05-01T12:00:00+02:00, or RFC 2822)")
        }
        return Signature(
            name: name, email: email, date: Date(timeIntervalSince1970: TimeInterval(parsed.seconds)),
            timeZoneOffsetMinutes: parsed.offsetMinutes)
    }

    /// The author or committer name and email git would use, each nil when nothing sets it:
    /// `GIT_AUTHOR_NAME` (`GIT_COMMITTER_*` for the committer), then `author.name`
    /// (`committer.name`), then `user.name`; the same for the email, with `EMAIL` last.
    /// - Throws: `GitError` when the configuration cannot be read.
    public func configuredIdentity(environment: [String: String], role: Signature.Role) throws -> (name: String?, email: String?) {
        lock.lock(); defer { lock.unlock() }
        let prefix = role == .author ? "GIT_AUTHOR_" : "GIT_COMMITTER_"
        let name = try Self.nonEmpty(environment[prefix + "NAME"])
            ?? Self.nonEmpty(configString("\(role.rawValue).name"))
            ?? Self.nonEmpty(configString("user.name"))
        let email = try Self.nonEmpty(environment[prefix + "EMAIL"])
            ?? Self.nonEmpty(configString("\(role.rawValue).email"))
            ?? Self.nonEmpty(configString("user.email"))
            ?? Self.nonEmpty(environment["EMAIL"])
        return (name, email)
    }

    /// `value`, unless it is unset or blank (git treats both as unset).
    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return value
    }
}
