extension ConventionalCommit {
    /// The version bump that a set of commit messages calls for, or nil when none is releasable.
    ///
    /// Rules (Conventional Commits with SemVer):
    /// - a breaking change (`!` or a `BREAKING CHANGE` footer, any type) → `.major`;
    /// - `feat` → `.minor`;
    /// - `fix` and `perf` → `.patch`;
    /// - any other type (`docs`, `chore`, ...) and non-conventional messages → no bump.
    ///
    /// Before 1.0.0 (`currentMajorIsZero`), SemVer treats the API as unstable, so a breaking
    /// change bumps `.minor` instead of `.major` (0.3.1 → 0.4.0); `feat` stays `.minor` and
    /// `fix`/`perf` stay `.patch`. The highest level over all messages wins; the scan stops early
    /// once the highest possible level is reached.
    public static func bumpLevel(for messages: some Sequence<String>, currentMajorIsZero: Bool) -> BumpLevel? {
        let ceiling: BumpLevel = currentMajorIsZero ? .minor : .major
        var result: BumpLevel?
        for message in messages {
            guard let commit = ConventionalCommit(parsing: message),
                let level = commit.bumpLevel(currentMajorIsZero: currentMajorIsZero)
            else { continue }
            if result.map({ level > $0 }) ?? true {
                result = level
                if level == ceiling { break }
            }
        }
        return result
    }

    /// The version bump this one commit calls for, or nil when it is not releasable; see
    /// ``bumpLevel(for:currentMajorIsZero:)`` for the rules.
    public func bumpLevel(currentMajorIsZero: Bool) -> BumpLevel? {
        if isBreaking { return currentMajorIsZero ? .minor : .major }
        switch type {
        case "feat": return .minor
        case "fix", "perf": return .patch
        default: return nil
        }
    }
}
