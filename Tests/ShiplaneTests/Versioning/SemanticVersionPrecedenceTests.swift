import Foundation
import Testing
@testable import Shiplane

@Suite("SemanticVersion precedence", .offThePool)
struct SemanticVersionPrecedenceTests {
    /// The ordered list from SemVer 2.0.0 §11, plus numeric and length cases.
    static let ordered = [
        "0.9.9", "1.0.0-0", "1.0.0-9", "1.0.0-10", "1.0.0-99999999999999999999",
        "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
        "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0", "1.10.0", "2.0.0", "10.0.0",
    ]

    @Test func followsTheSpecificationOrder() throws {
        let versions = try Self.ordered.map { try SemanticVersion(parsing: $0) }
        for (index, lower) in versions.enumerated() {
            for higher in versions[(index + 1)...] {
                #expect(lower < higher, "\(lower) should precede \(higher)")
                #expect(!(higher < lower))
                #expect(lower.comparePrecedence(to: higher) == .orderedAscending)
                #expect(higher.comparePrecedence(to: lower) == .orderedDescending)
            }
        }
        #expect(versions.reversed().sorted() == versions)
    }

    @Test func alphanumericIdentifiersCompareInASCIIOrder() throws {
        #expect(try SemanticVersion(parsing: "1.0.0-Beta") < SemanticVersion(parsing: "1.0.0-alpha"))
        #expect(try SemanticVersion(parsing: "1.0.0--") < SemanticVersion(parsing: "1.0.0-0a"))
        #expect(try SemanticVersion(parsing: "1.0.0-1") < SemanticVersion(parsing: "1.0.0--1"))
    }

    @Test func buildMetadataIsIgnoredForPrecedenceButNotEquality() throws {
        let plain = try SemanticVersion(parsing: "1.0.0")
        let a = try SemanticVersion(parsing: "1.0.0+a")
        let b = try SemanticVersion(parsing: "1.0.0+b")
        #expect(a.hasSamePrecedence(as: b))
        #expect(plain.hasSamePrecedence(as: a))
        #expect(a != b)
        #expect(Set([plain, a, b]).count == 3)
        // `<` stays a strict total order: exactly one of <, ==, > holds.
        #expect(plain < a && a < b)
        #expect(!(b < a) && !(a < plain))
        #expect(try SemanticVersion(parsing: "1.0.0+zzz") < SemanticVersion(parsing: "1.0.1"))
        #expect(try SemanticVersion(parsing: "1.0.0-rc.1+zzz") < SemanticVersion(parsing: "1.0.0"))
    }
}
