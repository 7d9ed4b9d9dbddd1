/// How far a release moves the version: the part of MAJOR.MINOR.PATCH that increases.
public enum BumpLevel: Int, Comparable, Sendable, CaseIterable, Codable {
    /// 1.2.3 → 1.2.4.
    case patch = 0
    /// 1.2.3 → 1.3.0.
    case minor = 1
    /// 1.2.3 → 2.0.0.
    case major = 2

    /// Orders the levels: patch < minor < major.
    public static func < (lhs: BumpLevel, rhs: BumpLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `patch`, `minor` or `major`, as written on the command line.
    public var name: String {
        switch self {
        case .patch: "patch"
        case .minor: "minor"
        case .major: "major"
        }
    }
}
