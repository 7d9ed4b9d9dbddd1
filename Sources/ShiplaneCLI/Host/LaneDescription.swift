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

/// What `shiplane lanes` shows and shell completion offers, asked of the lanes program once when
/// it is compiled and kept beside it: listing the lanes (or completing a lane's options) then
/// starts no lane program.
struct LaneCatalogFile: Codable, Equatable {
    /// The file's name in the compiled lanes' cache folder.
    static let fileName = "catalog.json"
    /// The lanes program's hidden argument that prints the file.
    static let argument = "---catalog"

    var lanes: [LaneDescription]
    /// The text listing's lines after its first ("Lanes in ROOT/Lanes:"), which names the repository.
    var listing: [String]

    /// The listing for the repository at `root`, as the lanes program prints it.
    func text(root: String) -> String {
        (["Lanes in \(root)/Lanes:"] + listing).joined(separator: "\n")
    }

    /// `shiplane lanes --json`.
    static func json(_ lanes: [LaneDescription]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(["lanes": lanes]), as: UTF8.self)
    }

    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// The file at `path`; nil when it is missing or unreadable (the lanes program is asked instead).
    static func load(_ path: String) -> LaneCatalogFile? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(LaneCatalogFile.self, from: data)
    }
}
