import Foundation
internal import Git

/// How a repository writes its release tags, read from the nearest version tag reachable from
/// HEAD: with or without `v` (`v1.2.0`, `2.1.5`), and how many numbers (`v7.76`, `v2.3.0`).
/// The next release is tagged the same way; before the first tag, `v` and the version as the
/// files write it.
package struct ReleaseTagStyle: Sendable, Equatable {
    /// `v` or "".
    package var prefix = "v"
    /// How many numbers the tags write (2 for `7.76`, 3 for `2.3.0`); nil before the first tag.
    package var numbers: Int?

    /// The style of `name` when it names a version (`v1.2.3`, `2.1.5`, `7.76`, `v2.0.0-rc.1`), else nil.
    package init?(tag name: String) {
        let prefix = name.hasPrefix("v") ? "v" : ""
        let core = name.dropFirst(prefix.count).prefix { $0 != "-" && $0 != "+" }
        let numbers = core.split(separator: ".", omittingEmptySubsequences: false)
        guard (2...3).contains(numbers.count), numbers.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }) else { return nil }
        self.prefix = prefix
        self.numbers = numbers.count
    }

    /// The style before the first release tag.
    package init() {}

    /// `version` as this style writes it: a release with as many numbers as the tags have (more
    /// when it needs them: `7.76` style, 7.77.1 → `7.77.1`); a prerelease whole. A part the files
    /// write zero-padded (`26.07.6`) keeps its zeros.
    package func text(for version: SemanticVersion, shown: String) -> String {
        guard let numbers, !version.isPrerelease, version.buildMetadata.isEmpty else { return shown }
        let needed = version.patch != 0 ? 3 : 2
        let numbersOfVersion = [version.major, version.minor, version.patch]
        // Only the files' own text of this very version lends its zeros.
        let written = VersionShape.integerTexts(shown).flatMap { parts in
            parts.compactMap { Int($0) } + Array(repeating: 0, count: 3 - parts.count) == numbersOfVersion ? parts : nil
        } ?? []
        return numbersOfVersion.prefix(max(numbers, needed)).enumerated().map { index, number in
            VersionShape.padded(number, like: index < written.count ? written[index] : nil)
        }.joined(separator: ".")
    }
}

extension LaneContext {
    /// How this repository writes its release tags (`ReleaseTagStyle`): from the nearest version
    /// tag reachable from HEAD; the default (`v`) outside a repository or before the first commit.
    /// - Throws: `GitError` when the tags cannot be read.
    package func releaseTagStyle() throws -> ReleaseTagStyle {
        guard let repository = try? repository() else { return ReleaseTagStyle() }
        guard let head = try git({ () -> ObjectID? in
            switch try repository.head() {
            case .branch(_, let commit), .detached(let commit): return commit
            case .unborn: return nil
            }
        }) else { return ReleaseTagStyle() }
        let nearest = try git { try repository.lastTag(reachableFrom: head) { ReleaseTagStyle(tag: $0.name) != nil } }
        return nearest.flatMap { ReleaseTagStyle(tag: $0.name) } ?? ReleaseTagStyle()
    }
}
