import Testing
@testable import ShiplaneCLI

/// `LaneImports` reads every form of Swift's import declaration (`attributes? access-level?
/// import import-kind? import-path`), the module being the path's first component, and the lane
/// declaration reader passes over them: `import struct Foundation.Date` declares no type.
@Suite("Lane imports: every form of the import grammar", .offThePool)
struct LaneImportsTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var source: String
        var module: String
        var path: [String]
        var kind: String? = nil
        var attributes: [String] = []
        var accessLevel: String? = nil
        var testDescription: String { source }
    }

    static let cases: [Case] = [
        Case(source: "import Foundation", module: "Foundation", path: ["Foundation"]),
        Case(source: "import Darwin.C.stdio", module: "Darwin", path: ["Darwin", "C", "stdio"]),
        Case(source: "import struct Foundation.Date", module: "Foundation", path: ["Foundation", "Date"], kind: "struct"),
        Case(source: "import class Foundation.JSONEncoder", module: "Foundation", path: ["Foundation", "JSONEncoder"], kind: "class"),
        Case(source: "import enum Foundation.ComparisonResult", module: "Foundation", path: ["Foundation", "ComparisonResult"], kind: "enum"),
        Case(source: "import protocol Swift.Sendable", module: "Swift", path: ["Swift", "Sendable"], kind: "protocol"),
        Case(source: "import typealias Foundation.TimeInterval", module: "Foundation", path: ["Foundation", "TimeInterval"], kind: "typealias"),
        Case(source: "import func Glibc.exit", module: "Glibc", path: ["Glibc", "exit"], kind: "func"),
        Case(source: "import var Glibc.errno", module: "Glibc", path: ["Glibc", "errno"], kind: "var"),
        Case(source: "import let Foundation.NSNotFound", module: "Foundation", path: ["Foundation", "NSNotFound"], kind: "let"),
        Case(source: "@testable import Shiplane", module: "Shiplane", path: ["Shiplane"], attributes: ["testable"]),
        Case(source: "@_implementationOnly import Glibc", module: "Glibc", path: ["Glibc"], attributes: ["_implementationOnly"]),
        Case(source: "internal import Foundation", module: "Foundation", path: ["Foundation"], accessLevel: "internal"),
        Case(source: "public import Dispatch", module: "Dispatch", path: ["Dispatch"], accessLevel: "public"),
        Case(source: "package import Dispatch", module: "Dispatch", path: ["Dispatch"], accessLevel: "package"),
        Case(source: "fileprivate import Glibc", module: "Glibc", path: ["Glibc"], accessLevel: "fileprivate"),
        Case(source: "private import Glibc", module: "Glibc", path: ["Glibc"], accessLevel: "private"),
        Case(source: "@_exported public import struct ArgumentParser.Flag", module: "ArgumentParser", path: ["ArgumentParser", "Flag"],
             kind: "struct", attributes: ["_exported"], accessLevel: "public"),
        Case(source: "@_spi(Internal) @preconcurrency internal import func Dispatch.dispatchMain", module: "Dispatch",
             path: ["Dispatch", "dispatchMain"], kind: "func", attributes: ["_spi", "preconcurrency"], accessLevel: "internal"),
        Case(source: "@preconcurrency\nimport\n  struct Foundation\n  .Date", module: "Foundation", path: ["Foundation", "Date"],
             kind: "struct", attributes: ["preconcurrency"]),
        Case(source: "import `Foundation`", module: "Foundation", path: ["Foundation"]),
    ]

    @Test("each form gives its module, path, kind, attributes and access level", arguments: cases)
    func eachFormIsRead(_ form: Case) {
        let source = "// a lane\n\(form.source)\nstruct Release: Lane {}\n"
        let tokens = SwiftLexer.tokens(of: source)
        let found = LaneImports.imports(in: tokens)
        #expect(found.count == 1, "\(found)")
        guard let read = found.first else { return }
        #expect(read.module == form.module)
        #expect(read.path == form.path)
        #expect(read.kind == form.kind)
        #expect(read.attributes == form.attributes)
        #expect(read.accessLevel == form.accessLevel)
        #expect(read.line == (form.source.hasPrefix("@preconcurrency\n") ? 3 : 2))
        // The declaration's tokens are all of it: what follows is the lane.
        #expect(tokens[read.tokens.upperBound].kind == .word("struct"))
        #expect(read.tokens.lowerBound == 0)
        #expect(LaneDiscovery.scan([(path: "Lanes/Release.swift", text: source)]).lanes == ["Release"], "the lane after it is still found")
    }

    @Test func severalOnALineAndNoneWhereNoDeclarationIs() {
        let tokens = SwiftLexer.tokens(of: """
            import Foundation; @testable import Shiplane
            // import Yams
            let text = "import Crypto"
            let member = step.import
            """)
        #expect(LaneImports.imports(in: tokens).map(\.module) == ["Foundation", "Shiplane"])
    }

    /// Every scoped kind before lanes of every kind, in one file: no import is read as the
    /// declaration of the type it names, so each lane keeps its own header (issue 39: `import
    /// struct Foundation.Date` took the next lane's conformances and the run found no lanes).
    @Test func scopedImportsAreNotDeclarations() {
        let found = LaneDiscovery.scan([(path: "Lanes/All.swift", text: """
            import struct Foundation.Date
            import class Foundation.JSONEncoder
            import enum Foundation.ComparisonResult
            @preconcurrency import func Glibc.exit
            import Shiplane

            struct Release: Lane {}
            import class Foundation.NSObject
            final class Nightly: Lane {}
            import enum Foundation.ComparisonResult
            enum Deploy: Lane {}
            struct Stamp: Effect {}
            """)])
        #expect(found.lanes == ["Release", "Nightly", "Deploy"])
        #expect(found.locations == ["Lanes/All.swift:7", "Lanes/All.swift:9", "Lanes/All.swift:11"])
        #expect(found.effects == ["Stamp"])
        #expect(found.problems.isEmpty, "\(found.problems)")
    }
}
