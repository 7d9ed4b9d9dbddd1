import Foundation
import Testing
import ShiplaneTesting
@testable import Shiplane

/// The two-thread whole-history stream: the same releases, in the same order, as reading them on
/// one thread; a renderer that fails stops the reading thread and its error comes back.
@Suite("Whole-history stream on two threads", .offThePool)
struct ReleasePipelineTests {
    /// 30 releases of one to four commits each, a conventional and a plain subject among them.
    private func repository() throws -> TemporaryRepository {
        let repo = try TemporaryRepository()
        for release in 1...30 {
            for change in 0..<(release % 4 + 1) {
                try repo.write("file-\(release)-\(change).txt", "\(release).\(change)\n")
                try repo.git("add", "-A")
                try repo.git("commit", "-q", "-m", change % 2 == 0 ? "feat: change \(release).\(change)" : "tidy \(release).\(change)")
            }
            try repo.git("tag", "-a", "v1.\(release).0", "-m", "release \(release)")
        }
        return repo
    }

    @Test func givesTheReleasesOfOneThreadInTheSameOrder() throws {
        let repo = try repository()
        let test = TestLaneContext(workingDirectory: repo.path)
        let history = try ChangelogHistory(lane: test.context)
        let expected = try history.releases(.all, title: nil)
        var streamed: [ChangelogRelease] = []
        try ReleasePipeline(history: history, capacity: 2).forEach { streamed.append($0) }
        #expect(streamed == expected)
        #expect(streamed.count == 30)
        #expect(streamed.first?.commits.first?.conventional?.type == "feat", "messages are parsed on the rendering side")
        #expect(streamed.flatMap(\.commits).contains { $0.summary.hasPrefix("tidy ") })
    }

    @Test func gitsCommitGraphFileChangesNothingInTheWholeHistory() throws {
        let repo = try repository()
        // A merge, so the file's parent positions matter.
        try repo.git("checkout", "-q", "-b", "side", "v1.10.0")
        try repo.write("side.txt", "side\n")
        try repo.git("add", "-A")
        try repo.git("commit", "-q", "-m", "fix: on the side")
        try repo.git("checkout", "-q", "-")
        try repo.git("merge", "-q", "--no-ff", "-m", "Merge side", "side")
        try repo.git("tag", "-a", "v1.31.0", "-m", "release 31")
        let test = TestLaneContext(workingDirectory: repo.path)
        let without = try ChangelogHistory(lane: test.context, merges: .include).releases(.all, title: nil)
        try repo.git("commit-graph", "write", "--reachable")
        #expect(FileManager.default.fileExists(atPath: repo.path + "/.git/objects/info/commit-graph"))
        let with = try ChangelogHistory(lane: test.context, merges: .include, wholeHistory: true).releases(.all, title: nil)
        #expect(with == without)
        #expect(with.first?.commits.contains { $0.summary == "fix: on the side" } == true)
    }

    @Test func aRendererThatFailsStopsTheReaderAndItsErrorComesBack() throws {
        struct RenderFailed: Error {}
        let repo = try repository()
        let test = TestLaneContext(workingDirectory: repo.path)
        let history = try ChangelogHistory(lane: test.context)
        var seen = 0
        #expect(throws: RenderFailed.self) {
            try ReleasePipeline(history: history, capacity: 1).forEach { _ in
                seen += 1
                if seen == 3 { throw RenderFailed() }
            }
        }
        #expect(seen == 3)
        // The history is usable again at once: the reading thread has ended.
        #expect(try history.releases(.all, title: nil).count == 30)
    }

    @Test func aFailureWhileReadingComesBackToTheRenderer() throws {
        let repo = try repository()
        let test = TestLaneContext(workingDirectory: repo.path)
        let history = try ChangelogHistory(lane: test.context)
        // The oldest release's commits are gone: reading stops there with git's error.
        let root = try repo.git("rev-list", "--max-parents=0", "HEAD")
        let object = repo.path + "/.git/objects/" + root.prefix(2) + "/" + root.dropFirst(2)
        try FileManager.default.removeItem(atPath: object)
        var seen = 0
        #expect(throws: (any Error).self) {
            try ReleasePipeline(history: history).forEach { _ in seen += 1 }
        }
        #expect(seen < 30)
    }
}
