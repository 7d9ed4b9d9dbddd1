/// How far a release moves the version: the part of MAJOR.MINOR.PATCH that increases.
public enum BumpLevel: Int, Comparable, Sendable, CaseIterable, Codable {
    case patch = 0
    case minor = 1
    case major = 2

    public static func < (lhs: BumpLevel, rhs: BumpLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    public var name: String {
        switch self {
        case .patch: "patch"
        case .minor: "minor"
        case .major: "major"
        }
    }
}
