import Foundation

/// Moving a version forward: bumps, prereleases and releases.
///
/// All of these drop build metadata: it describes one build, not the next version.
extension SemanticVersion {
    /// The next version at `level`, following npm `semver.inc` semantics.
    ///
    /// A release bumps normally: 1.2.3 → 2.0.0 / 1.3.0 / 1.2.4. A prerelease is first released
    /// where it already is the target: 1.3.0-beta.2 bumped minor is 1.3.0 (not 1.4.0), 2.0.0-rc.1
    /// bumped major is 2.0.0 and 1.2.4-beta.1 bumped patch is 1.2.4; otherwise it bumps
    /// normally (1.2.4-beta.1 bumped minor is 1.3.0).
    /// - Throws: `VersionOperationError` when a number would exceed `Int.max`.
    public func bumped(_ level: BumpLevel) throws -> SemanticVersion {
        switch level {
        case .major:
            if isPrerelease, minor == 0, patch == 0 { return core }
            return SemanticVersion(unchecked: try increment(major, level), 0, 0)
        case .minor:
            if isPrerelease, patch == 0 { return core }
            return SemanticVersion(unchecked: major, try increment(minor, level), 0)
        case .patch:
            if isPrerelease { return core }
            return SemanticVersion(unchecked: major, minor, try increment(patch, level))
        }
    }

    /// Starts or advances a prerelease called `name` (`alpha`, `beta`, `rc`).
    ///
    /// Counters start at 0, as commitizen and semantic-release's `prerelease` count them.
    ///
    /// - From a release, bumps at `base` and starts at 0: 1.2.3 → 1.2.4-beta.0 (base `.patch`),
    ///   1.3.0-beta.0 with base `.minor`.
    /// - From a prerelease of the same name, advances its counter: 1.3.0-beta.0 → 1.3.0-beta.1
    ///   (`-beta` becomes `-beta.0`; a last identifier that is not numeric gets `.0` appended).
    /// - From a prerelease of another name, starts that name at 0 on the same version:
    ///   1.3.0-alpha.3 → 1.3.0-beta.0, provided the result comes after the current version.
    ///
    /// `base` is ignored when the version already is a prerelease. Build metadata is dropped.
    /// - Throws: `VersionOperationError` when `name` is not an identifier, when the new
    ///   prerelease would come before the current one (beta → alpha), or on overflow.
    public func prerelease(_ name: String, base: BumpLevel = .patch) throws -> SemanticVersion {
        guard SemanticVersionParser.isIdentifier(name), !Self.isNumeric(name) else {
            throw VersionOperationError(.invalidPrereleaseName(name))
        }
        guard isPrerelease else {
            let next = try bumped(base)
            return SemanticVersion(unchecked: next.major, next.minor, next.patch, prerelease: [name, "0"])
        }
        let proposed: SemanticVersion
        if prerelease.first == name {
            var identifiers = prerelease
            if identifiers.count > 1, let last = identifiers.last, Self.isNumeric(last) {
                identifiers[identifiers.count - 1] = Self.incrementDecimal(last)
            } else {
                identifiers.append("0")
            }
            proposed = SemanticVersion(unchecked: major, minor, patch, prerelease: identifiers)
        } else {
            proposed = SemanticVersion(unchecked: major, minor, patch, prerelease: [name, "0"])
        }
        guard proposed.comparePrecedence(to: self) == .orderedDescending else {
            throw VersionOperationError(.prereleaseGoesBackwards(current: self, proposed: proposed))
        }
        return proposed
    }

    /// The release this prerelease leads to: 1.3.0-rc.2 → 1.3.0.
    /// - Throws: `VersionOperationError` when the version is not a prerelease.
    public func released() throws -> SemanticVersion {
        guard isPrerelease else { throw VersionOperationError(.notAPrerelease(self)) }
        return core
    }

    private func increment(_ number: Int, _ level: BumpLevel) throws -> Int {
        let (result, overflow) = number.addingReportingOverflow(1)
        if overflow { throw VersionOperationError(.overflow(self, level)) }
        return result
    }

    /// Adds one to a decimal string of any length ("199" → "200").
    static func incrementDecimal(_ digits: String) -> String {
        var result = Array(digits.utf8)
        var index = result.count - 1
        while index >= 0 {
            if result[index] == UInt8(ascii: "9") {
                result[index] = UInt8(ascii: "0")
                index -= 1
            } else {
                result[index] += 1
                return String(decoding: result, as: UTF8.self)
            }
        }
        return "1" + String(decoding: result, as: UTF8.self)
    }
}
