import Foundation
import Testing
@testable import Shiplane

/// A dependent's go.mod requirements of the monorepo's other Go modules (issue 42, item 4):
/// raised to the version just released, every other byte kept; Go's major-version rule kept;
/// a line `go` would refuse named with its file and line.
@Suite("go.mod requirements of a monorepo's other modules", .offThePool)
struct GoModRequirementsTests {
    static func core(_ version: String, path: String = "example.com/acme/core") -> GoModRequirements.Module {
        .init(package: "core", path: path, file: "packages/core/go.mod", version: SemanticVersion(unchecked: 0, 0, 0).parsed(version),
              tag: "core-v" + version)
    }

    static let app = """
    module example.com/acme/app

    go 1.22

    require example.com/acme/core v1.4.0

    require (
    \tgithub.com/google/uuid v1.6.0
    \texample.com/acme/core v1.4.0 // indirect
    \texample.com/acme/util v0.3.1
    )

    replace example.com/acme/core => ../core
    replace example.com/acme/core v1.4.0 => ../core

    """

    @Test func singleLineAndBlockRequirementsAreRaisedCommentsAndEveryOtherByteKept() throws {
        let edit = try GoModRequirements.edited(Self.app, file: "packages/app/go.mod", modules: [Self.core("1.5.0")])
        let expected = Self.app
            .replacingOccurrences(of: "require example.com/acme/core v1.4.0", with: "require example.com/acme/core v1.5.0")
            .replacingOccurrences(of: "\texample.com/acme/core v1.4.0 // indirect", with: "\texample.com/acme/core v1.5.0 // indirect")
            .replacingOccurrences(of: "replace example.com/acme/core v1.4.0 => ../core", with: "replace example.com/acme/core v1.5.0 => ../core")
        #expect(edit.text == expected)
        #expect(edit.changed == ["example.com/acme/core v1.4.0 → v1.5.0", "example.com/acme/core v1.4.0 → v1.5.0",
                                 "replace example.com/acme/core v1.4.0 → v1.5.0"])
        #expect(edit.text.contains("replace example.com/acme/core => ../core\n"), "a local replacement stays, the requirement is still raised")
        #expect(edit.notes.isEmpty)
    }

    /// Pseudo-versions of commits before the release are raised; a later one, an equal one and a
    /// `+incompatible` one stay.
    @Test(arguments: [
        ("v0.0.0-20240101120000-abcdef123456", "v1.5.0"), ("v1.4.1-0.20240101120000-abcdef123456", "v1.5.0"),
        ("v1.5.0", nil), ("v1.5.1-0.20250101120000-abcdef123456", nil), ("v1.6.0", nil), ("v0.9.0", "v1.5.0"),
    ] as [(String, String?)])
    func pseudoAndLaterVersions(_ before: String, _ after: String?) throws {
        let text = "module example.com/acme/app\n\nrequire example.com/acme/core \(before)\n"
        let edit = try GoModRequirements.edited(text, file: "go.mod", modules: [Self.core("1.5.0")])
        #expect(edit.text == (after.map { text.replacingOccurrences(of: before, with: $0) } ?? text))
    }

    @Test func zeroVersionsMoveWithinTheirPath() throws {
        let text = "module m\n\nrequire example.com/acme/core v0.3.0\n"
        let edit = try GoModRequirements.edited(text, file: "go.mod", modules: [Self.core("0.4.0")])
        #expect(edit.text == "module m\n\nrequire example.com/acme/core v0.4.0\n")
    }

    /// v2 released from a path without /v2: `go` would refuse the requirement, so nothing is
    /// written and the error names both files, the line and the fix.
    @Test func aMajorVersionThePathCannotCarryIsAnError() throws {
        #expect {
            try GoModRequirements.edited(Self.app, file: "packages/app/go.mod", modules: [Self.core("2.0.0")])
        } throws: { error in
            let error = try #require(error as? ManifestRequirementError)
            return error.message.hasPrefix("packages/app/go.mod:5: requires example.com/acme/core, which core released as 2.0.0 (tag core-v2.0.0)")
                && error.message.contains("packages/core/go.mod says `module example.com/acme/core`")
                && error.suggestion?.contains("example.com/acme/core/v2") == true && error.category == .usage
        }
    }

    /// The module moved to /v2: a dependent on the v1 line keeps it (its imports would change) and is told.
    @Test func aDependentOnAnEarlierMajorLineKeepsItAndIsTold() throws {
        let edit = try GoModRequirements.edited(Self.app, file: "packages/app/go.mod", modules: [Self.core("2.0.0", path: "example.com/acme/core/v2")])
        #expect(edit.text == Self.app && edit.changed.isEmpty)
        #expect(edit.notes.first == "packages/app/go.mod:5 requires example.com/acme/core v1.4.0, an earlier major version of core (now example.com/acme/core/v2 at 2.0.0): "
            + "left, since moving to it changes the import paths (`go get example.com/acme/core/v2@v2.0.0`)")
        let v2 = "module m\n\nrequire example.com/acme/core/v2 v2.0.0\n"
        #expect(try GoModRequirements.edited(v2, file: "go.mod", modules: [Self.core("2.1.0", path: "example.com/acme/core/v2")]).text
            == "module m\n\nrequire example.com/acme/core/v2 v2.1.0\n")
    }

    @Test(arguments: [
        ("module m\n\nrequire example.com/acme/core\n", 3, "`require example.com/acme/core` is not a module path and a version"),
        ("module m\n\nrequire (\n\texample.com/acme/core 1.4.0\n)\n", 4, "`1.4.0` (the version required of example.com/acme/core) is not a Go module version"),
        ("module m\n\nrequire (\n\texample.com/acme/core v1.4.0\n", 3, "the `require (` block is never closed"),
    ] as [(String, Int, String)])
    func aLineGoRefusesIsNamedWithItsFileAndLine(_ text: String, _ line: Int, _ problem: String) {
        #expect {
            try GoModRequirements.edited(text, file: "packages/app/go.mod", modules: [Self.core("1.5.0")])
        } throws: { error in
            (error as? ManifestRequirementError)?.message == "packages/app/go.mod:\(line): \(problem)"
        }
    }

    @Test func modulePathsAndMajorSuffixes() {
        #expect(GoModRequirements.modulePath("// c\nmodule \"example.com/x/v3\" // here\n") == "example.com/x/v3")
        #expect(GoModRequirements.majorSuffix(of: "example.com/x/v3") == 3 && GoModRequirements.majorSuffix(of: "example.com/x/v1") == nil
            && GoModRequirements.majorSuffix(of: "example.com/v02") == nil)
        #expect(GoModRequirements.base(of: "example.com/x/v3") == "example.com/x" && GoModRequirements.base(of: "example.com/x") == "example.com/x")
    }
}

private extension SemanticVersion {
    /// `text` parsed; the test's own literals are valid.
    func parsed(_ text: String) -> SemanticVersion { SemanticVersion(text) ?? self }
}
