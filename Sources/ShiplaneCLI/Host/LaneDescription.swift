import Foundation
import Shiplane

/// What `shiplane lanes` shows of one lane: name, summary and options.
package struct LaneDescription: Codable, Equatable, Sendable {
    package struct OptionDescription: Codable, Equatable, Sendable {
        /// `--bump`, or the value name of a positional argument.
        package var name: String
        /// `option`, `flag` or `positional`.
        package var kind: String
        package var valueName: String?
        package var defaultValue: String?
        package var help: String?
        package var values: [String]?
        package var isOptional: Bool
    }

    package var name: String
    package var summary: String
    package var isPrivate: Bool
    package var options: [OptionDescription]
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
