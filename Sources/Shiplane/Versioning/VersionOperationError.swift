/// Why a version cannot be bumped, moved to a prerelease or released as asked.
package struct VersionOperationError: ReportableError, Equatable {
    /// What went wrong.
    package enum Reason: Sendable, Equatable {
        /// A number would exceed `Int.max`.
        case overflow(SemanticVersion, BumpLevel)
        /// `released()` on a version that is not a prerelease.
        case notAPrerelease(SemanticVersion)
        /// The prerelease name is not a single alphanumeric SemVer identifier.
        case invalidPrereleaseName(String)
        /// The asked prerelease would have lower precedence than the current version.
        case prereleaseGoesBackwards(current: SemanticVersion, proposed: SemanticVersion)
        /// An exact version that is not higher than the current one.
        case exactVersionNotHigher(current: SemanticVersion, proposed: SemanticVersion)
    }

    /// What went wrong.
    package let reason: Reason

    /// Creates the error for `reason`.
    package init(_ reason: Reason) { self.reason = reason }

    /// Says what cannot be done to which version, and why.
    package var message: String {
        switch reason {
        case .overflow(let version, let level):
            return "Cannot bump the \(level.name) number of \(version): it would exceed \(Int.max)"
        case .notAPrerelease(let version):
            return "\(version) is not a prerelease, so there is nothing to release from it"
        case .invalidPrereleaseName(let name):
            return "'\(name)' cannot name a prerelease: it must be one identifier of ASCII letters, digits and '-', not only digits"
        case .prereleaseGoesBackwards(let current, let proposed):
            return "A '\(proposed.prerelease.first ?? "")' prerelease after \(current) would go backwards: \(proposed) comes before \(current)"
        case .exactVersionNotHigher(let current, let proposed):
            return "\(proposed) is not higher than the current version \(current)"
        }
    }

    /// What to do instead; nil for an overflow.
    package var suggestion: String? {
        switch reason {
        case .overflow:
            return nil
        case .notAPrerelease:
            return "Use a major, minor or patch bump instead"
        case .invalidPrereleaseName:
            return "Use a name such as alpha, beta or rc"
        case .prereleaseGoesBackwards(let current, _):
            return "Continue the '\(current.prerelease.first ?? "")' prerelease, pick a later name (for example rc), or release \(current.core) first"
        case .exactVersionNotHigher:
            return "Give a version higher than the current one"
        }
    }
}
