import Foundation
import Shiplane
import Testing

/// The actions' own documentation is the one source: it must match the lane methods as declared
/// in the code, and the README's table is made from it.
@Suite("Action documentation: one source, checked against the code and the README", .offThePool)
struct ActionCatalogTests {
    /// The parameter lists of every `public func NAME(` in Sources/Shiplane, without `file:`/`line:`.
    static func declaredOverloads(of name: String) throws -> [[(label: String, name: String)]] {
        let root = packageRoot + "/Sources/Shiplane"
        var overloads: [[(label: String, name: String)]] = []
        for relative in FileManager.default.subpaths(atPath: root) ?? [] where relative.hasSuffix(".swift") {
            let file = try String(contentsOfFile: root + "/" + relative, encoding: .utf8)
            // Only the lane methods: what `extension LaneContext` declares.
            let text = file.components(separatedBy: "\nextension LaneContext {").dropFirst()
                .map { $0.components(separatedBy: "\n}\n").first ?? "" }.joined(separator: "\n")
            var rest = Substring(text)
            while let found = rest.range(of: "public func \(name)(") {
                var depth = 0
                var body = ""
                for character in rest[found.upperBound...] {
                    if character == "(" || character == "[" { depth += 1 }
                    if character == ")" || character == "]" {
                        if depth == 0 { break }
                        depth -= 1
                    }
                    body.append(character)
                }
                rest = rest[found.upperBound...]
                let description = ActionDescription.parse(parameterList: body)
                overloads.append(description.filter { $0.label != "file" && $0.label != "line" })
            }
        }
        return overloads
    }

    /// The parameters of `case NAME(` in `AnnouncementTarget`: an announcer that lanes reach only
    /// through `lane.announce(_:to: [.NAME(…)])`, with the announcement and the delivery rule.
    static func declaredTarget(_ name: String) throws -> [(label: String, name: String)]? {
        let file = try String(contentsOfFile: packageRoot + "/Sources/Shiplane/Notify/Announce/Announce.swift", encoding: .utf8)
        guard let found = file.range(of: "    case \(name)("), let close = file[found.upperBound...].range(of: ")\n") else { return nil }
        let target = ActionDescription.parse(parameterList: String(file[found.upperBound..<close.lowerBound]))
        return [("_", "announcement")] + target + [("delivery", "delivery")]
    }

    @Test(arguments: ActionCatalog.all.map(\.name))
    func documentationMatchesTheDeclaration(_ name: String) throws {
        let action = try #require(ActionCatalog.named(name))
        if action.signature.hasPrefix("try await lane.announce("), let target = try Self.declaredTarget(name) {
            #expect(action.signature.contains("to: [.\(name)("), "\(action.signature)")
            #expect(Set(action.parameters.map(\.name)) == Set(target.map { $0.label == "_" ? $0.name : $0.label }), "declared \(target)")
            #expect(action.example.contains(".\(name)("), "the example calls the action")
            return
        }
        let overloads = try Self.declaredOverloads(of: name)
        #expect(!overloads.isEmpty, "no `public func \(name)(` in Sources/Shiplane")
        let documented = action.signatureParameters.map { "\($0.label) \($0.name)" }
        let declared = overloads.map { $0.map { "\($0.label) \($0.name)" } }
        #expect(declared.contains(documented), "the signature \(action.signature) matches no declaration: \(declared)")
        // A parameter is documented by the name a caller writes: its label, or its name when unlabelled.
        let every = Set(overloads.flatMap { $0.map { $0.label == "_" ? $0.name : $0.label } })
        #expect(Set(action.parameters.map(\.name)) == every, "documented \(action.parameters.map(\.name)), declared \(every.sorted())")
        #expect(!action.summary.isEmpty && !action.example.isEmpty && !action.dryRun.isEmpty && !action.rollback.isEmpty)
        #expect(action.example.contains(".\(name)("), "the example calls the action")
    }

    @Test func everyActionInTheCodeIsInTheCatalog() throws {
        let root = packageRoot + "/Sources/Shiplane"
        var declared: [String] = []
        for relative in FileManager.default.subpaths(atPath: root) ?? [] where relative.hasSuffix(".swift") {
            let text = try String(contentsOfFile: root + "/" + relative, encoding: .utf8)
            let pattern = try NSRegularExpression(pattern: #"(?:public|package) struct \w+: (?:(?:Async)?Action|(?:(?:Plain)?Webhook)?Announcer|ForgeReleaseStep)(?:, \w+)* \{\n(?:[ \t]*///[^\n]*\n)*\s+(?:public|package) static let name = "(\w+)""#)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) { declared.append(String(text[range])) }
            }
        }
        #expect(Set(declared) == Set(ActionCatalog.all.map(\.name)))
        #expect(ActionCatalog.all.count == Set(ActionCatalog.all.map(\.name)).count)
    }

    /// The table between the markers in README.md is exactly what `shiplane actions --markdown` prints.
    @Test func theReadmeTableIsMadeFromTheActions() throws {
        let readme = try String(contentsOfFile: packageRoot + "/README.md", encoding: .utf8)
        let begin = "<!-- actions table: made by `shiplane actions --markdown`; a test compares it -->\n"
        let end = "\n<!-- end of actions table -->"
        let start = try #require(readme.range(of: begin), "README.md has no actions table markers")
        let stop = try #require(readme.range(of: end, range: start.upperBound..<readme.endIndex))
        let table = String(readme[start.upperBound..<stop.lowerBound])
        if ProcessInfo.processInfo.environment["SHIPLANE_UPDATE_GOLDEN"] == "1" {
            try readme.replacingCharacters(in: start.upperBound..<stop.lowerBound, with: ActionCatalog.markdownTable)
                .write(toFile: packageRoot + "/README.md", atomically: true, encoding: .utf8)
        }
        #expect(table == ActionCatalog.markdownTable)
    }
}
