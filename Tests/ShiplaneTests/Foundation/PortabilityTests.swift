import Foundation
import Testing

/// Where a Swift file uses a spelling only Glibc (or only Linux) has, outside a block that only
/// Linux compiles: the lines that would break the build on macOS.
func glibcOnlySpellings(in source: String) -> [(line: Int, text: String)] {
    let patterns = [#"\bst_[amc]tim\b"#, #"\bimport Glibc\b"#, #"\bGlibc\."#, #""/proc/"#, #"\bepoll_"#, #"\binotify_"#]
    let expressions = patterns.compactMap { try? NSRegularExpression(pattern: $0) }
    // One entry per open `#if`: whether the branch being read is compiled on Linux only.
    var linuxOnly: [Bool] = []
    var found: [(line: Int, text: String)] = []
    for (number, raw) in source.components(separatedBy: "\n").enumerated() {
        let line = raw.trimmingCharacters(in: .whitespaces)
        if line.hasPrefix("#if ") {
            linuxOnly.append(line.contains("os(Linux)") || line.contains("canImport(Glibc)"))
            continue
        }
        if line.hasPrefix("#elseif") || line.hasPrefix("#else") {
            if !linuxOnly.isEmpty { linuxOnly[linuxOnly.count - 1] = line.contains("os(Linux)") || line.contains("canImport(Glibc)") }
            continue
        }
        if line.hasPrefix("#endif") {
            if !linuxOnly.isEmpty { linuxOnly.removeLast() }
            continue
        }
        if line.hasPrefix("//") || linuxOnly.contains(true) { continue }
        let range = NSRange(line.startIndex..., in: line)
        if expressions.contains(where: { $0.firstMatch(in: line, range: range) != nil }) {
            found.append((number + 1, line))
        }
    }
    return found
}

/// Shiplane is meant to build on macOS too, and there is no macOS toolchain here: the next best
/// check is that no Glibc-only spelling stands outside a Linux-only block.
@Suite("Portability: Glibc-only spellings only in Linux-only blocks", .offThePool)
struct PortabilityTests {
    @Test func noGlibcOnlySpellingOutsideALinuxBlock() throws {
        let sources = packageRoot + "/Sources"
        let files = FileManager.default.enumerator(atPath: sources)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        #expect(files.count > 100, "the sources were found: \(files.count)")
        var problems: [String] = []
        for file in files {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            problems += glibcOnlySpellings(in: text).map { "Sources/\(file):\($0.line): \($0.text)" }
        }
        #expect(problems.isEmpty, "Glibc-only spellings outside `#if os(Linux)`:\n\(problems.joined(separator: "\n"))")
    }

    /// The checker itself: it finds a spelling outside a block, and not inside one or its `#else`'s Linux twin.
    @Test func theCheckerTellsABlockFromTheRest() {
        let source = """
        let a = info.st_mtim
        #if os(Linux)
        let b = info.st_mtim
        #else
        let c = info.st_mtimespec
        #endif
        #if canImport(Darwin)
        let d = info.st_ctim
        #elseif canImport(Glibc)
        import Glibc
        #endif
        // st_atim in a comment
        """
        #expect(glibcOnlySpellings(in: source).map(\.line) == [1, 8])
    }
}

/// The declarations in `source` that opt out of the compiler's `Sendable` check without a
/// `// @unchecked:` comment (on the line before or in the two lines after) that says why the
/// type is safe to share.
func uncheckedSendablesWithoutReason(in source: String) -> [Int] {
    let lines = source.components(separatedBy: "\n")
    return lines.indices.compactMap { index in
        let line = lines[index].trimmingCharacters(in: .whitespaces)
        guard !line.hasPrefix("//"), line.contains("@unchecked Sendable") else { return nil }
        let near = lines[max(0, index - 1)...min(lines.count - 1, index + 2)]
        return near.contains { $0.contains("// @unchecked:") } ? nil : index + 1
    }
}

/// Every `@unchecked Sendable` in the sources says why sharing it across threads is safe, so
/// the claim can be checked by reading (issue 21: twelve said nothing).
@Suite("Concurrency: every @unchecked Sendable says why it is safe", .offThePool)
struct UncheckedSendableTests {
    @Test func everyUncheckedSendableSaysWhy() throws {
        let sources = packageRoot + "/Sources"
        let files = FileManager.default.enumerator(atPath: sources)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        var found = 0
        var problems: [String] = []
        for file in files {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            found += text.components(separatedBy: "@unchecked Sendable").count - 1
            problems += uncheckedSendablesWithoutReason(in: text).map { "Sources/\(file):\($0)" }
        }
        #expect(found > 10, "the declarations were found: \(found)")
        #expect(problems.isEmpty, "@unchecked Sendable without a `// @unchecked:` reason:\n\(problems.joined(separator: "\n"))")
    }

    @Test func theCheckerWantsAReasonNearTheDeclaration() {
        let source = """
        final class A: @unchecked Sendable {
            // @unchecked: `x` is only touched under `lock`.
            var x = 0
        }
        final class B: @unchecked Sendable {
            var y = 0
        }
        """
        #expect(uncheckedSendablesWithoutReason(in: source) == [5])
    }
}
