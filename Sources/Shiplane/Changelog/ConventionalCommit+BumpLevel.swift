extension ConventionalCommit {
    /// The version bump that a set of commit messages calls for, or nil when none is releasable.
    ///
    /// Rules (Conventional Commits with SemVer; the defaults of `rules`, which `.shiplane.yml`
    /// `versions:` changes):
    /// - a breaking change (`!` or a `BREAKING CHANGE` footer, any type) → `.major`;
    /// - `feat` → `.minor`;
    /// - `fix` and `perf` → `.patch`;
    /// - any other type (`docs`, `chore`, ...) and non-conventional messages → no bump.
    ///
    /// Before 1.0.0 (`currentMajorIsZero`), SemVer treats the API as unstable, so a breaking
    /// change bumps `rules.breakingBeforeOne` — `.minor` by default (0.3.1 → 0.4.0); `feat` stays `.minor` and
    /// `fix`/`perf` stay `.patch`. The highest level over all messages wins; the scan stops early
    /// once the highest possible level is reached.
    package static func bumpLevel(for messages: some Sequence<String>, currentMajorIsZero: Bool, rules: BumpRules = BumpRules()) -> BumpLevel? {
        let ceiling: BumpLevel = currentMajorIsZero ? rules.breakingBeforeOne : .major
        var result: BumpLevel?
        for message in messages {
            guard let commit = ConventionalCommit(parsing: message),
                let level = commit.bumpLevel(currentMajorIsZero: currentMajorIsZero, rules: rules)
            else { continue }
            if result.map({ level > $0 }) ?? true {
                result = level
                if level == ceiling { break }
            }
        }
        return result
    }

    /// The version bump this one commit calls for, or nil when it is not releasable; see
    /// ``bumpLevel(for:currentMajorIsZero:rules:)`` for the rules.
    package func bumpLevel(currentMajorIsZero: Bool, rules: BumpRules = BumpRules()) -> BumpLevel? {
        if isBreaking { return currentMajorIsZero ? rules.breakingBeforeOne : .major }
        if rules.minorTypes.contains(type) { return .minor }
        if rules.patchTypes.contains(type) { return .patch }
        return nil
    }
}

/// Which conventional commits release what (`.shiplane.yml` `versions:`). The defaults are
/// commitizen's: `feat` → minor, `fix` and `perf` → patch, a breaking change → major, and before
/// 1.0.0 a breaking change → minor (commitizen's `major_version_zero`; semantic-release would make
/// it 1.0.0 — set `breaking_before_1: major`).
package struct BumpRules: Sendable, Equatable {
    /// Commit types, in lowercase, that release a minor version (`feat`).
    package var minorTypes: Set<String>
    /// Commit types, in lowercase, that release a patch version (`fix`, `perf`).
    package var patchTypes: Set<String>
    /// What a breaking change does before 1.0.0: `.minor` (the default) or `.major`.
    package var breakingBeforeOne: BumpLevel
    /// Xcode targets whose own version moves with the app's (`versions.targets`), beside the
    /// app's extensions, widgets and watch app, which always do.
    package var targets: Set<String> = []
    /// Gradle modules (their folders, `app-wearos`) with a release train of their own
    /// (`versions.independent`): never read nor moved with the app.
    package var independent: Set<String> = []

    /// Creates rules; the defaults are commitizen's.
    package init(minorTypes: Set<String> = ["feat"], patchTypes: Set<String> = ["fix", "perf"], breakingBeforeOne: BumpLevel = .minor) {
        self.minorTypes = minorTypes
        self.patchTypes = patchTypes
        self.breakingBeforeOne = breakingBeforeOne
    }

    /// `feat`, `fix, perf or refactor`: the releasing types, for messages.
    package var releasingTypes: String {
        let types = minorTypes.sorted() + patchTypes.sorted()
        return types.count <= 1 ? types.joined() : types.dropLast().joined(separator: ", ") + " or " + (types.last ?? "")
    }
}
