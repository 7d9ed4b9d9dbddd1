import Foundation
import Shiplane

/// What `shiplane lanes` shows of one lane: name, summary and options.
public struct LaneDescription: Codable, Equatable, Sendable {
    public struct OptionDescription: Codable, Equatable, Sendable {
        /// `--bump`, or the value name of a positional argument.
        public var name: String
        /// `option`, `flag` or `positional`.
        public var kind: String
        public var valueName: String?
        public var defaultValue: String?
        public var help: String?
        public var values: [String]?
        public var isOptional: Bool
    }

    public var name: String
    public var summary: String
    public var isPrivate: Bool
    public var options: [OptionDescription]
}
