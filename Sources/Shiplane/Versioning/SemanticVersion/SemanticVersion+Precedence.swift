import Foundation

/// Ordering by SemVer 2.0.0 §11 precedence.
extension SemanticVersion: Comparable {
    /// Orders by precedence; versions of equal precedence are ordered by build metadata (none
    /// first, then ASCII order) so that `<` is a strict total order consistent with `==`.
    public static func < (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        switch lhs.comparePrecedence(to: rhs) {
        case .orderedAscending: return true
        case .orderedDescending: return false
        case .orderedSame:
            let left = lhs.buildMetadata.joined(separator: ".")
            let right = rhs.buildMetadata.joined(separator: ".")
            return left.utf8.lexicographicallyPrecedes(right.utf8)
        }
    }

    /// Compares precedence as SemVer 2.0.0 §11 defines it, ignoring build metadata.
    ///
    /// MAJOR, MINOR and PATCH compare numerically; a prerelease has lower precedence than the
    /// release; prerelease identifiers compare left to right, numeric ones numerically and below
    /// alphanumeric ones, alphanumeric ones in ASCII order; when all shared identifiers are
    /// equal, the longer list has higher precedence.
    public func comparePrecedence(to other: SemanticVersion) -> ComparisonResult {
        for (left, right) in [(major, other.major), (minor, other.minor), (patch, other.patch)] where left != right {
            return left < right ? .orderedAscending : .orderedDescending
        }
        switch (prerelease.isEmpty, other.prerelease.isEmpty) {
        case (true, true): return .orderedSame
        case (true, false): return .orderedDescending
        case (false, true): return .orderedAscending
        case (false, false): break
        }
        for (left, right) in zip(prerelease, other.prerelease) {
            let result = Self.compareIdentifiers(left, right)
            if result != .orderedSame { return result }
        }
        if prerelease.count == other.prerelease.count { return .orderedSame }
        return prerelease.count < other.prerelease.count ? .orderedAscending : .orderedDescending
    }

    /// True when neither version has higher precedence (build metadata is ignored).
    public func hasSamePrecedence(as other: SemanticVersion) -> Bool {
        comparePrecedence(to: other) == .orderedSame
    }

    static func isNumeric(_ identifier: String) -> Bool {
        !identifier.isEmpty && identifier.allSatisfy(\.isASCIIDigit)
    }

    /// Compares two prerelease identifiers; numeric ones of any length compare by value.
    static func compareIdentifiers(_ left: String, _ right: String) -> ComparisonResult {
        switch (isNumeric(left), isNumeric(right)) {
        case (true, true):
            // Without leading zeros, a longer number is a larger one.
            if left.utf8.count != right.utf8.count {
                return left.utf8.count < right.utf8.count ? .orderedAscending : .orderedDescending
            }
            return asciiCompare(left, right)
        case (true, false): return .orderedAscending
        case (false, true): return .orderedDescending
        case (false, false): return asciiCompare(left, right)
        }
    }

    private static func asciiCompare(_ left: String, _ right: String) -> ComparisonResult {
        if left == right { return .orderedSame }
        return left.utf8.lexicographicallyPrecedes(right.utf8) ? .orderedAscending : .orderedDescending
    }
}
